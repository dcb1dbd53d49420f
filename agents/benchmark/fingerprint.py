"""Behavioural fingerprints: what each agent of the protocol plays on a fixed set of positions.

A name like ``halving:50`` does not pin what an opponent plays: its code can change under it. A
fingerprint does. The positions of a game and table size are fixed by the protocol's seed
(`position_streams`): `GAMES` games on the batched engine, each from its own stream, driven by a
seeded ``random`` player for up to `STEPS` decisions; every `STRIDE`-th decision of every live game
is told to the agent, which sits at every seat, and its answer is recorded where it had more than
one legal move (a position); the driver's move is the one played, so the positions never depend on
the agent. A stochastic agent is seeded as in a benchmark batch.

A fingerprint (`fingerprint`) holds the SHA-256 of the positions (observations and masks: a change
of the engine shows there, not as the agent's), the moves, and, for information, the SHA-256 of the
agent's file (a network's) and of the source file of the class that plays. `compare` names the
first position where two fingerprints differ. The protocol's agents' fingerprints and deal plan are
package data (`FOLDER`, written by ``benchmarks/fingerprints.py``); `agents.benchmark.verify`
recomputes them. An earlier revision's set, as its opponents played at the commits its runs were made
at, lies in a subfolder named by the revision (``v3.0/``, written by
``benchmarks/migrate_protocol_labels.py``): it pins what those runs played, which the current code
no longer plays (`package_path`). About a second of CPU per agent and table size, the searches a few.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import zlib
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
import pirate_envs.vector
from agents.base import action_blocks
from agents.batched import BatchedRandomAgent, has_batched_form, make_batched_agent
from agents.batched.one_game import EnginesInStep, OneGameAgents
from agents.benchmark.protocol import MASTER_SEED, OPPONENTS, TITLE, lineups, opponent_agent
from agents.benchmark.provenance import agent_record, public_name
from agents.registry import make_agent

#: Games, decisions per game and the stride between positions of a fingerprint (at most
#: ``GAMES * STEPS // STRIDE`` positions per table size).
GAMES = 8
STEPS = 64
STRIDE = 8
#: The package data: one ``<env_id>.json`` per game (`package_data`).
FOLDER = Path(__file__).resolve().parent / "fingerprints"


def position_streams(env_id: str, players: int) -> np.ndarray:
    """The stream states of the positions' games: from the protocol's master seed, the game and the table size."""
    entropy = [MASTER_SEED, zlib.crc32(env_id.encode()), players]
    return np.random.SeedSequence(entropy).generate_state(GAMES, dtype=np.uint64)


def _source_sha256(agent: Any) -> str | None:
    """SHA-256 of the source file of the class of ``agent`` (``None`` when it has none)."""
    try:
        source = inspect.getsourcefile(type(agent))
    except TypeError:
        return None
    return None if source is None else hashlib.sha256(Path(source).read_bytes()).hexdigest()


def _agent(name: str, env_id: str, raw: Any, engines: EnginesInStep, players: int, seed: int) -> Any:
    """``name`` in its batched form, else as one-game agents (`agents.batched.one_game`), one per slot."""
    if has_batched_form(name, env_id):
        return make_batched_agent(name, env_id, raw, GAMES * players, seed=seed)
    built: dict[int, Any] = {}

    def agent_of(slot: int) -> Any:
        if slot not in built:
            built[slot] = make_agent(name, env_id, seed=seed * 1_000_003 + slot, env=raw)
        return built[slot]

    return OneGameAgents(name, agent_of, raw, engines, players)


def fingerprint(name: str, env_id: str, players: int) -> dict[str, Any]:
    """The fingerprint of the registry agent ``name`` at a table of ``players`` (see the module docstring).

    It reads only interfaces that every v3 commit has, so that ``benchmarks/migrate_protocol_labels.py``
    can run this file at the commit a results file was made at."""
    venv = pirate_envs.vector.make(env_id, GAMES, seed=0, num_players=players)
    raw = pirate_envs.make(env_id, raw=True, num_players=players)
    engines = EnginesInStep(venv)
    seed = 7919 + players  # the first batch's seed of a line-up (`agents.benchmark.run.play_chunk`)
    agent = _agent(name, env_id, raw, engines, players, seed)
    driver = BatchedRandomAgent(action_blocks(raw), seed=int(position_streams(env_id, players)[0] % 2**32))
    venv.reset(streams=position_streams(env_id, players))
    every_slot = np.arange(GAMES * players)
    agent.reset_games(every_slot)
    if isinstance(agent, OneGameAgents):
        agent.start(every_slot, every_slot + seed * 1_000_003)
        engines.start(np.arange(GAMES))
    positions, moves = hashlib.sha256(), []
    ended = np.zeros(GAMES, dtype=bool)
    for step in range(STEPS):
        if ended.all():
            break
        live = np.flatnonzero(~ended)
        slots = live * players + venv.current_player[live]
        observation, mask = venv.observation[live], venv.action_mask[live]
        if step % STRIDE == 0:
            answers = agent.act_batch(slots, observation, mask)
            choice = np.asarray(mask).astype(bool).sum(axis=1) > 1  # a forced move tells nothing
            moves += answers[choice].tolist()
            positions.update(np.ascontiguousarray(observation[choice], dtype="<f4").tobytes())
            positions.update(np.ascontiguousarray(mask[choice], dtype=np.int8).tobytes())
        actions = np.zeros(GAMES, dtype=np.int64)
        actions[live] = driver.act_batch(slots, observation, mask)
        active = ~ended
        venv.step(actions, active=active)
        engines.follow(actions, active)
        ended |= active & (venv.terminated | venv.truncated)
    text = " ".join(map(str, moves))
    return {
        "agent": public_name(name),
        "players": players,
        "positions": len(moves),
        "positions_sha256": positions.hexdigest(),
        "moves": text,
        "moves_sha256": hashlib.sha256(text.encode()).hexdigest(),
        "code_sha256": _source_sha256(agent.make_agent(0) if isinstance(agent, OneGameAgents) else agent),
        "file_sha256": agent_record(name)["sha256"],
    }


def protocol_agents(env_id: str) -> dict[str, str]:
    """The protocol's opponents of ``env_id`` (the reference network included): line-up name to registry name."""
    return {opponent: opponent_agent(opponent, env_id) for opponent in OPPONENTS}


