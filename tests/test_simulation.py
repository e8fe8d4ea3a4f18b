"""The Gaussian-copula simulator."""
import random

import pytest

import bootstrap_eval_deltas as bed
import oracle


@pytest.mark.parametrize("seed", [0, 1, 2026, 99])
@pytest.mark.parametrize("corr, acc_a, acc_b", [
    (0.6, 0.72, 0.76), (0.0, 0.5, 0.5), (0.95, 0.1, 0.9)])
def test_simulate_matches_oracle(seed, corr, acc_a, acc_b):
    fast, slow = random.Random(seed), random.Random(seed)
    got = bed.simulate(fast, 300, corr=corr, acc_a=acc_a, acc_b=acc_b)
    assert got == oracle.simulate(slow, 300, corr, acc_a, acc_b)
    assert fast.getstate() == slow.getstate()


def test_three_gauss_calls_per_item():
    rng, count = random.Random(5), random.Random(5)
    bed.simulate(rng, 7)
    for _ in range(21):
        count.gauss(0, 1)
    assert rng.getstate() == count.getstate()


def test_rates_and_agreement_are_as_designed():
    # 20,000 items: each rate is within 0.01 of its target (about three
    # standard errors), and the shared difficulty makes the systems agree
    # more often than independent ones would.
    pairs = bed.simulate(random.Random(3), 20000)
    a = sum(x for x, _ in pairs) / len(pairs)
    b = sum(y for _, y in pairs) / len(pairs)
    both = sum(x and y for x, y in pairs) / len(pairs)
    assert abs(a - 0.72) < 0.01 and abs(b - 0.76) < 0.01
    assert both > a * b + 0.03


@pytest.mark.parametrize("acc_b", [
    pytest.param(0.72, marks=pytest.mark.slow), pytest.param(0.8, marks=pytest.mark.slow)])
def test_replays_by_counts_agree_with_item_by_item(acc_b):
    # simulate --by-counts draws each replay's cells as one multinomial
    # and takes the ideal bootstrap's interval; its coverage and its share
    # excluding zero (power, or the false-positive rate at no gap) agree
    # with the item-by-item loop's within Monte Carlo error.
    import math
    design = dict(n_items=120, acc_a=0.72, acc_b=acc_b, corr=0.6)
    slow = bed.coverage(random.Random(1), replays=100, resamples=300,
                        **design)
    fast = bed._coverage_by_counts(random.Random(2), replays=1500, **design)
    assert fast.method == "by counts" and slow.method == "item by item"
    for a, b in ((slow.covered, fast.covered),
                 (slow.excludes_zero, fast.excludes_zero)):
        p, q = a / slow.replays, b / fast.replays
        se = math.sqrt(p * (1 - p) / slow.replays + q * (1 - q) / fast.replays)
        assert abs(p - q) <= 3 * max(se, 0.01)


def test_the_run_by_counts_draws_the_article_bootstraps_laws():
    # simulate --by-counts draws the single run's resamples from the cell
    # counts: each replicate set has the mean and variance of the index
    # draws' law (a binomial for each system, the multinomial's
    # difference for the paired one, a difference of two binomials for
    # the unpaired), within 4 standard errors over 4,000 resamples, and
    # its intervals lie within a point of the article's own draws.
    import math
    rng = random.Random(7)
    pairs = bed.simulate(rng, 300)
    n, resamples = len(pairs), 4000
    fast = bed._compare_binary_by_counts(pairs, random.Random(8),
                                         resamples=resamples)
    slow = bed._compare_binary(pairs, random.Random(9), resamples=resamples)
    assert (fast.a, fast.b, fast.gap, fast.p) == (slow.a, slow.b, slow.gap,
                                                  slow.p)
    for f, s in ((fast.ci_a, slow.ci_a), (fast.ci_b, slow.ci_b),
                 (fast.ci_paired, slow.ci_paired),
                 (fast.ci_unpaired, slow.ci_unpaired)):
        assert abs(f.lo - s.lo) <= 0.01 and abs(f.hi - s.hi) <= 0.01
    a_only = sum(1 for a, b in pairs if a and not b)
    b_only = sum(1 for a, b in pairs if b and not a)
    mean = (b_only - a_only) / n
    var = ((a_only + b_only) / n - mean ** 2) / n    # of the paired mean
    got = fast.draws
    m = sum(got) / resamples
    v = sum((x - m) ** 2 for x in got) / (resamples - 1)
    assert abs(m - mean) <= 4 * math.sqrt(var / resamples)
    assert abs(v / var - 1) <= 4 * math.sqrt(2 / resamples)


def test_the_ideal_paired_interval_against_enumeration():
    # 12 items, 3 right for A alone and 4 for B alone: the exact law of the
    # resampled sum of differences by enumerating the multinomial, against
    # the saddlepoint's percentile interval: the same ends, -4 and +6.
    import collections
    import math
    n, a_only, b_only = 12, 3, 4
    law = collections.Counter()
    for x in range(n + 1):
        for y in range(n - x + 1):
            law[y - x] += (math.factorial(n) // (math.factorial(x)
                           * math.factorial(y) * math.factorial(n - x - y))
                           * a_only ** x * b_only ** y
                           * (n - a_only - b_only) ** (n - x - y))
    total, run, lo, hi = sum(law.values()), 0, None, None
    for d in sorted(law):
        run += law[d]
        if lo is None and run >= 0.025 * total:
            lo = d
        if hi is None and run >= 0.975 * total:
            hi = d
    got = bed._ideal_paired_interval(a_only, b_only, n)
    assert (got.lo * n, got.hi * n) == (lo, hi) == (-4, 6)


def test_replays_by_counts_at_one_item():
    # A one-item eval has empty cells; the ideal interval once took the
    # log of a zero count.
    cov = bed._coverage_by_counts(random.Random(3), replays=20, n_items=1)
    assert cov.replays == 20 and cov.method == "by counts"
    assert bed._ideal_paired_interval(0, 1, 1) == bed.Interval(1, 1)


@pytest.mark.parametrize("argv, words", [
    (["--peeking", "--by-counts"], "--peeking does not go with --by-counts"),
    (["--differences", "normal", "--by-counts"],
     "--by-counts replays the binary design's coverage loop")])
def test_by_counts_is_refused_where_no_binary_loop_runs(argv, words, capsys):
    # --peeking and --differences ignored --by-counts without a word.
    assert bed.main(argv + ["--replays", "5"]) == 2
    assert words in capsys.readouterr().err
