"""Where play goes wrong: the decisions that cost an agent the most, by situations a player recognises.

* `situations`: each game's situation of a decision in words, from the deciding seat's View (each game's
  agents package declares its own: ``agents/<game>/mistakes.py``);
* `regret`: a decision's regret, the value of the best move less the value of the move chosen
  (Kapern: the exact one-turn oracle; elsewhere: the ``halving`` search's pick, re-measured on fresh
  shared worlds);
* `play`: the agent under study against heuristics, every counted decision measured;
* `stats`: per situation its frequency, mean regret, cost per game and share, bootstrapped over games;
* `run`: one game's statistics (the published plans); `page`: the strategy page's section.

The command is ``python -m experiments.strategy_mistakes``.
"""
