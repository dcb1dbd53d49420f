"""The distiller: a small tree over named features that agrees most with a teacher, as a rule card.

Input: per position the feature values ``X`` (n x features), the action each choice names
``A`` (n x choices, -1 where it names no legal move) and the teacher's action ``y``. A choice
*agrees* at a position when its action is the teacher's (with the vocabulary's ``move_kind``, a
move of the teacher's kind counts ``kind_credit``). The tree grows best-first (the split that purifies the
agreeing choices most, each leaf playing its most agreeing choice) up to ``max_leaves`` leaves of
at least ``min_leaf`` positions, grown while the card keeps at most ``max_rules`` rules of at
most `agents.rules.card.MAX_CONDITIONS` conditions each; sibling leaves of one choice are merged;
each leaf becomes a rule (its path's conditions, tightest bound per feature); the choice whose
leaves hold most positions becomes the fallback and its rules are dropped (the leaves are
disjoint, so this changes no move). Positions may be weighed (``weights``: e.g. so that each kind
of decision, a bid or a card, weighs the same in all). Pure numpy: no scikit-learn needed.

`card_actions` replays a card on such arrays exactly as `agents.rules.agent.decide` plays it.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field

import numpy as np

from agents.rules.card import MAX_CONDITIONS, Condition, Rule, RuleCard, make_card
from agents.rules.vocabulary import Vocabulary


@dataclass(eq=False)
class _Node:
    rows: np.ndarray
    bounds: dict[str, tuple[float | None, float | None]]
    choice: int
    agree: float
    split: tuple[int, float, float, float] | None = None  # feature, left <=, right >=, gain
    children: list[_Node] = field(default_factory=list)


def _purity(counts: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """A Gini-like purity of a part: sum over choices of agreeing weight squared, over the part's weight."""
    return (counts**2).sum(axis=-1) / np.maximum(weight, 1e-12)


def _best_split(
    X: np.ndarray, agree: np.ndarray, w: np.ndarray, rows: np.ndarray, kinds: list[str], min_leaf: int
) -> tuple[int, float, float, float] | None:
    """The split of ``rows`` that purifies the agreeing choices most: ``(feature, left_max, right_min, gain)``.

    Purity, not the agreement itself, so that a split whose parts both keep the parent's choice
    but prepare a later split still counts.
    """
    parent = _purity(agree[rows].sum(axis=0), w[rows].sum())
    best = None
    for f in range(X.shape[1]):
        x = X[rows, f]
        order = np.argsort(x, kind="stable")
        xs = x[order]
        cum = np.cumsum(agree[rows][order], axis=0)
        cum_w = np.cumsum(w[rows][order])
        cuts = np.flatnonzero(xs[1:] != xs[:-1])  # last index of each left part
        cuts = cuts[(cuts + 1 >= min_leaf) & (len(xs) - cuts - 1 >= min_leaf)]
        if not len(cuts):
            continue
        left, left_w = cum[cuts], cum_w[cuts]
        gain = _purity(left, left_w) + _purity(cum[-1] - left, cum_w[-1] - left_w) - parent
        k = int(np.argmax(gain))
        if best is None or gain[k] > best[3]:
            a, b = float(xs[cuts[k]]), float(xs[cuts[k] + 1])
            if kinds[f] == "number":
                a = b = (a + b) / 2
            else:
                b = a + 1 if a.is_integer() and b.is_integer() else b
            best = (f, a, b, float(gain[k]))
    return best if best is not None and best[3] > 1e-9 else None


def grow_tree(
    X: np.ndarray, agree: np.ndarray, w: np.ndarray, names: list[str], kinds: list[str], max_leaves: int, min_leaf: int
) -> tuple[list[_Node], int]:
    """The leaves of the best-first tree after merging (see the module docstring), and how many it grew."""

    def node(rows: np.ndarray, bounds: dict[str, tuple[float | None, float | None]]) -> _Node:
        counts = agree[rows].sum(axis=0)
        made = _Node(rows, bounds, int(np.argmax(counts)), float(counts.max()))
        made.split = _best_split(X, agree, w, rows, kinds, min_leaf)
        return made

    root = node(np.arange(len(X)), {})
    leaves = [root]
    heap: list[tuple[float, int, _Node]] = []
    counter = 0
    if root.split:
        heap.append((-root.split[3], counter, root))
    while heap and len(leaves) < max_leaves:
        _, _, parent = heapq.heappop(heap)
        f, a, b, _ = parent.split  # type: ignore[misc]
        name = names[f]
        low, high = parent.bounds.get(name, (None, None))
        x = X[parent.rows, f]
        left = node(parent.rows[x <= a], {**parent.bounds, name: (low, a)})
        right = node(parent.rows[x > a], {**parent.bounds, name: (b, high)})
        parent.children = [left, right]
        leaves.remove(parent)
        leaves += [left, right]
        for child in (left, right):
            if child.split:
                counter += 1
                heapq.heappush(heap, (-child.split[3], counter, child))
    grown = len(leaves)
    _merge(root)
    return _leaves(root), grown


