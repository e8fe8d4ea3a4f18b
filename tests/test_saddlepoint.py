"""The saddlepoint: the ideal bootstrap and the sign-flip test without
resampling, against exact enumeration and against many resamples."""
import bisect
import collections
import json
import math
import random
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed
import oracle


def saddlepoint_interval(values, counts=None, *, confidence=bed.CONFIDENCE):
    """The ideal bootstrap's percentile interval of a mean, by the
    saddlepoint: counts[j] items have values[j]."""
    counts = list(counts or [1] * len(values))
    ints, scale = bed._exact_ints(list(values))
    return bed._law_interval(bed._SumLaw([(bed._law_part(
        bed._counted(ints, counts)), 1)]), scale * sum(counts), confidence)

LO, HI = Fraction(1, 40), Fraction(39, 40)        # the 95% percentile levels


def law_of(values, sign=1):
    counter = collections.Counter(values)
    return bed._SumLaw([(bed._law_part(counter), sign)])


def probability_miss(law, end, p):
    """How far level p lies outside [P(S < end), P(S <= end)]: 0 when the
    exact law puts its p-quantile at end."""
    below = sum((q for s, q in law.items() if s < end), Fraction(0))
    upto = below + law.get(end, 0)
    if below <= p < upto:
        return 0.0
    return float(min(abs(below - p), abs(upto - p)))


# -- exact enumeration: the bootstrap distribution of n <= 8 items -----------

@settings(max_examples=20, deadline=None)
@given(st.integers(1, 300), st.data())
def test_binomial_ends_are_the_exact_binomial_quantiles(n, data):
    # k ones among n items: the resampled count is Binomial(n, k/n).
    k = data.draw(st.integers(1, n))
    ci = saddlepoint_interval([0, 1], [n - k, k])
    pmf = {i: comb(n, i) * Fraction(k, n) ** i * Fraction(n - k, n) ** (n - i)
           for i in range(n + 1)}
    for p, end in ((LO, ci.lo), (HI, ci.hi)):
        exact, below, upto = oracle.quantile_of(pmf, p)
        # a near tie (the exact CDF within 1% of p) may fall either way:
        # measured once in 1,296 (n, k) pairs, n = 85, k = 7
        assert end == Fraction(exact, n) or abs(below - p) < p / 100 or \
            abs(upto - p) < p / 100


@settings(max_examples=26, deadline=None)
@given(st.lists(st.integers(-1, 1), min_size=2, max_size=8))
def test_lattice_ends_equal_enumeration(values):
    # Differences in {-1, 0, 1}: Daniels's continuity correction and the
    # exact end atoms give the exact lattice point, near ties aside.
    law = law_of(values)
    exact = oracle.ideal_bootstrap([(values, 1)])
    for p in (LO, HI):
        end = law.quantile(float(p))
        assert isinstance(end, int)
        assert probability_miss(exact, end, p) < 2e-3


@pytest.mark.parametrize("trials", [
    pytest.param(10, marks=pytest.mark.slow), pytest.param(60, marks=pytest.mark.slow)])
def test_spread_values_miss_by_a_stated_probability(trials):
    # Integers spread widely give a lumpy law on a fine lattice, which a
    # smooth formula can only follow: the end's exact level is measured
    # within 0.03 of the nominal one at n = 4-5 and 0.01 at n = 6-8 (each
    # n, lognormal and uniform, in every 10 trials).
    rng = random.Random(7)
    worst = {}
    for trial in range(trials):
        n = 4 + trial % 5
        values = [int(1000 * rng.lognormvariate(0, 1)) if trial % 2
                  else rng.randint(-50, 50) for _ in range(n)]
        if len(set(values)) < 2:
            continue
        law, exact = law_of(values), oracle.ideal_bootstrap([(values, 1)])
        for p in (LO, HI):
            miss = probability_miss(exact, law.quantile(float(p)), p)
            worst[n] = max(worst.get(n, 0.0), miss)
    assert max(worst[4], worst[5]) < 0.03
    assert max(worst[n] for n in (6, 7, 8)) < 0.01


@settings(max_examples=13, deadline=None)
@given(st.lists(st.integers(0, 2), min_size=2, max_size=5),
       st.lists(st.integers(0, 2), min_size=2, max_size=5))
