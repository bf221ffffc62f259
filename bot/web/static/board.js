// The web board: draws the game the server sends over a WebSocket and sends taps as moves.
// The pass comes from the URL fragment (#<pass>), or, inside Discord, from the Activity's
// OAuth2 handshake (activity.js, bundled with the Embedded App SDK). The server sends every
// word the page shows, in the pass holder's language.

const canvas = document.getElementById("board");
const ctx = canvas.getContext("2d");
const els = Object.fromEntries(
  ["title", "line", "note", "replay", "ply", "first", "back", "next", "last", "stage"].map(
    (id) => [id, document.getElementById(id)],
  ),
);

let game = null; // the newest state from the server
let ghost = null; // [x, y] of a first tap, waiting for the second
let ply = null; // the move shown while replaying a finished game (null: the last)
let socket = null;
let token = null;
let retry = 500; // ms before reconnecting; doubles up to 8 s
let stopped = false; // the pass was refused: no reconnecting
let geometry = null;

const STONES = [
  ["#4a4a4a", "#050505"], // black: highlight, body
  ["#ffffff", "#cfcfcf"], // white
];
const GRAVITY = ["#e0453a", "#f2c230"]; // red and yellow discs

function starPoints(w, h) {
  if (w !== h || w < 9) return [];
  const edge = w >= 13 ? 3 : 2;
  const far = w - 1 - edge;
  const mid = (w - 1) / 2;
  const points = [[edge, edge], [edge, far], [far, edge], [far, far]];
  if (w % 2 === 1) points.push([mid, mid]);
  if (w >= 15 && w % 2 === 1) points.push([edge, mid], [far, mid], [mid, edge], [mid, far]);
  return w >= 15 ? points : points.slice(0, w % 2 ? 5 : 4);
}

function columnName(x) {
  return String.fromCharCode(97 + x);
}

// Cells (tic-tac-toe, gravity games) or intersections (Gomoku).
function isCells() {
  return game.gravity || game.marks;
}

function layout() {
  const dpr = window.devicePixelRatio || 1;
  const box = els.stage.getBoundingClientRect();
  // The board takes the width, leaving room below it for a line of notes and the replay.
  const below = window.innerHeight - box.top - 100;
  const side = Math.max(120, Math.floor(Math.min(box.width, below)));
  const w = game.width;
  const h = game.height;
  // Intersections: a cell's width of room around the grid (half a stone and the
  // coordinates). Cells: the same room on the left and below, for the coordinates.
  const cell = Math.floor(side / (Math.max(w, h) + 1));
  const pad = isCells() ? Math.round(cell / 2) : cell;
  const cssW = isCells() ? cell * w + 2 * pad : cell * (w - 1) + 2 * pad;
  const cssH = isCells() ? cell * h + 2 * pad : cell * (h - 1) + 2 * pad;
  canvas.style.width = `${cssW}px`;
  canvas.style.height = `${cssH}px`;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  geometry = { cell, pad, w, h, cssW, cssH };
}

// The centre of point (x, y) in CSS pixels; y counts from the bottom.
function centre(x, y) {
  const { cell, pad, h } = geometry;
  const row = h - 1 - y;
  if (isCells()) return [pad + cell * x + cell / 2, pad + cell * row + cell / 2];
  return [pad + cell * x, pad + cell * row];
}

function shownMoves() {
  const n = ply === null ? game.moves.length : ply;
  return game.moves.slice(0, n);
}

