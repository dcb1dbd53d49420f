"""The wait limit of the subprocesses that the experiments tests start.

A limit only catches a hang; it never measures speed. Measured on a quiet 2-core machine: a tiny
``experiments.train`` run in a subprocess takes 5 s with the numba kernels cached and 30 s when
they compile first (a fresh clone); ``experiments.evaluate`` and ``experiments.play`` take under
3 s. A loaded machine runs them many times slower (a 120 s limit failed there), so the limit is
60 times the slowest of them.
"""

#: Seconds a test waits for a subprocess (or for a file it writes) before it calls it hung.
SUBPROCESS_S = 1800