def test_unpaired_lattice_ends_equal_enumeration(a, b):
    # B's resample sum minus A's independent one: K_B(t) + K_A(-t).
    if len(set(a)) < 2 and len(set(b)) < 2:
        return
    law = bed._SumLaw([(bed._law_part(collections.Counter(b)), 1),
                       (bed._law_part(collections.Counter(a)), -1)])
    exact = oracle.ideal_bootstrap([(b, 1), (a, -1)])
    for p in (LO, HI):
        assert probability_miss(exact, law.quantile(float(p)), p) < 2e-3


def test_an_end_at_the_extreme_is_exact():
    # P(every draw is the least value) = (k/n)^n: at or above 2.5% the
    # lower end is that value exactly; just below, it is not.
    assert saddlepoint_interval([0.0, 0.7], [19, 1]).lo == 0   # 0.358
    lo = saddlepoint_interval([0.25, 0.7], [9, 11]).lo        # 2e-7
    assert lo > Fraction(1, 4)
    assert saddlepoint_interval([5.5], [30]) == (Fraction(11, 2),
                                                     Fraction(11, 2))


def test_the_order_of_the_items_does_not_matter():
    rng = random.Random(3)
    pairs = [(round(rng.random(), 3), round(rng.random(), 3))
             for _ in range(300)]
    shuffled = pairs[:]
    rng.shuffle(shuffled)
    first, second = (bed._compare_tally(collections.Counter(p),
                                        random.Random(1),
                                        bed._Options(method="saddlepoint"))
                     for p in (pairs, shuffled))
    assert first == second


# -- against many resamples ------------------------------------------------------

def resampled_sums(values, resamples, seed):
    counter = collections.Counter(values)
    keys = sorted(counter)
    drawn = bed._resample_sums(random.Random(seed), keys, [0] * len(keys),
                               None, [counter[k] for k in keys], resamples)
    return sorted(drawn[0][:-1])


def mc_distance(drawn, end, p):
    """How many Monte Carlo standard errors of a p-quantile level lie
    between p and the share of resamples below (or at) the end."""
    size = len(drawn)
    below = bisect.bisect_left(drawn, end) / size
    upto = bisect.bisect_right(drawn, end) / size
    if below <= p <= upto:
        return 0.0
    return min(abs(below - p), abs(upto - p)) / math.sqrt(p * (1 - p) / size)


