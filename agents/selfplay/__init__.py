"""Self-play: one learner against a pool of opponents.

* `agents.selfplay.core`: the rules of an episode, written once for both engines (seat and
  opponent draws, reward accounting, ``truncation_reward``, the info of an ended game).
* `agents.selfplay.opponents`: the opponent pool (agent names by weight, frozen snapshots of the learner).
* `agents.selfplay.env`: `SelfPlayEnv`, the one-game Gymnasium env (the ``pirate_envs/<Game>-v0`` ids).
* `agents.selfplay.batched_vec_env`: `BatchedSelfPlayVecEnv`, many tables on the numba batched engine
  (opponents without a batched form through `agents.batched.one_game`).
* `agents.selfplay.vec_env`: ``make_vec_env``, the vector env of training (batched; without numba,
  `SelfPlayEnv`s in processes or one process).
"""
