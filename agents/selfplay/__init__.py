"""Self-play: one learner against a pool of opponents.

* `agents.selfplay.opponents`: the opponent pool (agent names by weight, frozen snapshots of the learner).
* `agents.selfplay.env`: `SelfPlayEnv`, the one-game Gymnasium env (the ``pirate_envs/<Game>-v0`` ids).
* `agents.selfplay.batched_vec_env`: `BatchedSelfPlayVecEnv`, many tables on the numba batched engine.
* `agents.selfplay.vec_env`: ``make_vec_env``, the vector env of training (batched, processes or one process).
"""
