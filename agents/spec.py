"""One grammar for agent names: ``parse_agent_name("halving:64:ppo:x")`` is an `AgentSpec`, ``str(spec)`` its name.

A name is ``<word>[:<rest>]``; the word picks its kind in `KINDS`, the one table of kinds that
``make_agent``, the command-line checks and help, the benchmark and the web table read. A kind is
one entry: how its names are written (``syntax``), whether a name is one of it (``matches``, tried
in table order), how a name becomes a spec and back (``parse``, ``format``) and the
``"module:function"`` that builds it (``function(spec, env_id, seed, env)``, imported when used).

Names that leave the search budget out (``halving``, ``mcts:ppo:x``) keep ``simulations=None``:
the game's own budget, filled in when the agent is built. ``parse_agent_name`` raises one line
(``ValueError``; ``TypeError`` for a name that is not a string) naming the bad name and the
syntax of its kind; it never opens a file or imports an agent's code.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from pirate_envs.core.errors import shown

#: The most iterations (rollouts) per move a search agent takes: 500 times the default, already minutes
#: of CPU time per move (Piratenpoker, the slowest: 11 CPU-s for about 100 moves at 50, some 2 ms an
#: iteration); more would look like a hang.
MAX_SIMULATIONS = 100_000
#: The rollout policies of ``mcts:<simulations>:<rollout>``.
ROLLOUTS = ("heuristic", "random")
#: Suffix of a trained agent's source that makes it sample its masked softmax instead of argmax.
SAMPLE_SUFFIX = "#sample"
#: The word that introduces a search's network: ``halving:ppo:<agent>``.
NETWORK = "ppo"
#: The last word of the batched tree search: ``mcts:<simulations>:batched``.
BATCHED = "batched"

_IDENTIFIER = r"[A-Za-z_]\w*"
_MODULE = re.compile(rf"{_IDENTIFIER}(\.{_IDENTIFIER})+")


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent name (``str(spec)`` writes it back; ``parse_agent_name(str(spec)) == spec``)."""

    kind: str  # a key of `KINDS`
    simulations: int | None = None  # a search's budget as written (None: the game's own)
    source: str | None = None  # an agent file or shipped name (a search's network), a rule card, a Python module
    option: str | None = None  # a game agent's name, a rollout, a guided search's root, a Python factory

    def __str__(self) -> str:
        return KINDS[self.kind].format(self)

    @property
    def network(self) -> str | None:
        """The trained agent file or shipped name it plays with (``#sample`` kept); ``None`` for none."""
        return self.source if KINDS[self.kind].trained else None


@dataclass(frozen=True)
class AgentKind:
    """One kind of agent name: its syntax, how it is parsed and written, and what builds it."""

    syntax: str  # how its names are written, for help and errors
    summary: str  # one line for ``--help``
    matches: Callable[[str], bool]  # whether a name is of this kind (tried in table order)
    parse: Callable[[str], AgentSpec]  # one-line ValueError for a malformed name of the kind
    format: Callable[[AgentSpec], str]
    build: str  # "module:function", called as function(spec, env_id, seed, env)
    trained: bool = False  # its ``source`` is a trained agent file or shipped name
    runs_code: bool = False  # loading it runs the user's Python code (never served over the network)
    searches: bool = False  # searches with rollouts at every move (its rollouts play every seat)


def _head(name: str) -> str:
    return name.partition(":")[0]


class TooManySimulations(ValueError):
    """A search budget above `MAX_SIMULATIONS`."""


def _budget(text: str) -> int | None:
    """The simulations written ``text`` (ASCII digits, at least 1); ``None`` when it is no such number,
    `TooManySimulations` above `MAX_SIMULATIONS`."""
    digits = text.lstrip("0")  # ASCII digits only: str.isdigit also takes '²', which int() refuses
    if not (text.isascii() and text.isdigit() and digits):
        return None
    if len(digits) > len(str(MAX_SIMULATIONS)) or int(digits) > MAX_SIMULATIONS:
        raise TooManySimulations(
            f"{shown(text)} simulations is more than MAX_SIMULATIONS = {MAX_SIMULATIONS}; allowed: 1..{MAX_SIMULATIONS}"
        )
    return int(digits)


def _written_budget(spec: AgentSpec) -> str:
    return "" if spec.simulations is None else f":{spec.simulations}"


