"""Tournaments between agents, seats rotated, with 95% confidence intervals.

    python -m experiments.evaluate --env-id piraten_kapern_v0 --agents oracle heuristic random --games 30

``--agents`` lists one agent per seat (names from ``agents.registry``, ``ppo:<checkpoint>``
included; a name may repeat, and ``NAMEx<k>`` stands for ``k`` copies of ``NAME``:
``heuristicx5``). ``--players p`` decides how the names fill the tables:

* ``0`` (the default) or the number of names: one table, one seat per name.
* more than the names: one table, the last name filling the seats beyond the others, so
  ``--agents ppo:skull_king_v0 heuristic --players 6`` seats the agent against five heuristics
  (the same lineup as ``--agents ppo:skull_king_v0 heuristicx5``).
* fewer than the names: a league: every combination of ``p`` distinct names plays ``--games``
  games and the figures pool over all of them.

Two names thus make a two-seat table with no ``--players`` (or ``--players 2``), and one agent
against copies of the other with ``--players`` above 2; a league needs more names than seats.
Game ``g`` seats agent ``k`` of a table's lineup at seat ``(k + g) mod n`` so every agent plays
every seat. A win shared by ``w`` players counts ``1/w``; a truncated game counts as no win.

The intervals treat games, never seats, as independent (`summarise`): an agent's figure
in a game is the mean over its seats there (its copies' win shares / copies: the copies of one
agent at a table share a game, so their results are correlated). An agent with one seat a game
gets Wilson's interval over its games; copies get a Student t interval over their per-game
shares (and per-game mean scores). The results table gives each agent's seats and, in
brackets, the games its intervals are over, and names the interval (``CI over``). OpenSkill
ratings (``agents.ratings``) are fitted on every game. Beside the pooled figures, the
head-to-head matrix gives each agent's win rate in the games it played with each other agent.
Writes ``results.md``, ``results.json`` (with the ``lineup``, copies written out) and
``results.png`` to ``--out`` when given.

``--duplicate`` plays every deal once per rotation of the agents over the seats, with the same
seed (the same cards and dice): game ``g`` uses seed ``seed + g // n`` and rotation ``g mod n``,
so the luck of the deal cancels. Its intervals are taken over deals (the mean of an agent's
seats in each deal, a normal interval over the deals) rather than over single games (Wilson).
``--workers`` plays games in parallel processes (the figures are the same as with one; at most
the CPUs the process may use); ``--progress`` shows games done, rate and time left on stderr.
``--env-kwargs key=value ...`` passes more arguments to the game (``promo_cards=True``; the
player count comes from ``--players`` or ``--agents``). A second run with the same ``--out``
replaces its results files.

``--save-games DIR`` writes one JSON record per game (``env_id``, ``env_kwargs``, ``seed``,
``actions`` in order, ``agents`` by seat, final ``scores``, ``win_shares``, ``truncated``),
named ``game_000000.json`` ... and numbered on after the records already in ``DIR``: a second
run into the same folder adds its games after the first run's, and no record is ever
overwritten (each is written whole to a temporary file, then linked to a name not yet taken).
`replay` plays a record back and checks it: a record with a missing or mistyped field,
an action that is not legal at its step, a game that ends before its last action or not at
all, or final scores that differ from the replayed ones is refused with a ``ValueError``
naming the fault.

Bad arguments (an unknown agent or game, a player count the game does not allow, an agent
that does not fit the table, more copies ``NAMEx<k>`` than the game's largest table, bad
``--env-kwargs``, ``--workers`` above the CPU count, more than `MAX_GAMES` games, a seed
past `MAX_SEED`, an ``--out`` or ``--save-games`` folder that cannot be made or written
to) end the command before any game with one line and exit status 2. So does a missing extra
(``agents.extras``): the command needs the ``train`` extra's openskill (the ratings),
matplotlib with ``--out`` (``results.png``), and ``experiments.train`` with ``--env-kwargs``
(its parser reads them); the line names the extra and its install command.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import re
import sys
import tempfile
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import pirate_envs
from agents.base import Agent
from agents.checkpoint import write_atomic as write_atomically  # results files (``best_response`` too)
from agents.extras import MissingExtra, require
from agents.ratings import rate_games
from agents.registry import make_agent
from agents.stats import mean_interval, t_interval, wilson_interval
from experiments.cli import check_agents, check_env_id, check_players, games_epilog, parse_args, parse_env_kwargs


@dataclass
class EvalArgs:
    """Play a seat-rotated tournament and print win rates and mean scores with 95% intervals."""

    env_id: str = field(default="piraten_kapern_v0", metadata={"help": f"one of {pirate_envs.ENV_IDS}"})
    agents: list[str] = field(
        default_factory=lambda: ["oracle", "heuristic", "random"],
        metadata={"help": "one agent name per seat, NAMEx<k> for k copies (each game's names are listed below)"},
    )
    games: int = field(default=30, metadata={"help": "number of games (per pairing in a league)", "min": 1})
    seed: int = field(default=0, metadata={"help": "seed of the first game (game g uses seed + g)", "min": 0})
    players: int = field(
        default=0,
        metadata={
            "help": "players per game (0: one seat per agent; more: the last agent fills the rest; fewer: a league)",
            "min": 0,
        },
    )
    out: str | None = field(default=None, metadata={"help": "folder for results.md and results.json"})
    duplicate: bool = field(
        default=False,
        metadata={"help": "play every deal once per rotation of the agents (same seed); games: a multiple of n"},
    )
    workers: int = field(default=1, metadata={"help": "processes playing games in parallel", "min": 1})
    progress: bool = field(default=True, metadata={"help": "show games done, rate and time left on stderr"})
    save_games: str | None = field(
        default=None, metadata={"help": "folder for one JSON record per game (numbered on after those there)"}
    )
    env_kwargs: list[str] = field(
        default_factory=list, metadata={"help": "more env arguments, key=value (e.g. promo_cards=True)"}
    )


@dataclass
class AgentResult:
    """One agent's tournament figures (a name that sits several seats is pooled)."""

    agent: str
    seats_played: int
    win_rate: float
    win_low: float
    win_high: float
    mean_score: float
    score_low: float
    score_high: float
    rating: float | None = None
    rating_sigma: float | None = None
    #: The independent units the intervals are over: games, or deals with ``--duplicate``.
    games: int = 0
    #: How the intervals are taken: :data:`ONE_SEAT_A_GAME`, :data:`COPIES_PER_GAME` or :data:`OVER_DEALS`.
    interval: str = ""


