"""The rules panel's text is the rules section of each game's docs page (its env module docstring), kept in sync."""

from __future__ import annotations

import json

import pirate_envs
from experiments.web.sessions import RULES_FILE, rules_summary, write_rules


def test_the_shipped_rules_are_the_rules_sections_of_the_docs(tmp_path):
    shipped = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    fresh = tmp_path / "rules.json"
    write_rules(fresh)
    assert shipped == json.loads(fresh.read_text(encoding="utf-8")), (
        "experiments/web/static/rules.json is stale: "
        'python -c "from experiments.web.sessions import write_rules; write_rules()"'
    )
    assert set(shipped) == set(pirate_envs.ENV_IDS)
    for env_id in pirate_envs.ENV_IDS:
        paragraphs = rules_summary(env_id)
        assert paragraphs and not any("Arguments" in p or "``" in p for p in paragraphs), env_id
    assert any("Island of Skulls" in p for p in shipped["piraten_kapern_v0"])
