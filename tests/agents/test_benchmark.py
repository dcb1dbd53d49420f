"""The benchmark protocol: published deals, duplicate rotation, determinism, control variates, leaderboard."""

from __future__ import annotations

import json

import numpy as np
import pytest

pytest.importorskip("numba")
pytest.importorskip("openskill")
pytest.importorskip("stable_baselines3")

import pirate_envs
from agents.benchmark import control_variates, protocol, run
from agents.benchmark.leaderboard import build_leaderboard, leaderboard_markdown
from agents.benchmark.protocol import Lineup, deal_states
from agents.benchmark.provenance import code_sha256
from agents.benchmark.run import ProtocolRun, duplicate_layout, play_chunk, play_lineup, play_lineups, run_protocol
from agents.registry import agent_names
from tests.game_data import by_version, short_game_entry

KAPERN = "piraten_kapern_v0"
SKULL_KING = "skull_king_v0"


def without_compute(document: dict) -> dict:
    """The document minus the machine-dependent timings and the provenance (date, CPU time)."""
    copy = json.loads(json.dumps(document))
    copy.pop("provenance", None)
    for lineup in copy["lineups"]:
        lineup.pop("compute")
    return copy


def test_deals_are_the_published_list():
    states = deal_states()
    assert states.dtype == np.uint64 and len(states) == protocol.DEAL_COUNT
    assert len(set(states.tolist())) == len(states)
    assert deal_states(5).tolist() == states[:5].tolist()
    with pytest.raises(ValueError, match=r"deals must be in 1\.\.10000"):
        deal_states(0)


def test_a_changed_master_seed_is_refused(monkeypatch):
    monkeypatch.setattr(protocol, "MASTER_SEED", protocol.MASTER_SEED + 1)
    with pytest.raises(RuntimeError, match="another deal list"):
        deal_states(3)


@pytest.mark.parametrize("env_id", sorted(protocol.REFERENCE_SHA256))
def test_the_ppo_opponent_is_the_reference_network_whatever_is_shipped(env_id, tmp_path, monkeypatch):
    import hashlib

    path = protocol.reference_network(env_id)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == protocol.REFERENCE_SHA256[env_id]
    assert protocol.opponent_agent("ppo", env_id) == f"ppo:{path}"
    # A newer agent shipped in its place, the reference kept aside: the opponent stays the reference.
    shipped, kept = tmp_path / "pretrained", tmp_path / "reference"
    shipped.mkdir(), kept.mkdir()
    (shipped / f"{env_id}.npz").write_bytes(path.read_bytes() + b"another network")
    (kept / f"{env_id}.npz").write_bytes(path.read_bytes())
    monkeypatch.setattr(protocol, "PRETRAINED_DIR", shipped)
    monkeypatch.setattr(protocol, "REFERENCE_DIR", kept)
    protocol.reference_network.cache_clear()
    assert protocol.opponent_agent("ppo", env_id) == f"ppo:{kept / f'{env_id}.npz'}"
    (kept / f"{env_id}.npz").unlink()  # lost: refused, not replaced by the shipped file
    protocol.reference_network.cache_clear()
    with pytest.raises(RuntimeError, match=r"reference network of .* is missing"):
        protocol.opponent_agent("ppo", env_id)
    monkeypatch.undo()
    protocol.reference_network.cache_clear()


def test_lineups_follow_the_shipped_agents_table_sizes():
    lineups = protocol.lineups(SKULL_KING, (2, 4), version=2)
    assert [(x.players, x.opponent) for x in lineups if x.opponent != "ppo"] == [
        (n, o) for n in (2, 4) for o in ("random", "heuristic", "mcts")
    ]
    assert all(
        x.deals == (protocol.SEARCH_DEAL_COUNT if x.opponent == "mcts" else protocol.DEAL_COUNT) for x in lineups
    )
    assert {x.deals for x in protocol.lineups(KAPERN, (2,), deals=7, version=2)} == {7}


