"""The benchmark: a named, versioned protocol (``pirate-bench v2``), its runner, control variates and leaderboard.

* `agents.benchmark.protocol`: the version, the published deals and the fixed line-ups.
* `agents.benchmark.run`: every line-up's duplicate games on the batched engine, and the figures
  (``results.json``, ``results.md``).
* `agents.benchmark.control_variates`: luck measured by value functions fixed in advance, and the
  corrected (variance-reduced, unbiased) estimates beside the raw ones.
* `agents.benchmark.leaderboard`: every built-in agent of every game under the protocol, as a page.

``python -m experiments.benchmark`` is the command over this library; ``docs/benchmark.md`` the
protocol's text, version policy and changelog.
"""
