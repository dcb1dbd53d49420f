"""The terminal player's ``hint [AGENT]`` command: an agent's view of the moves, never a move itself."""

from __future__ import annotations

import io

import pirate_envs
from agents.analysis.hint_text import hint_named
from experiments.play import PlayArgs, play


def play_typed(env_id: str, typed: str, seed: int) -> str:
    out = io.StringIO()
    play(PlayArgs(env_id=env_id, agents=["heuristic"], seed=seed), read=io.StringIO(typed), write=out)
    return out.getvalue()


def first_position(env_id: str, seed: int):
    env = pirate_envs.make(env_id, raw=True, num_players=2)
    env.reset(seed=seed)
    return env


def test_hint_shows_the_agents_answer_and_plays_nothing():
    text = play_typed("piraten_kapern_v0", "hint\nhint oracle\nhint mcts:20\nq\n", seed=1)
    env = first_position("piraten_kapern_v0", 1)  # seat 0 decides first: the position of the hints
    for name in ("ppo:piraten_kapern_v0", "oracle", "mcts:20"):
        expected = hint_named(env, name)
        assert f"  {expected.text().splitlines()[0]}\n" in text  # who advises what
        for number, line in enumerate(expected.lines, 1):
            assert f"    {number}. {line.words}: {line.figure}\n" in text
    assert "points expected this turn" in text and "of the search" in text and "of the time" in text
    assert "probability" not in text and "e-0" not in text  # words and percentages, no raw figures
    assert "re-rolls" not in text and "stops" not in text  # no move was played: the hints are not moves
    assert text.count("your move (a move,") == 4


def test_hint_with_a_bad_agent_says_why_in_one_line_and_asks_again():
    text = play_typed("skull_king_v0", "hint nobody\nhint a b\nhint heuristic\nq\n", seed=3)
    assert "hint nobody: no agent 'nobody' for skull_king_v0" in text
    assert "hint takes one agent name at most" in text
    assert "heuristic (an agent) advises: " in text
    assert "quit; the standings so far:" in text
