"""Sampling from sufficient statistics: binomial, multinomial, grouping.

The fast paths draw other random numbers than index resampling, so they
are checked in distribution: chi-square goodness of fit against exact
probabilities, at fixed seeds, with a 1-in-100,000 threshold.
"""
import collections
import math
import random
from fractions import Fraction

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed


def chi_square_z(observed, expected, min_expected=5.0):
    """Return the Wilson-Hilferty z of the chi-square statistic.

    Cells expected below min_expected are pooled (in order) first.
    """
    cells, pool_o, pool_e = [], 0, 0.0
    for o, e in zip(observed, expected):
        pool_o, pool_e = pool_o + o, pool_e + e
        if pool_e >= min_expected:
            cells.append((pool_o, pool_e))
            pool_o, pool_e = 0, 0.0
    if pool_e and cells:
        o, e = cells.pop()
        cells.append((o + pool_o, e + pool_e))
    stat = sum((o - e) ** 2 / e for o, e in cells)
    df = len(cells) - 1
    if df < 1:
        return 0.0
    return (((stat / df) ** (1 / 3) - (1 - 2 / (9 * df)))
            / math.sqrt(2 / (9 * df)))


def binomial_pmf(n, p):
    return [math.exp(math.lgamma(n + 1) - math.lgamma(k + 1)
                     - math.lgamma(n - k + 1) + k * math.log(p)
                     + (n - k) * math.log1p(-p)) for k in range(n + 1)]


@pytest.mark.skipif(not hasattr(random.Random, "binomialvariate"),
                    reason="random.binomialvariate is Python 3.12+")
@settings(max_examples=66, deadline=None)
@given(n=st.integers(0, 10 ** 6), p=st.floats(0, 1), seed=st.integers(0, 99))
def test_binomial_is_cpythons_draw_for_draw(n, p, seed):
    ours, theirs = random.Random(seed), random.Random(seed)
    for _ in range(3):
        assert bed._binomial(ours, n, p) == theirs.binomialvariate(n, p)
    assert ours.getstate() == theirs.getstate()


@pytest.mark.parametrize("n, p", [(1, 0.3), (20, 0.2), (60, 0.1),
                                  (100, 0.5), (500, 0.72), (2000, 0.03),
                                  (10 ** 6, 0.4)])
def test_binomial_goodness_of_fit(n, p):
    rng = random.Random(n)
    draws = collections.Counter(bed._binomial(rng, n, p) for _ in range(20000))
    pmf = binomial_pmf(n, p) if n <= 2000 else None
    if pmf is None:                       # normal approximation is exact enough
        mean, sd = n * p, math.sqrt(n * p * (1 - p))
        z = (sum(k * c for k, c in draws.items()) / 20000 - mean) / (sd / 141.42)
        assert abs(z) < 4.5
        return
    observed = [draws[k] for k in range(n + 1)]
    assert chi_square_z(observed, [20000 * q for q in pmf]) < 4.5


def test_binomial_edges():
    assert bed._binomial(random.Random(1), 0, 0.5) == 0
    assert bed._binomial(None, 9, 0.0) == 0
    assert bed._binomial(None, 9, 1.0) == 9
    with pytest.raises(bed.EvalDeltaError):
        bed._binomial(None, 5, 1.5)


def test_multinomial_goodness_of_fit():
    weights = [5, 0, 2, 1]
    rng = random.Random(7)
    draws = collections.Counter(tuple(bed._multinomial(rng, 4, weights))
                                for _ in range(20000))
    outcomes, expected = [], []
    total = sum(weights)
    for x0 in range(5):
        for x2 in range(5 - x0):
            x3 = 4 - x0 - x2
            chance = (math.factorial(4) / (math.factorial(x0)
                      * math.factorial(x2) * math.factorial(x3))
                      * (5 / total) ** x0 * (2 / total) ** x2
                      * (1 / total) ** x3)
            outcomes.append((x0, 0, x2, x3))
            expected.append(20000 * chance)
    assert sum(draws.values()) == sum(draws[o] for o in outcomes)
    assert chi_square_z([draws[o] for o in outcomes], expected) < 4.5


@settings(max_examples=33, deadline=None)
@given(n=st.integers(0, 1000), weights=st.lists(st.integers(0, 50),
                                                min_size=1, max_size=8),
       seed=st.integers(0, 99))
def test_multinomial_sums_to_n_and_skips_empty_groups(n, weights, seed):
    if not sum(weights):            # nothing to draw from: words, or none
        if n:
            with pytest.raises(bed.EvalDeltaError, match="no weight"):
                bed._multinomial(random.Random(seed), n, weights)
        else:
            assert bed._multinomial(random.Random(seed), 0, weights) == \
                [0] * len(weights)
        return
    counts = bed._multinomial(random.Random(seed), n, weights)
    assert sum(counts) == n
    assert all(c == 0 for c, w in zip(counts, weights) if w == 0)


