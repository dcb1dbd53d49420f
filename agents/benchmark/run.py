"""Playing the protocol: every line-up's duplicate games on the batched engine, and its figures.

One batch (`Lineup.chunk_deals`) of a line-up is one `pirate_envs.vector.VectorEnv` of
``deals x players`` games: game ``g`` plays deal ``g // players`` in rotation ``g % players``
(candidate at seat ``rotation``, `agents.evaluation.games.seating`), each game's stream set to
its deal's state, so the ``players`` games of a deal get the same cards and the same stream of
dice. The agents move in groups, one ``act_batch`` per agent over every game where it is on turn
(as `agents.selfplay.batched_vec_env` moves opponents); an agent with no batched form (``mcts``)
plays through `agents.batched.one_game` (reference engines kept in step, the agent asked row by
row). Batches are independent (each seeds its agents from the line-up
and its index), so ``workers`` processes (or a Ray cluster's tasks, `agents.benchmark.ray_batches`) share them
out and the figures stay the same, and a run
given a folder for its batches (`agents.benchmark.batches`) keeps each one as it finishes and, resumed,
plays only those not kept.

`run_protocol` plays every line-up and returns the results document (`summarise_lineup` per
line-up: win rate with Wilson's interval, mean score, the raw and control-variate intervals over
deals, the OpenSkill rating); `write_results` writes ``results.json`` and ``results.md``.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
import pirate_envs.vector
from agents.base import Agent
from agents.batched import BatchedAgent, has_batched_form, make_batched_agent
from agents.batched.one_game import EnginesInStep, OneGameAgents
from agents.benchmark import control_variates
from agents.benchmark.batches import ARRAYS, COUNTERS, BatchStore
from agents.benchmark.bounds import bounded_win
from agents.benchmark.candidate import AgentFactory, Candidate, resolve
from agents.benchmark.protocol import (
    DEALS_SHA256,
    MASTER_SEED,
    VERSION,
    Lineup,
    deal_states,
    label,
    lineups,
    opponent_agent,
    table_sizes,
    title,
)
from agents.benchmark.provenance import (
    MACHINE_FIELDS,
    agent_record,
    candidate_record,
    code_sha256,
    cpu_seconds,
    git_commit,
    machine_record,
    provenance,
    public_name,
)
from agents.evaluation.games import GameRecord, seating
from agents.evaluation.stats import wilson_interval
from agents.evaluation.summary import summarise
from agents.policy.blas import one_blas_thread
from agents.processes import in_processes
from pirate_envs.core.errors import is_integer

#: The candidate's name in the games' seat names (the opponents keep theirs, so a candidate that
#: is also an opponent is told apart in the ratings).
CANDIDATE = "candidate"


@dataclass
class LineupGames:
    """The games of one line-up: per game (deal-major, rotation-minor) and per seat."""

    lineup: Lineup
    scores: np.ndarray  # (G, n) final scores
    shares: np.ndarray  # (G, n) win shares (1/w for w winners; 0 when truncated)
    truncated: np.ndarray  # (G,)
    luck: np.ndarray | None  # (G, n) the control variates' luck per seat, or None for the game
    candidate_moves: int = 0
    candidate_seconds: float = 0.0  # CPU seconds in the candidate's act calls
    wall_seconds: float = 0.0
    decisions: int = 0
    cpu_seconds: float = 0.0  # CPU seconds of the process that played the batches
    batches: int = 1
    #: Per batch read back from a kept batch file instead of played: the machine that played it (its
    #: `machine_record`; ``None``: not recorded, a file of older code) and its CPU seconds.
    reused_on: tuple[tuple[dict[str, Any] | None, float], ...] = ()
    #: Per batch played as a Ray task (`agents.benchmark.ray_batches`): the machine that played it and its
    #: CPU seconds (which this process's clock does not count).
    remote_on: tuple[tuple[dict[str, Any] | None, float], ...] = ()

    @property
    def reused_batches(self) -> int:
        """How many of the batches were read back instead of played."""
        return len(self.reused_on)

    @property
    def reused_cpu_seconds(self) -> float:
        """The CPU seconds the batches read back took when they were played."""
        return sum(cpu for _, cpu in self.reused_on)

    @property
    def candidate_seat(self) -> np.ndarray:
        """The candidate's seat in each game (`duplicate_layout`)."""
        n = self.lineup.players
        return duplicate_layout(np.zeros(len(self.truncated) // n, dtype=np.uint64), n)[1]


def _one_game_agent(
    candidate: Candidate, env_id: str, raw: Any, engines: EnginesInStep, n: int, seed: int
) -> OneGameAgents:
    """``candidate`` as a batched agent that asks one one-game agent per game slot (built lazily)."""
    built: dict[int, Agent] = {}

    def agent_of(game: int) -> Agent:
        if game not in built:
            built[game] = candidate.make(env_id, seed * 1_000_003 + game, raw)
        return built[game]

    return OneGameAgents(candidate.name, agent_of, raw, engines, n)


def _batched_or_one_game(
    candidate: Candidate, env_id: str, raw: Any, engines: EnginesInStep, num_games: int, n: int, seed: int
) -> BatchedAgent | OneGameAgents:
    """The batched form of a registry name, else the one-game form through `agents.batched.one_game`."""
    if candidate.registry:
        try:
            return make_batched_agent(candidate.name, env_id, raw, num_games * n, seed=seed)
        except ValueError:
            pass
    return _one_game_agent(candidate, env_id, raw, engines, n, seed)


def _reset_to_deals(venv: pirate_envs.vector.VectorEnv, states: np.ndarray) -> None:
    """Start every game of ``venv`` from its own stream state (``states``: one ``uint64`` per game).

    The duplicate format needs several games on one stream: ``reset(streams=...)``.
    """
    venv.reset(streams=np.ascontiguousarray(states, dtype=np.uint64))


def duplicate_layout(deals: np.ndarray, players: int) -> tuple[np.ndarray, np.ndarray]:
    """Per game of a batch: its stream state and the candidate's seat.

    Game ``g`` plays deal ``g // players`` in rotation ``g % players``: the candidate (agent 0 of
    the line-up) sits at seat ``seating(players, rotation)[0]``, the opponents' copies at the others.
    """
    games = np.arange(len(deals) * players)
    seats = np.array([seating(players, rotation)[0] for rotation in range(players)])
    return np.repeat(deals, players), seats[games % players]


def play_chunk(lineup: Lineup, candidate: str | Candidate, deals: np.ndarray, chunk_index: int) -> LineupGames:
    """Play the duplicate games of ``deals`` (stream states) for ``lineup``; see the module docstring."""
    candidate = resolve(candidate)
    env_id, n = lineup.env_id, lineup.players
    games = len(deals) * n
    start, start_cpu = time.perf_counter(), time.process_time()
    venv = pirate_envs.vector.make(env_id, games, seed=0, num_players=n)
    raw = pirate_envs.make(env_id, raw=True, num_players=n)
    engines = EnginesInStep(venv)
    seed = (chunk_index + 1) * 7919 + n
    opponent = Candidate(opponent_agent(lineup.opponent, env_id))
    roles = [
        _batched_or_one_game(candidate, env_id, raw, engines, games, n, seed),
        _batched_or_one_game(opponent, env_id, raw, engines, games, n, seed + 1),
    ]
    rows = np.arange(games)
    states, candidate_seat = duplicate_layout(deals, n)
    role = np.ones((games, n), dtype=np.int64)  # role[g, seat]: 0 candidate, 1 opponent
    role[rows, candidate_seat] = 0
    _reset_to_deals(venv, states)
    slots = (rows[:, None] * n + np.arange(n)).ravel()
    for index, agent in enumerate(roles):
        agent.reset_games(slots)
        if isinstance(agent, OneGameAgents):
            plays = (role == index).ravel()
            agent.start(slots[plays], slots[plays] + seed * 1_000_003)
    if any(isinstance(agent, OneGameAgents) for agent in roles):
        engines.start(rows)
    ended = np.zeros(games, dtype=bool)
    shares = np.zeros((games, n))
    truncated = np.zeros(games, dtype=bool)
    actions = np.zeros(games, dtype=np.int64)
    result = LineupGames(lineup, np.zeros((games, n)), shares, truncated, None)
    while not ended.all():
        live = np.flatnonzero(~ended)
        seats = venv.current_player[live]
        chosen = role[live, seats]
        observation, mask = venv.observation, venv.action_mask
        for index, agent in enumerate(roles):
            group = chosen == index
            if not group.any():
                continue
            rows_of = live[group]
            tick = time.process_time()
            actions[rows_of] = agent.act_batch(rows_of * n + seats[group], observation[rows_of], mask[rows_of])
            if index == 0:
                result.candidate_seconds += time.process_time() - tick
                result.candidate_moves += int(group.sum())
        result.decisions += live.size
        active = ~ended
        venv.step(actions, active=active)
        engines.follow(actions, active)
        now_ended = active & (venv.terminated | venv.truncated)
        if now_ended.any():
            done = np.flatnonzero(now_ended)
            rewards = venv.rewards[done]
            winners = (rewards >= rewards.max(axis=1, keepdims=True)) & venv.terminated[done, None]
            shares[done] = winners / np.maximum(winners.sum(axis=1, keepdims=True), 1)
            truncated[done] = venv.truncated[done]
            ended |= now_ended
    result.scores = venv.scores(rows)
    uniform = (role == 1) & (lineup.opponent == "random")  # seats whose decisions have a known law
    result.luck = control_variates.seat_luck(venv, rows, uniform)
    result.wall_seconds = time.perf_counter() - start
    result.cpu_seconds = time.process_time() - start_cpu
    return result


def _batch_fields(part: LineupGames) -> dict[str, Any]:
    """What a batch file keeps of a played batch (`agents.benchmark.batches`)."""
    return {name: getattr(part, name) for name in ARRAYS + COUNTERS}


def _kept_batch(lineup: Lineup, fields: dict[str, Any]) -> LineupGames:
    """A batch read back from its file, counted as reused."""
    counters = {name: fields[name] for name in COUNTERS}
    for name in ("candidate_moves", "decisions"):
        counters[name] = int(counters[name])
    arrays = [fields[name] for name in ARRAYS]
    return LineupGames(lineup, *arrays, **counters, reused_on=((fields["machine"], counters["cpu_seconds"]),))


#: The candidates of the `play_lineups` call in progress: worker processes are forked with it, so
#: a candidate (an agent object or a factory of the user's) never has to be pickled.
_CANDIDATES: list[Candidate] = []


def _play_job(job: tuple[int, tuple[Lineup, int, np.ndarray, int]]) -> tuple[int, LineupGames]:
    """``(number, play_chunk(...))`` of ``(number, arguments)``: results come back in any order."""
    number, (lineup, candidate, deals, chunk) = job
    return number, play_chunk(lineup, _CANDIDATES[candidate], deals, chunk)


def _one_game_play(lineup: Lineup, candidate: Candidate) -> bool:
    """Whether an agent of this line-up plays through the one-game path (its batches are the slow ones)."""
    opponent = has_batched_form(opponent_agent(lineup.opponent, lineup.env_id), lineup.env_id)
    return not (opponent and candidate.registry and has_batched_form(candidate.name, lineup.env_id))


def play_lineups(
    plan: list[tuple[Lineup, str | Candidate]],
    workers: int = 1,
    progress: Callable[[str], None] | None = None,
    store: BatchStore | None = None,
    ray: str | None = None,
) -> list[LineupGames]:
    """Every ``(line-up, candidate)`` of ``plan``, games in deal order, in ``workers`` processes.

    The batches (`Lineup.chunk_deals`) of all the line-ups share one pool, those of the slow
    line-ups (an agent with no batched form) handed out first, so that a line-up of one batch
    plays beside the others instead of after them. The figures do not depend on ``workers``.
    ``progress`` hears one line per finished line-up. With a ``store``, a batch kept there is read
    back instead of played, and every batch played is kept there as it finishes. With ``ray`` (an address,
    `agents.benchmark.ray_batches`) the batches are Ray tasks instead (``workers``: a local instance's CPUs).
    """
    candidates = [resolve(candidate) for _, candidate in plan]
    jobs: list[tuple[int, tuple[Lineup, int, np.ndarray, int]]] = []
    firsts: list[int] = []  # each job's first deal
    for index, (lineup, _) in enumerate(plan):
        states = deal_states(lineup.deals)
        size = lineup.chunk_deals(candidates[index].name)
        jobs += [(index, (lineup, index, states[i : i + size], i // size)) for i in range(0, len(states), size)]
        firsts += list(range(0, len(states), size))
    slow = [_one_game_play(lineup, candidates[index]) for index, (lineup, _) in enumerate(plan)]
    here = machine_record()  # where the batches played now are played
    order = sorted(range(len(jobs)), key=lambda j: not slow[jobs[j][0]])
    remaining = Counter(index for index, _ in jobs)  # batches still to play, per line-up
    parts: dict[int, LineupGames] = {}

    def finished(results: Any, played: bool = True) -> None:
        for job, part in results:
            parts[job] = part
            index, (lineup, _, deals, batch) = jobs[job]
            if played and store is not None:
                machine = part.remote_on[0][0] if part.remote_on else here
                store.save(lineup, batch, firsts[job], len(deals), _batch_fields(part), machine)
            remaining[index] -= 1
            if progress and not remaining[index]:
                progress(f"{lineup.env_id} {candidates[index].name}: {lineup.key}, {lineup.deals} deals played")

    if store is not None:
        kept = []
        for job, (_, (lineup, _, deals, batch)) in enumerate(jobs):
            fields = store.load(lineup, batch, firsts[job], len(deals))
            if fields is not None:
                kept.append((job, _kept_batch(lineup, fields)))
        finished(kept, played=False)
        if progress and kept:
            progress(f"read back {len(kept)} of {len(jobs)} batches kept in {store.folder}")
    numbered = [(j, jobs[j][1]) for j in order if j not in parts]
    _CANDIDATES[:] = candidates
    with one_blas_thread():
        if ray is not None and numbered:
            from agents.benchmark.ray_batches import in_ray

            with closing(in_ray(numbered, candidates, ray, code_sha256(), workers, _kept_text(store))) as played:
                finished(played)
        elif workers > 1 and len(numbered) > 1:
            with closing(_in_processes(numbered, min(workers, len(numbered)), store)) as played:
                finished(played)  # an error here shuts the workers down at once (closing)
        else:
            finished(map(_play_job, numbered))
    return [
        _concatenate(lineup, [parts[j] for j in range(len(jobs)) if jobs[j][0] == index])
        for index, (lineup, _) in enumerate(plan)
    ]


def _in_processes(
    numbered: list[tuple[int, tuple[Lineup, int, np.ndarray, int]]], workers: int, store: BatchStore | None
) -> Iterator[tuple[int, LineupGames]]:
    """`_play_job` of every job in ``workers`` forked processes, as each finishes (`agents.processes`: a
    worker that dies stops the run with `WorkerDied`; a run stopped early starts no further batch)."""
    return in_processes(_play_job, numbered, workers, ordered=False, playing="a batch", kept=_kept_text(store))


def _kept_text(store: BatchStore | None) -> str:
    """What a run stopped by a dead worker keeps, and how it goes on."""
    if store is None:
        return "nothing was kept (no --out)"
    return f"the batches finished are kept in {store.folder}: the same command with --resume goes on"


def play_lineup(lineup: Lineup, candidate: str, workers: int = 1) -> LineupGames:
    """Every deal of ``lineup`` in ``workers`` processes; games in deal order (`play_lineups`)."""
    return play_lineups([(lineup, candidate)], workers)[0]


def _concatenate(lineup: Lineup, parts: list[LineupGames]) -> LineupGames:
    luck = None if parts[0].luck is None else np.concatenate([p.luck for p in parts])  # type: ignore[misc]
    return LineupGames(
        lineup,
        np.concatenate([p.scores for p in parts]),
        np.concatenate([p.shares for p in parts]),
        np.concatenate([p.truncated for p in parts]),
        luck,
        sum(p.candidate_moves for p in parts),
        sum(p.candidate_seconds for p in parts),
        sum(p.wall_seconds for p in parts),
        sum(p.decisions for p in parts),
        sum(p.cpu_seconds for p in parts),
        sum(p.batches for p in parts),
        tuple(entry for p in parts for entry in p.reused_on),
        tuple(entry for p in parts for entry in p.remote_on),
    )


def summarise_lineup(played: LineupGames) -> dict[str, Any]:
    """The figures of one line-up (see the module docstring); deterministic apart from ``compute``."""
    lineup, n = played.lineup, played.lineup.players
    rows = np.arange(len(played.truncated))
    seat = played.candidate_seat
    share = played.shares[rows, seat]
    win, low, high = wilson_interval(float(share.sum()), len(share))
    estimates = control_variates.estimates(played.shares, played.scores, played.luck, seat, n)
    for kind in ("raw", "corrected"):  # a win rate lies in [0, 1] (agents.benchmark.bounds)
        bounded = bounded_win(estimates["win"][kind], len(share) // n)
        estimates["win"][kind] = bounded["interval"]
        estimates["win"][f"{kind}_clipped_from"] = bounded["clipped_from"]
        estimates["win"][f"{kind}_wilson"] = bounded["wilson"]
    opponent = public_name(opponent_agent(lineup.opponent, lineup.env_id))
    named = [
        (
            [CANDIDATE if s == seat[g] else opponent for s in range(n)],
            GameRecord(played.scores[g].tolist(), played.shares[g].tolist(), bool(played.truncated[g])),
        )
        for g in rows
    ]
    rating = next(r for r in summarise(named, duplicate=False) if r.agent == CANDIDATE)
    return {
        "lineup": lineup.key,
        "players": n,
        "opponent": opponent,
        "deals": lineup.deals,
        "games": len(share),
        "truncated": int(played.truncated.sum()),
        "win_rate": [win, low, high],
        "chance": 1.0 / n,
        "mean_score": estimates["score"]["raw"],
        "rating": [rating.rating, rating.rating_sigma],
        "estimates": estimates,
        "compute": {
            "candidate_moves": played.candidate_moves,
            "candidate_cpu_us_per_move": 1e6 * played.candidate_seconds / max(played.candidate_moves, 1),
            "wall_seconds": played.wall_seconds,
            "decisions": played.decisions,
        },
    }


@dataclass
class ProtocolRun:
    """What to run: the candidate (a name, an `Agent` or a factory, `agents.benchmark.candidate`), the
    game, its table sizes, the deals per line-up and the protocol version."""

    env_id: str
    candidate: str | Agent | AgentFactory | Candidate
    players: tuple[int, ...] = ()
    deals: int | None = None
    workers: int = 1
    opponents: tuple[str, ...] = ()
    progress: Callable[[str], None] | None = field(default=None, repr=False)
    version: int = VERSION
    #: a folder for the run's finished batches (`agents.benchmark.batches`); ``None``: none kept
    batches: str | Path | None = None
    #: read back the batches kept in ``batches`` by an earlier, stopped run of the same run (else
    #: the folder's batches are deleted first)
    resume: bool = False
    #: the command line that asked for the run (recorded in its provenance; ``None``: the Python API)
    command: str | None = None
    #: a folder of committed results files to rank the run among (`agents.benchmark.rank`); ``None``: no rank
    rank_against: str | Path | None = None
    #: play the batches as tasks on the Ray cluster at this address (`agents.benchmark.ray_batches`;
    #: ``"local"``: an instance of ``workers`` CPUs for this run); ``None``: here, in ``workers`` processes
    ray: str | None = None


def reduction(run: ProtocolRun, played: list[Lineup]) -> dict[str, Any] | None:
    """What a reduced run left out, exactly (``None`` for a full run): the first-N deals of the published
    list each line-up played, and the table sizes and line-ups chosen."""
    if run.deals is None and not run.opponents and not run.players:
        return None
    return {
        "deals": {
            lineup.key: f"the first {lineup.deals} of the published list (deals 0-{lineup.deals - 1})"
            for lineup in played
        },
        "players": list(run.players) or None,
        "opponents": list(run.opponents) or None,
    }


def check_run(run: ProtocolRun) -> None:
    """``ValueError`` naming the field for a game, table size or worker count that cannot make the run."""
    counts = pirate_envs.player_counts(run.env_id)
    for players in run.players:
        if players not in counts:
            raise ValueError(f"players={players!r} is not valid; {run.env_id} plays {counts[0]}-{counts[-1]} players")
    if not is_integer(run.workers) or run.workers < 1:
        raise ValueError(f"workers={run.workers!r} is not valid; expected an integer of at least 1")
    if run.ray not in (None, "local") and run.workers != 1:
        raise ValueError(f"workers={run.workers!r} with ray={run.ray!r}: the cluster's CPUs play (workers: 'local')")


def run_protocol(run: ProtocolRun) -> dict[str, Any]:
    """Play every line-up of ``run`` and return the results document (JSON-ready), provenance included."""
    check_run(run)
    start, commit, code = cpu_seconds(), git_commit(), code_sha256()  # the code that plays, as the run starts
    candidate = resolve(run.candidate)
    sizes = run.players or table_sizes(run.env_id, candidate)
    plan = lineups(run.env_id, sizes, run.deals, run.opponents or None, run.version)
    record = candidate_record(candidate)  # hashes the candidate's file: once
    store = None if run.batches is None else batch_store(run, record, code)
    played = play_lineups([(lineup, candidate) for lineup in plan], run.workers, run.progress, store, run.ray)
    results = [summarise_lineup(games) for games in played]
    opponents = sorted({opponent_agent(lineup.opponent, run.env_id) for lineup in plan})
    reused_cpu = sum(games.reused_cpu_seconds for games in played)
    pinned = opponent_fingerprints(run, plan)
    remote = [entry for games in played for entry in games.remote_on]
    origin = provenance(cpu_seconds() - start + reused_cpu + sum(cpu for _, cpu in remote), commit, code)
    origin["command"] = run.command
    if remote:  # batches played as Ray tasks: their machines and CPU seconds
        origin["ray"] = {"batches": len(remote), "machines": machine_tally(remote)}
    reused = sum(games.reused_batches for games in played)
    if reused:  # the CPU seconds above count the earlier run's batches too
        origin["resumed"] = {
            "batches_reused": reused,
            "batches": sum(games.batches for games in played),
            "cpu_seconds_reused": round(reused_cpu, 1),
            "machines": reused_machines(played),
        }
    document = {
        "protocol": label(run.version),
        "env_id": run.env_id,
        "candidate": public_name(candidate.name),
        "full_protocol": reduction(run, plan) is None,
        "reduced": reduction(run, plan),
        "control_variate": control_variates.describe(run.env_id),
        "agents": {"candidate": record, "opponents": [agent_record(name) for name in opponents]},
        "deals": {"master_seed": MASTER_SEED, "sha256": DEALS_SHA256},
        **pinned,
        "provenance": origin,
        "lineups": results,
    }
    if run.rank_against is not None:
        from agents.benchmark.pages import load_documents
        from agents.benchmark.rank import rank

        committed = [d for documents in load_documents(run.rank_against).values() for d in documents]
        document["rank"] = rank(document, committed)
    return document


def opponent_fingerprints(run: ProtocolRun, plan: list[Lineup]) -> dict[str, Any]:
    """v3's ``deal_plan``, the ``fingerprints`` of the opponents at the table sizes played (computed now) and
    their ``fingerprint_differences`` from the package's (`agents.benchmark.fingerprint`); ``{}`` for v2."""
    from agents.benchmark.fingerprint import compare, deal_plan, fingerprint, package_data

    if run.version != VERSION:
        return {}
    package = package_data(run.env_id)
    fingerprints: dict[str, dict[str, Any]] = {}
    differences = []
    for lineup in plan:
        now = fingerprint(opponent_agent(lineup.opponent, run.env_id), run.env_id, lineup.players)
        fingerprints.setdefault(lineup.opponent, {})[str(lineup.players)] = now
        recorded = package["fingerprints"].get(lineup.opponent, {}).get(str(lineup.players))
        difference = "not in the package" if recorded is None else compare(recorded, now, run.env_id)
        differences += [] if difference is None else [difference]
    plan_now = deal_plan(run.env_id)
    if plan_now != package["deal_plan"]:
        differences.append(f"the deal plan of {run.env_id} differs from the package's")
    return {"deal_plan": plan_now, "fingerprints": fingerprints, "fingerprint_differences": differences}


def reused_machines(played: list[LineupGames]) -> list[dict[str, Any]]:
    """Where the batches read back were played: per machine (``None``: not recorded in their files) its
    batches and their CPU seconds, most batches first."""
    return machine_tally([entry for games in played for entry in games.reused_on])


def machine_tally(entries: list[tuple[dict[str, Any] | None, float]]) -> list[dict[str, Any]]:
    """Per machine of ``(machine, CPU seconds)`` batch entries: its batches and CPU seconds, most batches first."""
    tally: dict[str, dict[str, Any]] = {}  # by the machine's JSON: a record is not hashable
    for machine, cpu in entries:
        key = json.dumps(machine, sort_keys=True)
        entry = tally.setdefault(key, {"machine": machine, "batches": 0, "cpu": 0.0})
        entry["batches"] += 1
        entry["cpu"] += cpu
    return [
        {"machine": entry["machine"], "batches": entry["batches"], "cpu_seconds": round(entry["cpu"], 1)}
        for entry in sorted(tally.values(), key=lambda entry: -entry["batches"])
    ]


def batch_store(run: ProtocolRun, candidate: dict[str, Any], code: str) -> BatchStore:
    """The run's `BatchStore` in ``run.batches`` (``candidate``: its `candidate_record`; ``code``: the playing
    code's `code_sha256`), emptied first unless ``run.resume``."""
    identity = {
        "protocol": title(run.version),
        "deals_sha256": DEALS_SHA256,
        "env_id": run.env_id,
        "candidate": candidate,
        "code_sha256": code,
    }
    store = BatchStore(Path(run.batches), json.loads(json.dumps(identity)))  # type: ignore[arg-type]
    if not run.resume:
        store.clear()
    return store


def interval_text(triple: list[float | None], digits: int = 3) -> str:
    """``mean [low, high]`` (``mean [—]`` where the interval is undefined: one deal)."""
    mean, low, high = triple
    if low is None or high is None:
        return f"{mean:.{digits}f} [—]"
    return f"{mean:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


#: The line of a run with fewer deals, table sizes or line-ups than the protocol's.
REDUCED = (
    "Reduced run (fewer deals, table sizes or line-ups than the protocol): each line-up played the first N deals "
    "of the published list, deals 0 to N-1 (N: the deals column); comparable figure for figure only with runs "
    "of the same version on the same deals, not with full results."
)


def provenance_text(document: dict[str, Any]) -> str:
    """One line: package version, commit, date, CPU time and the candidate's file hash."""
    origin = document["provenance"]
    git = origin["git"]
    commit = "no checkout" if git is None else git["commit"][:12] + (" (modified)" if git["dirty"] else "")
    agent = document["agents"]["candidate"]
    file = "" if agent["sha256"] is None else f", file {agent['file']} sha256 {agent['sha256'][:16]}"
    command = "" if not origin.get("command") else f"`{origin['command']}`; "
    return (
        command + f"pirate-envs {origin['package_version']}, commit {commit}, {origin['date']}, "
        f"{origin['cpu_seconds'] / 3600:.2f} CPU-hours{file}; deals sha256 {document['deals']['sha256'][:16]}."
        + _resumed_text(origin)
    )


def _resumed_text(origin: dict[str, Any]) -> str:
    """`` Resumed: ...`` of a run that read batches back (where they were played), else ``""``."""
    resumed = origin.get("resumed")
    if not resumed:
        return ""
    here = {key: origin.get(key) for key in MACHINE_FIELDS}  # the machine of the run's last sitting
    elsewhere = [entry for entry in resumed.get("machines", []) if entry["machine"] != here]
    text = f" Resumed: {resumed['batches_reused']} of its {resumed['batches']} batches read back from earlier sittings"
    if elsewhere:
        batches = sum(entry["batches"] for entry in elsewhere)
        cpu = sum(entry["cpu_seconds"] for entry in elsewhere)
        text += (
            f", {batches} of them ({cpu:,.0f} CPU-s) played on another machine or with other libraries, or not "
            "recorded (`provenance.resumed.machines`)"
        )
    return text + "."


def _ratio_text(ratio: float | None) -> str:
    return "—" if ratio is None else f"{ratio:.2f}"


def win_text(win: dict[str, Any], kind: str) -> str:
    """A win-rate estimate over deals (``raw`` or ``corrected``): `interval_text`, ``*`` after a mean clipped
    into [0, 1] and ``†`` after a Wilson interval (`agents.benchmark.bounds`)."""
    mean, *bounds = interval_text(win[kind]).split(" ", 1)
    marks = ("*" if win.get(f"{kind}_clipped_from") is not None else "") + ("†" if win.get(f"{kind}_wilson") else "")
    return f"{mean}{marks} {bounds[0]}"


def fingerprint_text(document: dict[str, Any]) -> str:
    """One line: whether the run's opponents played as the package's fingerprints say (v3 runs)."""
    if "fingerprints" not in document:
        return ""
    differences = document.get("fingerprint_differences") or []
    if not differences:
        count = sum(len(tables) for tables in document["fingerprints"].values())
        return f"Opponents pinned: {count} fingerprints, all as the package's; deal plan as the package's."
    return f"Opponents NOT as the protocol's: {'; '.join(differences)}."


def _notes(document: dict[str, Any]) -> list[str]:
    """The notes of the marks `win_text` put in the table (clipped means, Wilson intervals)."""
    wins = [r["estimates"]["win"] for r in document["lineups"]]
    before = [w.get(f"{kind}_clipped_from") for w in wins for kind in ("raw", "corrected")]
    clipped = [f"{value:.4f}" for value in before if value is not None]
    notes = []
    if clipped:
        notes.append(f"*: the mean was outside [0, 1] ({', '.join(clipped)}) and is clipped to it.")
    if any(w.get(f"{k}_wilson") for w in wins for k in ("raw", "corrected")):
        notes.append("†: every deal gave the same 0 or 1: Wilson's interval over the deals, not a normal one.")
    return notes


def markdown(document: dict[str, Any]) -> str:
    """The results document as a markdown page."""
    lines = [
        f"# {document['protocol']}: {document['candidate']} on {document['env_id']}",
        "",
        "Full protocol." if document["full_protocol"] else REDUCED,
        f"Control variate: {document['control_variate']}.",
        provenance_text(document),
        *[line for line in (fingerprint_text(document),) if line],
        "",
        "| line-up | deals | win rate [Wilson 95%] | win rate over deals: raw | corrected | variance ratio "
        "| mean score [95%] | rating μ ± σ | µs/move |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for r in document["lineups"]:
        est = r["estimates"]["win"]
        rating = r["rating"]
        cells = [
            r["lineup"],
            str(r["deals"]),
            interval_text(r["win_rate"]),
            win_text(est, "raw"),
            win_text(est, "corrected"),
            _ratio_text(est["variance_ratio"]),
            interval_text(r["mean_score"], 1),
            f"{rating[0]:.1f} ± {rating[1]:.1f}",
            f"{r['compute']['candidate_cpu_us_per_move']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "Win rates count a shared win as 1/w. Raw and corrected intervals are normal intervals over deals "
        "(the mean of the candidate's seats over a deal's rotations); the variance ratio is raw over corrected "
        "(—: undefined, from one deal or with no variance left). "
        "µs/move: the candidate's CPU time per decision (machine-dependent, not part of the protocol's figures).",
        *_notes(document),
    ]
    if "rank" in document:
        from agents.benchmark.rank import rank_lines

        lines += ["", *rank_lines(document["rank"], document["candidate"])]
    return "\n".join(lines) + "\n"


def write_results(document: dict[str, Any], out: str | Path) -> list[Path]:
    """Write ``results.json`` and ``results.md`` into ``out`` (each written whole, then renamed)."""
    from pirate_envs.core.files import write_atomic

    out = Path(out)
    return [
        write_atomic(out / "results.json", json.dumps(document, indent=2) + "\n"),
        write_atomic(out / "results.md", markdown(document)),
    ]
