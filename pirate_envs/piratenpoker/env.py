"""DOC"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from pirate_envs.core.aec import PirateAECEnv
from pirate_envs.core.observation import ObservationLayout
from pirate_envs.piratenpoker.engine import PiratenpokerEngine
from pirate_envs.piratenpoker.observation import Encoder
from pirate_envs.piratenpoker.rules import Config
from pirate_envs.piratenpoker.view import View


class raw_env(PirateAECEnv):
    """Piratenpoker as a PettingZoo AEC environment (see the module docstring)."""

    metadata: ClassVar[dict[str, Any]] = {**PirateAECEnv.metadata, "name": "piratenpoker_v0"}
    CONFIG = Config
    ENGINE = PiratenpokerEngine
    SCORE_SCALE = 0.1

    def build_layout(self) -> ObservationLayout:
        self._encoder = Encoder(self.config)
        return self._encoder.layout

    def encode(self, view: View) -> np.ndarray:
        return self._encoder.encode(view)
