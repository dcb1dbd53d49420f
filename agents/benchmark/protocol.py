"""The published benchmark protocol, ``pirate-bench v3`` (``v2`` still playable): versions, deals, line-ups.

A candidate agent is measured, at every table size of a game it plays, against fixed line-ups:
``n - 1`` copies of one opponent, on the published deals, every deal once per rotation of the
seats (duplicate), so each agent holds every seat's cards and dice stream once.

* **v3** (`VERSION`, the default): `OPPONENTS` ``random``, ``heuristic``, ``search`` (a fast search
  at a pinned budget, `SEARCH_OPPONENTS`: ``halving:50``; Kapern's exact one-turn ``oracle``, as
  the halving search does not play Kapern) and ``ppo`` (the game's reference network,
  `reference_network`, where it plays that table); the deals per line-up come from
  `agents.benchmark.design` (measured variance, a stated interval width).
* **v2**: `OPPONENTS_V2` ``random``, ``heuristic``, ``mcts`` and ``ppo``; `DEAL_COUNT` deals per line-up,
  `SEARCH_DEAL_COUNT` where ``mcts`` plays.

The deals are the batched engine's per-game random streams (`pirate_envs.vector`): deal ``i`` is
the 64-bit state ``SeedSequence(MASTER_SEED).generate_state(DEAL_COUNT, uint64)[i]``. They are
generated from the committed master seed rather than stored as a list because numpy documents
``SeedSequence`` as stable across versions and platforms, and the committed SHA-256 of the whole
list (`DEALS_SHA256`) is checked on every load (`deal_states`): a numpy that generated other
states would stop the benchmark instead of silently playing other deals. One stream deals one
game's cards and dice at any table size, so the same list serves every game and size.

Version policy (``docs/benchmark.md``, changelog included): `VERSION` changes with a game's rules or
observations, the deals, the line-ups or the estimators; a changed env gets a ``_v1`` id beside ``_v0``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

import pirate_envs
from agents.policy.agent import PRETRAINED_DIR
from agents.spec import HALVING, parse_agent_name

#: The protocol's name and (current) version; `VERSIONS` may be played.
NAME = "pirate-bench"
VERSION = 3
VERSIONS = (2, 3)
#: v3's revision: it goes up whenever an opponent's play moves (its fingerprint,
#: `agents.benchmark.fingerprint`) while the line-ups stay v3's. v3.0: the v3 runs made before the
#: fingerprints, whose opponents played otherwise (the search's hidden-card redraw, the deal plan).
REVISION = 1


def title(version: int = VERSION) -> str:
    """``"pirate-bench v3"``: the version whose line-ups are played."""
    return f"{NAME} v{version}"


def label(version: int = VERSION, revision: int | None = None) -> str:
    """``"pirate-bench v3.1"``: the version and revision (default: the current one) a results file is made
    under (v2 has no revisions)."""
    if version != 3:
        return title(version)
    return f"{title(version)}.{REVISION if revision is None else revision}"


def version_of(protocol: str) -> int:
    """The version whose line-ups a results file's ``protocol`` label played: ``3`` of ``"pirate-bench v3.1"``."""
    return int(protocol.rsplit(" v", 1)[1].split(".")[0])


TITLE = label()

#: The master seed of the deal list and the number of deals the protocol plays per line-up.
MASTER_SEED = 20261123
DEAL_COUNT = 10_000
#: SHA-256 of the ``DEAL_COUNT`` states as little-endian unsigned 64-bit integers.
DEALS_SHA256 = "ddebdb309b669c54b07eada8021a3843140e68430de5a725a2710f533b9fbd45"

