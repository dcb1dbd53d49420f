"""The web table's games and replays: one session per game, checked by the engine, freed when done.

A `GameSession` is one game between a person (one seat) and agents (the other seats):
the agents move until it is the person's turn; every move the person sends is checked against
the engine's legal actions. A `ReplaySession` steps through a saved game record. The
`SessionStore` hands out random ids and frees sessions that are finished or idle.

Agents come from `AgentCatalog`: the names ``agents.registry.agent_names`` lists (the
shipped agents included) and the agent files of one folder given on the command line, listed
as ``file:<name>``; no other name is accepted, so a request never names a path.

Secrets: while a game runs nothing leaves a session that its seat may not see: its state is the
seat's screen, the public event log and the scores; the seed and the moves (which rebuild every
hidden hand, the deck and the dice to come) are in the record only, given once the game is
over. A seed the person chose is theirs and is shown back (``chosen_seed``); a seed the server
draws is random below 2**53 (too many to try, and a whole number in JavaScript).

Options: a new game may set the options its spec offers on the page (`page_options`; every other
option is the game's default). Bounds: the options a game or a replay may set are capped (the
safe ranges of the game's spec, ``GameSpec.option_ranges``: the games' own ranges where they
have an upper end, else their documented defaults as the upper end, the turn and game guards,
and for the length of a game: Kapern to 10,000 points, the rules play to 6,000, Lucky Pirate to
5 wins, the rules' tournament), so every game ends within a few thousand actions; a replayed
record holds at most `MAX_RECORD_ACTIONS` actions, and its final scores must be the ones it says.
"""

from __future__ import annotations

import copy
import json
import math
import os
import re
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pirate_envs
from agents.analysis.explain import default_agents
from agents.analysis.hint_text import hint
from agents.policy.agent import AGENT_SUFFIXES, load_checkpoint
from agents.registry import agent_names, make_agent
from agents.spec import parse_agent_name
from pirate_envs.core.events import event_text, record_events
from pirate_envs.core.spec import UserOption
from pirate_envs.core.text import Ambiguous, Refusal, shorten, text_module

#: Most actions a replayed record may hold: about four times the longest game that random
#: agents played under the capped options (Lucky Pirate, 2 players, first to 5 wins: 4,622
#: actions; Kapern to 10,000 points at its 1,000-turn guard: 3,094; Skull King, 6 players,
#: 10 hands: 390). Longer records are guard-stuck games. The 4,622 actions replay in 0.12 s.
MAX_RECORD_ACTIONS = 20_000
#: Largest seed: JavaScript's largest exact integer, so a record survives the page's JSON.
MAX_SEED = 2**53 - 1
#: The seed of a hint's agent: the same position gives the same hint.
HINT_SEED = 0
#: Most agent moves whose tables one answer carries (`GameSession.state`'s ``agent_moves``): the page plays
#: out the last ones; earlier ones of a long run of agent moves are only in the event log.
MAX_AGENT_MOVES = 64
#: Blocks of moves the page holds before sending them (Piratenpoker's bid cards, one "add" each): a hint
#: applies them to a copy of the game first (`GameSession.hint_position`). They draw nothing and keep the turn.
STAGED_BLOCKS = {"add"}
#: Most staged moves a hint takes (a hand is far smaller).
MAX_STAGED = 64
#: Blocks of actions the page offers through a picker instead of one button per action.
PICKED_BLOCKS = {"reroll"}


class RequestError(ValueError):
    """A request the server refuses (HTTP status ``status``, one-line ``message``)."""

    def __init__(self, message: str, status: int = 400):
        super().__init__(message)
        self.status = status


#: The lobby's note on each built-in agent kind (a network's note comes from its file: `network_note`).
AGENT_NOTES = {
    "random": "uniformly random legal moves: the weakest player",
    "heuristic": "honest rule-based player (sees only its own seat)",
    "oracle": "exact best play for one turn's expected points",
    "race": "exact best play for the win, the whole two-player game solved (two players only)",
    "best_response:oracle": "the most any player wins against the oracle, solved; exploits it (two players only)",
    "best_response:heuristic": "the most any player wins against the heuristic, solved; exploits it (two players only)",
    "mcts": "tree search over sampled hidden cards with heuristic rollouts (slow)",
    "halving": "search that tries every move in sampled hidden cards, keeping the better half each round (fast)",
    "halving:ppo": "the halving search guided by the trained network: it tries the moves the network rates best",
}
#: A figure of an agent file's header that measures it against the heuristic: its table size and win rate.
_VS_HEURISTIC = re.compile(r"vs heuristic, (\d+) players.*?\(([\d,]+) (?:duplicate )?games")
_WIN_RATE = re.compile(r"win rate ([\d.]+ \[[\d.]+, [\d.]+\])")