def test_search_lineups_play_in_small_batches():
    assert Lineup(KAPERN, 2, "mcts", 9).chunk_deals("random") == protocol.SEARCH_CHUNK_DEALS
    assert Lineup(KAPERN, 2, "random", 9).chunk_deals("mcts:50") == protocol.SEARCH_CHUNK_DEALS
    assert Lineup(KAPERN, 2, "random", 9).chunk_deals("heuristic") == protocol.CHUNK_DEALS


@pytest.mark.parametrize("players", [2, 3, 5])
def test_duplicate_layout_seats_the_candidate_once_at_every_seat_per_deal(players):
    deals = deal_states(4)
    states, seats = duplicate_layout(deals, players)
    for d, state in enumerate(deals.tolist()):
        games = slice(d * players, (d + 1) * players)
        assert sorted(seats[games].tolist()) == list(range(players))
        assert set(states[games].tolist()) == {state}


def test_rotations_of_a_deal_deal_the_same_game():
    """Deterministic identical agents: every rotation of a deal plays the same game (the same
    cards and dice at every seat), so each deal's score rows are equal, and the candidate's
    mean over them is exactly chance."""
    played = play_chunk(Lineup(KAPERN, 3, "heuristic", 6), "heuristic", deal_states(6), 0)
    scores = played.scores.reshape(6, 3, 3)
    assert (scores == scores[:, :1]).all()
    assert len({tuple(row) for row in scores[:, 0].tolist()}) > 1  # the deals differ
    share = played.shares[np.arange(18), played.candidate_seat].reshape(6, 3).mean(axis=1)
    assert np.allclose(share, 1 / 3)


def test_same_agent_same_numbers_twice_and_with_workers(monkeypatch):
    monkeypatch.setattr(protocol, "CHUNK_DEALS", 3)  # several batches, so --workers spreads them
    plan = ProtocolRun(KAPERN, "random", (2,), 7, 1, ("random", "heuristic"))
    first = without_compute(run_protocol(plan))
    second = without_compute(run_protocol(plan))
    plan.workers = 2
    parallel = without_compute(run_protocol(plan))
    assert first == second == parallel
    assert [x["games"] for x in first["lineups"]] == [14, 14]
    assert first["protocol"] == "pirate-bench v3.1" and first["full_protocol"] is False


# the table sizes by version: each game's ``chance_centred_tables`` in tests/<game>/short_games.json
@pytest.mark.parametrize(
    ("env_id", "players"), [(env_id, n) for env_id, sizes in by_version("chance_centred_tables").items() for n in sizes]
)
def test_corrected_estimate_of_identical_agents_centres_on_chance(env_id, players):
    document = run_protocol(ProtocolRun(env_id, "random", (players,), 48, 1, ("random",)))
    win = document["lineups"][0]["estimates"]["win"]
    for kind in ("raw", "corrected"):
        _, low, high = win[kind]
        assert low <= 1 / players <= high, (kind, win)


def test_cross_fitting_keeps_the_mean_exactly():
    """y = 0.3 + 2 x + noise with E[x] = 0: the corrected mean is 0.3 on average (no bias from fitting)
    and its variance is far below the raw one."""
    rng = np.random.default_rng(0)
    raw, corrected = [], []
    for _ in range(3000):
        x = rng.normal(size=(12, 2))
        y = 0.3 + 2 * x[:, 0] + rng.normal(scale=0.5, size=12)
        raw.append(y.mean())
        corrected.append(control_variates.cross_fitted(y, x).mean())
    corrected = np.array(corrected)
    standard_error = corrected.std() / np.sqrt(len(corrected))
    assert abs(corrected.mean() - 0.3) < 4 * standard_error
    assert np.var(raw) > 4 * np.var(corrected)


def test_cross_fitting_needs_enough_units():
    y, x = np.array([1.0, 0.0, 1.0]), np.ones((3, 2))
    assert control_variates.cross_fitted(y, x).tolist() == y.tolist()


