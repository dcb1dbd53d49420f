// The web table's page: a lobby, shared tables (the drawn table: cards, dice, loot, seats), the event log,
// replays. Everything drawn comes from the state the server sends: `table` is the game's page_state, built from
// your seat's view; each clickable card, die, seat or button carries the legal move ("choices") it plays.
// A table's address is `#table=ID&seat=TOKEN` (a spectator's: no seat): the fragment never leaves the browser,
// and a reload or another device with the link is back at the seat. The server pushes every change
// (server-sent events, read with fetch so the token travels in a header); a move carries the version it was made on.
"use strict";

const $ = (id) => document.getElementById(id);
let games = {};
let rules = {};
let session = null; // {id, kind, ...state}
let staged = []; // Piratenpoker: hand cards picked into the bid, not yet sent (undo before committing)
let selectedDice = new Set(); // Kapern: indices of the free dice picked for a re-roll
let seatToken = null; // this tab's seat at a shared table (null: a spectator or no table)
let follow = null; // the AbortController of the table's event stream
let followed = null; // the id of the table this tab shows (null: the lobby or a replay); other states are dropped
let queue = []; // states pushed by the server, not drawn yet (drawn in order, at the opponents' pace)
let draining = false;
let busy = false; // a move is on its way: the table is locked until the server answers
let replayTimer = null; // the replay's play button: the interval that steps it
let offline = false; // the table's event stream is down (the server stopped or the connection broke)

function show(element, visible) { element.hidden = !visible; }

function showError(message) {
  $("error").textContent = message;
  show($("error"), Boolean(message));
}

async function api(method, path, body, headers = {}) {
  // same-origin only; the server refuses a POST or DELETE that is not sent as JSON
  const init = { method, headers: { ...headers }, credentials: "same-origin" };
  if (method !== "GET") { init.headers["Content-Type"] = "application/json"; }
  if (seatToken && path.startsWith("/api/tables/")) { init.headers["X-Seat-Token"] = seatToken; }
  if (body !== undefined) { init.body = JSON.stringify(body); }
  const response = await fetch(path, init);
  const data = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) { throw new Error(data.error || `HTTP ${response.status}`); }
  return data;
}

