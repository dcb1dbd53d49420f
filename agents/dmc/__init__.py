"""Deep Monte-Carlo (DMC, DouZero's method): a Q(s, a) network learned from Monte-Carlo returns.

A second learning method beside PPO, for every game, on the batched engine:

* `agents.dmc.features`: each action's feature row (the game's action features where it has
  them, else the one-hot of the action id) and the Q network over the observation and them;
* `agents.dmc.rollout`: epsilon-greedy actors playing whole games on `pirate_envs.vector`,
  and the Monte-Carlo returns of their decisions;
* `agents.dmc.learner`: the regression of Q(s, a) onto those returns, and the training loop for
  a budget of learner decisions or CPU seconds;
* `agents.policy.dmc_file`: the agent file (the data-only format of `agents.policy.checkpoint`, its
  ``training.figures`` saying ``algorithm: dmc``) and the ``dmc:<file>`` agents of the registry.

The command is ``python -m experiments.train_dmc``; the guide is ``docs/guides/dmc.md``.
"""
