// The web board: draws the game the server sends over a WebSocket and sends taps, clicks and
// keys as moves. The server sends the whole state when the page opens (and when it asks again,
// on finding a gap in the versions), and after that what changed from the version before. The pass comes from the URL fragment (#<pass>), or, inside Discord, from the
// Activity's OAuth2 handshake (activity.js, bundled with the Embedded App SDK). The server
// sends every word the page shows, in the pass holder's language; stones and icons are drawn
// here (canvas and SVG), never taken from an emoji font.
//
// Phones: a 15x15 board is 23 px a point at 390 px wide, half a finger. The first tap zooms
// into a window of ZOOM_POINTS points around it (44 px or more a point) with a faint stone at
// the nearest point and a cross through it that shows past the finger; a second tap on that
// stone plays it, a tap elsewhere moves it, "Whole board" goes back.
//
// Keyboard: the board takes focus; arrows move a cursor, Enter or Space plays its point. The
// cursor's point and the stones around it are read out, every move is announced with its
// point, and the moves are listed as text.

const canvas = document.getElementById("board");
const ctx = canvas.getContext("2d");
const els = Object.fromEntries(
  [
    "title", "line", "turn", "note", "replay", "ply", "first", "back", "next", "last", "stage",
    "whole", "panel", "players", "moves", "announce", "cursor", "players-heading",
    "moves-heading", "actions",
  ].map((id) => [id, document.getElementById(id)]),
);

const ZOOM_POINTS = 7; // points a side in the zoomed window: 46 px each at 390 px wide
const TARGET = 44; // px: the smallest point a finger hits reliably

let game = null; // the newest state from the server
let ghost = null; // [x, y] of a first tap, waiting for the second
let zoom = null; // {x0, y0, n}: the window of points shown, or null for the whole board
let cursor = null; // [x, y] of the keyboard's cursor
let focused = false;
let ply = null; // the move shown while replaying a finished game (null: the last)
let socket = null;
let token = null;
let retry = 500; // ms before reconnecting; doubles up to 8 s
let stopped = false; // the pass was refused: no reconnecting
let geometry = null;
let armed = false; // Resign pressed once: the second press resigns
// The opponent asked to take back moves, at this version of the game: Allow / Refuse until
// the answer or a newer state (null: nothing asked).
let undoAsked = null;
let switching = false; // moving over to a new game's pass
let resyncing = false; // the page asked for the whole state again and waits for it

const STONES = [
  ["#4a4a4a", "#050505"], // black: highlight, body
  ["#ffffff", "#cfcfcf"], // white
];
const GRAVITY = ["#e0453a", "#f2c230"]; // red and yellow discs
const MARKS = ["#ed4245", "#5865f2"]; // X and O

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

function pointName(x, y) {
  return `${columnName(x)}${y + 1}`;
}

function fill(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, key) => (key in values ? values[key] : whole));
}

// Cells (tic-tac-toe, gravity games) or intersections (Gomoku).
function isCells() {
  return game.gravity || game.marks;
}

function side() {
  const box = els.stage.getBoundingClientRect();
  // Below the board: a line of notes and the replay buttons (beside it on wide screens,
  // the players and the moves; under it on phones, where the page scrolls).
  const below = window.innerHeight - box.top - 110;
  const tall = window.innerWidth >= 800 ? below : Math.max(below, box.width);
  return Math.max(120, Math.floor(Math.min(box.width, tall)));
}

function layout() {
  const dpr = window.devicePixelRatio || 1;
  const size = side();
  const w = game.width;
  const h = game.height;
  const view = zoom ? { x0: zoom.x0, y0: zoom.y0, nx: zoom.n, ny: zoom.n } : { x0: 0, y0: 0, nx: w, ny: h };
  // Intersections: a cell's width of room around the grid (half a stone and the
  // coordinates). Cells: half a cell of room, for the coordinates.
  const cell = Math.floor(size / (Math.max(view.nx, view.ny) + 1));
  const pad = isCells() ? Math.round(cell / 2) : cell;
  const cssW = isCells() ? cell * view.nx + 2 * pad : cell * (view.nx - 1) + 2 * pad;
  const cssH = isCells() ? cell * view.ny + 2 * pad : cell * (view.ny - 1) + 2 * pad;
  canvas.style.width = `${cssW}px`;
  canvas.style.height = `${cssH}px`;
  canvas.width = Math.round(cssW * dpr);
  canvas.height = Math.round(cssH * dpr);
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  geometry = { cell, pad, w, h, cssW, cssH, view };
}

