"""Rule cards: a game's strongest honest agent distilled into a short decision list in words.

* `agents.rules.vocabulary`: a game's named features of the deciding seat's view and its named
  moves (declared by ``agents/<game>/rule_card.py`` as ``VOCABULARY``).
* `agents.rules.card`: the card format (JSON: ordered rules of conditions ``feature <= / >= value``
  and the move each prescribes, a fallback move), loaded with validation (`load_card`, never
  pickle or eval), printed in words (`card_text`).
* `agents.rules.agent`: the agent ``rules:<env_id>`` that plays a card (`RuleCardAgent`; numpy
  only) and `applying_rule`: the rule that decides a seat's move now, with its ``.text``.
* `agents.rules.distil`: the distiller (a small best-first tree over the features, as rules).
* Making and measuring a card lives in `agents.analysis.rule_cards` (the teacher's
  positions; agreement on held-out positions, strength on duplicate deals): ``python -m
  experiments.rule_cards``.

For hints:

```python
card = load_card(shipped_card_path("skull_king_v0"))
rule = applying_rule(card, env, seat)  # None: the card's fallback decides
print(rule.text if rule else card.fallback_text())
```
"""

from agents.rules.agent import RuleCardAgent, applying_rule, decide
from agents.rules.card import CardError, Condition, Rule, RuleCard, card_text, load_card, parse_card
from agents.rules.vocabulary import shipped_card_path, vocabulary_of

__all__ = [
    "CardError",
    "Condition",
    "Rule",
    "RuleCard",
    "RuleCardAgent",
    "applying_rule",
    "card_text",
    "decide",
    "load_card",
    "parse_card",
    "shipped_card_path",
    "vocabulary_of",
]