@dataclass
class GameRecord:
    """The outcome of one game, per seat."""

    scores: list[float]
    win_shares: list[float]
    truncated: bool
    #: The engine's ``truncation_reason`` of a truncated game (``None`` when it gives none).
    truncation_reason: str | None = None
    #: The seed the game was dealt with.
    seed: int | None = None
    #: Every action in order (the game replays from ``seed`` and these).
    actions: list[int] = field(default_factory=list)


def seating(num_agents: int, game: int) -> list[int]:
    """The seat of each agent in game ``game`` of a rotation: agent ``k`` sits at ``(k + game) % n``."""
    return [(k + game) % num_agents for k in range(num_agents)]


def deal_of(game: int, num_agents: int, duplicate: bool) -> tuple[int, int]:
    """``(seed offset, rotation)`` of game ``game``: one deal per game, or one per ``n`` rotations."""
    return (game // num_agents if duplicate else game), game % num_agents


def play_game(env: Any, seat_agents: list[Agent], seed: int) -> GameRecord:
    """Play one game on a raw env; ``seat_agents[s]`` plays seat ``s``."""
    env.reset(seed=seed)
    for s, agent in enumerate(seat_agents):
        agent.reset(seed * 101 + s)
    game = env.game
    actions = []
    while not game.done:
        seat = game.current_player
        obs = env.observe(env.possible_agents[seat])
        action = int(seat_agents[seat].act(obs, game.view(seat)))
        actions.append(action)
        env.step(action)
    return GameRecord(game.scores().tolist(), win_shares(game), game.truncated, truncation_reason(game), seed, actions)


def win_shares(game: Any) -> list[float]:
    """Each seat's share of the win of a finished game: ``1/w`` for each of ``w`` winners, none if truncated."""
    shares = [0.0] * game.num_players
    if game.terminated:
        winners = game.winners()
        for w in winners:
            shares[w] = 1.0 / len(winners)
    return shares


def truncation_reason(game: Any) -> str | None:
    """The engine's reason a finished game was truncated (``None`` if it was not, or gives none)."""
    return game.truncation_reason if game.truncated else None


@dataclass(frozen=True)
class Job:
    """One game to play: the lineup (agent ``k`` is ``lineup[k]``), its seed and its rotation."""

    env_id: str
    lineup: tuple[str, ...]
    seed: int
    rotation: int
    env_kwargs: tuple[tuple[str, Any], ...] = ()

    def seat_names(self) -> list[str]:
        """The agent name at each seat."""
        names = [""] * len(self.lineup)
        for k, seat in enumerate(seating(len(self.lineup), self.rotation)):
            names[seat] = self.lineup[k]
        return names


def tournament_jobs(
    env_id: str, agent_names: list[str], games: int, seed: int = 0, duplicate: bool = False, **env_kwargs: Any
) -> list[Job]:
    """The ``games`` seat-rotated games of one lineup (deals repeated per rotation with ``duplicate``)."""
    n = len(agent_names)
    if duplicate and games % n:
        raise ValueError(f"--duplicate plays each deal once per rotation: games must be a multiple of {n}, not {games}")
    kwargs = tuple(sorted(env_kwargs.items()))
    jobs = []
    for g in range(games):
        offset, rotation = deal_of(g, n, duplicate)
        jobs.append(Job(env_id, tuple(agent_names), seed + offset, rotation, kwargs))
    return jobs


#: Per process and :func:`play_jobs` call: the env and agents of each lineup, built once.
_TABLES: dict[tuple[str, tuple[str, ...], tuple[tuple[str, Any], ...]], tuple[Any, list[Agent]]] = {}


def play_job(job: Job) -> GameRecord:
    """Play one job (agents and env are built once per lineup and process, then reset per game)."""
    key = (job.env_id, job.lineup, job.env_kwargs)
    if key not in _TABLES:
        env = pirate_envs.make(job.env_id, raw=True, num_players=len(job.lineup), **dict(job.env_kwargs))
        agents = [make_agent(name, job.env_id, seed=k, env=env) for k, name in enumerate(job.lineup)]
        _TABLES[key] = env, agents
    env, agents = _TABLES[key]
    seat_agents: list[Agent] = [agents[0]] * len(agents)
    for k, seat in enumerate(seating(len(agents), job.rotation)):
        seat_agents[seat] = agents[k]
    return play_game(env, seat_agents, job.seed)


def play_jobs(jobs: list[Job], workers: int = 1, progress: bool = False) -> list[GameRecord]:
    """Every job's record, in order; ``workers`` processes; a progress line on stderr if asked.

    The agents are built afresh for each call (an agent file rewritten between calls is reread).
    """
    _TABLES.clear()
    try:
        if workers > 1:
            with multiprocessing.get_context("fork").Pool(workers) as pool:
                return list(_with_progress(pool.imap(play_job, jobs), len(jobs), progress))
        return list(_with_progress(map(play_job, jobs), len(jobs), progress))
    finally:
        _TABLES.clear()


def _with_progress(records: Iterable[GameRecord], total: int, show: bool, every: float = 5.0) -> Iterator[GameRecord]:
    """Pass ``records`` through, writing ``done/total, rate, time left`` to stderr at most every ``every`` s."""
    start = last = time.monotonic()
    for done, record in enumerate(records, 1):
        now = time.monotonic()
        if show and (now - last >= every or done == total):
            rate = done / max(now - start, 1e-9)
            left = (total - done) / rate
            print(f"\r{done}/{total} games, {rate:.2f} games/s, about {left:.0f} s left", end="", file=sys.stderr)
            if done == total:
                print(file=sys.stderr)
            last = now
        yield record


def run_tournament(
    env_id: str,
    agent_names: list[str],
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    workers: int = 1,
    progress: bool = False,
    **env_kwargs: Any,
) -> tuple[list[AgentResult], list[GameRecord]]:
    """Play ``games`` seat-rotated games; results per distinct agent name."""
    jobs = tournament_jobs(env_id, agent_names, games, seed, duplicate, **env_kwargs)
    records = play_jobs(jobs, workers, progress)
    return summarise(list(zip(seat_names(agent_names, records), records)), duplicate), records


def seat_names(agent_names: list[str], records: list[GameRecord]) -> list[list[str]]:
    """The agent name at each seat of each game of `run_tournament`."""
    n = len(agent_names)
    names_by_game = []
    for g in range(len(records)):
        names = [""] * n
        for k, seat in enumerate(seating(n, g)):
            names[seat] = agent_names[k]
        names_by_game.append(names)
    return names_by_game


#: How an agent's intervals are taken (``AgentResult.interval``), by the independent units they are over.
ONE_SEAT_A_GAME = "games, Wilson"
COPIES_PER_GAME = "games, t over per-game shares"
OVER_DEALS = "deals, normal"
#: The note under a results table with copies of an agent at one table.
COPIES_NOTE = (
    "Copies of one agent at a table: their results in one game are correlated, so their intervals are "
    "over games (the mean of the copies' win shares and scores in each game, a Student t interval), not seats."
)


def summarise(games: list[tuple[list[str], GameRecord]], duplicate: bool = False) -> list[AgentResult]:
    """Win rate, mean score (95% intervals) and OpenSkill rating per agent name, pooled over games.

    The intervals treat the games (or, with ``duplicate``, the deals: the games of one lineup
    with one seed) as independent, never the seats: an agent's figure in a game is the mean over
    its seats there (its copies' win shares / copies), since copies' results in one game are
    correlated. An agent with one seat in each game it played gets Wilson's interval over those
    games; one with copies at a table gets a Student t interval over its per-game shares (and
    scores); with ``duplicate``, a normal interval over the per-deal means.
    """
    units: dict[str, dict[Any, list[tuple[float, float]]]] = {}
    for g, (names, record) in enumerate(games):
        unit = (tuple(sorted(names)), record.seed) if duplicate else g
        for seat, name in enumerate(names):
            units.setdefault(name, {}).setdefault(unit, []).append((record.win_shares[seat], record.scores[seat]))
    ratings = rate_games(games)
    results = []
    for name, by_unit in units.items():
        seats = sum(len(held) for held in by_unit.values())
        shares = [sum(w for w, _ in held) / len(held) for held in by_unit.values()]
        scores = [sum(s for _, s in held) / len(held) for held in by_unit.values()]
        if duplicate:
            interval, (p, lo, hi), score = OVER_DEALS, mean_interval(shares), mean_interval(scores)
        elif seats == len(by_unit):
            interval, score = ONE_SEAT_A_GAME, mean_interval(scores)
            p, lo, hi = wilson_interval(sum(shares), len(shares))
        else:
            interval, (p, lo, hi), score = COPIES_PER_GAME, t_interval(shares), t_interval(scores)
        mu, sigma = ratings.get(name, (None, None))
        results.append(
            AgentResult(name, seats, p, max(0.0, lo), min(1.0, hi), *score, mu, sigma, len(by_unit), interval)
        )
    return results


def run_league(
    env_id: str,
    agent_names: list[str],
    players: int,
    games: int,
    seed: int = 0,
    duplicate: bool = False,
    workers: int = 1,
    progress: bool = False,
    **env_kwargs: Any,
) -> tuple[list[AgentResult], list[tuple[list[str], GameRecord]]]:
    """Every combination of ``players`` distinct agents plays ``games`` seat-rotated games.

    Returns the results pooled over all games, and each game's seat names with its record.
    """
    distinct = list(dict.fromkeys(agent_names))
    if not 1 <= players <= len(distinct):
        raise ValueError(f"players must be in 1..{len(distinct)} (the distinct agents), got {players}")
    jobs = [
        job
        for lineup in itertools.combinations(distinct, players)
        for job in tournament_jobs(env_id, list(lineup), games, seed, duplicate, **env_kwargs)
    ]
    records = play_jobs(jobs, workers, progress)
    played = [(job.seat_names(), record) for job, record in zip(jobs, records)]
    return summarise(played, duplicate), played


#: The name of a saved game record: ``game_000000.json`` ...
RECORD_NAME = re.compile(r"game_(\d+)\.json")


def save_games(
    folder: str | Path, env_id: str, played: list[tuple[list[str], GameRecord]], **env_kwargs: Any
) -> list[Path]:
    """One JSON record per game in ``folder``, numbered on after the records already there; the paths.

    ``game_000000.json`` ... in an empty folder; a second run into the same folder continues the
    numbering. No record is ever overwritten (`write_new`), and each appears whole.
    """
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    index = next_record_index(out)
    paths = []
    for names, record in played:
        payload = {
            "env_id": env_id,
            "env_kwargs": {**env_kwargs, "num_players": len(names)},
            "seed": record.seed,
            "actions": record.actions,
            "agents": names,
            "scores": record.scores,
            "win_shares": record.win_shares,
            "truncated": record.truncated,
        }
        text = json.dumps(payload)
        while True:  # a name taken meanwhile (another run into this folder) moves on to the next
            path = out / f"game_{index:06d}.json"
            index += 1
            try:
                write_new(path, text)
                break
            except FileExistsError:
                continue
        paths.append(path)
    return paths


def next_record_index(folder: Path) -> int:
    """One past the highest number of a game record in ``folder`` (0 when there is none)."""
    numbers = [int(m.group(1)) for p in folder.iterdir() if (m := RECORD_NAME.fullmatch(p.name))]
    return max(numbers, default=-1) + 1


def write_new(path: Path, text: str) -> None:
    """Write ``text`` to the new file ``path``, whole; ``FileExistsError`` (nothing written) if it exists.

    The text goes to a temporary file in the same folder that is then hard-linked as ``path``:
    unlike ``os.replace``, a link never replaces a file that is there.
    """
    temp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:12]}.tmp")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.link(temp, path)
    finally:
        temp.unlink(missing_ok=True)