// The whole board's point cell, before any zoom.
function wholeCell() {
  return Math.floor(side() / (Math.max(game.width, game.height) + 1));
}

// The centre of point (x, y) in CSS pixels; y counts from the bottom.
function centre(x, y) {
  const { cell, pad, view } = geometry;
  const col = x - view.x0;
  const row = view.y0 + view.ny - 1 - y;
  if (isCells()) return [pad + cell * col + cell / 2, pad + cell * row + cell / 2];
  return [pad + cell * col, pad + cell * row];
}

function shownMoves() {
  const n = ply === null ? game.moves.length : ply;
  return game.moves.slice(0, n);
}

function draw() {
  if (!game) return;
  layout();
  const { cell, pad, w, h, cssW, cssH, view } = geometry;
  ctx.clearRect(0, 0, cssW, cssH);
  const wood = game.gravity ? "#1f4fb5" : game.marks ? "#2b2d31" : "#dcb35c";
  ctx.fillStyle = wood;
  ctx.fillRect(0, 0, cssW, cssH);
  ctx.strokeStyle = game.gravity ? "#163b8a" : game.marks ? "#8e9297" : "#3b2a10";
  ctx.lineWidth = 1;
  if (isCells()) {
    for (let i = 0; i <= w; i++) line(pad + i * cell, pad, pad + i * cell, pad + h * cell);
    for (let j = 0; j <= h; j++) line(pad, pad + j * cell, pad + w * cell, pad + j * cell);
  } else {
    // The whole grid, in the window's coordinates: the canvas clips what lies outside.
    const [left, top] = centre(0, h - 1);
    const [right, bottom] = centre(w - 1, 0);
    for (let i = 0; i < w; i++) line(centre(i, 0)[0], top, centre(i, 0)[0], bottom);
    for (let j = 0; j < h; j++) line(left, centre(0, j)[1], right, centre(0, j)[1]);
    ctx.fillStyle = "#3b2a10";
    for (const [x, y] of starPoints(w, h)) dot(...centre(x, y), Math.max(2, cell * 0.1));
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
  if (ghost && !replaying) {
    // A cross through the faint stone reaches past the finger that covers it.
    const [gx, gy] = centre(ghost[0], ghost[1]);
    ctx.strokeStyle = "rgba(232, 65, 47, 0.7)";
    ctx.lineWidth = 2;
    line(gx, 0, gx, cssH);
    line(0, gy, cssW, gy);
    stone(ghost[0], ghost[1], game.you ?? 0, 0.5);
  }
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
  if (cursor && focused) {
    const [cx, cy] = centre(cursor[0], cursor[1]);
    const r = cell * 0.5;
    ctx.strokeStyle = "#1d6ff2";
    ctx.lineWidth = 3;
    ctx.strokeRect(cx - r, cy - r, 2 * r, 2 * r);
  }
  coordinates(wood, view);
}

// Letters (numbers in gravity games) under the board, rows on its left: on a band of the
// board's colour when zoomed, where the grid runs on under them.
function coordinates(wood, view) {
  const { cell, pad, cssW, cssH } = geometry;
  if (zoom) {
    ctx.globalAlpha = 0.85;
    ctx.fillStyle = wood;
    ctx.fillRect(0, 0, pad * 0.75, cssH);
    ctx.fillRect(0, cssH - pad * 0.75, cssW, pad * 0.75);
    ctx.globalAlpha = 1;
  }
  ctx.fillStyle = game.marks ? "#b5bac1" : game.gravity ? "#dfe6ff" : "#3b2a10";
  ctx.font = `${Math.max(9, Math.min(14, cell * 0.4))}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const gap = isCells() ? pad / 2 : cell * 0.62;
  const bottom = centre(view.x0, view.y0)[1] + (isCells() ? cell / 2 : 0);
  for (let x = view.x0; x < view.x0 + view.nx; x++) {
    const [cx] = centre(x, view.y0);
    ctx.fillText(game.gravity ? String(x + 1) : columnName(x), cx, bottom + gap);
  }
  if (!game.gravity) {
    const left = centre(view.x0, view.y0)[0] - (isCells() ? cell / 2 : 0);
    for (let y = view.y0; y < view.y0 + view.ny; y++) {
      ctx.fillText(String(y + 1), left - gap, centre(view.x0, y)[1]);
    }
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
    ctx.strokeStyle = MARKS[colour];
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

const SVG_NS = "http://www.w3.org/2000/svg";

// An empty square SVG for an icon; screen readers skip it (the words beside it speak).
function iconSvg(size) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("width", String(size));
  svg.setAttribute("height", String(size));
  svg.setAttribute("viewBox", `0 0 ${size} ${size}`);
  svg.setAttribute("aria-hidden", "true");
  return svg;
}

// A stone (or a mark) as a small SVG, for the players and the turn: drawn, not a font glyph.
function stoneIcon(colour) {
  const svg = iconSvg(20);
  const shape = (name, attributes) => {
    const node = document.createElementNS(SVG_NS, name);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
    svg.appendChild(node);
  };
  if (game.marks) {
    const stroke = { stroke: MARKS[colour], "stroke-width": "3", fill: "none" };
    if (colour === 0) shape("path", { d: "M4 4L16 16M4 16L16 4", ...stroke });
    else shape("circle", { cx: "10", cy: "10", r: "6.5", ...stroke });
  } else {
    const body = game.gravity ? GRAVITY[colour] : STONES[colour][1];
    shape("circle", { cx: "10", cy: "10", r: "8.5", fill: body, stroke: "#8e9297", "stroke-width": "1" });
  }
  return svg;
}

// The replay buttons' icons: bars and triangles.
function icon(path) {
  const svg = iconSvg(22);
  const node = document.createElementNS(SVG_NS, "path");
  node.setAttribute("d", path);
  node.setAttribute("fill", "currentColor");
  svg.appendChild(node);
  return svg;
}
els.first.appendChild(icon("M4 4h3v14H4zM18 4v14L8 11z"));
els.back.appendChild(icon("M16 4v14L6 11z"));
els.next.appendChild(icon("M6 4v14l10-7z"));
els.last.appendChild(icon("M15 4h3v14h-3zM4 4v14l10-7z"));

function landing(column) {
  const taken = new Set(game.moves.map(([x, y]) => `${x},${y}`));
  for (let y = 0; y < game.height; y++) if (!taken.has(`${column},${y}`)) return y;
  return null;
}

// The point under a tap: the nearest intersection, or the cell (the landing point of the
// column in gravity games); null outside the window shown.
function pointAt(event) {
  const rect = canvas.getBoundingClientRect();
  const { cell, pad, view } = geometry;
  const px = event.clientX - rect.left - pad;
  const py = event.clientY - rect.top - pad;
  const col = isCells() ? Math.floor(px / cell) : Math.round(px / cell);
  const row = isCells() ? Math.floor(py / cell) : Math.round(py / cell);
  if (col < 0 || col >= view.nx) return null;
  const x = view.x0 + col;
  if (game.gravity) {
    const y = landing(x);
    return y === null ? null : [x, y];
  }
  if (row < 0 || row >= view.ny) return null;
  return [x, view.y0 + view.ny - 1 - row];
}

function playerName(colour) {
  return colour === 0 ? game.black : game.white;
}

// Why a tap now places nothing, or null when it may.
function cannotPlay() {
  if (!game || game.over || ply !== null) return "";
  if (game.you === null) return game.words.watching;
  if (!game.your_turn) {
    return fill(game.words.not_your_turn, { name: playerName(game.to_move ?? 1 - game.you) });
  }
  return null;
}

function zoomAround([x, y]) {
  const n = Math.min(ZOOM_POINTS, game.width, game.height);
  const clamp = (v, size) => Math.max(0, Math.min(size - n, v - Math.floor(n / 2)));
  zoom = { x0: clamp(x, game.width), y0: clamp(y, game.height), n };
  els.whole.hidden = false;
}

function zoomOut() {
  zoom = null;
  els.whole.hidden = true;
}

function play(point) {
  const move = game.gravity ? { column: point[0] } : { x: point[0], y: point[1] };
  send({ type: "move", ...move });
}

canvas.addEventListener("click", (event) => {
  const why = cannotPlay();
  if (why !== null) {
    if (why) say(why); // refused at once, on the first tap
    return;
  }
  const point = pointAt(event);
  if (!point) return;
  const touch = event.pointerType === "touch" || window.matchMedia("(pointer: coarse)").matches;
  if (!zoom && touch && !isCells() && wholeCell() < TARGET) {
    zoomAround(point);
    ghost = point;
    say(`${pointName(...point)} · ${game.words.confirm}`);
  } else if (ghost && ghost[0] === point[0] && ghost[1] === point[1]) {
    ghost = null;
    play(point);
    say("");
  } else {
    ghost = point;
    say(`${pointName(...point)} · ${game.words.confirm}`);
  }
  draw();
});

els.whole.addEventListener("click", () => {
  zoomOut();
  draw();
});

// ------------------------------------------------------------------ the keyboard

const STEPS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1] };

function stoneAt(x, y) {
  for (const [mx, my, c] of shownMoves()) if (mx === x && my === y) return c;
  return null;
}

function readCursor() {
  const [x, y] = cursor;
  const what = (c) => (c === null ? game.words.empty : game.colours[c]);
  const around = [];
  for (const dy of [1, 0, -1]) {
    for (const dx of [-1, 0, 1]) {
      const [nx, ny] = [x + dx, y + dy];
      if ((dx || dy) && nx >= 0 && ny >= 0 && nx < game.width && ny < game.height) {
        const c = stoneAt(nx, ny);
        if (c !== null) around.push(`${pointName(nx, ny)} ${game.colours[c]}`);
      }
    }
  }
  const here = fill(game.words.point, { point: pointName(x, y), what: what(stoneAt(x, y)) });
  const near = around.length
    ? fill(game.words.around, { stones: around.join(", ") })
    : game.words.nothing_around;
  els.cursor.textContent = `${here} ${near}`;
}

canvas.addEventListener("focus", () => {
  // The cursor is the keyboard's: a tap or a click focuses the board without showing it.
  focused = canvas.matches(":focus-visible");
  if (!game || !focused) return;
  if (!cursor) {
    const last = game.moves[game.moves.length - 1];
    cursor = last ? [last[0], last[1]] : [game.width >> 1, game.height >> 1];
  }
  readCursor();
  draw();
});

canvas.addEventListener("blur", () => {
  focused = false;
  draw();
});

canvas.addEventListener("keydown", (event) => {
  if (!game) return;
  if (!focused || !cursor) {
    focused = true;
    const last = game.moves[game.moves.length - 1];
    cursor = cursor ?? (last ? [last[0], last[1]] : [game.width >> 1, game.height >> 1]);
  }
  const step = STEPS[event.key];
  if (step) {
    event.preventDefault();
    const x = Math.max(0, Math.min(game.width - 1, cursor[0] + step[0]));
    const y = Math.max(0, Math.min(game.height - 1, cursor[1] + step[1]));
    cursor = [x, y];
    if (zoom) zoomAround(cursor);
    readCursor();
    draw();
  } else if (event.key === "Enter" || event.key === " ") {
    event.preventDefault();
    const why = cannotPlay();
    if (why !== null) {
      if (why) say(why);
      return;
    }
    const point = game.gravity ? [cursor[0], landing(cursor[0])] : cursor;
    if (point[1] === null) return;
    ghost = null;
    play(point);
  }
});

// The turn clock of the player to move: what is left of their time, each second.
function tick() {
  const clock = els.players.querySelector(".clock");
  if (!clock || !game || !game.deadline) return;
  const left = Math.floor(game.deadline - Date.now() / 1000);
  if (left <= 0) {
    clock.textContent = "";
    return;
  }
  const hours = Math.floor(left / 3600);
  const minutes = Math.floor((left % 3600) / 60);
  const seconds = String(left % 60).padStart(2, "0");
  const time = hours
    ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}`
    : `${minutes}:${seconds}`;
  clock.textContent = fill(game.words.time_left, { time });
}
setInterval(tick, 1000);

// ------------------------------------------------------------------ words around the board

function say(text) {
  els.note.textContent = text;
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify({ ...message, token }));
  }
}