def _merge(node: _Node) -> None:
    """Fold two sibling leaves that play one choice into their parent (bottom up)."""
    for child in node.children:
        _merge(child)
    if node.children and all(not c.children for c in node.children) and len({c.choice for c in node.children}) == 1:
        node.choice = node.children[0].choice
        node.children = []


def _leaves(node: _Node) -> list[_Node]:
    return [node] if not node.children else [leaf for c in node.children for leaf in _leaves(c)]


def _conditions(bounds: dict[str, tuple[float | None, float | None]]) -> tuple[Condition, ...]:
    conditions = []
    for name, (low, high) in bounds.items():
        if low is not None:
            conditions.append(Condition(name, ">=", low))
        if high is not None:
            conditions.append(Condition(name, "<=", high))
    return tuple(conditions)


def distil(
    vocabulary: Vocabulary,
    X: np.ndarray,
    A: np.ndarray,
    y: np.ndarray,
    teacher: str,
    max_rules: int = 19,
    min_leaf: int = 20,
    weights: np.ndarray | None = None,
) -> RuleCard:
    """A card of at most ``max_rules`` rules distilled from the teacher's actions ``y``.

    The tree grows leaves (4 at a time) while its card keeps at most ``max_rules`` rules; the
    last such card is returned. ``weights`` (one per position, default 1) weigh each agreeing
    position in the splits and leaves.
    """
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=float)
    agree = ((y[:, None] == A) & (A >= 0)).astype(float)
    if vocabulary.move_kind is not None:
        kind = np.vectorize(vocabulary.move_kind, otypes=[np.int64])
        same_kind = (kind(np.maximum(A, 0)) == kind(y)[:, None]) & (A >= 0)
        agree = np.maximum(agree, vocabulary.kind_credit * same_kind)
    agree *= w[:, None]
    best = None
    for leaves_wanted in range(max_rules + 1, 4 * (max_rules + 1) + 1, 4):
        rules, fallback, grown = _card_of(vocabulary, np.asarray(X, dtype=float), agree, w, leaves_wanted, min_leaf)
        if len(rules) > max_rules or any(len(rule.when) > MAX_CONDITIONS for rule in rules):
            break
        best = rules, fallback
        if grown < leaves_wanted:  # the tree stopped growing: more leaves change nothing
            break
    if best is None:  # even the smallest tree has a rule of too many conditions: grow it shallower
        return (
            distil(vocabulary, X, A, y, teacher, max_rules // 2, min_leaf, weights)
            if max_rules > 1
            else make_card(vocabulary.env_id, teacher, [], vocabulary.fallback)
        )
    return make_card(vocabulary.env_id, teacher, best[0], best[1])


def _card_of(
    vocabulary: Vocabulary, X: np.ndarray, agree: np.ndarray, w: np.ndarray, max_leaves: int, min_leaf: int
) -> tuple[list[Rule], str, int]:
    """The rules and fallback of a tree of at most ``max_leaves`` leaves, and how many leaves it grew."""
    names = [f.name for f in vocabulary.features]
    kinds = [f.kind for f in vocabulary.features]
    leaves, grown = grow_tree(X, agree, w, names, kinds, max_leaves, min_leaf)
    held = np.zeros(agree.shape[1])
    for leaf in leaves:
        held[leaf.choice] += w[leaf.rows].sum()
    fallback = int(np.argmax(held))
    kept = sorted((leaf for leaf in leaves if leaf.choice != fallback), key=lambda leaf: -w[leaf.rows].sum())
    choice_names = [c.name for c in vocabulary.choices]
    return [Rule(_conditions(leaf.bounds), choice_names[leaf.choice]) for leaf in kept], choice_names[fallback], grown


def card_actions(card: RuleCard, X: np.ndarray, A: np.ndarray, first_legal: np.ndarray) -> np.ndarray:
    """The card's action at each position of the arrays (as `agents.rules.agent.decide` plays)."""
    vocabulary = card.vocabulary
    column = {f.name: i for i, f in enumerate(vocabulary.features)}
    choice = {c.name: i for i, c in enumerate(vocabulary.choices)}
    out = np.full(len(X), -1, dtype=np.int64)
    for rule in card.rules:
        holds = (out < 0) & (A[:, choice[rule.then]] >= 0)
        for c in rule.when:
            x = X[:, column[c.feature]]
            holds &= (x <= c.value) if c.op == "<=" else (x >= c.value)
        out[holds] = A[holds, choice[rule.then]]
    rest = out < 0
    fallback = A[:, choice[card.fallback]]
    out[rest] = np.where(fallback[rest] >= 0, fallback[rest], first_legal[rest])
    return out