@settings(max_examples=50, deadline=None)
@given(n=st.sampled_from([0, 1, 2, 3, 9, 40, 250, 1001, 10 ** 5, 10 ** 7]),
       weights=st.lists(st.sampled_from([0, 0, 1, 2, 7, 60, 500, 10 ** 4]),
                        min_size=1, max_size=30),
       scale=st.sampled_from([1, 3, 0.1]), count=st.integers(1, 40),
       seed=st.integers(0, 10 ** 6))
@example(n=10 ** 5, weights=[7, 60, 500, 1] * 8, scale=1, count=5, seed=3)
def test_multinomials_are_multinomial_draw_for_draw(n, weights, scale,
                                                    count, seed):
    # The stream of draws, and the generator's state after them, must be
    # the one-at-a-time chain's (inversion below n p = 10, BTRS above,
    # p > 1/2 flipped, float weights rounding).
    weights = [w / scale if scale != 1 else w for w in weights]
    if n and not sum(weights):
        with pytest.raises(bed.EvalDeltaError, match="no weight"):
            list(bed._multinomials(random.Random(seed), n, weights, count))
        return
    one, many = random.Random(seed), random.Random(seed)
    expected = [bed._multinomial(one, n, weights) for _ in range(count)]
    assert list(bed._multinomials(many, n, weights, count)) == expected
    assert one.getstate() == many.getstate()


def exact_paired_gap(cells, n):
    """Exact distribution of B-only minus A-only over n draws of cells."""
    p10, p01 = Fraction(cells[1, 0], n), Fraction(cells[0, 1], n)
    rest = 1 - p10 - p01
    dist = collections.Counter()
    for x in range(n + 1):
        for y in range(n + 1 - x):
            dist[y - x] += (math.factorial(n) // (math.factorial(x)
                            * math.factorial(y) * math.factorial(n - x - y))
                            * p10 ** x * p01 ** y * rest ** (n - x - y))
    return dist


@pytest.mark.parametrize("grouped", [True, False])
def test_paired_gap_has_the_index_bootstraps_distribution(grouped):
    # 40 items in four cells; 20,000 resamples of the paired gap from the
    # cell counts (grouped) and from indices, each against the exact law.
    cells = collections.Counter({(1, 1): 22, (1, 0): 5, (0, 1): 9,
                                 (0, 0): 4})
    with pytest.MonkeyPatch.context() as patch:
        if not grouped:
            patch.setattr(bed, "_BOOT_GROUPED", 10 ** 9)
        r = bed._compare_tally(cells, random.Random(11),
                               bed._Options(resamples=20000))
    draws = collections.Counter(round(x * 40) for x in r.draws)
    law = exact_paired_gap(cells, 40)
    support = sorted(law)
    assert set(draws) <= set(support)
    assert chi_square_z([draws[k] for k in support],
                        [20000 * float(law[k]) for k in support]) < 4.5


def test_grouped_and_index_bootstraps_agree_on_every_statistic():
    # A 1-10 scale metric: few distinct pairs, so grouped by default.
    rng = random.Random(3)
    a = [rng.randint(1, 10) for _ in range(400)]
    b = [min(10, x + rng.choice((-1, 0, 1, 2))) for x in a]
    grouped = bed._compare_metric(a, b, random.Random(1),
                                  bed._Options(resamples=20000))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bed, "_BOOT_GROUPED", 10 ** 9)
        indexed = bed._compare_metric(a, b, random.Random(2),
                                      bed._Options(resamples=20000))
    for one, two in zip(grouped[7:11], indexed[7:11]):   # the four CIs
        assert abs(one.lo - two.lo) < 0.02 and abs(one.hi - two.hi) < 0.02
    assert grouped.gap == indexed.gap and grouped.se == indexed.se


def test_sign_flip_grouped_against_exact_enumeration():
    # 40 copies of three values: grouped Monte Carlo against the exact p
    # from the binomial convolution.
    values, counts = [-2, 1, 3], [10, 20, 10]
    whole = sum(v * c for v, c in zip(values, counts))
    dist = collections.Counter({0: Fraction(1)})
    for v, c in zip(values, counts):
        step = collections.Counter()
        for total, chance in dist.items():
            for k in range(c + 1):
                step[total + v * (c - 2 * k)] += (chance * math.comb(c, k)
                                                  / 2 ** c)
        dist = step
    exact = float(sum(q for t, q in dist.items() if abs(t) >= abs(whole)))
    p, how = bed._sign_flip(values, counts, random.Random(4), 20000)
    assert how == "monte carlo"
    assert abs(float(p) - exact) < 4.5 * math.sqrt(exact * (1 - exact) / 20000)


@pytest.mark.parametrize("n", [1, 7, 255, 65535, 65536, pytest.param(
    70001, marks=pytest.mark.slow), pytest.param(2 ** 20 + 1, marks=pytest.mark.slow)])
def test_pick_sums_match_one_randrange_at_a_time(n):
    # Sizes around the 16-bit table and the 17-bit and 21-bit lanes, with
    # chunks small enough that resamples straddle them (two resamples: the
    # second starts inside a chunk; a third checked nothing more).
    rng = random.Random(n)
    columns = [[rng.randrange(-50, 50) for _ in range(n)],
               [rng.getrandbits(40) for _ in range(n)]]
    count = 2 if n < 10 ** 6 else 1
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bed, "_CHUNK", 4099)
        fast = bed._pick_sums(random.Random(1), n, count, bed._packed(columns))
    slow, draw = [[], []], random.Random(1)
    for _ in range(count):
        picks = [draw.randrange(n) for _ in range(n)]
        for sums, column in zip(slow, columns):
            sums.append(sum(column[i] for i in picks))
    assert fast == slow


