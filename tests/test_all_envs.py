"""Properties every registered environment must have (parametrized over ``ENV_IDS``).

The properties are checked by `pirate_envs.testing.check_env`, one test per check; the tests
here add the clear errors for bad keywords and reset options.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import pirate_envs
from pirate_envs.testing import ENV_CHECKS, check_env
from tests.helpers import supported_player_counts

#: Random games per env id (spread over the supported player counts); the costlier checks
#: (information sets, score rewards, observations) play a fiftieth of them.
RANDOM_GAMES = 1000


def test_registry_lists_every_id():
    assert len(pirate_envs.ENV_IDS) == len(set(pirate_envs.ENV_IDS)) >= 1
    with pytest.raises(ValueError, match="valid ids"):
        pirate_envs.make("no_such_game_v0")


def test_bad_keyword_names_the_valid_ones(env_id):
    with pytest.raises(TypeError, match="num_players") as error:
        pirate_envs.make(env_id, no_such_option=1)
    layouts = ("table_layout",) if pirate_envs.game_spec(env_id).has("table_layouts") else ()
    for keyword in ("render_mode", "reward_mode", *layouts):  # the env's own keywords too
        assert repr(keyword) in str(error.value)
    with pytest.raises(ValueError, match="num_players"):
        pirate_envs.make(env_id, num_players=99)
    with pytest.raises(ValueError, match="reward_mode"):
        pirate_envs.make(env_id, reward_mode="money")


def test_unknown_reset_option_is_refused_naming_the_valid_ones(env_id):
    valid = list(pirate_envs.make(env_id, raw=True).game.RESET_OPTIONS)
    message = re.escape(f"unknown reset option(s) ['no_such_option']; valid options: {valid or 'none'}")
    for raw in (True, False):
        env = pirate_envs.make(env_id, raw=raw)
        with pytest.raises(ValueError, match=message):
            env.reset(seed=0, options={"no_such_option": 1})
        env.reset(seed=0)
        before = env.observe(env.agent_selection)["observation"].copy()
        with pytest.raises(ValueError, match=message):  # refused before anything changes
            env.reset(seed=1, options={**dict.fromkeys(valid[:1]), "no_such_option": 1})
        np.testing.assert_array_equal(env.observe(env.agent_selection)["observation"], before)
    assert bool(valid) == pirate_envs.game_spec(env_id).has("reset_options")
    with pytest.raises(ValueError, match=re.escape("unknown reset option(s) ['options', 3]")):
        pirate_envs.make(env_id, raw=True).reset(options={3: 1, "options": 1})  # api_test's probe beside another key


def test_pettingzoo_api(env_id):
    report = check_env(env_id, checks=["api"])  # PettingZoo's unmodified api_test at every table size
    assert report.player_counts == list(supported_player_counts(env_id))


@pytest.mark.parametrize("check", [name for name in ENV_CHECKS if name not in ("api", "copies")])
def test_env_check(env_id, check):
    """``check_env``'s check ``check`` (``seed``: PettingZoo's ``seed_test``; ``random_play``: the
    random games; ``information_set``: resampling what a seat cannot see; ...) at every table size.

    ``api`` runs above, ``copies`` in ``test_env_contract``."""
    report = check_env(env_id, games=RANDOM_GAMES, checks=[check])
    if check in report.skipped:
        pytest.skip(report.skipped[check])
    assert report.checked == [check]
