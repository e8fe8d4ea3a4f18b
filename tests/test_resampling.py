"""The fast samplers against one-index-at-a-time oracles."""
import random
from fractions import Fraction

import pytest
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed
import oracle

SIZES = st.one_of(st.integers(1, 600), st.integers(600, 70000),
                  st.sampled_from([255, 256, 257, 499, 500, 501, 511, 512,
                                   513, 1000, 1023, 1024, 1025, 2000, 2047,
                                   2048, 4095, 4096, 4097, 8191, 8192,
                                   10000, 16383, 16384, 65535, 65536,
                                   70000]))


@settings(max_examples=40, deadline=None)
@given(n=SIZES, count=st.integers(0, 3000), seed=st.integers(0, 2 ** 64),
       few=st.booleans())
@example(n=1, count=50, seed=0, few=False)   # k = 1: half the words rejected
@example(n=256, count=3000, seed=7, few=False)   # k = 9, every top byte valid
@example(n=501, count=3000, seed=1, few=False)   # the 9th bit decides byte 250
@example(n=1025, count=5000, seed=2, few=False)  # 11 bits: nibble planes
@example(n=4095, count=5000, seed=3, few=False)  # 12 bits: the most of them
@example(n=4097, count=5000, seed=4, few=False)  # 13 bits: the 16-bit table
@example(n=513, count=5000, seed=5, few=True)    # 10 bits: one crumb plane
@example(n=4097, count=5000, seed=6, few=True)   # 13 bits: crumb planes
@example(n=16383, count=5000, seed=8, few=True)  # 14 bits: the most of them
@example(n=16385, count=5000, seed=9, few=True)  # 15 bits: the 16-bit table
def test_draw_codes_matches_randrange(n, count, seed, few):
    # few: codes below 3, as a paired bootstrap's and a 0/1 metric's are,
    # which planes of 2-bit crumbs map to 14 bits; else 4-bit nibbles
    codes = bytes(b % (3 if few else 15)
                  for b in random.Random(n).randbytes(n))
    fast, slow = random.Random(seed), random.Random(seed)
    got = bed._draw_codes(fast, n, count, codes)
    assert got == bytes(codes[slow.randrange(n)] for _ in range(count))
    assert fast.getstate() == slow.getstate()


@settings(max_examples=26, deadline=None)
@given(n=st.one_of(SIZES, st.integers(2 ** 20, 2 ** 31)),
       count=st.integers(0, 2000), seed=st.integers(0, 2 ** 32))
@example(n=2 ** 32 + 5, count=10, seed=3)   # beyond 32 bits: plain randrange
def test_draw_indices_matches_randrange(n, count, seed):
    fast, slow = random.Random(seed), random.Random(seed)
    assert bed._draw_indices(fast, n, count) == [slow.randrange(n)
                                                 for _ in range(count)]
    assert fast.getstate() == slow.getstate()


def test_draws_continue_after_gauss():
    """A cached gauss value survives the bulk draw, as with randrange."""
    fast, slow = random.Random(11), random.Random(11)
    for rng in (fast, slow):
        rng.gauss(0, 1)
    bed._draw_codes(fast, 500, 5000, bytes(500))
    for _ in range(5000):
        slow.randrange(500)
    assert fast.gauss(0, 1) == slow.gauss(0, 1)


pairs_strategy = st.lists(st.tuples(st.integers(0, 1), st.integers(0, 1)),
                          min_size=1, max_size=300)


@settings(max_examples=20, deadline=None)
@given(pairs=pairs_strategy, seed=st.integers(0, 2 ** 32),
       resamples=st.integers(1, 40))
def test_bootstraps_match_oracle(pairs, seed, resamples):
    fast, slow = random.Random(seed), random.Random(seed)
    a = [x for x, _ in pairs]
    assert (bed.system_bootstrap(a, fast, resamples=resamples)
            == oracle.system_counts(a, slow, resamples))
    assert (bed.paired_bootstrap(pairs, fast, resamples=resamples)
            == oracle.paired_deltas(pairs, slow, resamples))
    assert (bed.unpaired_bootstrap(pairs, fast, resamples=resamples)
            == oracle.unpaired_deltas(pairs, slow, resamples))
    assert fast.getstate() == slow.getstate()


@settings(max_examples=10, deadline=None)
@given(pairs=pairs_strategy, seed=st.integers(0, 2 ** 32))
def test_swapping_systems_flips_paired_deltas(pairs, seed):
    swapped = [(b, a) for a, b in pairs]
    forward = bed.paired_bootstrap(pairs, random.Random(seed), resamples=20)
    backward = bed.paired_bootstrap(swapped, random.Random(seed),
                                    resamples=20)
    assert backward == [-d for d in forward]


def test_input_is_not_modified():
    pairs = [(1, 0), (0, 1), (1, 1)]
    kept = list(pairs)
    bed._compare_binary(pairs, random.Random(1), resamples=30)
    assert pairs == kept


def test_empty_input_is_an_error():
    with pytest.raises(bed.EvalDeltaError, match="no items"):
        bed.paired_bootstrap([], random.Random(1))


@pytest.mark.parametrize("size, confidence", [
    (2000, 0.95), (1000, 0.95), (999, 0.9), (40, 0.95), (1, 0.95),
    (10000, 0.99)])
