"""The rule-card format: an ordered list of rules over a game's named features, as JSON.

A card file is JSON (never pickle, never evaluated):

```json
{"format": "pirate_envs.rule_card", "version": 1, "env_id": "skull_king_v0",
 "teacher": "ppo:skull_king_v0", "fallback": "heuristic",
 "rules": [{"when": [{"feature": "trumps", "op": ">=", "value": 2}], "then": "bid_strong"}]}
```

A rule applies when every condition of its ``when`` holds (an empty ``when`` always holds);
``op`` is ``<=`` or ``>=``. Names are checked against the game's `Vocabulary`. `load_card`
refuses files over `MAX_BYTES`, more than `MAX_RULES` rules or `MAX_CONDITIONS` conditions a
rule, wrong types, non-finite thresholds, unknown keys, features or choices. `card_text` prints
a card as the rules in words.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents.rules.vocabulary import Feature, Vocabulary, card_plays, vocabulary_of

FORMAT = "pirate_envs.rule_card"
VERSION = 1
MAX_BYTES = 64 * 1024
MAX_RULES = 24
MAX_CONDITIONS = 8
OPS = ("<=", ">=")


class CardError(ValueError):
    """A malformed or hostile card."""


@dataclass(frozen=True)
class Condition:
    """``feature op value``: the feature's value is at most (``<=``) or at least (``>=``) ``value``."""

    feature: str
    op: str
    value: float

    def holds(self, values: dict[str, float]) -> bool:
        x = values[self.feature]
        return x <= self.value if self.op == "<=" else x >= self.value


@dataclass(frozen=True)
class Rule:
    """``If <when>: <then>``; ``text`` is set by `RuleCard` (the rule in words)."""

    when: tuple[Condition, ...]
    then: str
    text: str = ""

    def holds(self, values: dict[str, float]) -> bool:
        return all(c.holds(values) for c in self.when)


@dataclass(frozen=True)
class RuleCard:
    """A validated card: its env id, teacher, rules in order and fallback choice."""

    env_id: str
    teacher: str
    rules: tuple[Rule, ...]
    fallback: str
    vocabulary: Vocabulary

    def fallback_text(self) -> str:
        return f"Otherwise: {self.vocabulary.choice(self.fallback).text}."

    def to_json(self) -> dict[str, Any]:
        """The card as its JSON object."""
        return {
            "format": FORMAT,
            "version": VERSION,
            "env_id": self.env_id,
            "teacher": self.teacher,
            "fallback": self.fallback,
            "rules": [
                {"when": [{"feature": c.feature, "op": c.op, "value": c.value} for c in r.when], "then": r.then}
                for r in self.rules
            ],
        }


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def rule_text(rule: Rule, vocabulary: Vocabulary) -> str:
    """``If A and B: move.`` (``Always: move.`` for a rule with no condition)."""
    move = vocabulary.choice(rule.then).text
    if not rule.when:
        return f"Always: {move}."
    bounds: dict[str, list[float | None]] = {}
    for c in rule.when:  # the tightest bounds per feature, in the order the features first appear
        low, high = bounds.setdefault(c.feature, [None, None])
        if c.op == ">=":
            bounds[c.feature][0] = c.value if low is None else max(low, c.value)
        else:
            bounds[c.feature][1] = c.value if high is None else min(high, c.value)
    words = [bound_text(vocabulary.feature(name), low, high) for name, (low, high) in bounds.items()]
    return "If " + " and ".join(words) + f": {move}."


def bound_text(feature: Feature, low: float | None, high: float | None) -> str:
    """``low <= feature <= high`` in words ("2 to 3 trumps in hand", "no Escapes in hand", "you lead")."""
    if feature.kind == "flag":
        yes = low is not None and low > 0
        no = high is not None and high < 1
        if yes == no:  # both or neither: a bound that says nothing of the flag
            return f"{feature.text} (any)"
        return feature.text if yes else (feature.negation or f"not: {feature.text}")
    if low is not None and high is not None:
        if low > high:
            return f"{feature.text}: never"
        return (
            f"{feature.text}: {_number(low)}" if low == high else f"{feature.text}: {_number(low)} to {_number(high)}"
        )
    if high is not None:
        return (
            f"{feature.text}: none"
            if high == 0 and feature.kind == "count"
            else f"{feature.text}: at most {_number(high)}"
        )
    return f"{feature.text}: at least {_number(low or 0)}"


