// The web table's page: a lobby, the drawn table (cards, dice, loot, seats), the event log, replays.
// Everything drawn comes from the state the server sends: `table` is the game's page_state, built from
// your seat's view; each clickable card, die, seat or button carries the legal move ("choices") it plays.
"use strict";

const $ = (id) => document.getElementById(id);
let games = {};
let rules = {};
let session = null; // {id, kind, ...state}
let shownEvents = 0; // events already shown (the opponents' moves after it are played out at the pace)
let staged = []; // Piratenpoker: hand cards picked into the bid, not yet sent (undo before committing)
let selectedDice = new Set(); // Kapern: indices of the free dice picked for a re-roll

function show(element, visible) { element.hidden = !visible; }

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
  const paragraphs = rules[envId] || [];
  let list = null;
  for (const text of paragraphs) {
    if (text.startsWith("* ")) {
      if (!list) { list = make("ul"); box.appendChild(list); }
      list.appendChild(make("li", "", text.slice(2)));
    } else {
      list = null;
      box.appendChild(make("p", "", text));
    }
  }
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
    fillSelect(select, game.agents.map((a) => [a, a]), previous[i] || "heuristic");
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

async function startGame() {
  const body = {
    env_id: $("game-select").value,
    opponents: [...document.querySelectorAll("select.opponent")].map((s) => s.value),
    seat: Number($("seat").value),
    options: gameOptions(),
  };
  if ($("seed").value !== "") { body.seed = Number($("seed").value); }
  $("status").textContent = "dealing...";
  shownEvents = 0;
  try {
    await render(await api("POST", "/api/sessions", body));
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
  try { await render(await api("POST", "/api/replays", record)); } catch (error) { alert(error.message); }
}

// ---------------------------------------------------------------- moves
async function send(body) {
  if (!session) { return; }
  const path = session.kind === "replay" ? `/api/replays/${session.id}/goto` : `/api/sessions/${session.id}/move`;
  try {
    await render(await api("POST", path, body));
  } catch (error) {
    showError(error.message); // the game goes on: the state is unchanged
    window.renderCount = (window.renderCount || 0) + 1;
  }
}

function play(action) { closeMenu(); return send({ action }); }

function closeMenu() { const menu = $("choice-menu"); if (menu) { menu.remove(); } }

// A drawn element with several moves (Scary Mary, a set of 1 or 2 cards): a small menu of them.
function choose(choices, anchor) {
  if (choices.length === 1) { play(choices[0].action); return; }
  closeMenu();
  const menu = make("div", "choice-menu");
  menu.id = "choice-menu";
  menu.setAttribute("role", "menu");
  for (const choice of choices) {
    const button = make("button", "choice", choice.label);
    button.type = "button";
    button.setAttribute("role", "menuitem");
    button.dataset.action = choice.action;
    button.addEventListener("click", () => play(choice.action));
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
  const who = seat.seat === state.seat && state.kind === "game" ? "you" : state.players[seat.seat];
  box.appendChild(make("strong", "", `player_${seat.seat}`));
  box.appendChild(make("span", "agent", who));
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
    for (const loot of seat.loot) { row.appendChild(drawCard(loot, { mini: !mine, live: live && mine })); }
    if (seat.last_passed) { row.appendChild(make("span", "tag", "passed")); }
    if (seat.last_bid.length) {
      row.appendChild(make("span", "tag", "bid"));
      for (const card of seat.last_bid) { row.appendChild(drawCard(card, { mini: true })); }
    }
  } else if (table.game === "lucky_pirate") {
    for (const card of seat.up) { row.appendChild(drawCard(card, { mini: !mine, live: live && mine })); }
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
  center.appendChild(make("div", "round", `${table.round} \u00b7 ${table.phase === "bid" ? "bidding" : "playing"}`));
  const trick = make("div", "trick");
  if (!table.trick.length) {
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

// The trick just taken (from the public event log), so a trick closed by the agents is still seen.
function drawLastTrick(state, center) {
  const events = state.events;
  const won = events.map((e) => e.kind).lastIndexOf("trick_won");
  if (won < 0 || events.slice(won).some((e) => e.kind === "deal")) { return; }
  const plays = [];
  for (let i = won - 1; i >= 0 && events[i].kind === "play"; i--) { plays.unshift(events[i]); }
  const box = make("div", "last-trick");
  box.appendChild(make("span", "note", `last trick, won by player_${events[won].seat}:`));
  for (const event of plays) {
    const card = drawCard(cardFromName(event.cards[0]), { mini: true });
    card.title = `player_${event.seat}: ${event.cards[0]}`;
    box.appendChild(card);
  }
  center.appendChild(box);
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
  const live = state.your_turn;
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
  undo.addEventListener("click", () => { staged.pop(); drawTable(session); });
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

// Send the staged cards one by one (each an "add" move), then the commit.
async function commitBid() {
  const cards = staged;
  staged = [];
  let state = session;
  try {
    for (const card of cards) {
      state = await api("POST", `/api/sessions/${session.id}/move`, { action: card.choices[0].action });
    }
    const commit = (state.table.buttons || []).find((b) => b.label === "commit bid");
    if (commit) { state = await api("POST", `/api/sessions/${session.id}/move`, { action: commit.action }); }
    await render(state);
  } catch (error) {
    await render(state);
    showError(error.message);
  }
}

function drawHand(state, table) {
  const hand = $("hand");
  hand.innerHTML = "";
  show(hand, Boolean(table.hand));
  if (!table.hand) { return; } // Kapern: dice only
  const live = state.your_turn;
  const cards = [...table.hand];
  if (table.game === "piratenpoker") {
    for (const card of staged) { cards.splice(cards.findIndex((c) => c.id === card.id), 1); }
  }
  for (const card of cards) {
    let onClick = null;
    if (table.game === "piratenpoker" && card.choices.length) {
      onClick = () => { staged.push(card); drawTable(session); };
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
  for (let i = 1; i < n; i++) {
    seats.appendChild(drawSeat(state, table, table.seats[(state.seat + i) % n], lastMoves));
  }
  const me = $("me");
  me.innerHTML = "";
  me.appendChild(drawSeat(state, table, table.seats[state.seat], lastMoves));
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

// The opponents' moves since the last answer, one by one on the table at the chosen pace: the answer's
// agent_moves hold the table your seat saw right after each (instant: only the final table is drawn).
async function playOutEvents(state) {
  const pace = Number($("pace").value);
  const start = shownEvents;
  shownEvents = state.events.length;
  if (!pace || state.kind !== "game") { return; }
  const feed = $("feed");
  let from = start;
  for (const move of state.agent_moves || []) {
    if (move.events <= start) { continue; } // shown before
    const fresh = state.events.slice(from, move.events).filter((e) => e.seat !== state.seat && isMove(e));
    from = move.events;
    drawTable({ ...state, table: move.table, your_turn: false, events: state.events.slice(0, move.events) });
    feed.innerHTML = "";
    for (const event of fresh) {
      const line = make("div", "feed-line");
      line.appendChild(make("span", "", event.text));
      for (const name of event.cards || []) { line.appendChild(drawCard(cardFromName(name), { mini: true })); }
      feed.appendChild(line);
    }
    const seat = $(`seat-${move.seat}`);
    if (seat) { seat.classList.add("acting"); }
    await sleep(pace);
    if (seat) { seat.classList.remove("acting"); }
  }
  feed.innerHTML = "";
}

// ---------------------------------------------------------------- side panels
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

async function render(state) {
  const fresh = !session || session.id !== state.id;
  if (fresh) { shownEvents = 0; }
  session = state;
  staged = [];
  selectedDice = new Set();
  closeMenu();
  showError("");
  show($("setup"), false);
  show($("table"), true);
  const replay = state.kind === "replay";
  $("title").textContent = `${state.game}` + (replay ? " (replay, every seat's cards shown)" :
    ` \u2014 you are player_${state.seat}`);
  renderRules(state.env_id, $("rules-text"));
  $("rules-title").textContent = `Rules: ${state.game}`;
  if (!fresh) { await playOutEvents(state); } else { shownEvents = state.events.length; }
  $("screen").textContent = state.text;
  drawTable(state);
  renderScores(state);
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
  window.renderCount = (window.renderCount || 0) + 1; // tests wait on it
}

async function init() {
  games = await api("GET", "/api/games");
  rules = await api("GET", "/static/rules.json").catch(() => ({}));
  fillSelect($("game-select"), Object.entries(games).map(([id, g]) => [id, g.name]), "skull_king_v0");
  onGameChange();
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
  $("scrubber").addEventListener("change", () => send({ step: Number($("scrubber").value) }));
  $("status").textContent = "choose a game";
}

init().catch((error) => { $("status").textContent = "cannot reach the server: " + error.message; });