def test_percentile_positions_match_article_rule(size, confidence):
    got = bed.percentile_interval(range(size), confidence)
    assert tuple(got) == oracle.percentile(range(size), confidence)


def test_percentile_position_where_floats_slip():
    # (1 - 0.8) / 2 * 2000 is 199.99999999999997 in floating point, so the
    # float rule takes position 199; the exact 10% point is position 200.
    assert oracle.percentile(range(2000), 0.8)[0] == 199
    assert bed.percentile_interval(range(2000), 0.8).lo == 200


def test_percentile_positions_are_exact():
    # 0.975 * B in floating point can land a hair below an integer; the
    # exact position never does.
    for size in range(1, 5000):
        lo, hi = bed._percentile_positions(size, 0.95)
        assert lo == size // 40 and hi == (39 * size) // 40


@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2 ** 32),
       n=st.one_of(st.integers(1, 520), st.integers(520, 5000)),
       corr=st.floats(0, 0.95), acc=st.tuples(st.floats(0.05, 0.95),
                                              st.floats(0.05, 0.95)),
       resamples=st.integers(1, 60), replays=st.integers(0, 4))
@example(seed=2026, n=500, corr=0.6, acc=(0.72, 0.76), resamples=200,
         replays=3)
@example(seed=7, n=2000, corr=0.6, acc=(0.72, 0.76), resamples=20,
         replays=2)                  # 11-bit indices: the planes
def test_coverage_matches_oracle(seed, n, corr, acc, resamples, replays):
    acc_a, acc_b = (round(x, 3) for x in acc)
    fast = bed.coverage(random.Random(seed), replays=replays, n_items=n,
                        corr=corr, acc_a=acc_a, acc_b=acc_b,
                        resamples=resamples, jobs=1)
    slow = oracle.coverage(random.Random(seed), replays, n, corr, acc_a,
                           acc_b, resamples, 0.95)
    assert (fast.covered, fast.excludes_zero) == slow


@pytest.mark.skipif(not bed._can_fork(), reason="needs fork and 2 CPUs")
@pytest.mark.parametrize("n", [
    7, 600, *(pytest.param(n, marks=pytest.mark.slow)
              for n in (300, 500, 2000, 5000))])
def test_helper_process_gives_identical_coverage(n):
    args = dict(replays=6, n_items=n, resamples=150, acc_a=0.6, acc_b=0.7)
    alone = bed.coverage(random.Random(n), jobs=1, **args)
    helped = bed.coverage(random.Random(n), jobs=2, **args)
    assert alone == helped


@pytest.mark.skipif(not bed._can_fork(), reason="needs fork and 2 CPUs")
@pytest.mark.parametrize("ring, chunk", [
    (3000, 256),     # room for two chunks: the drawer maps the rest
    (500, 256),      # no room at all: the drawer maps every chunk
    (70000, 1000),   # wraps round many times
])
@pytest.mark.parametrize("n", [                  # nibble and crumb planes
    301, pytest.param(5000, marks=pytest.mark.slow)])
def test_helper_ring_full_or_too_small(monkeypatch, ring, chunk, n):
    monkeypatch.setattr(bed, "_RING_BYTES", ring)
    monkeypatch.setattr(bed, "_RING_MOST", ring)
    monkeypatch.setattr(bed, "_CHUNK", chunk)
    args = dict(replays=5, n_items=n, resamples=40, corr=0.3)
    assert (bed.coverage(random.Random(9), jobs=2, **args)
            == bed.coverage(random.Random(9), jobs=1, **args))


def test_coverage_compares_the_true_gap_exactly():
    # With acc 0.72 and 0.76 the gap is exactly 1/25; in floating point
    # 0.76 - 0.72 is 0.040000000000000036, which would call a CI ending
    # at exactly 20/500 a miss.
    assert bed._exact(0.76) - bed._exact(0.72) == Fraction(1, 25)
    assert 0.76 - 0.72 != 0.04


def test_calibration_percentile_row_is_coverage():
    args = dict(replays=5, n_items=80, resamples=120, acc_a=0.6, acc_b=0.7)
    cov = bed.coverage(random.Random(3), **args)
    cal = bed._calibration(random.Random(3), bed._Options(**args))
    assert cal.covered["percentile"] == cov.covered
    assert cal.above_zero["percentile"] == cov.excludes_zero


@pytest.mark.skipif(not bed._can_fork(), reason="needs fork and 2 CPUs")
def test_calibration_with_helper_process_is_identical():
    args = dict(replays=6, n_items=300, resamples=100, acc_a=0.6, acc_b=0.6)
    assert (bed._calibration(random.Random(4), bed._Options(jobs=2, **args))
            == bed._calibration(random.Random(4), bed._Options(jobs=1,
                                                               **args)))


def test_calibration_false_positive_rate_at_zero_gap():
    # 300 replays with no true gap: each interval's two-sided rate of
    # excluding zero stays below alpha plus four standard errors.
    cal = bed._calibration(random.Random(6), bed._Options(
        replays=300, n_items=60, resamples=200, acc_a=0.7, acc_b=0.7))
    bound = 0.05 + 4 * (0.05 * 0.95 / 300) ** 0.5
    for name in bed._INTERVALS:
        assert (cal.above_zero[name] + cal.below_zero[name]) / 300 < bound
    assert cal.gap == 0
