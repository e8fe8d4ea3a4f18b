import functools
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))
sys.path.insert(0, os.path.dirname(__file__))

import bootstrap_eval_deltas as bed  # noqa: E402

# One parser for the suite's ~850 calls of main(): building it takes about
# 8 ms (a process builds it once), 6-7 s of the suite's CPU.  Reusing it
# is the stricter test: a call that left state in the parser would show.
bed._build_parser = functools.lru_cache(maxsize=None)(bed._build_parser)

# An exception that escapes main() is a defect: the command line says so in
# one line and exits 70; in the suite it propagates, traceback and all, so
# that a test shows the real error (tests/test_fuzz.py unsets this).
os.environ["BOOTSTRAP_EVAL_DELTAS_TRACEBACK"] = "1"


def pytest_collection_finish(session):
    # What collection built (the module, the test modules, hypothesis's
    # strategies) lives the whole session: frozen out of the collector, it
    # is not walked again by each full collection during the run nor by
    # the five pytest makes at the end (its unraisable-exception check).
    import gc
    gc.collect()
    gc.freeze()