def test_kapern_luck_terms_have_mean_zero():
    """Each seat's luck is a sum of terms of expectation zero: over games it averages to zero."""
    played = play_chunk(Lineup(KAPERN, 2, "random", 120), "heuristic", deal_states(120), 0)
    luck = played.luck
    assert luck is not None and luck.shape == (240, 2)
    for seat in range(2):
        assert abs(luck[:, seat].mean()) < 4 * luck[:, seat].std() / np.sqrt(len(luck))
    # the luck explains the outcome: the seat with more luck scores more
    assert np.corrcoef(luck[:, 0] - luck[:, 1], played.scores[:, 0] - played.scores[:, 1])[0, 1] > 0.3


def test_kapern_control_variate_halves_the_variance():
    """The oracle's luck halves the variance of the oracle-against-heuristic win rate (512 deals;
    the figures are deterministic, so this is the measured reduction, not a draw of it)."""
    document = run_protocol(ProtocolRun(KAPERN, "oracle", (2,), 512, 1, ("heuristic",)))
    win = document["lineups"][0]["estimates"]["win"]
    assert win["variance_ratio"] >= 2.0, win


def test_games_without_a_control_variate_report_raw_as_corrected():
    document = run_protocol(ProtocolRun("piratenpoker_v0", "random", (3,), 4, 1, ("heuristic",)))
    win = document["lineups"][0]["estimates"]["win"]
    assert win["raw"] == win["corrected"]
    assert document["control_variate"].startswith("none")


def test_leaderboard_at_a_tiny_budget():
    board = build_leaderboard(deals=2, search_deals=1, env_ids=(KAPERN,), opponents=("random", "heuristic"))
    page = leaderboard_markdown(board, "python -m experiments.benchmark --leaderboard x")
    assert "## piraten_kapern_v0" in page and "2 deals per line-up (1 where `mcts` plays)" in page
    rows = [line for line in page.splitlines() if line.startswith("| `")]
    assert sorted(row.split("`")[1] for row in rows) == sorted(agent_names(KAPERN))
    assert "(not against mcts, ppo at this budget)" in page and "| vs random | vs heuristic | rating" in page
    assert all(row.count("|") == 7 for row in rows)  # agent, strength, two line-ups, rating, µs/move
    assert rows[-1].startswith("| `mcts` | — |")  # one deal: listed after the ranked agents


def test_slow_lineups_are_handed_out_first_and_figures_keep_their_place(monkeypatch):
    """All the batches of several line-ups share one queue, those of an agent with no batched form
    first (so a slow line-up of one batch plays beside the fast ones, not after them); each line-up
    still gets its own games, the same as played alone."""
    monkeypatch.setattr(protocol, "CHUNK_DEALS", 2)
    plan = [(Lineup(KAPERN, 2, "random", 4), "heuristic"), (Lineup(KAPERN, 2, "heuristic", 1), "mcts:2")]
    order = []
    playing = run.play_chunk

    def recorded(lineup, candidate, deals, chunk_index):
        order.append(candidate.name)
        return playing(lineup, candidate, deals, chunk_index)

    monkeypatch.setattr(run, "play_chunk", recorded)
    together = play_lineups(plan, workers=1)
    assert order == ["mcts:2", "heuristic", "heuristic"]  # the search's batch first, then the two batches
    for (lineup, candidate), games in zip(plan, together):
        alone = play_lineup(lineup, candidate)
        assert games.lineup == lineup and np.array_equal(games.shares, alone.shares)
        assert np.array_equal(games.scores, alone.scores)


def test_leaderboard_figures_do_not_depend_on_workers():
    def figures(workers: int) -> list:
        board = build_leaderboard(deals=3, search_deals=1, env_ids=(KAPERN,), opponents=("random",), workers=workers)
        return [(a["agent"], [without_compute({"lineups": a["lineups"]})]) for a in board["games"][0]["agents"]]

    assert figures(1) == figures(2)