function showTurn() {
  const parts = [];
  if (!game.over) {
    if (game.you !== null) parts.push(fill(game.words.you_play, { colour: game.colours[game.you] }));
    if (game.your_turn) parts.push(game.words.your_turn);
    else if (game.to_move !== null) {
      const name = playerName(game.to_move);
      parts.push(fill(game.ai_turn ? game.words.thinking : game.words.to_move, { name }));
    }
  }
  els.turn.replaceChildren();
  if (parts.length) {
    els.turn.appendChild(stoneIcon(game.you ?? game.to_move ?? 0));
    const text = document.createElement("span");
    text.textContent = parts.join(" ");
    els.turn.appendChild(text);
  }
}

function showPanel() {
  els.panel.hidden = false;
  els["players-heading"].textContent = game.words.players;
  els["moves-heading"].textContent = game.words.moves;
  els.players.replaceChildren();
  for (const colour of [0, 1]) {
    const item = document.createElement("li");
    if (!game.over && game.to_move === colour) item.className = "moving";
    item.appendChild(stoneIcon(colour));
    const name = playerName(colour);
    const label = document.createElement("span");
    const who = game.you === colour ? fill(game.words.you_name, { name }) : name;
    label.textContent = `${game.colours[colour]}: ${who}`;
    item.appendChild(label);
    if (!game.over && game.to_move === colour && game.deadline) {
      const clock = document.createElement("span");
      clock.className = "clock";
      item.appendChild(clock);
    }
    els.players.appendChild(item);
  }
  els.moves.replaceChildren();
  for (const [x, y, c] of game.moves) {
    const item = document.createElement("li");
    item.textContent = `${game.colours[c]} ${pointName(x, y)}`;
    els.moves.appendChild(item);
  }
  if (!game.moves.length) {
    const item = document.createElement("li");
    item.className = "none";
    item.textContent = game.words.no_moves;
    els.moves.appendChild(item);
  }
  els.moves.scrollTop = els.moves.scrollHeight;
}

