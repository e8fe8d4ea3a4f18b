"""McNemar's exact test against direct binomial sums."""
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed
import oracle


@given(a_only=st.integers(0, 120), b_only=st.integers(0, 120),
       ties=st.integers(0, 5))
def test_mcnemar_matches_binomial_sum(a_only, b_only, ties):
    pairs = [(1, 0)] * a_only + [(0, 1)] * b_only + [(1, 1)] * ties
    got = bed.mcnemar_exact(pairs)
    assert (got.a_only, got.b_only, got.p_exact) == oracle.mcnemar_p(pairs)


@given(a_only=st.integers(0, 200), b_only=st.integers(0, 200))
def test_mcnemar_is_symmetric_and_a_probability(a_only, b_only):
    p = bed.mcnemar_exact([(1, 0)] * a_only + [(0, 1)] * b_only).p_exact
    q = bed.mcnemar_exact([(1, 0)] * b_only + [(0, 1)] * a_only).p_exact
    assert p == q and 0 < p <= 1


def test_mcnemar_article_counts():
    result = bed.mcnemar_exact([(1, 0)] * 67 + [(0, 1)] * 85)
    assert (result.a_only, result.b_only) == (67, 85)
    assert bed._fixed(result.p_exact, 4) == "0.1677"


def test_mcnemar_hand_checked_small_cases():
    # 0 vs 5 discordant: p = 2 * (1/2)**5 = 1/16.
    assert bed.mcnemar_exact([(0, 1)] * 5).p_exact == Fraction(1, 16)
    # 1 vs 1: tail P(X <= 1) = 3/4, doubled and capped at 1.
    assert bed.mcnemar_exact([(0, 1), (1, 0)]).p_exact == 1
    assert bed.mcnemar_exact([]).p_exact == 1
