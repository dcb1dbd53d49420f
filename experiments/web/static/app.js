// The web table's page: choose a game, play it by clicking, read the log, replay records.
"use strict";

const $ = (id) => document.getElementById(id);
let games = {};
let session = null; // {id, kind, ...state}

function show(el, visible) { el.hidden = !visible; }

function showError(message) {
  $("error").textContent = message;
  show($("error"), Boolean(message));
}

async function api(method, path, body) {
  // same-origin only; the server refuses a POST or DELETE that is not sent as JSON
  const init = { method, headers: {}, credentials: "same-origin" };
  if (method !== "GET") { init.headers["Content-Type"] = "application/json"; }
  if (body !== undefined) { init.body = JSON.stringify(body); }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) { throw new Error(data.error || `HTTP ${response.status}`); }
  return data;
}

// ---------------------------------------------------------------- set-up
function fillSelect(select, values, chosen) {
  select.innerHTML = "";
  for (const [value, label] of values) {
    const option = document.createElement("option");
    option.value = value; option.textContent = label;
    if (String(value) === String(chosen)) { option.selected = true; }
    select.appendChild(option);
  }
}

function onGameChange() {
  const game = games[$("game-select").value];
  fillSelect($("players"), game.players.map((n) => [n, n]), game.default_players);
  const options = $("options");
  options.innerHTML = "";
  for (const [key, value] of Object.entries(game.options)) {
    const label = document.createElement("label");
    label.textContent = key.replace(/_/g, " ") + " ";
    const input = document.createElement("input");
    input.id = "option-" + key; input.dataset.option = key;
    input.value = Array.isArray(value) ? value.join(",") : value;
    const range = (game.option_ranges || {})[key];
    if (range) { input.title = `${range[0]} to ${range[1]}`; }
    label.appendChild(input);
    options.appendChild(label);
  }
  onPlayersChange();
}

function onPlayersChange() {
  const game = games[$("game-select").value];
  const n = Number($("players").value);
  fillSelect($("seat"), [...Array(n).keys()].map((s) => [s, `player_${s}`]), 0);
  const box = $("opponents");
  box.innerHTML = "";
  for (let i = 0; i < n - 1; i++) {
    const label = document.createElement("label");
    label.textContent = `Opponent ${i + 1} `;
    const select = document.createElement("select");
    select.className = "opponent";
    fillSelect(select, game.agents.map((a) => [a, a]), "heuristic");
    label.appendChild(select);
    box.appendChild(label);
  }
}

function gameOptions() {
  const out = {};
  for (const input of document.querySelectorAll("#options input")) {
    const text = input.value.trim();
    if (text === "") { continue; }
    out[input.dataset.option] = text.includes(",") || input.dataset.option === "loot_fronts"
      ? text.split(",").map((v) => Number(v.trim())) : Number(text);
  }
  return out;
}

async function startGame() {
  const body = {
    env_id: $("game-select").value,
    opponents: [...document.querySelectorAll("select.opponent")].map((s) => s.value),
    seat: Number($("seat").value),
    options: gameOptions(),
  };
  if ($("seed").value !== "") { body.seed = Number($("seed").value); }
  $("status").textContent = "dealing...";
  try {
    render(await api("POST", "/api/sessions", body));
  } catch (error) {
    $("status").textContent = "";
    alert(error.message);
  }
}

async function loadReplay() {
  const file = $("record-file").files[0];
  if (!file) { alert("choose a game record (.json) first"); return; }
  let record;
  try { record = JSON.parse(await file.text()); } catch (error) { alert("not JSON: " + error.message); return; }
  try { render(await api("POST", "/api/replays", record)); } catch (error) { alert(error.message); }
}

// ---------------------------------------------------------------- playing
async function send(body) {
  if (!session) { return; }
  const path = session.kind === "replay" ? `/api/replays/${session.id}/goto` : `/api/sessions/${session.id}/move`;
  try {
    render(await api("POST", path, body));
  } catch (error) {
    showError(error.message); // the game goes on: the state is unchanged
    window.renderCount = (window.renderCount || 0) + 1;
  }
}

