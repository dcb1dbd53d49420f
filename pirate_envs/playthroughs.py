"""Golden playthroughs: one seeded game per env id and table size, written out in full as text.

Each file (``tests/playthroughs/<env_id>_<n>p.txt``) records a game of random legal play (block
first, `pirate_envs.core.actions.sample_legal` drawing from ``random.Random(seed)``) from a seeded
reset: at every decision the screen (the ansi render), every seat's observation as its named
pieces (only the non-zero entries, ``piece: index=value``; a seat whose observation has not
changed since it was last written says so), the legal action names, the action and the rewards
it paid; at the end the final screen, the observations, the winners and the totals.

Its header holds everything needed to play it again: the ``make`` options as JSON (a short game
where the game has an option for one: fewer hands, a lower target) and the reset seed. A test
(``tests/test_playthroughs.py``) regenerates every file from its own header and fails on any
difference, showing it as a diff. Check or rewrite them from the repository root:

```
python -m pirate_envs.playthroughs            # check: exit status 1 and a diff on a difference
python -m pirate_envs.playthroughs --write    # rewrite every file after an intended change
python -m pirate_envs.playthroughs --write --env-id <g>_v0 --options '{"num_hands": 2}'  # a new game, every table size
```

A changed playthrough means the env's behaviour changed. By the version policy of
``docs/ADDING_A_GAME.md`` a change of what an env id plays or observes (its deals, legal actions,
observations, rewards) gets a new env id (``<g>_v1``) beside the old one; a change of its screens
alone needs none. Rewrite the files only for an intended change, in the commit that makes it.
"""

from __future__ import annotations

import argparse
import difflib
import json
import random
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from pirate_envs import registry
from pirate_envs.core.actions import action_blocks, sample_legal
from pirate_envs.core.files import write_atomic
from pirate_envs.core.observation import ObservationLayout
from pirate_envs.core.render import fit_lines

#: Where the files live, relative to the repository root.
DEFAULT_DIRECTORY = Path("tests") / "playthroughs"
#: Decisions after which a playthrough stops (its header says so): a short game ends long before.
MAX_DECISIONS = 400
#: A new file takes the first reset seed (from 0, below `SEED_TRIES`) whose game ends within
#: `SHORT_GAME` decisions (else seed 0): the files stay small and show a game's end.
SHORT_GAME, SEED_TRIES = 120, 50
_MAKE = "# make: "
_SEED = "# reset seed: "


def file_name(env_id: str, num_players: int) -> str:
    """The playthrough file of ``env_id`` at ``num_players`` players: ``<env_id>_<n>p.txt``."""
    return f"{env_id}_{num_players}p.txt"


def header(env_id: str, options: dict[str, Any], seed: int) -> list[str]:
    """The header lines of a playthrough (`read_header` reads the options and the seed back)."""
    return [
        f"# Golden playthrough of {env_id}: pirate_envs.make({env_id!r}, raw=True, **make), reset(seed=seed),",
        f"# random legal play (block first) from random.Random(seed), at most {MAX_DECISIONS} decisions.",
        "# Observations: the non-zero entries of every piece (piece: index=value).",
        "# Regenerated and compared by tests/test_playthroughs.py; rewrite: python -m pirate_envs.playthroughs --write",
        "# A change of play, observations or rewards here needs a new env id (docs/ADDING_A_GAME.md); of screens, not.",
        f"{_MAKE}{json.dumps(options, sort_keys=True)}",
        f"{_SEED}{seed}",
    ]


def read_header(text: str) -> tuple[dict[str, Any], int]:
    """The ``make`` options and the reset seed of a playthrough's text (``ValueError`` if missing)."""
    options = seed = None
    for line in text.splitlines():
        if line.startswith(_MAKE):
            options = json.loads(line[len(_MAKE) :])
        elif line.startswith(_SEED):
            seed = int(line[len(_SEED) :])
        elif not line.startswith("#"):
            break
    if not isinstance(options, dict) or seed is None:
        raise ValueError(f"a playthrough starts with {_MAKE.strip()!r} (a JSON object) and {_SEED.strip()!r} lines")
    return options, seed


def _number(value: float) -> str:
    """The shortest text of a ``float32`` value (``1`` for ``1.0``)."""
    text = str(np.float32(value))
    return text[:-2] if text.endswith(".0") else text


def observation_lines(layout: ObservationLayout, vector: np.ndarray) -> list[str]:
    """The non-zero entries of ``vector`` by piece: ``name: index=value ...`` (a multi-axis index as ``i,j``)."""
    lines = []
    for name, values in layout.unpack(vector).items():
        nonzero = np.argwhere(values != 0)
        if len(nonzero):
            entries = " ".join(f"{','.join(map(str, index))}={_number(values[tuple(index)])}" for index in nonzero)
            lines.append(f"{name}: {entries}")
    return lines or ["(all zero)"]


def _indented(lines: Sequence[str], indent: str = "  ") -> list[str]:
    return [f"{indent}{line}".rstrip() for line in fit_lines(lines, 100 - len(indent))]


def playthrough(env_id: str, options: dict[str, Any], seed: int) -> str:
    """The text of the playthrough of ``pirate_envs.make(env_id, raw=True, **options)`` from ``reset(seed=seed)``."""
    return _play(env_id, options, seed, MAX_DECISIONS)[0]


def short_game_seed(env_id: str, options: dict[str, Any]) -> int:
    """The first seed below `SEED_TRIES` whose game ends within `SHORT_GAME` decisions (else 0)."""
    for seed in range(SEED_TRIES):
        if _play(env_id, options, seed, SHORT_GAME)[1]:
            return seed
    return 0


