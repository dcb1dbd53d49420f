"""``experiments.evaluate`` counts Lucky Pirate's truncated games by reason (its stranded First Mates)."""

from __future__ import annotations

import json


def test_evaluate_counts_truncated_games_by_reason(tmp_path, capsys, monkeypatch):
    import pirate_envs
    from experiments.evaluate import main

    # two-player Lucky Pirate: under the old First Mate ruling (an option) some deals strand every seat
    make = pirate_envs.make

    def make_with_old_ruling(env_id, **kwargs):
        if env_id == "lucky_pirate_v0":
            kwargs.setdefault("first_mate_only_on_captain", True)
        return make(env_id, **kwargs)

    monkeypatch.setattr(pirate_envs, "make", make_with_old_ruling)
    main(["--env-id", "lucky_pirate_v0", "--agents", "heuristic", "random", "--games", "40", "--out", str(tmp_path)])
    payload = json.loads((tmp_path / "results.json").read_text())
    assert payload["truncation_reasons"].get("stranded First Mates", 0) > 0
    assert sum(payload["truncation_reasons"].values()) == payload["truncated"]
    assert f"{payload['truncated']} truncated (" in capsys.readouterr().out