def deal_plan(env_id: str) -> dict[str, int]:
    """The deals of every line-up of a full run of ``env_id``: ``{"3p vs search": 289, ...}``."""
    sizes = pirate_envs.player_counts(env_id)
    return {lineup.key: lineup.deals for lineup in lineups(env_id, tuple(sizes))}


def game_fingerprints(env_id: str, opponents: tuple[str, ...] = OPPONENTS) -> dict[str, dict[str, dict[str, Any]]]:
    """The fingerprints of the protocol's ``opponents`` of ``env_id`` at every table size where a line-up
    plays them: ``{opponent: {str(players): fingerprint}}``."""
    plan = deal_plan(env_id)
    result: dict[str, dict[str, dict[str, Any]]] = {}
    for opponent in opponents:
        name = opponent_agent(opponent, env_id)
        sizes = sorted({int(key.split("p vs ")[0]) for key in plan if key.endswith(f" vs {opponent}")})
        result[opponent] = {str(n): fingerprint(name, env_id, n) for n in sizes}
    return result


def package_document(env_id: str) -> dict[str, Any]:
    """What `FOLDER` holds of ``env_id``: the protocol's version, the positions' parameters, the deal plan
    and the fingerprints, all computed at the current code."""
    return {
        "protocol": TITLE,
        "env_id": env_id,
        "positions": {"master_seed": MASTER_SEED, "games": GAMES, "steps": STEPS, "stride": STRIDE},
        "deal_plan": deal_plan(env_id),
        "fingerprints": game_fingerprints(env_id),
    }


def package_path(env_id: str, protocol: str = TITLE) -> Path:
    """Where the package keeps the fingerprints of ``env_id`` under ``protocol`` (a results file's label):
    `FOLDER` for the current revision, its subfolder ``v3.0`` for ``"pirate-bench v3.0"``."""
    return FOLDER / f"{env_id}.json" if protocol == TITLE else FOLDER / protocol.rsplit(" ", 1)[-1] / f"{env_id}.json"


def package_data(env_id: str, protocol: str = TITLE) -> dict[str, Any]:
    """The committed fingerprints and deal plan of ``env_id`` under ``protocol`` (`package_document` as
    written; `package_path`); ``ValueError`` naming the game and the protocol when there are none."""
    path = package_path(env_id, protocol)
    if not path.is_file():
        raise ValueError(f"no fingerprints of {env_id} under {protocol} in the package ({path.relative_to(FOLDER)})")
    return json.loads(path.read_text())


def compare(expected: dict[str, Any], actual: dict[str, Any], env_id: str) -> str | None:
    """``None`` when two fingerprints of one agent and table size play alike, else one line naming the agent,
    the game, the table size and the first differing position."""
    where = f"{expected['agent']} in {env_id} at {expected['players']} players"
    if expected["positions_sha256"] != actual["positions_sha256"]:
        return f"{where}: the positions themselves differ (the game's engine or observations changed)"
    if expected["moves_sha256"] == actual["moves_sha256"]:
        return None
    old, new = expected["moves"].split(), actual["moves"].split()
    first = next((i for i, (a, b) in enumerate(zip(old, new)) if a != b), min(len(old), len(new)))
    recorded = old[first] if first < len(old) else "none"
    now = new[first] if first < len(new) else "none"
    return f"{where}: position {first} of {len(old)} differs (recorded move {recorded}, now {now})"


__all__ = [
    "FOLDER",
    "GAMES",
    "STEPS",
    "STRIDE",
    "compare",
    "deal_plan",
    "fingerprint",
    "game_fingerprints",
    "package_data",
    "package_document",
    "package_path",
    "position_streams",
    "protocol_agents",
]
