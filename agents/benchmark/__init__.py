"""The benchmark: a named, versioned protocol (``pirate-bench v3``, v2 kept), its runner, control variates, pages.

* `agents.benchmark.protocol`: the versions, the published deals and the fixed line-ups.
* `agents.benchmark.design`: v3's deals per line-up, from measured variance for a stated width, within
  the CPU budget at measured costs.
* `agents.benchmark.candidate`: the candidate: a registry name, a user's Python agent, an agent or a factory.
* `agents.benchmark.provenance`: versions, commit, date, CPU time and hashes in every results file.
* `agents.benchmark.pages`: one results page per game, and the README's games table, from results files.
* `agents.benchmark.board`: the leaderboard page from results files.
* `agents.benchmark.run`: every line-up's duplicate games on the batched engine, and the figures
  (``results.json``, ``results.md``).
* `agents.benchmark.batches`: a run's finished batches kept on disk, so that a stopped run goes on.
* `agents.benchmark.control_variates`: luck measured by value functions fixed in advance, and the
  corrected (variance-reduced, unbiased) estimates beside the raw ones.
* `agents.benchmark.leaderboard`: every built-in agent of every game played under v2 at a given budget.

``python -m experiments.benchmark`` is the command over this library; ``docs/benchmark.md`` the
protocol's text, version policy and changelog.
"""
