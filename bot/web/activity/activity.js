// The Activity's side of the web board: the Embedded App SDK's handshake with the Discord
// client, OAuth2 through the bot's /api/token, then a board pass for the channel's game.
// Bundled by `make web` (esbuild) into ../static/dist/activity.js, which board.js imports
// when Discord opens the page as an Activity.
import { DiscordSDK } from "@discord/embedded-app-sdk";

async function post(path, body) {
  const reply = await fetch(path, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await reply.json();
  if (!reply.ok) throw new Error(answer.error || `HTTP ${reply.status}`);
  return answer;
}

export async function startActivity() {
  const config = await (await fetch("/api/config")).json();
  const sdk = new DiscordSDK(config.client_id);
  await sdk.ready();
  const { code } = await sdk.commands.authorize({
    client_id: config.client_id,
    response_type: "code",
    state: "",
    prompt: "none",
    scope: ["identify"],
  });
  const { access_token } = await post("/api/token", { code });
  await sdk.commands.authenticate({ access_token });
  const { token } = await post("/api/activity", { access_token, instance_id: sdk.instanceId });
  return token;
}
