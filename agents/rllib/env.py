"""A pirate env as an RLlib multi-agent env with a league of opponents (``experiments.rllib_selfplay``).

`LeagueEnv` is RLlib's ``PettingZooEnv`` wrapper around ``pirate_envs.make(env_id)``
with two changes:

* **Observations for the masking module.** The games give ``{"observation", "action_mask"}``
  (an ``int8`` mask); the masking RLModule (`agents.rllib.module`) reads
  ``{"observations", "action_mask"}`` with a float mask. The wrapper renames and casts; the envs are not changed.
* **Seats by role.** Each episode the learner takes a random seat and every other seat gets a
  role drawn from the opponent weights: ``self`` (the learning policy again: live self-play),
  ``snapshot`` (one of the frozen copies of the learner, uniformly), or any agent name of
  ``agents.registry`` (``heuristic``, ``random``, ``ppo:<file>``...). Seats of the first two
  kinds are RLlib agents with ids ``"<module>@<seat>"`` (``learner@2``, ``snapshot_1@0``), so
  `module_of` maps an agent to its RLModule from its id alone. Agents of the registry
  (which read the game's view, not only the vector) move inside `LeagueEnv.step`.

Rewards are the AEC env's: each RLlib agent gets what it earned since its last move when it is
on turn again, and everything at the end of the game.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

import pirate_envs
from agents.selfplay.env import check_opponents

#: The learning policy's RLModule id.
LEARNER = "learner"
#: Opponent kind: the learning policy in another seat.
SELF = "self"
#: Opponent kind: a frozen snapshot of the learner (RLModules ``snapshot_0`` ...).
SNAPSHOT = "snapshot"
#: ``(observations, rewards, terminateds, truncateds, infos)`` keyed by agent id.
StepResult = tuple[dict, dict, dict, dict, dict]
#: Games in a row allowed to end before any RLlib agent moves.
MAX_EMPTY_EPISODES = 100


def snapshot_module(slot: int) -> str:
    """The RLModule id of snapshot slot ``slot``."""
    return f"{SNAPSHOT}_{slot}"


def module_of(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """RLlib's agent-to-module mapping: ``"snapshot_1@0"`` -> ``"snapshot_1"``."""
    return agent_id.split("@", 1)[0]


class LeagueEnv(PettingZooEnv):
    """RLlib's PettingZoo wrapper with masked observations and seats by role (module docstring).

    ``config`` keys: ``env_id``; ``env_kwargs`` (the game's options); ``reward_mode``;
    ``opponents`` (``{kind: weight}``, kinds ``self``, ``snapshot`` or agent names);
    ``num_snapshots`` (snapshot slots).
    """

    def __init__(self, config: dict[str, Any]):
        self.env_id = config["env_id"]
        reward_mode = config.get("reward_mode", "win")
        aec = pirate_envs.make(self.env_id, reward_mode=reward_mode, **config.get("env_kwargs", {}))
        super().__init__(aec)
        raw = aec.unwrapped
        self.game = raw.game
        self.seats = list(raw.possible_agents)
        self.num_snapshots = int(config.get("num_snapshots", 1))
        self.weights = {k: float(w) for k, w in config.get("opponents", {SELF: 1.0}).items() if w > 0}
        bots = {k: w for k, w in self.weights.items() if k not in (SELF, SNAPSHOT)}
        if bots:
            check_opponents(self.env_id, bots, raw)
        if not self.weights:
            raise ValueError(f"opponents: no kind with a weight above 0 in {config.get('opponents')}")
        self._kinds = list(self.weights)
        p = np.array([self.weights[k] for k in self._kinds])
        self._p = p / p.sum()
        self._bots: dict[tuple[str, int], Any] = {}
        inner = raw.observation_space(self.seats[0])["observation"]
        obs_space = spaces.Dict(
            {"observations": inner, "action_mask": spaces.Box(0.0, 1.0, (raw.num_actions,), np.float32)}
        )
        modules = [LEARNER] + [snapshot_module(i) for i in range(self.num_snapshots)]
        self.possible_agents = [f"{m}@{s}" for m in modules for s in range(len(self.seats))]
        self.agents = []
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(raw.num_actions) for a in self.possible_agents}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._rng = np.random.default_rng()
        self._ids: list[str | None] = []  # RLlib agent id per seat (None: an agent moving inside step)
        self._seat_bots: list[Any] = []

    # ------------------------------------------------------------------ seating
    def _seat_roles(self) -> None:
        """Draw this episode's roles: the learner's seat, then a kind per other seat."""
        rng, n = self._rng, len(self.seats)
        learner_seat = int(rng.integers(n))
        self._ids, self._seat_bots = [], []
        for seat in range(n):
            kind = SELF if seat == learner_seat else self._kinds[int(rng.choice(len(self._kinds), p=self._p))]
            bot = None
            if kind == SELF:
                agent_id = f"{LEARNER}@{seat}"
            elif kind == SNAPSHOT:
                agent_id = f"{snapshot_module(int(rng.integers(self.num_snapshots)))}@{seat}"
            else:
                agent_id, bot = None, self._bot(kind, seat)
                bot.reset(int(rng.integers(2**31)))
            self._ids.append(agent_id)
            self._seat_bots.append(bot)
        self.agents = [a for a in self._ids if a is not None]

    def _bot(self, name: str, seat: int) -> Any:
        from agents.registry import make_agent

        key = (name, seat)
        if key not in self._bots:
            self._bots[key] = make_agent(name, self.env_id, seed=seat, env=self.env.unwrapped)
        return self._bots[key]

    # ------------------------------------------------------------------ RLlib API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        for _ in range(MAX_EMPTY_EPISODES):
            self._seat_roles()
            obs, _ = super().reset(seed=int(self._rng.integers(2**63)), options=options)
            result = self._play_bots(obs, {}, {}, {}, {})
            if not result[2].get("__all__") and not result[3].get("__all__"):
                return result[0], result[4]
        raise RuntimeError(f"{self.env_id}: {MAX_EMPTY_EPISODES} games in a row ended before an RLlib agent moved")

    def step(self, action_dict: dict[str, int]) -> StepResult:
        inner = {self.seats[int(agent_id.rsplit("@", 1)[1])]: int(a) for agent_id, a in action_dict.items()}
        return self._play_bots(*super().step(inner))

    # ------------------------------------------------------------------ internals
    def _play_bots(self, obs: dict, rew: dict, term: dict, trunc: dict, info: dict) -> StepResult:
        """Let registry agents move while one is on turn; the result keyed by RLlib agent ids."""
        while not (term.get("__all__") or trunc.get("__all__")):
            (agent,) = obs
            seat = self.seats.index(agent)
            bot = self._seat_bots[seat]
            if bot is None:
                break
            view = self.game.view(seat) if getattr(bot, "uses_view", True) else None
            obs, rew, term, trunc, info = super().step({agent: bot.act(obs[agent], view)})
        return self._rename(obs, rew, term, trunc, info)

    def _rename(self, obs: dict, rew: dict, term: dict, trunc: dict, info: dict) -> StepResult:
        ids = {agent: self._ids[i] for i, agent in enumerate(self.seats) if self._ids[i] is not None}
        out_obs = {
            ids[a]: {"observations": o["observation"], "action_mask": o["action_mask"].astype(np.float32)}
            for a, o in obs.items()
            if a in ids
        }
        out = [{ids[a]: v for a, v in d.items() if a in ids} for d in (rew, term, trunc, info)]
        for d, src in zip(out[1:3], (term, trunc)):
            d["__all__"] = bool(src.get("__all__", False))
        return out_obs, out[0], out[1], out[2], out[3]