SHAPES = {
    "normal": lambda r: round(r.gauss(0.03, 0.2), 4),
    "lognormal": lambda r: round(r.lognormvariate(0, 1) - 1.6, 4),
    "rare event": lambda r: 1.0 if r.random() < 0.02 else 0.0,
    "lattice": lambda r: r.choice([-1, 0, 0, 1]),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
@pytest.mark.parametrize("n", [100, 1000])
def test_ends_lie_within_the_monte_carlo_error_of_resampling(shape, n):
    # 4,000 resamples at a fixed seed; the distance of each saddlepoint
    # end, in Monte Carlo standard errors of its level, is under 2.5
    # (measured at these seeds: 1.52 at most, what the resamples' own
    # noise gives; tests/benchmark.py --part saddle measures against
    # 200,000 resamples, where the saddlepoint's own error shows).
    rng = random.Random(n + len(shape))
    values = [SHAPES[shape](rng) for _ in range(n)]
    ints, scale = bed._exact_ints(values)
    law = law_of(ints)
    drawn = resampled_sums(ints, 4000, seed=n)
    for p in (0.025, 0.975):
        assert mc_distance(drawn, law.quantile(p), p) < 2.5


def test_bca_levels_and_ends_agree_with_resampled_bca():
    rng = random.Random(5)
    values = [round(rng.lognormvariate(0, 0.8), 3) for _ in range(200)]
    ints, _ = bed._exact_ints(values)
    law = law_of(ints)
    part = law.parts[0][0]
    drawn = resampled_sums(ints, 4000, seed=9)
    total = sum(ints)
    # z0: the share of resamples below the observed sum, ties half
    share = (bisect.bisect_left(drawn, total)
             + bisect.bisect_right(drawn, total)) / 2 / len(drawn)
    assert abs(share - law.mid_share()) < 3 * math.sqrt(0.25 / len(drawn))
    levels = bed._bca_levels(law, [-v for v in part.values], 0.95,
                             part.counts)
    assert levels[0] != 0.025 and levels[1] != 0.975      # skew corrected
    for p in levels:
        assert mc_distance(drawn, law.quantile(p), p) < 2.5


# -- the sign-flip test ----------------------------------------------------------

def test_sign_flip_equals_the_binomial_tail():
    # 50 of 80 differences +1: exactly 2 P(Binomial(80, 1/2) >= 50).
    exact = 2 * Fraction(sum(comb(80, k) for k in range(50, 81)), 2 ** 80)
    p = bed._saddlepoint_sign_flip([-1, 1], [30, 50])
    assert abs(p - exact) / exact < 1e-3
    assert bed._saddlepoint_sign_flip([2, 3], [7, 20]) == 2.0 ** -26
    assert bed._saddlepoint_sign_flip([-2, 2], [9, 9]) == 1.0


@pytest.mark.parametrize("m", [21, 40, 80])
def test_sign_flip_matches_enumeration_on_lattices(m):
    # Measured relative errors: under 0.6% at m = 20, 0.05% at m = 80.
    rng = random.Random(m)
    for trial in range(6):
        d = [rng.choice([-2, -1, 1, 3] if trial % 2 else [-1, 1, 1])
             for _ in range(m)]
        law = oracle.sign_flip_law(d)
        observed = abs(sum(d))
        exact = sum((q for s, q in law.items() if abs(s) >= observed),
                    Fraction(0))
        counter = collections.Counter(d)
        p = bed._saddlepoint_sign_flip(list(counter), list(counter.values()))
        assert abs(p - exact) / exact < 0.01


def test_sign_flip_on_continuous_differences_is_close_at_twenty():
    # 20 distinct values: a lumpy permutation law; measured under 8%
    # relative error (a 2,000-flip Monte Carlo p of 0.05 has 10%).  Past
    # 20 nonzero differences compare uses it; up to 20 it enumerates.
    rng = random.Random(4)
    for _ in range(10):
        d = [round(rng.gauss(0.4, 1), 3) for _ in range(20)]
        ints, _ = bed._exact_ints(d)
        exact, _ = bed._sign_flip(*bed._merge(ints, [1] * 20), None, 0)
        p = bed._saddlepoint_sign_flip(ints, [1] * 20)
        assert abs(p - float(exact)) / float(exact) < 0.1


def test_tiny_p_is_a_number_not_one_over_resamples():
    rng = random.Random(2)
    a = [round(rng.random(), 3) for _ in range(400)]
    b = [round(x + 0.2 + rng.gauss(0, 0.05), 3) for x in a]
    r = bed._compare_metric(a, b, random.Random(1))
    assert r.method == "saddlepoint" and r.test == "sign-flip saddlepoint"
    assert 0 < r.p < 1e-100


# -- clusters and subsets ------------------------------------------------------

def test_ratio_ends_against_enumeration_of_five_clusters():
    sums, sizes = [3, 9, 4, 12, 1], [2, 4, 3, 5, 1]
    exact = oracle.ratio_bootstrap(sums, sizes)
    estimate = Fraction(sum(sums), sum(sizes))
    for p in (LO, HI):
        end = bed._ratio_quantile(sums, sizes, [1] * 5, float(p), estimate)
        below = sum((q for r, q in exact.items() if r < end), Fraction(0))
        upto = sum((q for r, q in exact.items() if r <= end), Fraction(0))
        # 3,125 equally likely resamples, lumpy: within 0.02 of the level
        assert below - Fraction(1, 50) <= p <= upto + Fraction(1, 50)


def test_clustered_ends_lie_within_resampling_error():
    rng = random.Random(8)
    effects = [rng.gauss(0, 0.1) for _ in range(60)]
    clusters = [i // 10 for i in range(600)]
    a = [round(0.7 + effects[c] + rng.gauss(0, 0.1), 3) for c in clusters]
    b = [round(x + 0.02 + rng.gauss(0, 0.1), 3) for x in a]
    ours = bed._compare_metric(
        a, b, random.Random(1),
        bed._Options(method="saddlepoint", resamples=2000), clusters=clusters)
    theirs = bed._compare_metric(
        a, b, random.Random(1),
        bed._Options(method="resample", resamples=2000), clusters=clusters)
    drawn = sorted(theirs.draws)
    for p, end in ((0.025, ours.ci_paired.lo), (0.975, ours.ci_paired.hi)):
        assert mc_distance(drawn, end, p) < 2.5
    assert ours.ci_unpaired == theirs.ci_unpaired     # resampled either way


def test_macro_ends_lie_within_resampling_error():
    rng = random.Random(1)
    tally = {}
    for label, n in (("x", 120), ("y", 200), ("z", 77)):
        t = collections.Counter()
        for _ in range(n):
            a = round(rng.gauss(0.5, 0.2), 2)
            t[a, round(a + rng.gauss(0.03, 0.2), 2)] += 1
        tally[label] = t
    ours = bed._compare_macro(tally, random.Random(3),
                              bed._Options(method="saddlepoint"))
    theirs = bed._compare_macro(tally, random.Random(3), bed._Options(
        method="resample", resamples=2000))
    drawn = sorted(theirs.draws)
    assert ours.gap == theirs.gap and ours.method == "saddlepoint"
    for p, end in ((0.025, ours.ci_paired.lo), (0.975, ours.ci_paired.hi)):
        assert mc_distance(drawn, float(end), p) < 2.5


# -- calibration -----------------------------------------------------------------

@pytest.mark.parametrize("replays, low, high, most", [
    pytest.param(60, 0.85, 1.0, 0.13, marks=pytest.mark.slow),
    pytest.param(300, 0.91, 0.98, 0.09, marks=pytest.mark.slow)])
def test_saddlepoint_interval_and_test_are_calibrated(replays, low, high,
                                                      most):
    # Normal differences, n = 40, true mean 0: each interval covers it
    # about 95% of the time, and the saddlepoint sign flip (40 nonzero
    # differences: past the exact limit) rejects about 5%: within 3.5
    # Monte Carlo standard errors at 60 replays, 2.5 at 300.
    c = bed._continuous_calibration(random.Random(11), bed._Options(
        differences="normal", gap=0.0, replays=replays, n_items=40,
        resamples=200))
    for name, covered in c.covered.items():
        assert low <= covered / replays <= high, name
    assert c.rejected["sign flip, saddlepoint"] / replays <= most


# -- the command line --------------------------------------------------------

def write_runs(tmp_path, n):
    rng = random.Random(n)
    paths = []
    for name, shift in (("a", 0.0), ("b", 0.05)):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(
            json.dumps({"id": i, "f1": round(rng.random() + shift, 3),
                        "acc": int(rng.random() < 0.7)}) + "\n"
            for i in range(n)))
        paths.append(str(path))
    return paths


def compare_json(capsys, *argv):
    assert bed.main(["compare", *argv, "--json"]) == 0
    return {m["metric"]: m for m in json.loads(capsys.readouterr().out)
            ["metrics"]}


def test_auto_takes_the_saddlepoint_for_continuous_metrics_of_100(
        capsys, tmp_path):
    big = compare_json(capsys, *write_runs(tmp_path, 100))
    assert big["f1"]["method"] == "saddlepoint"
    assert big["acc"]["method"] == "resample"       # binary: four cells
    small = compare_json(capsys, *write_runs(tmp_path, 99))
    assert small["f1"]["method"] == "resample"
    forced = compare_json(capsys, *write_runs(tmp_path, 100), "--method",
                          "resample", "--resamples", "100")
    assert forced["f1"]["method"] == "resample"


def test_text_says_by_saddlepoint_and_plot_draws_the_density(capsys,
                                                              tmp_path):
    import xml.etree.ElementTree as ET
    target = tmp_path / "d.svg"
    status = bed.main(["compare", *write_runs(tmp_path, 150), "--metric",
                       "f1", "--plot", str(target)])
    out = capsys.readouterr().out
    assert status == 0 and "by saddlepoint)" in out
    root = ET.parse(target).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert len(list(root.iter(ns + "polyline"))) == 1
    assert any("ideal bootstrap" in (t.text or "")
               for t in root.iter(ns + "text"))


def test_rank_says_which_method_gave_the_means_intervals(capsys, tmp_path):
    paths = write_runs(tmp_path, 120)
    assert bed.main(["rank", *paths, "--metric", "f1", "--resamples",
                     "100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["method"] == "saddlepoint"
    assert bed.main(["rank", *paths, "--metric", "f1", "--resamples",
                     "100", "--method", "resample", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["method"] == "resample"


def test_simulate_differences_refuses_binary_design_options(capsys):
    assert bed.main(["simulate", "--differences", "normal", "--acc-b",
                     "0.8"]) == 2
    assert "--acc-b is for the binary design" in capsys.readouterr().err
    assert bed.main(["simulate", "--gap", "0.1"]) == 2
    assert "--gap goes with --differences" in capsys.readouterr().err
    assert bed.main(["simulate", "--differences", "lognormal", "--n-items",
                     "30", "--replays", "5", "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "saddlepoint percentile" in out and "resample bca" in out
    # --no-csv asks for what --differences does anyway: taken, not refused
    assert bed.main(["simulate", "--differences", "normal", "--n-items",
                     "30", "--replays", "2", "--resamples", "60",
                     "--no-csv"]) == 0
    capsys.readouterr()


def test_auto_resamples_where_one_value_makes_the_law_lumpy():
    # One outlier among 1,000 values in [0, 1]: a resample's mean is a
    # mixture of lumps (0, 1, 2, ... draws of it) 1,000 apart; the smooth
    # saddlepoint put the upper end at 3375, resampling at 3000.5 (the
    # third lump).  auto resamples there; --method saddlepoint is obeyed.
    rng = random.Random(1)
    a = [round(rng.random(), 3) for _ in range(999)] + [1e6]
    b = [round(rng.random(), 3) for _ in range(1000)]
    auto = bed._compare_metric(a, b, random.Random(1),
                               bed._Options(resamples=2000))
    forced = bed._compare_metric(a, b, random.Random(1),
                                 bed._Options(method="saddlepoint"))
    assert auto.method == "resample" and forced.method == "saddlepoint"
    assert 3000 < auto.ci_a.hi < 3001 and forced.ci_a.hi > 3300
    part = bed._law_part(collections.Counter(bed._exact_ints(a)[0]))
    assert part.lumpy() and part.peak > 0.99
    # two values only (a rare event) are a lattice, not lumps
    rare = bed._law_part(collections.Counter([0] * 98 + [1] * 2))
    assert rare.peak > 0.9 and not rare.lumpy()
    # rank and --macro fall back the same way
    tally = collections.Counter(zip(a, b, b))
    ranking = bed._rank_systems(tally, random.Random(1), "xyz",
                                bed._Options(resamples=200))
    assert ranking.method == "resample"
    macro = bed._compare_macro({"s": collections.Counter(zip(a, b))},
                               random.Random(1), bed._Options(resamples=200))
    assert macro.method == "resample"


@settings(max_examples=10, deadline=None)
@given(pool=st.lists(st.integers(-50, 50) | st.floats(-3, 3, width=16),
                     min_size=1, max_size=40),
       size=st.integers(4090, 4100), seed=st.integers(0, 99),
       compact=st.booleans())
def test_counting_sorts_the_keys_as_sorting_the_values_did(pool, size, seed,
                                                           compact):
    # The values are counted in the order they came and _law_part sorts
    # the distinct keys: the same keys, in the same order, with the same
    # types (1 or 1.0: the first written) and the same law as counting the
    # sorted values (as the code once did) or sorting the counted items.
    rng = random.Random(seed)
    values = [rng.choice(pool) for _ in range(size)]
    if compact:
        values = bed.array("q", [int(v) for v in values])
    new = bed._counted(values, None)
    assert list(new.items()) == list(collections.Counter(values).items())
    exact = not any(type(v) is float for v in values)
    part = bed._law_part(new, exact)
    for old in (collections.Counter(sorted(values)), collections.Counter(
            dict(sorted(collections.Counter(values).items())))):
        assert list(old) == part.values
        assert list(map(type, old)) == list(map(type, part.values))
        assert bed._law_part(old, exact) == part
