"""Videos of games: Gymnasium's ``RecordVideo`` on the single-agent ids, and the PettingZoo env's frames saved
with Gymnasium's ``save_video`` (both write through moviepy: extra ``render``)."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import agents  # noqa: F401  (registers the Gymnasium ids)
import pirate_envs

pytest.importorskip("PIL")
pytest.importorskip("moviepy")
pytest.importorskip("sb3_contrib")  # the single-agent ids' opponents run on the train extra


@pytest.mark.parametrize("gym_id", sorted(pirate_envs.GYMNASIUM_IDS))
def test_record_video_of_a_single_agent_id(gym_id, tmp_path):
    env = gymnasium.make(gym_id, render_mode="rgb_array")
    assert env.metadata["render_fps"] > 0
    env = gymnasium.wrappers.RecordVideo(env, str(tmp_path), episode_trigger=lambda episode: True, disable_logger=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(500):
        mask = env.unwrapped.action_masks()
        _, _, terminated, truncated, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        if terminated or truncated:
            break
    env.close()
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000


def test_video_of_a_pettingzoo_game(tmp_path):
    from gymnasium.utils.save_video import save_video

    env = pirate_envs.make("piraten_kapern_v0", render_mode="rgb_array", num_players=2)
    env.reset(seed=0)
    frames = [env.render()]
    rng = np.random.default_rng(0)
    for _ in env.agent_iter(max_iter=60):
        obs, _, terminated, truncated, _ = env.last()
        env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        frames.append(env.render())
    assert len({frame.shape for frame in frames}) == 1 and frames[0].dtype == np.uint8
    save_video(frames, str(tmp_path), fps=env.metadata["render_fps"], name_prefix="kapern")
    videos = list(tmp_path.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 1000
