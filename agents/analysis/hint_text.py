"""A hint a player reads: the move in plain words and, for the best few moves, the agent's figure in words.

`hint` asks an agent about the position of a raw env (`agents.analysis.explain.explain_agent`) and
`describe` turns its answer into a `Hint`: which agent, what it plays, its `HINT_TOP` best moves
each with its figure said in words, and what that figure means:

* a trained network: how often its policy picks each move, as a percentage (tiny ones ``<0.1%``);
  this is the network's preference, not a chance of winning;
* a search (``mcts``, ``halving``): the share of its playouts spent on each move and their average
  return, the seat's lead in points over the best other seat where the playouts stop
  (`agents.search.ismcts`);
* Kapern's ``oracle``: the expected points of the turn after each move, played on perfectly;
* any other agent: its choice only.

`Hint.text` is the one rendering, shown by the terminal's ``hint`` command (`experiments.play`)
and the web table's Hint box (`Hint.to_dict`'s ``text``); ``moves`` keeps the raw figures.

Rule cards: `Hint.rule` adds the line ``the rule card says: <rule>``: `hint` fills it with the rule of the
game's shipped rule card (``rules:<env_id>``, `agents.rules`) that decides the position, or the card's
fallback, unless its ``rule`` argument gives one (`card_rule`; ``""``: no line); a game without a card gets
no line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from agents.analysis.explain import Explanation, MoveStat, explain_agent
from agents.base import Agent
from agents.registry import make_agent
from pirate_envs.core.text import counted

#: Moves a hint lists.
HINT_TOP = 3
#: Below this share a percentage is shown as ``<0.1%`` (and above one less it, as ``>99.9%``).
TINY = 0.0005
#: What each kind of agent is, named in a hint's first line.
KINDS = {"network": "a trained network", "search": "a search", "exact": "an exact solver", "choice": "an agent"}


@dataclass(frozen=True)
class HintLine:
    """One move of a hint: its ``label`` (what may be typed), the move in plain ``words`` and its ``figure``."""

    action: int
    label: str
    words: str
    figure: str


@dataclass(frozen=True)
class Hint:
    """What an agent advises, for a player to read (see the module docstring)."""

    agent: str
    kind: str  # "network", "search", "exact" or "choice": which figures it has
    choice: int
    choice_words: str
    lines: list[HintLine]
    meaning: str
    moves: list[MoveStat] = field(default_factory=list)
    rule: str | None = None

    def text(self) -> str:
        """The hint as lines: the advice, the best moves with their figures, what the figures mean, the rule."""
        out = [f"{self.agent} ({KINDS[self.kind]}) advises: {self.choice_words}"]
        if self.kind != "choice":
            out += [f"  {i}. {line.words}: {line.figure}" for i, line in enumerate(self.lines, 1)]
        out.append(self.meaning)
        if self.rule:
            out.append(f"the rule card says: {self.rule}")
        return "\n".join(out)

    def to_dict(self) -> dict[str, Any]:
        """The hint as JSON: its fields, ``text`` (`text`) and the raw figures of its moves (``moves``)."""
        return {
            "agent": self.agent,
            "kind": self.kind,
            "choice": self.choice,
            "choice_words": self.choice_words,
            "lines": [vars(line) for line in self.lines],
            "meaning": self.meaning,
            "rule": self.rule,
            "text": self.text(),
            "moves": [move.to_dict() for move in self.moves],
        }


def card_rule(env: Any) -> str | None:
    """The words of the shipped rule card's rule that decides the move on turn in ``env`` (its fallback when
    no rule does); ``None`` when the game ships no card or the game is over."""
    from agents.rules import applying_rule, load_card, shipped_card_path
    from agents.rules.agent import shipped_cards

    raw = env.unwrapped
    env_id = raw.metadata["name"]
    if not shipped_cards(env_id) or raw.game.done:
        return None
    card = _CARDS.get(env_id)
    if card is None:
        card = _CARDS[env_id] = load_card(shipped_card_path(env_id), env_id)
    rule = applying_rule(card, raw, raw.game.current_player)
    return rule.text if rule is not None else card.fallback_text()


#: The shipped rule cards loaded so far, by env id (read once per process).
_CARDS: dict[str, Any] = {}


def hint(env: Any, agent: Agent, name: str, seed: int = 0, top: int = HINT_TOP, rule: str | None = None) -> Hint:
    """What ``agent`` (called ``name``) advises at the position of the raw env ``env``, in words (`describe`),
    with the rule card's rule for the position (``rule``, else `card_rule`)."""
    every = explain_agent(env, agent, name, seed=seed, top=env.unwrapped.num_actions)
    return describe(every, top=top, rule=rule if rule is not None else card_rule(env))


