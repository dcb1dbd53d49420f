"""Multi-agent self-play on Ray RLlib (the ``rllib`` extra); ``python -m experiments.rllib_selfplay`` runs it.

* `agents.rllib.env`: `LeagueEnv`, a pirate env as an RLlib multi-agent env whose seats are
  the learner, frozen snapshots of it or agents of ``agents.registry``.
* `agents.rllib.module`: `MaskedPPOModule`, RLlib's default PPO module with illegal actions masked.
* `agents.rllib.training`: `RLlibPlan` (one run), the PPO config, the league schedule of
  snapshots, the training loop and the export of the learner to a data-only agent file.

Importing this package imports nothing from Ray; its modules do.
"""
