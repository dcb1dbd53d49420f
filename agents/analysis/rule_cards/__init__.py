"""Making and measuring the rule cards (`agents.rules`): the teacher's positions (`positions`) and the
figures of a card (`report`: agreement on held-out positions, strength on duplicate deals), run by
``python -m experiments.rule_cards``. Playing a card needs only `agents.rules`."""