// The page's choices besides moves: the opening's (on the player's turn) and Resign.
function showActions() {
  els.actions.replaceChildren();
  const button = (label, act) => {
    const node = document.createElement("button");
    node.type = "button";
    node.textContent = label;
    node.addEventListener("click", () => act(node));
    els.actions.appendChild(node);
    return node;
  };
  if (game.can_rematch) {
    const label = game.against_ai ? game.words.play_again : game.words.rematch;
    button(label, () => send({ type: "rematch" })).id = "rematch";
    if (!game.against_ai) button(game.words.play_ai, () => send({ type: "play_ai" })).id = "play-ai";
  }
  if (game.over || game.you === null) return;
  for (const [word, label] of game.choices) {
    button(label, () => send({ type: "choose", word }));
  }
  if (undoAsked !== null) {
    for (const accept of [true, false]) {
      button(accept ? game.words.allow : game.words.refuse, () => {
        undoAsked = null;
        send({ type: "undo_answer", accept });
        showActions();
      });
    }
  }
  if (game.can_hint) button(game.words.hint, () => send({ type: "hint" })).id = "hint";
  if (game.can_undo) button(game.words.undo, () => send({ type: "undo" })).id = "undo";
  if (game.can_resign) {
    const resign = button(game.words.resign, (node) => {
      if (armed) {
        armed = false;
        send({ type: "resign" });
        return;
      }
      armed = true;
      node.classList.add("armed");
      say(game.words.resign_confirm);
    });
    resign.id = "resign";
    if (armed) resign.classList.add("armed");
  }
}