#: The fields every saved game record has: their Python types, and those types in words.
RECORD_FIELDS: dict[str, tuple[type, str]] = {
    "env_id": (str, "a string"),
    "env_kwargs": (dict, "an object"),
    "seed": (int, "an integer"),
    "actions": (list, "a list"),
    "scores": (list, "a list"),
}


def replay(record: dict[str, Any]) -> list[float]:
    """Play a saved game record's actions through the raw env from its seed; the final scores.

    The record is checked as it is replayed: a ``ValueError`` names the fault of a record that
    lacks a field or has one of the wrong type, an action that is not an integer or not legal
    at its step, a game that is over before its last action or not over after it, or final
    scores (and ``win_shares``, ``truncated`` where the record has them) that differ from the
    replayed ones.
    """
    if not isinstance(record, dict):
        raise ValueError(f"a game record is a JSON object, not {type(record).__name__}")
    for name, (kind, words) in RECORD_FIELDS.items():
        if name not in record:
            raise ValueError(f"game record: no {name!r} field; a record has {', '.join(RECORD_FIELDS)}")
        value = record[name]
        if not isinstance(value, kind) or isinstance(value, bool):
            raise ValueError(f"game record: {name}={value!r} must be {words}, not {type(value).__name__}")
    seed, actions, kwargs = record["seed"], record["actions"], record["env_kwargs"]
    where = f"game record of {record['env_id']} seed {seed}"
    if record["env_id"] not in pirate_envs.ENV_IDS:
        raise ValueError(f"{where}: env_id {record['env_id']!r} is not a game; valid ids: {pirate_envs.ENV_IDS}")
    if seed < 0:
        raise ValueError(f"{where}: the seed must be a non-negative integer")
    try:
        env = pirate_envs.make(record["env_id"], raw=True, **kwargs)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{where}: env_kwargs {kwargs}: {error}") from None
    env.reset(seed=seed)
    game = env.game
    for step, action in enumerate(actions):
        if type(action) is not int:
            raise ValueError(f"{where}: action {step} is {action!r}, not an integer")
        if game.done:
            raise ValueError(f"{where}: the game is over after {step} actions, but the record has {len(actions)}")
        try:
            env.step(action)
        except ValueError as error:  # an IllegalActionError: out of range or against the rules
            raise ValueError(f"{where}: action {step}: {error}") from None
    if not game.done:
        raise ValueError(f"{where}: not over after its {len(actions)} actions")
    scores = game.scores().tolist()
    replayed = {"scores": scores, "win_shares": win_shares(game), "truncated": game.truncated}
    for name, value in replayed.items():
        if name in record and record[name] != value:
            raise ValueError(f"{where}: recorded {name} {record[name]!r}, but the replay gives {value!r}")
    return scores