def _play(env_id: str, options: dict[str, Any], seed: int, max_decisions: int) -> tuple[str, bool]:
    """The playthrough's text (stopped after ``max_decisions`` decisions) and whether the game ended."""
    env = registry.make(env_id, raw=True, render_mode="ansi", **options)
    env.reset(seed=seed)
    rng = random.Random(seed)
    blocks = action_blocks(env)
    layout = env.observation_layout
    lines = header(env_id, options, seed)
    written: dict[str, tuple[np.ndarray, int]] = {}  # agent -> (observation last written, at which decision)
    totals = dict.fromkeys(env.possible_agents, 0.0)

    def observations(decision: int) -> None:
        for agent in env.possible_agents:
            vector = env.observe(agent)["observation"]
            last = written.get(agent)
            if last is not None and np.array_equal(last[0], vector):
                lines.append(f"observation {agent}: unchanged since decision {last[1]}")
                continue
            written[agent] = (vector.copy(), decision)
            lines.append(f"observation {agent}:")
            lines.extend(_indented(observation_lines(layout, vector)))

    decision = 0
    while env.agents and decision < max_decisions:
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            continue
        lines.append(f"== decision {decision}: {agent} on turn ==")
        lines.append("screen:")
        lines.extend(_indented([env.render()]))
        observations(decision)
        mask = env.observe(agent)["action_mask"]
        legal = np.flatnonzero(mask).tolist()
        lines.append(f"legal ({len(legal)}):")
        lines.extend(_indented([" | ".join(env.action_to_string(a) for a in legal)]))
        action = sample_legal(mask, rng, blocks)
        lines.append(f"action: {env.action_to_string(action)} ({action})")
        env.step(action)
        paid = {a: r for a, r in env.rewards.items() if r}
        for a, r in paid.items():
            totals[a] += r
        lines.append("rewards: " + (" ".join(f"{a}={_number(r)}" for a, r in paid.items()) or "none"))
        decision += 1
    game = env.game
    ended = "terminated" if game.terminated else "truncated" if game.truncated else "stopped (decision limit)"
    lines.append(f"== end after {decision} decisions: {ended} ==")
    lines.append("screen:")
    lines.extend(_indented([env.render()]))
    observations(decision)
    if game.terminated:
        lines.append(f"winners: {[env.possible_agents[seat] for seat in game.winners()]}")
    lines.append("scores: " + " ".join(f"{a}={_number(s)}" for a, s in zip(env.possible_agents, game.scores())))
    lines.append("total rewards: " + " ".join(f"{a}={_number(r)}" for a, r in totals.items()))
    return "\n".join(lines) + "\n", game.done


def regenerate(path: Path) -> tuple[str, str]:
    """The text of the playthrough file ``path`` and the text its header plays now."""
    text = path.read_text()
    options, seed = read_header(text)
    env_id = path.name.rsplit("_", 1)[0]
    return text, playthrough(env_id, options, seed)


def difference(path: Path, old: str, new: str, max_lines: int = 80) -> str:
    """A unified diff of a playthrough's committed and regenerated texts (at most ``max_lines`` lines)."""
    diff = list(
        difflib.unified_diff(old.splitlines(), new.splitlines(), f"{path} (committed)", "(played now)", lineterm="")
    )
    more = len(diff) - max_lines
    return "\n".join(diff[:max_lines] + ([f"... {more} more diff lines"] if more > 0 else []))


def expected_files(directory: Path) -> list[Path]:
    """Every file there should be: one per env id and table size."""
    return [directory / file_name(env_id, n) for env_id in registry.ENV_IDS for n in registry.player_counts(env_id)]


def main(argv: Sequence[str] | None = None) -> int:
    """The command (see the module docstring); exit status 0 when every file matches (or was written)."""
    parser = argparse.ArgumentParser(
        prog="python -m pirate_envs.playthroughs",
        description="Check (or with --write rewrite) the golden playthroughs. A change of what an env id plays or "
        "observes needs a new env id (the version policy of docs/ADDING_A_GAME.md); a change of its screens alone not.",
    )
    parser.add_argument("--write", action="store_true", help="rewrite the files instead of checking them")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIRECTORY, help="the files' folder (%(default)s)")
    parser.add_argument("--env-id", choices=registry.ENV_IDS, help="only this env id's files")
    parser.add_argument(
        "--options",
        help="with --write: a JSON object of make options for the files, written anew (reward_mode 'score' unless "
        "given; num_players set per file); else each file keeps its header's",
    )
    args = parser.parse_args(argv)
    try:
        new_options = json.loads(args.options) if args.options is not None else None
    except json.JSONDecodeError as error:
        parser.error(f"--options {args.options!r} is not JSON: {error}")
    if new_options is not None and not isinstance(new_options, dict):
        parser.error(f"--options {args.options!r} must be a JSON object")
    failed = 0
    for path in expected_files(args.dir):
        env_id = path.name.rsplit("_", 1)[0]
        if args.env_id and env_id != args.env_id:
            continue
        n = int(path.stem.rsplit("_", 1)[1][:-1])
        if args.write and (new_options is not None or not path.exists()):
            options = {"reward_mode": "score", **(new_options or {}), "num_players": n}
            write_atomic(path, playthrough(env_id, options, short_game_seed(env_id, options)))
            print(f"{path}: written")
            continue
        if not path.exists():
            print(f"{path}: missing (write it with --write)")
            failed += 1
            continue
        try:
            old, new = regenerate(path)
        except (ValueError, TypeError) as error:  # a broken header or options that make refuses
            print(f"{path}: {error}")
            failed += 1
            continue
        if old == new:
            print(f"{path}: same")
        elif args.write:
            write_atomic(path, new)
            print(f"{path}: rewritten")
        else:
            print(difference(path, old, new))
            failed += 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
