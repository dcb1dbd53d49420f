"""Time the rollout's masked draw (`agents.ppo.iteration.sample_masked`) against ``torch.multinomial``.

``python benchmarks/bench_sampling.py`` prints the median milliseconds per call of 128 rows for
the action counts of the four games (one torch thread), and their ratio.
"""

from __future__ import annotations

import statistics
import time

import torch

from agents.ppo.algorithm import sample_masked_multinomial
from agents.ppo.iteration import sample_masked

GAMES = {"piraten_kapern_v0": 2084, "lucky_pirate_v0": 124, "skull_king_v0": 67, "piratenpoker_v0": 13}


def median_ms(draw, logits: torch.Tensor, masks: torch.Tensor, calls: int = 200, repeats: int = 5) -> float:
    """Median over ``repeats`` of the mean milliseconds per call."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            draw(logits, masks)
        times.append((time.perf_counter() - start) / calls * 1e3)
    return statistics.median(times)


def main() -> None:
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(0)
    print("| game | actions | multinomial ms | inverse CDF ms | ratio |\n|---|---|---|---|---|")
    for game, actions in GAMES.items():
        logits = torch.randn(128, actions, generator=generator)
        masks = torch.rand(128, actions, generator=generator) < 0.3
        masks[:, 0] = True
        old, new = median_ms(sample_masked_multinomial, logits, masks), median_ms(sample_masked, logits, masks)
        print(f"| {game} | {actions} | {old:.3f} | {new:.3f} | {old / new:.1f} |")


if __name__ == "__main__":
    main()
