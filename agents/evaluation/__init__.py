"""The evaluation core: seat-rotated games between agents, their figures and their records.

* `agents.evaluation.games`: one game on a raw env (`play_game`), the seat rotation, and the
  jobs of a tournament played in one process or several (`play_jobs`).
* `agents.evaluation.summary`: win rates, mean scores and ratings per agent with 95% intervals
  over games (`summarise`), the head-to-head matrix, the markdown tables.
* `agents.evaluation.tournament`: a tournament of one lineup (`run_tournament`) or a league of
  every lineup (`run_league`), played and summarised; ``NAMEx<k>`` copies (`expand_copies`).
* `agents.evaluation.records`: one JSON record per game, saved without overwriting
  (`save_games`, or `RecordWriter` as games end), played back with every field checked (`replay`),
  and read back from folders to be summarised as one evaluation (`load_records`, `whole_deals`;
  `agents.evaluation.tournament.outcome_of_records`).

``python -m experiments.evaluate`` is the command over this library.
"""

from __future__ import annotations

from agents.evaluation.games import GameRecord, play_game, play_jobs, tournament_jobs
from agents.evaluation.records import RecordWriter, load_records, replay, save_games
from agents.evaluation.summary import AgentResult, head_to_head, markdown_table, summarise
from agents.evaluation.tournament import run_league, run_tournament

__all__ = [
    "AgentResult",
    "GameRecord",
    "RecordWriter",
    "head_to_head",
    "load_records",
    "markdown_table",
    "play_game",
    "play_jobs",
    "replay",
    "run_league",
    "run_tournament",
    "save_games",
    "summarise",
    "tournament_jobs",
]