def network_note(source: str | Path) -> str:
    """A trained network's lobby note: its win rate against the heuristic per table size with its
    interval, as its file's header (``training.figures``) gives them, else a line naming the results page."""
    try:
        figures = load_checkpoint(str(source))[1].get("training", {}).get("figures", {})
    except Exception:  # a file that cannot be read is refused when chosen; its note says so
        return "trained network whose file cannot be read"
    rates, games = [], []
    for key, value in figures.items():
        table, rate = _VS_HEURISTIC.match(key), _WIN_RATE.search(str(value))
        if table and rate:
            rates.append(f"{table[1]}p {rate[1]}")
            games.append(table[2])
    if not rates:
        return "trained network; its strength is measured in docs/notebook/RESULTS.md"
    counts = f"{games[0]} games each" if len(set(games)) == 1 else "games: " + " / ".join(games)
    return f"trained network; win rate vs heuristics: {', '.join(rates)} ({counts})"


class AgentCatalog:
    """The agents a page may choose: registry names and the files of ``agents_dir`` (``file:<name>``)."""

    def __init__(self, agents_dir: str | Path | None = None):
        self.agents_dir = Path(agents_dir).resolve() if agents_dir is not None else None
        if self.agents_dir is not None and not self.agents_dir.is_dir():
            raise ValueError(f"--agents-dir {agents_dir!r} is not a folder")

    def files(self) -> dict[str, Path]:
        """``file:<name>`` -> path of every agent file in the folder (none without one)."""
        if self.agents_dir is None:
            return {}
        return {
            f"file:{p.name}": p
            for p in sorted(self.agents_dir.iterdir())
            if p.is_file() and p.name.endswith(AGENT_SUFFIXES)
        }

    def names(self, env_id: str) -> list[str]:
        """Every agent name a page may pick for ``env_id``."""
        return agent_names(env_id) + list(self.files())

    def notes(self, env_id: str) -> dict[str, str]:
        """A one-line strength note per agent of `names`: fixed lines for the built-in kinds, a network's
        measured win rates against the heuristic from its file's ``training.figures`` (else a line naming
        the results page)."""
        files = self.files()
        out = {}
        for name in self.names(env_id):
            spec = None if name in files else parse_agent_name(name)
            if spec is None or spec.kind == "ppo":
                out[name] = network_note(files[name] if spec is None else spec.source or "")
            else:
                kind = f"{spec.kind}:ppo" if spec.network is not None else spec.kind
                out[name] = AGENT_NOTES.get(name, AGENT_NOTES.get(kind, "game-specific agent"))
        return out

    def build(self, name: Any, env_id: str, seed: int, env: Any) -> Any:
        """The agent ``name`` for seat games of ``env``; `RequestError` for a name not listed."""
        valid = self.names(env_id)
        if not isinstance(name, str) or name not in valid:
            raise RequestError(f"unknown agent {str(name)[:60]!r}; choose one of {valid}")
        files = self.files()
        if name not in files:
            try:
                return make_agent(name, env_id, seed=seed, env=env)
            except (ValueError, ImportError) as error:
                raise RequestError(f"agent {name!r}: {error}") from None
        path = files[name]
        try:
            return make_agent(f"ppo:{path}", env_id, seed=seed, env=env)
        except Exception as error:  # whatever a bad file raises is the file's fault
            reason = str(error).replace(f"{path}: ", "").replace(str(path), name)  # never the server's path
            reason = reason or type(error).__name__
            raise RequestError(f"agent file {name!r} cannot be used: {reason}"[:300]) from None


def page_options(env_id: str) -> dict[str, UserOption]:
    """The options of ``env_id`` a page may set for a new game, by name (from its spec)."""
    return {option.name: option for option in pirate_envs.game_spec(env_id).options if option.on_page}