class FirstLegal:
    """A user's agent as a paper would write one: the first legal action (no package code)."""

    name = "first-legal"

    def reset(self, seed=None):
        self.moves = 0

    def act(self, observation, view=None):
        self.moves += 1
        return int(np.flatnonzero(observation["action_mask"])[0])


def make_first_legal(env_id, seed, env):
    """A factory of `FirstLegal` (``module:factory`` form: ``tests.agents.test_benchmark:make_first_legal``)."""
    return FirstLegal()


@pytest.mark.parametrize("candidate", [FirstLegal(), make_first_legal, "tests.agents.test_benchmark:make_first_legal"])
def test_a_python_agent_runs_through_the_api(candidate):
    """An agent object, a factory and a ``module:factory`` name play the same games, hashed by source."""
    import hashlib
    from pathlib import Path

    document = run_protocol(ProtocolRun(KAPERN, candidate, (2,), 3, 1, ("heuristic",)))
    first = run_protocol(ProtocolRun(KAPERN, make_first_legal, (2,), 3, 1, ("heuristic",)))
    assert without_compute(document)["lineups"] == without_compute(first)["lineups"]
    assert document["lineups"][0]["games"] == 6
    record = document["agents"]["candidate"]
    assert record["kind"] == "python" and record["file"] == "test_benchmark.py"
    assert record["sha256"] == hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    # playing first-legal is not playing the heuristic: the candidate's own moves were asked for
    heuristic = run_protocol(ProtocolRun(KAPERN, "heuristic", (2,), 3, 1, ("heuristic",)))
    assert document["lineups"][0]["mean_score"] != heuristic["lineups"][0]["mean_score"]


def test_python_agent_names():
    from agents.benchmark.candidate import is_python_agent

    assert is_python_agent("my_pkg.agents:make") and is_python_agent("path/to/bot.py:make")
    assert is_python_agent("bot.py:make")
    for name in ("ppo:skull_king_v0", "halving:ppo:skull_king_v0", "mcts:50", "heuristic", "ppo:a/b.npz", "x.py:1"):
        assert not is_python_agent(name), name


def test_loading_a_name_of_another_kind_is_refused_before_any_import():
    from agents.benchmark.candidate import load_python_agent

    for name in ("ppo:skull_king_v0", "rules:x.json", "heuristic"):
        with pytest.raises(ValueError, match=r"is not a Python agent: use path/to/file\.py:factory"):
            load_python_agent(name)


def test_a_python_agent_with_workers_plays_the_same_games(monkeypatch):
    """Worker processes are forked with the candidates: an agent object is never pickled."""
    monkeypatch.setattr(protocol, "CHUNK_DEALS", 2)
    agent = FirstLegal()
    agent.unpicklable = lambda: None  # a lambda cannot be pickled
    plan = ProtocolRun(KAPERN, agent, (2,), 5, 1, ("random",))
    alone = without_compute(run_protocol(plan))
    plan.workers = 2
    assert without_compute(run_protocol(plan))["lineups"] == alone["lineups"]


def test_results_carry_their_provenance():
    from pathlib import Path

    import tomllib

    document = run_protocol(ProtocolRun(SKULL_KING, "ppo:skull_king_v0", (3,), 1, 1, ("ppo",)))
    origin = document["provenance"]
    root = Path(__file__).resolve().parents[2]
    version = tomllib.loads((root / "pyproject.toml").read_text())["project"]["version"]
    assert origin["package_version"] == version
    assert origin["git"] is not None and len(origin["git"]["commit"]) == 40
    assert origin["code_sha256"] == code_sha256()
    assert origin["numpy"] == np.__version__ and origin["python"] and origin["platform"] and origin["date"]
    assert origin["cpu_seconds"] > 0
    assert document["deals"] == {"master_seed": protocol.MASTER_SEED, "sha256": protocol.DEALS_SHA256}
    candidate = document["agents"]["candidate"]
    assert candidate["kind"] == "registry" and candidate["file"] == "skull_king_v0.npz"
    assert [o["sha256"] for o in document["agents"]["opponents"]] == [protocol.REFERENCE_SHA256[SKULL_KING]]
    assert document["reduced"]["deals"] == {"3p vs ppo": "the first 1 of the published list (deals 0-0)"}


