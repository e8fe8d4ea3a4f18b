#!/usr/bin/env python3
"""Time the fast paths against the straightforward ones; check identity.

    python3 tests/benchmark.py                 # the whole default run
    python3 tests/benchmark.py --replays 100   # a tenth of it, quicker

Prints each case's time, the straightforward implementation's time on the
same work (tests/oracle.py, one randrange per index) and the ratio, and
fails loudly if any number differs.  Not part of the test suite: timings
on a shared machine are noisy, so they belong here, not in assertions.
"""
import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))
sys.path.insert(0, os.path.dirname(__file__))

import bootstrap_eval_deltas as bed  # noqa: E402
import oracle  # noqa: E402


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def fast_default_run(replays, jobs):
    rng = random.Random(bed.SEED)
    pairs = bed.simulate(rng)
    result = bed.compare_binary(pairs, rng)
    cov = bed.coverage(rng, replays=replays, jobs=jobs)
    return pairs, result, cov


def same_numbers(fast, slow):
    pairs, result, cov = fast
    n = len(pairs)
    scaled = tuple((ci.lo * n, ci.hi * n) for ci in
                   (result.ci_a, result.ci_b, result.ci_paired,
                    result.ci_unpaired))
    m = result.mcnemar
    return (pairs == slow["pairs"] and scaled == slow["ci"]
            and (m.a_only, m.b_only, m.p_exact) == slow["mcnemar"]
            and (cov.covered, cov.excludes_zero) == slow["coverage"])


def row(name, ours, theirs):
    print(f"{name:<38} {ours:9.3f} s {theirs:10.3f} s {theirs / ours:8.1f}x",
          flush=True)


def bootstrap_cases(resamples=2000):
    for n in (100, 500, 2000):
        pairs = bed.simulate(random.Random(n), n)
        fast, t_fast = timed(bed.paired_bootstrap, pairs, random.Random(1),
                             resamples=resamples)
        slow, t_slow = timed(oracle.paired_deltas, pairs, random.Random(1),
                             resamples)
        assert fast == slow, f"paired bootstrap differs at n={n}"
        row(f"paired bootstrap, n={n}, B={resamples}", t_fast, t_slow)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--replays", type=int, default=bed.REPLAYS)
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
          f"replays={args.replays}")
    print(f"{'case':<38} {'ours':>11} {'straightforward':>12} {'ratio':>9}")
    bootstrap_cases()
    slow, t_slow = timed(oracle.default_run, replays=args.replays)
    for jobs in (1, 2) if bed._can_fork() else (1,):
        fast, t_fast = timed(fast_default_run, args.replays, jobs)
        assert same_numbers(fast, slow), "default run numbers differ"
        row(f"default run, jobs={jobs}", t_fast, t_slow)
    print("all numbers identical to the straightforward implementation")


if __name__ == "__main__":
    main()