function shortLabel(move) {
  if (move.block === "card" || move.block === "add") { return move.label.replace(/^(play|bid) /, ""); }
  return move.label;
}

function renderMoves(state) {
  const box = $("moves");
  box.innerHTML = "";
  const groups = {};
  for (const move of state.moves || []) { (groups[move.block] ||= []).push(move); }
  for (const [block, moves] of Object.entries(groups)) {
    const group = document.createElement("div");
    group.className = "group";
    const title = document.createElement("span");
    title.textContent = block;
    group.appendChild(title);
    for (const move of moves) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "move" + (["card", "add", "play"].includes(block) ? " card" : "");
      button.dataset.action = move.action;
      button.dataset.block = block;
      button.textContent = shortLabel(move);
      button.addEventListener("click", () => send({ action: move.action }));
      group.appendChild(button);
    }
    box.appendChild(group);
  }
}

const FACES = ["coin", "diamond", "monkey", "parrot", "sabre", "skull"];

function renderDice(state) {
  const box = $("dice-free");
  box.innerHTML = "";
  show($("dice"), Boolean(state.dice));
  if (!state.dice) { return; }
  state.dice.free.forEach((count, face) => {
    for (let i = 0; i < count; i++) {
      const die = document.createElement("button");
      die.type = "button";
      die.className = "die" + (FACES[face] === "skull" ? " skull" : "");
      die.dataset.face = FACES[face];
      die.textContent = FACES[face];
      die.addEventListener("click", () => die.classList.toggle("selected"));
      box.appendChild(die);
    }
  });
}

function rerollSelected() {
  const counts = {};
  for (const die of document.querySelectorAll("#dice-free .die.selected")) {
    counts[die.dataset.face] = (counts[die.dataset.face] || 0) + 1;
  }
  const words = Object.entries(counts).map(([face, n]) => `${n} ${face}`);
  if (words.length === 0) { showError("select the dice to re-roll first"); return; }
  send({ command: "reroll " + words.join(" ") });
}

function renderScores(state) {
  const table = $("scores");
  table.innerHTML = "<tr><th>seat</th><th>who</th><th>score</th></tr>";
  state.scores.forEach((score, seat) => {
    const row = document.createElement("tr");
    if (seat === state.on_turn) { row.className = "on-turn"; }
    const who = state.players[seat] || "";
    row.innerHTML = `<td>player_${seat}</td><td></td><td>${score}</td>`;
    row.children[1].textContent = who;
    table.appendChild(row);
  });
}

function renderLog(state) {
  const log = $("log");
  log.innerHTML = "";
  for (const event of state.events) {
    const item = document.createElement("li");
    item.className = "event " + event.kind;
    item.textContent = event.text;
    log.appendChild(item);
  }
  log.scrollTop = log.scrollHeight;
}

function renderStandings(state) {
  const box = $("standings");
  show(box, state.done);
  if (!state.done) { return; }
  const lines = state.standings.map((seat) =>
    `player_${seat} (${state.players[seat]}): ${state.scores[seat]}` +
    (state.winners.includes(seat) ? " \u2014 winner" : ""));
  box.innerHTML = "<strong>Game over.</strong> " + (state.truncated ? "Truncated, no winner." : "Final standings:");
  const list = document.createElement("ol");
  list.id = "final-standings";
  for (const line of lines) { const li = document.createElement("li"); li.textContent = line; list.appendChild(li); }
  box.appendChild(list);
}