# ---------------------------------------------------------------------- the tree search
MCTS_USAGE = (
    f"use 'mcts', 'mcts:<simulations>' (an integer 1..{MAX_SIMULATIONS}) or 'mcts:<simulations>:<rollout>' "
    f"with a rollout in {ROLLOUTS}"
)


def _parse_mcts(name: str) -> AgentSpec:
    parts = name.split(":")
    if parts[0] != "mcts" or len(parts) > 3:
        raise ValueError(f"bad search agent {shown(name)}: {MCTS_USAGE}")
    try:
        simulations = _budget(parts[1]) if len(parts) >= 2 else None
    except TooManySimulations as error:
        raise ValueError(f"bad search agent {shown(name)}: {error}") from None
    if (len(parts) >= 2 and simulations is None) or (len(parts) == 3 and parts[2] not in ROLLOUTS):
        raise ValueError(f"bad search agent {shown(name)}: {MCTS_USAGE}")
    return AgentSpec("mcts", simulations, option=parts[2] if len(parts) == 3 else None)


def _format_mcts(spec: AgentSpec) -> str:
    return f"mcts{_written_budget(spec)}" + (f":{spec.option}" if spec.option else "")


BATCHED_USAGE = f"use 'mcts:{BATCHED}' or 'mcts:<simulations>:{BATCHED}'"


def _parse_batched(name: str) -> AgentSpec:
    base, _, suffix = name.rpartition(":")
    if suffix != BATCHED or not (base == "mcts" or base.startswith("mcts:")):
        raise ValueError(f"bad batched search agent {shown(name)}: {BATCHED_USAGE}")
    try:
        plain = _parse_mcts(base)
    except ValueError as error:
        reason = str(error).partition(": ")[2]  # what is wrong with the name before ':batched'
        raise ValueError(f"bad batched search agent {shown(name)}: {reason} (with ':{BATCHED}' after it)") from None
    if plain.option not in (None, "heuristic"):
        raise ValueError(
            f"bad batched search agent {shown(name)}: its rollouts are the heuristic's; drop {plain.option!r}"
        )
    return AgentSpec("batched", plain.simulations)


def _format_batched(spec: AgentSpec) -> str:
    return f"mcts{_written_budget(spec)}:{BATCHED}"


# ---------------------------------------------------------------------- searches with a network
GUIDED_ROOTS = ("mcts", "gumbel")
OMNISCIENT = "omniscient"
GUIDED_USAGE = (
    "use 'mcts:<simulations>:ppo:<agent>', 'gumbel:<simulations>:ppo:<agent>', "
    "'omniscient', 'omniscient:<simulations>' or 'omniscient:<simulations>:ppo:<agent>' "
    f"(<simulations> an integer 1..{MAX_SIMULATIONS})"
)


def _budget_and_network(name: str) -> tuple[str | None, str | None, bool]:
    """``(budget text, network, well formed)`` of ``<word>[:<budget>][:ppo:<network>]``."""
    rest = name.partition(":")[2]
    marker = f"{NETWORK}:"
    if rest.startswith(marker):
        return None, rest[len(marker) :], True
    if not rest:
        return None, None, True
    budget, _, tail = rest.partition(":")
    if not tail:
        return budget, None, True
    return budget, tail[len(marker) :], tail.startswith(marker)


def _optional_budget(budget: str | None) -> tuple[int | None, bool]:
    """``(simulations, well written)`` of a budget that may be left out (``None``); above `MAX_SIMULATIONS`
    it is not well written."""
    if budget is None:
        return None, True
    try:
        simulations = _budget(budget)
    except TooManySimulations:
        return None, False
    return simulations, simulations is not None


def _is_guided(name: str) -> bool:
    parts = name.split(":")
    return parts[0] in ("gumbel", OMNISCIENT) or (parts[0] == "mcts" and NETWORK in parts[1:3])


def _parse_guided(name: str) -> AgentSpec:
    usage = f"bad search agent {shown(name)}: {GUIDED_USAGE}"
    head = _head(name)
    budget, network, ok = _budget_and_network(name)
    if head not in (*GUIDED_ROOTS, OMNISCIENT) or not ok or network == "" or (network is None and head != OMNISCIENT):
        raise ValueError(usage)
    simulations, written = _optional_budget(budget)
    if not written:
        raise ValueError(usage.replace(": use", f": {shown(budget)} simulations; use", 1))
    if head == OMNISCIENT:
        return AgentSpec(OMNISCIENT, simulations, network)
    return AgentSpec("guided", simulations, network, option=head)