def test_a_network_given_by_path_is_recorded_by_file_name(tmp_path):
    path = tmp_path / "mine.npz"
    path.write_bytes(protocol.reference_network(KAPERN).read_bytes())
    document = run_protocol(ProtocolRun(KAPERN, f"ppo:{path}", (2,), 1, 1, ("random",)))
    assert str(tmp_path) not in json.dumps(document)
    assert document["candidate"] == "ppo:mine.npz" or document["agents"]["candidate"]["name"] == "ppo:mine.npz"
    assert document["agents"]["candidate"]["sha256"] == protocol.REFERENCE_SHA256[KAPERN]


def test_win_rate_intervals_stay_in_the_unit_interval():
    """One win in 40 deals: the normal interval's lower bound would be negative; it is clipped to 0."""
    from agents.benchmark.run import LineupGames, summarise_lineup

    deals, n = 40, 2
    seat = duplicate_layout(np.zeros(deals, dtype=np.uint64), n)[1]
    shares = np.zeros((deals * n, n))
    shares[np.arange(deals * n), 1 - seat] = 1.0  # the opponent wins every game ...
    shares[0] = 0.0
    shares[0, seat[0]] = 1.0  # ... but the first
    empty = np.zeros((deals * n, n))
    games = LineupGames(Lineup(KAPERN, n, "random", deals), empty, shares, np.zeros(deals * n, bool), None)
    summary = summarise_lineup(games)
    for kind in ("raw", "corrected"):
        mean, low, high = summary["estimates"]["win"][kind]
        assert low == 0.0 < mean < high <= 1.0


def test_v3_lineups_and_their_deals():
    from agents.benchmark import design

    for env_id in protocol.REFERENCE_SHA256:
        for lineup in protocol.lineups(env_id, protocol.table_sizes(env_id, "random")):
            assert lineup.opponent in protocol.OPPONENTS
            halving = lineup.opponent == "search" and short_game_entry(env_id, "search_by_halving")
            affordable = design.affordable_deals(env_id, lineup.players, lineup.opponent) if halving else None
            assert (design.MIN_SEARCH_DEALS if halving else design.MIN_DEALS) <= lineup.deals <= protocol.DEAL_COUNT
            assert lineup.deals == protocol.full_deals(env_id, lineup.players, lineup.opponent)
            measured = design.MEASURED_VARIANCE.get((env_id, lineup.players, lineup.opponent), 0.0)
            variance = max(measured, design.independent_variance(lineup.players))
            half_width = 1.959964 * (variance / lineup.deals) ** 0.5
            target = design.SEARCH_HALF_WIDTH if halving else design.HALF_WIDTH
            assert half_width <= target or lineup.deals in (design.MIN_DEALS, protocol.DEAL_COUNT, affordable)
    assert protocol.opponent_agent("search", SKULL_KING) == "halving:50"
    assert protocol.opponent_agent("search", KAPERN) == "oracle"
    assert [x.opponent for x in protocol.lineups(SKULL_KING, (4,), version=2)] == list(protocol.OPPONENTS_V2)
    with pytest.raises(ValueError, match="no protocol version 1"):
        protocol.lineups(SKULL_KING, (4,), version=1)


def test_a_full_run_of_every_game_fits_the_cpu_budget():
    """At the measured CPU seconds a game, a network candidate's full v3 run of each game is planned within one
    CPU-hour (before the search line-ups' cap, Skull King's was planned at about 1.2 CPU-hours and Lucky Pirate's
    at about 2.4), each search line-up within its share unless at the floor of deals."""
    from agents.benchmark import design

    for env_id in protocol.SEARCH_OPPONENTS:
        plan = [(x.players, x.opponent, x.deals) for x in protocol.lineups(env_id, pirate_envs.player_counts(env_id))]
        assert design.planned_seconds(env_id, plan) <= design.CPU_BUDGET_S, env_id
        for players, opponent, deals in plan:
            if opponent == "search" and protocol.SEARCH_OPPONENTS[env_id].startswith("halving"):
                cost = deals * players * design.MEASURED_SECONDS[(env_id, players, opponent)]
                assert cost <= design.search_cap(env_id) or deals == design.MIN_SEARCH_DEALS
        assert protocol.search_left_out(env_id) == ()  # every search line-up fits at the measured costs