def _check_options(env_id: str, options: Any) -> dict[str, Any]:
    """The page's game options, typed as `page_options` allows (``RequestError`` otherwise)."""
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise RequestError(f"options must be an object, got {type(options).__name__}")
    allowed = page_options(env_id)
    for key, value in options.items():
        if key not in allowed:
            raise RequestError(f"option {str(key)[:40]!r} is not settable here; settable: {sorted(allowed)}")
        is_list = allowed[key].kind == "int_list"
        ok = isinstance(value, list) and all(_is_int(v) for v in value) if is_list else _is_int(value)
        if not ok:
            what = "a list of integers" if is_list else "an integer"
            raise RequestError(f"option {key}={_shown(value)} must be {what}")
    return _check_ranges(env_id, dict(options))


def _check_ranges(env_id: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` if every ranged option of the game's spec in it is in its range (``RequestError``)."""
    for key, (low, high) in pirate_envs.game_spec(env_id).option_ranges.items():
        value = options.get(key, low)
        if not _is_int(value) or not low <= value <= high:
            raise RequestError(f"option {key}={_shown(value)} must be an integer in {low}..{high} at this table")
    return options


def _shown(value: Any) -> str:
    """A request value for an error message, cut short (strings quoted)."""
    return str(value) if _is_int(value) else repr(str(value)[:40])


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**9


def _check_seed(seed: Any) -> int:
    """``seed`` if it is an integer in 0..`MAX_SEED` (``RequestError`` otherwise)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise RequestError(f"seed {_shown(seed)} must be an integer in 0..{MAX_SEED}")
    return seed


def make_env(env_id: Any, num_players: int | None, options: dict[str, Any]) -> Any:
    """A raw env recording events; ``RequestError`` naming a bad id or option value."""
    if not isinstance(env_id, str) or env_id not in pirate_envs.ENV_IDS:
        raise RequestError(f"unknown game {str(env_id)[:40]!r}; games: {list(pirate_envs.ENV_IDS)}")
    kwargs = dict(options) if num_players is None else {**options, "num_players": num_players}
    try:
        env = pirate_envs.make(env_id, raw=True, **kwargs)
    except (ValueError, TypeError) as error:
        raise RequestError(str(error)) from None
    record_events(env.game)
    return env


@dataclass
class HintPosition:
    """A copy of the position a hint is about (`GameSession.hint_position`): computed on without the game's lock.

    ``version`` is the game's version the copy was taken at and ``staged`` the seat's moves applied to
    the copy; both come back with the answer, so a page can tell a hint of a position it left.
    """

    env: Any
    env_id: str
    catalog: AgentCatalog
    seat: int
    version: int
    staged: list[int]

    def answer(self, agent: Any) -> dict[str, Any]:
        """What the agent ``agent`` (a catalog name; ``None``: the shipped network, else the heuristic) advises,
        from the seat's view only: `agents.analysis.hint_text.Hint.to_dict` with ``version`` and ``staged``.
        `RequestError` 400 for an agent not listed."""
        name = default_agents(self.env)[-1] if agent is None else agent
        built = self.catalog.build(name, self.env_id, HINT_SEED, self.env)
        return {**hint(self.env, built, name, seed=HINT_SEED).to_dict(), "version": self.version, "staged": self.staged}


class GameSession:
    """One game: people at some seats, agents at the others (the page's own game: one person at ``seat``).

    Every move carries the state ``version`` it was made on (the number of moves played so far):
    a move made on an older version (a double click, a second tab, a retry) is refused without
    effect. A game of `GameSession` runs its agents within the person's request; a shared table
    (`experiments.web.tables`) builds one with `seated` and runs them one move at a time.
    """

    kind = "game"

    def __init__(self, request: dict[str, Any], catalog: AgentCatalog):
        env_id = request.get("env_id")
        opponents = request.get("opponents")
        if not isinstance(opponents, list) or not opponents:
            raise RequestError("opponents must be a non-empty list of agent names")
        n = len(opponents) + 1
        check_players(env_id, n, f"{len(opponents)} opponents + you = {n}")
        seat = request.get("seat", 0)
        if not _is_int(seat) or not 0 <= seat < n:
            raise RequestError(f"seat {_shown(seat)} must be an integer in 0..{n - 1}")
        options = _check_options(env_id, request.get("options")) if env_id in pirate_envs.ENV_IDS else {}
        chosen = request.get("seed")
        chosen_seed = None if chosen is None else _check_seed(chosen)
        others = [s for s in range(n) if s != seat]
        self._open(env_id, n, options, chosen_seed, chosen_seed, dict(zip(others, opponents)), catalog)
        self.seat: int | None = seat
        self.run_agents()

    @classmethod
    def seated(
        cls,
        env_id: str,
        num_players: int,
        options: dict[str, Any],
        seed: int,
        agent_names: dict[int, str],
        catalog: AgentCatalog,
        actions: list[int] = (),  # type: ignore[assignment]
        names: dict[int, str] | None = None,
        build_agents: bool = True,
    ) -> GameSession:
        """A game of people (every seat not in ``agent_names``, named by ``names``) and agents, after ``actions``.

        The seed is the table's secret (no ``chosen_seed``); the agents do not move yet (`step_agent`).
        ``build_agents`` false: the agents are named but not built (a finished game, shown only).
        """
        game = cls.__new__(cls)
        game._open(env_id, num_players, options, seed, None, agent_names, catalog, names, build_agents)
        game.seat = None
        for action in actions:
            if not game.env.is_legal(action):
                raise ValueError(f"move {len(game.actions)} ({action}) of a stored game is not legal there")
            game._step(action)
        return game

    def _open(
        self,
        env_id: Any,
        n: int,
        options: dict[str, Any],
        seed: int | None,
        chosen_seed: int | None,
        agent_names: dict[int, str],
        catalog: AgentCatalog,
        names: dict[int, str] | None = None,
        build_agents: bool = True,
    ) -> None:
        self.options = options
        self.env = make_env(env_id, n, options)
        self.env_id: str = env_id
        #: the person's own seed (shown back to them), else None: the server's seed stays secret
        self.chosen_seed = chosen_seed
        self.seed = secrets.randbelow(MAX_SEED + 1) if seed is None else seed
        self.agent_names = dict(agent_names)
        self.people_names = {s: (names or {}).get(s, f"player_{s}") for s in range(n) if s not in agent_names}
        self.catalog = catalog
        self.agents = {
            s: catalog.build(name, env_id, self.seed * 101 + s, self.env)
            for s, name in self.agent_names.items()
            if build_agents
        }
        self.text = text_module(self.env)
        self.actions: list[int] = []
        #: the agent moves since the person's last move: the table the person's seat saw after each
        self.agent_moves: deque[dict[str, Any]] = deque(maxlen=MAX_AGENT_MOVES)
        self.lock = threading.Lock()
        self.env.reset(seed=self.seed)

    @property
    def done(self) -> bool:
        return self.env.game.done

    @property
    def version(self) -> int:
        """The state's version: the number of moves played (every move, a person's or an agent's, adds one)."""
        return len(self.actions)

    @property
    def agent_on_turn(self) -> int | None:
        """The agent's seat whose turn it is, else None (a person's turn, or the game is over)."""
        game = self.env.game
        return None if game.done or game.current_player not in self.agents else game.current_player

    def _step(self, action: int) -> None:
        self.env.step(action)
        self.actions.append(action)

    def step_agent(self) -> None:
        """The agent on turn makes its move (see `agent_on_turn`)."""
        env, game = self.env, self.env.game
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        self._step(int(self.agents[seat].act(obs, game.view(seat))))
        if self.seat is not None:
            self.agent_moves.append(
                {
                    "seat": seat,
                    "events": len(game.events or []),
                    # from the person's seat's view only: what they saw right after this move
                    "table": self.text.page_state(game.view(self.seat), ())["table"],
                }
            )

    def run_agents(self) -> None:
        """Let the agents move until it is a person's turn or the game is over."""
        while self.agent_on_turn is not None:
            self.step_agent()

    def move(self, body: Any) -> None:
        """Play the person's move (`play`), then the agents' until it is the person's turn again."""
        assert self.seat is not None
        self.play(self.seat, body, need_version=False)
        self.agent_moves.clear()
        self.run_agents()

    def play(self, seat: int, body: Any, need_version: bool = True) -> None:
        """Play ``seat``'s move ``{"action": int}`` or ``{"command": text}``, with ``"version"``: the version it
        was made on (optional when ``need_version`` is false). ``RequestError`` (the game unchanged) if bad."""
        if not isinstance(body, dict) or ("action" in body) == ("command" in body):
            raise RequestError('send {"action": <integer>} or {"command": "<text>"}, with "version"')
        version = body.get("version")
        if version is not None or need_version:
            if not _is_int(version):
                raise RequestError(f"version {_shown(version)} must be an integer: the version of the state you saw")
            if version != self.version:
                raise RequestError(
                    f"move refused: it was made on version {version}, the game is at version {self.version} "
                    "(a repeated or stale move; nothing was played)",
                    status=409,
                )
        game = self.env.game
        if game.done:
            raise RequestError("the game is over", status=409)
        if game.current_player != seat:
            raise RequestError("it is not your turn", status=409)
        legal = game.legal_actions()
        view = game.view(seat)
        if "action" in body:
            action = body["action"]
            if not _is_int(action):
                raise RequestError(f"action {_shown(action)} must be an integer")
            if action not in legal:
                label = self.env.action_to_string(action) if 0 <= action < self.env.num_actions else "out of range"
                raise RequestError(f"action {action} ({label}) is not legal now; {self.text.move_hint(view, legal)}")
        else:
            command = body["command"]
            if not isinstance(command, str) or len(command) > 200:
                raise RequestError("command must be a text of at most 200 characters")
            action = typed_move(self.text, command, view, legal)
        self._step(action)

    def hint(self, agent: Any, seat: int | None = None, staged: Any = ()) -> dict[str, Any]:
        """What the agent ``agent`` advises ``seat`` (default: the person's) after its ``staged`` moves: the
        `hint_position` and its `HintPosition.answer`, in one go (a warm-up, a test)."""
        return self.hint_position(seat, staged).answer(agent)

    def hint_position(self, seat: int | None = None, staged: Any = ()) -> HintPosition:
        """A copy of the position a hint of ``seat`` (default: the person's) is about, quick to take under the
        session's lock: the game now, with the seat's ``staged`` moves applied to the copy only.

        ``staged``: the moves the page holds before sending them (Piratenpoker's bid cards, see
        `STAGED_BLOCKS`), so the hint is about the position the person sees. Each must be legal in turn,
        of a staged block, and leave the seat on turn. `RequestError` 409 when it is not that seat's
        turn, 400 for bad staged moves; the game itself is never changed.
        """
        seat = self.seat if seat is None else seat
        game = self.env.game
        if game.done or game.current_player != seat:
            raise RequestError("a hint is for your turn; it is not your turn", status=409)
        if not isinstance(staged, (list, tuple)) or len(staged) > MAX_STAGED or not all(_is_int(a) for a in staged):
            raise RequestError(f"staged must be a list of at most {MAX_STAGED} actions")
        env = copy.deepcopy(self.env)
        blocks = env.actions.blocks
        for action in staged:
            block = next((b.name for b in blocks if 0 <= action < env.num_actions and action in b), None)
            if block not in STAGED_BLOCKS or not env.is_legal(action):
                raise RequestError(f"staged action {action} is not a card you may add to your bid now")
            env.step(action)
            if env.game.done or env.game.current_player != seat:  # never: adding a card keeps the turn
                raise RequestError(f"staged action {action} ends your turn; a hint is for your turn")
        return HintPosition(env, self.env_id, self.catalog, seat, self.version, list(staged))

    def players(self, seat: int | None) -> list[str]:
        """Who sits where, as ``seat`` sees it: ``you``, a person's name or an agent's."""
        n = self.env.game.num_players
        return [
            "you" if s == seat else self.agent_names.get(s) or self.people_names.get(s, f"player_{s}") for s in range(n)
        ]

    def state(self, seat: int | None = -1) -> dict[str, Any]:
        """What the page shows ``seat`` (default: the person's; ``None``: a spectator): the seat's screen, the
        event log, the scores, the legal moves, the drawn table and the ``version``.

        ``table`` (the game's ``page_state``) is built from the seat's view and its legal moves only; a
        spectator's from public facts only (`public_table`). ``agent_moves``: the agent moves since the
        person's last move (the last `MAX_AGENT_MOVES`), each as ``{"seat", "events", "table"}``: who moved,
        the length of the event log right after, and the table the person's seat saw right after (``page_state``
        of its view, no moves), for the page to play out. ``thinking``: the agent's seat on turn, else None.
        """
        seat = self.seat if seat == -1 else seat
        env, game = self.env, self.env.game
        your_turn = seat is not None and not game.done and game.current_player == seat
        legal = game.legal_actions() if your_turn else []
        on_turn = None if game.done else game.current_player
        state = {
            "kind": self.kind,
            "env_id": self.env_id,
            "game": self.text.GAME_NAME,
            "seat": seat,
            "players": self.players(seat),
            **_outcome(env),
            "your_turn": your_turn,
            "moves": _moves(env, legal),
            "hint": self.text.move_hint(game.view(seat), legal) if your_turn else "",
            "steps": self.version,
            "version": self.version,
            "thinking": self.agent_on_turn,
            "chosen_seed": self.chosen_seed,
            "agent_moves": list(self.agent_moves) if seat is not None and seat == self.seat else [],
        }
        if seat is None:
            page = public_table(self.text.page_state(game.view(0), ()))
            state.update(page, text=f"{self.text.GAME_NAME}: watching (public information only)")
        else:
            state["text"] = self.text.seat_text(game.view(seat), on_turn)
            state.update(self.text.page_state(game.view(seat), legal))  # the drawn table, from the seat's view only
        return state

    def record(self) -> dict[str, Any]:
        """The finished game as a record that replays through the raw env (the ``evaluate --save-games`` format).

        ``RequestError`` 409 while the game runs: its seed and moves rebuild every hidden card.
        """
        game = self.env.game
        if not game.done:
            raise RequestError("the record is given once the game is over (its seed and moves show every card)", 409)
        return {
            "env_id": self.env_id,
            "env_kwargs": {**self.options, "num_players": game.num_players},
            "seed": self.seed,
            "actions": list(self.actions),
            "agents": [
                "human" if s == self.seat else self.agent_names.get(s) or self.people_names[s]
                for s in range(game.num_players)
            ],
            "scores": game.scores().tolist(),
        }


def check_players(env_id: Any, n: int, what: str) -> None:
    """``RequestError`` when the game ``env_id`` is not played by ``n`` players (``what`` says how they add up)."""
    if isinstance(env_id, str) and env_id in pirate_envs.ENV_IDS and n not in pirate_envs.player_counts(env_id):
        counts = pirate_envs.player_counts(env_id)
        raise RequestError(f"{env_id} plays {counts[0]}-{counts[-1]} players; {what}")


def public_table(page: dict[str, Any]) -> dict[str, Any]:
    """A drawn table (``page_state``, no legal moves) with everything private to its seat taken out: what a
    spectator may see. The hand, a Piratenpoker bid being built and its Pass, Lucky Pirate's known cards."""
    table = dict(page["table"])
    if "hand" in table:
        table["hand"] = []
    if table["game"] == "piratenpoker":
        table.update(bid=[], committed=False, passed=False, pass_card=None)
    table["seats"] = [{**seat, "known": []} if "known" in seat else seat for seat in table["seats"]]
    return {**page, "table": table}


#: The rules panel's text, per game: the rules section of each game's docs page.
RULES_FILE = Path(__file__).parent / "static" / "rules.json"
#: The games' docs pages (``docs/games/<game>.md``), read when the rules panel's text is written.
GAME_PAGES = Path(__file__).resolve().parents[2] / "docs" / "games"


def rules_summary(env_id: str) -> list[str]:
    """The rules section of ``env_id``'s docs page as paragraphs (a bullet starts with ``* ``)."""
    page = GAME_PAGES / f"{re.sub(r'_v[0-9]+$', '', env_id)}.md"  # versions share it
    lines = page.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if line.lower().startswith("## rules"))
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
    paragraphs: list[str] = []
    for line in lines[start + 1 : end]:
        text = line.strip().replace("``", "")
        if not text:
            paragraphs.append("")
        elif text.startswith("* ") or not paragraphs or not paragraphs[-1]:
            paragraphs.append(text)
        else:
            paragraphs[-1] += " " + text
    return [p for p in paragraphs if p]


def write_rules(path: Path = RULES_FILE) -> None:
    """Write the rules panel's text of every game (`rules_summary`) to ``path``, atomically."""
    text = json.dumps({env_id: rules_summary(env_id) for env_id in pirate_envs.ENV_IDS}, indent=1) + "\n"
    partial = path.with_suffix(".json.tmp")
    partial.write_text(text, encoding="utf-8")
    os.replace(partial, path)


def typed_move(text: Any, command: str, view: Any, legal: list[int]) -> int:
    """The move typed in the page's text box, read as the terminal reads it (`pirate_envs.core.text.parse_move`).

    ``text`` is the game's text module. A typed input that could mean several moves, or none,
    is a `RequestError` (400) that lists the candidates or says why.
    """
    parsed = text.parse_move(command, view, legal)
    if isinstance(parsed, Ambiguous):
        raise RequestError(parsed.message)
    if isinstance(parsed, Refusal):
        raise RequestError(f"'{shorten(command, 20)}' is not a move: {parsed.reason}")
    return parsed


def _outcome(env: Any) -> dict[str, Any]:
    """Scores, whose turn, the end and the event log (shared by games and replays)."""
    game = env.game
    scores = game.scores().tolist()
    return {
        "scores": scores,
        "on_turn": None if game.done else game.current_player,
        "done": game.done,
        "truncated": bool(game.truncated),
        "winners": game.winners() if game.terminated else [],
        "standings": sorted(range(len(scores)), key=lambda s: (-scores[s], s)),
        "events": [{**e.to_dict(), "text": event_text(e)} for e in (game.events or [])],
    }


def _moves(env: Any, legal: list[int]) -> list[dict[str, Any]]:
    """The legal moves as ``{"action", "label", "block"}`` (blocks in `PICKED_BLOCKS` left out)."""
    blocks = env.actions.blocks
    moves = []
    for action in legal:
        block = next(b.name for b in blocks if action in b)
        if block not in PICKED_BLOCKS:
            moves.append({"action": action, "label": env.action_to_string(action), "block": block})
    return moves


class ReplaySession:
    """A saved game record, stepped through: the full state (every hand) after any step."""

    kind = "replay"

    def __init__(self, record: Any):
        if not isinstance(record, dict):
            raise RequestError("a game record is a JSON object with env_id, env_kwargs, seed and actions")
        env_kwargs = record.get("env_kwargs", {})
        if not isinstance(env_kwargs, dict) or not all(_is_plain(v) for v in env_kwargs.values()):
            raise RequestError("env_kwargs must be an object of plain values (numbers, texts, lists of numbers)")
        actions = record.get("actions")
        if not isinstance(actions, list) or len(actions) > MAX_RECORD_ACTIONS or not all(_is_int(a) for a in actions):
            raise RequestError(f"actions must be a list of at most {MAX_RECORD_ACTIONS} integers")
        seed = record.get("seed")
        if seed is not None:
            _check_seed(seed)
        env_id = record.get("env_id")
        if isinstance(env_id, str) and env_id in pirate_envs.ENV_IDS:
            _check_ranges(env_id, env_kwargs)
        self.env = make_env(env_id, None, env_kwargs)
        self.env_id: str = env_id
        self.seed, self.actions = seed, actions
        n = self.env.game.num_players
        agents = record.get("agents")
        if agents is not None and (not isinstance(agents, list) or len(agents) != n):
            raise RequestError(f"agents must list one name per seat ({n})")
        self.agent_names = [str(a)[:60] for a in agents] if agents is not None else []
        self.recorded_scores = _check_scores(record.get("scores"), n)
        self.lock = threading.Lock()
        self.env.reset(seed=seed)
        self.step = 0
        self._goto(len(actions))  # checks every action once
        if not self.env.game.done:
            raise RequestError(f"the record is not a finished game: not over after its {len(actions)} actions")
        replayed = self.env.game.scores().tolist()
        if self.recorded_scores is not None and not all(
            math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(replayed, self.recorded_scores)
        ):
            raise RequestError(
                f"the record's scores {self.recorded_scores} are not the scores its moves give ({replayed}): "
                "the record was changed"
            )

    @property
    def done(self) -> bool:
        return False  # a replay is freed when idle, not when its game is over

    def _goto(self, step: int) -> None:
        if step < self.step or step == 0:
            self.env.reset(seed=self.seed)
            self.step = 0
        while self.step < step:
            action = self.actions[self.step]
            if not self.env.is_legal(action):
                label = self.env.action_to_string(action) if 0 <= action < self.env.num_actions else "out of range"
                raise RequestError(f"action {self.step} of the record ({action}, {label}) is not legal there")
            self.env.step(action)
            self.step += 1

    def move(self, body: Any) -> None:
        """Go to step ``{"step": k}`` (0: the deal, len(actions): the end)."""
        step = body.get("step") if isinstance(body, dict) else None
        if not _is_int(step) or not 0 <= step <= len(self.actions):
            raise RequestError(f"step must be an integer in 0..{len(self.actions)}")
        self._goto(step)

    def state(self) -> dict[str, Any]:
        """The full state after the current step (every hand: the game is over), as the page shows it.

        ``table`` is the drawn table seen from seat 0, ``hands`` every seat's hand (``None`` in Kapern).
        """
        env, game = self.env, self.env.game
        last = self.actions[self.step - 1] if self.step else None
        text = text_module(env)
        tables = [text.page_state(game.view(seat))["table"] for seat in range(game.num_players)]
        return {
            "kind": self.kind,
            "env_id": self.env_id,
            "game": text.GAME_NAME,
            "players": self.agent_names or env.possible_agents,
            # the drawn table from player_0's seat, and every seat's hand (a record shows every card)
            "seat": 0,
            "your_turn": False,
            "table": tables[0],
            "hands": [table.get("hand") for table in tables],
            "text": env.game.render(),
            **_outcome(env),
            "step": self.step,
            "total_steps": len(self.actions),
            "last_move": None if last is None else env.action_to_string(last),
            "recorded_scores": self.recorded_scores,
            "scores_checked": self.recorded_scores is not None,
        }


def _is_plain(value: Any) -> bool:
    """Whether ``value`` is an env option a record may carry: a number, a short text, a short list of numbers."""
    if value is None or isinstance(value, bool) or _is_int(value):
        return True
    if isinstance(value, str):
        return len(value) <= 40
    return isinstance(value, list) and len(value) <= 64 and all(_is_int(v) for v in value)


def _check_scores(scores: Any, num_players: int) -> list[float] | None:
    """A record's ``scores``: one number per seat, or None when the record has none (``RequestError``)."""
    if scores is None:
        return None
    if (
        not isinstance(scores, list)
        or len(scores) != num_players
        or not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in scores)
    ):
        raise RequestError(f"scores must be a list of {num_players} numbers (one per seat) or left out")
    return scores


class SessionStore:
    """Sessions by random id; finished ones are freed after ``finished_ttl``, idle ones after ``idle_ttl``."""

    def __init__(
        self,
        capacity: int = 64,
        idle_ttl: float = 1800.0,
        finished_ttl: float = 300.0,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.capacity, self.idle_ttl, self.finished_ttl, self.clock = capacity, idle_ttl, finished_ttl, clock
        self._sessions: dict[str, Any] = {}
        self._used: dict[str, float] = {}
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._sessions)

    def add(self, session: Any) -> str:
        """Store ``session`` under a fresh random id (``RequestError`` 503 when full of live games)."""
        with self._lock:
            self._purge()
            if len(self._sessions) >= self.capacity:
                raise RequestError(f"the table is full ({self.capacity} games in progress); try again later", 503)
            sid = secrets.token_urlsafe(16)
            self._sessions[sid] = session
            self._used[sid] = self.clock()
            return sid

    def get(self, sid: str) -> Any:
        """The session ``sid`` (``RequestError`` 404 if unknown or freed); marks it used."""
        with self._lock:
            self._purge()
            if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", sid) or sid not in self._sessions:
                raise RequestError("no such game (finished or abandoned games are freed)", 404)
            self._used[sid] = self.clock()
            return self._sessions[sid]

    def remove(self, sid: str) -> None:
        with self._lock:
            if sid not in self._sessions:
                raise RequestError("no such game", 404)
            del self._sessions[sid], self._used[sid]

    def _purge(self) -> None:
        now = self.clock()
        for sid in list(self._sessions):
            ttl = self.finished_ttl if self._sessions[sid].done else self.idle_ttl
            if now - self._used[sid] > ttl:
                del self._sessions[sid], self._used[sid]


__all__ = [
    "MAX_RECORD_ACTIONS",
    "AgentCatalog",
    "GameSession",
    "HintPosition",
    "ReplaySession",
    "RequestError",
    "SessionStore",
    "page_options",
]
