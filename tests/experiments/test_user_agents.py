"""Your own Python agent (``file.py:factory``, ``package.module:factory``) in evaluate, play and the benchmark:
said to run its code, refused clearly and early when it cannot play, never loaded by the web table."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from agents.registry import make_agent
from experiments import evaluate
from experiments.cli import check_agents
from experiments.play import PlayArgs, play
from tests.helpers import refused

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "my_agent.py"
KAPERN = "piraten_kapern_v0"
SAID = "a Python agent; loading it runs its code, on this machine"


def test_evaluate_plays_the_example_agent_and_says_it_runs_its_code(capsys):
    name = f"{EXAMPLE}:make"
    results = evaluate.main(["--env-id", KAPERN, "--agents", name, "random", "--games", "4", "--no-progress"])
    out = capsys.readouterr().out
    assert out.index(SAID) < out.index("win rate")  # said before any game
    assert [result.agent for result in results] == [name, "random"] and results[0].seats_played == 4


def test_play_seats_the_example_agent(capsys):
    out = io.StringIO()
    play(PlayArgs(env_id=KAPERN, agents=[f"{EXAMPLE}:make"], seat=1, seed=3), read=io.StringIO(""), write=out)
    assert SAID in capsys.readouterr().out
    text = out.getvalue()
    assert "opponents: player_0 " in text and "my_agent.py:make\n" in text
    assert "* player_0 stops" in text  # its rule: stop whenever stopping is allowed; it moved before we quit


def bot(tmp_path: Path, body: str, name: str = "bot.py") -> str:
    source = tmp_path / name
    source.write_text(body)
    return str(source)


def test_a_factory_that_returns_none_is_refused_before_any_game(tmp_path, capsys):
    name = bot(tmp_path, "def make(env_id, seed, env):\n    return None\n") + ":make"
    message = refused(capsys, evaluate.main, ["--env-id", KAPERN, "--agents", name, "random"])
    assert "bot.py:make returned None (NoneType), not an agent" in message and "act(observation, view)" in message


def test_a_file_that_exits_is_refused_naming_the_file(tmp_path, capsys):
    name = bot(tmp_path, "import sys\n\nsys.exit(0)\n", "quits.py") + ":make"
    message = refused(capsys, evaluate.main, ["--env-id", KAPERN, "--agents", name, "random"])
    assert "quits.py failed to load: it called sys.exit(0)" in message


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("X = 1" + "0" * 5000 + "\n", "Exceeds the limit (4300 digits)"),
        ("X = int('1' * 5000)\n", "Exceeds the limit (4300 digits)"),
        ('X = """never closed\n', "unterminated triple-quoted string"),
        ("import sys\n\nsys.exit(3)\n", "it called sys.exit(3)"),
    ],
)
def test_a_crafted_module_is_refused_naming_its_file(tmp_path, monkeypatch, body, words):
    package = tmp_path / f"crafted_{tmp_path.name}"  # a package of its own: imported modules are kept
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "bad.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ValueError) as caught:
        make_agent(f"{package.name}.bad:make", KAPERN)
    message = str(caught.value)
    assert message.startswith(f"{package.name}.bad (bad.py) failed to load: ") and words in message
    assert "\n" not in message


def test_commands_that_do_not_take_your_code_refuse_it_before_loading(tmp_path):
    marker = tmp_path / "ran"
    name = bot(tmp_path, f"open({str(marker)!r}, 'w').close()\n\n\ndef make(env_id, seed, env):\n    pass\n") + ":make"
    with pytest.raises(ValueError, match=r"^--opponents '.*bot.py:make': a Python agent runs your code; "):
        check_agents([name], KAPERN, 2, "--opponents")
    assert not marker.exists()


def test_the_web_table_never_loads_the_example_agent():
    from experiments.web.sessions import AgentCatalog, RequestError

    with pytest.raises(RequestError, match="unknown agent"):
        AgentCatalog().build(f"{EXAMPLE}:make", KAPERN, 0, None)