@settings(max_examples=16, deadline=None)
@given(ints=st.lists(st.integers(-2 ** 70, 2 ** 70), min_size=1,
                     max_size=60),
       pattern=st.integers(0, 2 ** 60))
def test_bit_plane_sum_is_the_subset_sum(ints, pattern):
    pattern &= (1 << len(ints)) - 1         # as getrandbits(len(ints)) gives
    total = bed._bit_plane_sum(ints, lambda: pattern)
    assert total() == sum(x for i, x in enumerate(ints) if pattern >> i & 1)


@pytest.mark.parametrize("a_only, b_only", [
    (20000, 31000), (60, 75), pytest.param(30000, 31000, marks=pytest.mark.slow),
    pytest.param(40000, 40500, marks=pytest.mark.slow)])
def test_mcnemar_in_floating_point_agrees_with_the_integers(a_only, b_only):
    exact = bed._mcnemar_tails(a_only, b_only)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bed, "_EXACT_LIMIT", 0)
        close = bed._mcnemar_tails(a_only, b_only)
    for x, y in zip(exact, close):
        assert abs(x - y) <= Fraction(1, 10 ** 8) * x


# -- Poisson weights (Bradley-Terry's rounds) ---------------------------------

@pytest.mark.parametrize("mean", [1, 3, 27, 400, 10 ** 5])
def test_poisson_table_is_the_poisson_distribution(mean):
    # Against the recurrence P(k) = P(k - 1) mean / k from P(first), in
    # floats: every entry within 1e-12 (1e-9 at 10^5, whose P(first) comes
    # from lgamma); the mass left out below the first entry under 1e-30,
    # and the table's mean and variance the mean's.
    first, cdf = bed._poisson_table(mean)
    log_p = first * math.log(mean) - mean - math.lgamma(first + 1)
    chance = math.exp(log_p)
    total, exact = chance, [chance]
    for k in range(first + 1, first + len(cdf)):
        chance *= mean / k
        total += chance
        exact.append(total)
    tolerance = 1e-9 if mean > 700 else 1e-12
    assert max(abs(e - c) for e, c in zip(exact, cdf)) < tolerance
    assert cdf[-1] == 1.0 and cdf == sorted(cdf)
    assert first == 0 or log_p < math.log(1e-30)
    chances = [b - a for a, b in zip([0.0] + cdf, cdf)]
    m = math.fsum(k * p for k, p in enumerate(chances, first))
    v = math.fsum((k - m) ** 2 * p for k, p in enumerate(chances, first))
    assert m == pytest.approx(mean, rel=1e-9)
    assert v == pytest.approx(mean, rel=1e-6)


def test_poisson_counts_goodness_of_fit_and_the_sequential_search():
    # Drawn from the tables, counts of Poisson(2.5) and Poisson(40) fit
    # their probabilities (chi-square), and each draw is the one
    # sequential search of the distribution function makes from the same
    # uniform (for means whose exp(-mean) is a normal float).
    import oracle
    tables = [bed._poisson_table(2.5), bed._poisson_table(40)]
    rng, twin = random.Random(3), random.Random(3)
    draws = [bed._poisson_counts(rng, tables) for _ in range(20000)]
    assert draws[:300] == [[oracle.poisson(twin, 2.5),
                            oracle.poisson(twin, 40)] for _ in range(300)]
    for column, mean in ((0, 2.5), (1, 40)):
        seen = collections.Counter(d[column] for d in draws)
        top = max(seen) + 1
        expected = [20000 * math.exp(k * math.log(mean) - mean
                                     - math.lgamma(k + 1))
                    for k in range(top)]
        assert chi_square_z([seen[k] for k in range(top)], expected) < 4.5


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 5), min_size=1, max_size=12),
       seed=st.integers(0, 10 ** 6))
def test_pair_sums_are_the_cell_by_cell_sums(sizes, seed):
    # A Bradley-Terry round's pair sums, as differences of running sums,
    # against the cell-by-cell twin: exact with halves and quarters as
    # shares (a tie, a win, a loss, a graded verdict).
    import oracle
    rng = random.Random(seed)
    cuts, shares = [0], []
    for size in sizes:
        cuts.append(cuts[-1] + size)
        shares += sorted(rng.sample([0.0, 0.25, 0.5, 0.75, 1.0], size))
    again = [rng.choice([0, 0, 1, 3, 50, 10 ** 6]) for _ in shares]
    spans = [(k, k + 1, a, b) for k, (a, b) in enumerate(zip(cuts, cuts[1:]))]
    tied = [int(x == 0.5) for x in shares]
    assert bed._pair_sums(again, cuts, shares, tied) == \
        oracle.pair_sums(again, spans, shares)
