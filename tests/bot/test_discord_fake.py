"""The fake Discord itself, proven with a toy bot on the real, unmodified discord.py."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any

import discord
import pytest
from discord import app_commands
from discord.ext import commands

from tests.fakediscord import FakeDiscord, FakeDiscordError
from tests.fakediscord.server import _check_message


class Poke(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"toy:(?P<n>\d+):poke"):
    """A button that survives restarts: its state lives in the custom id."""

    def __init__(self, n: int) -> None:
        super().__init__(discord.ui.Button(label=f"poke {n}", custom_id=f"toy:{n}:poke"))
        self.n = n

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction[Any],
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Poke:
        return cls(int(match["n"]))

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await interaction.response.edit_message(
            content=f"poked {self.n + 1}", view=view_for(self.n + 1)
        )


def view_for(n: int) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    view.add_item(Poke(n))
    return view


class ToyBot(commands.Bot):
    def __init__(self) -> None:
        super().__init__(
            command_prefix=commands.when_mentioned,
            intents=discord.Intents.default(),
            guild_ready_timeout=0.01,
        )

    async def setup_hook(self) -> None:
        self.add_dynamic_items(Poke)
        toy = app_commands.Group(name="toy", description="Toy commands")

        @toy.command()
        @app_commands.describe(who="Someone to greet", times="How often")
        async def greet(
            interaction: discord.Interaction[Any],
            who: discord.Member,
            times: app_commands.Range[int, 1, 3] = 1,
        ) -> None:
            """Greet someone."""
            await interaction.response.send_message(f"hi {who.display_name} " * times)

        @toy.command()
        async def slow(interaction: discord.Interaction[Any]) -> None:
            """Think, then answer."""
            await interaction.response.defer(thinking=True)
            await asyncio.sleep(0.01)
            await interaction.edit_original_response(content="done thinking")

        @toy.command()
        async def secret(interaction: discord.Interaction[Any]) -> None:
            """Answer privately, with a file in a followup."""
            await interaction.response.send_message("psst", ephemeral=True)
            await interaction.followup.send(
                "file", file=discord.File(fp=__import__("io").BytesIO(b"abc"), filename="a.txt"),
                ephemeral=True,
            )  # fmt: skip

        @toy.command()
        async def button(interaction: discord.Interaction[Any]) -> None:
            """Post a button."""
            await interaction.response.send_message("poked 0", view=view_for(0))

        @toy.command()
        async def post(interaction: discord.Interaction[Any]) -> None:
            """Post to the channel, then edit it."""
            await interaction.response.defer(ephemeral=True, thinking=True)
            assert isinstance(interaction.channel, discord.TextChannel)
            message = await interaction.channel.send("@everyone v1")
            await message.edit(content="v2")
            await interaction.followup.send("posted", ephemeral=True)

        @toy.command()
        async def perms(interaction: discord.Interaction[Any]) -> None:
            """Report the bot's own channel permissions."""
            p = interaction.app_permissions
            await interaction.response.send_message(
                f"send={p.send_messages} attach={p.attach_files}"
            )

        @app_commands.command()
        @app_commands.describe(word="Any word")
        async def pick(interaction: discord.Interaction[Any], word: str) -> None:
            """Pick a word."""
            await interaction.response.send_message(f"picked {word}")

        @pick.autocomplete("word")
        async def pick_words(
            interaction: discord.Interaction[Any], current: str
        ) -> list[app_commands.Choice[str]]:
            words = [f"{current}{i}" for i in range(40)]
            return [app_commands.Choice(name=w, value=w) for w in words[:25]]

        self.tree.add_command(toy)
        self.tree.add_command(pick)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    # Not conftest's: the toy bot pings @everyone on purpose, to prove the fake notices.
    async with FakeDiscord() as server:
        yield server


@pytest.fixture
async def toy(fake: FakeDiscord) -> AsyncIterator[ToyBot]:
    bot = ToyBot()
    async with fake.running(bot, sync=True):
        yield bot


async def test_connects_and_registers_commands(fake: FakeDiscord, toy: ToyBot) -> None:
    assert toy.user is not None
    assert toy.user.id == fake.bot_user.id
    group = fake.command("toy")
    assert {o["name"] for o in group["options"]} >= {"greet", "slow", "secret", "button"}
    greet = next(o for o in group["options"] if o["name"] == "greet")
    assert [o["description"] for o in greet["options"]] == ["Someone to greet", "How often"]
    assert toy.get_guild(fake.guild_id) is not None


async def test_slash_with_options_resolves_members(fake: FakeDiscord, toy: ToyBot) -> None:
    bob = fake.add_user("bob")
    reply = await fake.slash("toy greet", options={"who": bob, "times": 2})
    assert reply.content == "hi bob hi bob "
    assert not reply.ephemeral
    assert not reply.deferred
    assert reply.message in fake.channel_messages()


async def test_client_side_validation_is_enforced(fake: FakeDiscord, toy: ToyBot) -> None:
    with pytest.raises(FakeDiscordError):
        await fake.slash("toy greet", options={"who": fake.owner, "times": 9})
    with pytest.raises(FakeDiscordError):
        await fake.slash("toy greet")