#: The fixed opponents of v3, in the order they are reported (``ppo``: the game's reference network;
#: ``search``: `SEARCH_OPPONENTS`), and of v2.
OPPONENTS = ("random", "heuristic", "search", "ppo")
OPPONENTS_V2 = ("random", "heuristic", "mcts", "ppo")
#: v3's ``search`` opponent per game, its budget pinned in the name: the batched sequential-halving
#: search at 50 rollouts per move; in Kapern (which the halving search does not play) the exact
#: one-turn oracle.
SEARCH_OPPONENTS = {
    "piraten_kapern_v0": "oracle",
    "skull_king_v0": "halving:50",
    "piratenpoker_v0": "halving:50",
    "lucky_pirate_v0": "halving:50",
}
#: The ``ppo`` opponent of each game: the agent shipped when the version was published, fixed by
#: its SHA-256 so that shipping a new agent leaves the line-ups alone (`reference_network`).
REFERENCE_SHA256 = {
    "piraten_kapern_v0": "55b45e67b5052c7d8d649254f7822b932b200fc64350aa61cd2a15680a296027",
    "skull_king_v0": "859f9b03395637155f7b8231f660df61821c62940dc3922e8e0d70dc9bac765d",
    "piratenpoker_v0": "c45dd6195b3157ca241c2cb4a48e3434f4a93a4b96e16adf4ed2e01d8a43118a",
    "lucky_pirate_v0": "d227bda580509bc4642f25182f0a3d1fe88b7042adcf1c80d4b4e13bd3412d43",
}
REFERENCE_DIR = Path(__file__).resolve().parent / "reference"
#: Deals of the ``mcts`` line-up: a search move costs milliseconds, not microseconds.
SEARCH_DEAL_COUNT = 500
#: Deals per batch of games (the agents' random streams are seeded per batch, so the figures do
#: not depend on ``--workers``, which spreads whole batches over processes); smaller batches where
#: ``mcts`` sits at the table, so that its slow games spread over the workers too.
CHUNK_DEALS = 256
SEARCH_CHUNK_DEALS = 8
#: Deals per batch of v3's ``search`` line-up (a halving move costs milliseconds).
V3_SEARCH_CHUNK_DEALS = 32


def plays_tree_search(name: str) -> bool:
    """Whether the agent ``name`` is the tree search ``mcts`` (plain, batched or guided by a network)."""
    spec = parse_agent_name(name)
    return spec.kind in ("mcts", "batched") or (spec.kind == "guided" and spec.option == "mcts")


def plays_openspiel(name: str) -> bool:
    """Whether the agent ``name`` is an outside baseline of OpenSpiel (``openspiel:ismcts``)."""
    return parse_agent_name(name).kind == "openspiel"


def searches_by_halving(env_id: str) -> bool:
    """Whether the ``search`` opponent of ``env_id`` is sequential halving (`SEARCH_OPPONENTS`)."""
    return parse_agent_name(SEARCH_OPPONENTS[env_id]).kind == HALVING


@dataclass(frozen=True)
class Lineup:
    """One line-up of the protocol: the candidate against ``players - 1`` copies of ``opponent``."""

    env_id: str
    players: int
    opponent: str
    deals: int

    def chunk_deals(self, candidate: str) -> int:
        """Deals per batch of this line-up with ``candidate`` (`SEARCH_CHUNK_DEALS` where ``mcts`` or OpenSpiel's
        search plays: their moves cost a tenth of a CPU-second or more, so small batches spread them out)."""
        if any(plays_tree_search(name) or plays_openspiel(name) for name in (candidate, self.opponent)):
            return SEARCH_CHUNK_DEALS
        return V3_SEARCH_CHUNK_DEALS if self.opponent == "search" else CHUNK_DEALS

    @property
    def key(self) -> str:
        """A stable label: ``"4p vs heuristic"``."""
        return f"{self.players}p vs {self.opponent}"


def opponent_agent(opponent: str, env_id: str) -> str:
    """The registry name of a protocol opponent (``ppo``: ``ppo:<path>`` of the game's reference network;
    ``search``: `SEARCH_OPPONENTS`)."""
    if opponent == "search":
        return SEARCH_OPPONENTS[env_id]
    return f"ppo:{reference_network(env_id)}" if opponent == "ppo" else opponent


@cache
def reference_network(env_id: str) -> Path:
    """The agent file of the protocol's ``ppo`` opponent: the one whose SHA-256 is `REFERENCE_SHA256`'s.

    The file kept under ``agents/benchmark/reference/`` once a newer agent is shipped, else the shipped
    ``agents/pretrained/<env_id>.npz`` while it is still that network; ``RuntimeError`` when neither is.
    """
    for folder in (REFERENCE_DIR, PRETRAINED_DIR):
        path = folder / f"{env_id}.npz"
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == REFERENCE_SHA256[env_id]:
            return path
    raise RuntimeError(f"the {TITLE} reference network of {env_id} (sha256 {REFERENCE_SHA256[env_id]}) is missing")