function showWords() {
  const w = game.words;
  canvas.setAttribute("aria-label", w.board);
  els.whole.textContent = w.whole_board;
  els.replay.setAttribute("aria-label", w.replay_nav);
  for (const key of ["first", "back", "next", "last"]) els[key].setAttribute("aria-label", w[key]);
}

function showReplay() {
  const over = game && game.over && game.moves.length > 0;
  els.replay.hidden = !over;
  if (!over) {
    ply = null;
    return;
  }
  const n = ply === null ? game.moves.length : ply;
  els.ply.textContent = fill(game.words.replay, {
    number: String(n),
    total: String(game.moves.length),
  });
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

// The moves new in ``next`` since ``before``, read out in the live region.
function announce(before, next) {
  if (!before || next.moves.length <= before.moves.length) return;
  const said = next.moves.slice(before.moves.length).map(([x, y, c]) =>
    fill(next.words.played, { colour: next.colours[c], point: pointName(x, y) }),
  );
  els.announce.textContent = said.join(" ");
}

// A delta: what changed since the version the page has. The server sends one only to a page
// that has its base version, so anything else is a gap: null, and the page asks for the whole
// state again.
function applyDelta(page, change) {
  if (!page || change.base !== page.version) return null;
  const next = { ...page, ...change.set, version: change.version };
  next.moves = page.moves.slice(0, change.keep).concat(change.add);
  return next;
}

function resync() {
  if (resyncing) return; // asked already: the whole state is on its way
  resyncing = true;
  send({ type: "resync" });
}

function receive(message) {
  if (message.type === "state") resyncing = false;
  if (message.type === "delta") {
    if (game && message.version <= game.version) return; // old news
    const next = applyDelta(game, message);
    if (!next) {
      resync();
      return;
    }
    message = next; // drawn as a whole state from here on
  }
  if (message.type === "state") {
    if (game && message.version < game.version) return;
    const before = game;
    const moved = !game || message.version !== game.version;
    game = message;
    // A first tap stays while it can still be played: a newer state (our own last stone
    // landing, in an opening that places several) must not swallow it.
    if (moved && ghost && (game.over || !game.your_turn || game.moves.some(([x, y]) => x === ghost[0] && y === ghost[1]))) {
      ghost = null;
    }
    if (moved && before && game.moves.length > before.moves.length) {
      const [x, y] = game.moves[game.moves.length - 1];
      if (zoom && !game.your_turn) zoomOut(); // our own move landed: back to the whole board
      else if (zoom && (x < zoom.x0 || x >= zoom.x0 + zoom.n || y < zoom.y0 || y >= zoom.y0 + zoom.n)) zoomOut();
    }
    if (game.over && zoom) zoomOut();
    els.title.textContent = game.title;
    els.line.textContent = game.line;
    document.title = game.title;
    document.documentElement.lang = game.language;
    showWords();
    showTurn();
    if (moved) armed = false;
    // A request made in another process may arrive before the state it was made at.
    if (undoAsked !== null && game.version > undoAsked) undoAsked = null;
    showPanel();
    tick();
    showActions();
    announce(before, game);
    if (game.you === null && !game.over) say(game.words.watching);
    else if (moved && els.note.textContent.endsWith(game.words.confirm)) say("");
    showReplay();
    if (focused && cursor) readCursor();
    draw();
  } else if (message.type === "refused" || message.type === "note") {
    say(message.text);
  } else if (message.type === "undo_asked") {
    if (game && message.version < game.version) return; // the game moved on since
    undoAsked = message.version;
    say(message.text);
    if (game) showActions();
  } else if (message.type === "undo_answered") {
    undoAsked = null;
    if (message.text) say(message.text); // said in the note, a live region
    if (game) showActions();
  } else if (message.type === "hint") {
    // The suggestion becomes the faint stone: one more tap (or Enter) plays it.
    if (!game || game.over) return;
    const [x, y] = message.point;
    ghost = [x, y];
    cursor = [x, y];
    if (!zoom && !isCells() && wholeCell() < TARGET && window.matchMedia("(pointer: coarse)").matches) {
      zoomAround(ghost);
    }
    say(message.text);
    draw();
  } else if (message.type === "switch") {
    // A new game began from this page: open it with its own pass.
    token = message.token;
    switching = true;
    game = null;
    undoAsked = null;
    ghost = null;
    cursor = null;
    ply = null;
    zoomOut();
    socket.close();
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
    resyncing = false; // the hello's answer is the whole state
    socket.send(JSON.stringify({ type: "hello", token }));
  });
  socket.addEventListener("message", (event) => receive(JSON.parse(event.data)));
  socket.addEventListener("close", () => {
    if (stopped) return;
    if (switching) {
      switching = false;
      retry = 500;
      connect();
      return;
    }
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
  // For tests and tools: the state shown, where a point is drawn (CSS pixels), the zoom.
  window.gomoku = {
    state: () => game,
    centre: (x, y) => centre(x, y),
    cell: () => geometry && geometry.cell,
    zoomed: () => zoom !== null,
    cursor: () => cursor,
    // the page's own handling of what the server sends (deltas applied, gaps resynced)
    apply: (page, change) => applyDelta(page, change),
    receive: (message) => receive(message),
  };
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
  connect();
}

main();