def hint_named(env: Any, name: str, seed: int = 0, top: int = HINT_TOP, rule: str | None = None) -> Hint:
    """`hint` of the agent ``name`` (a registry name) built for the table of ``env`` (``ValueError``: none such)."""
    raw = env.unwrapped
    return hint(env, make_agent(name, raw.metadata["name"], seed=seed, env=raw), name, seed=seed, top=top, rule=rule)


def describe(answer: Explanation, top: int = HINT_TOP, rule: str | None = None) -> Hint:
    """``answer`` (every move of it: shares are of their sum) in words, its ``top`` best moves listed."""
    moves = answer.moves
    if moves and moves[0].probability is not None:
        kind = "network"
        figures = [f"picked {percent(m.probability)} of the time" for m in moves]  # type: ignore[arg-type]
        meaning = (
            f"The figures are how often the network {answer.agent} picks each move (its policy's share), "
            "not chances of winning."
        )
    elif moves and moves[0].visits is not None:
        kind = "search"
        total = sum(m.visits or 0 for m in moves)
        figures = [
            f"{percent((m.visits or 0) / max(total, 1))} of the search, average lead {m.value:+.1f}" for m in moves
        ]
        meaning = (
            f"The search {answer.agent} tried the moves in {total} playouts and spends most on the best; "
            "the average lead is your lead in points over the best other player where its playouts stop "
            "(a hand, a turn or the end; in Kapern the lead this turn adds, and a playout that ends the game "
            "adds a large bonus to its winner)."
        )
    elif moves and moves[0].expected_points is not None:
        kind = "exact"
        figures = [f"{m.expected_points:.1f} points expected this turn" for m in moves]
        meaning = (
            f"{answer.agent} computes exactly the points this turn is expected to score if you make the move "
            "and play the rest of the turn perfectly (stopping scores the points showing)."
        )
    else:
        kind = "choice"
        figures = ["its choice" for _ in moves]
        meaning = f"{answer.agent} gives no figures: only its choice."
    lines = [HintLine(m.action, m.label, move_words(m.label), f) for m, f in zip(moves[:top], figures)]
    return Hint(answer.agent, kind, answer.choice, move_words(answer.choice_label), lines, meaning, moves[:top], rule)


def percent(share: float) -> str:
    """A share in 0..1 as a percentage a player reads: ``34%``, ``7.5%``, ``<0.1%``."""
    if share < TINY:
        return "<0.1%"
    if share > 1 - TINY:
        return ">99.9%" if share < 1 else "100%"
    if share < 0.1:
        return f"{share * 100:.1f}%"
    return f"{share * 100:.0f}%"


def move_words(label: str) -> str:
    """A move's label (``env.action_to_string``) in plain words: ``reroll monkeyx1 sabrex2`` is
    ``re-roll 1 monkey and 2 sabres``, ``bid 1`` is ``bid 1 trick``; a label not recognised is given
    with its underscores as spaces."""
    if label == "stop":
        return "stop and score"
    if label == "commit bid":
        return "commit your bid"
    if label.startswith("reroll "):
        dice = [re.fullmatch(r"([a-z]+)x(\d+)", word) for word in label.split()[1:]]
        if all(dice):
            return "re-roll " + _joined([counted(int(m[2]), m[1]) for m in dice])  # type: ignore[index]
    if m := re.fullmatch(r"bid (\d+)", label):
        return f"bid {counted(int(m[1]), 'trick')}"
    if m := re.fullmatch(r"bid ([a-z]+-\d+)", label):
        return f"put {m[1]} into your bid"
    if m := re.fullmatch(r"play (\d+) x (\S+)", label):
        kind = m[2].replace("_", " ")
        return f"play {counted(int(m[1]), 'card')} of {kind}"
    if m := re.fullmatch(r"play ([a-z_]+):([a-z_]+)", label):
        return f"play {m[1].replace('_', ' ')} as {m[2].replace('_', ' ')}"
    return label.replace("_", " ")


def _joined(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


__all__ = ["HINT_TOP", "KINDS", "Hint", "HintLine", "describe", "hint", "hint_named", "move_words", "percent"]