def deal_states(count: int = DEAL_COUNT) -> np.ndarray:
    """The first ``count`` deals of the published list (``uint64`` stream states), its digest checked."""
    if not 1 <= count <= DEAL_COUNT:
        raise ValueError(f"deals must be in 1..{DEAL_COUNT} (the published list), got {count}")
    states = np.random.SeedSequence(MASTER_SEED).generate_state(DEAL_COUNT, dtype=np.uint64)
    digest = hashlib.sha256(states.astype("<u8").tobytes()).hexdigest()
    if digest != DEALS_SHA256:
        raise RuntimeError(
            f"this numpy generates another deal list (sha256 {digest}, published {DEALS_SHA256}): "
            f"results would not be {TITLE}"
        )
    return states[:count]


def opponents_of(version: int = VERSION) -> tuple[str, ...]:
    """The line-ups' opponents of a protocol version; ``ValueError`` for one not in `VERSIONS`."""
    if version not in VERSIONS:
        raise ValueError(f"no protocol version {version}; versions: {', '.join(f'v{v}' for v in VERSIONS)}")
    return OPPONENTS if version == 3 else OPPONENTS_V2


def full_deals(env_id: str, players: int, opponent: str, version: int = VERSION) -> int:
    """The deals a full run plays in one line-up: v3's from `agents.benchmark.design`, v2's fixed."""
    if version == 3:
        from agents.benchmark.design import deals_for

        return deals_for(env_id, players, opponent, halving=searches_by_halving(env_id), most=DEAL_COUNT)
    return SEARCH_DEAL_COUNT if opponent == "mcts" else DEAL_COUNT


def search_left_out(env_id: str) -> tuple[int, ...]:
    """The table sizes where v3 plays no ``search`` line-up: it would take the game's full run over the CPU
    budget (`agents.benchmark.design.search_left_out`)."""
    from agents.benchmark.design import search_left_out as left_out

    return left_out(env_id, OPPONENTS, halving=searches_by_halving(env_id), most=DEAL_COUNT)


def lineups(
    env_id: str,
    players: tuple[int, ...],
    deals: int | None = None,
    opponents: tuple[str, ...] | None = None,
    version: int = VERSION,
) -> list[Lineup]:
    """The protocol's line-ups at the table sizes ``players``: every opponent that plays each size.

    ``deals``: the deals per line-up (``None``: the version's, `full_deals`; a smaller number runs
    the first deals of the list, a reduced run); ``opponents``: some of the version's.
    """
    from agents.registry import agent_player_counts

    left_out = search_left_out(env_id) if version == 3 else ()
    result = []
    for n in players:
        for opponent in opponents or opponents_of(version):
            if n not in agent_player_counts(opponent_agent(opponent, env_id), env_id):
                continue
            if opponent == "search" and n in left_out:  # over the CPU budget (agents.benchmark.design)
                continue
            full = full_deals(env_id, n, opponent, version)
            result.append(Lineup(env_id, n, opponent, full if deals is None else min(deals, full)))
    return result


def table_sizes(env_id: str, candidate: Any) -> tuple[int, ...]:
    """The table sizes of ``env_id`` that ``candidate`` (a name, agent or factory) plays (most: every size)."""
    from agents.benchmark.candidate import resolve

    counts = resolve(candidate).player_counts(env_id)
    return tuple(n for n in pirate_envs.player_counts(env_id) if n in counts)


__all__ = [
    "CHUNK_DEALS",
    "DEALS_SHA256",
    "DEAL_COUNT",
    "MASTER_SEED",
    "NAME",
    "OPPONENTS",
    "OPPONENTS_V2",
    "REFERENCE_SHA256",
    "REVISION",
    "SEARCH_CHUNK_DEALS",
    "SEARCH_DEAL_COUNT",
    "SEARCH_OPPONENTS",
    "TITLE",
    "VERSION",
    "VERSIONS",
    "Lineup",
    "deal_states",
    "full_deals",
    "label",
    "lineups",
    "opponent_agent",
    "opponents_of",
    "plays_tree_search",
    "reference_network",
    "search_left_out",
    "searches_by_halving",
    "table_sizes",
    "title",
    "version_of",
]