def head_to_head(games: list[tuple[list[str], GameRecord]]) -> dict[str, dict[str, dict[str, float]]]:
    """``matrix[a][b]``: agent ``a``'s win rate (and the number of games) in the games it played with ``b``.

    A name seated several times in one game counts the mean of its seats' win shares.
    """
    totals: dict[str, dict[str, list[float]]] = {}
    for names, record in games:
        share: dict[str, list[float]] = {}
        for seat, name in enumerate(names):
            share.setdefault(name, []).append(record.win_shares[seat])
        for a, shares_a in share.items():
            for b in share:
                if a != b:
                    cell = totals.setdefault(a, {}).setdefault(b, [0.0, 0])
                    cell[0] += sum(shares_a) / len(shares_a)
                    cell[1] += 1
    return {a: {b: {"win_rate": won / n, "games": n} for b, (won, n) in row.items()} for a, row in totals.items()}


def markdown_matrix(matrix: dict[str, dict[str, dict[str, float]]], names: list[str]) -> str:
    """The head-to-head matrix as a markdown table: row agent's win rate against each column agent."""
    lines = ["| win rate of ↓ with → | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    for a in names:
        cells = []
        for b in names:
            cell = matrix.get(a, {}).get(b)
            cells.append("" if cell is None else f"{cell['win_rate']:.3f} ({cell['games']})")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def markdown_table(results: list[AgentResult]) -> str:
    """The results as a markdown table (with a rating column when rated).

    ``seats (games)``: the seats an agent played and the games (or deals) its intervals are
    over; ``CI over``: how they are taken (see `summarise`).
    """
    rated = all(r.rating is not None for r in results)
    lines = [
        "| agent | seats (games) | win rate [95% CI] | mean score [95% CI] | CI over |"
        + (" rating μ ± σ |" if rated else ""),
        "|---|---|---|---|---|" + ("---|" if rated else ""),
    ]
    for r in results:
        rating = f" {r.rating:.1f} ± {r.rating_sigma:.1f} |" if rated else ""
        lines.append(
            f"| {r.agent} | {r.seats_played} ({r.games}) | {r.win_rate:.3f} [{r.win_low:.3f}, {r.win_high:.3f}] "
            f"| {r.mean_score:.1f} [{r.score_low:.1f}, {r.score_high:.1f}] | {r.interval} |" + rating
        )
    return "\n".join(lines)


#: The most games one command plays (over every pairing of a league): their records stay in memory.
MAX_GAMES = 1_000_000
#: The largest game seed: every seed stays a signed 64-bit integer (numpy, JSON readers).
MAX_SEED = 2**63 - 1


def available_cpus() -> int:
    """The CPUs this process may run on (its affinity where the system tells it, else the CPU count)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def env_options(args: EvalArgs) -> dict[str, Any]:
    """The env arguments of ``--env-kwargs`` (``key=value`` words, values read as Python literals)."""
    return parse_env_kwargs(args.env_kwargs) if args.env_kwargs else {}


def check_env_options(args: EvalArgs, players: int) -> dict[str, Any]:
    """The ``--env-kwargs`` of ``args``; ``ValueError`` (one line) unless they make a ``players``-seat env."""
    options = env_options(args)  # its errors name --env-kwargs
    try:
        if "num_players" in options:
            raise ValueError("the player count comes from --players or --agents, not num_players")
        json.dumps(options)  # the game records hold them
        pirate_envs.make(args.env_id, raw=True, **options, num_players=players)
    except (TypeError, ValueError) as error:
        raise ValueError(f"--env-kwargs {' '.join(args.env_kwargs)}: {error}") from None
    return options


def check_writable(flag: str, folder: str) -> None:
    """``ValueError`` (one line) unless ``folder`` exists or can be made, and takes a file (a probe, removed)."""
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-probe.", suffix=".tmp")
        os.close(fd)
        os.unlink(probe)
    except OSError as error:
        raise ValueError(f"{flag} {folder}: cannot write there ({error.strerror or error})") from None


#: ``NAMEx<k>`` in ``--agents``: ``k`` copies of the agent ``NAME`` (``heuristicx5``).
COPIES = re.compile(r"(.+)x([1-9][0-9]*)")


def expand_copies(names: list[str], max_copies: int) -> list[str]:
    """``names`` with each ``NAMEx<k>`` written out as ``k`` copies of ``NAME``.

    ``ValueError`` (one line) for more than ``max_copies`` copies (the largest table).
    """
    lineup = []
    for name in names:
        match = COPIES.fullmatch(name)
        if match is None:
            lineup.append(name)
            continue
        copies = int(match.group(2))
        if copies > max_copies:
            raise ValueError(f"--agents {name}: at most {max_copies} copies, the largest table")
        lineup += [match.group(1)] * copies
    return lineup


def table_lineup(args: EvalArgs) -> tuple[list[str], int]:
    """The agent names of ``--agents`` (copies written out) and the seats of a table.

    ``--players`` 0 seats one per name. More seats than names: the last name fills the rest
    (``--agents ppo:x heuristic --players 6``: ``ppo:x`` and five heuristics). Fewer: a league.
    """
    names = expand_copies(args.agents, max(pirate_envs.player_counts(args.env_id)))
    players = args.players or len(names)
    return names + [names[-1]] * (players - len(names)), players


def lineup_words(lineup: list[str]) -> str:
    """A lineup in the ``--agents`` spelling, copies counted: ``ppo:skull_king_v0 heuristicx5``."""
    counts = Counter(lineup)
    return " ".join(name if counts[name] == 1 else f"{name}x{counts[name]}" for name in counts)


def check_extras(args: EvalArgs) -> None:
    """``ValueError`` (one line naming the extra) unless the modules the command needs are installed:
    openskill (the ratings) and matplotlib (``results.png``, with ``--out``)."""
    needs = ["openskill"] + ["matplotlib"] * bool(args.out)
    try:
        for module in needs:
            require(module, "train")
    except MissingExtra as error:
        raise ValueError(str(error)) from None


def check_args(args: EvalArgs) -> None:
    """``ValueError`` (one line) for arguments that cannot make a tournament; runs before any game.

    The output folders are checked last (made, and a file written and removed in each), so a
    refused command leaves none behind.
    """
    check_extras(args)
    check_env_id(args.env_id)
    names, players = table_lineup(args)
    distinct = len(dict.fromkeys(names))
    if players < len(names) and players > distinct:
        raise ValueError(f"--players {args.players}: a league seats distinct agents, at most {distinct} here")
    if args.duplicate and args.games % players:
        raise ValueError(f"--duplicate plays each deal once per rotation: --games must be a multiple of {players}")
    check_players(args.env_id, players, "--players" if args.players else "--agents (one seat each)")
    options = check_env_options(args, players)
    check_agents(names, args.env_id, players, "--agents", options)
    cpus = available_cpus()
    if args.workers > cpus:
        raise ValueError(f"--workers {args.workers}: at most the {cpus} CPUs this process may use")
    lineups = math.comb(distinct, players) if players < len(names) else 1
    if args.games * lineups > MAX_GAMES:
        per = f" x {lineups} pairings" if lineups > 1 else ""
        raise ValueError(f"--games {args.games}{per}: at most {MAX_GAMES:,} games in one command")
    last_seed = args.seed + deal_of(args.games - 1, players, args.duplicate)[0]
    if last_seed > MAX_SEED:
        raise ValueError(f"--seed {args.seed}: the games' seeds run to {last_seed}, above the largest seed {MAX_SEED}")
    for flag, folder in (("--save-games", args.save_games), ("--out", args.out)):
        if folder is not None:
            check_writable(flag, folder)


def evaluate(args: EvalArgs) -> tuple[list[AgentResult], list[GameRecord], list[tuple[list[str], GameRecord]]]:
    """Play the tournament (or league) of ``args``: results with ratings, the records, and each game's
    seat names with its record (for `head_to_head`)."""
    names, players = table_lineup(args)
    options = {"duplicate": args.duplicate, "workers": args.workers, "progress": args.progress}
    env_kwargs = env_options(args)
    if players < len(names):
        results, played = run_league(args.env_id, names, players, args.games, args.seed, **options, **env_kwargs)
        return results, [record for _, record in played], played
    results, records = run_tournament(args.env_id, names, args.games, args.seed, **options, **env_kwargs)
    return results, records, list(zip(seat_names(names, records), records))


def main(argv: list[str] | None = None) -> list[AgentResult]:
    args = parse_args(EvalArgs, argv, epilog=games_epilog(), check=check_args)
    results, records, played = evaluate(args)
    truncated = sum(r.truncated for r in records)
    reasons = Counter(r.truncation_reason or "turn limit" for r in records if r.truncated)
    lineup, players = table_lineup(args)
    mode = f"league of {players} players" if players < len(lineup) else f"seats rotated: {lineup_words(lineup)}"
    if args.duplicate:
        mode += ", duplicate deals (intervals over deals)"
    header = f"{args.env_id}: {len(records)} games, {mode}, seed {args.seed}, {truncated} truncated"
    if truncated:
        header += " (" + ", ".join(f"{reason}: {k}" for reason, k in sorted(reasons.items())) + ")"
    table = markdown_table(results)
    if any(r.interval == COPIES_PER_GAME for r in results):
        table += "\n\n" + COPIES_NOTE
    matrix = head_to_head(played)
    names = [r.agent for r in results]
    if len(names) > 1:
        table += "\n\nHead to head:\n\n" + markdown_matrix(matrix, names)
    print(header)
    print(table)
    if args.save_games:
        paths = save_games(args.save_games, args.env_id, played, **env_options(args))
        names = f" ({paths[0].name} to {paths[-1].name})" if paths else ""
        print(f"wrote {len(paths)} game records to {args.save_games}{names}")
    if args.out:
        from experiments.plots import tournament_chart

        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        write_atomically(out / "results.md", f"{header}\n\n{table}\n")
        payload = {
            "args": asdict(args),
            "lineup": lineup,
            "results": [asdict(r) for r in results],
            "truncated": truncated,
            "truncation_reasons": reasons,
            "head_to_head": matrix,
        }
        write_atomically(out / "results.json", json.dumps(payload, indent=2))
        chance = 1 / players
        tournament_chart([asdict(r) for r in results], out / "results.png", header, chance=chance)
        print(f"wrote {out / 'results.md'}, results.json and results.png")
    return results


if __name__ == "__main__":
    main()
