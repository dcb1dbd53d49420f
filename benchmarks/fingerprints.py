"""Write the protocol's fingerprints and deal plan into the package (`agents.benchmark.fingerprint.FOLDER`).

    python benchmarks/fingerprints.py                       # every game of the protocol
    python benchmarks/fingerprints.py --env-ids skull_king_v0

Run it when a change moves an opponent's play on purpose, together with a new protocol revision
(`agents.benchmark.protocol.REVISION`); ``python -m experiments.benchmark --verify docs/results/data``
fails until then. One file per game, each written whole, then renamed; a few CPU-minutes in all.
"""

from __future__ import annotations

import argparse
import json
import time

from agents.benchmark.fingerprint import FOLDER, package_document
from agents.benchmark.protocol import REFERENCE_SHA256
from agents.policy.checkpoint import write_atomic


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env-ids", nargs="+", default=list(REFERENCE_SHA256), choices=list(REFERENCE_SHA256))
    args = parser.parse_args(argv)
    for env_id in args.env_ids:
        start = time.process_time()
        document = package_document(env_id)
        path = write_atomic(FOLDER / f"{env_id}.json", json.dumps(document, indent=1) + "\n")
        print(f"wrote {path} ({time.process_time() - start:.1f} CPU-s)")


if __name__ == "__main__":
    main()