async def test_defer_then_edit_original(fake: FakeDiscord, toy: ToyBot) -> None:
    reply = await fake.slash("toy slow")
    assert reply.deferred
    assert reply.content == "done thinking"
    assert reply.message is not None
    assert not reply.message.loading


async def test_ephemeral_followup_with_file(fake: FakeDiscord, toy: ToyBot) -> None:
    record = await fake.send_slash("toy secret")
    await fake.wait_for(lambda: bool(record.followups))
    assert record.original is not None
    assert record.original.ephemeral
    assert record.original.content == "psst"
    (followup,) = record.followups
    assert followup.ephemeral
    assert followup.attachments[0].data == b"abc"
    assert fake.channel_messages() == []


async def test_buttons_survive_a_restart(fake: FakeDiscord, toy: ToyBot) -> None:
    reply = await fake.slash("toy button")
    assert reply.custom_ids() == ["toy:0:poke"]
    assert reply.message is not None
    clicked = await fake.click(reply.message, "toy:0:poke")
    assert clicked.content == "poked 1"
    assert clicked.message is reply.message
    await toy.close()
    async with fake.running(ToyBot(), sync=True):
        again = await fake.click(reply.message, "toy:1:poke")
    assert again.content == "poked 2"
    assert reply.message.custom_ids() == ["toy:2:poke"]


async def test_channel_messages_and_rate_limits(fake: FakeDiscord, toy: ToyBot) -> None:
    fake.rate_limit("PATCH", r"/channels/\d+/messages/\d+", retry_after=0.01)
    reply = await fake.slash("toy post")
    assert reply.ephemeral
    assert reply.content == "posted"
    (posted,) = fake.channel_messages()
    assert posted.content == "v2"
    assert posted.edits == 1
    statuses = [r.status for r in fake.requests_to("PATCH", r"/channels/")]
    assert statuses == [429, 200]
    # discord.py sends no allowed_mentions unless told to: Discord would ping everyone.
    assert posted.pinged_everyone


async def test_missing_permissions(fake: FakeDiscord, toy: ToyBot) -> None:
    fake.deny(fake.default_channel, "attach_files")
    reply = await fake.slash("toy perms")
    assert reply.content == "send=True attach=False"
    fake.deny(fake.default_channel, "send_messages")
    await fake.send_slash("toy post")
    await fake.wait_for(lambda: bool(fake.requests_to("POST", r"/channels/\d+/messages")))
    assert fake.requests_to("POST", r"/channels/\d+/messages")[-1].status == 403
    assert [m for m in fake.channel_messages() if m.interaction_id is None] == []


async def test_autocomplete_choices(fake: FakeDiscord, toy: ToyBot) -> None:
    choices = await fake.autocomplete("pick", "word", options={"word": "ab"})
    assert len(choices) == 25
    assert choices[0] == {"name": "ab0", "value": "ab0"}
    reply = await fake.slash("pick", options={"word": "zz"})
    assert reply.content == "picked zz"


async def test_answering_late_or_twice_fails_like_discord(fake: FakeDiscord, toy: ToyBot) -> None:
    fake.interaction_deadline = 0.0
    record = await fake.send_slash("toy greet", options={"who": fake.owner})
    await fake.wait_for(lambda: bool(fake.requests_to("POST", rf"/interactions/{record.id}/")))
    assert fake.requests_to("POST", rf"/interactions/{record.id}/")[0].status == 404
    assert record.callback_type is None


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"name_localizations": {"ja": "Start"}}, "bad name 'Start'"),
        ({"name_localizations": {"ja": "二 語"}}, "bad name"),
        ({"name_localizations": {"xx": "x"}}, "unknown locale 'xx'"),
        ({"description_localizations": {"ko": "가" * 101}}, "1-100 characters"),
    ],
    ids=["upper-case", "space", "locale", "long-description"],
)
def test_the_fake_checks_localisations_as_discord_does(
    change: dict[str, Any], problem: str
) -> None:
    from tests.fakediscord.server import _check_command

    command = {"name": "gomoku", "description": "Play", "type": 1, "options": []}
    assert _check_command(command) is None
    assert problem in (_check_command({**command, **change}) or "")
    twins = {
        **command,
        "options": [
            {"name": "a", "description": "x", "type": 1, "name_localizations": {"ja": "同じ"}},
            {"name": "b", "description": "x", "type": 1, "name_localizations": {"ja": "同じ"}},
        ],
    }
    assert "share a name in ja" in (_check_command(twins) or "")


@pytest.mark.parametrize("layout", [False, True])
def test_the_fake_refuses_custom_ids_that_discord_refuses(layout: bool) -> None:
    def message(*custom_ids: str) -> dict[str, Any]:
        buttons = [{"type": 2, "label": "x", "custom_id": c} for c in custom_ids]
        return {"components": [{"type": 1, "components": buttons}]}

    assert _check_message(message("a", "b"), layout=layout) is None
    assert "used twice" in str(_check_message(message("a", "a"), layout=layout))
    assert "1-100 characters" in str(_check_message(message("x" * 101), layout=layout))
