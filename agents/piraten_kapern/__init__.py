"""Piraten Kapern's agents.

The heuristic, the exact turn oracle (each one-game and batched), the look-ahead, the two-player
race, its best responses and the analysis collector.
"""

from agents.games import GameAgents

AGENTS = GameAgents(
    heuristic="heuristic:KapernHeuristic",
    batched_heuristic="batched_heuristic:KapernHeuristicBatch",
    oracle="oracle:KapernOracleAgent",
    batched_oracle="batched_oracle:KapernOracleBatch",
    race="race:KapernRaceAgent",
    more_kinds=(
        ("best_response:oracle", "best_response:OracleBestResponse"),
        ("best_response:heuristic", "best_response:HeuristicBestResponse"),
    ),
    search_options="lookahead:SEARCH_OPTIONS",
    collector="analysis:PiratenKapernCollector",
    luck="luck:kapern_luck",
    luck_description="the exact one-turn oracle's value of each card and roll",
)

__all__ = ["AGENTS"]