function make(tag, className, text) {
  const element = document.createElement(tag);
  if (className) { element.className = className; }
  if (text !== undefined && text !== null) { element.textContent = text; }
  return element;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------- lobby
function fillSelect(select, values, chosen) {
  select.innerHTML = "";
  for (const [value, label] of values) {
    const option = document.createElement("option");
    option.value = value; option.textContent = label;
    if (String(value) === String(chosen)) { option.selected = true; }
    select.appendChild(option);
  }
}

function renderRules(envId, box) {
  box.innerHTML = "";
  box.appendChild(markdown(rules[envId] || []));
}

function onGameChange() {
  const envId = $("game-select").value;
  const game = games[envId];
  fillSelect($("players"), game.players.map((n) => [n, `${n} players`]), game.default_players);
  const options = $("options");
  options.innerHTML = "";
  for (const [key, value] of Object.entries(game.options)) {
    const label = make("label", "", key.replace(/_/g, " ") + " ");
    const input = document.createElement("input");
    input.id = "option-" + key; input.dataset.option = key;
    input.value = Array.isArray(value) ? value.join(",") : value;
    const range = (game.option_ranges || {})[key];
    if (range) { input.title = `${range[0]} to ${range[1]}`; }
    label.appendChild(input);
    options.appendChild(label);
  }
  renderRules(envId, $("lobby-rules-text"));
  fillSelect($("fill-agent"), game.agents.map((a) => [a, a]), "heuristic");
  onPlayersChange();
}

function onPlayersChange() {
  const n = Number($("players").value);
  const seat = Math.min(Number($("seat").value || 0), n - 1);
  fillSelect($("seat"), [...Array(n).keys()].map((s) => [s, `player_${s}`]), seat);
  onSeatChange();
}

function onSeatChange() {
  // one agent per seat other than yours, named by its seat
  const game = games[$("game-select").value];
  const n = Number($("players").value);
  const mine = Number($("seat").value);
  const previous = [...document.querySelectorAll("select.opponent")].map((s) => s.value);
  const box = $("opponents");
  box.innerHTML = "";
  let i = 0;
  for (let s = 0; s < n; s++) {
    if (s === mine) { continue; }
    const label = make("label", "", `player_${s} `);
    const select = document.createElement("select");
    select.className = "opponent";
    select.dataset.seat = s;
    fillSelect(select, [["person", "a friend (invite link)"], ...game.agents.map((a) => [a, a])],
      previous[i] || "heuristic");
    const notes = game.agent_notes || {};
    for (const option of select.options) { option.title = notes[option.value] || ""; }
    const note = make("span", "agent-note", notes[select.value] || "");
    select.addEventListener("change", () => { note.textContent = notes[select.value] || ""; });
    label.appendChild(select);
    label.appendChild(note);
    box.appendChild(label);
    i++;
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

// Open a table: your seat, a friend's seat (an invite link) or an agent per seat.
async function startGame() {
  const mine = Number($("seat").value);
  const seats = [];
  const others = [...document.querySelectorAll("select.opponent")];
  for (let s = 0, i = 0; s < Number($("players").value); s++) {
    seats.push(s === mine ? "you" : others[i++].value);
  }
  const body = { env_id: $("game-select").value, seats, options: gameOptions(), fill_agent: $("fill-agent").value };
  const name = $("your-name").value.trim();
  if (name) { body.name = name; localStorage.setItem("name", name); }
  if ($("seed").value !== "") { body.seed = Number($("seed").value); }
  $("status").textContent = "dealing...";
  try {
    const password = $("password-box").hidden ? {} : { "X-Host-Password": $("host-password").value };
    const opened = await api("POST", "/api/tables", body, password);
    openTable(opened.id, opened.token, opened.state);
  } catch (error) {
    $("status").textContent = "";
    alert(error.message);
  }
}

// Show the table `id` as the seat of `token` (null: a spectator) and follow it live; the address keeps both.
async function openTable(id, token, first) {
  stopFollowing();
  followed = id;
  seatToken = token;
  session = null;
  queue = [];
  history.replaceState(null, "", token ? `#table=${id}&seat=${token}` : `#table=${id}`);
  try {
    if (token && !first) {
      const name = localStorage.getItem("name");
      first = await api("POST", `/api/tables/${id}/join`, name ? { name } : {});
    }
    receive(first || await api("GET", `/api/tables/${id}`));
  } catch (error) {
    backToLobby();
    alert(error.message);
    return;
  }
  followTable(id);
}

// Read the table's event stream; reconnect (a restarted server, a lost connection) until stopped.
async function followTable(id) {
  const controller = new AbortController();
  follow = controller;
  const headers = seatToken ? { "X-Seat-Token": seatToken } : {};
  while (!controller.signal.aborted) {
    try {
      const response = await fetch(`/api/tables/${id}/stream`, { headers, signal: controller.signal });
      if (!response.ok) { throw new Error(`HTTP ${response.status}`); }
      setOffline(false);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let text = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) { break; }
        text += decoder.decode(value, { stream: true });
        let end;
        while ((end = text.indexOf("\n\n")) >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          const data = block.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
          if (data) { receive(JSON.parse(data)); }
        }
      }
    } catch (error) {
      if (controller.signal.aborted) { return; }
    }
    if (controller.signal.aborted) { return; }
    setOffline(true);
    await sleep(1000); // the server went away: try again
  }
}

function stopFollowing() {
  if (follow) { follow.abort(); follow = null; }
  setOffline(false);
}

// The stream is down (no move may be sent: the table is locked) or back (the next pushed state redraws it).
function setOffline(down) {
  if (offline === down) { return; }
  offline = down;
  document.body.classList.toggle("offline", down);
  if (session && session.kind === "table") { showTurn(session); }
}

// A state from the server (an answer or a push): drawn in order; older ones than the one shown are dropped.
function receive(state) {
  if (state.id !== followed) { return; } // an answer or a push that arrives after the tab left its table
  if (state.table_status === "closed") { // the host closed it: it is gone
    backToLobby();
    $("status").textContent = "the host closed the table";
    return;
  }
  queue.push(state);
  if (!draining) { drain(); }
}

// Draws the queue in order. The emptiness check and `draining = false` run in one step with no await between:
// a state received after the last one was drawn either is seen by the loop or finds `draining` false and drains.
// While a move of this page is on its way nothing is drawn (a bid's cards sent one by one show no half bid);
// `lock(false)` drains what came meanwhile.
async function drain() {
  draining = true;
  try {
    while (queue.length && !busy) { // while a move is on its way the states wait for its answer (`lock`)
      // a move's answer may arrive after the pushes that followed it: the states are drawn in the server's order
      queue.sort((a, b) => a.serial - b.serial);
      const state = queue.shift();
      if (session && session.id === state.id && state.serial <= session.serial) { continue; }
      const pace = Number($("pace").value);
      const agentMoved = session && session.id === state.id && state.version > session.version &&
        session.thinking !== null && session.thinking !== undefined;
      if (!pace && queue.length) { continue; } // instant: only the newest is drawn
      try {
        if (agentMoved && pace) { await showAgentMove(session, state, pace); }
        if (state.id !== followed) { continue; } // the tab left the table during the play-out
        await render(state);
      } catch (error) {
        showError(`could not draw the table: ${error.message}`); // the next state is still drawn
      }
    }
  } finally {
    draining = false;
  }
}

// The agent's move between `before` and `state`: the table after it, its seat lit and its events in the feed.
async function showAgentMove(before, state, pace) {
  drawTable({ ...state, your_turn: false });
  const feed = $("feed");
  feed.innerHTML = "";
  for (const event of state.events.slice(before.events.length)) {
    if (event.seat === state.seat || !isMove(event)) { continue; }
    const line = make("div", "feed-line");
    line.appendChild(make("span", "", event.text));
    for (const name of event.cards || []) { line.appendChild(drawCard(cardFromName(name), { mini: true })); }
    feed.appendChild(line);
  }
  const seat = $(`seat-${before.thinking}`);
  if (seat) { seat.classList.add("acting"); }
  showTurn(state); // who is on turn after this move, as the marker shows
  await sleep(pace);
}

async function loadReplay() {
  const file = $("record-file").files[0];
  if (!file) { alert("choose a game record (.json) first"); return; }
  let record;
  try { record = JSON.parse(await file.text()); } catch (error) { alert("not JSON: " + error.message); return; }
  await openReplay(record, null);
}

// A finished game's record in the replay, at its start (the deal).
async function openReplay(record, tableId) {
  stopFollowing();
  followed = null;
  seatToken = null;
  try {
    const replay = await api("POST", "/api/replays", record);
    history.replaceState(null, "", tableId ? `#replay=${tableId}` : "#");
    await render(await api("POST", `/api/replays/${replay.id}/goto`, { step: 0 }));
  } catch (error) { alert(error.message); }
}

async function openFinished(tableId) {
  try { await openReplay(await api("GET", `/api/tables/${tableId}/record`), tableId); } catch (error) {
    backToLobby();
    alert(error.message);
  }
}

// ---------------------------------------------------------------- moves
async function send(body) {
  if (!session || busy) { return; } // locked until the server answers the move before
  if (session.kind === "replay") {
    try { await render(await api("POST", `/api/replays/${session.id}/goto`, body)); } catch (error) {
      showError(error.message);
      window.renderCount = (window.renderCount || 0) + 1;
    }
    return;
  }
  lock(true);
  try {
    receive(await api("POST", `/api/tables/${session.id}/move`, { ...body, version: session.version }));
  } catch (error) {
    drawTable(session); // the game goes on: the state is unchanged (a card taken out comes back)
    showError(error.message);
    window.renderCount = (window.renderCount || 0) + 1;
  } finally {
    lock(false);
  }
}

// While a move is on its way nothing on the table can be clicked (a double click plays once).
function lock(on) {
  busy = on;
  $("board").classList.toggle("locked", on);
  for (const button of document.querySelectorAll("#board button, #command-form button")) {
    if (on) { button.disabled = true; }
  }
  if (!on && queue.length && !draining) { drain(); } // the states pushed meanwhile, the answer among them
}

// Play `action`; the card that plays it (if any) leaves the hand at once.
function play(action, element) {
  closeMenu();
  if (busy) { return undefined; }
  const card = element && element.closest ? element.closest("#hand .card") : null;
  if (card) { card.classList.add("leaving"); }
  return send({ action });
}

function closeMenu() { const menu = $("choice-menu"); if (menu) { menu.remove(); } }

// A drawn element with several moves (Scary Mary, a set of 1 or 2 cards): a small menu of them.
function choose(choices, anchor) {
  if (choices.length === 1) { play(choices[0].action, anchor); return; }
  closeMenu();
  const menu = make("div", "choice-menu");
  menu.id = "choice-menu";
  menu.setAttribute("role", "menu");
  for (const choice of choices) {
    const button = make("button", "choice", choice.label);
    button.type = "button";
    button.setAttribute("role", "menuitem");
    button.dataset.action = choice.action;
    button.addEventListener("click", () => play(choice.action, anchor));
    menu.appendChild(button);
  }
  const cancel = make("button", "choice cancel", "cancel");
  cancel.type = "button";
  cancel.addEventListener("click", closeMenu);
  menu.appendChild(cancel);
  anchor.insertAdjacentElement("afterend", menu);
  menu.querySelector("button").focus();
}

// ---------------------------------------------------------------- drawing
const SUIT_NAMES = ["yellow", "red", "blue", "black", "green"];

// A card drawn from a page_state card ({id, suit, value, kind, name, rule, symbol, choices}).
// `onClick`: what a click does (else the card's choices, when it has any); `live`: the player may act now.
function drawCard(card, { mini = false, live = false, onClick = null } = {}) {
  const choices = card.choices || [];
  const clickable = live && (onClick !== null || choices.length > 0);
  const element = make(clickable ? "button" : "div", "card");
  if (clickable) { element.type = "button"; }
  element.classList.add(`suit-${card.suit || "special"}`, `kind-${card.kind}`);
  if (card.side) { element.classList.add(`side-${card.side}`); }
  if (mini) { element.classList.add("mini"); }
  if (clickable) { element.classList.add("legal"); } else if (live) { element.classList.add("dimmed"); }
  const value = card.value === null || card.value === undefined ? "" : String(card.value);
  element.appendChild(make("span", "corner", value || card.symbol || ""));
  element.appendChild(make("span", "symbol", card.symbol || (card.kind === "loot" ? "" : value)));
  if (!mini) { element.appendChild(make("span", "name", card.name)); }
  element.title = card.rule ? `${card.name}: ${card.rule}` : card.name;
  const what = choices.length ? `: ${choices.map((c) => c.label).join(" or ")}` : "";
  element.setAttribute("aria-label", card.name + (clickable ? what : live ? " (not playable now)" : ""));
  if (card.choices) { element.dataset.actions = choices.map((c) => c.action).join(","); }
  if (clickable) {
    element.addEventListener("click", () => (onClick ? onClick(element) : choose(choices, element)));
  }
  return element;
}

// Whether any of `cards` can be played now (only then are the others dimmed).
function playable(cards) { return cards.some((card) => (card.choices || []).length > 0); }

// A card from a name in the event log ("red-7", "green-5", "escape", "7", "yellow:+8").
function cardFromName(name) {
  const suited = /^([a-z]+)-(\d+)$/.exec(name);
  if (suited && SUIT_NAMES.includes(suited[1])) {
    return { suit: suited[1], value: Number(suited[2]), kind: "suit", name };
  }
  if (/^\d+$/.test(name)) { return { suit: "number", value: Number(name), kind: "number", name }; }
  const loot = /^([a-z]+):(.+)$/.exec(name);
  if (loot && SUIT_NAMES.includes(loot[1])) {
    return { suit: loot[1], value: loot[2], kind: "loot", side: loot[2].startsWith("+") ? "front" : "back", name };
  }
  const face = ((games[session && session.env_id] || {}).card_faces || {})[name];
  if (face) { return face; }
  return { suit: "special", value: null, kind: name.split(":")[0], name: name.replace(/_/g, " "),
    symbol: name.replace(/_/g, " ").slice(0, 2) };
}

function drawBack(label, { live = false, choices = [] } = {}) {
  const clickable = live && choices.length > 0;
  const element = make(clickable ? "button" : "div", "card back mini" + (clickable ? " legal" : ""));
  if (clickable) {
    element.type = "button";
    element.addEventListener("click", () => choose(choices, element));
    element.dataset.actions = choices.map((c) => c.action).join(",");
  }
  element.setAttribute("aria-label", clickable ? choices.map((c) => c.label).join(" or ") : label);
  element.title = label;
  return element;
}

const FACE_SYMBOLS = { coin: "\u25cf", diamond: "\u25c6", monkey: "\u263b", parrot: "\u2766", sabre: "\u2694",
  skull: "\u2620" };

function drawDie(face, { selectable = false, selected = false, onClick = null } = {}) {
  const element = make(selectable ? "button" : "div", `die face-${face}` + (selected ? " selected" : ""));
  if (selectable) {
    element.type = "button";
    element.setAttribute("aria-pressed", String(selected));
    element.addEventListener("click", onClick);
  }
  element.appendChild(make("span", "pips", FACE_SYMBOLS[face] || "?"));
  element.appendChild(make("span", "face-name", face));
  element.setAttribute("aria-label", `${face} die` + (selectable ? (selected ? ", selected" : "") : ""));
  element.dataset.face = face;
  return element;
}

function moveButton(choice, extraClass = "") {
  const button = make("button", "move " + extraClass, choice.label);
  button.type = "button";
  button.dataset.action = choice.action;
  button.addEventListener("click", () => play(choice.action));
  return button;
}

function markers(state, seat) {
  const box = make("div", "seat-head");
  box.appendChild(make("strong", "", `player_${seat.seat}`));
  box.appendChild(make("span", "agent", state.players[seat.seat]));
  if (state.thinking === seat.seat) { box.appendChild(make("span", "badge thinking", "\u2026")).title = "thinking"; }
  if (seat.dealer) { box.appendChild(make("span", "badge dealer", "D")).title = "dealer"; }
  if (seat.on_turn) { box.appendChild(make("span", "badge turn", "\u25b6")).title = "on turn"; }
  return box;
}

function seatStats(table, seat) {
  const parts = [];
  if (table.game === "skull_king") {
    parts.push(`score ${seat.score}`, `bid ${seat.bid === null ? "?" : seat.bid}`, `tricks ${seat.tricks}`,
      `cards ${seat.hand_size}`);
  } else if (table.game === "piraten_kapern") {
    parts.push(`score ${seat.score}`);
    if (seat.final) { parts.push(seat.final); }
  } else if (table.game === "piratenpoker") {
    parts.push(`score ${seat.score}`, `cards ${seat.hand_size}`, seat.pass_available ? "Pass in hand" : "Pass used");
  } else {
    parts.push(`wins ${seat.wins}`, `hand ${seat.hand_size}`, `down ${seat.down.length}`);
  }
  return parts.join(" \u00b7 ");
}

function drawSeat(state, table, seat, lastMoves) {
  const live = state.your_turn;
  const mine = seat.seat === state.seat;
  const box = make("section", "seat" + (seat.on_turn ? " on-turn" : "") + (mine ? " mine" : ""));
  box.id = `seat-${seat.seat}`;
  box.setAttribute("aria-label", `player_${seat.seat}` + (mine ? " (you)" : ""));
  box.appendChild(markers(state, seat));
  box.appendChild(make("div", "stats", seatStats(table, seat)));
  const row = make("div", "mini-row");
  if (table.game === "piratenpoker") {
    const lootLive = live && mine && playable(seat.loot);
    for (const loot of seat.loot) { row.appendChild(drawCard(loot, { mini: !mine, live: lootLive })); }
    if (seat.last_passed) { row.appendChild(make("span", "tag", "passed")); }
    if (seat.last_bid.length) {
      row.appendChild(make("span", "tag", "bid"));
      for (const card of seat.last_bid) { row.appendChild(drawCard(card, { mini: true })); }
    }
  } else if (table.game === "lucky_pirate") {
    const upLive = live && mine && playable(seat.up);
    for (const card of seat.up) { row.appendChild(drawCard(card, { mini: !mine, live: upLive })); }
    for (const down of seat.down) {
      row.appendChild(drawBack(mine ? `your down card ${down.slot + 1}` : "a down card",
        { live: live && mine, choices: down.choices }));
    }
    if (seat.known.length) {
      row.appendChild(make("span", "tag", "holds"));
      for (const card of seat.known) { row.appendChild(drawCard(card, { mini: true })); }
    }
  }
  if (row.children.length) { box.appendChild(row); }
  const replayHand = !mine && state.hands && state.hands[seat.seat];
  if (replayHand && replayHand.length) { // a replay shows every seat's cards
    const hand = make("div", "mini-row replay-hand");
    hand.setAttribute("aria-label", `player_${seat.seat}'s hand`);
    for (const card of replayHand) { hand.appendChild(drawCard(card, { mini: true })); }
    box.appendChild(hand);
  }
  for (const choice of seat.choices || []) {
    const button = moveButton(choice, "give-to");
    button.setAttribute("aria-label", `${choice.label}: player_${seat.seat}`);
    box.appendChild(button);
  }
  if (lastMoves[seat.seat]) { box.appendChild(make("div", "bubble", lastMoves[seat.seat])); }
  return box;
}

function drawSkullKingCenter(state, table, center) {
  const phase = state.done ? "game over" : table.phase === "bid" ? "bidding" : "playing";
  center.appendChild(make("div", "round", `${table.round} \u00b7 ${phase}`));
  const trick = make("div", "trick");
  if (!table.trick.length && !state.done && (table.phase === "play" || !lastTrick(state.events))) {
    trick.appendChild(make("span", "empty", table.phase === "play" ? `player_${table.leader} leads` : "no trick yet"));
  }
  for (const card of table.trick) {
    const slot = make("figure", "played");
    slot.appendChild(drawCard(card));
    slot.appendChild(make("figcaption", "", `player_${card.seat}`));
    trick.appendChild(slot);
  }
  center.appendChild(trick);
  if (!table.trick.length) { drawLastTrick(state, center); }
  if (table.led_suit) { center.appendChild(make("div", "note", `led suit: ${table.led_suit}`)); }
}

// The trick just taken (from the public event log), in full with who played what and who won it, until the
// next card is led (a hand's last trick stays through the next deal and its bids): a trick closed by the agents
// is still seen.
function drawLastTrick(state, center) {
  const events = state.events;
  const won = lastTrick(events);
  if (won === null) { return; }
  const plays = [];
  for (let i = won - 1; i >= 0 && events[i].kind === "play"; i--) { plays.unshift(events[i]); }
  const box = make("div", "last-trick");
  box.id = "last-trick";
  box.appendChild(make("div", "note", `trick won by ${state.players[events[won].seat] === "you" ? "you"
    : `player_${events[won].seat}`}`));
  const row = make("div", "trick");
  for (const event of plays) {
    const slot = make("figure", "played" + (event.seat === events[won].seat ? " winner" : ""));
    const card = drawCard(cardFromName(event.cards[0]));
    card.title = `player_${event.seat}: ${event.cards[0]}`;
    slot.appendChild(card);
    slot.appendChild(make("figcaption", "", `player_${event.seat}`));
    row.appendChild(slot);
  }
  box.appendChild(row);
  center.appendChild(box);
}

// The index of the event of the trick just taken, or null (none yet, or swept by the next card led).
function lastTrick(events) {
  const won = events.map((e) => e.kind).lastIndexOf("trick_won");
  return won < 0 || events.slice(won).some((e) => e.kind === "play") ? null : won;
}

function drawKapernCenter(state, table, center) {
  center.appendChild(make("div", "round", `${table.round} \u00b7 roll ${table.rolls}`));
  const row = make("div", "kapern");
  if (table.card) {
    const card = drawCard({ ...table.card, suit: "fortune", kind: "fortune", value: null, symbol: "\u2605" });
    row.appendChild(card);
  }
  const tray = make("div", "dice-tray");
  const live = state.your_turn && table.rerolls.length > 0;
  const skullRerolls = table.rerolls.some((r) => r.counts[table.faces.indexOf("skull")] > 0);
  const free = make("div", "dice-free");
  free.id = "dice-free";
  const chest = make("div", "dice-chest");
  table.dice.forEach((die, index) => {
    const wrap = make("div", "die-slot");
    if (die.where === "free") {
      const selectable = live && (die.face !== "skull" || skullRerolls);
      wrap.appendChild(drawDie(die.face, {
        selectable,
        selected: selectedDice.has(index),
        onClick: () => { toggleDie(index); },
      }));
    } else {
      wrap.appendChild(drawDie(die.face));
    }
    for (const choice of state.your_turn ? die.choices : []) {
      const button = moveButton(choice, "chest-move");
      button.textContent = die.where === "free" ? "to chest" : "take back";
      button.setAttribute("aria-label", choice.label);
      wrap.appendChild(button);
    }
    (die.where === "free" ? free : chest).appendChild(wrap);
  });
  tray.appendChild(free);
  if (chest.children.length) {
    tray.appendChild(make("div", "note", "on the Treasure Chest:"));
    tray.appendChild(chest);
  }
  row.appendChild(tray);
  center.appendChild(row);
  const facts = table.island_skulls !== null ? `Island of Skulls: ${table.island_skulls} skulls`
    : `skulls ${table.skulls} (3 end the turn) \u00b7 points if stopped now: ${table.turn_points}`;
  center.appendChild(make("div", "note", facts));
  if (live) {
    const reroll = make("button", "move primary", "Re-roll selected dice");
    reroll.type = "button";
    reroll.id = "reroll";
    reroll.addEventListener("click", () => rerollSelected(table));
    center.appendChild(reroll);
  }
}

function toggleDie(index) {
  if (selectedDice.has(index)) { selectedDice.delete(index); } else { selectedDice.add(index); }
  drawTable(session);
  const again = document.querySelector(`#dice-free .die[data-index="${index}"]`);
  if (again) { again.focus(); }
}

function rerollSelected(table) {
  const counts = table.faces.map(() => 0);
  for (const index of selectedDice) { counts[table.faces.indexOf(table.dice[index].face)] += 1; }
  if (!selectedDice.size) { showError("select the dice to re-roll first (click them)"); return; }
  const match = table.rerolls.find((r) => r.counts.every((c, i) => c === counts[i]));
  if (!match) {
    showError("that re-roll is not allowed: re-roll two dice or more (skulls stay put, but for the Sorceress's one)");
    return;
  }
  play(match.action);
}

function drawPokerCenter(state, table, center) {
  center.appendChild(make("div", "round", table.round));
  const offer = make("div", "offer");
  const live = state.your_turn && table.offer.some((item) => item.choices.length > 0); // never dimmed while you bid
  for (const item of table.offer) {
    const column = make("div", "loot-column");
    column.appendChild(make("div", "note", item.colour));
    if (item.face_up) {
      column.appendChild(drawCard({ ...item.face_up, choices: item.choices }, { live }));
    } else {
      column.appendChild(make("div", "card empty-slot", "\u2013"));
    }
    if (item.stack_top) {
      const top = drawCard(item.stack_top, { mini: true });
      top.title = `${item.colour} stack: ${item.stack_size} cards; the top card's back ${item.stack_top.back} ` +
        `(its front ${item.stack_top.front})`;
      column.appendChild(top);
    }
    column.appendChild(make("div", "note", `stack ${item.stack_size}`));
    offer.appendChild(column);
  }
  center.appendChild(offer);
  if (table.pending) {
    const pending = make("div", "pending");
    pending.appendChild(make("span", "", `player_${table.chooser} gives `));
    pending.appendChild(drawCard(table.pending, { mini: true }));
    center.appendChild(pending);
  }
  if (table.last_round) {
    const winner = table.last_winner === null ? "nobody won" : `player_${table.last_winner} won`;
    center.appendChild(make("div", "note", `last round (${table.last_round}): ${winner}`));
  }
}

function drawLuckyCenter(state, table, center) {
  if (table.round) { center.appendChild(make("div", "round", table.round)); }
  const pile = table.pile;
  const live = state.your_turn && pile.choices.length > 0;
  const box = make(live ? "button" : "div", "pile" + (live ? " legal" : ""));
  box.id = "pile";
  if (live) {
    box.type = "button";
    box.addEventListener("click", () => choose(pile.choices, box));
  }
  box.setAttribute("aria-label", `the pile: ${pile.size} cards` + (live ? "; pick it up" : ""));
  if (!pile.size) { box.appendChild(make("span", "empty", "empty pile")); }
  for (const card of [...pile.top].reverse()) { box.appendChild(drawCard(card)); }
  center.appendChild(box);
  const mode = { captain: "after the Captain only a First Mate or a Porthole", free: "after the Parrot any card" };
  const facts = [`${pile.size} cards`, `value ${pile.value}`];
  if (mode[pile.mode]) { facts.push(mode[pile.mode]); }
  if (pile.run && pile.run[1] > 1) { facts.push(`${pile.run[1]} x ${pile.run[0]} in a row`); }
  facts.push(`next: player_${table.next} (${table.direction > 0 ? "\u21bb" : "\u21ba"})`);
  center.appendChild(make("div", "note", facts.join(" \u00b7 ")));
}

function drawBuilder(state, table) {
  const box = $("builder");
  box.innerHTML = "";
  const bidding = table.game === "piratenpoker" && table.phase === "bid" && state.your_turn;
  show(box, table.game === "piratenpoker" && (bidding || table.bid.length > 0 || table.committed));
  if (box.hidden) { return; }
  box.appendChild(make("span", "tag", table.committed ? (table.passed ? "your bid: pass" : "your bid") : "your bid"));
  const row = make("div", "mini-row");
  for (const card of table.bid) { row.appendChild(drawCard(card)); }
  staged.forEach((card) => {
    row.appendChild(drawCard({ ...card, choices: [] }));
  });
  box.appendChild(row);
  if (!bidding) { return; }
  const total = [...table.bid, ...staged].reduce((sum, card) => sum + card.value, 0);
  box.appendChild(make("span", "note", `total ${total}`));
  const undo = make("button", "move", "Undo");
  undo.type = "button"; undo.id = "undo";
  undo.disabled = staged.length === 0;
  undo.addEventListener("click", () => { staged.pop(); stagedChanged(); });
  const commitChoice = table.buttons.find((b) => b.label === "commit bid");
  const commit = make("button", "move primary", "Commit bid");
  commit.type = "button"; commit.id = "commit";
  commit.disabled = staged.length === 0 && !commitChoice;
  commit.addEventListener("click", commitBid);
  box.append(undo, commit);
  if (table.pass_card && table.pass_card.choices.length && staged.length === 0) {
    box.appendChild(drawCard({ ...table.pass_card, suit: "pass", kind: "pass", value: "0", symbol: "\u2205" },
      { live: true }));
  }
}

// The staged cards changed: redraw, and clear a hint shown for the cards staged before.
function stagedChanged() {
  $("hint-answer").textContent = "";
  drawTable(session);
}

// Send the staged cards one by one (each an "add" move, on the version the one before gave), then the commit.
async function commitBid() {
  if (busy) { return; }
  const cards = staged;
  staged = [];
  let state = session;
  lock(true);
  try {
    for (const card of cards) {
      state = await api("POST", `/api/tables/${session.id}/move`, { action: card.choices[0].action,
        version: state.version });
    }
    const commit = (state.table.buttons || []).find((b) => b.label === "commit bid");
    if (commit) {
      state = await api("POST", `/api/tables/${session.id}/move`, { action: commit.action, version: state.version });
    }
    receive(state);
  } catch (error) {
    receive(state);
    showError(error.message);
    window.renderCount = (window.renderCount || 0) + 1;
  } finally {
    lock(false);
  }
}

function drawHand(state, table) {
  const hand = $("hand");
  hand.innerHTML = "";
  show(hand, Boolean(table.hand));
  if (!table.hand) { return; } // Kapern: dice only
  const cards = [...table.hand];
  const live = state.your_turn && playable(cards); // a hand you bid on is never dimmed
  if (table.game === "piratenpoker") {
    for (const card of staged) { cards.splice(cards.findIndex((c) => c.id === card.id), 1); }
  }
  for (const card of cards) {
    let onClick = null;
    if (table.game === "piratenpoker" && card.choices.length) {
      onClick = () => { staged.push(card); stagedChanged(); };
    }
    hand.appendChild(drawCard(card, { live, onClick }));
  }
  if (!cards.length) { hand.appendChild(make("span", "empty", "no cards in hand")); }
}

function drawButtons(state, table) {
  const box = $("moves");
  box.innerHTML = "";
  if (!state.your_turn) { return; }
  const builderHandles = table.game === "piratenpoker" ? ["commit bid", "pass"] : [];
  for (const choice of table.buttons) {
    if (!builderHandles.includes(choice.label)) { box.appendChild(moveButton(choice)); }
  }
}

function drawTable(state) {
  const table = state.table;
  show($("board"), Boolean(table));
  if (!table) { return; }
  const lastMoves = lastMovesBySeat(state);
  const seats = $("seats");
  seats.innerHTML = "";
  const n = table.seats.length;
  const seated = state.seat !== null && state.seat !== undefined; // a spectator sees every seat alike
  for (let i = seated ? 1 : 0; i < n; i++) {
    seats.appendChild(drawSeat(state, table, table.seats[((seated ? state.seat : 0) + i) % n], lastMoves));
  }
  const me = $("me");
  me.innerHTML = "";
  if (seated) { me.appendChild(drawSeat(state, table, table.seats[state.seat], lastMoves)); }
  const center = $("center");
  center.innerHTML = "";
  center.className = `center-${table.game}`;
  ({ skull_king: drawSkullKingCenter, piraten_kapern: drawKapernCenter, piratenpoker: drawPokerCenter,
    lucky_pirate: drawLuckyCenter })[table.game](state, table, center);
  drawBuilder(state, table);
  drawHand(state, table);
  drawButtons(state, table);
  const dieIndices = table.dice ? table.dice.map((d, i) => [d, i]).filter(([d]) => d.where === "free") : [];
  document.querySelectorAll("#dice-free .die").forEach((die, k) => { die.dataset.index = dieIndices[k][1]; });
}

// What each seat did since your last move (shown in a bubble at its seat).
function lastMovesBySeat(state) {
  const out = {};
  for (const event of state.events.slice(-4 * state.players.length)) {
    if (event.seat !== null && event.seat !== undefined && event.seat !== state.seat && isMove(event)) {
      out[event.seat] = event.text.replace(`player_${event.seat} `, "");
    }
  }
  return out;
}

const MOVE_KINDS = new Set(["bid", "play", "move"]); // the events of a player's own decision
function isMove(event) { return MOVE_KINDS.has(event.kind); }

// ---------------------------------------------------------------- side panels
function who(state, seat) { return state.players[seat] || ""; }

function renderScores(state) {
  const table = $("scores");
  table.innerHTML = "<tr><th>seat</th><th>who</th><th class=\"num\">score</th></tr>";
  state.scores.forEach((score, seat) => {
    const row = document.createElement("tr");
    if (seat === state.on_turn) { row.className = "on-turn"; }
    row.append(make("td", "", `player_${seat}`), make("td", "", who(state, seat)), make("td", "num", score));
    table.appendChild(row);
  });
  renderScoreSheet(state);
}

// Per hand (Kapern: per round of turns), each seat's points from the public score events.
function renderScoreSheet(state) {
  const sheet = $("score-sheet");
  sheet.innerHTML = "";
  const rows = [];
  for (const event of state.events) {
    const opens = event.kind === "deal" || (state.env_id === "piraten_kapern_v0" && event.kind === "draw" &&
      event.seat === 0);
    if (opens || !rows.length) { rows.push({ label: event.what || `round ${rows.length + 1}`, deltas: {} }); }
    if (event.kind === "score") {
      const row = rows[rows.length - 1];
      row.deltas[event.seat] = (row.deltas[event.seat] || 0) + event.delta;
    }
  }
  const scored = rows.filter((row) => Object.keys(row.deltas).length);
  show($("sheet-box"), scored.length > 0);
  if (!scored.length) { return; }
  const head = document.createElement("tr");
  head.appendChild(make("th", "", "hand"));
  state.scores.forEach((_, seat) => head.appendChild(make("th", "num", `p${seat}`)));
  sheet.appendChild(head);
  scored.forEach((row, i) => {
    const line = document.createElement("tr");
    line.appendChild(make("td", "", String(i + 1))).title = row.label;
    state.scores.forEach((_, seat) => {
      const delta = row.deltas[seat];
      line.appendChild(make("td", "num", delta === undefined ? "" : (delta > 0 ? "+" : "") + delta));
    });
    sheet.appendChild(line);
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
    `player_${seat} (${who(state, seat)}): ${state.scores[seat]}` +
    (state.winners.includes(seat) ? " \u2014 winner" : ""));
  box.innerHTML = "";
  box.appendChild(make("strong", "", "Game over. "));
  box.appendChild(document.createTextNode(state.truncated ? "Truncated, no winner." : "Final standings:"));
  const list = document.createElement("ol");
  list.id = "final-standings";
  for (const line of lines) { list.appendChild(make("li", "", line)); }
  box.appendChild(list);
}

// The Hint button: an agent's advice for your turn, in words (GET /api/tables/{id}/hint?agent=NAME&staged=A,B).
// The cards staged into a Piratenpoker bid (not sent yet) go with it: the hint is about the position you see.
// A hint computed for another version or other staged cards than those on screen now is not shown.
function renderHint(state) {
  const box = $("hint-box"), picker = $("hint-agent"), answer = $("hint-answer");
  const mine = state.kind === "table" && state.your_turn;
  if (answer.dataset.version !== String(state.version)) { answer.textContent = ""; } // a hint of a position left
  show(box, mine);
  if (picker.dataset.game !== state.env_id) {
    picker.dataset.game = state.env_id;
    const agents = (games[state.env_id] || {}).agents || [];
    fillSelect(picker, agents.map((a) => [a, a]), `ppo:${state.env_id}`);
  }
  $("hint-button").onclick = async () => {
    const asked = staged.map((card) => card.choices[0].action).join(",");
    answer.textContent = "thinking...";
    answer.dataset.version = String(state.version);
    try {
      const query = `agent=${encodeURIComponent(picker.value)}` + (asked ? `&staged=${asked}` : "");
      const data = await api("GET", `/api/tables/${state.id}/hint?${query}`);
      const now = staged.map((card) => card.choices[0].action).join(",");
      const current = data.version === session.version && now === asked;
      answer.textContent = current ? data.text : "the position changed while the hint was computed; ask again";
      answer.dataset.version = String(session.version);
    } catch (error) { answer.textContent = error.message; }
  };
}

// Who is on turn: you, another person (waiting for them) or an agent thinking.
function turnSign(state) {
  if (state.kind === "replay") { return ""; }
  if (state.table_status === "waiting") { return "waiting for the invited people"; }
  if (state.done) { return "game over"; }
  if (state.your_turn) { return "your turn"; }
  if (state.on_turn === null || state.on_turn === undefined) { return ""; }
  const name = state.seats[state.on_turn].name;
  return state.thinking !== null ? `${name} (${who(state, state.on_turn)}) is thinking\u2026` : `${name}'s turn`;
}

// The banner: who is on turn (a thinking agent also above the table); while the server is away, that it is.
function showTurn(state) {
  const sign = offline ? "connection lost: reconnecting\u2026" : turnSign(state);
  $("status").textContent = sign;
  const thinking = !offline && state.thinking !== null && state.thinking !== undefined && state.kind !== "replay";
  $("thinking").textContent = thinking ? sign : "";
  show($("thinking"), thinking);
}

// The host's panel while people are invited: a link per seat, the spectators' link, and "start now".
function renderInvites(state) {
  const box = $("invites");
  show(box, Boolean(state.is_host) && state.table_status === "waiting");
  if (box.hidden) { return; }
  const list = $("invite-links");
  if (list.dataset.table === state.id) { return; }
  list.dataset.table = state.id;
  list.innerHTML = "";
  api("GET", `/api/tables/${state.id}/invites`).then((data) => {
    const base = `${location.origin}${location.pathname}#table=${state.id}`;
    const rows = data.invites.map((i) => [`player_${i.seat}`, `${base}&seat=${i.token}`]);
    rows.push(["spectators", base]);
    for (const [label, link] of rows) {
      const field = make("label", "", `${label} `);
      const input = document.createElement("input");
      input.readOnly = true; input.value = link; input.className = "invite-link";
      field.appendChild(input);
      list.appendChild(field);
    }
  }).catch((error) => showError(error.message));
}

function renderWaiting(state) {
  $("seats").innerHTML = "";
  for (const seat of state.seats) {
    const box = make("section", "seat" + (seat.seat === state.seat ? " mine" : ""));
    box.appendChild(make("strong", "", `player_${seat.seat}`));
    box.appendChild(make("span", "agent", seat.kind === "agent" ? ` ${seat.agent}`
      : seat.joined ? ` ${seat.name} (here)` : " invited, not here yet"));
    $("seats").appendChild(box);
  }
}

async function render(state) {
  session = state;
  staged = [];
  selectedDice = new Set();
  closeMenu();
  showError("");
  show($("setup"), false);
  show($("table"), true);
  const replay = state.kind === "replay";
  const watching = state.kind === "table" && (state.seat === null || state.seat === undefined);
  $("title").textContent = `${state.game}` + (replay ? " (replay, every seat's cards shown)"
    : watching ? " \u2014 watching (public cards only)" : ` \u2014 you are player_${state.seat}`);
  renderRules(state.env_id, $("rules-text"));
  $("rules-title").textContent = `Rules: ${state.game}`;
  $("feed").innerHTML = "";
  renderInvites(state);
  const waiting = state.table_status === "waiting";
  show($("board"), true);
  if (waiting) {
    for (const id of ["center", "me", "hand", "moves", "builder"]) { $(id).innerHTML = ""; }
    renderWaiting(state);
  } else {
    drawTable(state);
  }
  $("screen").textContent = state.text || "";
  if (!waiting) { renderScores(state); }
  renderLog(state);
  renderStandings(state);
  show($("typing"), !replay && state.your_turn);
  $("hint").textContent = state.hint || "";
  renderHint(state);
  show($("replay-controls"), replay);
  if (replay) {
    $("step").textContent = `step ${state.step} of ${state.total_steps}`;
    $("scrubber").max = state.total_steps;
    $("scrubber").value = state.step;
    $("last-move").textContent = state.last_move ? `last move: ${state.last_move}` : "the deal";
    if (state.step >= state.total_steps) { pauseReplay(); }
  }
  // the record (seed and every move) shows every hidden card: the server gives it once the game is over
  show($("download"), !replay && state.done);
  show($("close-table"), Boolean(state.is_host) && !state.done && state.table_status !== "closed");
  $("download").href = replay ? "#" : `/api/tables/${state.id}/record`;
  $("download").download = `${state.env_id}-game.json`;
  show($("seed-note"), Boolean(state.seeded));
  $("seed-note").textContent = state.seeded ? "The host chose this deal's seed." : "";
  showTurn(state);
  const settled = replay || waiting || state.thinking === null || state.thinking === undefined;
  if (settled) { window.renderCount = (window.renderCount || 0) + 1; } // tests wait on it
}

// ---------------------------------------------------------------- lobby of tables
async function renderLobby() {
  let lobby;
  try { lobby = await api("GET", "/api/lobby"); } catch (error) { return; }
  $("idle-hours").textContent = String(lobby.idle_hours);
  $("waiting-minutes").textContent = String(lobby.waiting_minutes);
  show($("password-box"), Boolean(lobby.password_required));
  for (const [key, id, link] of [["open", "open-tables", "#table="], ["finished", "finished-tables", "#replay="]]) {
    const list = $(id);
    list.innerHTML = "";
    for (const table of lobby[key]) {
      const item = document.createElement("li");
      const anchor = make("a", "", `${table.game}, ${table.players} players`);
      anchor.href = link + table.id;
      item.appendChild(anchor);
      const seats = table.seats.map((s) => (s.kind === "agent" ? s.agent : s.name)).join(", ");
      const scores = table.scores ? ` \u2014 scores ${table.scores.join(" / ")}` : "";
      item.appendChild(document.createTextNode(` (${table.status}: ${seats})${scores}`));
      list.appendChild(item);
    }
    if (!lobby[key].length) { list.appendChild(make("li", "empty", "none")); }
  }
}

function backToLobby() {
  stopFollowing();
  followed = null;
  pauseReplay();
  session = null;
  seatToken = null;
  queue = [];
  history.replaceState(null, "", location.pathname);
  show($("table"), false);
  show($("setup"), true);
  $("log").innerHTML = ""; $("scores").innerHTML = ""; $("score-sheet").innerHTML = ""; $("status").textContent = "";
  show($("sheet-box"), false);
  renderLobby();
}

// The address's fragment: a table (with a seat or as a spectator), a finished table's replay, or the lobby.
function route() {
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get("table")) {
    if (!session || session.id !== hash.get("table") || seatToken !== (hash.get("seat") || null)) {
      openTable(hash.get("table"), hash.get("seat") || null, null);
    }
  } else if (hash.get("replay")) {
    openFinished(hash.get("replay"));
  } else if (session) {
    backToLobby();
  }
}

function playReplay() {
  if (replayTimer || !session || session.kind !== "replay") { return; }
  $("play").textContent = "\u275a\u275a pause";
  $("play").setAttribute("aria-pressed", "true");
  replayTimer = setInterval(() => {
    if (session.step >= session.total_steps) { pauseReplay(); return; }
    send({ step: session.step + 1 });
  }, Math.max(200, Number($("pace").value) || 200));
}

function pauseReplay() {
  if (replayTimer) { clearInterval(replayTimer); replayTimer = null; }
  $("play").textContent = "\u25b6 play";
  $("play").setAttribute("aria-pressed", "false");
}

async function init() {
  games = await api("GET", "/api/games");
  rules = await api("GET", "/static/rules.json").catch(() => ({}));
  fillSelect($("game-select"), Object.entries(games).map(([id, g]) => [id, g.name]), "skull_king_v0");
  onGameChange();
  $("your-name").value = localStorage.getItem("name") || "";
  $("game-select").addEventListener("change", onGameChange);
  $("players").addEventListener("change", onPlayersChange);
  $("seat").addEventListener("change", onSeatChange);
  $("start").addEventListener("click", startGame);
  $("load-replay").addEventListener("click", loadReplay);
  $("rules-button").addEventListener("click", () => {
    const open = $("rules").hidden;
    if (!session) { renderRules($("game-select").value, $("rules-text")); }
    show($("rules"), open);
    $("rules-button").setAttribute("aria-expanded", String(open));
  });
  $("command-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("command").value;
    $("command").value = "";
    send({ command: text });
  });
  document.addEventListener("keydown", (event) => { if (event.key === "Escape") { closeMenu(); } });
  $("leave").addEventListener("click", backToLobby);
  $("close-table").addEventListener("click", () => {
    if (!confirm("Close this table for everyone? The game is deleted.")) { return; }
    api("POST", `/api/tables/${session.id}/close`, {}).then(backToLobby).catch((error) => showError(error.message));
  });
  $("start-now").addEventListener("click", () => {
    api("POST", `/api/tables/${session.id}/start`, {}).then(receive).catch((error) => showError(error.message));
  });
  const stepTo = (f) => () => { pauseReplay(); send({ step: f(session.step, session.total_steps) }); };
  $("first").addEventListener("click", stepTo(() => 0));
  $("prev").addEventListener("click", stepTo((s) => Math.max(0, s - 1)));
  $("next").addEventListener("click", stepTo((s, n) => Math.min(n, s + 1)));
  $("last").addEventListener("click", stepTo((s, n) => n));
  $("play").addEventListener("click", () => (replayTimer ? pauseReplay() : playReplay()));
  $("scrubber").addEventListener("change", () => { pauseReplay(); send({ step: Number($("scrubber").value) }); });
  window.addEventListener("hashchange", route);
  $("status").textContent = "choose a game";
  renderLobby();
  route();
}

init().catch((error) => { $("status").textContent = "cannot reach the server: " + error.message; });