// The Hint button: an agent's top moves for your turn (GET /api/sessions/{id}/hint?agent=NAME).
function renderHint(state) {
  const box = $("hint-box"), picker = $("hint-agent"), answer = $("hint-answer");
  show(box, state.kind === "game" && state.your_turn);
  if (picker.dataset.game !== state.env_id) {
    picker.dataset.game = state.env_id;
    const agents = (games[state.env_id] || {}).agents || [];
    fillSelect(picker, agents.map((a) => [a, a]), `ppo:${state.env_id}`);
  }
  answer.textContent = "";
  $("hint-button").onclick = async () => {
    answer.textContent = "thinking...";
    try {
      const data = await api("GET", `/api/sessions/${state.id}/hint?agent=${encodeURIComponent(picker.value)}`);
      const cell = (v) => (v === null ? "" : Number.isInteger(v) ? String(v) : v.toPrecision(3));
      answer.textContent = `${data.agent}:\n` + data.moves.map((m) => `  ${m.label}  ` +
        ["probability", "visits", "value", "expected_points"].filter((k) => m[k] !== null)
          .map((k) => `${k.replace("_", " ")} ${cell(m[k])}`).join(", ")).join("\n");
    } catch (error) { answer.textContent = error.message; }
  };
}

function render(state) {
  window.renderCount = (window.renderCount || 0) + 1; // tests wait on it
  session = state;
  showError("");
  show($("setup"), false);
  show($("table"), true);
  const replay = state.kind === "replay";
  $("title").textContent = `${state.game}` + (replay ? " (replay)" : ` \u2014 you are player_${state.seat}`);
  $("screen").textContent = state.text;
  renderMoves(state);
  renderDice(state);
  renderScores(state);
  renderLog(state);
  renderStandings(state);
  show($("command-form"), !replay && state.your_turn);
  $("hint").textContent = state.hint || "";
  renderHint(state);
  show($("replay-controls"), replay);
  if (replay) {
    $("step").textContent = `step ${state.step} of ${state.total_steps}`;
    $("last-move").textContent = state.last_move ? `last move: ${state.last_move}` : "the deal";
  }
  // the record (seed and every move) shows every hidden card: the server gives it once the game is over
  show($("download"), !replay && state.done);
  $("download").href = replay ? "#" : `/api/sessions/${state.id}/record`;
  const chosen = !replay && state.chosen_seed !== null && state.chosen_seed !== undefined;
  show($("seed-note"), chosen);
  $("seed-note").textContent = chosen
    ? `Seed ${state.chosen_seed}, chosen by you: with it and the moves, anyone can rebuild the hidden cards.` : "";
  $("download").download = `${state.env_id}-game.json`;
  $("status").textContent = state.done ? "game over" : (state.your_turn ? "your turn" : "");
}

async function init() {
  games = await api("GET", "/api/games");
  fillSelect($("game-select"), Object.entries(games).map(([id, g]) => [id, g.name]), "skull_king_v0");
  onGameChange();
  $("game-select").addEventListener("change", onGameChange);
  $("players").addEventListener("change", onPlayersChange);
  $("start").addEventListener("click", startGame);
  $("load-replay").addEventListener("click", loadReplay);
  $("reroll").addEventListener("click", rerollSelected);
  $("command-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("command").value;
    $("command").value = "";
    send({ command: text });
  });
  $("leave").addEventListener("click", async () => {
    if (session && session.kind === "game" && !session.done) {
      await api("DELETE", `/api/sessions/${session.id}`).catch(() => {});
    }
    session = null;
    show($("table"), false);
    show($("setup"), true);
    $("log").innerHTML = ""; $("scores").innerHTML = ""; $("status").textContent = "";
  });
  const stepTo = (f) => () => send({ step: f(session.step, session.total_steps) });
  $("first").addEventListener("click", stepTo(() => 0));
  $("prev").addEventListener("click", stepTo((s) => Math.max(0, s - 1)));
  $("next").addEventListener("click", stepTo((s, n) => Math.min(n, s + 1)));
  $("last").addEventListener("click", stepTo((s, n) => n));
  $("status").textContent = "choose a game";
}

init().catch((error) => { $("status").textContent = "cannot reach the server: " + error.message; });