def _format_guided(spec: AgentSpec) -> str:
    head = spec.option if spec.kind == "guided" else OMNISCIENT
    return f"{head}{_written_budget(spec)}" + (f":{NETWORK}:{spec.source}" if spec.source is not None else "")


HALVING = "halving"
HALVING_USAGE = (
    f"use '{HALVING}', '{HALVING}:<simulations>', '{HALVING}:ppo:<agent>' or '{HALVING}:<simulations>:ppo:<agent>'"
)


def _parse_halving(name: str) -> AgentSpec:
    usage = f"bad halving search agent {shown(name)}: {HALVING_USAGE}"
    budget, network, ok = _budget_and_network(name)
    if _head(name) != HALVING or not ok or network == "":
        raise ValueError(usage)
    simulations, written = _optional_budget(budget)
    if not written:
        raise ValueError(f"{usage}, <simulations> an integer 1..{MAX_SIMULATIONS}")
    return AgentSpec(HALVING, simulations, network)


def _format_halving(spec: AgentSpec) -> str:
    return f"{HALVING}{_written_budget(spec)}" + (f":{NETWORK}:{spec.source}" if spec.source is not None else "")


# ---------------------------------------------------------------------- files and the rest
def _prefixed(kind: str, prefix: str) -> tuple[Callable[[str], bool], Callable[[str], AgentSpec]]:
    """``matches`` and ``parse`` of a kind written ``<prefix><source>``."""

    def parse(name: str) -> AgentSpec:
        source = name[len(prefix) :]
        if not source:
            raise ValueError(f"bad agent {shown(name)}: give what follows {prefix!r}, e.g. {prefix}<file>")
        return AgentSpec(kind, source=source)

    return (lambda name: name.startswith(prefix)), parse


def _format_prefixed(prefix: str) -> Callable[[AgentSpec], str]:
    return lambda spec: f"{prefix}{spec.source}"


def is_python_target(name: str) -> bool:
    """Whether ``name`` is written as a Python agent: ``path/to/file.py:factory`` or ``package.module:factory``."""
    target, _, factory = name.rpartition(":")
    if not re.fullmatch(_IDENTIFIER, factory):
        return False
    return target.endswith(".py") or _MODULE.fullmatch(target) is not None


def _parse_python(name: str) -> AgentSpec:
    target, _, factory = name.rpartition(":")
    return AgentSpec("python", source=target, option=factory)


def _format_python(spec: AgentSpec) -> str:
    return f"{spec.source}:{spec.option}"


#: The outside baseline's name: OpenSpiel's information-set MCTS bot (`agents.openspiel_bots`).
OPENSPIEL_ISMCTS = "openspiel:ismcts"


def _parse_openspiel(name: str) -> AgentSpec:
    rest = name.removeprefix(OPENSPIEL_ISMCTS)
    usage = f"use {OPENSPIEL_ISMCTS!r} or '{OPENSPIEL_ISMCTS}:<simulations>' (an integer 1..{MAX_SIMULATIONS})"
    if not name.startswith(OPENSPIEL_ISMCTS) or (rest and not rest.startswith(":")):
        raise ValueError(f"bad OpenSpiel agent {shown(name)}: {usage}")
    try:
        simulations = _budget(rest[1:]) if rest else None
    except TooManySimulations as error:
        raise ValueError(f"bad OpenSpiel agent {shown(name)}: {error}") from None
    if rest and simulations is None:
        raise ValueError(f"bad OpenSpiel agent {shown(name)}: {usage}")
    return AgentSpec("openspiel", simulations, option="ismcts")


def _format_openspiel(spec: AgentSpec) -> str:
    return f"{OPENSPIEL_ISMCTS}{_written_budget(spec)}"


def _parse_game(name: str) -> AgentSpec:
    return AgentSpec("game", option=name)


_PPO = _prefixed("ppo", "ppo:")
_DMC = _prefixed("dmc", "dmc:")
_RULES = _prefixed("rules", "rules:")
_BUILD = "agents.builders:"

