"""The lobby's strength note per agent: fixed lines for built-in kinds, a network's figures from its own file."""

from __future__ import annotations

import re
import shutil

from agents.policy.agent import shipped_checkpoints
from tests.web.conftest import require_module, table_client

require_module("starlette", "web")
require_module("httpx", "web")

import pirate_envs  # noqa: E402
from agents.policy.agent import PRETRAINED_DIR, load_checkpoint  # noqa: E402
from experiments.web.server import create_app  # noqa: E402
from tests.helpers import one_table_agent_file  # noqa: E402


def test_every_offered_agent_has_a_note_and_a_networks_figures_come_from_its_file(tmp_path):
    shutil.copy(PRETRAINED_DIR / "skull_king_v0.npz", tmp_path / "mine.npz")
    one_table_agent_file(tmp_path / "bare.npz", "skull_king_v0", 3)  # a file whose header has no figures
    (tmp_path / "broken.npz").write_bytes(b"not a zip")
    with table_client(create_app(tmp_path)) as client:
        games = client.get("/api/games").json()
    for env_id, game in games.items():
        notes = game["agent_notes"]
        assert set(notes) == set(game["agents"]), env_id
        assert all(isinstance(note, str) and note and "\n" not in note for note in notes.values()), notes
        assert env_id in shipped_checkpoints()  # every game version ships an agent
        figures = " ".join(load_checkpoint(env_id)[1]["training"]["figures"].values())
        shipped = notes[f"ppo:{env_id}"]
        rates = re.findall(r"\d\.\d+ \[\d\.\d+, \d\.\d+\]", shipped)
        assert rates and all(rate in figures for rate in rates), shipped  # every figure is the file's own
    notes = games["skull_king_v0"]["agent_notes"]
    assert notes["file:mine.npz"] == notes["ppo:skull_king_v0"]
    assert "RESULTS" in notes["file:bare.npz"]
    assert "cannot be read" in notes["file:broken.npz"] and str(tmp_path) not in notes["file:broken.npz"]
    assert notes["heuristic"] != notes["random"]
    kinds = ("random", "heuristic", "mcts", "halving", "halving:ppo:skull_king_v0")
    assert len({notes[name] for name in kinds}) == len(kinds), "an agent has another's note"
    assert set(pirate_envs.ENV_IDS) == set(games)
    kapern = games["piraten_kapern_v0"]["agent_notes"]
    assert kapern["race"] != kapern["oracle"] and "two players" in kapern["race"]
    responses = [kapern[f"best_response:{opponent}"] for opponent in ("oracle", "heuristic")]
    assert len({*responses, kapern["race"]}) == 3 and all("two players" in note for note in responses)
