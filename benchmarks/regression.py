"""The regression job: the tests that run one draw of one benchmark law and pin its exact
answer (pytest mark ``regression``). They pin the tuning rather than test a behaviour, so they
are not part of the README's test command (``.ci/run``); what they protect is covered there by
constructed unit cases where one could be written. Run them after a change of the tuning
record or the search plan, beside ``benchmarks/answers.py``, which checks every answer:

    python benchmarks/regression.py            # = python -m pytest -m regression -q tests
"""
from __future__ import annotations

import subprocess
import sys

if __name__ == "__main__":
    sys.exit(subprocess.call([sys.executable, "-m", "pytest", "-m", "regression", "-q", "-p", "no:cacheprovider",
                              *sys.argv[1:], "tests"]))