def test_search_lineups_over_the_budget_are_left_out_from_the_largest_table(monkeypatch):
    from agents.benchmark import design

    sizes = pirate_envs.player_counts(SKULL_KING)
    assert [x.players for x in protocol.lineups(SKULL_KING, sizes, opponents=("search",))] == list(sizes)
    for n in (5, 6):  # the floor of deals at these costs takes the run over the hour
        monkeypatch.setitem(design.MEASURED_SECONDS, (SKULL_KING, n, "search"), 20.0)
    assert protocol.search_left_out(SKULL_KING) == (5, 6)
    assert [x.players for x in protocol.lineups(SKULL_KING, sizes, opponents=("search",))] == [2, 3, 4]
    assert len(protocol.lineups(SKULL_KING, (6,))) == 3  # random, heuristic and ppo still play there
    assert [x.opponent for x in protocol.lineups(SKULL_KING, (6,), version=2)] == list(protocol.OPPONENTS_V2)
    monkeypatch.delitem(design.MEASURED_SECONDS, (SKULL_KING, 6, "ppo"))  # a cost unknown: nothing is left out
    assert protocol.search_left_out(SKULL_KING) == ()


def test_a_costly_search_lineup_plays_fewer_deals_and_states_its_wider_interval(monkeypatch):
    from agents.benchmark import design

    key = (SKULL_KING, 4, "search")
    uncapped = design.deals_needed(design.design_variance(*key), design.SEARCH_HALF_WIDTH)
    monkeypatch.setitem(design.MEASURED_SECONDS, key, 0.001)  # cheap: the variance decides
    assert protocol.full_deals(*key) == max(design.MIN_DEALS, uncapped)
    assert design.planned_half_width(*key, protocol.full_deals(*key)) <= design.SEARCH_HALF_WIDTH
    monkeypatch.setitem(design.MEASURED_SECONDS, key, 2.0)  # the cap decides: its share of the search seconds
    deals = protocol.full_deals(*key)
    assert deals == int(design.search_cap(SKULL_KING) // (4 * 2.0)) < uncapped
    assert design.search_cap(SKULL_KING) == design.SEARCH_SECONDS / 5  # five table sizes share it
    assert design.planned_half_width(*key, deals) > design.SEARCH_HALF_WIDTH
    monkeypatch.setitem(design.MEASURED_SECONDS, key, 1000.0)  # never fewer than the floor
    assert protocol.full_deals(*key) == design.MIN_SEARCH_DEALS
    assert protocol.full_deals(SKULL_KING, 4, "heuristic") >= design.MIN_DEALS  # the cheap line-ups keep theirs
    assert protocol.full_deals(*key, version=2) == protocol.DEAL_COUNT  # v2 is unchanged (no search line-up)
    assert protocol.full_deals(SKULL_KING, 4, "mcts", version=2) == protocol.SEARCH_DEAL_COUNT


def test_an_agent_defined_without_a_file_has_no_hash():
    """An agent typed at a prompt (``<stdin>``, a notebook cell) plays; its record has no file to hash."""
    namespace: dict = {}
    exec(
        compile("def make(env_id, seed, env):\n    return FirstLegal()\n", "<stdin>", "exec"),
        {"FirstLegal": FirstLegal},
        namespace,
    )
    document = run_protocol(ProtocolRun(KAPERN, namespace["make"], (2,), 1, 1, ("random",)))
    assert document["agents"]["candidate"] == {"name": "make", "file": None, "sha256": None, "kind": "python"}
