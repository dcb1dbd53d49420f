"""The RLModule of ``experiments.rllib_selfplay``: RLlib's default PPO module with illegal actions masked.

The env (`agents.rllib.env.LeagueEnv`) gives each agent ``{"observations", "action_mask"}``.
`MaskedPPOModule` builds RLlib's default PPO networks (separate actor and critic MLPs) for the
observations alone, and sets the logits of the actions the mask rules out to the lowest float,
so that neither sampling nor the greedy move can pick them and their probabilities are zero in
the PPO loss. Built on ``DefaultPPOTorchRLModule``: the networks are the ones
`agents.rllib.training.export_actor` writes into a data-only agent file.
"""

from __future__ import annotations

from typing import Any

import torch
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

#: The keys of an agent's observation: the game's vector and its legal-action mask (``1.0``: legal).
OBSERVATIONS, ACTION_MASK = "observations", "action_mask"


class MaskedPPOModule(DefaultPPOTorchRLModule):
    """PPO over ``{"observations", "action_mask"}``: the networks read the observations, the mask gates the logits."""

    def __init__(self, *, observation_space: Any = None, **kwargs: Any):
        if observation_space is None or ACTION_MASK not in getattr(observation_space, "spaces", {}):
            raise ValueError(
                f"MaskedPPOModule needs a Dict observation space with {OBSERVATIONS!r} and {ACTION_MASK!r}"
            )
        self.masked_space = observation_space
        super().__init__(observation_space=observation_space[OBSERVATIONS], **kwargs)

    def setup(self) -> None:
        """Build the networks for the observations, then show RLlib the space the env gives (mask included)."""
        super().setup()
        self.observation_space = self.masked_space

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._take_mask(batch)
        return self._mask_logits(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        mask = self._take_mask(batch)
        return self._mask_logits(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> Any:
        self._take_mask(batch)
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _take_mask(batch: dict[str, Any]) -> Any:
        """The batch's mask; splits a ``{"observations", "action_mask"}`` observation in place (once).

        The learner computes the values of a batch before training on it: after the split, the
        batch holds the observations under ``Columns.OBS`` and the mask under ``"action_mask"``.
        """
        if isinstance(batch[Columns.OBS], dict):
            observation = batch[Columns.OBS]
            batch[ACTION_MASK] = observation[ACTION_MASK]
            batch[Columns.OBS] = observation[OBSERVATIONS]
        return batch[ACTION_MASK]

    @staticmethod
    def _mask_logits(outputs: dict[str, Any], mask: Any) -> dict[str, Any]:
        logits = outputs[Columns.ACTION_DIST_INPUTS]
        outputs[Columns.ACTION_DIST_INPUTS] = logits.masked_fill(mask <= 0, torch.finfo(logits.dtype).min)
        return outputs


__all__ = ["MaskedPPOModule"]
