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