def make_card(env_id: str, teacher: str, rules: list[Rule] | tuple[Rule, ...], fallback: str) -> RuleCard:
    """A card from rules (checked against ``env_id``'s vocabulary; each rule gets its text)."""
    return parse_card({**RuleCard(env_id, teacher, tuple(rules), fallback, vocabulary_of(env_id)).to_json()})


def _require(ok: bool, message: str) -> None:
    if not ok:
        raise CardError(message)


def _keys(obj: Any, required: set[str], where: str) -> None:
    _require(isinstance(obj, dict), f"{where}: expected an object")
    _require(set(obj) == required, f"{where}: keys must be {sorted(required)}, not {sorted(obj)}")


def parse_card(data: Any, env_id: str | None = None) -> RuleCard:
    """Validate a card's JSON object (`CardError` on anything malformed)."""
    _keys(data, {"format", "version", "env_id", "teacher", "fallback", "rules"}, "card")
    _require(data["format"] == FORMAT and data["version"] == VERSION, f"card: not a {FORMAT} version {VERSION}")
    for key in ("env_id", "teacher", "fallback"):
        _require(isinstance(data[key], str) and len(data[key]) <= 200, f"card: {key} must be a short string")
    _require(env_id is None or card_plays(data["env_id"], env_id), f"card: for {data['env_id']!r}, not {env_id!r}")
    try:
        vocabulary = vocabulary_of(data["env_id"])
    except (LookupError, ValueError) as error:
        raise CardError(f"card: {error}") from error
    choices = {c.name for c in vocabulary.choices}
    features = {f.name for f in vocabulary.features}
    _require(data["fallback"] in choices, f"card: unknown fallback choice {data['fallback']!r}")
    rules = data["rules"]
    _require(isinstance(rules, list) and len(rules) <= MAX_RULES, f"card: rules must be a list of at most {MAX_RULES}")
    parsed = []
    for i, raw in enumerate(rules):
        _keys(raw, {"when", "then"}, f"rule {i}")
        _require(raw["then"] in choices, f"rule {i}: unknown choice {raw['then']!r}")
        when = raw["when"]
        _require(
            isinstance(when, list) and len(when) <= MAX_CONDITIONS, f"rule {i}: at most {MAX_CONDITIONS} conditions"
        )
        conditions = []
        for j, c in enumerate(when):
            _keys(c, {"feature", "op", "value"}, f"rule {i} condition {j}")
            _require(c["feature"] in features, f"rule {i}: unknown feature {c['feature']!r}")
            _require(c["op"] in OPS, f"rule {i}: op must be one of {OPS}")
            value = c["value"]
            _require(
                isinstance(value, int | float) and not isinstance(value, bool), f"rule {i}: value must be a number"
            )
            _require(math.isfinite(value), f"rule {i}: value must be finite")
            conditions.append(Condition(c["feature"], c["op"], float(value)))
        rule = Rule(tuple(conditions), raw["then"])
        parsed.append(Rule(rule.when, rule.then, rule_text(rule, vocabulary)))
    return RuleCard(data["env_id"], data["teacher"], tuple(parsed), data["fallback"], vocabulary)


def load_card(path: str | Path, env_id: str | None = None) -> RuleCard:
    """Read and validate a card file (`CardError` for a malformed, hostile or oversized file)."""
    path = Path(path)
    _require(path.is_file(), f"{path}: no such card file")
    _require(path.stat().st_size <= MAX_BYTES, f"{path}: over {MAX_BYTES} bytes")
    with path.open("rb") as file:
        raw = file.read(MAX_BYTES + 1)
    _require(len(raw) <= MAX_BYTES, f"{path}: over {MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"), parse_constant=_refuse_constant)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise CardError(f"{path}: not JSON ({error})") from error
    return parse_card(data, env_id)


def _refuse_constant(name: str) -> None:
    raise CardError(f"card: {name} is no number")


def save_card(card: RuleCard, path: str | Path) -> Path:
    """Write ``card`` as JSON atomically."""
    from pirate_envs.core.files import write_atomic

    return write_atomic(path, json.dumps(card.to_json(), indent=1) + "\n")


def card_text(card: RuleCard) -> str:
    """The card in words: a title, the numbered rules, the fallback."""
    lines = [f"Rule card for {card.env_id} (distilled from {card.teacher}); the first rule that applies decides:"]
    lines += [f"{i}. {rule.text}" for i, rule in enumerate(card.rules, 1)]
    lines.append(f"{len(card.rules) + 1}. {card.fallback_text()}")
    return "\n".join(lines)