function draw() {
  if (!game) return;
  layout();
  const { cell, pad, w, h, cssW, cssH } = geometry;
  ctx.clearRect(0, 0, cssW, cssH);
  ctx.fillStyle = game.gravity ? "#1f4fb5" : game.marks ? "#2b2d31" : "#dcb35c";
  ctx.fillRect(0, 0, cssW, cssH);
  ctx.strokeStyle = game.gravity ? "#163b8a" : game.marks ? "#8e9297" : "#3b2a10";
  ctx.lineWidth = 1;
  if (isCells()) {
    for (let i = 0; i <= w; i++) line(pad + i * cell, pad, pad + i * cell, pad + h * cell);
    for (let j = 0; j <= h; j++) line(pad, pad + j * cell, pad + w * cell, pad + j * cell);
  } else {
    for (let i = 0; i < w; i++) line(pad + i * cell, pad, pad + i * cell, pad + (h - 1) * cell);
    for (let j = 0; j < h; j++) line(pad, pad + j * cell, pad + (w - 1) * cell, pad + j * cell);
    ctx.fillStyle = "#3b2a10";
    for (const [x, y] of starPoints(w, h)) dot(...centre(x, y), Math.max(2, cell * 0.1));
  }
  // coordinates: letters (numbers in gravity games) under the board, rows on the left
  ctx.fillStyle = game.marks ? "#b5bac1" : game.gravity ? "#dfe6ff" : "#3b2a10";
  ctx.font = `${Math.max(9, Math.min(14, cell * 0.4))}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const gap = isCells() ? pad / 2 : cell * 0.62;
  const bottom = isCells() ? pad + h * cell : pad + (h - 1) * cell;
  for (let x = 0; x < w; x++) {
    const [cx] = centre(x, 0);
    ctx.fillText(game.gravity ? String(x + 1) : columnName(x), cx, bottom + gap);
  }
  if (!game.gravity) {
    for (let y = 0; y < h; y++) ctx.fillText(String(y + 1), pad - gap, centre(0, y)[1]);
  }
  const moves = shownMoves();
  const replaying = ply !== null && ply < game.moves.length;
  if (!replaying && !game.over) {
    ctx.strokeStyle = "#d0312d";
    ctx.lineWidth = 2;
    for (const [x, y] of game.forbidden) {
      const [cx, cy] = centre(x, y);
      const r = cell * 0.18;
      line(cx - r, cy - r, cx + r, cy + r);
      line(cx - r, cy + r, cx + r, cy - r);
    }
  }
  for (const [x, y, c] of moves) stone(x, y, c, 1);
  if (ghost && !replaying) stone(ghost[0], ghost[1], game.you ?? 0, 0.45);
  const last = moves[moves.length - 1];
  if (last) {
    const [cx, cy] = centre(last[0], last[1]);
    ctx.fillStyle = "#e8412f";
    dot(cx, cy, Math.max(3, cell * 0.12));
  }
  if (!replaying && game.winning.length > 1) {
    // the row's two ends: the first and last of its points in (x, y) order
    const ends = [...game.winning].sort((p, q) => p[0] - q[0] || p[1] - q[1]);
    const [a, b] = [ends[0], ends[ends.length - 1]];
    ctx.strokeStyle = "rgba(232, 65, 47, 0.85)";
    ctx.lineWidth = Math.max(3, cell * 0.12);
    ctx.lineCap = "round";
    line(...centre(a[0], a[1]), ...centre(b[0], b[1]));
    ctx.lineCap = "butt";
  }
}

function line(x1, y1, x2, y2) {
  ctx.beginPath();
  ctx.moveTo(x1, y1);
  ctx.lineTo(x2, y2);
  ctx.stroke();
}

function dot(x, y, r) {
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fill();
}

function stone(x, y, colour, alpha) {
  const { cell } = geometry;
  const [cx, cy] = centre(x, y);
  ctx.globalAlpha = alpha;
  if (game.marks) {
    ctx.strokeStyle = colour === 0 ? "#ed4245" : "#5865f2";
    ctx.lineWidth = Math.max(3, cell * 0.1);
    const r = cell * 0.3;
    if (colour === 0) {
      line(cx - r, cy - r, cx + r, cy + r);
      line(cx - r, cy + r, cx + r, cy - r);
    } else {
      ctx.beginPath();
      ctx.arc(cx, cy, r, 0, 2 * Math.PI);
      ctx.stroke();
    }
  } else {
    const r = cell * (game.gravity ? 0.4 : 0.46);
    if (game.gravity) {
      ctx.fillStyle = GRAVITY[colour];
    } else {
      const g = ctx.createRadialGradient(cx - r / 3, cy - r / 3, r / 6, cx, cy, r);
      g.addColorStop(0, STONES[colour][0]);
      g.addColorStop(1, STONES[colour][1]);
      ctx.fillStyle = g;
    }
    dot(cx, cy, r);
  }
  ctx.globalAlpha = 1;
}

function landing(column) {
  const taken = new Set(game.moves.map(([x, y]) => `${x},${y}`));
  for (let y = 0; y < game.height; y++) if (!taken.has(`${column},${y}`)) return y;
  return null;
}

// The point under a tap: the nearest intersection, or the cell (the landing point of the
// column in gravity games).
function pointAt(event) {
  const rect = canvas.getBoundingClientRect();
  const { cell, pad, h, w } = geometry;
  const px = event.clientX - rect.left - pad;
  const py = event.clientY - rect.top - pad;
  const x = isCells() ? Math.floor(px / cell) : Math.round(px / cell);
  const row = isCells() ? Math.floor(py / cell) : Math.round(py / cell);
  if (x < 0 || x >= w) return null;
  if (game.gravity) {
    const y = landing(x);
    return y === null ? null : [x, y];
  }
  if (row < 0 || row >= h) return null;
  return [x, h - 1 - row];
}

canvas.addEventListener("click", (event) => {
  if (!game || game.over || ply !== null) return;
  if (game.you === null) {
    say(game.words.watching);
    return;
  }
  const point = pointAt(event);
  if (!point) return;
  if (ghost && ghost[0] === point[0] && ghost[1] === point[1]) {
    ghost = null;
    const move = game.gravity ? { column: point[0] } : { x: point[0], y: point[1] };
    send({ type: "move", ...move });
    say("");
  } else {
    ghost = point;
    say(game.words.confirm);
  }
  draw();
});

function say(text) {
  els.note.textContent = text;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ ...message, token }));
  }
}

function showReplay() {
  const over = game && game.over && game.moves.length > 0;
  els.replay.hidden = !over;
  if (!over) {
    ply = null;
    return;
  }
  const n = ply === null ? game.moves.length : ply;
  els.ply.textContent = game.words.replay
    .replace("{number}", String(n))
    .replace("{total}", String(game.moves.length));
}

function step(to) {
  const total = game.moves.length;
  const n = Math.max(0, Math.min(total, to));
  ply = n === total ? null : n;
  showReplay();
  draw();
}
els.first.addEventListener("click", () => step(0));
els.back.addEventListener("click", () => step((ply ?? game.moves.length) - 1));
els.next.addEventListener("click", () => step((ply ?? game.moves.length) + 1));
els.last.addEventListener("click", () => step(game.moves.length));

function receive(message) {
  if (message.type === "state") {
    if (game && message.version < game.version) return;
    const moved = !game || message.version !== game.version;
    game = message;
    if (moved) ghost = null;
    els.title.textContent = game.title;
    els.line.textContent = game.line;
    document.title = game.title;
    document.documentElement.lang = game.language;
    if (game.you === null && !game.over) say(game.words.watching);
    else if (moved && els.note.textContent === game.words.confirm) say("");
    showReplay();
    draw();
  } else if (message.type === "refused") {
    say(message.text);
  } else if (message.type === "denied") {
    stopped = true;
    say(message.text);
  }
}

function connect() {
  if (stopped) return;
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  socket = new WebSocket(`${scheme}://${location.host}/ws`);
  socket.addEventListener("open", () => {
    retry = 500;
    socket.send(JSON.stringify({ type: "hello", token }));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    if (stopped) return;
    if (game) say(game.words.reconnecting);
    setTimeout(connect, retry);
    retry = Math.min(8000, retry * 2);
  });
}

window.addEventListener("resize", draw);

async function passFromActivity() {
  const module = await import("/static/dist/activity.js");
  return module.startActivity();
}

async function main() {
  const query = new URLSearchParams(location.search);
  token = decodeURIComponent(location.hash.slice(1));
  if (!token && query.has("frame_id")) {
    try {
      token = await passFromActivity();
    } catch (error) {
      say(String(error && error.message ? error.message : error));
      return;
    }
  }
  if (!token) {
    // Words come from the server's catalogues, in the browser's language.
    const config = await fetch("/api/config").then((r) => r.json(), () => null);
    say(config ? config.no_pass : "");
    return;
  }
  // The pass stays out of the address bar (and out of screenshots and shared URLs).
  history.replaceState(null, "", location.pathname + location.search);
  // For tests and tools: the state shown, and where a point is drawn (CSS pixels).
  window.gomoku = { state: () => game, centre: (x, y) => centre(x, y) };
  connect();
}

main();