#: Every kind of agent name, tried in this order (``game``, the game's own agents, last).
KINDS: dict[str, AgentKind] = {
    "random": AgentKind(
        "random", "uniformly random legal moves", lambda name: name == "random",
        lambda name: AgentSpec("random"), lambda spec: "random", _BUILD + "build_random",
    ),
    "batched": AgentKind(
        "mcts[:<n>]:batched", "the tree search, its rollouts played many at once on the batched engine",
        lambda name: name.startswith("mcts") and name.endswith(f":{BATCHED}"),
        _parse_batched, _format_batched, _BUILD + "build_batched", searches=True,
    ),
    "guided": AgentKind(
        "mcts:<n>:ppo:<agent> | gumbel:<n>:ppo:<agent>", "the search guided by a trained agent's policy",
        lambda name: _is_guided(name) and _head(name) != OMNISCIENT,
        _parse_guided, _format_guided, _BUILD + "build_guided", trained=True, searches=True,
    ),
    OMNISCIENT: AgentKind(
        "omniscient[:<n>][:ppo:<agent>]", "a bound, NOT an honest player (the search seeing every hidden card)",
        lambda name: _head(name) == OMNISCIENT, _parse_guided, _format_guided, _BUILD + "build_guided",
        trained=True, searches=True,
    ),
    "mcts": AgentKind(
        "mcts[:<n>[:<rollout>]]", f"information-set tree search, rollouts in {ROLLOUTS}",
        lambda name: _head(name) == "mcts", _parse_mcts, _format_mcts, _BUILD + "build_mcts", searches=True,
    ),
    HALVING: AgentKind(
        "halving[:<n>][:ppo:<agent>]",
        "sequential halving on the batched engine (not Kapern); with ppo:<agent>, guided by its policy",
        lambda name: _head(name) == HALVING, _parse_halving, _format_halving, _BUILD + "build_halving",
        trained=True, searches=True,
    ),
    "rules": AgentKind(
        "rules:<env_id> | rules:<card.json>", "a rule card: the game's shipped one, or a card file",
        *_RULES, _format_prefixed("rules:"), _BUILD + "build_rules",
    ),
    "ppo": AgentKind(
        "ppo:<shipped name or path>[#sample]", "a trained agent file (.npz; loading runs no code), argmax or sampled",
        *_PPO, _format_prefixed("ppo:"), _BUILD + "build_ppo", trained=True,
    ),
    "dmc": AgentKind(
        "dmc:<path>", "a Deep Monte-Carlo agent file (experiments.train_dmc): its legal move of highest Q",
        *_DMC, _format_prefixed("dmc:"), _BUILD + "build_dmc", trained=True,
    ),
    "openspiel": AgentKind(
        "openspiel:ismcts[:<n>]", "an outside baseline: OpenSpiel's ISMCTSBot (the openspiel extra)",
        lambda name: _head(name) == "openspiel", _parse_openspiel, _format_openspiel, _BUILD + "build_openspiel",
        searches=True,
    ),
    "python": AgentKind(
        "path/to/file.py:factory | package.module:factory", "your own Python agent (loading it runs its code)",
        is_python_target, _parse_python, _format_python, _BUILD + "build_python", runs_code=True,
    ),
    "game": AgentKind(
        "heuristic | oracle | ...", "the game's own agents", lambda name: True,
        _parse_game, lambda spec: spec.option or "", _BUILD + "build_game",
    ),
}  # fmt: skip


def parse_agent_name(name: object) -> AgentSpec:
    """The `AgentSpec` of an agent name; one-line ``ValueError`` for a malformed one, ``TypeError`` for a non-string."""
    if not isinstance(name, str):
        raise TypeError(f"an agent name is a string such as 'heuristic', not {shown(name)} ({type(name).__name__})")
    kind = next(kind for kind in KINDS.values() if kind.matches(name))
    return kind.parse(name)


def _kind_or_none(name: object) -> AgentKind | None:
    try:
        return KINDS[parse_agent_name(name).kind]
    except (TypeError, ValueError):
        return None


def searches(name: object) -> bool:
    """Whether the agent ``name`` searches with rollouts at every move (a malformed name: ``False``)."""
    kind = _kind_or_none(name)
    return kind is not None and kind.searches


def runs_user_code(name: object) -> bool:
    """Whether building the agent ``name`` runs the user's Python code (a malformed name: ``False``)."""
    kind = _kind_or_none(name)
    return kind is not None and kind.runs_code


__all__ = [
    "BATCHED",
    "HALVING",
    "KINDS",
    "MAX_SIMULATIONS",
    "OMNISCIENT",
    "ROLLOUTS",
    "SAMPLE_SUFFIX",
    "AgentKind",
    "AgentSpec",
    "is_python_target",
    "parse_agent_name",
    "runs_user_code",
    "searches",
]
