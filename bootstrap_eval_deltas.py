#!/usr/bin/env python3
"""Tell whether "system B beats system A on my eval" is real or noise.

One file, standard library only, three jobs:

    python3 bootstrap_eval_deltas.py                 # reproduce the article
    python3 bootstrap_eval_deltas.py --n-items 2000  # ... at another size
    python3 bootstrap_eval_deltas.py compare datasets/bootstrap-eval-deltas.csv
    python3 bootstrap_eval_deltas.py compare base.jsonl cand.jsonl --metric acc
    python3 bootstrap_eval_deltas.py compare base.jsonl cand.jsonl --human h
    python3 bootstrap_eval_deltas.py rank a.jsonl b.jsonl c.jsonl --metric acc
    python3 bootstrap_eval_deltas.py plan --acc-a 0.72 --acc-b 0.76 --corr 0.6
    python3 bootstrap_eval_deltas.py check base.jsonl cand.jsonl  # a doctor

The default job (``simulate``) draws two correlated binary systems on the
same items, prints per-system and paired/unpaired bootstrap intervals and
McNemar's exact test, replays the experiment to measure how often the
paired interval covers the true gap, and writes the per-item CSV.
``compare`` judges two systems' real per-item results (CSV, TSV, JSONL or
JSON, binary or continuous metrics, clustered or not, and corpus
statistics such as F1) with intervals, paired tests, Holm's adjustment and
a verdict in words, a judge's scores corrected by human labels on some
items (--human); it reads files a batch of records at a time into
counts of (baseline, candidate) pairs and resamples from those counts, or
for continuous metrics keeps the values item by item and takes the ideal
bootstrap by saddlepoint, so millions of items take seconds.  ``plan``
gives the exact power of McNemar's test, the items needed and the smallest
detectable gap of a paired binary eval, from a design or from pilot data.

Exit status: 0 on success, 1 when ``compare --fail-on`` holds, 2 for bad
usage or bad input, 130 on Ctrl-C, 141 when standard output is closed.

Sections, in order (each banner ``## NAME ###`` names one; "X: Y" is a
part of section X):

    Constants       the article's setting (N_ITEMS, CORR, ...) and the
                    tuning numbers
    The article     the article's script on its own: the copula simulator,
                    percentile, per-system, paired and unpaired bootstraps,
                    McNemar's exact test, the coverage loop, its report
                    and CSV
    Errors          EvalDeltaError, the one error for bad data or arguments
    Shared helpers  what several sections use: exact numbers and their
                    integer forms, missing values, class labels, McNemar's
                    binomial tails, BCa's acceleration, numbers in words
    Data model      _MetricResult, _Columns: what the statistics return
    Resampling      binomial and multinomial draws from cell counts
    Saddlepoint     the ideal bootstrap of a mean without resamples
                    (_SumLaw: Lugannani-Rice, Daniels's lattice correction),
                    the cluster ratio's, Robinson's sign-flip p
    Exact tests     McNemar and the interval it inverts, Wilson,
                    Newcombe, sign flips, Holm
    Comparing two systems  _compare_tally and the exact values behind it
                    (by resampling or saddlepoint, BCa, clusters); subsets
                    and their macro average; clustered standard errors
    Ranking         _rank_systems: the joint bootstrap of several systems
    Pairwise preferences  a verdict as a score on a pair: win rates, ties,
                    positions (_preference_counts); Bradley-Terry ratings
                    with bootstrap intervals over battles (_rank_preferences)
    Judge-corrected comparison  a judge's scores corrected by human labels
                    on some items (prediction-powered inference, PPI++),
                    with the judge's bias and agreement
    Anytime-valid comparison  confidence sequences and anytime p-values
                    valid however often one looks (_sequential_binary,
                    _sequential_bounded)
    Simulation: coverage and calibration (peeking; when compare
                    --sequential stops; intervals calibrated by replays)
    Corpus statistics  F1, precision, recall, MCC and ratios from per-item
                    column sums, the approximate randomization test, pass@k
    Power           McNemar's exact power, items needed, Student's t,
                    _detection() (what an eval can detect), _judge()
                    (verdicts, non-inferiority and equivalence)
    Input           files to records and tallies; which fields are metrics;
                    the one join of runs; Parquet (a standard-library
                    reader: Thrift footer, pages, SNAPPY, levels); the
                    reader registry (_READERS: lm-eval, Inspect, HELM,
                    lighteval, Every Eval Ever, OpenAI evals, promptfoo,
                    DeepEval, OpenCompass, AlpacaEval, MT-Bench, Arena-Hard,
                    battles, ...); runs compared and ranked (_CompareOptions,
                    _compare_run, _preference_pair, _rank_input,
                    _preference_battles); what files hold (check: each
                    input profiled, the ids joined, the commands that
                    answer what the files can answer)
    Report          text, markdown, JSON and SVG, as strings
    Library use     compare() and rank() on plain sequences, for notebooks
    Command line    argparse, option checks, main(): simulate, compare,
                    rank, plan, check
    Fast paths      second bodies of a few functions, for speed only:
                    bulk index draws (_draw_indices, _draw_codes), many
                    resamples' sums at once (_resample_sums), the coverage
                    loop's helper process (_replays), the join's compact
                    id tables; each gives the straightforward code's
                    results (tests/oracle.py keeps those) and says what it
                    gains
"""
__all__ = [
    # the library the README documents
    "Comparison",
    "EvalDeltaError",
    "Plan",
    "Standings",
    "compare",
    "main",
    "plan",
    "rank",
    # the article's script (The article)
    "Coverage",
    "Interval",
    "McNemar",
    "coverage",
    "mcnemar_exact",
    "paired_bootstrap",
    "percentile_interval",
    "simulate",
    "system_bootstrap",
    "unpaired_bootstrap",
]
__version__ = "0.1.0"

import argparse
import bisect
import collections
import csv
import difflib
import filecmp
import functools
import gzip
import hashlib
import heapq
import io
import itertools
import json
import math
import operator
import os
import random
import re
import shlex
import statistics
import struct
import sys
import tempfile
import time
import zipfile
import zlib
from array import array
from fractions import Fraction
from itertools import repeat
from operator import add
from operator import and_
from operator import ge
from operator import attrgetter
from operator import itemgetter
from operator import lt
from operator import methodcaller
from operator import mul
from operator import neg
from operator import rshift
from operator import sub
from operator import truediv
from statistics import NormalDist
from typing import NamedTuple


## Constants ##################################################################

N_ITEMS = 500        # items in one simulated eval set
CORR = 0.6           # loading of the shared latent difficulty (copula)
ACC_A = 0.72         # true accuracy of system A
ACC_B = 0.76         # true accuracy of system B
RESAMPLES = 2000     # bootstrap resamples per interval
REPLAYS = 1000       # simulated replays in the coverage loop
SEED = 2026          # seed of the one random.Random behind a run
CONFIDENCE = 0.95    # two-sided confidence of every interval
_POWER = 0.8         # power of the detectable difference compare reports
CSV_PATH = os.path.join("datasets", "bootstrap-eval-deltas.csv")
CSV_HEADER = ("item", "system_a_correct", "system_b_correct")
_ARTICLE_RUN = dict(n_items=500, corr=0.6, acc_a=0.72, acc_b=0.76,
                    seed=2026)  # the run whose per-item CSV ships: another
                                # setting's CSV is named for its setting


_SADDLE_LEAST = 100    # items from which method "auto" takes the saddlepoint
_EXPAND_BELOW = 100    # items below which percentile intervals are expanded
_SCORE_BELOW = (100, 20)  # a 0/1 difference's interval was Newcombe's score
                          # one below 100 items or 20 discordant ones, where
                          # the bootstrap undercovers: the rule the interval
                          # McNemar's test inverts is measured against
                          # (_binary_result, tests/benchmark.py)


_BOOT_GROUPED = 16   # groups when 16 * groups <= draws: a binomial costs
_FLIP_GROUPED = 128  # ~16 index draws or ~128 random sign bits
_BLOCKS = 8          # blocks of index resamples, one generator each
_EXACT_LIMIT = 10 ** 5  # discordant pairs up to which McNemar is in integers
_PROGRESS_AFTER = 2.0   # seconds of reading a file before showing progress
_PIPED_EVERY = 10.0     # seconds between progress lines where stderr is
                        # not a terminal (a log, a pipe)
_BATCH = 4096           # records read and checked together
_LONGEST_FIELD = (1 << 31) - 1  # characters a CSV field may hold
_WIDE_IDS = 1 << 20     # a wide file's rows whose found ids are checked
_INFLATE_LIMIT = 256 << 20  # bytes a gzip stream or one member of an archive
                            # may inflate to: a guard against archive bombs
                            # (a 400 KB .eval once inflated to 400 MB);
                            # --max-inflate MB: _Reading.inflate


## The article ################################################################

# The article's script: two systems on the same N_ITEMS items, their errors
# correlated through a shared latent difficulty (a Gaussian copula); each
# system's percentile bootstrap interval, the paired and the unpaired
# interval of the gap, McNemar's exact test on the discordant pairs, and
# the loop that replays the whole experiment REPLAYS times to count how
# often the paired interval covers the true gap.  Every index is one
# rng.randrange(n), drawn in bulk by _draw_codes (Fast paths) with the same
# results as the one-at-a-time loop.  `python3 bootstrap_eval_deltas.py`
# runs it (_run_simulate in Command line) and writes the per-item CSV.

class Interval(NamedTuple):
    """A two-sided interval [lo, hi] of exact values."""
    lo: Fraction
    hi: Fraction


class McNemar(NamedTuple):
    """Discordant pairs and the exact two-sided McNemar p-value."""
    a_only: int
    b_only: int
    p_exact: Fraction


class Coverage(NamedTuple):
    """How often the paired CI covered the true gap and excluded zero."""
    replays: int
    covered: int
    excludes_zero: int
    method: str = "item by item"    # or "by counts" (_coverage_by_counts)


def simulate(rng, n_items=N_ITEMS, *, corr=CORR, acc_a=ACC_A, acc_b=ACC_B):
    """Return n_items (a, b) pairs of 0/1 outcomes of two systems.

    Each item has a latent difficulty d ~ N(0, 1) shared by both systems;
    system X is right when corr*d + sqrt(1 - corr**2)*e_X < z_X, with
    independent noise e_X ~ N(0, 1) and z_X = NormalDist().inv_cdf(acc_X),
    so X is right with probability acc_X and the errors correlate.  Three
    rng.gauss(0, 1) calls per item, in the order d, e_A, e_B.

    >>> simulate(random.Random(1), 4)
    [(0, 0), (1, 1), (1, 1), (1, 1)]
    """
    return _outcomes(_latent_draws(rng, n_items), corr=corr, acc_a=acc_a,
                    acc_b=acc_b)


def _latent_draws(rng, n_items):
    """Return the 3*n_items rng.gauss(0, 1) values simulate() consumes."""
    return list(map(rng.gauss, repeat(0, 3 * n_items), repeat(1)))


def _outcomes(draws, *, corr=CORR, acc_a=ACC_A, acc_b=ACC_B):
    """Return the (a, b) outcomes of latent draws d, e_A, e_B, d, ...

    >>> _outcomes([0.0, -1.0, 1.0], corr=0.6)
    [(1, 0)]
    """
    za = NormalDist().inv_cdf(float(acc_a))
    zb = NormalDist().inv_cdf(float(acc_b))
    w = math.sqrt(1 - corr ** 2)
    shared = [corr * d for d in draws[0::3]]
    return list(zip([int(d + w * e < za) for d, e in zip(shared, draws[1::3])],
                    [int(d + w * e < zb) for d, e in zip(shared, draws[2::3])]))


def percentile_interval(values, confidence=CONFIDENCE):
    """Return the percentile interval of a bootstrap distribution.

    With B values sorted, lo is the one at position floor(B*(1-c)/2) and
    hi the one at floor(B*(1+c)/2), positions counted from 0 and computed
    in exact arithmetic (c = 0.95, B = 2000 gives 50 and 1950, the
    article's int(0.025*B) and int(0.975*B)).

    >>> percentile_interval(range(2000))
    Interval(lo=50, hi=1950)
    >>> percentile_interval([])
    Traceback (most recent call last):
      ...
    bootstrap_eval_deltas.EvalDeltaError: no bootstrap values to take percentiles of
    """
    ordered = sorted(values)
    if not ordered:
        raise EvalDeltaError("no bootstrap values to take percentiles of")
    lo, hi = _percentile_positions(len(ordered), confidence)
    return Interval(ordered[lo], ordered[hi])


def system_bootstrap(outcomes, rng, *, resamples=RESAMPLES):
    """Return the resampled correct counts of one system's 0/1 outcomes.

    Each resample draws len(outcomes) indices with rng.randrange; the
    count of correct items divided by n is the resampled accuracy.

    >>> system_bootstrap([1, 0, 1], random.Random(0), resamples=4)
    [1, 1, 0, 2]
    """
    n = _check_items(outcomes)
    codes = _draw_codes(rng, n, resamples * n, bytes(outcomes))
    return _block_counts(codes, n, 1)


def paired_bootstrap(pairs, rng, *, resamples=RESAMPLES):
    """Return n * (resampled accuracy of B - that of A) for each resample.

    The same n indices pick both systems' outcomes, so items keep their
    pairing and shared difficulty cancels.  Divide by n for the gap.

    >>> paired_bootstrap([(0, 1), (1, 1), (1, 0)], random.Random(0),
    ...                  resamples=4)
    [1, -1, 0, 0]
    """
    n = _check_items(pairs)
    codes = _draw_codes(rng, n, resamples * n,
                        bytes(1 + b - a for a, b in pairs))
    plus = _block_counts(codes, n, 2)
    minus = _block_counts(codes, n, 0)
    return [p - m for p, m in zip(plus, minus)]


def unpaired_bootstrap(pairs, rng, *, resamples=RESAMPLES):
    """Return n * (B's - A's resampled accuracy), resampling each alone.

    Each resample draws n indices for A, then n fresh ones for B, which
    ignores the pairing; it shows what pairing buys.

    >>> unpaired_bootstrap([(0, 1), (1, 1), (1, 0)], random.Random(0),
    ...                    resamples=4)
    [0, -1, 0, -1]
    """
    n = _check_items(pairs)
    codes = _draw_codes(rng, n, 2 * resamples * n,
                        bytes(2 * a + b for a, b in pairs))

    def correct(wanted, offset):       # codes 2a + b where the system is right
        counts = [_block_counts(codes, n, c, offset, 2 * n) for c in wanted]
        return [sum(column) for column in zip(*counts)]

    return [b - a for a, b in zip(correct((2, 3), 0), correct((1, 3), n))]


def _block_counts(codes, n, code, offset=0, step=None):
    """Count *code* in each block codes[offset + j*step : ... + n]."""
    step = step or n
    starts = range(offset, len(codes), step)
    return list(map(codes.count, repeat(code), starts,
                    range(offset + n, len(codes) + 1, step)))


def mcnemar_exact(pairs):
    """Return McNemar's exact test of paired 0/1 outcomes (a, b).

    Under the null the b_only discordant pairs are Binomial(m, 1/2) with
    m = a_only + b_only, and p = min(1, 2 * P(X <= min(a_only, b_only))),
    summed in integers.  With no discordant pair p is 1.

    >>> mcnemar_exact([(1, 0)] * 67 + [(0, 1)] * 85)
    McNemar(a_only=67, b_only=85, p_exact=Fraction(...))
    >>> round(float(mcnemar_exact([(1, 0)] * 67 + [(0, 1)] * 85).p_exact), 4)
    0.1677
    >>> mcnemar_exact([(1, 1), (0, 0)]).p_exact
    Fraction(1, 1)
    """
    a_only = sum(1 for a, b in pairs if a and not b)
    b_only = sum(1 for a, b in pairs if b and not a)
    return McNemar(a_only, b_only, _mcnemar_p(a_only, b_only))


def coverage(rng, *, replays=REPLAYS, n_items=N_ITEMS, corr=CORR,
             acc_a=ACC_A, acc_b=ACC_B, resamples=RESAMPLES,
             confidence=CONFIDENCE, jobs=1, progress=None):
    """Replay the simulation; count paired CIs covering the true gap.

    Each replay simulates fresh items, then takes the paired bootstrap
    interval, both from the same rng.  "Covers" is lo <= gap <= hi and
    "excludes zero" is lo > 0, compared exactly, where the true gap is
    acc_b - acc_a read as the decimals given.  With jobs > 1 a helper
    process maps and counts one replay's draws while this one simulates
    and draws the next (_replays, in Fast paths); the numbers are the
    same.  *progress*, if given, is called with the number of replays
    done.

    >>> coverage(random.Random(5), replays=3, n_items=50, resamples=100)
    Coverage(replays=3, covered=3, excludes_zero=0, method='item by item')
    """
    gap = _exact(acc_b) - _exact(acc_a)
    design = dict(corr=corr, acc_a=acc_a, acc_b=acc_b)
    if jobs > 1:
        bounds = _replays(rng, replays, n_items, resamples, design, jobs,
                          functools.partial(
                              _replay_bounds, design=design,
                              positions=_percentile_positions(resamples,
                                                              confidence)))
    else:
        bounds = _article_replays(rng, replays, n_items, resamples,
                                  confidence, design)
    covered = excludes = 0
    for done, (lo, hi) in enumerate(bounds, 1):
        covered += lo <= gap * n_items <= hi
        excludes += lo > 0
        if progress:
            progress(done)
    return Coverage(replays, covered, excludes)


def _article_replays(rng, replays, n_items, resamples, confidence, design):
    """Yield each replay's paired percentile interval, in counts of items:
    simulate the items, then resample them, as the article's loop does."""
    for _ in range(replays):
        pairs = simulate(rng, n_items, **design)
        yield percentile_interval(paired_bootstrap(pairs, rng,
                                                   resamples=resamples),
                                  confidence)


def _ci_pts(interval):
    """Return an interval of fractions in signed percentage points."""
    return f"[{_pts(interval.lo)}, {_pts(interval.hi)}] pts"


def _metric_lines(r, confidence):
    """Return the article's five lines of one binary _MetricResult."""
    level = _decimal(_exact(confidence) * 100) + "%"
    acc = [f"{name}={_fixed(x, 3)} [{_fixed(ci.lo, 3)}, {_fixed(ci.hi, 3)}]"
           for name, x, ci in (("A", r.a, r.ci_a), ("B", r.b, r.ci_b))]
    m = r.mcnemar
    p = (_fixed(m.p_exact, 4) if m.p_exact >= Fraction(1, 10 ** 4)
         else _p_text(m.p_exact))        # 0.0000 said nothing
    return [
        f"observed: {acc[0]}   {acc[1]}",
        f"observed gap: {_pts(r.gap)} pts",
        f"  paired bootstrap {level} CI:   {_ci_pts(r.ci_paired)}",
        f"  unpaired bootstrap {level} CI: {_ci_pts(r.ci_unpaired)}",
        f"  discordant pairs: B-only correct={m.b_only}, A-only correct="
        f"{m.a_only}; McNemar exact p={p}",
    ]


def _mc_se(count, total):
    """Return the Monte Carlo standard error of the share count/total.

    >>> round(_mc_se(357, 1000), 4)
    0.0152
    """
    p = count / total
    return math.sqrt(p * (1 - p) / total)


def _share(count, total):
    """Return 'x.x% of the time (Monte Carlo s.e. y.y%)' for count/total."""
    return (f"{_fixed(Fraction(100 * count, total), 1)}% of the time "
            f"(Monte Carlo s.e. {100 * _mc_se(count, total):.1f}%)")


def _format_simulation(result, cov, *, acc_a, acc_b, confidence,
                      calibration=None):
    """Return the text report of a simulate run (no trailing newline).

    With a _Calibration (and cov None) its table replaces the coverage
    lines.
    """
    true_a, true_b = _exact(acc_a), _exact(acc_b)
    lines = [f"n={result.n_items}, true accuracies A={_decimal(true_a)} "
             f"B={_decimal(true_b)}, true gap={_pts(true_b - true_a)} pts"]
    lines += _metric_lines(result, confidence)
    if calibration:
        lines.append(_format_calibration(calibration))
    elif cov.replays:
        how = ("" if cov.method == "item by item" else
               " by counts (each replay's cells one multinomial draw, its "
               "interval the ideal bootstrap's by saddlepoint)")
        lines += [
            f"over {cov.replays} replays{how}: paired CI covers the true gap "
            f"{_share(cov.covered, cov.replays)};",
            f"CI excludes zero (a 'significant' +gap) "
            f"{_share(cov.excludes_zero, cov.replays)}",
        ]
    else:
        lines.append("coverage loop skipped (--replays 0)")
    return "\n".join(lines)


def _csv_text(pairs):
    """Return the per-item CSV of (a, b) pairs, items numbered from 1.

    >>> print(_csv_text([(1, 0), (1, 1)]), end="")
    item,system_a_correct,system_b_correct
    1,1,0
    2,1,1
    """
    rows = [",".join(CSV_HEADER)]
    rows += [f"{i},{a},{b}" for i, (a, b) in enumerate(pairs, 1)]
    return "\n".join(rows) + "\n"


## Errors #####################################################################

class EvalDeltaError(ValueError):
    """Bad data or arguments; the message names what, where and why."""


## Shared helpers #############################################################

# Used by several sections: exact numbers, missing values, class labels,
# the normal quantile, percentile positions and the resamples they need,
# ranks with ties, numbers, counts and lists of names in words, whether a
# helper process can be forked.
# No section reaches into another's private names but these.

def _exact(x):
    """Return x as a Fraction, reading a float as the decimal it prints as.

    >>> _exact(0.72)
    Fraction(18, 25)
    """
    if isinstance(x, float):
        return Fraction(repr(x))
    return Fraction(x)


def _judge_map_of(text):
    """Return --judge-map's (">=", T) or (LO, HI) from '>=T' or 'LO,HI'
    with LO < HI, both finite; else raise EvalDeltaError.

    >>> _judge_map_of(">=7"), _judge_map_of("1,10")
    (('>=', 7.0), (1.0, 10.0))
    """
    try:
        if text.strip().startswith(">="):
            threshold = float(text.strip()[2:])
            if math.isfinite(threshold):
                return ">=", threshold
        else:
            return _bounds_of(text)
    except (ValueError, EvalDeltaError):
        pass
    raise EvalDeltaError(
        f"expected >=T (a threshold) or LO,HI with LO < HI, not {text!r}")


def _bounds_of(text):
    """Return (LO, HI) from 'LO,HI' with LO < HI, both finite; else raise
    EvalDeltaError."""
    try:
        lo, hi = (float(x) for x in text.split(","))
    except ValueError:
        lo = hi = math.nan
    if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
        raise EvalDeltaError(f"expected LO,HI with LO < HI, not {text!r}")
    return lo, hi


class _Progress:
    """Long work's progress and time left, on stderr.

    The command line installs one unless --quiet; loops that may run for
    seconds call _step(what, done, total) as they go.  On a terminal one
    line is rewritten in place, from _PROGRESS_AFTER seconds into a step;
    elsewhere (a log, a pipe) a line is added every _PIPED_EVERY seconds.
    """

    def __init__(self, stream, lines=False):
        self.stream, self.what, self.start, self.shown = stream, None, 0, 0
        self.width = self.done = 0
        self.lines = lines

    def __call__(self, what, done, total):
        now = time.monotonic()
        if what != self.what or done < self.done:     # a new step
            self.what, self.start, self.shown = what, now, now
        self.done = done
        if done >= total:
            self.clear()
            return
        wait, every = ((_PIPED_EVERY, _PIPED_EVERY) if self.lines
                       else (_PROGRESS_AFTER, 0.25))
        if now - self.start < wait or now - self.shown < every:
            return
        self.shown = now
        left = (now - self.start) / max(done, 1) * (total - done)
        line = (f"{what}: {done / total:.0%}, {now - self.start:.0f} s "
                f"so far, about {left:.0f} s left")
        if self.lines:
            self.stream.write(line + "\n")
        else:
            line = f"\r{line} "
            self.width = max(self.width, len(line))
            self.stream.write(line.ljust(self.width))  # over a longer one
        self.stream.flush()

    def clear(self):
        if self.width:
            self.stream.write("\r" + " " * self.width + "\r")
            self.stream.flush()
            self.width = 0


_WATCH = []          # the _Progress the command line installed, if any


def _step(what, done, total):
    """Report *done* of *total* steps of *what* to the installed _Progress
    (none in a library call, a helper process or a non-terminal)."""
    if _WATCH:
        _WATCH[0](what, done, total)


class _Missing:
    """The value of a field a record lacks: one object, itself again when
    unpickled (a helper process sends the values it read back pickled)."""
    __slots__ = ()

    def __reduce__(self):
        return "_MISSING"

    def __repr__(self):
        return "<missing>"


_MISSING = _Missing()


def _missing(value):
    """Return True for a value that is absent, null, empty or a JSON NaN
    (Python's json writes one for a value it has not)."""
    return (value is _MISSING or value is None or value == ""
            or (type(value) is float and value != value))


# Spreadsheets, R, pandas and hand-made files spell a missing number as
# text: NA, N/A, nan, NaN, null, None (any case) or a blank.  Where a number
# is read, such a word is a missing value, quoted back as written; a label
# (a class named "none") is read as it is.
_MISSING_WORDS = frozenset({"", "na", "n/a", "nan", "null", "none"})


def _missing_number(value):
    """Return True for a number that is missing (_missing) or spelled as
    missing in text (_MISSING_WORDS).

    >>> [_missing_number(v) for v in ("NA", " n/a ", "None", "NaN", "0")]
    [True, True, True, True, False]
    """
    return _missing(value) or (type(value) is str
                               and value.strip().lower() in _MISSING_WORDS)


def _ranks(values):
    """Return each value's rank, 1 for the largest, ties taking the mean.

    >>> _ranks([3, 5, 3, 1])
    [2.5, 1, 2.5, 4]
    """
    if any(v != v for v in values):      # NaN: no order to sort by
        return [_rank_of(v, values) for v in values]
    order = sorted(range(len(values)), key=values.__getitem__, reverse=True)
    out = [0] * len(values)
    first = 0
    while first < len(order):            # a run of equal values
        end = first + 1
        while end < len(order) and values[order[end]] == values[order[first]]:
            end += 1
        rank = (first + end + 1) / 2     # above + (ties + 1) / 2
        for k in order[first:end]:
            out[k] = int(rank) if rank == int(rank) else rank
        first = end
    return out


def _rank_of(v, values):
    """Return v's rank among *values* by counting (see _ranks)."""
    rank = (sum(1 for w in values if w > v)
            + (sum(1 for w in values if w == v) + 1) / 2)
    return int(rank) if rank == int(rank) else rank


def _short_names(paths, alone=False):
    """Return the paths without the folders they all start with and the
    ends they all share, where what is left still tells them apart (else
    the paths as given): rank's systems named by the folders a framework
    wrote, not by 120-character paths.  With *alone*, what is left is
    cut to the first folder (or name) that tells them apart, if one does
    (compare's: a model's folder, not the folder and its dated file).

    >>> _short_names(["out/ko/Llama-3.1/", "out/ko/SOLAR-10.7B"])
    ['Llama-3.1', 'SOLAR-10.7B']
    >>> _short_names(["a/run.json", "b/run.json"])
    ['a', 'b']
    >>> _short_names(["same.json", "same.json"])
    ['same.json', 'same.json']
    >>> _short_names(["o/m1/s_2024.jsonl", "o/m2/s_2025.jsonl"], alone=True)
    ['m1', 'm2']
    >>> _short_names(["o/s_wg_2024-12-23T14.1.jsonl",
    ...               "o/s_wg_2024-12-23T15.2.jsonl"], alone=True)
    ['2024-12-23T14.1', '2024-12-23T15.2']
    """
    parts = [[p for p in path.replace(os.sep, "/").split("/") if p]
             for path in paths]
    if len(parts) < 2 or not all(parts):
        return list(paths)
    head = 0
    while all(len(p) > head + 1 for p in parts) and len(
            {p[head] for p in parts}) == 1:
        head += 1
    tail = 0
    while all(len(p) > head + tail + 1 for p in parts) and len(
            {p[-1 - tail] for p in parts}) == 1:
        tail += 1
    names = ["/".join(p[head:len(p) - tail]) for p in parts]
    if alone:
        left = [p[head:len(p) - tail] for p in parts]
        cut = next((k for k in range(min(map(len, left)))
                    if len({p[k] for p in left}) == len(left)), None)
        if cut is not None:
            names = [p[cut] for p in left]
            if cut == min(map(len, left)) - 1:   # file names: their words
                names = _distinct_words(names)
    return names if len(set(names)) == len(names) else list(paths)


def _distinct_words(names):
    """Return names without the words (ending in '_', '.' or ',') they all
    begin or end with, if what is left tells them apart.

    >>> _distinct_words(["samples_wg_2024.jsonl", "samples_wg_2025.jsonl"])
    ['2024', '2025']
    >>> _distinct_words(["mmlu,method=joint,model=a", "mmlu,model=b"])
    ['method=joint,model=a', 'model=b']
    """
    words = [re.findall(r"[^_.,]*[_.,]?", name)[:-1] for name in names]
    head = 0
    while all(len(w) > head + 1 for w in words) and len(
            {w[head] for w in words}) == 1:
        head += 1
    tail = 0
    while all(len(w) > head + tail + 1 for w in words) and len(
            {w[-1 - tail] for w in words}) == 1:
        tail += 1
    out = ["".join(w[head:len(w) - tail]).strip("_.,") for w in words]
    return out if all(out) and len(set(out)) == len(out) else list(names)


def _some(names, most=10):
    """Return up to *most* names, and how many more there are.

    >>> _some(list("abcdefghijkl"))
    'a, b, c, d, e, f, g, h, i, j and 2 more'
    """
    shown = ", ".join(names[:most])
    return shown + (f" and {len(names) - most} more"
                    if len(names) > most else "")


def _df_words(df):
    """Return "9 degrees of freedom" (or "5.2 ...": _cluster_df's need not
    be whole)."""
    if df == 1:
        return "1 degree of freedom"
    return f"{df:.3g} degrees of freedom" if df != int(df) else \
        f"{int(df)} degrees of freedom"


def _items(n, noun="item"):
    """Return '1 item', '2 items'.

    >>> _items(1), _items(500, "pilot item")
    ('1 item', '500 pilot items')
    """
    return f"{n} {noun}{'' if n == 1 else 's'}"


def _fixed(x, places, *, sign=False):
    """Return exact x rounded half-even to *places* decimals; a value below
    zero keeps its sign even where it rounds to zero.

    >>> _fixed(Fraction(-7, 500) * 100, 1, sign=True)
    '-1.4'
    >>> _fixed(Fraction(3, 4), 3), _fixed(Fraction(1, 40), 1)
    ('0.750', '0.0')
    >>> _fixed(-1.05e-05 * 100, 1, sign=True), _fixed(0, 1, sign=True)
    ('-0.0', '0.0')

    (A sign is kept where the value is not zero, even where it rounds to
    zero; zero itself takes none.)
    """
    scaled = round(Fraction(x) * 10 ** places)      # exact, ties to even
    digits = f"{abs(scaled):0{places + 1}d}"
    body = digits[:-places] + "." + digits[-places:] if places else digits
    if scaled < 0 or x < 0:
        return "-" + body
    return ("+" if sign and x else "") + body


def _decimal(x):
    """Return the shortest decimal of x as given (0.72, not 0.720).

    >>> _decimal(Fraction(18, 25)), _decimal(Fraction(1, 3))
    ('0.72', '0.3333333333')
    """
    for places in range(11):
        if (x * 10 ** places).denominator == 1:
            return _fixed(x, places) if places else str(x.numerator)
    return _fixed(x, 10)


def _p_text(p):
    """Return p to 4 significant digits, even below the float range.

    >>> _p_text(Fraction(1, 3)), _p_text(Fraction(1, 10 ** 400)), _p_text(0)
    ('0.3333', '1e-400', '0')
    """
    if float(p) or not p:
        return f"{float(p):.4g}"
    exponent = math.floor(math.log10(p.numerator) - math.log10(p.denominator))
    while Fraction(10) ** exponent > p:
        exponent -= 1
    while Fraction(10) ** (exponent + 1) <= p:
        exponent += 1
    return f"{float(p / Fraction(10) ** exponent):.4g}e{exponent:03d}"


def _pts(x):
    """Return a fraction as signed percentage points with one decimal."""
    return _fixed(x * 100, 1, sign=True)


def _label(value):
    """Return a class label: a bool or integral number as an int, numeric
    text as its number, other text stripped; None if missing."""
    if _missing(value):
        return None
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str):
        text = value.strip()
        try:
            value = float(text)
        except ValueError:
            return text or None
    if isinstance(value, (int, float)) and math.isfinite(value):
        return int(value) if value == int(value) else value
    raise ValueError(f"not a class label: {value!r}")


def _upper_z(tail):
    """Return the standard normal z with P(Z > z) = tail, even for tiny tails.

    (1 - alpha/2 rounds to 1 for alpha = 1e-16; alpha/2 does not.)
    """
    return -NormalDist().inv_cdf(float(tail))


def _percentile_positions(size, confidence):
    """Return the (lower, upper) positions in *size* sorted resamples of a
    percentile interval at *confidence*, in exact arithmetic."""
    c = _exact(confidence)
    return (math.floor(size * (1 - c) / 2), math.floor(size * (1 + c) / 2))


def _check_resamples(resamples, confidence):
    """Refuse too few resamples for the confidence: the percentile ends
    must not be the smallest or largest resample (positions 0 and B - 1),
    or the interval is the sample's extremes and can exclude its own
    estimate: 41 resamples at least at 95%."""
    def inside(b):
        lo, hi = _percentile_positions(b, confidence)
        return lo >= 1 and hi <= b - 2

    if not inside(resamples):
        least = math.ceil(2 / (1 - _exact(confidence)))
        while not inside(least):
            least += 1
        raise EvalDeltaError(
            f"{resamples} resamples are too few for {float(confidence):g} "
            f"confidence: the interval would be the resamples' extremes; "
            f"give --resamples {least} or more")


def _check_items(items):
    """Return the number of items, raising EvalDeltaError if there are none."""
    n = len(items)
    if n == 0:
        raise EvalDeltaError("no items to resample")
    return n


def _counted(values, counts):
    """Return the Counter of values, counts[j] of values[j] (not zero), or
    one of each if counts is None; in sorted order when there are many
    (_law_part then finds its values sorted already)."""
    if counts is None or counts.count(1) == len(counts):
        counter = collections.Counter(values)
        if len(values) > 4096:          # the keys sorted, not the values
            counter = collections.Counter(dict(sorted(counter.items())))
        return counter
    counter = collections.Counter(values)
    several = list(map((1).__lt__, counts))
    for v, c in zip(itertools.compress(values, several),
                    itertools.compress(counts, several)):
        counter[v] += c - 1
    for v in itertools.compress(values, map((0).__eq__, counts)):
        counter[v] -= 1
        if not counter[v]:
            del counter[v]
    return counter


def _exact_ints(values):
    """Return (ints, scale) with values[i] == ints[i] / scale exactly.

    A float counts as the decimal it prints as, the value as written
    (0.8 is 8/10, not the nearest binary fraction), so that differences
    equal as written are equal here (1.0 - 0.8 == 0.4 - 0.2).  scale is
    the least common denominator.

    >>> _exact_ints([0.5, 3, 0.25])
    ([50, 300, 25], 100)
    >>> _exact_ints([1.0, 0.8, 0.4, 0.2])
    ([10, 8, 4, 2], 10)
    >>> _exact_ints([1.0, 0.0])
    ([1, 0], 1)
    """
    if len(values) > 4096:
        fast = _decimal_ints([values])
        if fast:
            return fast[0][0], fast[1]
    ratios = [_ratio(v) for v in values]
    scale = math.lcm(*(q for _, q in ratios)) if ratios else 1
    return [p * (scale // q) for p, q in ratios], scale


def _decimal_ints(columns, compact=False):
    """Return _exact_columns(columns) by float arithmetic where that is
    exact, else None: floats only (lists of them, or arrays "d"), the
    scale that of a sample of ~1,000 of them, and every value checked:
    round(x * scale) / scale == x with |round(x * scale)| < 10**15.  A
    decimal of 15 significant digits or fewer is the only one that short
    to round to its float (DBL_DIG), so the integer is the one the value
    prints as, and a value that needs a finer scale than the sample's
    fails the check.  With *compact*, each column's integers are an
    array of 8-byte ints (they are below 10^15), not a list of int
    objects: 8 MB against 40 MB a column of 10^6 values."""
    if not all(getattr(c, "typecode", "") == "d"
               or set(map(type, c)) == {float} for c in columns):
        return None
    step = max(1, sum(map(len, columns)) // 1000)
    scale = math.lcm(*(q for c in columns for _, q in map(_ratio, c[::step])))
    if scale > 10 ** 22:                  # not an exact float
        return None
    ints = []
    for values in columns:
        try:
            scaled = map(round, map(mul, values, repeat(float(scale))))
            ints.append(array("q", scaled) if compact else list(scaled))
        except OverflowError:             # a value times scale is inf
            return None
        if ints[-1] and (max(ints[-1]) >= 10 ** 15
                         or min(ints[-1]) <= -10 ** 15) or not all(
                map(float.__eq__, map(truediv, ints[-1], repeat(scale)),
                    values)):
            return None
    return ints, scale


def _acceleration(jackknife, counts=None):
    """Return the BCa acceleration from jackknife values theta_(i).

    Computed exactly: with the values over a common denominator, U_i =
    sum(X) - n X_i are integers proportional to the deviations u_i, and
    a^2 = (sum U^3)^2 / (36 (sum U^2)^3) is scale-free, so neither
    rounding noise (equal values give exactly 0) nor underflow (values
    near 1e-300) can distort it.  counts[i] is how often value i occurs.

    >>> _acceleration([0.003] * 3), round(_acceleration([0.0, 0.0, 1.0]), 4)
    (0.0, -0.068)
    >>> _acceleration([0.0, 1.0], [2, 1]) == _acceleration([0.0, 0.0, 1.0])
    True
    """
    ints, _ = _exact_ints(jackknife)
    counts = counts or [1] * len(ints)
    total, n = sum(map(mul, ints, counts)), sum(counts)
    u = [total - n * x for x in ints]
    square = sum(c * x * x for x, c in zip(u, counts))
    cube = sum(c * x * x * x for x, c in zip(u, counts))
    if not square:
        return 0.0
    return math.copysign(math.sqrt(Fraction(cube * cube, square ** 3)) / 6,
                         cube)


@functools.lru_cache(maxsize=8)
def _ones(size):
    """Return the integer whose size little-endian bytes are all 1."""
    return int.from_bytes(b"\x01" * size, "little")


def _binomial_head(a_only, b_only):
    """Return (m, sum of C(m, i) for i < k, C(m, k)), k = min(a_only, b_only).

    The coefficients come from one another (C(m, i+1) = C(m, i) (m - i) /
    (i + 1), exact in integers).

    >>> _binomial_head(3, 2)
    (5, 6, 10)
    """
    m, k = a_only + b_only, min(a_only, b_only)
    below, at = 0, 1
    for i in range(k):
        below += at
        at = at * (m - i) // (i + 1)
    return m, below, at


def _mcnemar_tails(a_only, b_only):
    """Return McNemar's exact p and mid-p as Fractions.

    Up to _EXACT_LIMIT discordant pairs they are exact.  Beyond, the
    integers would take minutes (10^6 items can have 4 * 10^5 discordant
    pairs), so the same sums are taken relative to C(m, k) in floating
    point, with log C(m, k) from lgamma: about 9 significant digits, far
    below any p worth reading, and no underflow (p = 1e-900 is kept).

    >>> [float(p) for p in _mcnemar_tails(67, 85)]
    [0.1677..., 0.1453...]
    """
    m = a_only + b_only
    if m <= _EXACT_LIMIT:
        m, below, at = _binomial_head(a_only, b_only)
        return (min(Fraction(1), Fraction(2 * (below + at), 2 ** m)),
                min(Fraction(1), Fraction(2 * below + at, 2 ** m)))
    k = min(a_only, b_only)
    ratio = term = 0.0                  # sum of C(m, i) / C(m, k), i < k
    for s in range(k):
        term = (term or 1.0) * (k - s) / (m - k + s + 1)
        ratio += term
        if term < ratio * 1e-17:
            break
    log_at = (math.lgamma(m + 1) - math.lgamma(k + 1) - math.lgamma(m - k + 1)
              - m * math.log(2))
    return tuple(min(Fraction(1), _from_log(log_at + math.log(weight)))
                 for weight in (2 + 2 * ratio, 1 + 2 * ratio))


def _mcnemar_p(a_only, b_only):
    """Return McNemar's exact two-sided p of the discordant counts."""
    return _mcnemar_tails(a_only, b_only)[0]


def _kind_of(keys):
    """Return 'binary' if every value of the tally's keys is 0 or 1, else
    'continuous'."""
    return ("binary" if all(x in (0, 1) for k in keys for x in k)
            else "continuous")


def _merge(values, counts):
    """Return sorted distinct values and their total counts."""
    merged = _counted(values, counts)
    keys = sorted(merged)
    return keys, [merged[k] for k in keys]


def _method_for(method, kind, units, clustered):
    """Return "saddlepoint" or "resample": *method* itself unless "auto",
    which takes the saddlepoint for a continuous metric of at least
    _SADDLE_LEAST unclustered items (where its end points were measured
    within half a Monte Carlo standard error of 10,000 resamples' and the
    resampling is slow), and keeps resampling binary metrics (four cells,
    already fast), clusters, and small sets (whose lumpy bootstrap
    distributions a smooth approximation misses by more)."""
    if method not in _METHODS:
        raise EvalDeltaError(f"method is one of {', '.join(_METHODS)}, not "
                             f"{method!r}")
    if method != "auto":
        return method
    return ("saddlepoint" if kind != "binary" and not clustered
            and units >= _SADDLE_LEAST else "resample")


def _expand(values, counts):
    """Return the list of values, each repeated its count times."""
    return [v for v, c in zip(values, counts) for _ in range(c)]


def _ratio(x):
    """Return (p, q) with x == p / q, a float read as the decimal it prints.

    >>> _ratio(0.8), _ratio(-2.5e-07), _ratio(3), _ratio(2.0)
    ((8, 10), (-1, 4000000), (3, 1), (2, 1))
    """
    if type(x) is not float:
        return x.as_integer_ratio()
    text = repr(x)
    if "e" in text:
        return Fraction(text).as_integer_ratio()
    whole, _, places = text.partition(".")
    places = places.rstrip("0")                  # 1.0 is 1/1, not 10/10
    return int(whole + places), 10 ** len(places)


def _from_log(log_x):
    """Return e**log_x as a Fraction, even far below the float range."""
    exponent = math.floor(log_x / math.log(10))
    mantissa = math.exp(log_x - exponent * math.log(10))
    return (Fraction(round(mantissa * 10 ** 15), 10 ** 15)
            * Fraction(10) ** exponent)


def _nonzero(values, counts):
    """Return (values, counts) without the zero values."""
    return (list(itertools.compress(values, values)),
            list(itertools.compress(counts, values)))


## Data model #################################################################

# Doors (called from other sections): _Columns, _Metric, _MetricResult,
# _Options, _Reading.

# A tally is what the readers give the statistics, in one of four shapes,
# each named so where it is meant: a pair tally, a Counter of (a, b)
# values of the two systems to the number of items with them (a 0/1
# metric's takes four keys at any size); a clustered tally, {cluster
# label: pair tally}; _Columns, the pairs item by item, where most are
# distinct (a continuous metric); a joint tally, a Counter of S-tuples,
# one value per system, for rank.
#
# A value's path, once: a reader gives floats (or ints and bools), which
# hold a file of millions of rows in flat arrays; where a statistic must
# be exact it reads each distinct value once as the decimal it prints as
# (_ratio, _exact: "0.8" is 8/10, since a float's repr is the shortest
# text that reads back as it), then sums integers and Fractions.  A 0/1
# metric is never a float in a result: its means and differences are
# Fractions of counts.  Whether a metric is binary is read from its
# values (_kind_of) unless --metric-type declares it.


class _MetricResult(NamedTuple):
    """One metric of two systems (A the baseline, B the candidate)."""
    metric: str
    kind: str                # "binary" or "continuous"
    direction: str           # "higher" or "lower" values are better
    n_items: int
    a: "Fraction | float"    # mean of A: exact for a 0/1 metric
    b: "Fraction | float"
    gap: "Fraction | float"  # b - a
    ci_a: Interval
    ci_b: Interval
    ci_paired: Interval
    ci_unpaired: Interval
    test: str                # the paired test behind p
    p: "Fraction | float"    # exact for McNemar and exact sign flips
    mcnemar: "McNemar | None"      # for a binary metric
    mid_p: "Fraction | None"       # McNemar's mid-p, for a binary metric
    score_ci: "Interval | None"    # Newcombe's score interval of b - a
    se: float                # standard error of the mean paired difference
    clusters: "int | None"   # number of clusters, None if unclustered
    draws: "list | _Density | None" = None  # the paired bootstrap values,
                             # in metric units, or the saddlepoint's _Density
    method: str = "resample"  # how the intervals were had: "resample" or
                              # "saddlepoint" (the ideal bootstrap)
    paired_method: object = None  # the paired CI's, where it is another:
                                  # "t on the clustered standard error"
                                  # (or the stratified one, of a macro)
    df: "float | None" = None     # that standard error's degrees of
                                  # freedom (_cluster_df, _strata_df)
    share: bool = False      # continuous means of 0/1 values (several runs
                             # averaged): printed as percentages, as 0/1
    boot_ci: "Interval | None" = None  # a binary metric's paired bootstrap
                             # interval, where ci_paired inverts McNemar's

    def __repr__(self):
        """One short line: the figures, not the 2,000 draws behind them."""
        lo, hi = self.ci_paired
        return (f"MetricResult(metric={self.metric!r}, kind={self.kind!r}, "
                f"n_items={self.n_items}, a={float(self.a):.6g}, "
                f"b={float(self.b):.6g}, gap={float(self.gap):+.6g}, "
                f"ci_paired=({float(lo):+.6g}, {float(hi):+.6g}), "
                f"test={self.test!r}, p={float(self.p):.4g}, "
                f"method={self.method!r})")


class _Columns(NamedTuple):
    """Paired values item by item: item i has a[i] for A and b[i] for B.

    A tally in another form (see _compare_tally): what _read_tallies gives,
    asked for columns, where a continuous metric has about as many
    distinct pairs as items, so that counting the pairs costs more than
    it saves.  counter() gives the tally as counts of (a, b) pairs.
    """
    a: array
    b: array

    def counter(self):
        """Return the Counter of (a, b) pairs."""
        return collections.Counter(zip(self.a, self.b))


class _Metric(NamedTuple):
    """One metric: its name, where its values are (A's and B's fields),
    its kind and which way is better."""
    name: str = "metric"
    a_field: str = None
    b_field: str = None
    kind: str = None             # declared: "binary" makes others errors;
                                 # None: read from the values (_kind_of)
    direction: str = "higher"    # "higher" or "lower" values are better
    optional: bool = False       # a missing value is NaN, not an error (a
                                 # human's label, on some items only)


class _Reading(NamedTuple):
    """How to read a run: the options a reader may use."""
    format: object = None        # a _READERS name, or None: detected
    records: object = None       # key of the records in a JSON document
    task: object = None          # the task to pick in a directory
    filter: object = None        # lm-eval: the filter to keep
    scorer: object = None        # Inspect: the scorer to keep
    allow_partial: bool = False  # leave errored samples out, and say so
    choice_scores: object = None  # OpenAI evals: {choice: score}
    keep_epochs: bool = False    # a record per epoch (plan --repeats)
    all_tasks: bool = False      # a directory's tasks read as one run
    inflate: int = _INFLATE_LIMIT  # bytes a compressed file may inflate to


class _Options(NamedTuple):
    """Every option of a command, checked and settled once at the door
    (_options, from the command line; compare() and rank() build one from
    their keywords) and handed on whole: readers, statistics and reports
    each read what they need, and none checks them again."""
    # what to read: compare, rank, plan --from
    runs: tuple = ()             # the files; compare's baseline first
    id_col: object = None        # the field naming the item
    a_col: object = None         # one wide file: A's and B's columns
    b_col: object = None
    systems: tuple = ()          # rank, one wide file: each system's column
    names: tuple = ()            # rank: the systems' labels
    metric: tuple = ()           # the metrics named; none: chosen and said
    stat: tuple = ()             # _Stats (corpus statistics)
    metric_type: tuple = ()      # (name, kind) pairs
    lower_is_better: tuple = ()  # names; rank's None is its one metric
    higher_is_better: tuple = ()
    cluster: object = None       # items sharing this field go together
    by: object = None            # ... or are a subset each
    strata: object = None        # --human: labels drawn at a rate per
                                 # value of this field (stratified PPI)
    budget: object = None        # plan --human: labels to draw next
    label_next: object = None    # ... and a CSV file of the items' ids
    macro: bool = False          # the overall result the subsets' average
    allow_partial: bool = False  # the ids every run has, the rest said
    different_items: bool = False  # ids pair records whose items differ
    reading: _Reading = _Reading()
    # how to compute
    resamples: int = RESAMPLES
    confidence: float = CONFIDENCE
    interval: str = "percentile"  # or "bca"
    method: str = "auto"         # or "saddlepoint", "resample"
    seed: int = SEED
    jobs: int = 1                # processes that may share the work
    # how to judge
    alpha: float = 0.05
    adjust: str = "holm"         # a key of _ADJUSTMENTS: across the family
    power: float = _POWER
    margin: tuple = ()           # (name or None, M): non-inferiority
    equivalence: tuple = ()      # (name or None, M): two one-sided tests
    sequential: bool = False     # anytime-valid, items in file order
    crossed: bool = False        # --prompts: the runs are prompts, the
                                 # same ones for both systems
    group_runs: bool = False     # --runs: each run given is a folder of
                                 # one system's runs
    order: object = None         # ... or in the order of this field
    bounds: object = None        # (lo, hi) of a bounded metric
    fail_on: object = None
    # judge-corrected (compare --human)
    human: tuple = ()            # a FIELD or a FILE of human scores, one for
                                 # every run or one per run
    human_field: object = None   # a FILE's field (default: the metric's)
    judge_covariate: object = None  # --human: a field the judge's error is
                                    # regressed on (an answer's length)
    judge_map: object = None     # (">=", T) or (LO, HI): the judge's scores
                                 # onto the humans' 0/1 or [0, 1]
    scale: object = None         # (LO, HI): the scale judge and humans share
    # rank
    pairs: bool = False          # every pair's difference
    against: object = None       # --baseline: each system against this one
    marginal_ranks: bool = False
    joint_intervals: bool = False  # means' or ratings' intervals that hold
                                   # for every system at once
    anchor: object = None        # (system, rating) of Bradley-Terry's
    ties: object = None          # "half" (None: as given none) or "davidson"
    # the simulated design: simulate, plan
    n_items: object = N_ITEMS    # simulate: items; plan: a list of counts
    corr: object = CORR          # plan: None where --discordance is given
    acc_a: float = ACC_A
    acc_b: float = ACC_B
    gap: object = None           # plan: B - A; simulate: --differences' mean
    discordance: object = None
    replays: int = REPLAYS
    within_var: object = None    # plan --repeats
    repeats: object = None
    pick_labels: object = None   # plan: item ids to give human labels
    width: object = None         # plan --human: a target CI half-width
    simulate: bool = False       # plan --simulate
    intervals: tuple = ()        # simulate --intervals
    differences: object = None   # simulate --differences SHAPE
    by_counts: bool = False
    peeking: bool = False
    csv: object = CSV_PATH       # simulate's per-item CSV, None: not written
    unwritten: str = "per-item CSV not written (--no-csv)"  # ... and why
    # how to print
    format: str = "text"         # a row of _OUTPUT_FORMATS
    plot: object = None          # an SVG file to draw
    html: object = None          # an HTML page to write beside the format
    program: tuple = ("bootstrap-eval-deltas",)  # as invoked (_program)
    command: tuple = ()          # the arguments as given, which the page
                                 # quotes to reproduce itself
    quiet: bool = False          # no progress on stderr
    verbose: bool = False        # every note of every metric

    @property
    def density(self):
        """Whether a saddlepoint result keeps its _Density (to draw)."""
        return bool(self.plot or self.html or self.format == "html")


## Resampling #################################################################

# Doors (called from other sections): _binomial, _multinomials.

# Sampling from sufficient statistics.  A paired bootstrap of n items is
# fixed by how many times each distinct (a, b) pair is drawn: a multinomial
# count over the distinct pairs.  With few distinct pairs (a 0/1 metric has
# four) one multinomial per resample replaces n index draws, so the cost no
# longer grows with n.  The multinomial is drawn as a chain of binomials.

def _binomial(rng, n, p):
    """Return a Binomial(n, p) variate drawn from rng.

    The algorithm and the uses of rng.random() are those of CPython 3.12's
    random.binomialvariate, so the two agree draw for draw where both
    exist: inversion by geometric jumps when n*p < 10 (Devroye 1986,
    Non-Uniform Random Variate Generation, ch. X.4), else Hörmann's BTRS
    transformed rejection with squeeze ("The generation of binomial random
    variates", J. _Stat. Comput. Simul. 46 (1993) 101-110), with p > 1/2
    drawn as n - Binomial(n, 1 - p).

    >>> _binomial(random.Random(1), 1000, 0.3), _binomial(None, 7, 1.0)
    (282, 7)
    """
    if p <= 0.0 or p >= 1.0 or n < 0:
        if n < 0 or not 0.0 <= p <= 1.0:
            raise EvalDeltaError(f"no Binomial({n}, {p})")
        return n if p == 1.0 else 0
    if n == 1:
        return int(rng.random() < p)
    if p > 0.5:
        return n - _binomial(rng, n, 1.0 - p)
    if n * p < 10.0:
        return _binomial_inversion(rng, n, p)
    return _binomial_btrs(rng, n, p)


def _binomial_inversion(rng, n, p):
    """Count geometric jumps of rate p that fit in n trials."""
    x = y = 0
    c = math.log2(1.0 - p)
    if not c:
        return x
    while True:
        y += math.floor(math.log2(rng.random()) / c) + 1
        if y > n:
            return x
        x += 1


def _binomial_btrs(rng, n, p):
    """BTRS for n*p >= 10 and p <= 1/2 (see binomial)."""
    spq = math.sqrt(n * p * (1.0 - p))
    b = 1.15 + 2.53 * spq
    a = -0.0873 + 0.0248 * b + 0.01 * p
    c = n * p + 0.5
    vr = 0.92 - 4.2 / b
    setup = None
    while True:
        u = rng.random() - 0.5
        us = 0.5 - abs(u)
        k = math.floor((2.0 * a / us + b) * u + c)
        if k < 0 or k > n:
            continue
        v = rng.random()
        if us >= 0.07 and v <= vr:
            return k
        if setup is None:
            m = math.floor((n + 1) * p)                 # the mode
            setup = ((2.83 + 5.1 / b) * spq, math.log(p / (1.0 - p)), m,
                     math.lgamma(m + 1) + math.lgamma(n - m + 1))
        alpha, lpq, m, h = setup
        v *= alpha / (a / (us * us) + b)
        if math.log(v) <= (h - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                           + (k - m) * lpq):
            return k


def _multinomial(rng, n, weights):
    """Return how many of n draws fall in each group, chance in proportion
    to the *weights* (integers, or probabilities).

    Group j gets Binomial(left, w_j / (w_j + w_j+1 + ...)) of the draws
    still left, which has the joint multinomial distribution; the last
    group with weight gets all that are left.

    >>> _multinomial(random.Random(2), 10, [3, 0, 1])
    [8, 0, 2]
    """
    counts, left, rest = [], n, sum(weights)
    if n and not rest:
        raise EvalDeltaError(f"no weight to draw {n} from")
    for w in weights:
        if not left or not w:
            x = 0
        elif w >= rest:
            x = left
        else:
            x = _binomial(rng, left, w / rest)
        counts.append(x)
        left -= x
        rest -= w
    if left:                             # float weights: rounding left some
        counts[max(j for j, w in enumerate(weights) if w)] += left
    return counts


def _multinomials(rng, n, weights, count):
    """Yield multinomial(rng, n, weights) count times, each draw taken
    from the stream as it is yielded.  (A version that kept each
    binomial's BTRS constants from one draw to the next gained 1.1-1.4x,
    measured on 4 to 6 groups, short of what a second body must earn.)"""
    for _ in range(count):
        yield _multinomial(rng, n, weights)


## Saddlepoint ################################################################

# Doors (called from other sections): _bca_levels, _law_interval, _law_part,
# _ratio_law, _ratio_quantile, _saddlepoint_sign_flip, _SumLaw.

# The ideal bootstrap, with no resamples.  A resample of n items is n draws
# with replacement, so its sum S has the cumulant generating function
# K(t) = n log((1/n) sum_j exp(t x_j)), and the Lugannani-Rice formula
#     P(S <= s) ~ Phi(w) + phi(w) (1/w - 1/u),
#     w = sign(t) sqrt(2 (t s - K(t))),  u = t sqrt(K''(t)),  K'(t) = s,
# gives the bootstrap distribution with infinitely many resamples to a
# relative error O(n^-3/2), far inside the Monte Carlo error of 10,000
# resamples (Davison and Hinkley 1988, "Saddlepoint approximations in
# resampling methods", Biometrika 75:417-431; Davison and Hinkley 1997,
# Bootstrap Methods and their Application, section 9.5; Lugannani and
# Rice 1980, Adv. Appl. Prob. 12:475-490).  A percentile end point is then
# one root in t, a few passes over the distinct values, instead of
# resamples x n picks.  Where S lives on a lattice coarse against its
# spread (differences in {-1, 0, 1}), the formula is taken half a step up
# with u = (2/h) sinh(t h/2) sqrt(K''(t)), Daniels's second continuity
# correction (Daniels 1987, "Tail probability approximations", Int. Stat.
# Review 55:37-48), and the end point is the lattice point itself; the
# probabilities of S at its least and largest values are exact products,
# and an end point there is returned exactly.  The sign-flip test's p
# comes the same way from K(t) = sum_j log cosh(t d_j) (Robinson 1982,
# "Saddlepoint approximations for permutation tests and confidence
# intervals", JRSS B 44:91-101).  Sums of exp are taken relative to the
# term that would overflow, near t = 0 as exp(t x) - 1 around the mean so
# that nothing cancels, and every root has a bracket under its Newton
# steps.

_NEAR_MEAN = 1e-3      # |w| below which a one-term Edgeworth series is used
_FINE_LATTICE = 1e6    # lattice steps per sd from which S counts as smooth
_SAFE_EXP = 30.0       # |t x| below which exp(t x) - 1 needs no shifting
_LUMPY = 0.75          # one value's share of the spread that makes "auto"
                       # resample instead (see _Part.lumpy)
_ONE_STEP = 1e-5       # a quantile's gap (in z) below which its last Newton
                       # step is taken linearly, not evaluated
_SQRT2PI = math.sqrt(2 * math.pi)


def _lower_normal(w):
    """Return Phi(w), accurate far into either tail (erfc, not 1 + erf)."""
    return 0.5 * math.erfc(-w / math.sqrt(2))


class _Part(NamedTuple):
    """A resampled sum inside a _SumLaw: *total* values drawn with
    replacement from distinct integers *values* (counts[j] copies of
    values[j], total in all); x holds them as floats relative to their
    mean, wx and wxx times the counts (and x); weights is None when every
    count is 1.
    """
    values: list
    counts: list
    mean: Fraction
    total: int
    x: array
    wx: array
    wxx: array
    weights: object
    sum_wx: float
    sum_wxx: float
    third: float             # the third central moment of one draw
    least: float
    most: float
    step: int                # gcd of the values' distances to the least
    peak: float              # the largest value's share of sum_wxx

    def lumpy(self):
        """Return True when one distinct value, not one of just two, holds
        more than _LUMPY of the spread: then a resample's sum is a
        mixture of lumps (how often that value was drawn) that no smooth
        formula follows (one outlier among 1,000 values in [0, 1] put
        an end 0.37 sd off; measured errors pass 1 Monte Carlo s.e. of
        10,000 resamples from a share of about 0.85)."""
        return len(self.values) > 2 and self.peak > _LUMPY


def _law_part(counter, exact=True):
    """Return the _Part of a Counter of integers (or of floats, not
    *exact*: no lattice); a resample draws as many values as it counts.
    The values are taken in sorted order, so that the float sums, and so
    the results, do not depend on the order the items came in."""
    values = sorted(counter)        # quick when counted in sorted order
    if values == list(counter):
        counts = list(counter.values())
    else:
        counts = list(map(counter.__getitem__, values))
    total = sum(counts)
    weights = None
    if counts.count(1) != len(counts):
        weights = array("d", counts)
    sum_all = sum(map(mul, values, counts)) if weights else sum(values)
    mean = (Fraction(sum_all, total) if exact
            else Fraction(math.fsum(map(mul, values, counts))) / total)
    x = array("d", map(sub, array("d", values), repeat(float(mean))))
    wx = array("d", map(mul, weights, x)) if weights else x
    wxx = array("d", map(mul, wx, x))
    step = _gcd(map(sub, values, repeat(values[0]))) if exact else 0
    spread = sum(wxx)           # plain sums: the x are rounded already
    return _Part(values, counts, mean, total, x, wx, wxx, weights, sum(wx),
                 spread, sum(map(mul, wxx, x)) / total, x[0], x[-1], step,
                 max(wxx) / spread if spread else 0.0)


def _gcd(ints):
    """Return the gcd of an iterable of integers (0 if none), without
    reading past the first 64 when they already give 1."""
    ints = iter(ints)
    step = math.gcd(*itertools.islice(ints, 64))
    return step if step == 1 else math.gcd(step, *ints)


class _SumLaw:
    """The law of S = sum of sign * (the sum of a _Part's draws) over
    (part, sign) pairs: an ideal bootstrap distribution, as infinitely
    many resamples would give it.  S is an integer, on the lattice
    low + step * Z; *smooth* ignores the lattice (the ratio's laws, whose
    values are not integers).
    """

    def __init__(self, parts, smooth=False):
        self.parts = parts
        self.mean = Fraction(0)
        self.low = self.high = 0              # the least and largest S
        self.log_low = self.log_high = 0.0    # log P(S = low), P(S = high)
        self.step = 0
        third = 0.0
        self.var = 0.0
        for p, sign in parts:                 # p.values are sorted
            self.mean += sign * p.total * p.mean
            ends = [0, -1][::sign]
            self.low += sign * p.total * p.values[ends[0]]
            self.high += sign * p.total * p.values[ends[1]]
            self.log_low += p.total * math.log(p.counts[ends[0]] / p.total)
            self.log_high += p.total * math.log(p.counts[ends[1]] / p.total)
            self.step = math.gcd(self.step, p.step)
            third += sign * p.total * p.third
            mean = p.sum_wx / p.total         # 0 but for rounding
            self.var += p.total * max(p.sum_wxx / p.total - mean * mean, 0.0)
        self.sd = math.sqrt(self.var)
        self.skew = third / self.sd ** 3 if self.sd else 0.0
        coarse = self.step and self.sd / self.step <= _FINE_LATTICE
        self.lattice = 0.0 if smooth or not coarse else float(self.step)

    def cumulants(self, t):
        """Return K(t), K'(t), K''(t) of S - E[S]."""
        k = k1 = k2 = 0.0
        for p, sign in self.parts:
            u = sign * t
            near = abs(u) * max(p.most, -p.least) < _SAFE_EXP
            if near:                    # exp(u x) - 1: nothing cancels
                e = array("d", map(math.expm1, map(mul, p.x, repeat(u))))
                excess = sum(map(mul, p.weights, e) if p.weights else e)
                s0 = p.total + excess
                m1 = (p.sum_wx + sum(map(mul, p.wx, e))) / s0
                m2 = (p.sum_wxx + sum(map(mul, p.wxx, e))) / s0
                log_m = math.log1p(excess / p.total)
            else:                       # relative to the largest term
                ref = p.most if u > 0 else p.least
                e = array("d", map(math.exp, map(
                    add, map(mul, p.x, repeat(u)), repeat(-u * ref))))
                s0 = sum(map(mul, p.weights, e) if p.weights else e)
                m1 = sum(map(mul, p.wx, e)) / s0
                m2 = sum(map(mul, p.wxx, e)) / s0
                log_m = u * ref + math.log(s0 / p.total)
            var = m2 - m1 * m1
            if var < 1e-6 * m2:         # concentrated: centre, then square
                tilt = array("d", map(add, e, repeat(1.0))) if near else e
                y = [(v - m1) ** 2 for v in p.x]
                var = math.fsum(map(mul, map(mul, p.weights, y), tilt)
                                if p.weights else map(mul, y, tilt)) / s0
            k += p.total * log_m
            k1 += sign * p.total * m1
            k2 += p.total * var
        return k, k1, k2

    def root(self, s):
        """Return (t, K, K', K'') at the saddlepoint of s: K'(t) = s, s
        relative to the mean (low - mean < s < high - mean)."""
        t, lo, hi = s / self.var, -math.inf, math.inf
        for _ in range(200):
            k, k1, k2 = self.cumulants(t)
            if k1 > s:
                hi = t
            else:
                lo = t
            if abs(k1 - s) <= 1e-11 * self.sd or hi - lo <= 1e-12 * abs(t):
                break
            t = _bracketed(t - (k1 - s) / k2 if k2 else math.nan, lo, hi,
                           1 / self.sd)
        return t, k, k1, k2

    def _lugannani_rice(self, t, k, s, k2, lattice):
        """Return P(S - E[S] <= s) from the saddlepoint t of s; on a
        lattice of that step, s is half a step above the lattice point."""
        w = math.copysign(math.sqrt(max(2 * (t * s - k), 0.0)), t)
        if abs(w) < _NEAR_MEAN:         # 1/w - 1/u cancels: Edgeworth
            z = s / self.sd
            return (_lower_normal(z) - math.exp(-z * z / 2) / _SQRT2PI
                    * self.skew / 6 * (z * z - 1))
        if lattice:
            u = 2 / lattice * math.sinh(t * lattice / 2) * math.sqrt(k2)
        else:
            u = t * math.sqrt(k2)
        correction = math.exp(-w * w / 2) / _SQRT2PI * (1 / w - 1 / u)
        if w < 0:
            return _lower_normal(w) + correction
        return 1 - (_lower_normal(-w) - correction)

    def cdf(self, s):
        """Return P(S <= s), s exact (a lattice point, if on a lattice)."""
        if s < self.low:
            return 0.0
        if s >= self.high:
            return 1.0
        if self.lattice:
            s = self.low + (s - self.low) // self.step * self.step
            if s == self.low:
                return math.exp(self.log_low)
            if s + self.step >= self.high:
                return -math.expm1(self.log_high)
            x = float(s - self.mean) + self.lattice / 2
        else:
            x = float(s - self.mean)
        t, k, _, k2 = self.root(x)
        return self._lugannani_rice(t, k, x, k2, self.lattice)

    def quantile(self, p):
        """Return the least s with P(S <= s) > p: what the sorted
        resamples hold at position floor(B p) as B grows.  Exact (an
        integer, or low or high) on a lattice or at the ends, else a
        float."""
        if p < math.exp(self.log_low):
            return self.low
        if p >= -math.expm1(self.log_high):
            return self.high
        z = NormalDist().inv_cdf(p)
        t, lo, hi = z / self.sd, -math.inf, math.inf
        for _ in range(200):
            k, k1, k2 = self.cumulants(t)
            prob = self._lugannani_rice(t, k, k1, k2, 0.0)
            gap = NormalDist().inv_cdf(min(max(prob, 1e-300),
                                           1 - 1e-16)) - z
            if gap > 0:
                hi = t
            else:
                lo = t
            if abs(gap) < 1e-9 or hi - lo <= 1e-12 * abs(t):
                break
            w = math.sqrt(max(2 * (t * k1 - k), 0.0))
            slope = abs(t) * k2 / w if w > _NEAR_MEAN else math.sqrt(k2)
            step = _bracketed(t - gap / slope, lo, hi, 1 / self.sd) - t
            if abs(gap) < _ONE_STEP:        # Newton's last step, linearly:
                k1 += k2 * step             # the next gap would be ~gap^2
                break
            t += step
        if not self.lattice:
            return min(max(float(self.mean) + k1, self.low), self.high)
        step = self.step            # F(s) ~ the smooth formula at s + h/2
        at = self.low + step * math.ceil(
            (k1 - self.lattice / 2 - float(self.low - self.mean)) / step)
        at = min(max(at, self.low), self.high)
        if self.cdf(at) > p:
            while at > self.low and self.cdf(at - step) > p:
                at -= step
        else:
            while self.cdf(at) <= p:
                at += step
        return at

    def mid_share(self):
        """Return P(S < E[S]) + P(S = E[S]) / 2 as the smooth formula
        gives it at t = 0: 1/2 + skewness / (6 sqrt(2 pi))."""
        return 0.5 + self.skew / (6 * _SQRT2PI)

    def density(self, t):
        """Return (s, f): S - E[S] at the saddlepoint t and the
        saddlepoint density of S there, exp(K - t s) / sqrt(2 pi K'')."""
        k, k1, k2 = self.cumulants(t)
        return k1, math.exp(k - t * k1) / math.sqrt(2 * math.pi * k2)


def _bracketed(t, lo, hi, scale):
    """Return t if inside (lo, hi), else a safe step: doubling out from
    the known side while the other is open, else bisection."""
    if lo < t < hi:
        return t
    if math.isinf(lo):
        return hi - 2 * max(abs(hi), scale)
    if math.isinf(hi):
        return lo + 2 * max(abs(lo), scale)
    return (lo + hi) / 2


def _saddlepoint_interval(values, counts=None, *, confidence=CONFIDENCE):
    """Return the ideal bootstrap's percentile interval of a mean.

    The ends are the quantiles (1 -+ c) / 2 of the mean of a resample of
    all the values with replacement, as infinitely many resamples would
    give them, by the saddlepoint (see _SumLaw); counts[j] is how many
    items have values[j].  On a coarse lattice the ends are exact means.

    Forty 1s among 100 items: the resampled count of 1s is exactly
    Binomial(100, 2/5), whose 2.5% and 97.5% points are 31 and 50:

    >>> _saddlepoint_interval([0, 1], [60, 40])
    Interval(lo=Fraction(31, 100), hi=Fraction(1, 2))
    >>> _saddlepoint_interval([0.31, 0.12, 0.95, 0.44, 0.58] * 4)
    Interval(lo=Fraction(361, 1000), hi=Fraction(1211, 2000))
    """
    counts = list(counts or repeat(1, len(values)))
    ints, scale = _exact_ints(list(values))
    n = sum(counts)
    merged = _counted(ints, counts)
    if not n:
        raise EvalDeltaError("no values to take an interval of")
    return _law_interval(_SumLaw([(_law_part(merged), 1)]),
                         scale * n, confidence)


def _law_interval(law, unit, confidence, levels=None):
    """Return the interval of S / unit between the quantiles *levels* of
    S (by default the percentile ones of *confidence*)."""
    if law.low == law.high:
        end = Fraction(law.low, unit)
        return Interval(end, end)
    c = _exact(confidence)
    levels = levels or (float((1 - c) / 2), float((1 + c) / 2))
    ends = [law.quantile(p) for p in levels]
    return Interval(*(Fraction(x, unit) if type(x) is int else x / unit
                      for x in ends))


def _bca_levels(law, jackknife, confidence, counts=None):
    """Return the BCa interval's two quantile levels from the ideal
    bootstrap: z0 = Phi^-1(P(S < s) + P(S = s) / 2) at the observed sum
    s, the acceleration from the jackknife (see _bca_interval)."""
    z0 = NormalDist().inv_cdf(law.mid_share())
    accel = _acceleration(jackknife, counts)
    levels = []
    for tail in ((1 - _exact(confidence)) / 2, (1 + _exact(confidence)) / 2):
        z = z0 + NormalDist().inv_cdf(float(tail))
        denominator = 1 - accel * z
        levels.append(_lower_normal(z0 + z / denominator) if denominator > 0
                      else float(z < 0))
    return levels


def _saddlepoint_sign_flip(values, counts):
    """Return the two-sided p of the paired sign-flip test of nonzero
    integers *values* (counts[j] copies of values[j]) by Robinson's
    saddlepoint: S = sum of +-|d| with fair signs has K(t) = sum
    log cosh(t d), and p = 2 P(S >= |observed sum|), taken on S's lattice
    (steps of 2 gcd(d)) half a step down when it is coarse, as in
    _SumLaw.  Every sign the same gives 2 ** (1 - m) exactly, and a p
    far in the tail is a Fraction, even below the floats' range.

    50 of 80 differences +1, 30 -1: exactly 2 P(Binomial(80, 1/2) >= 50)
    = 0.032993 (to 5 figures):

    >>> round(_saddlepoint_sign_flip([-1, 1], [30, 50]), 6)
    0.032989
    """
    d = array("d", map(abs, values))
    weights = array("d", counts)
    m = sum(counts)
    observed = abs(sum(map(mul, values, counts)))
    if not observed:
        return 1.0
    if observed == sum(map(mul, map(abs, values), counts)):
        return Fraction(1, 2 ** (m - 1))
    wd = array("d", map(mul, weights, d))
    wdd = array("d", map(mul, wd, d))
    sum_wd, sd = math.fsum(wd), math.sqrt(math.fsum(wdd))
    half = _gcd(values)
    lattice = 2 * half if sd / (2 * half) <= _FINE_LATTICE else 0
    s = observed - lattice / 2

    def cumulants(t, whole=False):      # K' and K'' (and K) at t >= 0
        e = array("d", map(math.exp, map(mul, d, repeat(-2 * t))))
        lift = array("d", map(add, e, repeat(1.0)))
        k1 = sum(map(mul, wd, map(math.tanh, map(mul, d, repeat(t)))))
        k2 = 4 * sum(map(mul, wdd, map(truediv, e, map(mul, lift, lift))))
        k = (t * sum_wd + sum(map(mul, weights, map(math.log, lift)))
             - m * math.log(2)) if whole else None
        return k, k1, k2

    # K'(t) = t sum(w d^2) - t^3 sum(w d^4) / 3 + ...: start from its root
    t = s / sd ** 2
    t = s / max(sd ** 2 - t * t * sum(map(mul, wdd, map(mul, d, d))) / 3,
                sd ** 2 / 2)
    lo, hi = 0.0, math.inf
    for _ in range(200):                # Newton on K'(t) = s; K at the end
        _, k1, k2 = cumulants(t)
        if k1 > s:
            hi = t
        else:
            lo = t
        if abs(k1 - s) <= 1e-11 * sd or hi - lo <= 1e-12 * t:
            break
        step = _bracketed(t - (k1 - s) / k2, lo, hi, 1 / sd) - t
        t += step
        if abs(k1 - s) <= _ONE_STEP * sd:   # the next miss would be ~^2
            break
    k, k1, k2 = cumulants(t, whole=True)
    w = math.sqrt(max(2 * (t * s - k), 0.0))
    if w < _NEAR_MEAN:
        return min(1.0, 2 * _lower_normal(-s / sd))
    u = (2 / lattice * math.sinh(t * lattice / 2) if lattice else t) * \
        math.sqrt(k2)
    if w < 30:
        tail = _lower_normal(-w) - math.exp(-w * w / 2) / _SQRT2PI * (
            1 / w - 1 / u)
        return min(1.0, 2 * tail)
    # far out: phi(w) (R(w) - 1/w + 1/u), R the Mills ratio, in logs,
    # and p as an exact fraction of its 13 significant digits
    mills = 0.0
    for k in range(60, 0, -1):
        mills = k / (w + mills)
    log10 = (math.log(1 / (w + mills) - 1 / w + 1 / u) - w * w / 2
             - math.log(_SQRT2PI) + math.log(2)) / math.log(10)
    exponent = math.floor(log10)
    digits = round(10 ** (log10 - exponent + 12))
    return Fraction(digits, 10 ** 12) * Fraction(10) ** exponent


def _ratio_law(sums, sizes, counts, x):
    """Return the _SumLaw of sum over a resample of clusters of
    (sum_j - x size_j): at or below 0 exactly when the resample's ratio
    sum(sums) / sum(sizes) is at or below x."""
    values = [s - x * k for s, k in zip(sums, sizes)]
    return _SumLaw([(_law_part(_counted(values, counts), exact=False), 1)],
                   smooth=True)


def _ratio_quantile(sums, sizes, counts, p, estimate):
    """Return the least x with P(T* <= x) > p, T* = sum(sums*) /
    sum(sizes*) over a resample of clusters, by the saddlepoint of the
    estimating equation: P(T* <= x) = P(sum (s_j - x m_j)* <= 0)
    (Davison and Hinkley 1997, section 9.5.2).  The ratios' least and
    largest values are exact where their probabilities reach p."""
    ratios = [Fraction(s, k) for s, k in zip(sums, sizes)]
    g = sum(counts)
    least, most = min(ratios), max(ratios)
    at_least = sum(c for r, c in zip(ratios, counts) if r == least)
    at_most = sum(c for r, c in zip(ratios, counts) if r == most)
    if p < (at_least / g) ** g:
        return least
    if p >= 1 - (at_most / g) ** g:
        return most
    z = NormalDist().inv_cdf(p)

    def gap(x):
        law = _ratio_law(sums, sizes, counts, x)
        if law.high <= 0:
            return math.inf
        if law.low > 0:
            return -math.inf
        share = law.cdf(0)
        return NormalDist().inv_cdf(min(max(share, 1e-300), 1 - 1e-16)) - z

    spread = _ratio_law(sums, sizes, counts, estimate).sd / sum(
        map(mul, sizes, counts))
    lo, hi = float(least), float(most)
    x0 = min(max(float(estimate) + z * spread, lo), hi)
    g0 = gap(x0)
    x1 = min(max(x0 - g0 * spread, lo), hi)
    g1 = gap(x1)
    for _ in range(100):                  # secant inside the bracket
        if g1 > 0:
            hi = x1
        else:
            lo = x1
        if abs(g1) < 1e-9 or hi - lo <= 1e-12 * max(abs(x1), spread):
            break
        step = g1 * (x1 - x0) / (g1 - g0) if g1 != g0 and \
            math.isfinite(g0) and math.isfinite(g1) else math.nan
        x2 = x1 - step
        if not lo < x2 < hi:
            x2 = (lo + hi) / 2
        x0, g0, x1, g1 = x1, g1, x2, gap(x2)
    return x1


## Exact tests ################################################################

# Doors (called from other sections): _ADJUST_LABELS, _ADJUST_NAMES,
# _ADJUSTMENTS, _clopper_pearson, _holm, _mcnemar_interval,
# _newcombe_interval, _paired_flip, _sign_flip.

def _mcnemar_mid_p(a_only, b_only):
    """Return the two-sided mid-p of McNemar's test, exactly.

    mid-p = min(1, 2 * (P(X < k) + P(X = k) / 2)), X ~ Binomial(m, 1/2),
    k = min(a_only, b_only): the exact test with half the weight of the
    observed count, which keeps the size near alpha without the exact
    test's conservatism (Fagerland, Lydersen and Laake 2013, BMC Medical
    Research Methodology 13:91).

    >>> _mcnemar_mid_p(1, 1), _mcnemar_mid_p(0, 3)
    (Fraction(1, 1), Fraction(1, 8))
    """
    return _mcnemar_tails(a_only, b_only)[1]


def _wilson_interval(successes, n, confidence=CONFIDENCE):
    """Return Wilson's score interval for a binomial proportion.

    >>> [round(x, 4) for x in _wilson_interval(65, 161)]
    [0.331, 0.4809]
    """
    z = _upper_z((1 - _exact(confidence)) / 2)
    centre = (successes + z * z / 2) / (n + z * z)
    half = z * math.sqrt(successes * (n - successes) / n + z * z / 4) / (n + z * z)
    return Interval(centre - half, centre + half)


def _clopper_pearson(successes, n, confidence=CONFIDENCE):
    """Return the exact (Clopper-Pearson) interval of a binomial proportion.

    Clopper and Pearson (1934), Biometrika 26:404-413: the proportions p
    whose one-sided binomial tail at the count observed is above
    (1 - confidence) / 2, that is the Beta(k, n-k+1) and Beta(k+1, n-k)
    quantiles, found by bisection on _beta_ratio.  It covers at least
    *confidence* at every p; at 0 or n successes its far end still
    reflects what n items can show.  5 of 20 (scipy's beta.ppf agrees):

    >>> [round(x, 4) for x in _clopper_pearson(5, 20)]
    [0.0866, 0.491]
    >>> [round(x, 4) for x in _clopper_pearson(0, 4)]
    [0.0, 0.6024]
    """
    if not 0 <= successes <= n or not n:
        raise EvalDeltaError(f"{successes} successes of {n}: no interval")
    tail = float((1 - _exact(confidence)) / 2)

    def quantile(a, b, level):       # x with I_x(a, b) = level
        lo, hi = 0.0, 1.0
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            lo, hi = ((mid, hi) if _beta_ratio(a, b, mid) < level
                      else (lo, mid))
        return hi

    k = successes
    return Interval(quantile(k, n - k + 1, tail) if k else 0.0,
                    quantile(k + 1, n - k, 1 - tail) if k < n else 1.0)


def _newcombe_interval(both, a_only, b_only, neither, confidence=CONFIDENCE):
    """Return Newcombe's score interval for p_B - p_A on paired 0/1 data.

    Method 10 of Newcombe (1998), Statistics in Medicine 17:2635-2650:
    Wilson intervals (l, u) for each system's proportion, combined by
    "square and add" with psi, the correlation of the two proportions,
    whose numerator both*neither - a_only*b_only is shrunk by n/2 when
    positive.  For A's proportion pa and B's pb,
        lo = pb - pa - sqrt((pb - lb)^2 + (ua - pa)^2 - 2 psi (pb - lb)(ua - pa))
        hi = pb - pa + sqrt((ub - pb)^2 + (pa - la)^2 - 2 psi (ub - pb)(pa - la)).
    The worked example of Fagerland, Lydersen and Laake (2017, Statistical
    Analysis of Contingency Tables, chapter 8) gives -0.1186 to -0.0046
    for first minus second; here it is second minus first:

    >>> [round(x, 4) for x in _newcombe_interval(59, 6, 16, 80)]
    [0.0046, 0.1186]
    """
    n = both + a_only + b_only + neither
    if not n:
        raise EvalDeltaError("no items for a score interval")
    pa, pb = (both + a_only) / n, (both + b_only) / n
    la, ua = _wilson_interval(both + a_only, n, confidence)
    lb, ub = _wilson_interval(both + b_only, n, confidence)
    margins = ((both + a_only) * (b_only + neither) * (both + b_only)
               * (a_only + neither))
    cross = both * neither - a_only * b_only
    if not margins or 0 <= cross <= n / 2:
        psi = 0.0
    else:
        psi = (cross - n / 2 if cross > 0 else cross) / math.sqrt(margins)
    down = math.sqrt(max(0.0, (pb - lb) ** 2 + (ua - pa) ** 2
                         - 2 * psi * (pb - lb) * (ua - pa)))
    up = math.sqrt(max(0.0, (ub - pb) ** 2 + (pa - la) ** 2
                       - 2 * psi * (ub - pb) * (pa - la)))
    return Interval(pb - pa - down, pb - pa + up)


# McNemar's test and its interval as one: where a paired 0/1 difference's
# interval is the verdict's, it inverts McNemar's exact test, so that "the
# interval leaves out 0" and "p < 1 - confidence" are one event at every n
# (Fay and Lumbard 2021).  Newcombe's score interval and the paired
# bootstrap's stay beside it (--verbose, JSON), for they could disagree.

# Gauss-Kronrod (7, 15): the nodes and weights of QUADPACK's qk15
# (Piessens, de Doncker-Kapenga, Ueberhuber and Kahaner 1983), the
# 15-point Kronrod extension of the 7-point Gauss-Legendre rule; the two
# estimates' difference bounds the error of a panel.
_GK_NODES = (0.991455371120812639206854697526329,
             0.949107912342758524526189684047851,
             0.864864423359769072789712788640926,
             0.741531185599394439863864773280788,
             0.586087235467691130294144845693013,
             0.405845151377397166906606412076961,
             0.207784955007898467600689403773245, 0.0)
_GK_WEIGHTS = (0.022935322010529224963732008058970,
               0.063092092629978553290700663189204,
               0.104790010322250183839876322541518,
               0.140653259715525918745189590510238,
               0.169004726639267902826583426598550,
               0.190350578064785409913256402421014,
               0.204432940075298892414161999234649,
               0.209482141084727828012999174891714)
_GAUSS7_WEIGHTS = (0.129484966168869693270611432679082,    # on nodes 1, 3,
                   0.279705391489276667901467771423780,    # 5 and 7 above
                   0.381830050505118944950369775488975,
                   0.417959183673469387755102040816327)


def _integral(f, lo, hi, *, tol=1e-10, panels=4, most=200):
    """Return the integral of f over [lo, hi], adaptive Gauss-Kronrod.

    The range is cut in *panels*; then the panel with the largest error
    estimate |K15 - G7| is halved until the estimates sum below *tol* (or
    *most* panels).  x^22 is integrated exactly by the 15-point rule:

    >>> round(_integral(lambda x: 23 * x ** 22, 0.0, 1.0), 12)
    1.0
    """
    def rule(a, b):
        centre, half = (a + b) / 2, (b - a) / 2
        at_centre = f(centre)
        kronrod, gauss = at_centre * _GK_WEIGHTS[7], at_centre * \
            _GAUSS7_WEIGHTS[3]
        for j in range(7):
            dx = half * _GK_NODES[j]
            both = f(centre - dx) + f(centre + dx)
            kronrod += _GK_WEIGHTS[j] * both
            if j % 2:
                gauss += _GAUSS7_WEIGHTS[j // 2] * both
        return -abs(kronrod - gauss) * half, a, b, kronrod * half

    step = (hi - lo) / panels
    heap = [rule(lo + k * step, hi if k == panels - 1 else lo + (k + 1) * step)
            for k in range(panels)]
    heapq.heapify(heap)
    while len(heap) < most and -math.fsum(p[0] for p in heap) > tol:
        _, a, b, _ = heapq.heappop(heap)
        heapq.heappush(heap, rule(a, (a + b) / 2))
        heapq.heappush(heap, rule((a + b) / 2, b))
    return math.fsum(p[3] for p in heap)


def _beta_quantile(a, b, level):
    """Return x with I_x(a, b) = level, by bisection on _beta_ratio; an
    upper level is read from Beta(b, a)'s lower tail, where the ratio is
    exact to the last bits.

    >>> round(_beta_quantile(1, 3, 0.5), 12)      # 1 - (1 - x)^3 = 1/2
    0.206299474016
    """
    if level > 0.5:
        return 1 - _beta_quantile(b, a, 1 - level)
    lo, hi = 0.0, 1.0
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if _beta_ratio(a, b, mid) < level else (lo, mid)
    return hi


def _brent_root(f, lo, hi, f_lo, f_hi, *, xtol=1e-13):
    """Return x in [lo, hi] with f(x) = 0, f(lo) < 0 < f(hi): Brent's
    method (Brent 1973, Algorithms for Minimization without Derivatives,
    chapter 4), inverse quadratic steps kept inside the bracket."""
    a, b, fa, fb = lo, hi, f_lo, f_hi
    c, fc, d = a, fa, b - a
    e = d
    for _ in range(100):
        if (fb > 0) == (fc > 0):
            c, fc, d = a, fa, b - a
            e = d
        if abs(fc) < abs(fb):
            a, b, c, fa, fb, fc = b, c, b, fb, fc, fb
        tol = 2 * 2.2e-16 * abs(b) + xtol / 2
        m = (c - b) / 2
        if abs(m) <= tol or fb == 0:
            return b
        if abs(e) >= tol and abs(fa) > abs(fb):
            s = fb / fa
            if a == c:
                p, q = 2 * m * s, 1 - s
            else:
                q, r = fa / fc, fb / fc
                p = s * (2 * m * q * (q - r) - (b - a) * (r - 1))
                q = (q - 1) * (r - 1) * (s - 1)
            if p > 0:
                q = -q
            p = abs(p)
            if 2 * p < min(3 * m * q - abs(tol * q), abs(e * q)):
                e, d = d, p / q
            else:
                d = e = m
        else:
            d = e = m
        a, fa = b, fb
        b += d if abs(d) > tol else math.copysign(tol, m)
        fb = f(b)
    return b


@functools.lru_cache(maxsize=4096)
def _beta_range(a, b, cut=1e-15):
    """Return the (cut, 1 - cut) quantiles of Beta(a, b): where its
    density matters to an integral."""
    return _beta_quantile(a, b, cut), _beta_quantile(a, b, 1 - cut)


def _melded_cdf(delta, x, m, shape):
    """Return P(T (2B - 1) <= delta), B ~ Beta(x, m - x + 1) and T ~
    Beta(*shape) independent, x >= 1.

    T (2B - 1) <= delta for every B where T <= delta (delta > 0), for none
    where T < -delta (delta < 0); else where B <= 1/2 + delta / (2T):
        P = F_T(max(delta, 0)) + integral over t > |delta| of
            I_{(t + delta) / 2t}(x, m - x + 1) f_T(t) dt,
    integrated where T's density is above 1e-15 of its mass.
    """
    a, b = shape
    t_lo, t_hi = _beta_range(a, b)
    head = _beta_ratio(a, b, delta) if delta > 0 else 0.0
    start = max(abs(delta), t_lo)
    if start >= t_hi:
        return head
    log_norm = math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)

    def inner(t):
        return (_beta_ratio(x, m - x + 1, (t + delta) / (2 * t),
                            (t - delta) / (2 * t))
                * math.exp(log_norm + (a - 1) * math.log(t)
                           + (b - 1) * math.log1p(-t)))
    return head + _integral(inner, start, t_hi)


def _melded_lower(x, m, n, tail, positive):
    """Return the lower limit at one-sided level *tail* of p_B - p_A by
    the melded interval, x of the m discordant items of n favouring B.

    Fay and Lumbard (2021): the difference is T (2 beta - 1), T the share
    of discordant items and beta the share of them favouring B; the lower
    limit is the *tail* quantile of T (2B - 1), B ~ Beta(x, m - x + 1)
    (Clopper-Pearson's lower confidence distribution of beta), at the
    smaller of T ~ Beta(m, n - m + 1) and T ~ Beta(m + 1, n - m) (T's
    lower and upper ones): the first where the limit is above 0, the
    second where it is below.  *positive* says which, from McNemar's test
    (the limit is above 0 exactly where it rejects), so that a limit's
    sign is the test's and never a rounding's.  Edge cases: x = 0 makes
    B = 0, so the limit is -T's upper quantile (-1 when m = n); m = n
    makes T = 1, so it is 2 B's quantile - 1.
    """
    if positive:
        shape, lo, hi = (m, n - m + 1), 0.0, 1.0
    elif x == 0:
        return -1.0 if m == n else -_beta_quantile(m + 1, n - m, 1 - tail)
    elif m == n:
        return min(0.0, 2 * _beta_quantile(x, m - x + 1, tail) - 1)
    else:
        shape, lo, hi = (m + 1, n - m), -1.0, 0.0

    def gap(delta):
        return _melded_cdf(delta, x, m, shape) - tail
    f_lo, f_hi = gap(lo), gap(hi)
    if f_lo >= 0:                       # rounding at the edge: the sign
        return math.ulp(0.0) if positive else lo     # is the test's
    if f_hi <= 0:
        return hi
    return _brent_root(gap, lo, hi, f_lo, f_hi)


@functools.lru_cache(maxsize=4096)     # subsets and pairs share counts
def _mcnemar_interval(a_only, b_only, n, confidence=CONFIDENCE, p=None):
    """Return the interval of p_B - p_A that inverts McNemar's exact test.

    Fay and Lumbard (2021), "Confidence intervals for difference in
    proportions for matched pairs compatible with exact McNemar's or sign
    tests", Statistics in Medicine 40:1147-1159 (R: exact2x2's
    mcnemarExactDP): the melded interval of Fay, Proschan and Brittain
    (2015, Biometrics 71:231-237) of T (2 beta - 1), whose one-sided
    limits at (1 - confidence) / 2 are _melded_lower's.  It leaves out 0
    exactly where McNemar's exact p (*p*, if the caller has it) is below
    1 - confidence, and it covered at least the confidence at every n up
    to 100 in the authors' enumeration.  4 items, all 4 won by B (p =
    0.125): T = 1, B ~ Beta(4, 1), so the lower limit is 2 * 0.025^(1/4)
    - 1 (exact2x2 gives the same):

    >>> [round(x, 4) for x in _mcnemar_interval(0, 4, 4)]
    [-0.2047, 1.0]

    If there are no items, or more discordant than items, EvalDeltaError
    is raised.
    """
    if not n or a_only + b_only > n:
        raise EvalDeltaError(f"{a_only} + {b_only} discordant items of {n}: "
                             f"no interval")
    m = a_only + b_only
    tail = (1 - _exact(confidence)) / 2
    p = _mcnemar_p(a_only, b_only) if p is None else p
    rejects = p < 2 * tail
    return Interval(
        _melded_lower(b_only, m, n, float(tail), rejects and b_only > a_only),
        -_melded_lower(a_only, m, n, float(tail), rejects and a_only > b_only))


def _sign_flip_test(diffs, rng, *, resamples=RESAMPLES, exact_limit=20):
    """Return (p, how) of the paired sign-flip test that the mean is 0.

    Under the null each difference is as likely to have either sign, so p
    is the share of the 2**m sign patterns of the m nonzero differences
    whose sum is at least as far from 0 as the observed one.  The sums are
    exact (the differences as fractions over a common denominator); with
    m <= exact_limit every pattern is counted, through the distribution of
    partial sums, else *resamples* random patterns from rng give
    (1 + hits) / (1 + resamples), which is never 0 (Phipson and Smyth
    2010, Statistical Applications in Genetics and Molecular Biology 9:39).

    >>> _sign_flip_test([1.0, 2.0, 3.0], None)
    (Fraction(1, 4), 'exact')
    """
    ints, _ = _exact_ints([d for d in diffs if d])
    return _sign_flip(*_merge(ints, [1] * len(ints)), rng, resamples,
                      exact_limit)


def _sign_flip(values, counts, rng, resamples, exact_limit=20):
    """_sign_flip_test of nonzero integers *values*, counts[j] of each.

    Monte Carlo flips each value's copies as a group, Binomial(c, 1/2) of
    them, when there are few distinct values; else one random bit per copy
    (the copies in the given order).
    """
    m = sum(counts)
    whole = sum(map(mul, values, counts))
    observed = abs(whole)
    if not m:
        return Fraction(1), "exact"
    if m <= exact_limit:
        return Fraction(_flip_hits(_expand(values, counts), observed),
                        2 ** m), "exact"
    if _FLIP_GROUPED * len(values) <= m:
        def flipped():
            return sum(v * _binomial(rng, c, 0.5) for v, c in zip(values,
                                                                  counts))
    else:
        flipped = _bit_plane_sum(_expand(values, counts),
                                 functools.partial(rng.getrandbits, m))
    hits = sum(abs(whole - 2 * flipped()) >= observed
               for _ in range(resamples))
    return Fraction(1 + hits, 1 + resamples), "monte carlo"


def _signed_sums(values):
    """Return the Counter of sum(+-x) over every sign pattern of values."""
    sums = {0: 1}
    for x in values:
        spread = collections.Counter()
        for total, count in sums.items():
            spread[total + x] += count
            spread[total - x] += count
        sums = spread
    return sums


def _flip_hits(values, observed):
    """Return how many of the 2^m sign patterns of the integers *values*
    have |sum| >= observed, exactly: meet in the middle, the patterns of
    each half's values counted apart and the second half's sums sorted, so
    20 distinct values take two sets of 2^10 sums, not one of 2^20."""
    if not observed:
        return 2 ** len(values)
    half = len(values) // 2
    left, right = _signed_sums(values[:half]), _signed_sums(values[half:])
    keys = sorted(right)
    running = list(itertools.accumulate(right[k] for k in keys))
    total = running[-1]

    def at_most(y):                     # right's patterns with sum <= y
        k = bisect.bisect_right(keys, y)
        return running[k - 1] if k else 0
    return sum(c * (total - at_most(observed - x - 1)
                    + at_most(-observed - x))
               for x, c in left.items())


def _paired_flip(values, counts, rng, resamples, method="resample"):
    """Return _sign_flip's (p, how): exact up to 20 nonzero differences,
    beyond that Robinson's saddlepoint if *method* is "saddlepoint", else
    Monte Carlo from rng."""
    if method == "saddlepoint" and sum(counts) > 20:
        return _saddlepoint_sign_flip(values, counts), "saddlepoint"
    return _sign_flip(values, counts, rng, resamples)


def _holm(ps):
    """Return Holm's step-down adjusted p-values, in the given order.

    The i-th smallest p becomes max over j <= i of min(1, (m - j + 1) p_j)
    (Holm 1979, Scandinavian Journal of Statistics 6:65-70).

    >>> _holm([0.01, 0.04, 0.03])
    [0.03, 0.06, 0.06]
    """
    order = sorted(range(len(ps)), key=ps.__getitem__)
    adjusted, running = [0.0] * len(ps), 0
    for rank, i in enumerate(order):
        running = max(running, min(1, (len(ps) - rank) * ps[i]))
        adjusted[i] = running
    return adjusted


def _bh(ps, *, dependent=False):
    """Return Benjamini-Hochberg step-up adjusted p-values, in the given
    order: the i-th smallest of m p-values becomes min over j >= i of
    min(1, m p_(j) / j), and those at or below q are the discoveries that
    hold the false discovery rate at q for independent or positively
    dependent tests (Benjamini and Hochberg 1995, JRSS B 57:289-300).
    With *dependent*, each is times c(m) = 1 + 1/2 + ... + 1/m, which
    holds it under any dependence (Benjamini and Yekutieli 2001, Annals
    of Statistics 29:1165-1188).  Fractions stay exact.

    >>> _bh([Fraction(1, 100), Fraction(4, 100), Fraction(3, 100)])
    [Fraction(3, 100), Fraction(1, 25), Fraction(1, 25)]
    >>> _bh([Fraction(1, 100), Fraction(1, 2)], dependent=True)
    [Fraction(3, 100), Fraction(3, 4)]
    """
    m = len(ps)
    factor = sum(Fraction(1, i) for i in range(1, m + 1)) if dependent else 1
    order = sorted(range(m), key=ps.__getitem__, reverse=True)
    adjusted, running = [0.0] * m, 1
    for k, i in enumerate(order):            # the largest first
        running = min(running, factor * m * ps[i] / (m - k))
        adjusted[i] = running
    return adjusted


# --adjust: how the p-values of one family (metrics x subsets x
# candidates, or rank's pairs) are adjusted; the verdicts follow it.
_ADJUSTMENTS = {
    "holm": _holm,                                   # family-wise error
    "bh": _bh,                                       # false discovery rate
    "by": functools.partial(_bh, dependent=True),    # ... any dependence
    "none": list,                                    # each p alone
}
_ADJUST_NAMES = {"holm": "Holm", "bh": "Benjamini-Hochberg",
                 "by": "Benjamini-Yekutieli", "none": "no"}
_ADJUST_LABELS = {"holm": "Holm", "bh": "BH", "by": "BY", "none": None}


## Comparing two systems ######################################################

# Doors (called from other sections): _bca_interval, _clustered_se,
# _compare_binary, _compare_binary_by_counts, _compare_macro, _compare_metric, _compare_subsets,
# _compare_tally, _Density, _merged_tally, _METHODS, _prompt_effect,
# _run_noise, _run_noise_needed, _tally_by, _tally_spread,
# _with_run_noise.

def _compare_binary(pairs, rng, *, resamples=RESAMPLES, confidence=CONFIDENCE):
    """Return the _MetricResult of paired 0/1 outcomes (a, b), the article's
    way: index resampling.

    rng is consumed in the article's order: A's bootstrap, B's, the paired
    one, then the unpaired one (_compare_tally gives the same distributions
    from the cell counts, much faster for large n, but other draws).  If
    *pairs* is empty, EvalDeltaError is raised.

    >>> r = _compare_binary([(1, 1), (0, 1), (1, 0), (0, 1)], random.Random(3),
    ...                    resamples=50)
    >>> r.gap, r.mcnemar.b_only
    (Fraction(1, 4), 2)
    """
    _check_items(pairs)
    replicates = (
        system_bootstrap([a for a, _ in pairs], rng, resamples=resamples),
        system_bootstrap([b for _, b in pairs], rng, resamples=resamples),
        paired_bootstrap(pairs, rng, resamples=resamples),
        unpaired_bootstrap(pairs, rng, resamples=resamples))
    ci = [percentile_interval(reps, confidence) for reps in replicates]
    return _binary_result(collections.Counter(pairs), ci, replicates[2],
                          "correct", "higher", confidence, article=True)


def _compare_binary_by_counts(pairs, rng, *, resamples=RESAMPLES,
                              confidence=CONFIDENCE):
    """Return _compare_binary's result with each resample drawn from the
    four cell counts at once (simulate --by-counts): A's and B's right
    answers as binomials, the paired resample's A-only and B-only counts
    as one multinomial, the unpaired one as A's binomial then B's.  The
    same bootstrap laws as the article's index draws, at a cost that does
    not grow with the items (the whole simulate --by-counts run at 10,000
    items: 6.0 s of CPU with the single run drawn index by index, 0.3 s
    so); other draws, so not the article's numbers.

    >>> r = _compare_binary_by_counts([(1, 1), (0, 1), (1, 0), (0, 1)] * 25,
    ...                               random.Random(3), resamples=200)
    >>> r.gap, r.mcnemar.b_only, r.ci_paired.lo <= r.gap <= r.ci_paired.hi
    (Fraction(1, 4), 50, True)
    """
    n = _check_items(pairs)
    cells = collections.Counter(pairs)
    right = [Fraction(cells[1, 1] + cells[1, 0], n),
             Fraction(cells[1, 1] + cells[0, 1], n)]
    weights = [cells[1, 0], cells[0, 1], cells[1, 1] + cells[0, 0]]
    per_system = [[_binomial(rng, n, float(p)) for _ in range(resamples)]
                  for p in right]
    paired = [b - a for a, b, _ in _multinomials(rng, n, weights, resamples)]
    unpaired = []
    for _ in range(resamples):
        a = _binomial(rng, n, float(right[0]))
        unpaired.append(_binomial(rng, n, float(right[1])) - a)
    replicates = (*per_system, paired, unpaired)
    ci = [percentile_interval(reps, confidence) for reps in replicates]
    return _binary_result(cells, ci, paired, "correct", "higher", confidence,
                          article=True)


def _binary_result(cells, ci, paired, metric, direction, confidence, *,
                   article=False):
    """Return the _MetricResult of 0/1 pairs from their cell counts.

    *ci* holds the four bootstrap intervals and *paired* the paired
    replicates, all in counts of items.  The *article*'s run keeps them;
    elsewhere each system's interval is the exact Clopper-Pearson one,
    and the paired one is the interval that inverts McNemar's exact test
    (_mcnemar_interval), so that it leaves out 0 exactly where the test
    rejects, at any n; the bootstrap's paired interval is kept beside it
    (boot_ci), and Newcombe's score interval (score_ci).  Over 378
    designs of 10 to 200 items (accuracies 0.5 to 0.98, correlations 0 to
    0.9, gaps 0 to 10 points) computed exactly over every outcome, it
    covers 96.0% at worst and 98.6% on average, where Newcombe's below
    100 items or 20 discordant ones and the bootstrap above
    (_score_takes_over) covered 93.9% and 97.0%, and the bootstrap alone
    30.9% at worst; it is 14% wider on average (23% at 10 items, 8% at
    200), and that rule's interval and the test parted on 2.7% of
    outcomes on average, 15.6% at worst (tests/benchmark.py --part small).
    """
    n = sum(cells.values())
    both, a_only, b_only = cells[1, 1], cells[1, 0], cells[0, 1]
    unit = functools.partial(Fraction, denominator=n)
    p_exact, mid_p = _mcnemar_tails(a_only, b_only)
    se = _paired_se([1, -1], [b_only, a_only], n)
    score = _newcombe_interval(both, a_only, b_only,
                               n - both - a_only - b_only, confidence)
    ci = [Interval(unit(lo), unit(hi)) for lo, hi in ci]
    method, boot = None, ci[2]
    if not article:
        ci[:2] = (_clopper_pearson(k, n, confidence)
                  for k in (both + a_only, both + b_only))
        ci[2] = _mcnemar_interval(a_only, b_only, n, confidence, p_exact)
        method = "Fay-Lumbard"
    return _MetricResult(
        metric, "binary", direction, n, unit(both + a_only),
        unit(both + b_only), unit(b_only - a_only), *ci, "McNemar exact",
        p_exact, McNemar(a_only, b_only, p_exact), mid_p, score,
        se, None, [x / n if type(x) is int else float(unit(x))
                   for x in paired],   # int / int is rounded once, as a
        paired_method=method, boot_ci=boot)     # Fraction's float is


def _score_takes_over(n, discordant):
    """Return True where a 0/1 difference's headline interval was
    Newcombe's score interval rather than the paired bootstrap's, before
    it was the one McNemar's test inverts: below 100 items or 20
    discordant ones (_SCORE_BELOW).

    >>> _score_takes_over(500, 150), _score_takes_over(500, 19)
    (False, True)
    """
    most_items, most_discordant = _SCORE_BELOW
    return n < most_items or discordant < most_discordant


def _compare_metric(a, b, rng, options=_Options(), metric=_Metric(),
                    clusters=None):
    """Return the _MetricResult of paired per-item values a (A) and b (B).

    *clusters*, if given, holds one label per item.  The options are
    _compare_tally's.

    >>> r = _compare_metric([0.5, 0.25, 1.0], [0.75, 0.5, 1.0],
    ...                     random.Random(1), _Options(resamples=50))
    >>> r.kind, r.gap, r.p, r.test
    ('continuous', 0.16666666666666666, Fraction(1, 2), 'sign-flip exact')
    """
    n = _check_items(a)
    if len(b) != n:
        raise EvalDeltaError(f"{metric.name}: {n} baseline values but "
                             f"{len(b)} candidate values")
    if clusters is None:
        return _compare_tally(collections.Counter(zip(a, b)), rng, options,
                              metric)
    return _compare_tally(_tally_by(clusters, a, b), rng, options, metric,
                          clustered=True)


def _tally_by(labels, a, b):
    """Return {label: Counter of (a, b) pairs} of items with these labels
    (a cluster's or a subset's).

    >>> _tally_by("xxy", [1, 1, 0], [1, 1, 1])
    {'x': Counter({(1, 1): 2}), 'y': Counter({(0, 1): 1})}
    """
    tally = {}
    for label, x, y in zip(labels, a, b):
        tally.setdefault(label, collections.Counter())[x, y] += 1
    return tally


def _compare_tally(tally, rng, options=_Options(), metric=_Metric(), *,
                   clustered=False):
    """Return the _MetricResult of a tally of paired values.

    *tally* counts the items with each (a, b) pair of values (a Counter,
    or their _Columns); if *clustered*, it maps each cluster label to such
    a count.  The _Metric gives its name, its direction and its kind:
    "binary" (values 0/1: McNemar's test) or "continuous" (the sign-flip
    test), by default binary when every value is 0 or 1; the _Options say
    how (resamples, confidence, interval, method, jobs).  Clusters are
    resampled whole, the standard error is the clustered one (CR2), and
    the paired interval and test are the cluster t on it (_cluster_df).
    The interval is "percentile" or "bca" (the unpaired interval is always
    a percentile one).  rng is consumed by the
    resamples (see _resample_sums), then by a Monte Carlo sign-flip test.
    Nothing depends on the order of the items, nor on jobs, the number
    of processes that may share the resampling.  Method "saddlepoint"
    takes the intervals of the ideal bootstrap instead, with no resamples
    (see _SumLaw), and the sign-flip p from Robinson's saddlepoint past 20
    nonzero differences; "auto" does so for a continuous metric of 100
    unclustered items or more (_method_for).  With a plot to draw, a
    saddlepoint result's draws hold the _Density of the paired difference.

    >>> r = _compare_tally(collections.Counter({(1, 0): 3, (0, 1): 5,
    ...                                        (1, 1): 12}), random.Random(1))
    >>> r.kind, r.gap, r.mcnemar.p_exact
    ('binary', Fraction(1, 10), Fraction(93, 128))
    >>> r.paired_method, [round(x, 4) for x in r.ci_paired]
    ('Fay-Lumbard', [-0.2281, 0.4084])
    """
    _check_resamples(options.resamples, options.confidence)
    strict = options.method == "saddlepoint"   # even where a column is lumpy
    kind = metric.kind
    if isinstance(tally, _Columns):
        if clustered:
            raise ValueError("clustered data maps each cluster's label to "
                             "its Counter; _Columns hold no clusters")
        if (kind or _column_kind(tally)) != "binary" and _method_for(
                options.method, "continuous", len(tally.a), False) == \
                "saddlepoint":
            result = _saddle_columns(tally, options, metric._replace(
                kind=kind or "continuous"), strict)
            if result is not None:
                return result
        tally = tally.counter()     # few distinct pairs, or lumpy
    if clustered:                   # auto resamples clusters, any kind
        method = _method_for(options.method, kind, 0, True)
    else:
        method = _method_for(options.method, kind or _kind_of(tally),
                             sum(tally.values()), False)
    pairs, exact, scale, kind = _exact_tally(
        tally, metric.name, kind, clustered,
        columns=method == "saddlepoint" and not clustered)
    options = options._replace(method=method)          # settled
    metric = metric._replace(kind=kind)
    if clustered:
        return _compare_clustered(tally, exact, scale, rng, options, metric)
    if method == "saddlepoint":
        result = _saddle_items(pairs, exact, scale, options, metric, strict)
        if result is not None:
            return result
        exact = dict(zip(pairs, zip(*exact)))      # lumpy: resample
    return _compare_items(pairs, exact, scale, rng, options, metric)


_METHODS = ("auto", "saddlepoint", "resample")


def _compare_subsets(tally, rng, options=_Options(), metric=_Metric()):
    """Return [(subset, _MetricResult)] of a tally by subset ({label:
    Counter of (a, b) pairs}), in the subsets' sorted order, each as
    _compare_tally compares it.

    >>> rows = _compare_subsets({"x": collections.Counter({(1, 0): 2,
    ...                         (0, 1): 6, (1, 1): 12}),
    ...                         "w": collections.Counter({(0.5, 1.0): 3})},
    ...                        random.Random(1), _Options(resamples=50))
    >>> [(label, r.n_items, r.gap) for label, r in rows]
    [('w', 3, 0.5), ('x', 20, Fraction(1, 5))]
    """
    return [(label, _compare_tally(tally[label], rng, options, metric))
            for label in sorted(tally)]


def _compare_macro(tally, rng, options=_Options(), metric=_Metric()):
    """Return the _MetricResult of the macro average: each system's mean
    over the subsets of a tally by subset ({label: Counter of (a, b)}),
    unweighted, as MMLU's headline number is computed.

    The interval is the stratified bootstrap's: items are resampled
    within each subset, its size fixed (each subset drawn as
    _compare_tally draws it, in sorted order), and the resample's subset
    means averaged, exactly.  The test is the stratified sign flip of the
    differences weighted 1 / (S n_s), S subsets of n_s items; its standard
    error sqrt(sum of se_s^2) / S.  The interval is always a percentile
    one, and the options are _compare_tally's.  By the saddlepoint (its
    method as in _compare_tally), a subset's
    values are scaled by L / n_s, L the least common multiple of the
    sizes, and the stratified resample's sum is that of independent
    parts, one per subset (see _SumLaw); its sign-flip p is Robinson's
    on the same scaled differences.  If *tally* is empty,
    EvalDeltaError is raised.

    >>> r = _compare_macro({"x": collections.Counter({(0, 1): 9, (1, 1): 1}),
    ...                    "y": collections.Counter({(1, 0): 1, (1, 1): 29})},
    ...                   random.Random(2), _Options(resamples=50))
    >>> r.a, r.b, r.test            # (1/10 + 1) / 2 and (1 + 29/30) / 2
    (Fraction(11, 20), Fraction(59, 60), 'stratified sign-flip exact')
    """
    labels = sorted(tally)
    if not labels:
        raise EvalDeltaError(f"{metric.name}: no subsets to average")
    resamples, confidence = options.resamples, options.confidence
    _check_resamples(resamples, confidence)
    pairs, exact, scale, kind = _exact_tally(tally, metric.name, metric.kind,
                                             True)
    metric = metric._replace(kind=kind)
    if _method_for(options.method, kind, sum(pairs.values()), False) == \
            "saddlepoint":
        result = _saddle_macro(tally, labels, exact, scale, options, metric)
        if result is not None:
            return result
    sums, sizes, diffs, ses = [[], []], [], [], []
    means = [Fraction(0), Fraction(0)]
    for label in labels:
        keys = sorted(tally[label])
        counts = [tally[label][k] for k in keys]
        a, b = ([exact[k][i] for k in keys] for i in (0, 1))
        drawn = _resample_sums(rng, a, b, None, counts, resamples,
                               options.jobs)
        n = sum(counts)
        for j, values in enumerate((a, b)):
            sums[j].append(drawn[j])
            means[j] += Fraction(sum(map(mul, values, counts)), n)
        sizes.append(n)
        d = list(map(sub, b, a))
        diffs.append((d, counts, n))
        ses.append(_paired_se(d, counts, n, scale))
    whole = scale * len(labels)
    means = [m / whole for m in means]

    common = math.lcm(*sizes)          # each subset's mean over one
    weights = [common // n for n in sizes]      # denominator: integers

    def macro(columns):
        totals = [0] * (resamples + 1)
        for column, w in zip(columns, weights):
            totals = list(map(add, totals, map(mul, column, repeat(w))))
        return [Fraction(t, common) / whole for t in totals]

    replicates = _shifted(macro(sums[0]), macro(sums[1]), sub)
    ci = [percentile_interval(reps, confidence) for reps in replicates]
    values, counts = [], []
    for d, c, n in diffs:
        values += [x * (common // n) for x in d]
        counts += c
    p, how = _sign_flip(*_nonzero(*_merge(values, counts)), rng, resamples)
    se = math.sqrt(math.fsum(x * x for x in ses)) / len(labels)
    ci[2], paired, df = _strata_interval(means[1] - means[0], se, ses, sizes,
                                         confidence, ci[2])
    return _MetricResult(metric.name, kind, metric.direction, sum(sizes),
                         means[0], means[1], means[1] - means[0], *ci,
                         f"stratified sign-flip {how}", p, None, None, None,
                         se, None, [float(x) for x in replicates[2]],
                         paired_method=paired, df=df)


def _strata_interval(gap, se, ses, sizes, confidence, bootstrap):
    """Return (interval, its name, df) of a macro average's difference:
    the t interval on the stratified standard error, with Welch and
    Satterthwaite's degrees of freedom (Satterthwaite 1946, Biometrics
    Bulletin 2:110-114) from each subset's se_s^2 on n_s - 1.  The
    stratified bootstrap's percentile interval, whose within-subset
    variance is the (n_s - 1) / n_s-short one, covered 92.4% with 20
    subsets of 6 continuous items and 93.5% with 0/1 subsets of 10 to 200;
    this, 95.4% and 96.0% (2,000 replays).  Without spread, *bootstrap*
    stands, named None."""
    df = _strata_df(ses, sizes)
    if not se or df is None:
        return bootstrap, None, None
    half = _student_t_upper(float((1 - _exact(confidence)) / 2), df) * se
    return (Interval(float(gap) - half, float(gap) + half),
            "t on the stratified standard error", df)


def _strata_df(ses, sizes):
    """Welch-Satterthwaite degrees of freedom of sum(se_s^2), or None
    where no subset has spread."""
    parts = [(x * x, n) for x, n in zip(ses, sizes) if x and n > 1]
    if not parts:
        return None
    return (math.fsum(v for v, _ in parts) ** 2
            / math.fsum(v * v / (n - 1) for v, n in parts))


def _saddle_macro(tally, labels, exact, scale, options, metric):
    """_compare_macro by the saddlepoint: the ideal stratified bootstrap
    (unless the method asked is "saddlepoint", None when a subset's
    column is lumpy)."""
    confidence, strict = options.confidence, options.method == "saddlepoint"
    sizes = [sum(tally[label].values()) for label in labels]
    common = math.lcm(*sizes)
    parts = [[], [], []]
    flips = collections.Counter()
    ses = []
    for label, n in zip(labels, sizes):
        columns = [collections.Counter() for _ in range(3)]
        for key, c in tally[label].items():
            x, y = (v * (common // n) for v in exact[key])
            columns[0][x] += c
            columns[1][y] += c
            columns[2][y - x] += c
            if y != x:
                flips[y - x] += c
        for j, column in enumerate(columns):
            parts[j].append(_law_part(column))
            if not strict and parts[j][-1].lumpy():
                return None
        ses.append(_paired_se(list(columns[2]), list(columns[2].values()),
                              n, scale * common // n))
    laws = [_SumLaw([(p, 1) for p in column]) for column in parts]
    laws.append(_SumLaw([(p, 1) for p in parts[1]]
                        + [(p, -1) for p in parts[0]]))
    unit = common * len(labels) * scale
    ci = [_law_interval(law, unit, confidence) for law in laws]
    values = sorted(flips)
    p, how = _paired_flip(values, [flips[v] for v in values], None, 0,
                          "saddlepoint")
    means = [law.mean / unit for law in laws[:3]]
    se = math.sqrt(math.fsum(x * x for x in ses)) / len(labels)
    ci[2], paired, df = _strata_interval(means[2], se, ses, sizes,
                                         confidence, ci[2])
    return _MetricResult(metric.name, metric.kind, metric.direction,
                         sum(sizes), *means, *ci,
                         f"stratified sign-flip {how}", p, None, None, None,
                         se, None, _density(laws[2], unit) if options.density
                         else None, "saddlepoint", paired, df)


def _merged_tally(tally):
    """Return one Counter of (a, b) pairs from a tally by subset."""
    merged = collections.Counter()
    for counts in tally.values():
        merged.update(counts)
    return merged


def _exact_tally(tally, metric, kind, clustered, columns=False):
    """Return (pairs, exact, scale, kind) of a tally (see _compare_tally):
    the count of each (a, b) pair over all clusters, each pair's exact
    integers over the common denominator *scale* (a dict; with *columns*,
    the lists of A's and of B's integers in the pairs' order), and the
    metric's kind.
    """
    pairs = _merged_tally(tally) if clustered else tally
    if not sum(pairs.values()):
        raise EvalDeltaError(f"{metric}: no items to compare")
    binary = _kind_of(pairs) == "binary"
    kind = kind or _kind_of(pairs)
    if kind == "binary" and not binary:
        raise EvalDeltaError(f"{metric}: declared binary but has values "
                             f"other than 0 and 1")
    ints, scale = _exact_ints(list(itertools.chain.from_iterable(pairs)))
    if columns:
        return pairs, (ints[::2], ints[1::2]), scale, kind
    return pairs, dict(zip(pairs, zip(ints[::2], ints[1::2]))), scale, kind


def _tally_spread(tally, *, metric="metric", kind=None, clustered=False):
    """Return the _Spread of a tally (see _compare_tally), exactly and
    without resampling: what plan --from sizes a comparison by.

    >>> r = _tally_spread(collections.Counter({(1, 0): 3, (0, 1): 5,
    ...                                       (1, 1): 12}))
    >>> r.gap, r.mcnemar.b_only, round(r.se, 4)
    (Fraction(1, 10), 5, 0.1433)
    """
    pairs, exact, scale, kind = _exact_tally(tally, metric, kind, clustered)
    n = sum(pairs.values())
    if clustered:
        stats = [_cluster_sums(counts, exact) for counts in tally.values()]
        diffs = [s[2] - s[1] for s in stats]
        sizes = [s[0] for s in stats]
        return _Spread(metric, kind, n, Fraction(sum(diffs), scale * n),
                      _clustered_se_of_sums(sizes, diffs, scale), None,
                      len(stats),
                      _cluster_df(sizes, _cluster_icc(tally, exact, scale)))
    d = [exact[k][1] - exact[k][0] for k in pairs]
    counts = list(pairs.values())
    mcnemar = None
    if kind == "binary":
        mcnemar = McNemar(pairs[1, 0], pairs[0, 1], None)
    return _Spread(metric, kind, n, Fraction(sum(map(mul, d, counts)),
                                            scale * n),
                  _paired_se(d, counts, n, scale), mcnemar, None)


def _compare_items(pairs, exact, scale, rng, options, metric):
    """_compare_tally of unclustered items, from the exact integers."""
    kind, resamples = metric.kind, options.resamples
    confidence, interval = options.confidence, options.interval
    keys = sorted(pairs)
    counts = [pairs[k] for k in keys]
    a = [exact[k][0] for k in keys]
    b = [exact[k][1] for k in keys]
    d = list(map(sub, b, a))
    n = sum(counts)
    sum_a, sum_b, _ = _resample_sums(rng, a, b, None, counts, resamples,
                                     options.jobs)
    replicates = _shifted(sum_a, sum_b, sub)
    totals = [sum(map(mul, v, counts)) for v in (a, b, d)]
    jackknives = ([-x for x in v] for v in (a, b, d))
    level = (confidence if interval == "bca" or kind == "binary"
             else _expanded(confidence, n, resamples))
    ci = [_interval(reps, total, jack, level, interval, counts)
          for reps, total, jack in zip(replicates, totals, jackknives)]
    ci.append(percentile_interval(replicates[3], confidence))
    if kind == "binary":
        return _binary_result(_cells(pairs), ci, replicates[2], metric.name,
                              metric.direction, confidence)
    unit = _divider(scale * n)
    p, how = _sign_flip(*_nonzero(d, counts), rng, resamples)
    return _MetricResult(metric.name, kind, metric.direction, n,
                         *map(unit, totals),
                        *(Interval(unit(lo), unit(hi)) for lo, hi in ci),
                        f"sign-flip {how}", p, None, None, None,
                        _paired_se(d, counts, n, scale), None,
                        [unit(x) for x in replicates[2]],
                        paired_method="expanded percentile"
                        if level != confidence else None)


def _column_kind(columns):
    """Return _kind_of of _Columns: "binary" when every value is 0 or 1."""
    binary = {0.0, 1.0}.__contains__
    return ("binary" if all(map(binary, columns.a))
            and all(map(binary, columns.b)) else "continuous")


def _saddle_columns(columns, options, metric, strict):
    """_saddle_items of a continuous metric's _Columns: the exact integers
    of the values item by item, no pairs counted."""
    if not len(columns.a):
        raise EvalDeltaError(f"{metric.name}: no items to compare")
    ints, scale = _exact_columns(columns)
    return _saddle_items(None, ints, scale, options, metric, strict)


def _saddle_items(pairs, exact, scale, options, metric, strict):
    """_compare_tally of unclustered items by the saddlepoint: each
    system's mean, the paired difference, and the unpaired difference
    (K_B(t) + K_A(-t): two independent resamples) as the ideal bootstrap
    gives them; the sign-flip p exact up to 20 nonzero differences, else
    Robinson's saddlepoint.  With jobs > 1 a forked helper takes the two
    systems' laws while this process takes the difference's.  Unless
    *strict*, None when a column is lumpy (see _Part.lumpy).  *pairs*
    None: exact holds items one by one, each counted once."""
    kind, confidence, jobs = metric.kind, options.confidence, options.jobs
    xs, ys = exact                                     # in pairs' order
    counts = None if pairs is None else list(pairs.values())
    n = len(xs) if pairs is None else sum(counts)
    unit = scale * n
    if len(xs) < _FORK_LEAST:                   # not worth a process
        jobs = 1
    sides = _in_parallel(_saddle_side, [
        (side, xs, ys, counts, unit, options, strict)
        for side in ("paired", "systems")], jobs)
    if None in sides:
        return None
    (ci_d, mean_d, p, how, se, shape), (ci_a, ci_b, ci_u, mean_a, mean_b) = \
        sides
    ci = [ci_a, ci_b, ci_d, ci_u]
    if kind == "binary":
        result = _binary_result(_cells(pairs),
                                [(lo * n, hi * n) for lo, hi in ci],
                                [], metric.name, metric.direction, confidence)
        return result._replace(draws=shape, method="saddlepoint")
    expanded = (options.interval == "percentile"
                and _expanded(confidence, n) != confidence)
    return _MetricResult(metric.name, kind, metric.direction, n,
                        *(float(m / scale) for m in (mean_a, mean_b, mean_d)),
                        *(Interval(float(lo), float(hi)) for lo, hi in ci),
                        f"sign-flip {how}", p, None, None, None,
                        se / scale, None, shape, "saddlepoint",
                        "expanded percentile" if expanded else None)


def _saddle_side(side, xs, ys, counts, unit, options, strict=True):
    """One half of _saddle_items: for "paired", the difference's interval,
    mean, sign-flip p and test, standard error and _Density (with a plot
    to draw); for "systems", A's, B's and the unpaired intervals and the
    two means.  Unless *strict*, None when a column is lumpy."""
    confidence, interval = options.confidence, options.interval
    n = len(xs) if counts is None else sum(counts)
    def interval_of(part, law):
        levels = None
        if interval == "bca" and law.low < law.high:
            levels = _bca_levels(law, [-v for v in part.values], confidence,
                                 part.counts)
        elif interval == "percentile":
            return _law_interval(law, unit, _expanded(confidence, n))
        return _law_interval(law, unit, confidence, levels)

    if side == "paired":
        d = map(sub, ys, xs)            # below 2 * 10^15 from arrays
        part = _law_part(_counted(array("q", d) if type(xs) is array
                                 else list(d), counts))
        if not strict and part.lumpy():
            return None
        law = _SumLaw([(part, 1)])
        p, how = _paired_flip(*_nonzero(part.values, part.counts), None, 0,
                              "saddlepoint")
        return (interval_of(part, law), part.mean, p, how,
                _paired_se(part.values, part.counts, part.total),
                _density(law, unit) if options.density else None)
    a, b = (_law_part(_counted(v, counts)) for v in (xs, ys))
    if not strict and (a.lumpy() or b.lumpy()):
        return None
    return (interval_of(a, _SumLaw([(a, 1)])),
            interval_of(b, _SumLaw([(b, 1)])),
            _law_interval(_SumLaw([(b, 1), (a, -1)]), unit, confidence),
            a.mean, b.mean)


class _Density(NamedTuple):
    """The saddlepoint density of the paired difference, at points x."""
    x: list
    density: list


def _density(law, unit, points=61):
    """Return the _Density of S / unit over its central 99.98%, points
    evenly spaced in t (the saddlepoint density needs no root)."""
    if law.low == law.high:
        return _Density([law.low / unit], [math.inf])
    ends = []
    for p in (1e-4, 1 - 1e-4):
        z = NormalDist().inv_cdf(p)
        ends.append(z / law.sd)
    xs, fs = [], []
    for i in range(points):
        t = ends[0] + (ends[1] - ends[0]) * i / (points - 1)
        s, f = law.density(t)
        xs.append((float(law.mean) + s) / unit)
        fs.append(f * unit)
    return _Density(xs, fs)


def _exact_columns(columns):
    """Return ([ints of each column], scale): _exact_ints of the columns'
    values together, kept apart (arrays of 8-byte ints where the values
    are short decimals, as most are: see _decimal_ints)."""
    if sum(map(len, columns)) > 4096:
        fast = _decimal_ints(columns, compact=True)
        if fast:
            return fast
    ints, scale = _exact_ints([x for c in columns for x in c])
    out, start = [], 0
    for c in columns:
        out.append(ints[start:start + len(c)])
        start += len(c)
    return out, scale


def _shifted(sum_a, sum_b, gap):
    """Return the four statistics' replicates from resample sums.

    The lists hold resamples + 1 values; the last one only serves the
    unpaired replicates, which pair B's resample r with A's resample
    r + 1: independent resamples, so gap(B_r, A_r+1) has the distribution
    of the unpaired bootstrap (each system resampled on its own).
    """
    a, b = sum_a[:-1], sum_b[:-1]
    return (a, b, list(map(gap, b, a)), list(map(gap, b, sum_a[1:])))


def _paired_se(d, counts, n, scale=1):
    """Return the standard error of the mean of n values: d[j] / scale
    repeated counts[j] times, zeros for the rest."""
    if n < 2:
        return 0.0
    total = sum(map(mul, d, counts))
    squares = sum(map(mul, map(mul, d, d), counts))
    return _root(Fraction(n * squares - total * total,
                          n * n * (n - 1) * scale * scale))


def _divider(n):
    """Return a function dividing its argument by *n* (a C-speed map's
    callable)."""
    def divide(x):
        return x / n
    return divide


def _expanded(confidence, n, resamples=None):
    """Return the level at which a percentile interval of n items is
    read: below _EXPAND_BELOW items, Hesterberg's expanded percentile
    interval (The American Statistician 69:371-386, 2015), whose tails
    are Phi(-sqrt(n / (n-1)) t) with t Student's quantile on n - 1
    degrees of freedom.  The plain percentile interval is too narrow at
    small n: its spread divides by n, not n - 1, and it takes the normal
    quantile, not t (measured: 90.5-92.0% at 10 to 20 normal items).
    With *resamples*, never past the level whose ends would be the
    resamples' extremes (see _check_resamples).

    >>> round(_expanded(0.95, 10), 4), _expanded(0.95, 100)
    (0.9829, 0.95)
    """
    if not 2 <= n < _EXPAND_BELOW:
        return confidence
    t = _student_t_upper(float((1 - _exact(confidence)) / 2), n - 1)
    level = 1 - 2 * NormalDist().cdf(-math.sqrt(n / (n - 1)) * t)
    if resamples:
        level = min(level, 1 - 3 / resamples)
    return max(level, float(confidence))


def _interval(replicates, estimate, jackknife, confidence, method,
              counts=None):
    """Return the percentile or, for *method* 'bca', the BCa interval of
    *replicates*."""
    if method == "bca":
        return _bca_interval(replicates, estimate, jackknife, confidence,
                            counts)
    return percentile_interval(replicates, confidence)


def _bca_interval(replicates, estimate, jackknife, confidence=CONFIDENCE,
                 counts=None):
    """Return the bias-corrected and accelerated bootstrap interval.

    With B replicates sorted, z0 = Phi^-1(share of replicates below the
    estimate, ties counted half) corrects the median bias, and the
    acceleration a = sum(u^3) / (6 * sum(u^2)^1.5), u_i the jackknife
    deviations mean(theta_(.)) - theta_(i), corrects the skew; the ends
    are the replicates at positions floor(B * Phi(z0 + (z0 + z) /
    (1 - a (z0 + z)))) for z = Phi^-1((1 -+ c) / 2).  Any increasing
    affine map of the jackknife values gives the same a; counts[i], if
    given, is how many items have jackknife value i.  All replicates
    equal give that value as both ends; all jackknife values equal give
    a = 0.  (Efron 1987, "Better bootstrap confidence intervals", JASA
    82:171-185; Efron and Tibshirani 1993, An Introduction to the
    Bootstrap, chapter 14.)

    >>> _bca_interval([3] * 10, 3, [1, 2])
    Interval(lo=3, hi=3)
    >>> _bca_interval(range(1000), 499.5, [0, 0, 0])
    Interval(lo=25, hi=975)
    """
    ordered = sorted(replicates)
    size = len(ordered)
    if not size:
        raise EvalDeltaError("no bootstrap values to take an interval of")
    if ordered[0] == ordered[-1]:
        return Interval(ordered[0], ordered[-1])
    below = bisect.bisect_left(ordered, estimate)
    ties = bisect.bisect_right(ordered, estimate) - below
    share = min(max((below + ties / 2) / size, 0.5 / size), 1 - 0.5 / size)
    z0 = NormalDist().inv_cdf(share)
    accel = _acceleration(jackknife, counts)
    ends = []
    for tail in ((1 - _exact(confidence)) / 2, (1 + _exact(confidence)) / 2):
        z = z0 + NormalDist().inv_cdf(float(tail))
        denominator = 1 - accel * z
        shifted = z0 + z / denominator if denominator > 0 else math.inf * z
        at = math.floor(NormalDist().cdf(shifted) * size)
        ends.append(ordered[min(max(at, 0), size - 1)])
    return Interval(*ends)


def _compare_clustered(tally, exact, scale, rng, options, metric):
    """_compare_tally with whole clusters resampled and sign-flipped; by
    the saddlepoint of the ratio's estimating equation (_ratio_quantile)
    for each system and the paired difference if options.method says so
    (the unpaired interval, a ratio of two independent resamples' ratios,
    is resampled all the same)."""
    resamples, confidence = options.resamples, options.confidence
    interval, method = options.interval, options.method
    stats = [_cluster_sums(counts, exact) for counts in tally.values()]
    patterns = collections.Counter(stats)
    keys = sorted(patterns)
    counts = [patterns[k] for k in keys]
    size, sum_a, sum_b = ([k[i] for k in keys] for i in range(3))
    sums = _resample_sums(rng, sum_a, sum_b, size, counts, resamples,
                          options.jobs)
    means = [[Fraction(x, scale * k) for x, k in zip(column, sums[2])]
             for column in sums[:2]]
    replicates = _shifted(*means, sub)
    n = sum(s[0] for s in stats)
    sum_d = list(map(sub, sum_b, sum_a))
    several = len(stats) > 1
    if method == "saddlepoint":
        ci = [_ratio_interval(column, size, counts, scale, confidence,
                              interval) for column in (sum_a, sum_b, sum_d)]
        draws = None
    else:
        ci = [_interval(reps, Fraction(sum(map(mul, column, counts)),
                                       scale * n),
                        _ratio_jackknife(column, size, counts, scale)
                        if several else [0], confidence, interval,
                        counts if several else None)
              for reps, column in zip(replicates, (sum_a, sum_b, sum_d))]
        draws = [float(x) for x in replicates[2]]
    ci.append(percentile_interval(replicates[3], confidence))
    ci = [Interval(float(lo), float(hi)) for lo, hi in ci]
    totals = [sum(map(mul, v, counts)) for v in (sum_a, sum_b, sum_d)]
    se = _clustered_se_of_sums([s[0] for s in stats],
                               [s[2] - s[1] for s in stats], scale)
    df = _cluster_df([s[0] for s in stats], _cluster_icc(tally, exact, scale))
    if len(stats) > 1 and se:
        # The t interval on the CR2 standard error with _cluster_df's
        # degrees of freedom covers at few and unequal clusters, where the
        # percentile one does not; the test is its dual, so the two agree.
        gap = float(Fraction(totals[2], scale * n))
        half = _student_t_upper(float((1 - _exact(confidence)) / 2), df) * se
        ci[2] = Interval(gap - half, gap + half)
        paired = "t on the clustered standard error"
        p, test = min(1.0, 2 * _student_t_tail(abs(gap) / se, df)), "cluster t"
    else:                           # one cluster, or no spread: exact flips
        p, how = _paired_flip(*_nonzero(*_merge(sum_d, counts)), rng,
                             resamples, method)
        paired, test = None, f"cluster sign-flip {how}"
    return _MetricResult(metric.name, metric.kind, metric.direction, n,
                         *(Fraction(t, scale * n) for t in totals), *ci,
                         test, p, None, None, None, se,
                         len(stats), draws, method, paired, df)


def _ratio_interval(sums, sizes, counts, scale, confidence, interval):
    """Return the ideal bootstrap's interval of sum(sums) / sum(sizes) /
    scale over resampled clusters (percentile or BCa)."""
    estimate = Fraction(sum(map(mul, sums, counts)),
                        sum(map(mul, sizes, counts)))
    if len(set(Fraction(s, k) for s, k in zip(sums, sizes))) == 1:
        return Interval(float(estimate / scale), float(estimate / scale))
    c = _exact(confidence)
    levels = (float((1 - c) / 2), float((1 + c) / 2))
    if interval == "bca" and len(sums) > 1:
        law = _ratio_law(sums, sizes, counts, float(estimate))
        levels = _bca_levels(law, _ratio_jackknife(sums, sizes, counts,
                                                   scale), confidence,
                             counts)
    return Interval(*(float(_ratio_quantile(sums, sizes, counts, p,
                                            estimate) / scale)
                      for p in levels))


def _cluster_sums(counts, exact):
    """Return (items, sum of A, sum of B) of a cluster."""
    size = sum_a = sum_b = 0
    for pair, c in counts.items():
        x, y = exact[pair]
        size += c
        sum_a += c * x
        sum_b += c * y
    return size, sum_a, sum_b


def _cells(pairs):
    """Return the Counter of (a, b) 0/1 cells of a tally of 0/1 pairs."""
    cells = collections.Counter()
    for (x, y), c in pairs.items():
        cells[int(x), int(y)] += c
    return cells


def _ratio_jackknife(sums, size, counts, scale):
    """Return the item-weighted mean with each cluster left out in turn."""
    total = sum(map(mul, sums, counts))
    items = sum(map(mul, size, counts))
    return [Fraction(total - s, scale * (items - k)) if items > k else
            Fraction(0) for s, k in zip(sums, size)]


def _clustered_se(values, labels):
    """Return the cluster-robust standard error of the mean of *values*.

    With G clusters, cluster g holding n_g items that sum to S_g, and n
    items of mean m in all,
        SE^2 = sum over g of (S_g - n_g m)^2 / (n^2 (1 - n_g / n)),
    the CR2 estimator of Bell and McCaffrey (2002, Survey Methodology
    28:169-181), which for a mean reduces to this closed form: each
    cluster's residual sum scaled by (1 - its leverage)^(-1/2).  With
    clusters of one size it is CR1, G / (G - 1) * sum (S_g - n_g m)^2 /
    n^2 (Cameron and Miller 2015, "A Practitioner's Guide to
    Cluster-Robust Inference", Journal of Human Resources 50:317-372; the
    clustered error bars of Miller 2024, "Adding Error Bars to Evals",
    arXiv:2411.00640, without that factor, are 1-2% smaller at 20-50
    clusters and 10% at 5); with one item per cluster, the usual s /
    sqrt(n).  Computed exactly, then rounded once.  Its degrees of freedom
    are _cluster_df's.

    >>> round(_clustered_se([1.0, 1.0, 0.0, 0.0], ["p", "p", "q", "q"]), 4)
    0.5
    """
    ints, scale = _exact_ints(values)
    clusters = {}
    for label, x in zip(labels, ints):
        stats = clusters.setdefault(label, [0, 0])
        stats[0] += 1
        stats[1] += x
    size, sums = zip(*clusters.values()) if clusters else ((), ())
    return _clustered_se_of_sums(size, sums, scale)


def _clustered_se_of_sums(size, sums, scale=1):
    """_clustered_se from each cluster's item count and sum."""
    n, g = sum(size), len(size)
    if g < 2:
        return 0.0
    total = sum(sums)
    squares = sum(Fraction((s * n - k * total) ** 2, n - k)
                  for k, s in zip(size, sums))
    return _root(squares / (n * scale * scale * n * n))


def _cluster_df(sizes, icc=0.0):
    """Return the degrees of freedom of the clustered standard error of a
    mean over clusters of these *sizes*: Bell and McCaffrey's (2002)
    Satterthwaite approximation tr(B Omega)^2 / tr((B Omega)^2), B the
    quadratic form of the CR2 variance and Omega the working covariance
    of the items, one within cluster correlation *icc* (Imbens and Kolesar
    2016, Review of Economics and Statistics 98:701-712, who recommend it
    for few or unequal clusters).  G - 1 for clusters of one size at any
    icc; fewer where a few clusters hold most items.  In closed form, in
    O(G): with z_g the mean's residual maker applied to cluster g's
    indicator, z_g' Omega z_h = [g = h] m_g - (n_g m_h + n_h m_g) / n
    + n_g n_h M / n^2, m_g = n_g (1 - icc + icc n_g), M their sum.

    >>> _cluster_df([6] * 10), _cluster_df([6] * 10, 0.4)
    (9.0, 9.0)
    >>> (round(_cluster_df([1, 1, 1, 30]), 3),
    ...  round(_cluster_df([1, 1, 1, 30], 0.5), 3))
    (1.135, 1.058)
    """
    n, g = sum(sizes), len(sizes)
    if g < 2:
        return 0.0
    w = [n / (n - k) for k in sizes]          # 1 / (1 - leverage)
    m = [k * (1 - icc + icc * k) for k in sizes]
    c = sum(m) / (n * n)

    def moment(x, y):
        return math.fsum(v * a * b for v, a, b in zip(w, x, y))
    alpha = [-x / n for x in m]               # E_gh = alpha_g n_h + n_g
    ns = list(sizes)                          # alpha_h + c n_g n_h
    e_diag = [2 * a * k + c * k * k for a, k in zip(alpha, ns)]
    trace = math.fsum(v * (x + e) for v, x, e in zip(w, m, e_diag))
    nn, an, aa = moment(ns, ns), moment(alpha, ns), moment(alpha, alpha)
    square = (math.fsum(v * v * x * (x + 2 * e)
                        for v, x, e in zip(w, m, e_diag))
              + 2 * aa * nn + c * c * nn * nn + 2 * an * an
              + 4 * c * an * nn)
    df = trace * trace / square
    return float(round(df)) if abs(df - round(df)) < 1e-9 * df else df


def _cluster_icc(tally, exact, scale):
    """Return the one-way ANOVA estimate of the within-cluster correlation
    of the paired differences (Searle, Casella and McCulloch 1992, 3.6),
    truncated to [0, 1): _cluster_df's working correlation."""
    stats = []
    for counts in tally.values():
        k = t = q = 0
        for pair, c in counts.items():
            x, y = exact[pair]
            d = (y - x) / scale
            k, t, q = k + c, t + c * d, q + c * d * d
        stats.append((k, t, q))
    n, g = sum(k for k, _, _ in stats), len(stats)
    if g < 2 or n <= g:
        return 0.0
    mean = sum(t for _, t, _ in stats) / n
    between = sum(k * (t / k - mean) ** 2 for k, t, _ in stats) / (g - 1)
    within = sum(q - t * t / k for k, t, q in stats) / (n - g)
    n0 = (n - sum(k * k for k, _, _ in stats) / n) / (g - 1)
    spread = max(0.0, (between - within) / n0)
    if spread + within <= 0:
        return 0.0
    return min(spread / (spread + within), 1 - 1e-9)


def _root(x):
    """Return the square root of a Fraction >= 0 as a float, without the
    overflow of float(x) when x is beyond the float range (values near
    1e155 have squares near 1e310).

    >>> _root(Fraction(10) ** 400) == 1e200
    True
    """
    p, q = x.numerator, x.denominator
    shift = max(0, 120 - (p * q).bit_length()) // 2 + 1
    return math.isqrt(p * q << 2 * shift) / (q << shift)


def _gamma_ratio(a, x):
    """Return the regularized lower incomplete gamma P(a, x): its series
    below a + 1, else its continued fraction by the modified Lentz method
    (Numerical Recipes, 3rd ed. 2007, section 6.2).

    >>> round(_gamma_ratio(1, 2.0), 12) == round(1 - math.exp(-2), 12)
    True
    """
    if x <= 0:
        return 0.0
    front = math.exp(a * math.log(x) - x - math.lgamma(a))
    if x < a + 1:
        term = total = 1 / a
        for k in range(1, 100000):
            term *= x / (a + k)
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return total * front
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for k in range(1, 100000):
        an = -k * (k - a)
        b += 2
        d = an * d + b
        d = 1 / (d if abs(d) > tiny else tiny)
        c = b + an / c
        c = c if abs(c) > tiny else tiny
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return 1 - front * h


def _chi2_quantile(p, df):
    """Return x with P(chi-square on df degrees of freedom <= x) = p, by
    bisection on _gamma_ratio.

    >>> round(_chi2_quantile(0.975, 2), 4), round(_chi2_quantile(0.025, 4), 4)
    (7.3778, 0.4844)
    """
    lo, hi = 0.0, max(1.0, df)
    while _gamma_ratio(df / 2, hi / 2) < p:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if _gamma_ratio(df / 2, mid / 2) < p else (lo, mid)
    return hi


class _PromptEffect(NamedTuple):
    """Two systems each run under the same K prompts on the same items
    (prompts crossed with systems): the gap under each prompt, and the
    gap averaged over prompts taken as a random factor."""
    metric: str
    n_items: int
    prompts: tuple           # the prompts' names
    results: list            # each prompt's paired _MetricResult
    p_holm: list             # ... its p, Holm-adjusted across the prompts
    gap: float               # the gap averaged over the prompts
    ci: Interval             # prompts (and items) as random: Student's t
    df: float                # ... on Satterthwaite's degrees of freedom
    prompt_sd: float         # SD of the per-prompt gaps


def _prompt_effect(tally, prompts, rng, options=_Options(),
                   metric=_Metric()):
    """Return the _PromptEffect of a tally of (a_1..a_K, b_1..b_K) tuples,
    one per item, a_k and b_k the systems' scores under prompt k.

    Each prompt's gap g_k is compared as compare compares two runs (Holm
    across the prompts: does the verdict hold under every prompt?).  With
    prompts drawn from many one might have written, the gap to expect is
    their mean over prompts and items; its variance is the prompts' s_g^2
    / K plus the items' s_d^2 / n, d_i the item's gap averaged over
    prompts, less the item-by-prompt noise both hold (ms / K / n, ms the
    residual mean square of the items x prompts table of gaps; the item
    part cut at 0): _prompt_interval, Student's t on Satterthwaite's
    degrees of freedom.  (s_d^2 / n + s_g^2 / K counted that noise twice:
    98.5% at 10 prompts.)  Coverage is measured in tests/test_compare.py.

    >>> t = collections.Counter({(1, 0, 1, 1): 30, (0, 0, 1, 0): 20,
    ...                          (1, 1, 1, 1): 50})
    >>> e = _prompt_effect(t, ("p1", "p2"), random.Random(1),
    ...                    _Options(resamples=200))
    >>> [str(r.gap) for r in e.results], e.gap     # exact, then the mean
    (['1/5', '3/10'], 0.25)
    """
    k = len(prompts)
    if k < 2:
        raise EvalDeltaError(f"{metric.name}: prompts as a factor need two "
                             f"or more (given {k})")
    results = []
    for p in range(k):
        pair = collections.Counter()
        for values, count in tally.items():
            pair[values[p], values[k + p]] += count
        results.append(_compare_tally(pair, rng, options, metric))
    gaps = [float(r.gap) for r in results]
    n = sum(tally.values())
    if n < 2:
        raise EvalDeltaError(f"{metric.name}: prompts as a factor need two "
                             f"items or more")
    gap = math.fsum(gaps) / k
    c = _prompt_interval(tally, k, gap, options.confidence)
    return _PromptEffect(metric.name, n, tuple(prompts), results,
                         _holm([r.p for r in results]), gap, c.ci, c.df,
                         math.sqrt(_variance(gaps, 1)))


def _prompt_interval(tally, k, gap, confidence=CONFIDENCE):
    """Return the _Crossed interval of *gap*, the gap averaged over the k
    prompts of a tally of (a_1..a_k, b_1..b_k) tuples (two items or
    more): the items x prompts table of the gaps b_p - a_p, its items'
    variance that of the per-item gaps averaged over prompts.

    >>> t = collections.Counter({(0, 0, 1, 1): 2, (0, 0, 1, 0): 2})
    >>> c = _prompt_interval(t, 2, 0.75)      # prompt gaps 1 and 1/2
    >>> round(c.se ** 2, 6), c.run_part      # (1/12 - 1/6 / 2) / 4 + 1/8 / 2
    (0.0625, 1.0)
    """
    n = sum(tally.values())
    d = [(sum(values[k:]) - sum(values[:k])) / k for values in tally]
    counts = list(tally.values())
    mean_d = math.fsum(x * c for x, c in zip(d, counts)) / n
    item_var = (math.fsum(c * (x - mean_d) ** 2 for x, c in zip(d, counts))
                / (n - 1))
    table = collections.Counter()
    for values, count in tally.items():
        table[tuple(values[k + p] - values[p] for p in range(k))] += count
    return _crossed_interval(gap, item_var, n, [(*_crossed_table(table, 0, k),
                                                 k)], confidence)


class _RunNoise(NamedTuple):
    """Several runs of each of two systems on the same items: how much a
    run's mean moves from run to run, against the gap."""
    metric: str
    n_items: int
    runs: tuple              # (runs of A, runs of B)
    run_sd: tuple            # SD of one run's mean over runs, A and B
    run_sd_ci: tuple         # ... each its Interval (chi-square, R - 1 df)
    item_sd: float           # SD over items of the per-item mean gap
    item_sd_ci: object       # ... its Interval (large-sample, by the
                             # fourth moment, on the log scale), None
                             # under 4 items or with no spread
    gap: float               # the gap of the run-averaged scores
    one_run: Interval        # where one new run of each would put the gap
    one_run_df: float        # that interval's degrees of freedom
    naive: Interval          # the item-only interval of one run of each
    runs_needed: object      # runs of each for 80% power at the gap seen,
                             # run noise alone (None: no gap or no noise)
    averaged: object = None  # the run-averaged gap's _Crossed interval,
                             # items and runs random


def _run_noise(tally, runs, options=_Options(), metric=_Metric()):
    """Return the _RunNoise of a tally of (a_1..a_RA, b_1..b_RB) tuples,
    one per item, RA = runs[0] and RB = runs[1] runs of each system on the
    same items.

    Items crossed with runs (Miller 2024, "Adding error bars to evals"):
    the mean of run r of system s is its expected score on these items
    plus a run effect of variance v_s, estimated by the sample variance of
    its R_s run means (R_s - 1 degrees of freedom; it holds run-wide
    shocks, a server, a seed, as well as item-level sampling noise).  The
    gap that one new run of each would show on these items is then the
    run-averaged gap g plus the noise of the two new runs and of the
    averages, variance v_A (1 + 1/R_A) + v_B (1 + 1/R_B): a t prediction
    interval on Satterthwaite's degrees of freedom.  The item-only
    interval of one run against one run (the paired t of the first run of
    each) ignores that spread; its coverage is printed beside this one in
    tests/benchmark.py --part runs.

    >>> t = collections.Counter({(1, 1, 1, 0): 40, (0, 1, 1, 1): 30,
    ...                          (1, 0, 1, 1): 20, (0, 0, 0, 0): 10})
    >>> r = _run_noise(t, (2, 2))
    >>> round(r.gap, 3), [round(x, 3) for x in r.run_sd]
    (0.05, [0.071, 0.283])
    """
    ra, rb = runs
    if ra < 2 or rb < 2:
        raise EvalDeltaError(f"{metric.name}: run-to-run spread needs two "
                             f"runs of each system or more (given {ra} and "
                             f"{rb})")
    n = sum(tally.values())
    if n < 2:
        raise EvalDeltaError(f"{metric.name}: run noise needs two items or "
                             f"more")
    sums = [0.0] * (ra + rb)
    gaps = []
    for values, count in tally.items():
        for k, v in enumerate(values):
            sums[k] += v * count
        gaps.append((sum(values[ra:]) / rb - sum(values[:ra]) / ra, count))
    means = [total / n for total in sums]
    v = [_variance(means[:ra], 1), _variance(means[ra:], 1)]
    gap = sum(g * c for g, c in gaps) / n
    item_var = sum(c * (g - gap) ** 2 for g, c in gaps) / (n - 1)
    item_ci = None
    if n >= 4 and item_var > 0:   # var(s^2) ~ (m4 - s^4 (n-3)/(n-1)) / n,
        m4 = sum(c * (g - gap) ** 4 for g, c in gaps) / n   # on log s^2
        stretch = math.exp(_upper_z(float(1 - _exact(options.confidence))
                                    / 2) * math.sqrt(max(0.0, m4 - item_var
                                                         ** 2 * (n - 3)
                                                         / (n - 1)) / n)
                           / item_var)
        item_ci = Interval(math.sqrt(item_var / stretch),
                           math.sqrt(item_var * stretch))
    alpha = float(1 - _exact(options.confidence))
    cis = []
    for var, r in zip(v, runs):
        cis.append(Interval(math.sqrt((r - 1) * var / _chi2_quantile(
            1 - alpha / 2, r - 1)), math.sqrt((r - 1) * var / _chi2_quantile(
                alpha / 2, r - 1))))
    parts = [v[0] * (1 + 1 / ra), v[1] * (1 + 1 / rb)]
    total = sum(parts)
    if total > 0:
        df = total ** 2 / sum(p * p / (r - 1) for p, r in zip(parts, runs))
        half = _student_t_upper(alpha / 2, df) * math.sqrt(total)
    else:
        df, half = math.inf, 0.0
    first = collections.Counter()
    for values, count in tally.items():
        first[values[ra] - values[0]] += count
    d_mean = sum(d * c for d, c in first.items()) / n
    d_var = sum(c * (d - d_mean) ** 2 for d, c in first.items()) / (n - 1)
    naive_half = _student_t_upper(alpha / 2, n - 1) * math.sqrt(d_var / n)
    tables = [(*_crossed_table(tally, 0, ra), ra),
              (*_crossed_table(tally, ra, rb), rb)]
    noise = _RunNoise(metric.name, n, (ra, rb), tuple(map(math.sqrt, v)),
                      tuple(cis), math.sqrt(item_var), item_ci, gap,
                      Interval(gap - half, gap + half), df,
                      Interval(d_mean - naive_half, d_mean + naive_half),
                      None, _crossed_interval(gap, item_var, n, tables,
                                              options.confidence))
    return noise._replace(runs_needed=_run_noise_needed(noise, gap, options))


# The run-averaged gap, runs random beside items.  Run r of system s
# scores item i as y = mu_s + a_si + u_sr + e_sri: a_si the item, u_sr a
# shift of the whole run (a seed, a temperature, a server) of variance
# sigma_s^2, e_sri the item's own flip (variance tau_s^2).  The gap g of
# the run-averaged scores estimates the system gap: its expectation over
# items drawn as these were and over runs, the quantity compare's item
# interval covers without runs (on these items alone the gap varies
# less, so the interval covers that too).  Its variance is the items'
# V_a / n, V_a the variance of the items' true gaps, plus each system's
# run mean's (sigma_s^2 + tau_s^2 / n) / R_s: the rerun noise, shifts and
# flips.  The run means' sample variance v_s estimates sigma_s^2 +
# tau_s^2 / n (R_s - 1 degrees of freedom); the item-to-item variance
# s_d^2 of the per-item gaps holds V_a and the flips, tau_s^2 / R_s,
# which the residual mean square ms_s of the system's items x runs table
# estimates (Searle, Casella and McCulloch 1992, 4.3).  So
#     V = max(0, s_d^2 - sum ms_s / R_s) / n + sum v_s / R_s,
# unbiased unless the item part is cut at 0, with Student's t on
# Satterthwaite's (1946) degrees of freedom for this combination of mean
# squares (Cochran 1951): about 2 (R - 1) when the runs' part dominates,
# n - 1 when the items' does.  Cutting the shifts' estimate, max(0, v_s -
# ms_s / n), at 0 instead, and keeping the items' t where it was 0, biased
# V upward with no shift (97-98% where 95% was meant) and left 3 prompts
# at 92% where the prompt effect was as small as its noise; here runs
# that spread less than their flips narrow V a little.  On 500 0/1 items
# (600 replays) the interval covered 95.3-97.2% with runs shifted by SD 2
# points (2, 3 and 5 runs; items alone: 82-89%), 94.0-97.3% with flips
# only.  Prompts crossed with systems (_prompt_effect) are one such
# table, the gap under each prompt a column.  The tests are in
# tests/test_compare.py.

class _Crossed(NamedTuple):
    """An averaged gap's interval with items and runs (or prompts) as
    random factors (see the block above)."""
    ci: Interval
    se: float                # sqrt(V)
    df: float                # Satterthwaite's degrees of freedom
    p: float                 # two-sided, of Student's t on se and df
    run_part: float          # the runs' share of V, sum v_s / R_s / V
    shift_sd: tuple          # each table's run shift SD beyond its
                             # flips, sqrt(max(0, v_s - ms_s / n))


def _crossed_table(tally, start, size):
    """Return (v, ms) of the items x runs table held in columns start to
    start + size - 1 of *tally*'s tuples (each counted as that many
    items): v the sample variance of the run means (size - 1 degrees of
    freedom), ms the two-way residual mean square ((size - 1)(n - 1)
    degrees of freedom), sum (y_ri - y_i. - y_.r + y_..)^2 / df, by
    within-item minus between-run sums of squares.

    >>> _crossed_table(collections.Counter({(1, 0): 1, (0, 0): 1}), 0, 2)
    (0.125, 0.25)
    """
    n = sum(tally.values())
    sums, within = [0.0] * size, []
    for values, count in tally.items():
        row = [float(x) for x in values[start:start + size]]
        mean = math.fsum(row) / size
        within.append(count * math.fsum((x - mean) ** 2 for x in row))
        for r, x in enumerate(row):
            sums[r] += count * x
    v = _variance([total / n for total in sums], 1)
    residual = math.fsum(within) - n * (size - 1) * v
    return v, max(0.0, residual / ((size - 1) * (n - 1)))


def _crossed_interval(gap, item_var, n, tables, confidence=CONFIDENCE):
    """Return the _Crossed interval of a gap averaged over n items (two or
    more) and over runs: *item_var* is s_d^2, the variance over items of
    the per-item gaps, and *tables* holds (v, ms, R) of each system's
    items x runs table (_crossed_table).  V = max(0, s_d^2 - sum ms / R)
    / n + sum v / R, Student's t on Satterthwaite's degrees of freedom
    V^2 / (sum v^2 / R^2 / (R - 1) + [s_d^4 / n^2 / (n - 1) + sum ms^2 /
    n^2 / R^2 / ((R - 1)(n - 1))]), the bracket where the item part is
    above 0.

    >>> c = _crossed_interval(0.1, 0.5, 50, [(0.03, 0.5, 3)])
    >>> round(c.se ** 2, 6), round(c.run_part, 3)  # (0.5 - 0.5/3)/50 + 0.01
    (0.016667, 0.6)
    >>> c = _crossed_interval(0.1, 0.5, 50, [(0.0, 0.0, 2)])  # runs agree
    >>> round(c.se ** 2, 6), round(c.df, 9), c.run_part
    (0.01, 49.0, 0.0)
    """
    runs = math.fsum(v / r for v, _, r in tables)
    spread = math.fsum((v / r) ** 2 / (r - 1) for v, _, r in tables)
    items = (item_var - math.fsum(ms / r for _, ms, r in tables)) / n
    if items > 0:
        spread += (item_var / n) ** 2 / (n - 1) + math.fsum(
            (ms / n / r) ** 2 / ((r - 1) * (n - 1)) for _, ms, r in tables)
    total = max(0.0, items) + runs
    df = total * total / spread if spread else math.inf
    alpha = float(1 - _exact(confidence))
    se = math.sqrt(total)
    half = _student_t_upper(alpha / 2, df) * se if se else 0.0
    p = min(1.0, 2 * _student_t_tail(abs(gap) / se, df)) if se else (
        1.0 if gap == 0 else 0.0)
    return _Crossed(Interval(gap - half, gap + half), se, df, p,
                    runs / total if total else 0.0,
                    tuple(math.sqrt(max(0.0, v - ms / n))
                          for v, ms, _ in tables))


def _with_run_noise(result, q):
    """Return compare --runs's _MetricResult: _crossed_interval's t and
    its test, centred on the result's gap, so that interval and p agree;
    the item interval and test of the run-averaged scores where every
    run of each system agrees with the others (no rerun noise)."""
    c = q.averaged
    if not c.run_part:
        return result
    gap = float(result.gap)
    half = (c.ci.hi - c.ci.lo) / 2
    return result._replace(
        ci_paired=Interval(gap - half, gap + half),
        p=min(1.0, 2 * _student_t_tail(abs(gap) / c.se, c.df)),
        test="t on items and runs", paired_method=_RUNS_T, df=c.df)


_RUNS_T = "t on item and run variance"


def _run_noise_needed(q, gap, options):
    """Return the runs of each with which run noise alone lets *gap* be
    told apart with options.power (None: no gap or no run noise)."""
    v = sum(sd * sd for sd in q.run_sd)
    if not gap or not v:
        return None
    z = _z_sum(options.alpha, options.power)
    return max(2, math.ceil(z * z * v / (gap * gap) - 1e-9))


## Ranking ####################################################################

# Doors (called from other sections): _best_of, _cholesky, _joint_intervals,
# _pair_tally, _rank_summary, _rank_systems, _Ranking.

# Ranking several systems.  One joint paired bootstrap: each resample draws
# one multiset of items and scores every system on it, so the systems stay
# paired.  A system's rank interval is the percentile interval of its rank
# over the resamples (ties take the mean rank).  The best system is chosen
# from the same data, so testing the others against the observed best
# with Holm's adjustment does not hold its level; the top group here uses
# the joint bootstrap of the largest centred difference between any two
# systems, T = max_s u_s - min_s u_s with u_s = (resampled sum - observed
# sum) of system s: its 1 - alpha quantile c bounds every pairwise
# difference at once (a bootstrap form of Tukey's range procedure, 1953),
# and a system is in the top group when it trails the best by at most c.
# The tests measure how often the top group keeps every system when all
# are equally good, and leaves a clearly better one alone.  A continuous
# metric of 100 items or more draws the systems' totals from their joint
# normal law instead of resampling every item (_normal_sums).

class _Ranking(NamedTuple):
    """Several systems ranked on one metric, from a joint bootstrap."""
    metric: str
    kind: str
    direction: str
    n_items: int
    names: list
    means: list              # exact means
    cis: list                # Interval of each mean
    ranks: list              # observed ranks, 1 = best, ties averaged
    rank_cis: list           # Interval of each rank over the resamples
    top: list                # True for the systems in the top group
    critical: object         # c, in the metric's units
    resamples: int
    method: str = "resample"  # of the means' intervals (see _compare_tally)
    draws: object = None     # Bradley-Terry: each round's ratings
    joint_rank_cis: object = None  # rank sets that hold all at once
    ties: object = None      # Davidson's (nu, its Interval), if fitted
    unrated: int = 0         # Bradley-Terry rounds with no finite rating
    exact: object = None     # _ExactRanks, joined to the bootstrap's
    bootstrap: object = None  # (joint rank sets, top) of the bootstrap alone


def _joint_rank_sets(observed, drawn, confidence=CONFIDENCE):
    """Return each system's rank set, all holding at once with probability
    *confidence* (Mogstad, Romano, Shaikh & Wilhelm 2024, Rev. Econ. Stud.,
    the simultaneous sets by the max statistic): every pairwise difference
    d_jk studentized by its bootstrap standard error; c the *confidence*
    quantile over the resamples of max_jk |d*_jk - d_jk| / se_jk; j is
    above k where d_jk > c se_jk; j's ranks run from 1 + the systems
    surely above it to S - the systems surely below.  *observed* holds the
    systems' values (larger better), *drawn* a row of them per resample.

    >>> _joint_rank_sets([3.0, 2.0, 0.0], [[3.1, 1.9, 0.1], [2.9, 2.1, -0.1],
    ...                                   [3.0, 2.2, 0.0]] * 20)
    [Interval(lo=1, hi=1), Interval(lo=2, hi=2), Interval(lo=3, hi=3)]
    """
    size, rows = len(observed), len(drawn)
    pairs = [(j, k) for j in range(size) for k in range(j + 1, size)]
    columns = [list(column) for column in zip(*drawn)]
    centred = [[x - m for x in column] for column, m in
               zip(columns, (sum(column) / rows for column in columns))]
    moved = [[x - o for x in column] for column, o in zip(columns, observed)]
    spread, stats = {}, [0.0] * rows     # each resample's largest statistic
    for j, k in pairs:                   # a pair's column at a time
        d = list(map(sub, centred[j], centred[k]))
        se = spread[j, k] = math.sqrt(sum(map(mul, d, d)) / max(1, rows - 1))
        if se:
            stats = list(map(max, stats, map(
                truediv, map(abs, map(sub, moved[j], moved[k])), repeat(se))))
    stats.sort()
    c = stats[min(rows - 1, math.ceil(rows * _exact(confidence)) - 1)]
    above = [0] * size                  # systems surely above each one
    below = [0] * size
    for j, k in pairs:
        gap, se = observed[j] - observed[k], spread[j, k]
        if (gap > c * se) if se else gap > 0:
            below[j] += 1
            above[k] += 1
        elif (-gap > c * se) if se else gap < 0:
            below[k] += 1
            above[j] += 1
    return [Interval(1 + above[s], size - below[s]) for s in range(size)]


def _joint_intervals(observed, drawn, confidence=CONFIDENCE, n=None):
    """Return an interval for each system's value that all hold at once
    with probability *confidence*: the max-t (simultaneous) intervals
    over a joint bootstrap, observed_s +- c se_s, with se_s the spread of
    system s's draws and c the *confidence* quantile over the draws of
    max_s |draw_s - observed_s| / se_s (Romano and Wolf 2005,
    Econometrica 73:1237-1282; the bootstrap max-t band).  A system
    whose draws do not move (an anchor) keeps its one value.  Below
    _EXPAND_BELOW items (*n*), c is widened as _expanded widens a
    percentile interval: c's normal tail read as Student's t on n - 1
    degrees of freedom, times sqrt(n / (n-1)) (measured, 5 systems, 600
    replays: 90.2% at 30 items and 93.5% at 60 without it).

    >>> [[round(x, 9) for x in ci] for ci in _joint_intervals(
    ...     [1.0, 0.0], [[1.1, 0.0], [0.9, 0.0]] * 25)]
    [[0.9, 1.1], [0.0, 0.0]]
    """
    rows = len(drawn)
    spread = [math.sqrt(_variance(column, 1)) for column in zip(*drawn)]
    stats = sorted(max([abs(x - o) / se for x, o, se in
                        zip(row, observed, spread) if se], default=0.0)
                   for row in drawn)
    c = stats[min(rows - 1, math.ceil(rows * _exact(confidence)) - 1)]
    if n is not None and 2 <= n < _EXPAND_BELOW and c > 0:
        tail = NormalDist().cdf(-c)
        if tail > 0:
            c = math.sqrt(n / (n - 1)) * _student_t_upper(tail, n - 1)
    return [Interval(float(o) - c * se, float(o) + c * se)
            for o, se in zip(observed, spread)]


def _rank_systems(tally, rng, names, options=_Options(), metric=_Metric()):
    """Return the _Ranking of a tally of S-tuples (one value per system per
    item; names the S systems).  Each system's mean interval is the
    saddlepoint's where the method says so (see _compare_tally), and the
    ranks and the top group then come from draws of the means' joint
    normal law (_normal_sums); else all of them from joint resamples.

    >>> tally = collections.Counter({(1, 1, 0): 50, (1, 0, 0): 30,
    ...                              (0, 1, 0): 5, (0, 0, 0): 15})
    >>> r = _rank_systems(tally, random.Random(1), ["a", "b", "c"],
    ...                   _Options(resamples=200))
    >>> r.means, r.ranks, r.top
    ([Fraction(4, 5), Fraction(11, 20), Fraction(0, 1)], [1, 2, 3], [True, False, False])

    A 0/1 metric's mean intervals are exact (Clopper-Pearson), as in
    compare.
    """
    size = len(names)
    if size < 2:
        raise EvalDeltaError("ranking needs two systems or more")
    resamples, confidence = options.resamples, options.confidence
    direction = metric.direction
    keys = sorted(tally)
    counts = [tally[k] for k in keys]
    n = sum(counts)
    if not n:
        raise EvalDeltaError(f"{metric.name}: no items to rank")
    _check_resamples(resamples, confidence)
    ints, scale = _exact_ints([x for k in keys for x in k])
    columns = [ints[s::size] for s in range(size)]
    sign = 1 if direction == "higher" else -1
    observed = [sum(map(mul, column, counts)) for column in columns]
    unit = scale * n
    requested = options.method
    method = _method_for(requested, _kind_of(keys), n, False)
    parts = ([_law_part(_counted(column, counts)) for column in columns]
             if method == "saddlepoint" else [])
    if requested == "auto" and any(p.lumpy() for p in parts):
        method = "resample"
    if method == "saddlepoint":      # no pass over the items per resample
        sums = _normal_sums(rng, columns, counts, observed, resamples)
        cis = [_law_interval(_SumLaw([(p, 1)]), unit, confidence)
               for p in parts]
    else:
        sums = [column[:-1] for column in
                _resample_columns(rng, columns, counts, resamples,
                                  options.jobs)]
        cis = [Interval(*(Fraction(x, unit) for x in
                          percentile_interval(column, confidence)))
               for column in sums]
    if options.joint_intervals:
        cis = [Interval(lo / unit, hi / unit) for lo, hi in _joint_intervals(
            observed, list(zip(*sums)), confidence, n)]
    elif _kind_of(keys) == "binary":          # exact, as compare's are
        cis = [_clopper_pearson(int(Fraction(total, scale)), n, confidence)
               for total in observed]
    rank_cis, joint, critical, top = _rank_summary(
        [sign * total for total in observed],
        [[sign * column[r] for column in sums] for r in range(resamples)],
        confidence=confidence, alpha=options.alpha)
    exact = _exact_ranks(columns, counts,
                         lambda j, k: sign * (observed[j] - observed[k]),
                         _kind_of(keys) == "binary", confidence=confidence,
                         alpha=options.alpha)
    return _Ranking(metric.name, _kind_of(keys), direction, n, list(names),
                   [Fraction(total, unit) for total in observed], cis,
                   _ranks([sign * total for total in observed]), rank_cis,
                   list(map(operator.or_, top, exact.top)),
                   Fraction(critical) / unit, resamples, method,
                   joint_rank_cis=[Interval(min(b.lo, e.lo), max(b.hi, e.hi))
                                   for b, e in zip(joint, exact.sets)],
                   exact=exact, bootstrap=(joint, top))


class _BestOf(NamedTuple):
    """The best of several candidates against one baseline on one metric,
    the choice accounted for."""
    metric: str
    direction: str
    n_items: int
    gains: list              # each candidate's mean gain over the baseline
    best: int                # the candidate with the best gain
    joint: list              # simultaneous Interval of each gain
    resamples: int
    hybrid: object = None    # (estimate, Interval) of the best's gain, the
                             # choice accounted for (_winner_hybrid), or None
    clusters: object = None  # the clusters resampled whole, or None: items


def _best_of(tally, rng, options=_Options(), metric=_Metric()):
    """Return the _BestOf of a tally of (baseline, candidate 1, ...,
    candidate K) tuples, one per item; or of a dict from each cluster's
    label to its tally, the clusters resampled whole and the covariance
    taken over their totals (a cluster and an item are both units).

    The best candidate's own interval ignores that it was picked for
    being best: among close candidates its gain is biased up and the
    interval undercovers (the winner's curse).  Intervals that hold for
    every candidate's gain at once hold for whichever was picked: the
    max-t intervals (_joint_intervals) over one joint paired bootstrap of
    the items, every run scored on the same resample (Romano and Wolf
    2005).  The best's gain alone, the choice accounted for, is
    _winner_hybrid's, from the gains' normal law (the covariance of the
    items' gains over n, the best's row).

    >>> t = collections.Counter({(0, 1, 0, 1): 30, (1, 1, 1, 1): 40,
    ...                          (0, 0, 1, 0): 20, (1, 0, 0, 1): 10})
    >>> b = _best_of(t, random.Random(1), _Options(resamples=400))
    >>> b.best, [str(g) for g in b.gains]
    (2, ['1/5', '1/10', '3/10'])
    """
    groups = (list(tally.values()) if not isinstance(
        tally, collections.Counter) else [tally])
    keys = [sorted(group) for group in groups]
    size = len(keys[0][0]) if keys and keys[0] else 0
    if size < 3:
        raise EvalDeltaError("best of several candidates needs two or more")
    _check_resamples(options.resamples, options.confidence)
    ints, scale = _exact_ints([x for part in keys for k in part for x in k])
    if len(groups) == 1:             # items: a unit per distinct row
        counts = [groups[0][k] for k in keys[0]]
        columns = [[1] * len(counts)] + [ints[s::size] for s in range(size)]
    else:                            # clusters: a unit per cluster
        counts, columns, at = [1] * len(groups), [[] for _ in
                                                   range(size + 1)], 0
        for group, part in zip(groups, keys):
            rows = [ints[at + j * size:at + (j + 1) * size]
                    for j in range(len(part))]
            at += len(part) * size
            weights = [group[k] for k in part]
            columns[0].append(sum(weights))
            for s in range(size):
                columns[s + 1].append(sum(map(mul, (r[s] for r in rows),
                                              weights)))
    units, n = sum(counts), sum(map(mul, columns[0], counts))
    sums = [column[:-1] for column in _resample_columns(
        rng, columns, counts, options.resamples, options.jobs)]
    observed = [sum(map(mul, column, counts)) for column in columns[1:]]
    unit = scale * n
    gains = [Fraction(total - observed[0], unit) for total in observed[1:]]
    drawn = [[(column[r] - sums[1][r]) / (scale * sums[0][r])
              for column in sums[2:]] for r in range(options.resamples)]
    sign = 1 if metric.direction != "lower" else -1
    best = max(range(len(gains)), key=lambda k: (sign * gains[k], -k))
    centred = [[(x - base) / scale - float(g) * m for x, base, m in zip(
        column, columns[1], columns[0])]
        for column, g in zip(columns[2:], gains)]
    cov = [math.fsum(map(mul, map(mul, centred[best], d), counts))
           / (units - 1) * units / (n * n) if units > 1 else 0.0
           for d in centred]
    hybrid = _winner_hybrid([sign * float(g) for g in gains], cov, best,
                            options.confidence, 1 / (2 * unit))
    if hybrid is not None and sign < 0:
        hybrid = -hybrid[0], Interval(-hybrid[1].hi, -hybrid[1].lo)
    return _BestOf(metric.name, metric.direction, n, gains, best,
                   _joint_intervals([float(g) for g in gains], drawn,
                                    options.confidence, units),
                   options.resamples, hybrid,
                   units if len(groups) > 1 else None)


def _winner_hybrid(gains, cov, best, confidence=CONFIDENCE, slack=0.0):
    """Return (estimate, Interval) of the true gain of the candidate picked
    for the largest observed gain, the choice accounted for, or None
    where its gain has no spread or lies on the edge of its law: the
    hybrid estimate and interval of Andrews, Kitagawa and McCloskey
    ("Inference on winners", QJE 139, 2024, sections 3-4) under the
    gains' normal law N(mu, Sigma); *cov* is the best's row of Sigma (the
    covariance of its gain with each, its own variance at *best*).

    Given the other gains' parts independent of the best's (Z), its gain
    Y was picked only if it lies in [lo, hi] (their Proposition 1), so
    its law given the choice is a normal N(mu_best, var) truncated there.
    Gains on a lattice (a mean of 0/1 scores moves by 1/n) tie; *slack*,
    half the lattice's step, continues the choice Y >= gain_k to
    Y >= gain_k - slack, as a continuity correction does, so a tied best
    is not read as lying on the edge of its law.
    The hybrid also truncates to |Y - mu| <= c sd, c the projection
    interval's critical value at level beta = alpha / 10 (here
    Bonferroni's over the K gains, which only widens it): the interval
    is the mu inside that projection whose truncated law puts Y between
    its (alpha - beta) / (1 - beta) / 2 tails, and the estimate the mu
    putting Y at its median.

    A clear winner's truncation does not bind, so it keeps its gain; one
    just ahead of the runner-up is pulled down:

    >>> def show(est, ci): return [round(x, 4) for x in (est, *ci)]
    >>> show(*_winner_hybrid([0.05, 0.0], [1e-4, 0], 0))
    [0.05, 0.0302, 0.0698]
    >>> show(*_winner_hybrid([0.012, 0.01], [1e-4, 0], 0))
    [-0.0137, -0.0182, 0.0272]
    """
    var = cov[best]
    if not var > 0:
        return None
    sd, y = math.sqrt(var), gains[best]
    lo, hi = -math.inf, math.inf
    for k, (g, c) in enumerate(zip(gains, cov)):
        if k == best:
            continue
        z, d = g - slack - c / var * y, var - c
        if d > 1e-12 * var:
            lo = max(lo, var * z / d)
        elif d < -1e-12 * var:
            hi = min(hi, var * z / d)
    if not lo < y < hi:
        return None
    alpha = 1 - _exact(confidence)
    beta = alpha / 10
    c = NormalDist().inv_cdf(float(1 - beta / (2 * len(gains))))
    tail = float((alpha - beta) / (1 - beta) / 2)

    def share(mu):                  # P(Y' <= y) under the hybrid's law
        a, b = max(lo, mu - c * sd), min(hi, mu + c * sd)
        if y <= a:
            return 0.0
        if y >= b:
            return 1.0
        za, zb, zy = ((x - mu) / sd for x in (a, b, y))
        mass = _normal_mass(za, zb)
        if mass > 0:
            return _normal_mass(za, zy) / mass
        return (zy - za) / (zb - za) if zb > za else 0.5  # too narrow to bend

    def solve(target):              # share falls from 1 to 0 over mu
        left, right = y - c * sd, y + c * sd
        for _ in range(200):
            mid = (left + right) / 2
            if mid in (left, right):
                break
            if share(mid) > target:
                left = mid
            else:
                right = mid
        return (left + right) / 2
    return solve(0.5), Interval(solve(1 - tail), solve(tail))


def _normal_mass(a, b):
    """Return P(a < Z < b) for a standard normal Z and a <= b, from the
    tail where it does not cancel."""
    phi = NormalDist().cdf
    return phi(b) - phi(a) if a < 0 else phi(-a) - phi(-b)


def _normal_sums(rng, columns, counts, observed, resamples):
    """Return resamples draws of the systems' totals from their joint
    normal law: mean the observed totals, covariance n times the items'
    (the central limit law of the paired bootstrap's totals, whose
    covariance it is exactly), by a Cholesky factor and rng.gauss.  What
    rank takes for continuous metrics of 100 items or more (method
    "saddlepoint"), in place of resamples of every item: the cost is the
    systems' covariance, once, not resamples x items picks.  Calibrated
    in tests/test_rank.py; its rank intervals and top group against the
    resampled ones there."""
    size, n = len(columns), sum(counts)
    means = [total / n for total in observed]
    centred = [[x - m for x in column] for column, m in zip(columns, means)]
    cov = [[math.fsum(map(mul, map(mul, centred[i], centred[j]), counts))
            for j in range(size)] for i in range(size)]   # n x the items'
    factor = _cholesky(cov)
    out = [[] for _ in range(size)]
    for done in range(1, resamples + 1):
        z = [rng.gauss(0.0, 1.0) for _ in range(size)]
        for i, row in enumerate(factor):
            out[i].append(observed[i] + math.fsum(map(mul, row, z)))
        _step("normal draws", done, resamples)
    return out


def _cholesky(cov):
    """Return the lower Cholesky factor of a covariance matrix, rows of
    lists; a direction with no variance (a system constant, or one the
    sum of others) gets zeros rather than a square root of rounding."""
    size = len(cov)
    low = [[0.0] * size for _ in range(size)]
    scale = max((cov[i][i] for i in range(size)), default=0.0)
    for i in range(size):
        for j in range(i + 1):
            rest = cov[i][j] - math.fsum(low[i][k] * low[j][k]
                                         for k in range(j))
            if i == j:
                low[i][i] = math.sqrt(rest) if rest > 1e-12 * scale else 0.0
            elif low[j][j]:
                low[i][j] = rest / low[j][j]
    return low


def _rank_summary(observed, drawn, *, confidence=CONFIDENCE, alpha=0.05):
    """Return (rank intervals, joint rank sets, c, top group) of systems'
    *observed* values (larger better) and a row of them per resample:
    each rank's percentile interval over the resamples, the sets that hold
    at once (_joint_rank_sets), c the 1 - alpha quantile of the largest
    centred difference max_s u_s - min_s u_s, and whether each system
    trails the best by at most c (see above)."""
    size, resamples = len(observed), len(drawn)
    ranked = [_ranks(row) for row in drawn]
    rank_cis = [percentile_interval([row[s] for row in ranked], confidence)
                for s in range(size)]
    spread = sorted(max(u) - min(u) for u in (
        [x - y for x, y in zip(row, observed)] for row in drawn))
    critical = spread[min(resamples - 1,
                          math.floor(resamples * (1 - _exact(alpha))))]
    best = max(observed)
    return (rank_cis, _joint_rank_sets(observed, drawn, confidence), critical,
            [best - x <= critical for x in observed])


# Rank sets and the top group from exact pairwise tests as well.  At ten
# items the joint bootstrap is surer than the items allow: three lm-eval
# runs of 10 winogrande items had a rank set of one beside McNemar's p =
# 0.125 against the runner-up.  Mogstad, Romano, Shaikh and Wilhelm
# (2024, Rev. Econ. Stud.) build rank sets from any simultaneous pairwise
# tests: j's lowest rank is 1 + the systems surely better than j, its
# highest S - those surely worse.  Here each ordered pair (j, k) has the
# one-sided exact test of "j is no better than k" -- McNemar's on a 0/1
# metric, the sign flip on any other (exact to 20 nonzero differences,
# Robinson's saddlepoint beyond) -- and Holm's step-down over the S(S-1)
# of them makes them hold together whatever their dependence (Holm 1979:
# a family-wise error rate, which is what sets that hold at once need;
# a false discovery rate is not).  The top group: the systems that no
# other is surely better than, at alpha.  Both join the bootstrap's as a
# union, so nothing is narrower than the bootstrap's alone; where the
# items are few the tests decide, where they are many the bootstrap.
# Measured (3 equal systems, independent 0/1 scores, 400 replays): the
# bootstrap alone left one out of the top group in 8.0%, 6.8% and 3.5% of
# replays at 10, 20 and 30 items, the union in 0.3%, 2.5% and 1.0%.  A
# union rather than the tests alone below some size: below 100 items it is
# as narrow as the tests alone (three systems at 0.3, 0.5, 0.7, 200
# replays: total rank-set width 7.06 against 7.06 at 30 items, 4.25
# against 4.23 at 100), and it keeps the promise -- no lone top beside an
# exact test that does not reject -- at any size, where a threshold would
# drop it above.

class _ExactRanks(NamedTuple):
    """Rank sets and the top group from exact pairwise tests."""
    test: str                # the pairwise tests' name, as the report says
    hypotheses: int          # the ordered pairs Holm adjusts over
    sets: list               # each system's rank set (Interval)
    top: list                # True for the systems no other is surely above


def _pair_p(columns, counts, j, k, binary):
    """Return the two-sided exact p of systems j and k's paired values,
    columns[s][i] the integer value of system s on the counts[i] items of
    row i: McNemar's exact p on 0/1 values (_mcnemar_p), else the sign
    flip's (exact up to 20 nonzero differences, else Robinson's
    saddlepoint); no random numbers.

    >>> _pair_p([[1, 1, 0], [0, 1, 1]], [5, 3, 0], 0, 1, True)
    Fraction(1, 16)
    """
    if binary:
        ahead = behind = 0
        for x, y, c in zip(columns[j], columns[k], counts):
            ahead += c * (x > y)
            behind += c * (x < y)
        return _mcnemar_p(ahead, behind)
    diffs = collections.Counter()
    for x, y, c in zip(columns[j], columns[k], counts):
        if x != y and c:
            diffs[x - y] += c
    values = sorted(diffs)
    weights = [diffs[v] for v in values]
    if sum(weights) <= 20:
        return _sign_flip(values, weights, None, 0)[0]
    return _saddlepoint_sign_flip(values, weights)


def _surely_above(tests, level):
    """Return the set of ordered pairs (j, k), j surely above k, from
    *tests*, {(j, k): (two-sided p, gap j - k, larger better)}: Holm's
    step-down (_holm) at *level* over both one-sided hypotheses of every
    pair, "j no better than k" with p/2 where j is ahead (the exact tests
    are symmetric) and 1 where it is not.

    >>> sorted(_surely_above({(0, 1): (0.001, 1), (0, 2): (0.001, 1),
    ...                       (1, 2): (0.5, -1)}, 0.05))
    [(0, 1), (0, 2)]
    """
    hypotheses = []
    for (j, k), (p, gap) in tests.items():
        one = p / 2 if p < 1 else 1
        hypotheses += [((j, k), one if gap > 0 else 1),
                       ((k, j), one if gap < 0 else 1)]
    adjusted = _holm([p for _, p in hypotheses])
    return {pair for (pair, _), q in zip(hypotheses, adjusted) if q < level}


def _exact_ranks(columns, counts, gaps, binary, *, confidence=CONFIDENCE,
                 alpha=0.05):
    """Return the _ExactRanks of systems' integer *columns* (see _pair_p),
    gaps(j, k) their observed gap, larger better: rank sets at
    *confidence* and the top group at *alpha* (see above).

    >>> r = _exact_ranks([[1] * 8, [0] * 8, [0] * 8], [1] * 8,
    ...                  lambda j, k: [1, 0, 0][j] - [1, 0, 0][k], True)
    >>> r.sets, r.top
    ([Interval(lo=1, hi=1), Interval(lo=2, hi=3), Interval(lo=2, hi=3)], [True, False, False])
    """
    size = len(columns)
    tests = {(j, k): (_pair_p(columns, counts, j, k, binary), gaps(j, k))
             for j in range(size) for k in range(j + 1, size)}
    found = []
    for level in (1 - _exact(confidence), _exact(alpha)):
        sure = _surely_above(tests, level)
        found.append(([sum((j, s) in sure for j in range(size))
                       for s in range(size)],
                      [sum((s, k) in sure for k in range(size))
                       for s in range(size)]))
    (above, below), (beaten, _) = found
    return _ExactRanks("McNemar's exact tests" if binary
                       else "exact sign-flip tests",
                       size * (size - 1),
                       [Interval(1 + above[s], size - below[s])
                        for s in range(size)],
                       [not beaten[s] for s in range(size)])


def _pair_tally(tally, i, j):
    """Return the Counter of (system i, system j) pairs of an S-tuple tally."""
    out = collections.Counter()
    for key, count in tally.items():
        out[key[i], key[j]] += count
    return out


## Pairwise preferences #######################################################

# Doors (called from other sections): _bt_fit, _ELO, _preference_counts,
# _rank_preferences, _solve, _win_rates.

# A preference is a score on a pair: the second system's share x of a
# verdict (1 a win, 0 a loss, 1/2 a tie, a judge's probability as its
# value).  Two systems: compare reads the shares as a paired metric (the
# first system's 1 - x, the second's x: see Input), and _preference_counts
# gives the figures the projects publish beside it: the win rate with
# ties as half, the wins, losses and ties, AlpacaEval's standard error
# (the plain standard error of the mean share, metrics/winrate.py), the
# exact sign test on the decisive verdicts (McNemar's tails: the same
# binomial test) and, where each verdict is two games with the positions
# swapped, how often the first position won.

class _PreferenceCounts(NamedTuple):
    """The verdicts of one pair of systems (b's share), counted."""
    a: str
    b: str
    n: int                   # items judged
    wins: int                # b's share above one half
    losses: int
    ties: int                # exactly one half
    win_rate: Fraction       # b's mean share: ties as half
    discrete: Fraction       # (wins + ties / 2) / n: each verdict whole
    se: float                # standard error of the mean share (ddof 1)
    sign_p: Fraction         # exact two-sided sign test, wins vs losses
    games: int = 0           # decisive games, where there are games
    first_won: int = 0       # of them, won by the first position
    flipped: int = 0         # verdicts whose games disagree
    whole: bool = True       # every share is 0, 1/2 or 1


def _preference_counts(a, b, shares, games=()):
    """Return the _PreferenceCounts of b's shares of the verdicts against a
    (and, per verdict, its games as (b's share, b first) pairs).

    >>> c = _preference_counts("x", "y", [1, 1, 0.5, 0, 1])
    >>> c.win_rate, c.wins, c.losses, c.ties, c.sign_p
    (Fraction(7, 10), 3, 1, 1, Fraction(5, 8))
    """
    counted = collections.Counter(map(_exact, shares))
    n = sum(counted.values())
    if not n:
        raise EvalDeltaError(f"no verdicts of {b} against {a}")
    half = Fraction(1, 2)
    wins = sum(c for x, c in counted.items() if x > half)
    losses = sum(c for x, c in counted.items() if x < half)
    ties = counted.get(half, 0)
    total = sum(x * c for x, c in counted.items())
    mean = total / n
    square = sum(x * x * c for x, c in counted.items())
    se = (math.sqrt((square - n * mean * mean) / (n - 1) / n)
          if n > 1 else math.nan)
    decisive = [(share, first) for played in games for share, first
                in played if share != half]
    return _PreferenceCounts(
        a, b, n, wins, losses, ties, mean, (wins + half * ties) / n, se,
        _mcnemar_p(losses, wins) if wins + losses else Fraction(1),
        len(decisive), sum(1 for share, first in decisive
                           if (share > half) == first),
        sum(1 for played in games
            if len({share for share, _ in played}) > 1),
        set(counted) <= {0, half, 1})


# Many systems: Bradley-Terry strengths (Bradley & Terry 1952; ties as
# half a win each, as Chatbot Arena's compute_mle_elo counts them), fitted
# by Hunter's (2004) MM iteration, gamma_i <- W_i / sum_j n_ij / (gamma_i +
# gamma_j), which climbs the likelihood to its maximum where one exists:
# where every split of the systems in two has a win (or a tie) across it
# both ways.  Ratings are on the Elo scale, 400 log10(gamma) (Chatbot
# Arena's), centred at 1000 or anchored where the user says.  Intervals
# come from a bootstrap over battles drawn as multinomial counts of the
# (pair, verdict) cells, so a round costs the cells, not the battles, each
# fit warm-started from the full data's; ranks and the top group follow
# _rank_systems (the joint bootstrap of the largest centred difference).

def _bradley_terry(size, cells, start=None, tol=1e-10):
    """Return the Bradley-Terry log-strengths (summing to 0) of *size*
    systems from *cells* [(i, j, j's share, count)]: battles of i and j.

    >>> [round(x, 6) for x in _bradley_terry(2, [(0, 1, 1.0, 3),
    ...                                          (0, 1, 0.0, 1)])]
    [-0.549306, 0.549306]
    """
    games = {}
    for i, j, share, count in cells:
        if i > j:
            i, j, share = j, i, 1 - share
        n, won = games.get((i, j), (0, 0.0))
        games[i, j] = n + count, won + share * count
    return _bt_fit(size, [(i, j, n, won) for (i, j), (n, won)
                          in games.items() if n], start, tol)


def _bt_fit(size, pairs, start=None, tol=1e-10):
    """Return the log-strengths maximising the Bradley-Terry likelihood of
    battles *pairs* [(i, j, n, j's wins)] (ties as half): Newton's method
    on the concave log-likelihood, each step halved until the likelihood
    rises (the system 0 held fixed, then centred), for up to 40 systems;
    beyond, whose Newton steps would cost size**3, Newman's (2023)
    iteration pi_i <- sum_j w_ij pi_j / (pi_i + pi_j) / sum_j w_ji /
    (pi_i + pi_j), which reaches the same maximum in a few passes over
    the pairs (Hunter's MM takes several times as many)."""
    theta = list(start) if start else [0.0] * size
    wins = [0.0] * size
    for i, j, n, won in pairs:
        wins[j] += won
        wins[i] += n - won
    if size > 40:
        pi = [math.exp(x) for x in theta]
        pairs = [(i, j, won, n - won) for i, j, n, won in pairs]
        for _ in range(100000):
            num, den = [0.0] * size, [0.0] * size
            for i, j, won, lost in pairs:
                p_i, p_j = pi[i], pi[j]
                inverse = 1 / (p_i + p_j)
                num[i] += lost * p_j * inverse
                den[i] += won * inverse
                num[j] += won * p_i * inverse
                den[j] += lost * inverse
            logs = [math.log(max(a / b, 1e-300)) if b else x
                    for a, b, x in zip(num, den, theta)]
            centre = sum(logs) / size
            logs = [x - centre for x in logs]
            change = max(abs(x - y) for x, y in zip(logs, theta))
            theta, pi = logs, [math.exp(x) for x in logs]
            if change < tol:
                break
        return theta

    def loglik(t):
        return (sum(w * x for w, x in zip(wins, t))
                - sum(n * _log_add(t[i], t[j]) for i, j, n, _ in pairs))

    def slopes(theta):
        grad = list(wins)
        hess = [[0.0] * size for _ in range(size)]
        for i, j, n, _ in pairs:
            p = 1 / (1 + math.exp(theta[j] - theta[i]))
            grad[i] -= n * p
            grad[j] -= n * (1 - p)
            v = n * p * (1 - p)
            hess[i][i] += v
            hess[j][j] += v
            hess[i][j] -= v
            hess[j][i] -= v
        return grad, hess
    theta = _ascend(theta, loglik, slopes, tol)
    centre = sum(theta) / size
    return [x - centre for x in theta]


def _ascend(x, loglik, slopes, tol):
    """Return x maximising the concave *loglik* by Newton's method with
    x[0] held fixed: slopes(x) gives the gradient and the negative
    Hessian; each step is halved until the likelihood rises, and the
    steps stop once none moves a coordinate by *tol*."""
    current = loglik(x)
    for _ in range(200):
        grad, hess = slopes(x)
        step = _solve([row[1:] for row in hess[1:]], grad[1:])
        if step is None:
            break
        step = [0.0] + step
        scale = 1.0
        while True:
            trial = [v + scale * d for v, d in zip(x, step)]
            value = loglik(trial)
            if value >= current - 1e-12 * abs(current) or scale < 1e-6:
                break
            scale /= 2
        change = max(abs(scale * d) for d in step)
        x, current = trial, value
        if change < tol:
            break
    return x


def _davidson(size, cells, start=None, tol=1e-10):
    """Return (log-strengths summing to 0, log nu) of Davidson's (1970,
    JASA 65:317-328) tie model from *cells* [(i, j, j's share, count)]:
    P(i beats j) = pi_i / D, P(tie) = nu sqrt(pi_i pi_j) / D, D = pi_i +
    pi_j + nu sqrt(pi_i pi_j).  A share of 1/2 is a tie; any other share
    x is x of a win for j and 1 - x for i.  Newton's method on the
    concave log-likelihood (a multinomial logit in (log pi, log nu)),
    each step halved until it rises, from the Bradley-Terry fit; log nu
    is -inf where no battle is a tie (the model is then Bradley-Terry's)
    and +inf where every battle is one (the strengths then equal).

    Two systems fit the counts exactly: pi_j / pi_i = W_j / W_i and nu =
    T / sqrt(W_i W_j):

    >>> logs, log_nu = _davidson(2, [(0, 1, 1.0, 6), (0, 1, 0.0, 3),
    ...                            (0, 1, 0.5, 4)])
    >>> round(math.exp(logs[1] - logs[0]), 9), round(math.exp(log_nu), 9)
    (2.0, 0.942809042)
    """
    games = {}
    for i, j, share, count in cells:
        if i > j:
            i, j, share = j, i, 1 - share
        w_i, w_j, ties = games.get((i, j), (0.0, 0.0, 0.0))
        if share == 0.5:
            ties += count
        else:
            w_i, w_j = w_i + (1 - share) * count, w_j + share * count
        games[i, j] = (w_i, w_j, ties)
    return _davidson_fit(size, [(i, j, *v) for (i, j), v in games.items()
                                if sum(v)], start, tol)


def _davidson_fit(size, pairs, start=None, tol=1e-10):
    """_davidson() of battles *pairs* [(i, j, i's wins, j's wins, ties)];
    *start* a (log-strengths, log nu) to begin from."""
    ties = sum(t for *_, t in pairs)
    if not ties:
        return _bt_fit(size, [(i, j, a + b, b) for i, j, a, b, _ in pairs],
                       start and start[0], tol), -math.inf
    if not sum(a + b for _, _, a, b, _ in pairs):
        return [0.0] * size, math.inf   # every battle a tie: nu unbounded
    if start and math.isfinite(start[1]):
        x = list(start[0]) + [start[1]]
    else:
        theta = _bt_fit(size, [(i, j, a + b + t, b + t / 2)
                               for i, j, a, b, t in pairs])
        share = ties / sum(a + b + t for _, _, a, b, t in pairs)
        x = theta + [math.log(2 * share / (1 - share)) if share < 1
                     else 0.0]
    last = size                             # log nu's place

    def outcome(v, i, j):
        """(log D, P(i wins), P(j wins), P(tie)) of the pair at v."""
        mid = v[last] + (v[i] + v[j]) / 2
        top = max(v[i], v[j], mid)
        e = (math.exp(v[i] - top), math.exp(v[j] - top),
             math.exp(mid - top))
        d = sum(e)
        return (top + math.log(d), *(x / d for x in e))

    def loglik(v):
        total = 0.0
        for i, j, a, b, t in pairs:
            mid = v[last] + (v[i] + v[j]) / 2
            total += (a * v[i] + b * v[j] + t * mid
                      - (a + b + t) * outcome(v, i, j)[0])
        return total

    def slopes(x):
        grad = [0.0] * (size + 1)
        hess = [[0.0] * (size + 1) for _ in range(size + 1)]
        for i, j, a, b, t in pairs:
            n = a + b + t
            _, p_i, p_j, p_t = outcome(x, i, j)
            mean = (p_i + p_t / 2, p_j + p_t / 2, p_t)
            second = ((p_i + p_t / 4, p_t / 4, p_t / 2),
                      (p_t / 4, p_j + p_t / 4, p_t / 2),
                      (p_t / 2, p_t / 2, p_t))
            at = (i, j, last)
            seen = (a + t / 2, b + t / 2, t)
            for r in range(3):
                grad[at[r]] += seen[r] - n * mean[r]
                for c in range(3):
                    hess[at[r]][at[c]] += n * (second[r][c]
                                               - mean[r] * mean[c])
        return grad, hess
    x = _ascend(x, loglik, slopes, tol)
    centre = sum(x[:size]) / size
    return [v - centre for v in x[:size]], x[last]


def _log_add(x, y):
    """Return log(e**x + e**y) without overflow."""
    top = max(x, y)
    return top + math.log1p(math.exp(min(x, y) - top))


def _solve(matrix, vector):
    """Return x with matrix x = vector (Gaussian elimination, partial
    pivoting), or None where the matrix is singular."""
    size = len(vector)
    rows = [list(row) + [v] for row, v in zip(matrix, vector)]
    for k in range(size):
        pivot = max(range(k, size), key=lambda r: abs(rows[r][k]))
        if abs(rows[pivot][k]) < 1e-300:
            return None
        rows[k], rows[pivot] = rows[pivot], rows[k]
        top = rows[k]
        for r in range(k + 1, size):
            factor = rows[r][k] / top[k]
            if factor:
                row = rows[r]
                for c in range(k, size + 1):
                    row[c] -= factor * top[c]
    x = [0.0] * size
    for k in reversed(range(size)):
        x[k] = (rows[k][size] - sum(rows[k][c] * x[c]
                                    for c in range(k + 1, size))) / rows[k][k]
    return x


def _connected(size, cells):
    """Return the systems not reached from system 0 by wins, or not
    reaching it: empty exactly when the Bradley-Terry fit exists (Zermelo
    1929, Ford 1957)."""
    beats = [set() for _ in range(size)]
    for i, j, share, count in cells:
        if count and share > 0:
            beats[j].add(i)
        if count and share < 1:
            beats[i].add(j)

    def reach(edges):
        seen, todo = {0}, [0]
        while todo:
            for k in edges[todo.pop()] - seen:
                seen.add(k)
                todo.append(k)
        return seen
    back = [set() for _ in range(size)]
    for i in range(size):
        for j in beats[i]:
            back[j].add(i)
    return set(range(size)) - (reach(beats) & reach(back))


def _still_joined(degree, lost):
    """Return True if the pairs played both ways still join every system
    once the pairs *lost* (played one way, or not at all) are taken from
    those of *degree* (each system's pairs): where every system keeps
    pairs with at least half the others, no part of them can be cut off
    (a part of at most half the systems would have fewer).  False means
    only that this quick test cannot tell."""
    half = (len(degree) - 1) / 2
    if min(degree.values()) < half:         # too few pairs to tell
        return False
    cut = collections.Counter(k for pair in lost for k in pair)
    return all(degree[k] - c >= half for k, c in cut.items())


_ELO = 400 / math.log(10)       # rating points per unit of log-strength


def _rank_preferences(cells, rng, names, options=_Options(),
                      questions=None):
    """Return the _Ranking of systems *names* by Bradley-Terry rating, from
    *cells* [(i, j, j's share, count)], with bootstrap intervals over the
    battles, or with *questions* (a Counter of each question's cells, as
    tuples of (cell index, count)) over the questions, a question's
    battles drawn together; the options' anchor (name, rating) fixes one
    system's rating, else the ratings average 1000.  Their ties "half"
    counts a tie half a win for each side (as Chatbot Arena does);
    "davidson" fits Davidson's tie model instead (_davidson()), its nu and
    interval in the _Ranking's *ties*.  The rounds are drawn in _BLOCKS
    blocks, each from a generator seeded from rng; with jobs > 1 a forked
    helper draws
    half of them, and the result is the same.  A round in which a system
    won, or lost, every battle it drew against the others has no finite
    rating (_connected); its fit stops where the steps do, and the _Ranking's
    *unrated* counts such rounds for the report to say so.

    >>> r = _rank_preferences([(0, 1, 1.0, 30), (0, 1, 0.0, 10), (1, 2, 1.0,
    ...     5), (1, 2, 0.0, 25), (0, 2, 0.5, 10)], random.Random(1),
    ...     ["a", "b", "c"], _Options(resamples=200))
    >>> [round(x) for x in r.means], r.ranks
    ([947, 1153, 900], [2, 1, 3])
    """
    size = len(names)
    if size < 2:
        raise EvalDeltaError("ranking needs two systems or more")
    resamples, confidence = options.resamples, options.confidence
    alpha, anchor, ties, jobs = (options.alpha, options.anchor,
                                 options.ties or "half", options.jobs)
    _check_resamples(resamples, confidence)
    played = [cell for cell in cells if cell[3]]
    apart = _connected(size, played)
    if apart:
        raise EvalDeltaError(
            f"no Bradley-Terry rating exists: {_some([names[k] for k in sorted(apart)])} "
            f"never won (or never lost) against the others, in a chain of "
            f"battles; rank the systems that played each other")
    if anchor is not None and anchor[0] not in names:
        raise EvalDeltaError(f"--anchor {anchor[0]!r} is none of the "
                             f"systems: {_some(names)}")

    def ratings(logs):
        shift = (anchor[1] - _ELO * logs[names.index(anchor[0])]
                 if anchor else 1000)
        return [_ELO * x + shift for x in logs]
    if ties not in ("half", "davidson"):
        raise ValueError(f"ties must be 'half' or 'davidson', not {ties!r}")
    if ties == "davidson":
        fitted = _davidson(size, played)
        observed = fitted[0]
    else:
        observed = _bradley_terry(size, played)
    rated = ratings(observed)
    n = sum(count for *_, count in cells)
    # The cells in pair order, each as the higher system's share, so that
    # a round's battles of a pair are one slice of its counts.
    order = sorted(range(len(cells)), key=lambda k: sorted(cells[k][:2]))
    place = {k: at for at, k in enumerate(order)}
    counts = [cells[k][3] for k in order]
    shares = [cells[k][2] if cells[k][1] > cells[k][0] else 1 - cells[k][2]
              for k in order]
    tied = [share == 0.5 for share in shares]
    spans = []                               # (i, j, first cell, end)
    for at, k in enumerate(order):
        i, j = sorted(cells[k][:2])
        if spans and spans[-1][:2] == [i, j]:
            spans[-1][3] = at + 1
        else:
            spans.append([i, j, at, at + 1])
    degree = collections.Counter(k for i, j, *_ in spans for k in (i, j))
    patterns = sorted(questions) if questions else None
    many = [questions[p] for p in patterns] if questions else None
    patterns = patterns and [[(place[k], c) for k, c in p] for p in patterns]

    def block(rng, rounds):
        """Draw *rounds* rounds from rng: (ratings, nu, finite) of each."""
        out = []
        for drawn in (_multinomials(rng, sum(many), many, rounds) if questions
                      else _multinomials(rng, n, counts, rounds)):
            if questions:              # whole questions, their battles
                again = [0] * len(counts)            # together
                for pattern, times in zip(patterns, drawn):
                    if times:
                        for k, c in pattern:
                            again[k] += times * c
            else:
                again = drawn
            pairs, one_way = [], []
            for i, j, first, end in spans:
                got = again[first:end]
                games = sum(got)
                if not games:
                    one_way.append((i, j))
                    continue
                won = sum(map(mul, shares[first:end], got))
                if not 0 < won < games:     # a tie counts both ways
                    one_way.append((i, j))
                if ties == "half":
                    pairs.append((i, j, games, won))
                    continue
                draw = sum(itertools.compress(got, tied[first:end]))
                won -= draw / 2
                pairs.append((i, j, games - draw - won, won, draw))
            # Finite as observed, unless pairs went one way or unplayed:
            # then the quick test, else the search on the round's cells.
            finite = not one_way or _still_joined(degree, one_way) or not \
                _connected(size, [(i, j, sum(map(mul, shares[f:e],
                                                 again[f:e])) / g, g)
                                  for i, j, f, e in spans
                                  if (g := sum(again[f:e]))])
            if ties == "half":
                out.append((ratings(_bt_fit(size, pairs, observed, 1e-7)),
                            None, finite))
            else:
                logs, log_nu = _davidson_fit(size, pairs, fitted, 1e-7)
                out.append((ratings(logs), math.exp(log_nu), finite))
        return out
    # Rounds in _BLOCKS blocks, each from its own generator seeded from
    # rng, so that two processes share them (jobs) with the same result.
    seeds = [rng.getrandbits(128) for _ in range(_BLOCKS)]
    rounds = _in_parallel(block, [
        (random.Random(seed), resamples // _BLOCKS
         + (k < resamples % _BLOCKS)) for k, seed in enumerate(seeds)],
        jobs if resamples * len(cells) >= _FORK_FITS else 1,
        "Bradley-Terry rounds")
    drawn = [r for b in rounds for r, _, _ in b]
    nus = [nu for b in rounds for _, nu, _ in b]
    unrated = sum(not finite for b in rounds for *_, finite in b)
    cis = (_joint_intervals(rated, drawn, confidence)
           if options.joint_intervals else
           [Interval(*percentile_interval([row[s] for row in drawn],
                                          confidence)) for s in range(size)])
    rank_cis, joint, critical, top = _rank_summary(
        rated, drawn, confidence=confidence, alpha=alpha)
    tie_model = None
    if ties == "davidson":
        tie_model = (math.exp(fitted[1]),
                     Interval(*percentile_interval(nus, confidence)))
    return _Ranking("Bradley-Terry rating", "preferences", "higher", n,
                   list(names), rated, cis, _ranks(rated), rank_cis, top,
                   critical, resamples, ("davidson" if ties == "davidson"
                                         else "bradley-terry") + (
                       " by question" if questions else ""), drawn, joint,
                   tie_model, unrated)


def _win_rates(size, cells):
    """Return the matrix of observed win rates (ties as half): row i's
    share of its battles with column j, None where they never met."""
    won = [[0.0] * size for _ in range(size)]
    met = [[0] * size for _ in range(size)]
    for i, j, share, count in cells:
        won[j][i] += share * count
        won[i][j] += (1 - share) * count
        met[i][j] += count
        met[j][i] += count
    return [[won[i][j] / met[i][j] if met[i][j] else None
             for j in range(size)] for i in range(size)]


## Judge-corrected comparison ################################################

# Doors (called from other sections): _agreement_audit, _corrected_macro,
# _corrected_result, _corrected_se, _corrected_table, _covariate_check,
# _judge_check, _JudgeCheck, _labels_for_se, _labels_needed,
# _ppi_bradley_terry, _PPI_CLT_LEAST, _variance.

# Most evals are scored by an LLM judge; a human scores some of the items
# too.  Prediction-powered inference (Angelopoulos, Bates, Fannjiang,
# Jordan and Zrnic 2023, "Prediction-powered inference", Science
# 382:669-674) estimates the mean a human would give from both, unbiased
# whatever the judge's errors, as long as the labelled items are a random
# sample of the items.  With y the human scores and f the judge's on the
# n labelled items, and f~ the judge's on the N others,
#     theta = lam * mean(f~) + mean(y - lam * f),
#     var(theta) = lam^2 var(f~) / N + var(y - lam f) / n,
# the two parts independent.  PPI++'s power-tuned weight (Angelopoulos,
# Duchi and Zrnic 2023, arXiv:2311.01453) is lam = cov(y, f) / ((1 + n/N)
# var(f, f~)), clipped to [0, 1]: 1 is classical PPI, 0 the humans' mean
# alone, so a judge that tells nothing costs nothing.  Every figure is
# ppi-python's ppi_mean_ci's (cov over n, the judge's variance over all
# n + N items with n + N - 1, the parts' variances over their counts).
# A difference of two systems is the same on the per-item differences of
# the items a human labelled for both, so the pairing is kept.  From
# _PPI_CLT_LEAST labels whose rectifier's variance is known as well as
# that many normal values would know it (_moment_df) the interval and p are
# the normal ones; else Student's t on the parts' unbiased variances with
# Welch and Satterthwaite's degrees of freedom, the rectifier's from its
# fourth moment, and the tuned weight's variance counted: a judge that
# agrees with the humans on most items leaves a rectifier that is 0 but on
# a few, whose variance forty labels (or two hundred) measure far worse
# than n - 1 degrees of freedom say (gaps covered 92-93% at 40 labels of
# a judge agreeing 97%, 93.6% at 200; 95-97% and 94-95% so).
# One weight serves a comparison: PPI++'s, tuned on the per-item
# differences of the items labelled for both, corrects each system's mean
# too, so the candidate's corrected mean less the baseline's is the
# corrected gap (any fixed weight leaves each mean unbiased).
# Where items come in clusters (--cluster; the turns of one question) the
# two parts err together: _ppi_clustered takes the standard error over
# clusters, and _ppi_bradley_terry's sandwich clusters the same way.  A
# macro average of subsets averages their corrected means
# (_corrected_macro); rank --human reads its ratings' rank sets and top
# group from draws of the fit's normal law (_corrected_table).

_PPI_CLT_LEAST = 100    # labels (and the rectifier's degrees of freedom)
                        # from which the corrected interval is normal


class _Corrected(NamedTuple):
    """A mean (or a mean difference) corrected by human labels."""
    estimate: float
    ci: Interval             # floats
    p: float                 # two-sided, of a zero mean
    se: float
    weight: object           # lam, the power-tuned weight in [0, 1]
                             # (None: a macro average's, tuned per subset)
    labels: int              # n, the labelled items
    unlabelled: int          # N, the items the judge alone scored
    effective: object        # labels alone that would give this se, at
                             # most the items (_effective_labels)
    df: object               # None: the normal interval; else Student's t
    moments: tuple = ()      # (var y, cov(y, f), var f) on the labelled
                             # items and var f on the rest, unbiased: what
                             # _labels_needed sizes by
    design: float = 1.0      # the variance over the unclustered one
    drift: object = None     # the clustered z of the labelled items'
                             # judge mean against the rest's (clusters)
    clusters: object = None  # G, where items come in clusters
    weight_var: float = 0.0  # the tuned weight's variance, counted below
                             # _PPI_CLT_LEAST labels (_weight_variance)


def _variance(values, ddof):
    """Return the variance of *values* with ddof subtracted from the
    count (0: numpy's std's; 1: the unbiased one); 0.0 for too few."""
    n = len(values)
    if n - ddof <= 0:
        return 0.0
    mean = math.fsum(values) / n
    return math.fsum((x - mean) ** 2 for x in values) / (n - ddof)


def _ppi_mean(y, f, f_unlabelled, confidence=CONFIDENCE, tuned=None):
    """Return the _Corrected mean of human scores *y* on the labelled
    items, with the judge's scores *f* on the same items and
    *f_unlabelled* on the rest (see the block comment above), at PPI++'s
    tuned weight or at the weight of the _Corrected *tuned* (a
    comparison's, _judge_check).

    Below _PPI_CLT_LEAST labels, or where the rectifier's _moment_df is
    below that, the interval is Student's t and its variance counts the
    weight's own too:
    the estimate is mean(y) - lam (mean(f) - mean(f~)), and lam is tuned
    on the same labels, so by the delta method, conditional on the judge
    means seen (as the regression estimator's variance, Cochran 1977,
    Sampling Techniques, 7.3, holds the x's),
        var += (mean(f) - mean(f~))^2 var(lam),
        var(lam) = var((y - mean y)(f - mean f)) / n / ((1 + n/N) s_f^2)^2
    (_weight_variance; 0 where lam is clipped to 0 or 1).

    With all items labelled the weight is 0 and the figures are the human
    scores' own; with fewer than two labels EvalDeltaError is raised.

    >>> c = _ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 0, 1])
    >>> c.weight                 # 0.125 / ((1 + 4/6) * 0.2667)
    0.28125
    >>> c.estimate, c.labels, round(c.df, 2)   # 0.28125 * 4/6 + 0.609375
    (0.796875, 4, 3.45)
    """
    n, big_n = len(y), len(f_unlabelled)
    weight, cov = _ppi_weight(y, f, f_unlabelled)
    spread = (_weight_variance(y, f, f_unlabelled, weight) if tuned is None
              else tuned.weight_var)
    weight = weight if tuned is None else tuned.weight
    rectified = [a - weight * b for a, b in zip(y, f)]
    imputed = math.fsum(f_unlabelled) / big_n if big_n else 0.0
    estimate = weight * imputed + math.fsum(rectified) / n
    normal = n >= _PPI_CLT_LEAST and _moment_df(rectified) >= _PPI_CLT_LEAST
    ddof = 0 if normal else 1
    parts = [_variance(rectified, ddof) / n,
             weight * weight * _variance(f_unlabelled, ddof) / big_n
             if big_n else 0.0]
    if not normal:
        parts[0] += (math.fsum(f) / n - imputed) ** 2 * spread
    se = math.sqrt(math.fsum(parts))
    df = None
    if not normal:
        counts = [_moment_df(rectified), big_n - 1]
        df = (math.fsum(parts) ** 2
              / math.fsum(v * v / k for v, k in zip(parts, counts) if k > 0)
              if se else n - 1)
    ci, p = _normal_or_t(estimate, se, df, confidence)
    human = _variance(list(y), 1)
    effective = _effective_labels(human, se, n + big_n)
    moments = (human, cov * n / (n - 1), _variance(list(f), 1),
               _variance(list(f_unlabelled), 1))
    return _Corrected(estimate, ci, p, se, weight, n, big_n, effective, df,
                      moments, weight_var=spread)


def _weight_variance(y, f, f_unlabelled, weight):
    """Return the delta method's variance of PPI++'s tuned weight
    lam = cov(y, f) / ((1 + n/N) s_f^2) (_ppi_weight) from the n labelled
    items, s_f^2 taken as known (it is over all n + N items):
        var(lam) = var((y - mean y)(f - mean f)) / n / ((1 + n/N) s_f^2)^2;
    0 where lam is clipped to 0 or 1, or there is nothing unlabelled."""
    n, big_n = len(y), len(f_unlabelled)
    spread = _variance(list(f) + list(f_unlabelled), 1)
    if not big_n or not spread or not 0 < weight < 1:
        return 0.0
    mean_y, mean_f = math.fsum(y) / n, math.fsum(f) / n
    cross = [(a - mean_y) * (b - mean_f) for a, b in zip(y, f)]
    return _variance(cross, 1) / n / ((1 + n / big_n) * spread) ** 2


def _moment_df(values):
    """Return the degrees of freedom of the unbiased variance of *values*
    by Satterthwaite's (1946, "An approximate distribution of estimates of
    variance components", Biometrics Bulletin 2:110-114) matching of two
    moments, with the variance of s^2 that the values' own fourth moment
    gives (Cramer 1946, Mathematical Methods of Statistics, 27.4):
        var(s^2) = sigma^4 (2 / (n - 1) + kappa / n),
        df = 2 sigma^4 / var(s^2) = 2 / (2 / (n - 1) + kappa / n),
    kappa the sample excess kurtosis m4 / m2^2 - 3, taken as 0 where it is
    below (so df is never past the normal theory's n - 1).  A rectifier
    that is 0 on most items has a large kappa, and few degrees of freedom.

    >>> _moment_df([0, 1] * 5)        # kurtosis -2: the normal theory's
    9
    >>> round(_moment_df([0] * 18 + [1, -1]), 2)   # kappa 7: 2 / (2/19 + 7/20)
    4.39
    """
    n = len(values)
    mean = math.fsum(values) / n
    m2 = math.fsum((x - mean) ** 2 for x in values) / n
    m4 = math.fsum((x - mean) ** 4 for x in values) / n
    kappa = m4 / (m2 * m2) - 3 if m2 else 0.0
    if kappa <= 0:
        return n - 1
    return 2 / (2 / (n - 1) + kappa / n)


def _effective_labels(human, se, items):
    """Return the human labels alone whose mean would have standard error
    *se*, var(y) / se^2 with var(y) the labels' variance (*human*), at
    most the eval's *items* (labelled and judged alone): a judge can stand
    in for at most a label on every item, and a ratio past that is the
    noise of the two variances' estimates (a 2,000-item eval read 2071.8
    effective labels).  None without a spread to compare.

    >>> _effective_labels(0.25, 0.01, 5000), _effective_labels(0.25, 0.01, 2000)
    (2500.0, 2000.0)
    """
    if not se or not human:
        return None
    return min(human / (se * se), float(items))


def _normal_or_t(estimate, se, df, confidence=CONFIDENCE):
    """Return (the Interval, the two-sided p of a zero mean) of an
    estimate with standard error *se*: normal where *df* is None, else
    Student's t on df; without spread, the estimate itself, and p 1
    where it is 0, else 0."""
    if not se:
        return Interval(estimate, estimate), float(estimate == 0)
    tail = float((1 - _exact(confidence)) / 2)
    if df is None:
        half = _upper_z(tail) * se
        p = 2 * NormalDist().cdf(-abs(estimate) / se)
    else:
        half = _student_t_upper(tail, df) * se
        p = min(1.0, 2 * _student_t_tail(abs(estimate) / se, df))
    return Interval(estimate - half, estimate + half), p


def _ppi_weight(y, f, f_unlabelled):
    """Return (PPI++'s power-tuned weight, cov(y, f) over n) of human
    scores *y* and the judge's *f* on the labelled items and
    *f_unlabelled* on the rest; fewer than two labels raise
    EvalDeltaError."""
    n, big_n = len(y), len(f_unlabelled)
    if n < 2:
        raise EvalDeltaError(f"{_items(n, 'human label')}: a corrected mean "
                             f"needs two at least")
    mean_y, mean_f = math.fsum(y) / n, math.fsum(f) / n
    cov = math.fsum((a - mean_y) * (b - mean_f) for a, b in zip(y, f)) / n
    spread = _variance(list(f) + list(f_unlabelled), 1)
    weight = 0.0
    if big_n and spread > 0:
        weight = min(1.0, max(0.0, cov / ((1 + n / big_n) * spread)))
    return weight, cov


def _ppi_clustered(y, f, f_unlabelled, clusters, clusters_unlabelled,
                   confidence=CONFIDENCE, tuned=None):
    """Return the _Corrected mean of _ppi_mean where items come in
    clusters (the labels of the labelled items' clusters, *clusters*, and
    of the rest's): the same weight and estimate, and the standard error
    of the clusters' sums of its linearisation,
        u_g = lam / N sum over g's unlabelled of (f~ - mean f~)
              + 1 / n sum over g's labelled of (r - mean r),  r = y - lam f,
        se^2 = G / (G - 1) sum of u_g^2
    (the CR1 sandwich of Liang and Zeger 1986 over the G clusters), which
    holds where a cluster's labelled and unlabelled items err together:
    the two parts are not independent then, and _ppi_mean's sum of their
    variances is too small.  With each item a cluster it is _ppi_mean's
    normal variance times G / (G - 1).  The weight, the estimate and the
    moments are _ppi_mean's.  Below _PPI_CLT_LEAST clusters
    with a label the interval is Student's t on their count - 1 degrees
    of freedom.  The labelled items' judge mean against the rest's gets
    the same clustered standard error (the drift's z, in _Corrected.drift);
    _Corrected.design is the variance's ratio to the unclustered one, by
    which _corrected_se scales a plan.

    >>> c = _ppi_clustered([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 0, 1],
    ...                    "abcd", "efghij")
    >>> c.estimate == _ppi_mean([1, 0, 1, 1], [1, 0, 1, 0],
    ...                         [1, 1, 0, 1, 0, 1]).estimate, c.df
    (True, 3)
    """
    unclustered = _ppi_mean(y, f, f_unlabelled, confidence, tuned)
    n, big_n, weight = len(y), len(f_unlabelled), unclustered.weight
    rectified = [a - weight * b for a, b in zip(y, f)]
    imputed = math.fsum(f_unlabelled) / big_n if big_n else 0.0
    mean_r, mean_f = math.fsum(rectified) / n, math.fsum(f) / n
    u, shift = collections.defaultdict(float), collections.defaultdict(float)
    for g, r, x in zip(clusters, rectified, f):
        u[g] += (r - mean_r) / n
        shift[g] += (x - mean_f) / n
    for g, x in zip(clusters_unlabelled, f_unlabelled):
        u[g] += weight * (x - imputed) / big_n
        shift[g] -= (x - imputed) / big_n
    groups, labelled = len(u), len(set(clusters))
    if groups < 2:
        raise EvalDeltaError(f"{_items(groups, 'cluster')}: a clustered "
                             f"standard error needs two at least")
    factor = groups / (groups - 1)
    se = math.sqrt(factor * math.fsum(v * v for v in u.values()))
    plain = (math.fsum((r - mean_r) ** 2 for r in rectified) / n / n
             + (weight * weight * math.fsum((x - imputed) ** 2
                                           for x in f_unlabelled)
                / big_n / big_n if big_n else 0.0))
    df = None if labelled >= _PPI_CLT_LEAST else max(labelled - 1, 1)
    ci, p = _normal_or_t(unclustered.estimate, se, df, confidence)
    human = unclustered.moments[0]
    drift_se = math.sqrt(factor * math.fsum(v * v for v in shift.values()))
    return unclustered._replace(
        ci=ci, p=p, se=se, df=df,
        effective=_effective_labels(human, se, n + big_n),
        design=se * se / plain if plain else 1.0, clusters=groups,
        drift=(mean_f - imputed) / drift_se if big_n and drift_se else None)


def _corrected_macro(parts, confidence=CONFIDENCE):
    """Return the _Corrected unweighted average of the subsets' corrected
    means *parts* (the subsets hold different items, so the parts are
    independent): se^2 = sum of se_s^2 / S^2, normal where every part
    is, else Student's t on Welch and Satterthwaite's degrees of freedom
    of the parts' (a normal part's counted as infinite).  Its weight is
    None (each subset tunes its own), and its effective labels are the
    labels that, at the parts' human spread, give its se.

    >>> a = _ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 0, 1])
    >>> m = _corrected_macro([a, a])
    >>> m.estimate == a.estimate, round(m.se * 2 ** 0.5 / a.se, 9)
    (True, 1.0)
    """
    count = len(parts)
    estimate = math.fsum(c.estimate for c in parts) / count
    variances = [c.se * c.se / (count * count) for c in parts]
    se = math.sqrt(math.fsum(variances))
    df = None
    if any(c.df is not None for c in parts):
        df = (math.fsum(variances) ** 2
              / math.fsum(v * v / c.df for v, c in zip(variances, parts)
                          if c.df is not None) if se else None)
    ci, p = _normal_or_t(estimate, se, df, confidence)
    labels = sum(c.labels for c in parts)
    human = math.fsum(c.moments[0] / c.labels for c in parts) / (
        count * count)
    return _Corrected(estimate, ci, p, se, None, labels,
                      sum(c.unlabelled for c in parts),
                      _effective_labels(labels * human, se, labels + sum(
                          c.unlabelled for c in parts)), df)


# Stratified prediction-powered inference (Fisch, Maynez, Hofer, Dhingra,
# Globerson and Cohen 2024, "Stratified prediction-powered inference for
# hybrid language model evaluation", NeurIPS; arXiv:2406.04291): where
# labels were drawn at different rates in different strata, the labelled
# items are a random sample of each stratum but not of the items, and one
# PPI++ over them all weighs each stratum by its share of the LABELS, not
# of the items: biased wherever the judge errs differently by stratum.
# StratPPI corrects each stratum on its own items, its own PPI++ weight
# lam_k tuned there (the strata are independent, so tuning each minimises
# the sum below, Fisch et al.'s joint choice), and weighs the stratum by
# its share of ALL items, w_k = N_k / N:
#     theta = sum w_k theta_k,   var(theta) = sum w_k^2 var(theta_k).

def _corrected_strata(parts, shares, confidence=CONFIDENCE):
    """Return the _Corrected stratified mean of the strata's corrected
    means *parts* (each a _Corrected of _ppi_mean on its stratum's items
    alone) weighted by *shares*, each stratum's items over all the
    items (Fractions that sum to 1): se^2 = sum of w_k^2 se_k^2, normal
    where every part is, else Student's t on Welch and Satterthwaite's
    degrees of freedom of the parts' (a normal part's counted as
    infinite), as _corrected_macro's.  Its weight is None (each stratum
    tunes its own).

    >>> a = _ppi_mean([1, 0, 1, 1], [1, 0, 1, 0], [1, 1, 0, 1, 0, 1])
    >>> b = _ppi_mean([0, 0, 1], [0, 1, 1], [1, 1, 1, 0, 0])
    >>> s = _corrected_strata([a, b], [Fraction(10, 18), Fraction(8, 18)])
    >>> s.estimate == (10 * a.estimate + 8 * b.estimate) / 18
    True
    >>> round(s.se ** 2, 12) == round((10 * a.se / 18) ** 2
    ...                               + (8 * b.se / 18) ** 2, 12)
    True
    """
    weights = [float(w) for w in shares]
    estimate = math.fsum(w * c.estimate for w, c in zip(weights, parts))
    variances = [w * w * c.se * c.se for w, c in zip(weights, parts)]
    se = math.sqrt(math.fsum(variances))
    small = math.fsum(v * v / c.df for v, c in zip(variances, parts)
                      if c.df is not None)
    df = math.fsum(variances) ** 2 / small if small else None
    ci, p = _normal_or_t(estimate, se, df, confidence)
    labels = sum(c.labels for c in parts)
    items = labels + sum(c.unlabelled for c in parts)
    human = math.fsum(w * w * c.moments[0] / c.labels
                      for w, c in zip(weights, parts))
    return _Corrected(estimate, ci, p, se, None, labels, items - labels,
                      _effective_labels(labels * human, se, items), df)


def _labels_needed(c, target, alpha=0.05, power=_POWER):
    """Return the fewest human labels, of the same items, with which the
    corrected mean's standard error detects *target* with *power* (a
    two-sided test at *alpha*), at the judge's agreement seen (c's
    moments), PPI++'s weight tuned again for each count; None where even
    every item but one labelled would not.

    >>> c = _ppi_mean([1, 0, 1, 1, 0, 1] * 20, [1, 0, 1, 0, 0, 1] * 20,
    ...               [1, 0, 1] * 200)
    >>> _labels_needed(c, 0.05) > c.labels > _labels_needed(c, 0.2)
    True
    """
    if not target:
        return None
    return _labels_for_se(c, abs(target) / _z_sum(alpha, power))


def _labels_for_se(c, limit):
    """Return the fewest labels with which _corrected_se(c, n) <= limit,
    None where every item but one labelled would not do."""
    items = c.labels + c.unlabelled
    grid = sorted({min(items - 1, max(2, round(2 * 1.05 ** k)))
                   for k in range(400)} | {items - 1})
    passed = next((n for n in grid
                   if n >= 2 and _corrected_se(c, n) <= limit), None)
    if passed is None:
        return None
    low = max([n for n in grid if n < passed] or [1])
    return next(n for n in range(low + 1, passed + 1)
                if _corrected_se(c, n) <= limit)


def _corrected_se(c, n):
    """Return the standard error the corrected mean *c* would have with
    *n* of its items labelled (the rest judged alone), at the judge's
    agreement seen (c.moments), PPI++'s weight tuned again for n, and
    scaled by the clusters' design effect seen (c.design)."""
    var_y, cov, var_f, var_u = c.moments
    rest = c.labels + c.unlabelled - n
    weight = (min(1.0, max(0.0, cov / ((1 + n / rest) * var_f)))
              if var_f and rest > 0 else 0.0)
    judged = weight * weight * var_u / rest if rest > 0 else 0.0
    return math.sqrt(c.design * max(0.0, (var_y - 2 * weight * cov
                                          + weight * weight * var_f) / n
                                    + judged))


def _mean_interval(values, confidence=CONFIDENCE, clusters=None):
    """Return (mean, its Student t Interval or None under two values) of
    plain numbers: the judge's measured bias, judge minus human.  With
    each value's cluster, the standard error is _clustered_se's, on the
    clusters' count - 1 degrees of freedom."""
    n = len(values)
    mean = math.fsum(values) / n if n else math.nan
    groups = n if clusters is None else len(set(clusters))
    if groups < 2:
        return mean, None
    se = (math.sqrt(_variance(values, 1) / n) if clusters is None
          else _clustered_se(values, clusters))
    half = _student_t_upper(float((1 - _exact(confidence)) / 2),
                            groups - 1) * se
    return mean, Interval(mean - half, mean + half)


class _Agreement(NamedTuple):
    """How a 0/1 judge agrees with 0/1 human labels on the same items."""
    sensitivity: object      # P(judge 1 | human 1), None without a 1
    specificity: object      # P(judge 0 | human 0), None without a 0
    kappa: object            # Cohen's kappa, None where chance agrees
    items: int


def _agreement(human, judge):
    """Return the _Agreement of paired 0/1 labels (Cohen 1960, "A
    coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20:37-46: kappa = (p_o - p_e) / (1 - p_e)).

    >>> _agreement([1, 1, 0, 0, 1], [1, 0, 0, 0, 1])
    _Agreement(sensitivity=Fraction(2, 3), specificity=Fraction(1, 1), kappa=Fraction(8, 13), items=5)
    """
    cells = collections.Counter(zip(human, judge))
    n = len(human)
    ones, zeros = cells[1, 1] + cells[1, 0], cells[0, 0] + cells[0, 1]
    observed = Fraction(cells[1, 1] + cells[0, 0], n)
    judged = cells[1, 1] + cells[0, 1]
    chance = Fraction(ones * judged + zeros * (n - judged), n * n)
    return _Agreement(Fraction(cells[1, 1], ones) if ones else None,
                      Fraction(cells[0, 0], zeros) if zeros else None,
                      (observed - chance) / (1 - chance) if chance != 1
                      else None, n)


# The judge audit's agreement statistics, each chance-corrected, 1 for
# perfect agreement and 0 for what chance gives, on the items a human
# labelled: Cohen's kappa (1960) on the scores as categories; Cohen's
# (1968) weighted kappa with linear or quadratic disagreement weights
# |x - y| and (x - y)^2 on the scores' values (scikit-learn's
# cohen_kappa_score where the scores are equally spaced and all seen);
# Krippendorff's alpha (2011, "Computing Krippendorff's alpha-
# reliability", Annenberg School for Communication, University of
# Pennsylvania) from the coincidences of the pooled values, nominal,
# ordinal or interval; and Gwet's AC1 (2008, "Computing inter-rater
# reliability and its variance in the presence of high agreement", British
# Journal of Mathematical and Statistical Psychology 61:29-48), whose
# chance agreement does not collapse where one category is common (kappa's
# paradox).  Each interval is the jackknife's over the labelled items
# (Quenouille 1956, Tukey 1958: se^2 = (n - 1)/n sum (t_(i) - t_(.))^2),
# with Student's t on n - 1 degrees of freedom; an item's leave-one-out
# value depends only on its (human, judge) pair, so each distinct pair is
# left out once and weighted by its count.

_AGREEMENT_MOST = 20    # distinct scores past which no agreement is audited


def _kappa(x, y, weights=None):
    """Return Cohen's kappa of paired scores *x* and *y*, unweighted (the
    scores as categories) or with "linear" or "quadratic" disagreement
    weights on their values:
        kappa = 1 - mean d(x_i, y_i) / mean over all a, b of d(x_a, y_b),
    d(x, y) = [x != y], |x - y| or (x - y)^2 (Cohen 1968); None where
    chance alone disagrees not at all.

    >>> _kappa([0, 1, 2, 2], [0, 2, 2, 1])      # 1 - (2/4) / (10/16)
    Fraction(1, 5)
    >>> _kappa([0, 1, 2, 2], [0, 2, 2, 1], "quadratic")  # 1 - (2/4)/(22/16)
    Fraction(7, 11)
    """
    return _kappa_of(_pairs(x, y), weights)


def _pairs(x, y):
    """Return the Counter of the (x, y) pairs, as Fractions."""
    return collections.Counter((Fraction(a), Fraction(b))
                               for a, b in zip(x, y))


def _kappa_of(pairs, weights=None):
    """Return _kappa of a Counter of (x, y) pairs."""
    d = {None: lambda a, b: int(a != b), "linear": lambda a, b: abs(a - b),
         "quadratic": lambda a, b: (a - b) ** 2}[weights]
    n, one = sum(pairs.values()), _unit_of(pairs)
    xs, ys = collections.Counter(), collections.Counter()
    for (a, b), c in pairs.items():
        xs[a] += c
        ys[b] += c
    observed = sum(c * d(a, b) for (a, b), c in pairs.items())
    chance = sum(ca * cb * d(a, b) for a, ca in xs.items()
                 for b, cb in ys.items())
    if not chance:
        return None
    return 1 - one * observed * n / chance


def _unit_of(pairs):
    """Return 1 in the type of the keys' values (Fraction: exact; float:
    the jackknife's fast leave-one-out values)."""
    return type(next(iter(pairs))[0])(1)


def _alpha(units, metric="interval"):
    """Return Krippendorff's alpha of *units*, each a list of the values
    its coders gave (None where one gave none; units with fewer than two
    values are not pairable and left out), with the "nominal", "ordinal"
    or "interval" difference (Krippendorff 2011):
        o_ck = sum over units of (pairs c-k in u) / (m_u - 1),
        alpha = 1 - (N - 1) sum o_ck d_ck / sum n_c n_k d_ck,
    d_ck = [c != k], (c - k)^2, or for ordinal values (sum of n_g for g
    from c to k - (n_c + n_k) / 2)^2; None where every value is one.

    >>> _alpha([[1, 1], [1, 0], [0, 0]], "nominal")   # 1 - 5 * 2 / 18
    Fraction(4, 9)
    """
    same = collections.Counter(
        tuple(sorted(Fraction(v) for v in unit if v is not None))
        for unit in units)
    return _alpha_of(same, metric)


def _alpha_of(units, metric):
    """Return _alpha of a Counter of units (sorted tuples of values)."""
    coincide = collections.Counter()
    for values, times in units.items():
        m = len(values)
        if m < 2:
            continue
        for i, c in enumerate(values):
            for j, k in enumerate(values):
                if i != j:
                    coincide[c, k] += type(c)(times) / (m - 1)
    counts = collections.Counter()
    for (c, _), o in coincide.items():
        counts[c] += o
    total = sum(counts.values())
    order = sorted(counts)
    if metric == "ordinal":
        place = {c: k for k, c in enumerate(order)}
        cumulative = [0 * order[0]]
        for c in order:
            cumulative.append(cumulative[-1] + counts[c])

        def d(c, k):
            lo, hi = sorted((place[c], place[k]))
            return (cumulative[hi + 1] - cumulative[lo]
                    - (counts[c] + counts[k]) / 2) ** 2
    elif metric == "nominal":
        def d(c, k):
            return int(c != k)
    else:
        def d(c, k):
            return (c - k) ** 2
    expected = sum(counts[c] * counts[k] * d(c, k) for c in order
                   for k in order)
    if not expected:
        return None
    observed = sum(o * d(c, k) for (c, k), o in coincide.items())
    return 1 - (total - 1) * observed / expected


def _ac1(x, y):
    """Return Gwet's AC1 of paired scores *x* and *y* taken as
    categories (Gwet 2008):
        AC1 = (p_a - p_e) / (1 - p_e),
        p_e = sum over the q categories of pi_k (1 - pi_k) / (q - 1),
    pi_k the share of all 2n scores in category k; None with one category.

    >>> _ac1([1, 1, 1, 0], [1, 1, 0, 0])   # p_a 3/4, p_e 2 (5/8)(3/8)
    Fraction(9, 17)
    """
    return _ac1_of(_pairs(x, y))


def _ac1_of(pairs):
    """Return _ac1 of a Counter of (x, y) pairs."""
    n = sum(pairs.values())
    shares = collections.Counter()
    for (a, b), c in pairs.items():
        shares[a] += c
        shares[b] += c
    q = len(shares)
    if q < 2:
        return None
    one = _unit_of(pairs)
    agree = one * sum(c for (a, b), c in pairs.items() if a == b) / n
    chance = sum(one * c / (2 * n) * (1 - one * c / (2 * n))
                 for c in shares.values()) / (q - 1)
    return (agree - chance) / (1 - chance)


class _Statistic(NamedTuple):
    """An agreement statistic of the judge with the humans."""
    name: str
    value: float
    ci: object               # its jackknife Interval, or None


def _agreement_audit(items, confidence=CONFIDENCE):
    """Return the _Statistics of the judge against the humans on *items*,
    each a tuple of the (human, judge) score pairs of its labelled answers
    (one per system): Cohen's kappa, and where the scores are more than
    two, the linear and quadratic weighted kappas; Krippendorff's alpha
    (nominal for two values, else ordinal and interval); Gwet's AC1 where
    they are two; each with its jackknife interval over the items, an
    item's answers left out together (see the block comment above).  ()
    where the scores take more than _AGREEMENT_MOST values (not a scale of
    categories) or there are fewer than three items.

    >>> [(s.name, round(s.value, 4)) for s in _agreement_audit(
    ...     [((1, 1),), ((0, 0),), ((1, 0),), ((0, 0), (1, 1))])[:1]]
    [("Cohen's kappa", 0.6154)]
    """
    items = collections.Counter(tuple((Fraction(h), Fraction(j))
                                      for h, j in item) for item in items)
    pairs = collections.Counter()
    for item, count in items.items():
        for pair in item:
            pairs[pair] += count
    values = {a for a, _ in pairs} | {b for _, b in pairs}
    if sum(items.values()) < 3 or not 2 <= len(values) <= _AGREEMENT_MOST:
        return ()
    binary = len(values) == 2

    def alpha(metric):
        return lambda p: _alpha_of(_units_of_pairs(p), metric)
    stats = [("Cohen's kappa", _kappa_of)]
    if not binary:
        stats += [("linear kappa", lambda p: _kappa_of(p, "linear")),
                  ("quadratic kappa", lambda p: _kappa_of(p, "quadratic"))]
    for metric in (("nominal",) if binary else ("ordinal", "interval")):
        stats.append((f"Krippendorff's alpha ({metric})", alpha(metric)))
    if binary:
        stats.append(("Gwet's AC1", _ac1_of))
    out = []
    for name, stat in stats:
        value = stat(pairs)
        if value is not None:
            out.append(_Statistic(name, float(value),
                                  _jackknife(stat, items, confidence)))
    return tuple(out)


def _units_of_pairs(pairs):
    """Return the Counter of units (sorted value pairs) of a Counter of
    (x, y) pairs."""
    units = collections.Counter()
    for (a, b), c in pairs.items():
        units[tuple(sorted((a, b)))] += c
    return units


def _jackknife(stat, items, confidence=CONFIDENCE):
    """Return the jackknife's Student t Interval of stat(pairs) over the
    n items the Counter *items* holds (each a tuple of (human, judge)
    pairs), *pairs* the Counter of all their pairs: each distinct item
    left out once, its value weighted by its count; None where a
    leave-one-out value is undefined."""
    n = sum(items.values())
    pairs = collections.Counter()
    for item, count in items.items():
        for h, j in item:
            pairs[float(h), float(j)] += count
    full = stat(pairs)
    leave = []
    for key, count in items.items():
        less = collections.Counter(pairs)
        for h, j in key:
            less[float(h), float(j)] -= 1
        value = stat(+less)
        if value is None:
            return None
        leave.append((float(value), count))
    mean = math.fsum(v * c for v, c in leave) / n
    se = math.sqrt((n - 1) / n * math.fsum(c * (v - mean) ** 2
                                           for v, c in leave))
    half = _student_t_upper(float((1 - _exact(confidence)) / 2), n - 1) * se
    return Interval(float(full) - half, float(full) + half)


class _JudgeCheck(NamedTuple):
    """What the human labels say of the judge on one metric: the
    corrected figures, and beside them the judge's alone, the humans'
    alone, the judge's bias and agreement, and whether the labelled items
    look like the rest."""
    a: _Corrected            # each system's corrected mean
    b: _Corrected
    gap: _Corrected          # the candidate's minus the baseline's
    judged: object           # the _MetricResult of the judge's scores alone
    human: object            # ... of the items labelled for both, alone
    bias: tuple              # (mean, Interval) of judge - human: A, B, B - A
    agreement: tuple         # an _Agreement per system, or () (not 0/1)
    drift: object            # z of the labelled items' judge mean against
                             # the others', where it is past 3.29; else None
    needed: object = None    # labels that would detect the gap seen
                             # (_labels_needed), None: more than the items
    covariate: object = None  # _Covariate (--judge-covariate), or None
    audit: tuple = ()        # _Statistics of agreement (_agreement_audit)
    strata: tuple = ()       # --strata: (field, (_Stratum, ...)), or ()


class _Stratum(NamedTuple):
    """One stratum of a stratified correction (_corrected_strata)."""
    label: object            # the stratum field's value
    items: int               # N_k, the stratum's items
    labels: int              # n_k, those a human labelled (for both)
    share: Fraction          # w_k = N_k / N, its weight
    gap: _Corrected          # its corrected gap, on its items alone


class _CorrectedRatings(NamedTuple):
    """Bradley-Terry log-strengths corrected by human verdicts on some of
    the battles (_ppi_bradley_terry): system 0 held at 0."""
    theta: list              # each system's log-strength, theta[0] = 0
    cov: list                # their covariance (row and column 0 zero)
    weight: float            # PPI++'s lam in [0, 1]
    labels: int              # battles a human judged
    unlabelled: int          # battles the judge alone judged


class _CorrectedTable(NamedTuple):
    """rank --human's corrected ratings on the Elo scale, system by
    system in the ranking's order."""
    ratings: list            # centred at 1000, or --anchor's
    cis: list                # each on its own, or all at once (joint)
    rank_sets: list          # Interval of ranks, all holding at once
    top: list                # True for the systems in the top group
    joint: bool              # whether the cis hold all at once
    draws: int               # draws of the fit's normal law behind them


def _corrected_table(found, names, options, rng):
    """Return the _CorrectedTable of _CorrectedRatings: each rating on the
    Elo scale, centred at 1000 or with options.anchor (name, rating)
    fixed; its interval normal on its own variance, or with
    options.joint_intervals the max-t ones that hold together; the rank
    sets that hold together and the top group.  Those come from
    options.resamples draws of the log-strengths' normal law (the PPI++
    sandwich its covariance; a parametric bootstrap), read by the rank
    section's _joint_intervals, _joint_rank_sets and _rank_summary as
    they read a joint bootstrap's rows."""
    size, theta, cov = len(names), found.theta, found.cov
    if options.anchor:
        at = names.index(options.anchor[0])
        weights, base = [float(k == at) for k in range(size)], \
            options.anchor[1]
    else:
        weights, base = [1 / size] * size, 1000.0

    def scaled(t):
        ref = math.fsum(w * x for w, x in zip(weights, t))
        return [base + _ELO * (x - ref) for x in t]
    ratings = scaled(theta)
    factor = _cholesky(cov)
    drawn = [scaled([t + math.fsum(map(mul, row, z))
                     for t, row in zip(theta, factor)])
             for z in ([rng.gauss(0.0, 1.0) for _ in range(size)]
                       for _ in range(options.resamples))]
    confidence = options.confidence
    if options.joint_intervals:
        cis = _joint_intervals(ratings, drawn, confidence)
    else:
        cw = [math.fsum(c * w for c, w in zip(row, weights)) for row in cov]
        wcw = math.fsum(w * v for w, v in zip(weights, cw))
        z = _upper_z(float((1 - _exact(confidence)) / 2))
        cis = []
        for k, rating in enumerate(ratings):
            sd = _ELO * math.sqrt(max(0.0, cov[k][k] - 2 * cw[k] + wcw))
            cis.append(Interval(rating - z * sd, rating + z * sd))
    _, sets, _, top = _rank_summary(ratings, drawn, confidence=confidence,
                                    alpha=options.alpha)
    return _CorrectedTable(ratings, cis, sets, top,
                           bool(options.joint_intervals), len(drawn))


def _ppi_bradley_terry(size, judged, labelled, clusters=None):
    """Return the _CorrectedRatings of *size* systems from the battles the
    judge alone judged, *judged* [(i, j, j's share)], and those a human
    judged too, *labelled* [(i, j, j's share by the human, by the judge)].
    With *clusters*, (the labelled battles' questions, the judged's), the
    covariance is clustered by question (as _ppi_clustered clusters a
    mean's): H^-1 (G / (G - 1) sum psi_g psi_g') H^-1, psi_g the sum over
    g's battles of the centred scores, 1/n (g_i - lam h_i) labelled and
    lam/N u_i judged alone; with one battle a question it is the
    sandwich below with the variances over their counts, times G / (G -
    1).

    Prediction-powered inference for an M-estimator (Angelopoulos, Duchi
    and Zrnic 2023, PPI++, section 4): the Bradley-Terry log-likelihood is
    a logistic regression of j's share on x = e_j - e_i, so the corrected
    fit minimises lam/N sum_unlabelled l(f) + 1/n sum_labelled (l(y) -
    lam l(f)), l the logistic loss; that is a Bradley-Terry fit with
    weights lam/N and (1 - lam)/n and shares moved by the human's (_bt_fit,
    Newton's method), so it stays concave for lam in [0, 1].  lam is
    tuned to the least total variance and the covariance is the sandwich
    H^-1 (V_lab + n/N lam^2 V_unl) H^-1 / n, every step as ppi-python's
    ppi_logistic_ci takes it (tests/test_judged.py holds them equal):
    fitted at lam = 1, lam tuned there, fitted again, lam tuned again, and
    the last fit and its covariance at that lam.  Ratings of systems no
    battle links are not identified; the caller checks the battles first.
    """
    n, big_n = len(labelled), len(judged)
    if n < 2 or not big_n:
        raise EvalDeltaError(f"{_items(n, 'battle')} judged by a human and "
                             f"{big_n} by the judge alone: the correction "
                             f"needs two of the first and one of the second")

    def fit(lam):
        pairs = [(i, j, lam / big_n, lam * f / big_n) for i, j, f in judged]
        pairs += [(i, j, (1 - lam) / n, (y - lam * f) / n)
                  for i, j, y, f in labelled]
        theta = _bt_fit(size, pairs, tol=1e-13)
        return [t - theta[0] for t in theta]

    def stats(theta, lam):
        free = size - 1               # the coordinates 1..size-1

        def x(i, j):
            row = [0.0] * free
            if j:
                row[j - 1] += 1.0
            if i:
                row[i - 1] -= 1.0
            return row

        def mu(i, j):
            return 1 / (1 + math.exp(theta[i] - theta[j]))
        hess = [[0.0] * free for _ in range(free)]
        used = judged if lam else []
        scale = big_n + n if lam else n
        for i, j, *_ in list(used) + list(labelled):
            v, row = mu(i, j) * (1 - mu(i, j)), x(i, j)
            for a in range(free):
                for b in range(free):
                    hess[a][b] += v * row[a] * row[b] / scale
        grads = [[(mu(i, j) - y) * c for c in x(i, j)]
                 for i, j, y, _ in labelled]
        hats = [[(mu(i, j) - f) * c for c in x(i, j)]
                for i, j, _, f in labelled]
        unl = [[(mu(i, j) - f) * c for c in x(i, j)] for i, j, f in judged]
        return grads, hats, unl, _inverse(hess)

    def tuned(theta):
        grads, hats, unl, inv = stats(theta, 1.0)
        g, h = _centred(grads), _centred(hats)
        cross = [[(sum(a[r] * b[c] for a, b in zip(g, h))
                   + sum(b[r] * a[c] for a, b in zip(g, h))) / n
                  for c in range(size - 1)] for r in range(size - 1)]
        spread = _covariance(hats + unl)
        num = _trace_sandwich(inv, cross)
        den = 2 * (1 + n / big_n) * _trace_sandwich(inv, spread)
        return min(1.0, max(0.0, num / den)) if den else 0.0

    lam = tuned(fit(1.0))
    lam = tuned(fit(lam))
    theta = fit(lam)
    grads, hats, unl, inv = stats(theta, lam)
    rectified = [[u - lam * v for u, v in zip(g, h)]
                 for g, h in zip(grads, hats)]
    if clusters is None:
        middle = [[(a + n / big_n * b) / n for a, b in zip(ra, rb)]
                  for ra, rb in zip(_covariance(rectified), _covariance(
                      [[lam * u for u in row] for row in unl]))]
    else:
        psi = {}
        for rows, labels, scale in ((_centred(rectified), clusters[0],
                                     1 / n),
                                    (_centred(unl), clusters[1],
                                     lam / big_n)):
            for row, g in zip(rows, labels):
                total = psi.setdefault(g, [0.0] * (size - 1))
                for c, x in enumerate(row):
                    total[c] += scale * x
        groups = len(psi)
        if groups < 2:
            raise EvalDeltaError("every battle is of one question: a "
                                 "clustered covariance needs two at least")
        middle = [[groups / (groups - 1) * math.fsum(
            p[r] * p[c] for p in psi.values()) for c in range(size - 1)]
            for r in range(size - 1)]
    sandwich = _mat_mul(_mat_mul(inv, middle), inv)
    cov = [[0.0] * size] + [[0.0] + row for row in sandwich]
    return _CorrectedRatings(theta, cov, lam, n, big_n)


def _centred(rows):
    """Return the rows less their column means."""
    means = [math.fsum(column) / len(rows) for column in zip(*rows)]
    return [[v - m for v, m in zip(row, means)] for row in rows]


def _covariance(rows):
    """Return the covariance matrix of the rows' columns (n - 1, as
    numpy's cov)."""
    centred = _centred(rows)
    width = len(rows[0])
    return [[math.fsum(r[a] * r[b] for r in centred) / (len(rows) - 1)
             for b in range(width)] for a in range(width)]


def _mat_mul(a, b):
    """Return the matrix product a b."""
    return [[math.fsum(x * y for x, y in zip(row, column))
             for column in zip(*b)] for row in a]


def _trace_sandwich(inv, middle):
    """Return trace(inv middle inv)."""
    return sum(_mat_mul(_mat_mul(inv, middle), inv)[k][k]
               for k in range(len(inv)))


def _inverse(matrix):
    """Return the inverse of a square matrix (by _solve, column by
    column); EvalDeltaError where it is singular."""
    size = len(matrix)
    columns = [_solve(matrix, [float(r == c) for r in range(size)])
               for c in range(size)]
    if any(c is None for c in columns):
        raise EvalDeltaError("the battles do not link every system: the "
                             "ratings are not identified")
    return [list(row) for row in zip(*columns)]


class _Covariate(NamedTuple):
    """How the judge's error moves with a covariate of the answers (their
    length), and how far the two systems differ on it."""
    name: str
    slope: float             # judge minus human per unit of the covariate
    ci: object               # its Interval, or None (too few items)
    sd: float                # the covariate's SD over the labelled answers
    answers: int             # the labelled answers, both systems'
    gap: float               # the candidate's covariate less the baseline's
    gap_ci: object           # its paired t Interval over every item
    implied: float           # slope * gap: the judge's bias on the gap
                             # that goes with the covariate


def _covariate_check(judge, human, covariate, name, confidence=CONFIDENCE,
                     clusters=None):
    """Return the _Covariate of _Columns of the judge's scores, the
    human's (NaN where unlabelled) and a covariate of each answer, or None
    where the labelled answers' covariate does not vary.

    The judge's error e = judge - human on every labelled answer of both
    systems is regressed on the covariate x by least squares; the slope's
    interval is Student's t on n_items - 1 degrees of freedom with the
    standard error clustered by item (the two systems' answers to one
    item may err together; Liang and Zeger 1986, with the CR1 factor), or
    by each item's cluster where *clusters* name them, so it holds for
    errors whose spread moves with x too.  The systems'
    difference on x is the paired t over every item, and slope x that
    difference is the part of the judge's gap the covariate predicts.

    >>> from array import array
    >>> j = _Columns(array("d", [1, 1, 0, 1]), array("d", [1, 1, 1, 1]))
    >>> h = _Columns(array("d", [1, 0, 0, 1]), array("d", [1, 0, 0, 1]))
    >>> x = _Columns(array("d", [1, 5, 2, 1]), array("d", [2, 6, 5, 2]))
    >>> c = _covariate_check(j, h, x, "length")
    >>> c.slope, c.answers, c.gap, c.implied     # as statistics.linear_regression
    (0.25, 8, 1.5, 0.375)
    """
    rows = []
    for k in (0, 1):
        for i, (f, y, x) in enumerate(zip(judge[k], human[k],
                                          covariate[k])):
            if y == y:
                rows.append((i, x, f - y))
    n = len(rows)
    mean_x = math.fsum(x for _, x, _ in rows) / n if n else 0.0
    sxx = math.fsum((x - mean_x) ** 2 for _, x, _ in rows)
    if n < 3 or not sxx > 0:
        return None
    mean_e = math.fsum(e for _, _, e in rows) / n
    slope = math.fsum((x - mean_x) * (e - mean_e) for _, x, e in rows) / sxx
    scores = collections.defaultdict(float)
    for i, x, e in rows:
        scores[i if clusters is None else clusters[i]] += (
            (x - mean_x) * (e - mean_e - slope * (x - mean_x)))
    groups = len(scores)
    ci = None
    if groups > 1:
        factor = groups / (groups - 1) * (n - 1) / (n - 2)
        se = math.sqrt(factor * math.fsum(v * v for v in scores.values())
                       ) / sxx
        half = _student_t_upper(float((1 - _exact(confidence)) / 2),
                                groups - 1) * se
        ci = Interval(slope - half, slope + half)
    gap, gap_ci = _mean_interval([b - a for a, b in zip(covariate.a,
                                                        covariate.b)],
                                 confidence, clusters)
    return _Covariate(name, slope, ci, math.sqrt(sxx / (n - 1)), n, gap,
                      gap_ci, slope * gap)


def _labelled(judge, human):
    """Return (y, f, f of the unlabelled) of aligned judge scores and human
    scores (NaN where the human gave none)."""
    y, f, rest = [], [], []
    for j, h in zip(judge, human):
        if h == h:
            y.append(h)
            f.append(j)
        else:
            rest.append(j)
    return y, f, rest


def _judge_check(judge, human, confidence=CONFIDENCE, clusters=None):
    """Return (the _JudgeCheck's corrected part: a, b, gap, bias,
    agreement, drift) of one metric from _Columns of the judge's scores
    and of the human's (NaN where unlabelled); the items labelled for
    both give the gap, the bias on it, its rectifier and the one weight
    that corrects each system's mean too (so b - a is the gap; where the
    systems' labelled items differ, the gap is that difference, with
    _ppi_difference's standard error).  With each item's cluster
    (*clusters*), the standard errors are clustered (_ppi_clustered)."""
    corrected, bias, agreement, drift = [], [], [], None

    def ppi(y, f, rest, labelled, tuned=None):
        if clusters is None:
            return _ppi_mean(y, f, rest, confidence, tuned)
        return _ppi_clustered(y, f, rest,
                              [clusters[k] for k in sorted(labelled)],
                              [g for k, g in enumerate(clusters)
                               if k not in labelled], confidence, tuned)
    both = [k for k, (x, y) in enumerate(zip(human.a, human.b))
            if x == x and y == y]
    ours = set(both)
    d = [judge.b[k] - judge.a[k] for k in range(len(judge.a))]
    dy = [human.b[k] - human.a[k] for k in both]
    gap = ppi(dy, [d[k] for k in both],
              [x for k, x in enumerate(d) if k not in ours], ours)
    sets = []
    for j, h in ((judge.a, human.a), (judge.b, human.b)):
        y, f, rest = _labelled(j, h)
        labelled = {k for k, x in enumerate(h) if x == x}
        sets.append(labelled)
        corrected.append(ppi(y, f, rest, labelled, gap))
        bias.append(_mean_interval(
            [x - v for x, v in zip(f, y)], confidence,
            clusters and [clusters[k] for k in sorted(labelled)]))
        if set(y) <= {0.0, 1.0} and set(f) <= {0.0, 1.0}:
            agreement.append(_agreement(y, f))
        z = corrected[-1].drift
        if clusters is None and rest and len(f) > 1 and len(rest) > 1:
            se = math.sqrt(_variance(f, 1) / len(f)
                           + _variance(rest, 1) / len(rest))
            z = (math.fsum(f) / len(f) - math.fsum(rest) / len(rest)) / se \
                if se else 0.0
        if z is not None and abs(z) > 3.29 and (drift is None
                                                or abs(z) > abs(drift)):
            drift = z
    estimate = corrected[1].estimate - corrected[0].estimate
    if sets[0] == sets[1]:
        ci, p = _normal_or_t(estimate, gap.se, gap.df, confidence)
        gap = gap._replace(estimate=estimate, ci=ci, p=p)
    else:
        gap = _ppi_difference(judge, human, gap, estimate, confidence,
                              clusters)
    bias.append(_mean_interval([d[k] - v for k, v in zip(both, dy)],
                               confidence,
                               clusters and [clusters[k] for k in both]))
    return corrected, gap, bias, agreement if len(agreement) == 2 else (), \
        drift


def _ppi_difference(judge, human, paired, estimate, confidence=CONFIDENCE,
                    clusters=None):
    """Return the _Corrected gap b - a of two systems whose labelled items
    differ, each mean corrected at the weight lam of *paired* (the gap's
    on the items labelled for both) and *estimate* their difference.  Its
    variance is the sum over items (or, with *clusters*, over clusters,
    times G / (G - 1)) of the squared influence of each on b - a,
        phi_k = i_b(k) - i_a(k),  i_s(k) = (r_sk - mean r_s) / n_s where
        s's human labelled k (r = y - lam f), else lam (f_sk - mean of
        s's unlabelled f) / N_s,
    which with the same items labelled for both is _ppi_mean's normal
    variance of the per-item differences.  Below _PPI_CLT_LEAST labels on
    either side (or influences' _moment_df) the variance counts the
    weight's too (as _ppi_mean's: the
    two systems' shifts of the judge mean, labelled less unlabelled, their
    difference squared times var(lam)) and the interval is Student's t on
    the labelled items' influences' _moment_df."""
    lam = paired.weight
    phi = collections.defaultdict(float)
    labelled, shift = [], 0.0
    for sign, j, h in ((-1.0, judge.a, human.a), (1.0, judge.b, human.b)):
        y, f, rest = _labelled(j, h)
        mean_r = math.fsum(a - lam * b for a, b in zip(y, f)) / len(y)
        mean_u = math.fsum(rest) / len(rest) if rest else 0.0
        shift += sign * (math.fsum(f) / len(f) - mean_u)
        labelled.append(len(y))
        for k, (x, v) in enumerate(zip(j, h)):
            g = k if clusters is None else clusters[k]
            phi[g] += sign * ((v - lam * x - mean_r) / len(y) if v == v
                              else lam * (x - mean_u) / len(rest))
    factor = 1.0 if clusters is None else len(phi) / max(len(phi) - 1, 1)
    variance = factor * math.fsum(v * v for v in phi.values())
    marked = {k if clusters is None else clusters[k]
              for k, (x, v) in enumerate(zip(human.a, human.b))
              if x == x or v == v}
    df = _moment_df([phi[g] for g in marked])
    small = min(labelled) < _PPI_CLT_LEAST or df < _PPI_CLT_LEAST
    se = math.sqrt(variance + (shift * shift * paired.weight_var
                               if small else 0.0))
    df = df if small else None
    ci, p = _normal_or_t(estimate, se, df, confidence)
    return paired._replace(estimate=estimate, ci=ci, p=p, se=se, df=df,
                           labels=max(labelled))


def _corrected_result(metric, kind, corrected, gap, items):
    """Return the _MetricResult of the corrected figures of *items* items
    (each system's _Corrected and the gap's, of _judge_check), so that
    Holm's adjustment, the verdict and --fail-on judge it as any other."""
    a, b = corrected
    normal = gap.df is None
    test = "PPI++ z" if normal else "PPI++ t"
    how = ("PPI++ (normal)" if normal
           else f"PPI++ (t, {_df_words(round(gap.df, 1))})")
    return _MetricResult(
        metric.name, kind, metric.direction, items, a.estimate,
        b.estimate, gap.estimate, a.ci, b.ci, gap.ci, None, test, gap.p,
        None, None, None, gap.se, gap.clusters, None, "prediction-powered",
        how, gap.df)


## Anytime-valid comparison ###################################################

# Doors (called from other sections): _sequential_binary, _sequential_bounded.

# Looking at a fixed-sample interval after every item and stopping once it
# excludes zero turns a 5% false-positive rate into several times that.
# A confidence sequence holds at every look at once: each is built from a
# nonnegative supermartingale that starts at 1, which by Ville's (1939)
# inequality ever reaches 1/alpha with chance at most alpha.
#   Binary metrics: only the discordant pairs carry the difference.  With
#   s of k discordant pairs favouring the candidate, the Beta(1/2, 1/2)
#   mixture of likelihood ratios M_k(p) = B(1/2 + s, 1/2 + k - s) / B(1/2,
#   1/2) / (p^s (1 - p)^(k - s)) is a test martingale of "each discordant
#   pair favours the candidate with chance p" (Robbins 1970's mixture; the
#   beta-binomial one, whatever the order of the items).  The difference
#   is zero exactly where p = 1/2, so M_k(1/2) alone is the test, at the
#   full alpha: the eval stops once it reaches 1/alpha, and the anytime
#   p-value is 1 / max_k M_k(1/2).  The interval needs the discordance q
#   too: {p: M_k(p) < 2/alpha} holds p at every look with chance
#   1 - alpha/2, the same mixture over all items holds q with 1 - alpha/2,
#   and the box bounds the difference q (2p - 1) with 1 - alpha (so just
#   after the test stops, the box can still reach zero).  The sequence reported is the
#   intersection of the boxes at the looks (items 1, 2, 4, ..., every
#   n/32-th, the first exclusion of zero and the last): an intersection
#   of intervals that all hold at once holds too, and a zero once excluded
#   stays excluded.
#   Bounded continuous metrics (values in [lo, hi]): a paired difference
#   lies in [lo - hi, hi - lo]; rescaled to x in [0, 1], its mean m is
#   tested by betting (Waudby-Smith and Ramdas 2024, JRSS-B 86:1-27,
#   "Estimating means of bounded random variables by betting").  Two
#   gamblers start with capital 1; at item t one stakes lambda_t of it on
#   x > m, the other on x < m: K+_t(m) = prod (1 + lambda+_i (x_i - m)),
#   K-_t(m) = prod (1 - lambda-_i (x_i - m)), each a nonnegative
#   martingale if the mean is m, whatever the bets, as long as each bet is
#   fixed before its item is seen.  The bets are their predictable plug-in
#   ones, lambda_t = sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t))) with
#   s2 a running variance (their eqs. 26-27), at most 1/2 / m (or
#   1/2 / (1 - m)) so that no stake can lose everything.  A bet sized by
#   the variance seen is what lets the sequence shrink at the rate of the
#   data's spread, not the range's.  The hedged capital max(K+, K-) / 2
#   reaches 1/alpha with chance at most alpha (Ville), so the eval stops
#   when it does at m = the zero difference, the anytime p-value is 1 /
#   its largest value, and the sequence at the last item is {m: K+(m) <
#   2/alpha and K-(m) < 2/alpha}: an interval, since K+ falls and K- rises
#   with m, whose ends are found by bisection.

class _Sequential(NamedTuple):
    """An anytime-valid comparison of two systems, items in file order."""
    method: str
    ci: Interval             # the confidence sequence at the last item
    stopped_at: object       # the first item at which its test rejected
                             # no difference (the sequence is at alpha/2 a
                             # side, so it may still take in zero there)
    direction: object        # "better" or "worse" there, or None
    p: Fraction              # anytime-valid p-value: valid however often
    n_items: int             # one looked
    unit: str = "item"       # what stopped_at and n_items count


def _log_beta(a, b):
    """Return log B(a, b)."""
    return math.lgamma(a) + math.lgamma(b) - math.lgamma(a + b)


def _mixture_bounds(hits, n, level):
    """Return the interval {p: M_n(p) < level} of the Beta(1/2, 1/2)
    mixture of hits in n Bernoulli(p) trials, by bisection."""
    if not n:
        return 0.0, 1.0
    mixed = _log_beta(0.5 + hits, 0.5 + n - hits) - _log_beta(0.5, 0.5)
    bound = math.log(level)

    def over(p):                    # log M_n(p) >= log level
        if p <= 0 or p >= 1:
            return True
        return mixed - hits * math.log(p) - (n - hits) * math.log1p(-p) \
            >= bound
    centre = hits / n
    ends = []
    for inside, outside in ((centre, 0.0), (centre, 1.0)):
        if not over(outside) or (outside == 0.0 and hits == 0) or (
                outside == 1.0 and hits == n):
            ends.append(outside)
            continue
        for _ in range(52):
            middle = (inside + outside) / 2
            if over(middle):
                outside = middle
            else:
                inside = middle
        ends.append(outside)
    return ends[0], ends[1]


def _sequential_binary(a, b, *, alpha=0.05, direction="higher"):
    """Return the _Sequential of paired 0/1 values a, b in the order run.

    >>> s = _sequential_binary([0] * 200, [1] * 60 + [0] * 140)
    >>> s.stopped_at, s.direction, s.p < 0.05
    (7, 'better', True)
    """
    level = 2 / alpha                   # the interval's: alpha/2 a side
    log_level = math.log(1 / alpha)     # the test's: the full alpha
    log2 = math.log(2)
    n = len(a)
    every = max(1, n // 32)
    looks = []                          # (s, k, t) where the box is taken
    s = k = 0
    log_m, best, stopped, way = 0.0, 0.0, None, None
    for t, (x, y) in enumerate(zip(a, b), 1):
        if x != y:
            up = y > x
            log_m += math.log(((0.5 + s) if up else (0.5 + k - s))
                              / (1 + k)) + log2
            s += up
            k += 1
            if log_m > best:
                best = log_m
                if stopped is None and best >= log_level:
                    stopped = t
                    way = (2 * s > k) == (direction == "higher")
                    looks.append((s, k, t))
        if t % every == 0 or not t & (t - 1):
            looks.append((s, k, t))
    looks.append((s, k, n))

    def box(s, k, t):
        p_lo, p_hi = _mixture_bounds(s, k, level)
        q_lo, q_hi = _mixture_bounds(k, t, level)
        lo, hi = 2 * p_lo - 1, 2 * p_hi - 1
        return (q_hi * lo if lo < 0 else q_lo * lo,
                q_hi * hi if hi > 0 else q_lo * hi)
    boxes = [box(*look) for look in looks]
    lo, hi = max(x for x, _ in boxes), min(y for _, y in boxes)
    ci = Interval(lo, hi) if lo <= hi else Interval(*boxes[-1])
    return _Sequential(
        "beta-binomial mixture of the discordant pairs, tested at alpha; the "
        "interval with the discordance's own sequence, alpha/2 each (Ville)",
        ci, stopped,
        None if stopped is None else ("better" if way else "worse"),
        min(Fraction(1), _from_log(-best)), n)


def _bets(xs, alpha):
    """Return the predictable plug-in bets of Waudby-Smith and Ramdas
    (2024, eqs. 26-27) for values xs in [0, 1]: bet t uses items before t
    only.  lambda_t = sqrt(2 log(2/alpha) / (s2_{t-1} t log(1 + t))) with
    s2_t = (1/4 + sum_{i<=t} (x_i - mu_i)^2) / (t + 1) and mu_t = (1/2 +
    sum_{i<=t} x_i) / (t + 1), running sums taken by accumulate.

    >>> [round(x, 4) for x in _bets([1.0, 0.0, 1.0], 0.05)]
    [6.525, 4.6357, 3.0759]
    """
    n = len(xs)
    means = map(truediv, map(add, itertools.accumulate(xs), repeat(0.5)),
                range(2, n + 2))
    squares = itertools.accumulate(map(pow, map(sub, xs, means), repeat(2)),
                                   initial=0.25)
    s2 = map(truediv, squares, range(1, n + 1))        # s2_{t-1}
    steps = range(1, n + 1)
    return list(map(math.sqrt, map(truediv, repeat(2 * math.log(2 / alpha)),
                                   map(mul, s2, map(mul, steps, map(
                                       math.log1p, steps))))))


_STAKE = 0.5        # the most of a gambler's capital at m one bet may risk


def _log_capital(xs, bets, m, side, head=None):
    """Return log K+_n(m) (side +1) or log K-_n(m) (side -1) at the last
    item: the gambler betting that the mean exceeds (is below) m.  Past
    *head* items no bet exceeds _STAKE, the least any cap can be, so the
    caps there are skipped (the same sum)."""
    cap = _STAKE / (m if side > 0 else 1 - m)
    head = len(xs) if head is None else head

    def gains(x, bet):
        return map(mul, bet, map(sub, x, repeat(m)) if side > 0 else
                   map(sub, repeat(m), x))
    return (sum(map(math.log1p, gains(itertools.islice(xs, head), map(
        min, itertools.islice(bets, head), repeat(cap)))))
        + sum(map(math.log1p, gains(itertools.islice(xs, head, None),
                                    itertools.islice(bets, head, None)))))


def _sequential_bounded(a, b, lo, hi, *, alpha=0.05, direction="higher"):
    """Return the _Sequential of paired values in [lo, hi], in the order run:
    the betting confidence sequence of the mean paired difference (see
    above).

    >>> s = _sequential_bounded([0.5] * 300, [0.6, 0.7, 0.65] * 100, 0, 1)
    >>> s.stopped_at, s.direction, s.ci.lo > 0
    (52, 'better', True)
    """
    n = len(a)
    if not n:
        raise EvalDeltaError("no items to compare")
    if not hi > lo:
        raise EvalDeltaError(f"--bounds {lo:g},{hi:g}: the upper bound "
                             f"must exceed the lower")
    width = hi - lo
    d = list(map(sub, b, a))
    if not -width <= min(d) <= max(d) <= width:
        t = next(t for t, x in enumerate(d, 1) if not -width <= x <= width)
        raise EvalDeltaError(f"item {t}: a value outside --bounds "
                             f"{lo:g},{hi:g}")
    xs = list(map(truediv, map(add, d, repeat(width)), repeat(2 * width)))
    del d                           # in [0, 1]: d + width <= 2 width
    bets = _bets(xs, alpha)
    # The test at m = 1/2 (no difference): each gambler's log capital after
    # every item, and the first item where the larger reaches 2/alpha.
    log_stop = math.log(2 / alpha)
    stakes = list(map(mul, map(min, bets, repeat(_STAKE / 0.5)),
                      map(sub, xs, repeat(0.5))))
    up = list(itertools.accumulate(map(math.log1p, stakes)))
    down = list(itertools.accumulate(map(math.log1p, map(neg, stakes))))
    del stakes
    best = max(0.0, max(up), max(down))
    stopped = next(itertools.compress(range(1, n + 1), map(
        ge, map(max, up, down), repeat(log_stop))), None)
    way = None if stopped is None else (
        (up[stopped - 1] > down[stopped - 1]) == (direction == "higher"))
    del up, down

    head = n - next(itertools.compress(range(n), map(
        lt, repeat(_STAKE), reversed(bets))), n)  # no bet past it capped
    centre = math.fsum(xs) / n
    spread = math.sqrt(_variance(xs, 0))

    def end(side):
        """The m where log K(side) crosses log(2/alpha).  K+ falls with m
        and K- rises, and near the far end each stakes almost nothing: from
        the mean (kept, as a rule), steps outward from a normal guess until
        rejected, then regula falsi with Illinois' halving (Dowell and
        Jarratt 1971) until the rejected side's capital is within 0.01% of
        2/alpha (or the bracket within 1e-9); the end returned is that
        rejected side, a shade wide."""
        def f(m):
            return _log_capital(xs, bets, m, side, head) - log_stop
        edge = 1e-12 if side > 0 else 1 - 1e-12
        kept = min(max(centre, 1e-12), 1 - 1e-12)
        f_k = f(kept)
        if f_k >= 0:                # the mean itself is rejected
            kept, f_k = 1 - edge, f(1 - edge)
        step = max(spread, 1e-6) * math.sqrt(2 * log_stop / n)
        while True:
            rejected = kept - side * step
            if side * (rejected - edge) <= 0:
                rejected = edge
            f_r = f(rejected)
            if f_r >= 0 or rejected == edge:
                break
            kept, f_k, step = rejected, f_r, 2 * step
        if f_r < 0:                 # never rejected: the whole range
            return 0.0 if side > 0 else 1.0
        last = 0
        for _ in range(200):
            if abs(rejected - kept) < 1e-9 or f_r < 1e-4:
                break
            m = rejected - f_r * (rejected - kept) / (f_r - f_k)
            if not min(rejected, kept) < m < max(rejected, kept):
                m = (rejected + kept) / 2
            f_m = f(m)
            if f_m >= 0:
                rejected, f_r = m, f_m
                if last == 1:
                    f_k /= 2
                last = 1
            else:
                kept, f_k = m, f_m
                if last == -1:
                    f_r /= 2
                last = -1
        return rejected
    m_lo, m_hi = end(+1), end(-1)
    if m_lo > m_hi:                 # crossed: a chance below alpha
        m_lo = m_hi = math.fsum(xs) / n
    return _Sequential(
        "betting confidence sequence of the bounded differences "
        "(Waudby-Smith and Ramdas 2024; Ville)",
        Interval(width * (2 * m_lo - 1), width * (2 * m_hi - 1)), stopped,
        None if stopped is None else ("better" if way else "worse"),
        min(Fraction(1), _from_log(math.log(2) - best)), n)


## Simulation: coverage and calibration #######################################

# Doors (called from other sections): _calibration, _continuous_calibration,
# _coverage_by_counts, _INTERVALS, _peeking, _sequential_stopping, _SHAPES.

# Peeking: the article's two systems with no true gap (B as good as A),
# looked at after every item.  The naive look is the fixed-sample paired
# interval (the mean difference +- z se, Wald's, which the percentile
# bootstrap tracks at these sizes) checked again at each item from the
# 20th (before that it is too rough for anyone to act on); the
# anytime-valid look is _sequential_binary's confidence sequence.  Both are
# counted the first time they exclude zero.

class _Peeking(NamedTuple):
    """How often each look has excluded zero by each item, over replays."""
    looks: list              # items seen
    naive: list              # replays whose fixed-sample interval had
    sequence: list           # ... and whose confidence sequence had
    replays: int
    n_items: int
    once: int = 0            # replays whose interval at the end alone did


class _Stopping(NamedTuple):
    """When compare --sequential stopped, over replays of a design."""
    stops: list              # the stopping item of each replay that did
    replays: int
    most: int                # items per replay: the rest never stopped
    fixed: object            # the fixed-sample items needed, for scale


def _sequential_stopping(rng, design, *, replays=REPLAYS, most, fixed=None,
                        alpha=0.05, progress=None):
    """Return the _Stopping of *replays* evals of the paired binary _Design
    (its cells drawn item by item), each run to *most* items and looked at
    after every one by _sequential_binary."""
    stops = []
    cut_a, cut_b = design.p10, design.p10 + design.p01
    for done in range(replays):
        a, b = [], []
        for _ in range(most):
            u = rng.random()
            a.append(1 if u < cut_a else 0)
            b.append(1 if cut_a <= u < cut_b else 0)
        stop = _sequential_binary(a, b, alpha=alpha).stopped_at
        if stop is not None:
            stops.append(stop)
        if progress:
            progress(done + 1)
    return _Stopping(sorted(stops), replays, most, fixed)


def _peeking(rng, *, replays=REPLAYS, n_items=N_ITEMS, corr=CORR,
            acc_a=ACC_A, alpha=0.05, progress=None):
    """Return the _Peeking of *replays* simulated evals with no true gap
    (both systems at accuracy acc_a), each looked at after every item."""
    z = statistics.NormalDist().inv_cdf(1 - alpha / 2)
    looks = sorted({max(1, n_items * k // 10) for k in range(1, 11)})
    naive, sequence = [0] * len(looks), [0] * len(looks)
    once = 0
    for done in range(replays):
        pairs = simulate(rng, n_items, corr=corr, acc_a=acc_a, acc_b=acc_a)
        first = None
        total = squares = 0
        for t, (a, b) in enumerate(pairs, 1):
            d = b - a
            total += d
            squares += d * d
            if t >= 20 and (first is None or t == n_items):
                var = (squares - total * total / t) / (t - 1)
                if var > 0 and abs(total / t) > z * math.sqrt(var / t):
                    first = t if first is None else first
                    once += t == n_items
        stop = _sequential_binary([a for a, _ in pairs],
                                 [b for _, b in pairs],
                                 alpha=alpha).stopped_at
        for k, look in enumerate(looks):
            naive[k] += first is not None and first <= look
            sequence[k] += stop is not None and stop <= look
        if progress:
            progress(done + 1)
    return _Peeking(looks, naive, sequence, replays, n_items, once)


def _coverage_by_counts(rng, *, replays=REPLAYS, n_items=N_ITEMS, corr=CORR,
                       acc_a=ACC_A, acc_b=ACC_B, confidence=CONFIDENCE,
                       progress=None):
    """coverage() at a cost that does not grow with n_items: each replay
    draws its eval's cells at once, the A-only and B-only counts as one
    multinomial of the design's cell probabilities (_copula_design: the
    same law as n simulated items), and takes the ideal bootstrap's
    percentile interval of the paired difference (B = infinity, by
    saddlepoint: _law_interval) in place of 2,000 resamples.  Not the
    article's random stream, so not its numbers; within Monte Carlo error
    of them (tests/test_simulation.py).

    >>> _coverage_by_counts(random.Random(5), replays=3, n_items=50)
    Coverage(replays=3, covered=2, excludes_zero=0, method='by counts')
    """
    design = _copula_design(acc_a, acc_b, corr)
    gap = _exact(acc_b) - _exact(acc_a)
    share = design.p01 / (1 - design.p10) if design.p10 < 1 else 0.0
    covered = excludes = 0
    for done in range(1, replays + 1):
        a_only = _binomial(rng, n_items, design.p10)
        b_only = _binomial(rng, n_items - a_only, share)
        lo, hi = _ideal_paired_interval(a_only, b_only, n_items, confidence)
        covered += lo <= gap <= hi
        excludes += lo > 0
        if progress:
            progress(done)
    return Coverage(replays, covered, excludes, "by counts")


def _ideal_paired_interval(a_only, b_only, n, confidence=CONFIDENCE):
    """Return the ideal bootstrap's percentile interval of the paired
    difference of two 0/1 systems on n items, a_only of them right for A
    alone and b_only for B alone (the rest count 0): the law of the mean
    of n draws from those differences, by saddlepoint (_SumLaw).

    >>> _ideal_paired_interval(67, 85, 500)      # the article's [-1.2, +8.4]
    Interval(lo=Fraction(-3, 250), hi=Fraction(21, 250))
    """
    if not a_only and not b_only:
        return Interval(Fraction(0), Fraction(0))
    part = _law_part(+collections.Counter(      # no empty cells
        {-1: a_only, 0: n - a_only - b_only, 1: b_only}))
    return _law_interval(_SumLaw([(part, 1)]), n, confidence)


def _replay_draws(rng, n, resamples, design, keeper=None):
    """Draw one replay: the latent values, then the bootstrap's words.

    For n < 2**16 the words are kept raw (see _draw_words) for
    _replay_bounds to map (in the helper, with two processes); larger n
    maps them here, to paired codes.  keeper(latent), if given, returns
    the keep function of _draw_words for this replay.
    """
    latent = _latent_draws(rng, n)
    if n < 1 << 16:
        return latent, _draw_words(rng, n, resamples * n,
                                  keeper and keeper(latent))
    codes = _paired_codes(_outcomes(latent, **design))
    return latent, _draw_codes(rng, n, resamples * n, codes)


def _paired_codes(pairs):
    """Return a byte per (a, b) pair of 0/1 outcomes, (b - a) mod 3: 0 for
    a tie, 1 where B alone is right, 2 where A alone is; two bits, one
    for each side, that _paired_deltas counts."""
    return bytes((b - a) % 3 for a, b in pairs)


def _paired_deltas(codes, n):
    """Return, for each block of n paired codes, B's wins minus A's.

    Each block becomes one integer (a C-level map over memoryview
    slices), whose set bits are the block's wins for either side and
    whose bits at each byte's lowest place are B's: the difference is
    2 * B's - both.  (bytes.count of a common byte branches on every
    byte; this does not.)
    """
    view, size = memoryview(codes), len(codes)
    blocks = list(map(int.from_bytes,
                      map(view.__getitem__, map(slice, range(0, size, n),
                                                range(n, size + 1, n))),
                      repeat("little")))
    b_wins = map(int.bit_count, map(and_, blocks, repeat(_ones(n))))
    return [2 * b - both for b, both in zip(b_wins, map(int.bit_count,
                                                         blocks))]


def _replay_deltas(latent, drawn, design):
    """Return one replay's pairs and its sorted paired deltas (times n)."""
    pairs = _outcomes(latent, **design)
    codes = _paired_codes(pairs)
    n = len(codes)
    if isinstance(drawn, list):
        drawn = _codes_from_words(drawn, n, codes)
    return pairs, sorted(_paired_deltas(drawn, n))


def _replay_intervals(latent, drawn, *, positions, design, methods,
                      confidence, alpha):
    """Return one replay's intervals of the gap by method, and whether
    McNemar's exact test and its mid-p reject at alpha."""
    pairs, deltas = _replay_deltas(latent, drawn, design)
    n = len(pairs)
    cells = collections.Counter(pairs)
    both, a_only, b_only = cells[1, 1], cells[1, 0], cells[0, 1]
    out = {}
    if "percentile" in methods:
        out["percentile"] = Interval(Fraction(deltas[positions[0]], n),
                                     Fraction(deltas[positions[1]], n))
    if "bca" in methods:
        lo, hi = _bca_interval(deltas, b_only - a_only, [1, 0, -1], confidence,
                              [a_only, n - a_only - b_only, b_only])
        out["bca"] = Interval(Fraction(lo, n), Fraction(hi, n))
    if "score" in methods:
        out["score"] = Interval(*map(Fraction, _newcombe_interval(
            both, a_only, b_only, n - both - a_only - b_only, confidence)))
    rejects = tuple(p <= _exact(alpha) for p in _mcnemar_tails(a_only,
                                                                b_only))
    return out, rejects


_INTERVALS = ("percentile", "bca", "score")


class _Calibration(NamedTuple):
    """Per interval method: replays covering the gap, above and below 0."""
    replays: int
    gap: Fraction
    covered: dict
    above_zero: dict
    below_zero: dict
    rejected: dict           # "McNemar exact" and "McNemar mid-p" counts


def _calibration(rng, options=_Options(), progress=None):
    """Replay the simulation as coverage() does, for several intervals
    (the options' intervals, by default all of _INTERVALS), at the
    options' design, replays, resamples and confidence.

    The random stream is coverage()'s, so the percentile counts equal its
    covered and excludes_zero.  With acc_a == acc_b, above + below zero
    is each interval's false-positive rate, and the tests' rejections are
    theirs (at the options' alpha).  *progress*, if given, is called with
    the number of replays done.

    >>> c = _calibration(random.Random(5), _Options(replays=3, n_items=50,
    ...                                             resamples=100))
    >>> c.covered, c.above_zero["percentile"]
    ({'percentile': 3, 'bca': 3, 'score': 3}, 0)
    """
    methods = options.intervals or _INTERVALS
    replays, n_items = options.replays, options.n_items
    resamples, confidence = options.resamples, options.confidence
    unknown = set(methods) - set(_INTERVALS)
    if unknown or not methods:
        raise EvalDeltaError(f"intervals are {', '.join(_INTERVALS)}, not "
                             f"{', '.join(sorted(unknown)) or 'none'}")
    gap = _exact(options.acc_b) - _exact(options.acc_a)
    design = dict(corr=options.corr, acc_a=options.acc_a,
                  acc_b=options.acc_b)
    results = _replays(rng, replays, n_items, resamples, design,
                       options.jobs, functools.partial(
                           _replay_intervals, design=design,
                           positions=_percentile_positions(resamples,
                                                           confidence),
                           methods=tuple(methods), confidence=confidence,
                           alpha=options.alpha))
    counts = [dict.fromkeys(methods, 0) for _ in range(3)]
    rejected = {"McNemar exact": 0, "McNemar mid-p": 0}
    for done, (intervals, rejects) in enumerate(results, 1):
        for name, (lo, hi) in intervals.items():
            counts[0][name] += lo <= gap <= hi
            counts[1][name] += lo > 0
            counts[2][name] += hi < 0
        for test, hit in zip(rejected, rejects):
            rejected[test] += hit
        if progress:
            progress(done)
    return _Calibration(replays, gap, *counts, rejected)


_SHAPES = ("normal", "lognormal", "lognormal-left")


def _difference(rng, shape):
    """Return one draw of a per-item difference of mean 0 and sd 1."""
    if shape == "normal":
        return rng.gauss(0.0, 1.0)
    x = (rng.lognormvariate(0.0, 1.0) - math.exp(0.5)) / math.sqrt(
        (math.e - 1) * math.e)
    return x if shape == "lognormal" else -x


def _continuous_calibration(rng, options=_Options(differences="normal",
                                                   gap=0.0), progress=None):
    """Replay a continuous eval: n per-item differences of mean gap, sd 1
    and the shape of the options' differences (normal; lognormal,
    right-skewed; lognormal-left), written to 4 decimals; count how often
    each paired interval covers the gap and excludes 0, by the saddlepoint
    and by resampling, each percentile and BCa, and how often each
    sign-flip test (exact up to 20 nonzero differences, then the
    saddlepoint or Monte Carlo) rejects at alpha.  A replay draws the
    differences, then the resamples and the Monte Carlo signs, from rng.

    >>> c = _continuous_calibration(random.Random(1), _Options(
    ...     differences="normal", gap=0.0, replays=4, n_items=30,
    ...     resamples=200))
    >>> sorted(c.covered)     # doctest: +NORMALIZE_WHITESPACE
    ['resample bca', 'resample percentile', 'saddlepoint bca',
     'saddlepoint percentile']
    """
    shape, gap, alpha = options.differences, options.gap, options.alpha
    replays, n_items = options.replays, options.n_items
    resamples, confidence = options.resamples, options.confidence
    if shape not in _SHAPES:
        raise EvalDeltaError(f"shape is one of {', '.join(_SHAPES)}, not "
                             f"{shape!r}")
    _check_resamples(resamples, confidence)
    names = ("saddlepoint percentile", "saddlepoint bca",
             "resample percentile", "resample bca")
    counts = [dict.fromkeys(names, 0) for _ in range(3)]
    rejected = {"sign flip, saddlepoint": 0, "sign flip, Monte Carlo": 0}
    truth = _exact(gap)
    for done in range(1, replays + 1):
        d = [round(gap + _difference(rng, shape), 4) for _ in range(n_items)]
        ints, scale = _exact_ints(d)
        tally = collections.Counter(ints)
        part = _law_part(tally)
        law = _SumLaw([(part, 1)])
        jackknife = [-v for v in part.values]
        unit = scale * n_items
        total = sum(ints)
        drawn = _resample_sums(rng, part.values, [0] * len(part.values),
                               None, part.counts, resamples)[0][:-1]
        ends = {names[0]: _law_interval(law, unit, confidence),
                names[1]: _law_interval(law, unit, confidence, _bca_levels(
                    law, jackknife, confidence, part.counts)),
                names[2]: percentile_interval(drawn, confidence),
                names[3]: _bca_interval(drawn, total, jackknife, confidence,
                                       part.counts)}
        for name, (lo, hi) in ends.items():
            if name.startswith("resample"):
                lo, hi = Fraction(lo, unit), Fraction(hi, unit)
            counts[0][name] += lo <= truth <= hi
            counts[1][name] += lo > 0
            counts[2][name] += hi < 0
        flips = _nonzero(part.values, part.counts)
        p, how = _paired_flip(*flips, rng, resamples)
        rejected["sign flip, Monte Carlo"] += p <= alpha
        if how != "exact":                         # else the same p
            p, _ = _paired_flip(*flips, None, 0, "saddlepoint")
        rejected["sign flip, saddlepoint"] += p <= alpha
        if progress:
            progress(done)
    return _Calibration(replays, truth, *counts, rejected)


## Corpus statistics ##########################################################

# Doors (called from other sections): _compare_corpus, _corpus_table,
# _PAIR_STATS, _parse_stat, _pass_at, _Stat.

# F1, precision, recall and the Matthews correlation are not means of
# per-item scores, but they are functions of sums of per-item indicators
# (a confusion matrix), and a ratio metric is a function of two sums.  So
# each item becomes a row of small integers, its columns: per class k, gold
# is k; per system, predicted k, and both.  A resample sums the columns of
# the same drawn items for both systems (_resample_columns: one
# multinomial draw over the distinct rows when they are few, so binary F1
# costs what a 0/1 metric costs, at any n).  The paired approximate
# randomization test swaps the two systems' rows of each item with chance
# 1/2 and recomputes the difference, p = (1 + hits) / (1 + rounds)
# (Riezler and Maxwell 2005, "On some pitfalls in automatic evaluation and
# significance testing for MT", ACL workshop; as in sacreBLEU): a binomial
# number of each distinct row pair, or one random bit per item when rows
# are many.  pass@k and pass^k are per-item estimates (Chen et al. 2021,
# "Evaluating large language models trained on code"), so their average is
# an ordinary mean and goes through _compare_tally.

_STATS = ("f1", "precision", "recall", "mcc", "ratio", "pass@k", "pass^k")
_PAIR_STATS = _STATS[:4]   # bare, of a field of their name: [gold, pred]


class _Stat(NamedTuple):
    """A corpus statistic to compare: its name in the report, what it is
    (one of _STATS), the fields it reads and k for pass@k and pass^k."""
    name: str
    stat: str
    fields: tuple
    k: int = 0


def _parse_stat(text):
    """Return the _Stat of NAME=STAT(FIELD,...) or STAT(FIELD,...).

    >>> _parse_stat("macro=f1(label,prediction)")
    _Stat(name='macro', stat='f1', fields=('label', 'prediction'), k=0)
    >>> _parse_stat("pass@5(passed)")
    _Stat(name='pass@5(passed)', stat='pass@k', fields=('passed',), k=5)

    A bare f1, precision, recall or mcc is that statistic of the field of
    its name holding [gold, pred] pairs, as lm-eval writes them:

    >>> _parse_stat("mcc")
    _Stat(name='mcc', stat='mcc', fields=('mcc',), k=0)
    """
    name, _, spec = text.rpartition("=")
    if spec.strip().lower() in _PAIR_STATS:
        name = name or spec               # lm-eval's own [gold, pred] pairs
        spec = f"{spec.strip()}({spec.strip()})"
    head, paren, rest = spec.strip().partition("(")
    if not paren or not rest.endswith(")"):
        raise EvalDeltaError(f"--stat {text!r}: write STAT(FIELD,...), e.g. "
                             f"f1(gold,pred), mcc(mcc), ratio(num,den), "
                             f"pass@5(passed)")
    fields = tuple(f.strip() for f in rest[:-1].split(","))
    head, k = head.strip().lower(), 0
    for kind in ("pass@", "pass^"):
        if head.startswith(kind):
            digits = head[len(kind):]
            if not digits.isdigit() or not int(digits):
                raise EvalDeltaError(f"--stat {text!r}: k in {kind}k must be "
                                     f"a whole number from 1")
            head, k = kind + "k", int(digits)
    if head not in _STATS or not all(fields):
        raise EvalDeltaError(f"--stat {text!r}: the statistics are "
                             f"{', '.join(_STATS)} (pass@k as pass@5), each "
                             f"with its fields in brackets")
    return _Stat(name.strip() or spec.strip(), head, fields, k)


class _CorpusTable(NamedTuple):
    """Items as rows of column values: the columns' names, the distinct
    rows with their counts, and which columns are A's and B's (the rest,
    gold's, are shared)."""
    stat: str
    classes: list            # the labels, for f1/precision/recall/mcc
    columns: list            # column names
    rows: list               # distinct rows (tuples of ints)
    counts: list
    a_cols: list             # column indices of A, and of B, in one order
    b_cols: list
    n_items: int = 0
    clusters: object = None  # how many clusters the rows sum, or None


def _corpus_table(stat, items, *, clustered=False, classes=None):
    """Return the _CorpusTable of items: (gold, pred A, pred B) labels for
    f1, precision, recall and mcc; (num A, den A, num B, den B) exact
    values for ratio.  items is a list or Counter of them; if
    *clustered*, of (cluster, item) pairs, and a cluster's rows are summed
    into one row, resampled and swapped whole.  *classes* fixes the labels
    (a subset's table takes the whole set's).

    >>> t = _corpus_table("f1", [(1, 1, 0), (0, 1, 1), (1, 1, 0)])
    >>> t.classes, t.columns
    ([0, 1], ['gold=0', 'gold=1', 'A=0', 'A=1', 'A:0', 'A:1', 'B=0', 'B=1', 'B:0', 'B:1'])
    >>> _corpus_values(t, _column_sums(t))
    (Fraction(4, 5), Fraction(0, 1))
    """
    counter = (items if isinstance(items, collections.Counter)
               else collections.Counter(items))
    if not counter:
        raise EvalDeltaError("no items to compare")
    keys = list(dict.fromkeys(k for _, k in counter) if clustered
                else counter)
    if stat == "ratio":
        classes, a_cols, b_cols = [], [0, 1], [2, 3]
        columns = ["num A", "den A", "num B", "den B"]
        ints, _ = _exact_ints([x for key in keys for x in key])
        rows = [tuple(ints[4 * j:4 * j + 4]) for j in range(len(keys))]
    else:
        classes = classes or sorted({x for key in keys for x in key},
                                    key=lambda x: (isinstance(x, str), x))
        k = len(classes)
        at = {c: i for i, c in enumerate(classes)}
        columns = ([f"gold={c}" for c in classes]
                   + [f"{s}{mark}{c}" for s in "AB" for mark in "=:"
                      for c in classes])
        a_cols, b_cols = list(range(k, 3 * k)), list(range(3 * k, 5 * k))
        rows = []
        for gold, a, b in keys:
            row = [0] * (5 * k)
            row[at[gold]] = 1
            for base, pred in ((k, a), (3 * k, b)):
                row[base + at[pred]] = 1                  # predicted
                row[base + k + at[pred]] = int(pred == gold)  # and right
            rows.append(tuple(row))
    row_of = dict(zip(keys, rows))
    units = collections.Counter()
    if clustered:
        sums = {}
        for (group, key), count in counter.items():
            total = sums.setdefault(group, [0] * len(columns))
            for i, x in enumerate(row_of[key]):
                total[i] += count * x
        units.update(map(tuple, sums.values()))
    else:
        for key, count in counter.items():
            units[row_of[key]] += count
    ordered = sorted(units)
    return _CorpusTable(stat, classes, columns, ordered,
                       [units[r] for r in ordered], a_cols, b_cols,
                       sum(counter.values()),
                       len(sums) if clustered else None)


def _column_sums(table):
    """Return the sum of each column of a _CorpusTable, its rows weighted by
    their counts."""
    return [sum(row[i] * c for row, c in zip(table.rows, table.counts))
            for i in range(len(table.columns))]


def _corpus_values(table, sums):
    """Return (A's, B's) statistic from the columns' sums: exact Fractions
    but for mcc (a float).  Binary labels (0 and 1 only) give the class
    1 F1, precision and recall, as scikit-learn's default (and lm-eval's
    f1); other labels their macro average over the classes that appear
    in the gold labels or that system's predictions.  An undefined
    ratio (0/0) counts 0, as scikit-learn's zero_division=0; mcc is
    scikit-learn's (Gorodkin's R_K for several classes), 0 when undefined.
    """
    if table.stat == "ratio":
        out = []
        for num, den in ((sums[0], sums[1]), (sums[2], sums[3])):
            if not den:
                raise EvalDeltaError("ratio: a sum of denominators is 0")
            out.append(Fraction(num, den))
        return tuple(out)
    k = len(table.classes)
    gold = sums[:k]
    n = sum(gold)
    out = []
    for base in (k, 3 * k):
        pred, right = sums[base:base + k], sums[base + k:base + 2 * k]
        out.append(_class_stat(table.stat, table.classes, gold, pred, right,
                               n))
    return tuple(out)


def _class_stat(stat, classes, gold, pred, right, n):
    """Return one system's *stat* (f1, precision, recall or mcc) from per-class
    counts of gold, predictions and hits over *n* items."""
    if stat == "mcc":
        c = sum(right)
        cov = c * n - sum(map(mul, pred, gold))
        scale = (n * n - sum(p * p for p in pred)) * (n * n - sum(
            g * g for g in gold))
        return cov / math.sqrt(scale) if scale else 0.0

    def one(i):
        tp = right[i]
        if stat == "precision":
            return Fraction(tp, pred[i]) if pred[i] else Fraction(0)
        if stat == "recall":
            return Fraction(tp, gold[i]) if gold[i] else Fraction(0)
        return (Fraction(2 * tp, pred[i] + gold[i]) if pred[i] + gold[i]
                else Fraction(0))

    if set(classes) <= {0, 1}:
        return one(classes.index(1)) if 1 in classes else Fraction(0)
    seen = [i for i in range(len(classes)) if pred[i] or gold[i]]
    return sum(map(one, seen), Fraction(0)) / len(seen)


def _compare_corpus(table, rng, options=_Options(), metric=_Metric()):
    """Return the _MetricResult of a corpus statistic (a _CorpusTable):
    each system's value and the difference with percentile intervals from
    the joint paired bootstrap (the unpaired one pairs B's resample r with
    A's r + 1), and the paired approximate randomization test with
    *resamples* rounds; a clustered table's rows (clusters) are resampled
    and swapped whole.  rng is consumed by the resamples, then by the
    rounds.  The standard error is the bootstrap one (the resampled
    differences' sd)."""
    resamples, confidence = options.resamples, options.confidence
    name, direction, jobs = metric.name, metric.direction, options.jobs
    _check_resamples(resamples, confidence)
    n = table.n_items or sum(table.counts)
    columns = [[row[i] for row in table.rows]
               for i in range(len(table.columns))]
    sums = _resample_columns(rng, columns, table.counts, resamples, jobs)
    values = [_corpus_values(table, [s[r] for s in sums])
              for r in range(resamples + 1)]
    a, b = _corpus_values(table, _column_sums(table))
    drawn_a = [v[0] for v in values[:-1]]
    drawn_b = [v[1] for v in values[:-1]]
    paired = list(map(sub, drawn_b, drawn_a))
    unpaired = [v[1] - w[0] for v, w in zip(values[:-1], values[1:])]
    ci = [percentile_interval(x, confidence)
          for x in (drawn_a, drawn_b, paired, unpaired)]
    p = _randomization_test(table, rng, rounds=resamples)
    se = statistics.stdev(map(float, paired)) if resamples > 1 else 0.0
    kind = "corpus"
    return _MetricResult(name, kind, direction, n, a, b, b - a, *ci,
                        "cluster approximate randomization" if table.clusters
                        else "approximate randomization", p, None, None,
                        None, se, table.clusters,
                        [float(x) for x in paired])


def _randomization_test(table, rng, *, rounds=RESAMPLES):
    """Return the paired approximate randomization p of a _CorpusTable:
    each round swaps every item's A and B rows with chance 1/2; p = (1 +
    rounds whose |B - A| is at least the observed) / (1 + rounds)."""
    k = len(table.a_cols)
    sums = _column_sums(table)
    a, b = _corpus_values(table, sums)
    observed = abs(b - a)
    moved = [(tuple(row[j] - row[i] for i, j in zip(table.a_cols,
                                                    table.b_cols)), c)
             for row, c in zip(table.rows, table.counts)]
    moved = [(d, c) for d, c in moved if any(d)]
    items = sum(c for _, c in moved)
    if not items:
        return Fraction(1)
    if _FLIP_GROUPED * len(moved) <= items:
        def shift():
            total = [0] * k
            for d, c in moved:
                s = _binomial(rng, c, 0.5)
                if s:
                    total = [t + s * x for t, x in zip(total, d)]
            return total
    else:
        expanded = [d for d, c in moved for _ in range(c)]
        bits = [0]
        planes = [_bit_plane_sum([d[i] for d in expanded],
                                 functools.partial(bits.__getitem__, 0))
                  for i in range(k)]

        def shift():
            bits[0] = rng.getrandbits(items)
            return [plane() for plane in planes]
    slack = 1e-12 if table.stat == "mcc" else 0
    hits = 0
    for done in range(1, rounds + 1):
        _step("randomization rounds", done, rounds)
        delta = shift()
        swapped = list(sums)
        for i, j, x in zip(table.a_cols, table.b_cols, delta):
            swapped[i] += x
            swapped[j] -= x
        a, b = _corpus_values(table, swapped)
        hits += abs(b - a) >= observed * (1 - slack)
    return Fraction(1 + hits, 1 + rounds)


def _pass_at(n, c, k, every=False):
    """Return pass@k = 1 - C(n - c, k) / C(n, k), the chance that some of
    k of the n samples (c of them right) is right, or pass^k = C(c, k) /
    C(n, k), that all k are (*every*); exact, unbiased (Chen et al. 2021).

    >>> _pass_at(10, 3, 1), _pass_at(10, 3, 2), _pass_at(10, 3, 2, every=True)
    (Fraction(3, 10), Fraction(8, 15), Fraction(1, 15))
    """
    if n < k:
        raise EvalDeltaError(f"{n} samples, fewer than k = {k}")
    if every:
        return Fraction(math.comb(c, k), math.comb(n, k))
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


## Power ######################################################################

# Doors (called from other sections): _beta_ratio, _copula_design, _Design,
# _detection, _expected_half_width, _items_with_repeats, _judge,
# _mcnemar_power, _pilot_plan, _plan_design, _repeat_counts,
# _repeats_from_samples, _simulated_power, _Spread, _student_t_tail,
# _student_t_upper, _z_sum.

# The detectable size comes from the normal approximation to the paired
# test: a true difference of (z_{1-alpha/2} + z_power) standard errors is
# detected with the given power.  The standard error is the observed
# standard deviation of the paired differences over sqrt(n), so it is a
# planning figure, not a guarantee.  A 0/1 metric on independent items is
# sized by McNemar's exact power instead, and clustered data by the
# cluster t test's own power (the noncentral t, _t_power) averaged over
# the measured standard error's uncertainty: with few clusters the normal
# figure promised 80% and delivered 50-71%.



def _z_sum(alpha, power):
    """Return z_{1-alpha/2} + z_power, the normal-approximation factor."""
    return _upper_z(alpha / 2) + NormalDist().inv_cdf(power)


def _detectable_difference(se, *, alpha=0.05, power=_POWER):
    """Return the smallest true difference detected with *power*.

    >>> round(_detectable_difference(0.1), 4)
    0.2802
    """
    return _z_sum(alpha, power) * se


# Planning a paired binary eval.  The article's copula makes the latent
# scores of A and B bivariate normal with correlation corr**2, so the
# chance both are right is a bivariate normal probability, and the
# discordant cells follow from the margins.  The power of McNemar's exact
# test is then summed exactly over the binomial number of discordant pairs
# (not only its normal approximation); Connor's closed form gives the
# starting point of the search for the smallest n.

def _bivariate_normal_cdf(h, k, rho):
    """Return P(X < h, Y < k) for standard normals with correlation rho.

    Uses Phi(h) Phi(k) + (1 / 2 pi) * integral over t from 0 to asin(rho)
    of exp(-(h^2 - 2 h k sin t + k^2) / (2 cos^2 t)) dt (Genz 2004,
    Statistics and Computing 14:251-260, equation 3), integrated by
    adaptive Simpson to an absolute error below 1e-13.

    >>> round(_bivariate_normal_cdf(0, 0, 0.5), 12)   # 1/4 + asin(0.5)/2pi
    0.333333333333
    """
    if not -1 < rho < 1:
        raise EvalDeltaError(f"correlation must be in (-1, 1), not {rho!r}")
    gauss = NormalDist()

    def f(t):
        c = math.cos(t)
        return math.exp(-(h * h - 2 * h * k * math.sin(t) + k * k) / (2 * c * c))

    return (gauss.cdf(h) * gauss.cdf(k)
            + _simpson(f, 0.0, math.asin(rho), 1e-13) / (2 * math.pi))


def _simpson(f, a, b, tol, depth=50):
    """Adaptive Simpson integral of f over [a, b]: each panel split until
    its halves' sum agrees with it to 15 tol (Lyness 1969, JACM 16:483),
    each point held as (x, f(x))."""
    def panel(lo, hi):
        """Return (the midpoint, Simpson's estimate) of the panel."""
        m = (lo[0] + hi[0]) / 2
        mid = (m, f(m))
        return mid, (hi[0] - lo[0]) / 6 * (lo[1] + 4 * mid[1] + hi[1])

    def refine(lo, hi, mid, estimate, tol, depth):
        left_mid, left = panel(lo, mid)
        right_mid, right = panel(mid, hi)
        if depth <= 0 or abs(left + right - estimate) <= 15 * tol:
            return left + right + (left + right - estimate) / 15
        return (refine(lo, mid, left_mid, left, tol / 2, depth - 1)
                + refine(mid, hi, right_mid, right, tol / 2, depth - 1))

    lo, hi = (a, f(a)), (b, f(b))
    mid, estimate = panel(lo, hi)
    return refine(lo, hi, mid, estimate, tol, depth)


class _Design(NamedTuple):
    """A paired binary design: the four cell probabilities."""
    acc_a: float
    acc_b: float
    p10: float               # A right, B wrong
    p01: float               # B right, A wrong

    @property
    def discordance(self):
        return self.p10 + self.p01


def _copula_design(acc_a, acc_b, corr):
    """Return the _Design of the article's simulator.

    Both latent scores load corr on the shared difficulty, so they are
    bivariate normal with correlation corr**2 and both systems are right
    with probability Phi2(z_A, z_B; corr**2).

    >>> d = _copula_design(0.72, 0.76, 0.6)
    >>> round(d.p10, 4), round(d.p01, 4)
    (0.1318, 0.1718)
    """
    za = NormalDist().inv_cdf(float(acc_a))
    zb = NormalDist().inv_cdf(float(acc_b))
    both = _bivariate_normal_cdf(za, zb, float(corr) ** 2)
    return _Design(float(acc_a), float(acc_b), float(acc_a) - both,
                  float(acc_b) - both)


def _discordance_design(acc_a, acc_b, discordance):
    """Return the _Design with the given share of discordant items.

    p10 = (D - gap) / 2 and p01 = (D + gap) / 2, in exact arithmetic on
    the values as written (0.2 and 0.76 - 0.72 give 0.08 and 0.12).

    >>> _discordance_design(0.72, 0.76, 0.2)[2:]
    (0.08, 0.12)
    """
    a, b, d = _exact(acc_a), _exact(acc_b), _exact(discordance)
    p10, p01 = (d - (b - a)) / 2, (d + (b - a)) / 2
    if p10 < 0 or p01 < 0 or a - p10 < 0 or 1 - (a - p10) - d < 0:
        low, high = _discordance_range(acc_a, acc_b)
        raise EvalDeltaError(f"discordance {discordance:g} is impossible with "
                             f"accuracies {acc_a:g} and {acc_b:g} (possible: "
                             f"{float(low):g} to {float(high):g})")
    return _Design(float(a), float(b), float(p10), float(p01))


def _discordance_range(acc_a, acc_b):
    """Return the least and most discordance two accuracies allow."""
    a, b = _exact(acc_a), _exact(acc_b)
    return abs(b - a), min(a + b, 2 - a - b)


def _most_accuracy(acc_a, discordance):
    """Return the largest accuracy of B that a discordance allows with A's.

    B right on every discordant item (p10 = 0) gives gap = D; items
    right for neither system, 1 - acc_a - p01 >= 0, give gap <= 2 - 2
    acc_a - D.

    >>> _most_accuracy(0.72, 0.2)
    0.92
    """
    a, d = _exact(acc_a), _exact(discordance)
    return float(a + min(d, 2 - 2 * a - d))


# Binomial probabilities to full precision: Loader's saddle-point form
# (C. Loader 2000, "Fast and accurate computation of binomial
# probabilities", the method of R's dbinom), whose error does not grow
# with n as lgamma differences do (lgamma(10^7) carries 1e-8 of rounding).

_STIRLING = (1 / 12, 1 / 360, 1 / 1260, 1 / 1680, 1 / 1188)


def _stirling_error(n):
    """Return log(n!) - log(sqrt(2 pi n) (n / e)^n)."""
    if n <= 15:
        return (math.lgamma(n + 1) - (n + 0.5) * math.log(n) + n
                - 0.5 * math.log(2 * math.pi))
    s0, s1, s2, s3, s4 = _STIRLING
    nn = n * n
    return (s0 - (s1 - (s2 - (s3 - s4 / nn) / nn) / nn) / nn) / n


def _deviance(x, mean):
    """Return x log(x / mean) + mean - x, stably when x is near mean."""
    if abs(x - mean) < 0.1 * (x + mean):
        v = (x - mean) / (x + mean)
        s = (x - mean) * v
        term = 2 * x * v
        v *= v
        for j in range(1, 1000):
            term *= v
            bigger = s + term / (2 * j + 1)
            if bigger == s:
                return s
            s = bigger
    return x * math.log(x / mean) + mean - x


def _binomial_pmf(k, n, p):
    """Return P(X = k), X ~ Binomial(n, p), to near full precision.

    >>> abs(_binomial_pmf(3, 10, 0.5) / (120 / 1024) - 1) < 1e-14
    True
    """
    if not 0 <= k <= n:
        return 0.0
    if n == 0:
        return 1.0
    if p <= 0 or p >= 1:
        return float(k == (n if p >= 1 else 0))
    q = 1 - p
    if k == 0:
        return math.exp(-_deviance(n, n * q) - n * p if p < 0.1
                        else n * math.log(q))
    if k == n:
        return math.exp(-_deviance(n, n * p) - n * q if q < 0.1
                        else n * math.log(p))
    log_c = (_stirling_error(n) - _stirling_error(k) - _stirling_error(n - k)
             - _deviance(k, n * p) - _deviance(n - k, n * q))
    return math.exp(log_c) * math.sqrt(n / (2 * math.pi * k * (n - k)))


def _binomial_cdf(t, n, p):
    """Return P(X <= t), X ~ Binomial(n, p), summing only the short tail.

    From P(X = t) the terms follow by their ratios until they fall below
    1e-17 of the sum.
    """
    if t < 0:
        return 0.0
    if t >= n:
        return 1.0
    if p <= 0 or p >= 1:
        return float(p <= 0)
    odds = p / (1 - p)
    if t <= n * p:
        term = total = _binomial_pmf(t, n, p)
        for i in range(t, 0, -1):
            if term <= 1e-17 * total:        # also when it underflowed
                break
            term *= i / ((n - i + 1) * odds)
            total += term
        return total
    term = total = _binomial_pmf(t + 1, n, p)
    for i in range(t + 1, n):
        if term <= 1e-17 * total:
            break
        term *= (n - i) * odds / (i + 1)
        total += term
    return 1.0 - total


@functools.lru_cache(maxsize=4096)
def _student_t_upper(tail, df):
    """Return t with P(T > t) = tail, T Student's t with df > 0 degrees
    of freedom (Student 1908, Biometrika 6:1-25).

    P(T > t) = I_x(df/2, 1/2) / 2 with x = df / (df + t^2), I the
    regularized incomplete beta function (_beta_ratio); t is found by
    bisection to the last bits.  df = 1 is tan(pi (1/2 - tail)):

    >>> (round(_student_t_upper(0.025, 10), 4),
    ...  round(_student_t_upper(0.025, 1), 3))
    (2.2281, 12.706)
    """
    if not 0 < tail < 1:
        raise EvalDeltaError(f"a tail must be in (0, 1), not {tail!r}")
    if tail > 0.5:
        return -_student_t_upper(1 - tail, df)
    if df >= 1000:              # Cornish-Fisher: relative error < 1e-10
        return _t_expansion(_upper_z(tail), df)
    lo, hi = 0.0, max(1.0, _upper_z(tail))
    while _student_t_tail(hi, df) > tail:
        lo, hi = hi, 2 * hi
    for _ in range(200):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        lo, hi = (mid, hi) if _student_t_tail(mid, df) > tail else (lo, mid)
    return hi


def _t_expansion(z, df):
    """Return the Cornish-Fisher expansion of Student's t quantile from
    the normal one, to 1/df^4 (Abramowitz and Stegun 1964, 26.7.5)."""
    z2 = z * z
    g = ((z2 + 1) * z / 4,
         ((5 * z2 + 16) * z2 + 3) * z / 96,
         (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384,
         ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160)
    return z + sum(gk / df ** k for k, gk in enumerate(g, 1))


def _student_t_tail(t, df):
    """Return P(T > t) for t >= 0, T Student's t with df degrees of freedom."""
    return _beta_ratio(df / 2, 0.5, df / (df + t * t), t * t / (df + t * t)) / 2


def _beta_ratio(a, b, x, y=None):
    """Return the regularized incomplete beta function I_x(a, b).

    The continued fraction evaluated by the modified Lentz method, on the
    side of x where it converges fast (Press, Teukolsky, Vetterling and
    Flannery, Numerical Recipes, 3rd ed. 2007, section 6.4).

    y is 1 - x, if the caller has it more exactly than 1 - x.

    >>> round(_beta_ratio(2, 3, 0.4), 12)     # 1 - (1-x)^3 (1 + 3x)
    0.5248
    """
    y = 1 - x if y is None else y
    if x <= 0:
        return 0.0
    if y <= 0:
        return 1.0
    if x > (a + 1) / (a + b + 2):
        return 1.0 - _beta_ratio(b, a, y, x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b)
                     + a * math.log(x) + b * math.log(y)) / a
    tiny = 1e-300
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 100000):
        for numerator in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                          -(a + m) * (a + b + m) * x
                          / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + numerator * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + numerator / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return front * h


def _rejects(m, c, alpha, tail=None):
    """Return True if 2 P(X <= c) <= alpha, X ~ Binomial(m, 1/2).

    In floating point (*tail*, if given, is that 2 P(X <= c)), and in
    integers where that is too close to call, up to _EXACT_LIMIT
    discordant pairs (McNemar's test itself is in integers up to there).
    """
    if c < 0:
        return False
    if tail is None:
        tail = 2 * _binomial_cdf(c, m, 0.5)
    if abs(tail - alpha) > 1e-9 * alpha or m > _EXACT_LIMIT:
        return tail <= alpha
    _, below, at = _binomial_head(c, m - c)
    return Fraction(2 * (below + at), 2 ** m) <= _exact(alpha)


def _critical(m, alpha):
    """Return the largest c with 2 P(X <= c) <= alpha, X ~ Bin(m, 1/2)
    (-1 if there is none): McNemar's exact test rejects at m discordant
    pairs when the smaller count is at most c."""
    c = max(-1, int(m / 2 - _upper_z(alpha / 2) * math.sqrt(m) / 2) - 2)
    while c + 1 < m / 2 and _rejects(m, c + 1, alpha):
        c += 1
    while c >= 0 and not _rejects(m, c, alpha):
        c -= 1
    return c


def _binomial_weights(n, p, cut=1e-17):
    """Return (lo, [P(X = m) for m from lo on]), X ~ Binomial(n, p).

    From the mode outwards by the terms' ratios r, which shrink away
    from the mode, until the last term t has t r / (1 - r) < *cut*: the
    geometric bound on all that is left out on that side.
    """
    if p >= 1:
        return n, [1.0]
    mode = min(n, int((n + 1) * p))
    odds = p / (1 - p)
    peak = _binomial_pmf(mode, n, p)
    up, term, m = [], peak, mode
    while m < n:
        ratio = (n - m) * odds / (m + 1)
        term *= ratio
        m += 1
        up.append(term)
        if ratio < 1 and term * ratio < cut * (1 - ratio):
            break
    down, term, m = [], peak, mode
    while m > 0:
        ratio = m / ((n - m + 1) * odds)
        term *= ratio
        m -= 1
        down.append(term)
        if ratio < 1 and term * ratio < cut * (1 - ratio):
            break
    return mode - len(down), down[::-1] + [peak] + up


def _rejection_chances(lo, count, q, alpha):
    """Return P(McNemar's exact test rejects | m discordant pairs) for m
    = lo, lo + 1, ..., when B wins a discordant pair with chance q.

    The test rejects when B's count is at most c_m or at least m - c_m.
    Going from m to m + 1 the critical value c_m stays or grows by one
    (X_{m+1} = X_m + a coin), so the three tails it needs, P(X <= c) of
    Binomial(m, 1/2), of Binomial(m, q) and of Binomial(m, 1 - q), are
    carried from one m to the next by a few multiplications:
    P(X_{m+1} <= c) = P(X_m <= c) - s P(X_m = c) for success chance s,
    instead of being summed afresh.  The critical value is checked
    exactly where the floating-point tail is too close to call.  (The
    three are kept in plain variables, not lists: it is the inner loop
    of every sizing.)
    """
    s1, s2 = q, 1 - q                   # and s0 = 1/2
    u0, u1, u2 = 1 - 0.5, 1 - s1, 1 - s2
    out = []
    m, c = lo, _critical(lo, alpha)
    t0, t1, t2 = (_binomial_cdf(c, m, s) for s in (0.5, s1, s2))
    p0, p1, p2 = (_binomial_pmf(c, m, s) for s in (0.5, s1, s2))
    close = 1e-9 * alpha
    while True:
        out.append(t1 + t2)
        if len(out) == count:
            return out
        if c >= 0:                                   # m -> m + 1, same c
            grow = (m + 1) / (m + 1 - c)
            t0 -= 0.5 * p0
            p0 *= grow * u0
            t1 -= s1 * p1
            p1 *= grow * u1
            t2 -= s2 * p2
            p2 *= grow * u2
        m += 1
        if c + 1 >= m / 2:
            continue
        if c < 0:
            e0, e1, e2 = (_binomial_pmf(0, m, s) for s in (0.5, s1, s2))
        else:
            e0 = p0 * (m - c) * 0.5 / ((c + 1) * u0)
            e1 = p1 * (m - c) * s1 / ((c + 1) * u1) if s1 < 1 else 0.0
            e2 = p2 * (m - c) * s2 / ((c + 1) * u2) if s2 < 1 else 0.0
        tail = 2 * (t0 + e0)
        if (tail <= alpha if abs(tail - alpha) > close or m > _EXACT_LIMIT
                else _rejects(m, c + 1, alpha, tail)):
            c += 1
            t0, t1, t2 = t0 + e0, t1 + e1, t2 + e2
            p0, p1, p2 = e0, e1, e2


def _mcnemar_power(n, design, *, alpha=0.05):
    """Return the power of McNemar's exact test on n paired items.

    The number of discordant pairs m is Binomial(n, p10 + p01); given m,
    B's share is Binomial(m, p01 / (p10 + p01)); the test rejects when
    the smaller count is at most the critical value of Binomial(m, 1/2).
    The sum leaves out only m in the two tails whose whole probability
    is below 1e-17 each (see _binomial_weights), with the rejection chances
    carried from one m to the next (see _rejection_chances): a few
    thousand steps even at n = 10^7.  Against the sum over every outcome
    in exact fractions it agrees to 1e-12 (see the tests).
    """
    pd = design.discordance
    if pd <= 0:
        return 0.0
    q = min(1.0, max(0.0, design.p01 / pd))
    lo, weights = _binomial_weights(n, pd)
    chances = _rejection_chances(lo, len(weights), q, alpha)
    return min(1.0, math.fsum(map(mul, weights, chances)))


def _connor_items(design, *, alpha=0.05, power=_POWER):
    """Return Connor's (1987, Biometrics 43:207-211) McNemar sample size.

    n = (z_{1-alpha/2} sqrt(pd) + z_power sqrt(pd - delta^2))^2 / delta^2
    with pd the discordance and delta = p01 - p10.
    """
    delta = design.p01 - design.p10
    if not delta:
        return None
    za, zb = _upper_z(alpha / 2), NormalDist().inv_cdf(power)
    pd = design.discordance
    return math.ceil((za * math.sqrt(pd) + zb * math.sqrt(pd - delta ** 2)) ** 2
                     / delta ** 2)


def _items_for_power(design, *, alpha=0.05, power=_POWER):
    """Return the smallest n whose exact McNemar power reaches *power*.

    None if the design has no gap.  The exact power is bracketed from
    Connor's approximation and the crossing narrowed by false position
    in n with the Illinois rule (as _detectable_gap does in the gap),
    which needs a handful of power evaluations where bisection needs a
    dozen; it assumes the power does not fall back below the target once
    reached, which the tests check against stepping n up from 1.
    """
    if design.p01 == design.p10:
        return None

    def short(n):
        return _mcnemar_power(n, design, alpha=alpha) - power

    guess = max(1, _connor_items(design, alpha=alpha, power=power))
    f = short(guess)
    if f >= 0:                          # bracket within 10% of Connor's n,
        hi, f_hi, lo = guess, f, guess * 10 // 11   # seldom further off
        while lo and (f := short(lo)) >= 0:
            hi, f_hi, lo = lo, f, lo * 10 // 11
        f_lo = f if lo else -power      # no items: no power
    else:
        lo, f_lo, hi = guess, f, guess * 11 // 10 + 1
        while (f := short(hi)) < 0:
            if hi > 10 ** 12:
                raise EvalDeltaError("more than 10^12 items would be "
                                     "needed")
            lo, f_lo, hi = hi, f, hi * 11 // 10 + 1
        f_hi = f
    return _false_position(             # lo falls short (or is 0), hi reaches
        short, lo, hi, f_lo, f_hi, lambda lo, hi: hi - lo <= 1,
        lambda x, lo, hi: min(hi - 1, max(lo + 1, round(x))))


def _expected_half_width(n, design, confidence=CONFIDENCE):
    """Return the expected half-width of the CI of the gap at n items.

    z_{(1+c)/2} sqrt((pd - delta^2) / n): the normal interval of a paired
    difference of proportions, pd the discordance, delta = p01 - p10.

    >>> round(_expected_half_width(500, _discordance_design(0.7, 0.7, 0.3)), 4)
    0.048
    """
    delta = design.p01 - design.p10
    z = _upper_z((1 - _exact(confidence)) / 2)
    return z * math.sqrt(max(0.0, design.discordance - delta ** 2) / n)


def _unpaired_items(acc_a, acc_b, *, alpha=0.05, power=_POWER):
    """Return items per system for two independent samples (Fleiss 1981).

    n = (z_{1-alpha/2} sqrt(2 pbar qbar) + z_power sqrt(pa qa + pb qb))^2
    / delta^2, the two-proportion z-test without continuity correction.
    """
    pa, pb = float(acc_a), float(acc_b)
    if pa == pb:
        return None
    bar = (pa + pb) / 2
    za, zb = _upper_z(alpha / 2), NormalDist().inv_cdf(power)
    return math.ceil((za * math.sqrt(2 * bar * (1 - bar))
                      + zb * math.sqrt(pa * (1 - pa) + pb * (1 - pb))) ** 2
                     / (pb - pa) ** 2)


def _detectable_gap(n, make_design, acc_a, *, alpha=0.05, power=_POWER,
                   most=1 - 1e-9, guess=None):
    """Return the smallest gap acc_b - acc_a that n items detect.

    make_design(acc_b) gives the _Design for a candidate accuracy, up to
    *most* (for a fixed discordance, _most_accuracy); the gap is found to
    1e-6 by false position with the Illinois rule (Dowell and Jarratt
    1971), which needs a handful of power evaluations where bisection
    needs twenty; a *guess* of the gap, if given, narrows the first
    bracket to [0.8, 1.25] times it where that brackets the answer.
    None if even acc_b = most falls short.
    """
    def short(b):
        return _mcnemar_power(n, make_design(b), alpha=alpha) - power

    lo, hi = float(acc_a), float(most)
    f_lo, f_hi = short(lo), short(hi)
    if f_hi < 0:
        return None
    if f_lo >= 0:
        return 0.0
    if guess:
        base = lo
        for end in (base + 0.8 * guess, base + 1.25 * guess):
            if lo < end < hi:
                f = short(end)
                lo, f_lo, hi, f_hi = ((end, f, hi, f_hi) if f < 0
                                      else (lo, f_lo, end, f))
    return _false_position(short, lo, hi, f_lo, f_hi,
                           lambda lo, hi: hi - lo <= 1e-6) - float(acc_a)


def _false_position(f, lo, hi, f_lo, f_hi, close, pick=None):
    """Return the upper end of a bracket [lo, hi] of the crossing of an
    increasing f (f(lo) = f_lo < 0 <= f_hi = f(hi)), narrowed by false
    position with the Illinois rule (Dowell and Jarratt 1971: the end that
    stays twice running has its value halved) until close(lo, hi).
    pick(x, lo, hi), if given, turns the false-position point x into the
    one f is taken at (a whole number inside the bracket, for n)."""
    side = 0
    while not close(lo, hi):
        x = hi - f_hi * (hi - lo) / (f_hi - f_lo)
        if pick:
            x = pick(x, lo, hi)
        elif not lo + (hi - lo) / 64 < x < hi - (hi - lo) / 64:
            x = (lo + hi) / 2           # guard: false position stalls
        value = f(x)
        if value >= 0:
            hi, f_hi = x, value
            f_lo = f_lo / 2 if side == 1 else f_lo
            side = 1
        else:
            lo, f_lo = x, value
            f_hi = f_hi / 2 if side == -1 else f_hi
            side = -1
    return hi


def _simulated_power(rng, n, *, replays=REPLAYS, corr=CORR, acc_a=ACC_A,
                    acc_b=ACC_B, alpha=0.05, progress=None):
    """Replay the simulator at n items; return (rejections, discordant).

    rejections counts replays where McNemar's exact p <= alpha (the test
    the analytic power is for); discordant sums the discordant items over
    all replays, for checking the discordance.  The simulator's items are
    independent, so a replay's counts of A-only and B-only items are
    multinomial with _copula_design's cell chances: two binomial draws per
    replay instead of three normal draws per item (the tests check the
    cell chances against simulate() itself).
    """
    design = _copula_design(acc_a, acc_b, corr)
    cells = [design.p10, design.p01, 1.0 - design.p10 - design.p01]
    rejected = discordant = 0
    for done, (a_only, b_only, _) in enumerate(
            _multinomials(rng, n, cells, replays), 1):
        rejected += _mcnemar_p(a_only, b_only) <= _exact(alpha)
        discordant += a_only + b_only
        if progress:
            progress(done)
    return rejected, discordant


def _items_with_repeats(design, within, repeats, *, alpha=0.05, power=_POWER):
    """Return {K: items needed} when each item's score averages K samples.

    Following Miller (2024, "Adding Error Bars to Evals", arXiv:2411.00640),
    the variance of an item's paired difference splits into a part
    between items and a part within an item, and averaging K samples
    divides only the latter: sigma^2(K) = sigma_between^2 + within / K,
    with sigma^2(1) = p10 + p01 - (p01 - p10)^2 from the design.  Items
    needed is the normal approximation ((z_{1-alpha/2} + z_power) sigma(K)
    / gap)^2; the key None holds the limit of many repeats.
    """
    delta = design.p01 - design.p10
    total = design.discordance - delta ** 2
    if not 0 <= within <= total:
        raise EvalDeltaError(f"within-item variance must be in [0, {total:.4g}]"
                             f" (the single-sample variance), not {within:g}")
    if not delta:
        raise EvalDeltaError("no gap to plan repeats for")
    return _repeats_table(total - within, within, delta, repeats, alpha, power)


def _repeats_table(between, within, gap, repeats, alpha, power):
    """Return {K: ceil(((z_{1-alpha/2} + z_power) / gap)^2 (between +
    within / K))}, with the many-repeats limit under the key None; never
    fewer than _least_units(alpha), the fewest items an exact paired test
    can reach alpha with."""
    factor = (_z_sum(alpha, power) / gap) ** 2
    floor = _least_units(alpha)          # fewer items no exact test can use

    def need(variance):
        return max(floor, math.ceil(factor * variance - 1e-9))

    table = {k: need(between + within / k) for k in repeats}
    table[None] = need(between)
    return table


def _repeat_counts(most):
    """Return the repeat counts a table shows: 1, powers of two, *most*.

    >>> _repeat_counts(6)
    [1, 2, 4, 6]
    """
    return sorted({1, most} | {2 ** i for i in range(8) if 2 ** i <= most})


def _repeats_from_samples(a_groups, b_groups, repeats, *, gap=None,
                         alpha=0.05, power=_POWER):
    """Return (items needed by K, within, between, gap) from repeated samples.

    *a_groups* and *b_groups* map each item to its samples (at least two
    each).  By the method of moments (Miller 2024): within is the mean over
    items of var_A + var_B, the variance of one sample's paired difference
    inside an item; between is the variance of the item mean differences
    less their sampling noise, mean of var_A/r_A + var_B/r_B.  Items needed
    for K repeats is ((z_{1-alpha/2} + z_power) / gap)^2 (between +
    within / K); the key None holds the limit.  If *gap* is None the
    samples' own mean difference is used.
    """
    if set(a_groups) != set(b_groups):
        only = sorted(set(a_groups) ^ set(b_groups))
        raise EvalDeltaError(f"{len(only)} items sampled in one run only "
                             f"(first: {', '.join(only[:3])})")
    stats = []
    for item, a in a_groups.items():
        b = b_groups[item]
        if len(a) < 2 or len(b) < 2:
            raise EvalDeltaError(f"item {item!r} has fewer than two samples "
                                 f"in a run; repeats need at least two")
        va, vb = statistics.variance(a), statistics.variance(b)
        stats.append((statistics.fmean(b) - statistics.fmean(a), va + vb,
                      va / len(a) + vb / len(b)))
    if len(stats) < 2:
        raise EvalDeltaError("repeats need at least two items")
    diffs = [d for d, _, _ in stats]
    within = statistics.fmean(w for _, w, _ in stats)
    noise = statistics.fmean(e for _, _, e in stats)
    between = max(0.0, statistics.variance(diffs) - noise)
    target = statistics.fmean(diffs) if gap is None else gap
    if not target:
        raise EvalDeltaError("no gap to plan repeats for")
    table = _repeats_table(between, within, target, repeats, alpha, power)
    return table, within, between, target


# Sizing a comparison from its data.  One method for compare and plan
# --from: a 0/1 metric on independent items is sized by the exact power of
# McNemar's test at the observed share of discordant items; any other
# (continuous, or clustered) by the normal approximation on the standard
# error of the paired differences.  Neither answer is given where it would
# mislead: with no spread, or fewer units than a paired exact test needs
# to reach alpha at all (with m units no sign pattern is rarer than
# 2 / 2^m).

class _Spread(NamedTuple):
    """What sizing a paired comparison needs, from the data alone (a
    _MetricResult has the same fields)."""
    metric: str
    kind: str
    n_items: int
    gap: "Fraction | float"  # mean of B - A
    se: float                # standard error of the mean paired difference
    mcnemar: "McNemar | None"  # of a binary unclustered metric
    clusters: "int | None"   # number of clusters, or None
    df: "float | None" = None  # the clustered se's degrees of freedom


class _Detection(NamedTuple):
    """How big a difference an eval detects, and what would detect a gap."""
    mde: object              # smallest difference detected with the power,
                             # or None (then *why* says why)
    items_needed: object     # items that would detect the gap, or None
    why: object              # words where a figure is None, else None
    method: str              # "McNemar exact" or "normal approximation"
    power: float = _POWER     # the power the figures are for


def _least_units(alpha):
    """Return the fewest items (or clusters) with which an exact paired
    test can reach *alpha*: the least m with 2 / 2^m <= alpha.

    >>> _least_units(0.05), _least_units(0.0625), _least_units(1e-16)
    (6, 5, 55)
    """
    m = 1
    while Fraction(2, 2 ** m) > _exact(alpha):
        m += 1
    return m


def _plan_design(acc_a, acc_b, *, corr=None, discordance=None, alpha=0.05,
                power=_POWER, n_items=None, confidence=CONFIDENCE):
    """Return the Plan of a paired binary eval of accuracies *acc_a* and
    *acc_b*, their errors tied by the latent correlation *corr* (default
    the article's) or by the share of items where they differ,
    *discordance*: the items McNemar's exact test needs for *power*,
    Connor's approximation, the unpaired design's, and the exact power
    and smallest detectable gap at *n_items* (default a quarter to twice
    the items needed).

    >>> _plan_design(0.72, 0.76, corr=0.6).items_needed
    1533
    """
    if discordance is not None:
        make = functools.partial(_discordance_design, acc_a,
                                 discordance=discordance)
        most, corr = _most_accuracy(acc_a, discordance), None
    else:
        corr = CORR if corr is None else corr
        make = functools.partial(_copula_b, acc_a, corr)
        most = 1 - 1e-9
    design, sizing = make(acc_b), dict(alpha=alpha, power=power)
    needed = _items_for_power(design, **sizing)
    ns = n_items or sorted({max(1, round(f * (needed or 500)))
                            for f in (0.25, 0.5, 1, 2)})
    return Plan(design, corr, alpha, power, needed,
                _connor_items(design, **sizing),
                _unpaired_items(acc_a, acc_b, **sizing),
                {n: _mcnemar_power(n, design, alpha=alpha) for n in ns},
                {n: _detectable_gap(n, make, acc_a, most=most, **sizing)
                 for n in ns}, {}, confidence)


def _copula_b(acc_a, corr, acc_b):
    """Return the copula _Design of B's accuracy *acc_b* against A's at
    correlation *corr*."""
    return _copula_design(acc_a, acc_b, corr)


def _detection(r, *, gap=None, alpha=0.05, power=_POWER):
    """Return the _Detection of a _Spread or _MetricResult *r*: the smallest
    difference its size detects with *power*, and the items that would
    detect *gap* (by default its own gap).

    >>> d = _detection(_Spread("m", "binary", 500, Fraction(18, 500), 0.0,
    ...                      McNemar(67, 85, None), None))
    >>> d.items_needed, round(d.mde, 4), d.method
    (1890, 0.0706, 'McNemar exact')
    """
    target = abs(r.gap if gap is None else gap)
    units = r.n_items if r.clusters is None else r.clusters
    noun = "item" if r.clusters is None else "cluster"
    floor = _least_units(alpha)
    if r.mcnemar is not None:
        return _mcnemar_detection(r, target, floor, alpha, power)
    method = "normal approximation"
    if r.clusters is None and 2 <= units < floor:
        return _Detection(None, None, _too_few(units, noun, floor, alpha),
                         method, power=power)
    if units < 2 or not r.se:
        agree = ("the runs agree on every item" if r.clusters is None
                 else "the runs' totals agree in every cluster")
        why = (f"one {noun}: no spread" if units < 2 else
               f"{agree}: no spread" if not r.gap else
               f"every {noun} differs by the same amount: no spread")
        return _Detection(None, None, why + " to size a difference from",
                         method, power=power)
    if r.clusters is not None:         # the cluster t test, not the normal
        return _clustered_detection(r, target, alpha, power)
    mde = _detectable_difference(r.se, alpha=alpha, power=power)
    needed = None
    if target:
        need = max(floor, math.ceil(units * (mde / target) ** 2 - 1e-9))
        needed = math.ceil(need * r.n_items / units - 1e-9)
    return _Detection(mde, needed, None, method, power=power)


@functools.lru_cache(maxsize=256)
def _chi_nodes(df, coarse=False):
    """Return ((s, weight), ...): S = sqrt(V / df), V chi-square with df
    degrees of freedom, as trapezoid nodes in log V (where the density is
    smooth and the rule converges geometrically), weights summing to 1.
    Against scipy's noncentral t, _t_power errs by less than 1e-7 at df 1
    to 10^5 (tests/test_power.py); *coarse* nodes, for the mean over a
    spread's uncertainty, change an expected power by less than 3e-6."""
    k = df / 2                     # V = 2 X, X ~ Gamma(k); nodes in log X
    lo = math.log(k) - max(12 / math.sqrt(k), 40 / k)
    hi = math.log(k + 12 * math.sqrt(k) + 40)
    step = 0.6 if coarse else 0.25 if df < 3.5 else 0.4
    count = int((hi - lo) / min(step, step / math.sqrt(k))) + 1
    nodes = []
    for i in range(count + 1):
        x = lo + (hi - lo) * i / count
        nodes.append((math.sqrt(2 * math.exp(x) / df),
                      math.exp(k * x - math.exp(x) - math.lgamma(k))))
    total = math.fsum(w for _, w in nodes)
    top = max(w for _, w in nodes)
    cut = 1e-10 if coarse else 1e-13
    return tuple((s, w / total) for s, w in nodes if w > cut * top)


def _t_power(shift, df, *, alpha=0.05, spread_df=None):
    """Return the power of the two-sided t test at level *alpha* with *df*
    degrees of freedom when the true difference is *shift* standard
    errors: P(|T'| > t_{df, 1 - alpha/2}), T' noncentral t (Owen 1965,
    Technometrics 7:78-86), as the mean over S = sqrt(chi-square / df) of
    Phi(shift - t S) + Phi(-shift - t S).

    With *spread_df*, the standard error is itself an estimate on that
    many degrees of freedom, and the power is its mean over what the true
    one may be (true = estimate sqrt(spread_df / chi-square)): the
    expected power, or assurance, of a plan made from measured spread
    (O'Hagan and Stevens 2001, Med Decis Making 21:219-230).  Sized by
    the known-spread power, 10 clusters reach 74% of a stated 80%; by
    this, 81% (tests/benchmark.py --part calibration).

    >>> round(_t_power(0, 9), 6), round(_t_power(3.0, 10 ** 6), 4)
    (0.05, 0.8508)
    >>> round(_t_power(3.0, 9), 4), round(_t_power(3.0, 9, spread_df=9), 4)
    (0.7612, 0.7049)
    """
    crit = _student_t_upper(alpha / 2, df)
    outer = _chi_nodes(spread_df, True) if spread_df else ((1.0, 1.0),)
    root = math.sqrt(2)
    return math.fsum(
        w * v * (math.erfc((crit * s - shift * r) / root)
                 + math.erfc((crit * s + shift * r) / root)) / 2
        for s, w in _chi_nodes(df) for r, v in outer)


@functools.lru_cache(maxsize=1024)
def _t_factor(df, spread_df, alpha, power):
    """Return the shift, in standard errors, that _t_power detects with
    *power* (the t analogue of _z_sum), by false position from the
    bracket [0, z-sum] (doubled until it brackets) to 1e-10 of it."""
    def excess(shift):
        return _t_power(shift, df, alpha=alpha, spread_df=spread_df) - power
    lo, hi = 0.0, _z_sum(alpha, power)
    f_lo, f_hi = excess(lo), excess(hi)
    while f_hi < 0:
        lo, f_lo, hi = hi, f_hi, 2 * hi
        f_hi = excess(hi)
    return _false_position(excess, lo, hi, f_lo, f_hi,
                           lambda lo, hi: hi - lo <= 1e-10 * hi)


def _clustered_detection(r, target, alpha, power):
    """_detection() of clustered data by the cluster t test, on the
    standard error's degrees of freedom (_cluster_df), at its expected
    power over that standard error's own uncertainty (_t_power): the
    detectable difference and the clusters needed (their degrees of
    freedom taken to grow in proportion).  The normal's z-values called
    62% power at 10 clusters 80%; the known-spread t power, 74%."""
    g, df = r.clusters, r.df if r.df is not None else r.clusters - 1
    mde = _t_factor(df, df, alpha, power) * r.se
    needed = None
    if target:                          # the se shrinks as sqrt(g / k)
        def enough(k):
            shift = target / (r.se * math.sqrt(g / k))
            return _t_power(shift, df * (k - 1) / (g - 1), alpha=alpha,
                           spread_df=df) >= power
        hi = 2
        while not enough(hi):
            hi *= 2
        lo = 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if enough(mid) else (mid, hi)
        needed = math.ceil(hi * r.n_items / g - 1e-9)
    return _Detection(mde, needed, None, f"t, {_df_words(df)}, expected "
                     f"power over the spread's uncertainty", power=power)


def _too_few(units, noun, floor, alpha):
    """Return the words for an eval too small for any paired exact test to
    reach *alpha*."""
    return (f"no paired exact test can give p below "
            f"{_p_text(Fraction(2, 2 ** units))} at this size, so nothing "
            f"is detectable at alpha {alpha:g}; that takes {floor} {noun}s "
            f"at least")


def _mcnemar_detection(r, target, floor, alpha, power):
    """_detection() of a 0/1 metric: exact McNemar power at the observed
    share of discordant items.  Only the two discordant cells enter the
    power, so the designs below carry the gap where B's accuracy goes."""
    n, method = r.n_items, "McNemar exact"
    d = Fraction(r.mcnemar.a_only + r.mcnemar.b_only, n)
    if n < floor:
        return _Detection(None, None, _too_few(n, "item", floor, alpha),
                         method, power=power)
    if not d:
        return _Detection(None, None, "the runs agree on every item: no "
                         "discordant item to size a difference from", method,
                         power=power)

    def design(g):
        g = min(d, _exact(g))
        return _Design(0.0, float(g), float((d - g) / 2), float((d + g) / 2))

    mde = _detectable_gap(n, design, 0.0, alpha=alpha, power=power,
                         most=float(d),
                         guess=_z_sum(alpha, power) * math.sqrt(d / n))
    why = None if mde is not None else (
        f"even every discordant item going one way (a gap of "
        f"{float(d):.4g}) is detected with less than {power:.0%} power")
    needed = None
    if target > d:
        why = (f"a gap of {float(target):.4g} cannot arise with the "
               f"discordance {float(d):.4f}")
    elif target:
        needed = _items_for_power(design(target), alpha=alpha, power=power)
    return _Detection(mde, needed, why, method, power=power)


def _pilot_plan(r, *, gap=None, alpha=0.05, power=_POWER):
    """Return one line: the items that detect *gap* (by default the
    pilot's own) for a _Spread of pilot data, by _detection().

    >>> _pilot_plan(_Spread("acc", "binary", 500, Fraction(18, 500), 0.0,
    ...                   McNemar(67, 85, None), None)).split("; ")[-1]
    '1890 items detect +0.036 with 80% power (McNemar exact, alpha 0.05)'
    """
    target = r.gap if gap is None else gap
    words = (f"{r.metric} ({_items(r.n_items, 'pilot item')}"
             + (f" in {r.clusters} clusters" if r.clusters is not None
                else "") + f", observed gap {float(r.gap):+.4g}): ")
    found = _detection(r, gap=gap, alpha=alpha, power=power)
    if r.mcnemar is not None:
        m = r.mcnemar
        words += f"discordance {(m.a_only + m.b_only) / r.n_items:.4f}; "
    elif r.se:
        words += f"standard error of the mean difference {r.se:.4g}; "
    if found.items_needed is None:
        return words + (found.why or "no gap to plan for")
    about = "" if found.method == "McNemar exact" else "about "
    return words + (f"{about}{found.items_needed} items detect "
                    f"{float(target):+.4g} with {power:.0%} power "
                    f"({found.method}, alpha {alpha:g})")


class _Judgement(NamedTuple):
    """What a _MetricResult means, after the adjustment across metrics
    (Holm's unless --adjust says otherwise)."""
    p_holm: float                # Holm's adjusted p, whatever the adjustment
    verdict: str             # better, worse, no detectable difference,
                             # or non-inferior
    detection: _Detection
    notes: list
    margin: object = None        # the non-inferiority margin, or None
    non_inferior: object = None  # True or False when there is a margin
    margin_ci: object = None     # the interval it was judged on
    margin_method: object = None  # that interval's name
    caution: object = None       # a warning shown beside the verdict
    equivalence: object = None   # an _Equivalence, with --equivalence
    family: str = "1 metric"     # the Holm family, as it was formed
    family_size: int = 1
    adjust: str = "holm"         # the adjustment the verdict follows
    p_adjusted: object = None    # ... and its adjusted p


# Non-inferiority is judged on an interval whose coverage holds at the
# margin, not on the percentile bootstrap (with 100 items and few
# discordant pairs that called a candidate exactly at the margin
# non-inferior in 8.8% of replays against a nominal 2.5%, and five
# identical items non-inferior from [0, 0]).  A
# 0/1 metric on independent items uses Newcombe's score interval; any other
# metric the Student t interval of the mean paired difference, with the
# clustered standard error and _cluster_df's degrees of freedom (G - 1 for
# G clusters of one size).
# The tests measure both at the margin.  An interval of no width says
# nothing, so it never makes a candidate non-inferior.

def _margin_interval(r, confidence=CONFIDENCE):
    """Return (interval, its name) on which non-inferiority is judged, or
    (None, why) where the data give no interval with width."""
    if r.mcnemar is not None:
        return r.score_ci, "Newcombe score interval"
    if getattr(r, "method", None) == "prediction-powered":   # a _Spread
        return r.ci_paired, f"{r.paired_method} interval"     # has none
    units = r.n_items if r.clusters is None else r.clusters
    if units < 2 or not r.se:
        return None, ("the paired differences have no spread, so no "
                      "interval has width")
    df = units - 1 if r.clusters is None else r.df
    half = _student_t_upper(float((1 - _exact(confidence)) / 2), df) * r.se
    return (Interval(float(r.gap) - half, float(r.gap) + half),
            f"t interval, {_df_words(df)}")


class _Equivalence(NamedTuple):
    """Two one-sided tests of |b - a| < margin (Schuirmann 1987)."""
    margin: float
    verdict: str             # "equivalent", "not equivalent", "cannot tell"
    ci: object               # the 1 - 2 alpha interval, or None
    method: str              # its name, or why there is none


# Equivalence within a margin M, by two one-sided tests at alpha
# (Schuirmann 1987): equivalent exactly where the 1 - 2 alpha interval of
# the paired difference lies inside (-M, M), the interval of
# non-inferiority (_margin_interval) at that level; not equivalent where it
# lies wholly beyond a margin; else the data cannot tell.  A difference
# that is not significant is not equivalence: this is the test of it.

def _equivalence(r, margin, alpha=0.05):
    """Return the _Equivalence of a _MetricResult within +-margin."""
    level = 1 - 2 * _exact(alpha)
    if r.mcnemar is not None:
        m = r.mcnemar
        both = int(_exact(r.a) * r.n_items) - m.a_only
        ci = _newcombe_interval(both, m.a_only, m.b_only,
                               r.n_items - both - m.a_only - m.b_only,
                               confidence=level)
        name = "Newcombe score interval"
    else:
        ci, name = _margin_interval(r, level)
    if ci is None:
        return _Equivalence(margin, "cannot tell", None, name)
    lo, hi = float(ci.lo), float(ci.hi)
    verdict = ("equivalent" if -margin < lo and hi < margin else
               "not equivalent" if lo >= margin or hi <= -margin else
               "cannot tell")
    return _Equivalence(margin, verdict, ci, name)


def _judge(results, options=_Options(), *, margin=None, power=_POWER,
          family="metrics", equivalent=None):
    """Return a _Judgement for each _MetricResult, in order; the _Options
    give alpha, confidence, jobs and adjust.

    A metric is better or worse when its adjusted p is below alpha, in
    the direction of its gap: Holm's (the family-wise error rate), or as
    --adjust names it in _ADJUSTMENTS (Benjamini-Hochberg's false
    discovery rate, Benjamini-Yekutieli's, none).  With a margin (one number for every
    metric, or a dict from metric names to margins) it is non-inferior
    when _margin_interval's worse end stays within -margin in the metric's
    direction; a metric that is worse can be non-inferior too.  Else
    there is no detectable difference.  Holm's adjustment runs over all
    the results, the *family* (named in the notes: metrics, or subsets x
    metrics).  With jobs > 1 and many results (subsets: each one's exact
    power sizing takes milliseconds) a helper process judges half.
    """
    alpha, confidence, adjust = (options.alpha, options.confidence,
                                 options.adjust)
    holm = _holm([r.p for r in results])
    adjusted = _ADJUSTMENTS[adjust]([r.p for r in results])
    margins = (margin if isinstance(margin, dict)
               else {r.metric: margin for r in results})
    if not family[:1].isdigit():       # "metrics": counted here
        family = f"{len(results)} {family}"
    tasks = [(r, p, alpha, margins.get(r.metric), power, family, confidence,
              adjust) for r, p in zip(results, adjusted)]
    out = [j._replace(family=family, family_size=len(results), p_holm=h)
           for j, h in zip(_in_parallel(_judge_one, tasks, options.jobs
                                        if len(tasks) >= 8 else 1), holm)]
    for k, r in enumerate(results):       # *equivalent*: {metric: margin}
        if (equivalent or {}).get(r.metric) is not None:
            out[k] = out[k]._replace(equivalence=_equivalence(
                r, equivalent[r.metric], alpha))
    return out


def _judge_one(r, p_adjusted, alpha, margin, power, family, confidence,
               adjust="holm"):
    """Return the _Judgement of one _MetricResult given its p adjusted as
    *adjust* says (see _judge; its p_holm is set there)."""
    sign = 1 if r.direction == "higher" else -1
    worst = min(sign * r.ci_paired.lo, sign * r.ci_paired.hi)
    best = max(sign * r.ci_paired.lo, sign * r.ci_paired.hi)
    notes, ni, ni_ci, ni_name = [], None, None, None
    if margin is not None:
        ni_ci, ni_name = _margin_interval(r, confidence)
        ni = (ni_ci is not None
              and min(sign * ni_ci.lo, sign * ni_ci.hi) > -margin)
        if ni_ci is None:
            notes.append(f"non-inferiority is not judged: {ni_name}")
            ni_name = None
    if p_adjusted < alpha:
        verdict = "better" if sign * r.gap > 0 else "worse"
    elif ni:
        verdict = "non-inferior"
    else:
        verdict = "no detectable difference"
    if r.n_items < 20:
        notes.append(f"only {_items(r.n_items)}: intervals and p-values are "
                     f"rough")
    caution = None
    if r.clusters is not None and r.clusters < 5:
        caution = f"only {r.clusters} clusters"
        notes.append(f"{caution}: the t interval and test rest on the "
                     f"cluster totals being symmetric, which so few cannot "
                     f"show (simulated, they covered 95% with symmetric "
                     f"cluster effects and 85-87% with strongly skewed "
                     f"ones at 3 to 20 clusters)")
    if r.clusters is not None and r.kind == "binary":
        notes.append("McNemar's test is not used: it takes items as "
                     "independent, and clustered items are not")
    if not r.se and not r.gap:
        notes.append("the two runs agree on every item" if r.clusters is None
                     else "the two runs' totals agree in every cluster")
    if ((worst > 0 or best < 0) != (float(r.p) < alpha)
            and _exact(confidence) == 1 - _exact(alpha)):
        notes.append((f"the paired CI leaves out 0 but the {r.test} test's "
                      f"p = {_p_text(r.p)} is not below {alpha:g}"
                      if worst > 0 or best < 0 else
                      f"the {r.test} test's p = {_p_text(r.p)} is below "
                      f"{alpha:g} but the paired CI takes in 0")
                     + ": the gap is at the edge of what these items can "
                       "show, and the verdict follows the test")
    if float(r.p) < alpha <= p_adjusted:
        notes.append(f"significant before the {_ADJUST_NAMES[adjust]} "
                     f"adjustment across {family} (p = {_p_text(r.p)}), not "
                     f"after"
                     + ("; the paired CI is not adjusted, so it leaves out 0 "
                        "as the test did before" if worst > 0 or best < 0
                        else ""))
    if (isinstance(r.draws, list) and r.draws and min(r.draws) < max(r.draws)
            and r.boot_ci is None):          # the CI is the bootstrap's
        ends = [name for name, end, extreme in (
            ("lower", r.ci_paired.lo, min(r.draws)),
            ("upper", r.ci_paired.hi, max(r.draws)))
            if float(end) == extreme]
        if ends:
            notes.append(f"the paired CI's {' and '.join(ends)} "
                         f"end{'s are' if len(ends) > 1 else ' is'} the "
                         f"most extreme of the {len(r.draws)} resampled "
                         f"differences: the tail goes no further in these "
                         f"resamples, which may be too few (or the items "
                         f"too few) for this confidence")
    found = _detection(r, alpha=alpha, power=power)
    if verdict in ("better", "worse"):
        found = found._replace(items_needed=None)
    return _Judgement(p_adjusted, verdict, found, notes, margin, ni, ni_ci,
                     ni_name, caution, adjust=adjust, p_adjusted=p_adjusted)


## Input ######################################################################

# Doors (called from other sections): _best_of_runs, _check, _compare_run,
# _Compared, _Dropped, _finite_number, _FORMATS, _grouped_runs,
# _holds_preferences, _human_battles, _ID_FIELDS, _judged, _judged_metric,
# _label_sample, _labels_from_pilot, _lower_is_better, _margins, _named_runs,
# _open_source, _plan_from_pilot, _preference_battles, _rank_input.

# Files are read line by line and never held whole (a JSON array is the
# exception: it is one value).  Every error says where to look ("FILE:LINE"
# or "FILE: record N").  Values stay as read until a metric asks for them:
# a missing or non-numeric value is an error, never silently dropped, since
# dropping failures flatters a run.  A metric's values go straight into a
# tally of (a, b) pairs, so a file of 0/1 scores takes the same memory at
# any length; of two joined runs, the baseline's ids and values are kept in
# a dict of positions and arrays of floats.

_ID_FIELDS = ("id", "item", "doc_id", "sample_id", "doc.id")
_MODEL_FIELD = re.compile(r"(model|system|llm|checkpoint|submission)s?"
                          r"([ _-]?(name|id))?", re.IGNORECASE)
_ITEM_FIELD = re.compile(r"(.*[ _.-])?(id|idx|index|item|doc|sample|example|"
                         r"question|prompt|instruction|input|query)s?",
                         re.IGNORECASE)     # a field that names items
_STDIN = "-"          # a file name that reads standard input
_KNOWN_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
                  ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json"}


class _Run(NamedTuple):
    """One system's per-item results: the records and where each is."""
    path: str
    records: list
    places: list


class _Source(NamedTuple):
    """A file being read: its first record and an iterator of all of them.

    batches yields (numbers, records) lists of a few thousand records:
    CSV rows (lists, see *fields*) or JSON objects, and where each starts;
    where(number) names the place.
    """
    path: str
    kind: str
    fields: list
    first: dict
    first_number: int
    batches: object
    where: object
    notes: tuple = ()        # what the reader did: epochs averaged, ...
    systems: tuple = ()      # the systems of a file that holds several
    corpus: tuple = ()       # _Stats the framework takes over the corpus
    metrics: tuple = ()      # a framework's metrics, in every record
    task: str = ""           # the task (or scenario) run, if the reader knows
    forkable: bool = True    # its batches may be read in a helper process
    measure: str = "success"  # what a file of several systems' columns holds
    identity: tuple = ()     # fields holding the item itself or its hash (the join checks them)

    def run(self):
        """Return a _Run holding the first record only, for header checks."""
        return _Run(self.path, [self.first], [self.where(self.first_number)])


def _table_source(path, inflate=_INFLATE_LIMIT):
    """Return the _Source of a CSV, TSV, JSONL or JSON-array file (or .gz).

    The format comes from the extension, else from the content.  A
    byte-order mark and CRLF line ends are fine.  An empty file, text that
    is not UTF-8 and malformed JSON raise EvalDeltaError naming the line.
    """
    chunks, head = _lines(path, inflate), []
    for start, lines in chunks:
        head.append((start, lines))
        first_line = next((line for line in lines if line.strip()), None)
        if first_line is not None:
            break
    else:
        raise EvalDeltaError(f"{path}: empty file")
    kind = _format_of(path, first_line)
    chunks = itertools.chain(head, chunks)
    notes = ()
    if kind in ("csv", "tsv"):
        delimiter = _delimiter(first_line, "\t" if kind == "tsv" else ",")
        if delimiter == ";":
            notes = ("columns separated by ';' (read from its header)",)
        batches, fields = _table_rows(path, chunks, delimiter)
    elif kind == "jsonl":
        batches, fields = _json_rows(path, chunks), None
    else:
        batches, fields = _json_array_rows(path, chunks), None
    first = next(batches, None)
    if first is None:
        raise EvalDeltaError(f"{path}: no records")
    batches = itertools.chain([first], batches)
    record = first[1][0]
    if fields is not None:
        record = dict(zip(fields, record))
    where = _record_place(path) if kind == "json" else _line_place(path)
    return _Source(path, kind, fields, record, first[0][0], batches, where,
                  notes)


def _delimiter(header, usual):
    """Return the delimiter of a CSV or TSV file: *usual* (by its name's
    ending), unless its header line holds none of it and does hold ';' or
    a tab (a spreadsheet's semicolon CSV, a .csv that is TSV).

    >>> _delimiter("id;score", ","), _delimiter("id,score", ",")
    (';', ',')
    """
    if usual in header:
        return usual
    return max((";", "\t", ","), key=header.count) if any(
        d in header for d in (";", "\t", ",")) else usual


def _line_place(path):
    """Return where() of a line-numbered file: 'FILE:LINE'."""
    def where(number):
        return f"{path}:{number}"
    return where


def _record_place(path):
    """Return where() of a JSON array: 'FILE: record N'."""
    def where(number):
        return f"{path}: record {number}"
    return where


def _read_run(path, how=None):
    """Return the _Run in a file: every record as a dict, with its place."""
    source = _open_source(path, how)
    records, places = [], []
    for numbers, batch in source.batches:
        if source.fields is not None:
            batch = [dict(zip(source.fields, row)) for row in batch]
        records += batch
        places += map(source.where, numbers)
    return _Run(path, records, places)


def _lines(path, inflate=_INFLATE_LIMIT):
    """Yield (number of the first line, lines) of a UTF-8 file, gunzipped
    if need be (to *inflate* bytes at most), some 64 KB of lines at a time.

    If reading takes longer than _PROGRESS_AFTER seconds and stderr is a
    terminal, the share read so far is shown there.
    """
    try:
        raw = _stdin() if path == _STDIN else open(path, "rb")
    except OSError as exc:
        raise EvalDeltaError(f"{path}: cannot read: {exc.strerror}") from None
    with raw:
        gzipped = raw.peek(2)[:2] == b"\x1f\x8b"
        binary = (io.BufferedReader(_Inflating(gzip.GzipFile(fileobj=raw),
                                               path, inflate))
                  if gzipped else raw)
        text = io.TextIOWrapper(binary, encoding="utf-8-sig", newline="")
        shown = _Shown(path, raw, _PROGRESS_AFTER)
        start = 1
        try:
            for lines in iter(functools.partial(text.readlines, 1 << 16), []):
                shown.update()
                yield start, lines
                start += len(lines)
        except UnicodeDecodeError:
            raise EvalDeltaError(_not_utf8(path, gzipped)) from None
        except (OSError, EOFError, zlib.error) as exc:
            reason = getattr(exc, "strerror", None) or exc
            raise EvalDeltaError(f"{path}: cannot read: {reason}") from None
        finally:
            shown.clear()


class _Inflating(io.RawIOBase):
    """A gzip stream that stops with EvalDeltaError once it has given more
    than *limit* bytes."""

    def __init__(self, stream, path, limit):
        self.stream, self.path, self.limit, self.given = stream, path, limit, 0

    def readable(self):
        return True

    def readinto(self, buffer):
        n = self.stream.readinto(buffer)
        self.given += n
        if self.given > self.limit:
            raise EvalDeltaError(_too_inflated(self.path, "its gzip stream",
                                               self.limit))
        return n


def _too_inflated(path, what, limit):
    """Return the message of a file that inflates past *limit* bytes."""
    mb = limit / (1 << 20)
    return (f"{path}: {what} inflates past {mb:g} MB, the most a compressed "
            f"file may inflate to here (a guard against archive bombs); if "
            f"you trust the file, --max-inflate {4 * mb:g} reads it")


def _stdin():
    """Return standard input as a peekable binary stream."""
    raw = sys.stdin.buffer
    return raw if hasattr(raw, "peek") else io.BufferedReader(raw)


def _not_utf8(path, gzipped):
    """Return the message naming the first line that is not UTF-8."""
    if path == _STDIN:
        return f"{path}: not UTF-8 text"
    with (gzip.open if gzipped else open)(path, "rb") as f:
        for number, line in enumerate(f, 1):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return (f"{path}:{number}: not UTF-8 text (byte "
                        f"0x{line[exc.start]:02x})")
    return f"{path}: not UTF-8 text"                # pragma: no cover


_QUIET = False       # True in a helper process: only one shows progress


class _Shown:
    """Progress of a file being read, on stderr when it is a terminal."""

    def __init__(self, path, raw, after):
        self.path, self.raw, self.after = path, raw, after
        self.start = time.monotonic()
        try:
            self.size = os.fstat(raw.fileno()).st_size
        except (OSError, ValueError):        # not a file: no share to show
            self.size = 0
        self.active = False

    def update(self):
        if time.monotonic() - self.start < self.after:
            return
        if not self.size or _QUIET or not sys.stderr.isatty():
            return
        self.active = True
        share = min(1.0, self.raw.tell() / self.size)
        sys.stderr.write(f"\rreading {self.path}: {share:.0%} ")
        sys.stderr.flush()

    def clear(self):
        if self.active:
            sys.stderr.write("\r" + " " * (len(self.path) + 18) + "\r")
            sys.stderr.flush()


def _format_of(path, first_line):
    """Return a table file's format (csv, tsv, jsonl or json) from its name,
    else its first line."""
    name = path[:-3] if path.endswith(".gz") else path
    kind = _KNOWN_FORMATS.get(os.path.splitext(name)[1].lower())
    start = first_line.lstrip()[:1]
    if kind == "json" and start == "{":
        return "jsonl"                   # many tools write JSONL as .json
    if kind:
        return kind
    if start == "[":
        return "json"
    if start == "{":
        return "jsonl"
    return "tsv" if "\t" in first_line else "csv"


def _table_rows(path, chunks, delimiter):
    """Return (batches, header) of a CSV or TSV file; rows are checked.
    A field may be as long as a line (a model's whole output in a results
    table): the csv module's 128 KiB limit is lifted to _LONGEST_FIELD."""
    if csv.field_size_limit() < _LONGEST_FIELD:
        csv.field_size_limit(_LONGEST_FIELD)
    reader = csv.reader(itertools.chain.from_iterable(
        lines for _, lines in chunks), delimiter=delimiter)
    header = [name.strip() for name in next(reader, None) or []]
    if len(set(header)) != len(header):
        raise EvalDeltaError(f"{path}:1: repeated column name in the header")

    def batches():
        width = len(header)
        numbers, rows = [], []
        for row in reader:
            if len(row) != width:
                if not row:
                    continue
                raise EvalDeltaError(f"{path}:{reader.line_num}: {len(row)} "
                                     f"fields, the header has {width}")
            numbers.append(reader.line_num)
            rows.append(row)
            if len(rows) == _BATCH:
                yield numbers, rows
                numbers, rows = [], []
        if rows:
            yield numbers, rows
    return batches(), header


def _json_rows(path, chunks):
    """Yield (numbers, objects) of a JSONL file's non-blank lines.

    A chunk whose every line is one object and its line end takes one
    raw_decode per line and a few C-level checks; any other chunk goes
    line by line through _json_object, which says what is wrong.
    """
    decode = _JSON.raw_decode
    for start, lines in chunks:
        records = _joined_objects(lines)
        if records is not None:
            yield list(range(start, start + len(lines))), records
            continue
        try:
            decoded = list(map(decode, lines))
        except (ValueError, RecursionError):
            decoded = None
        if decoded and _whole_objects(lines, decoded):
            yield (list(range(start, start + len(lines))),
                   list(map(itemgetter(0), decoded)))
            continue
        numbers, records = [], []
        for number, line in enumerate(lines, start):
            if not line.isspace():
                numbers.append(number)
                records.append(_json_object(line, f"{path}:{number}"))
        if records:
            yield numbers, records


def _joined_objects(lines):
    """Return the objects of a chunk of JSONL lines parsed in one call,
    as one JSON array (three times faster than a call per line), or None
    when that is not surely one object per line: the parse fails, the
    count or a type is off, or a line does not begin with { and hold as
    many [ as ] (counted as characters).  An object can only span lines
    inside an array left open at a line's end (within an object, the
    next line's { cannot follow a comma); a file would have to hide
    brackets in strings to pair up such lines and still pass.  Then the
    caller goes line by line and names what is wrong where."""
    try:
        records = _JSON.decode("[" + ",".join(lines) + "]")
    except (ValueError, RecursionError):
        return None
    if len(records) != len(lines) or set(map(type, records)) != {dict} \
            or not all(map(methodcaller("startswith", "{"), lines)):
        return None
    if list(map(methodcaller("count", "["), lines)) != list(
            map(methodcaller("count", "]"), lines)):
        return None
    return records


def _whole_objects(lines, decoded):
    """Return True if each line was one JSON object and its line end."""
    if set(map(type, map(itemgetter(0), decoded))) != {dict}:
        return False
    rest = set(map(sub, map(len, lines), map(itemgetter(1), decoded)))
    if not rest <= {0, 1}:
        return False                     # CRLF, or more after the object
    # Lines end at a line end, but the file's last line may not.
    return decoded[-1][1] == len(lines[-1]) or lines[-1][-1] in "\r\n"


def _parse_document(path, chunks):
    """Return the one JSON value that the (start, lines) chunks hold.

    NaN and Infinity, which Python's json writes (Inspect's unscored
    values), are read as floats: a metric reader then names them."""
    text = "".join(line for _, lines in chunks for line in lines)
    try:
        return json.loads(text, parse_constant=float)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        raise EvalDeltaError(f"{path}:{line or 1}: malformed JSON: "
                             f"{getattr(exc, 'msg', exc)}") from None
    except RecursionError:
        raise EvalDeltaError(f"{path}: JSON nested too deep to read "
                             f"(Python's parser stops near "
                             f"{sys.getrecursionlimit()} levels)") from None


def _json_array_rows(path, chunks):
    """Yield (numbers, objects) of a file holding one JSON array of objects."""
    items = _parse_document(path, chunks)
    if not isinstance(items, list):
        raise EvalDeltaError(f"{path}: expected a JSON array of objects")
    for number, item in enumerate(items, 1):
        if not isinstance(item, dict):
            raise EvalDeltaError(f"{path}: record {number}: expected a JSON "
                                 f"object")
    for start in range(0, len(items), _BATCH):
        batch = items[start:start + _BATCH]
        yield list(range(start + 1, start + 1 + len(batch))), batch


def _json_object(line, place):
    """Return the JSON object a JSONL line holds, or raise EvalDeltaError
    naming *place*."""
    try:
        item = _JSON.decode(line)
    except ValueError as exc:
        raise EvalDeltaError(f"{place}: malformed JSON: "
                             f"{getattr(exc, 'msg', exc)}") from None
    except RecursionError:
        raise EvalDeltaError(f"{place}: JSON nested too deep to read "
                             f"(Python's parser stops near "
                             f"{sys.getrecursionlimit()} levels)") from None
    if type(item) is not dict:
        raise EvalDeltaError(f"{place}: expected a JSON object")
    return item


# NaN and Infinity are no JSON, but Python's json.dumps writes them, and
# so do many tools: read as floats, a NaN in a compared metric is then a
# missing value, said with its line (_missing), and elsewhere ignored.
_JSON = json.JSONDecoder(parse_constant=float)


def _field(record, name):
    """Return record[name], following dots into nested objects if need be.

    >>> _field({"metrics": {"acc": 1}}, "metrics.acc")
    1
    """
    if name in record:
        return record[name]
    value = record
    for part in name.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _getter(source, name):
    """Return a function giving a record's *name* field, or _MISSING."""
    if source.fields is None:
        if "." not in name:
            return methodcaller("get", name, _MISSING)
        return functools.partial(_field, name=name)
    if name not in source.fields:
        return lambda row: _MISSING
    return itemgetter(source.fields.index(name))


def _finite_number(value):
    """Return value as a finite float, or raise ValueError saying why.

    >>> _finite_number("0.5"), _finite_number(True), _finite_number(" 3 ")
    (0.5, 1.0, 3.0)
    """
    if _missing(value):
        raise ValueError("missing value")
    if _missing_number(value):
        raise ValueError(f"missing value ({value!r})")
    given = value
    if isinstance(value, str):
        word = value.strip().lower()
        if "_" in word:                  # Python's 1_0; data mean text
            raise ValueError(f"not a number: {value!r}")
        value = {"true": 1.0, "false": 0.0}.get(word, word)
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"not a number: {given!r}") from None
    except OverflowError:
        raise ValueError(f"not a finite number: {given!r}") from None
    if not math.isfinite(x):
        raise ValueError(f"not a finite number: {given!r}")
    return x + 0.0                       # no -0.0


class _Column:
    """Reads one field of a batch of records: numbers, ids or labels.

    A C-level getter picks the field from every record; remembered values
    (scores repeat: a 0/1 column has two) skip the checks, and only the
    rest go through them one by one, so that errors name their line.
    """

    def __init__(self, source, field, binary=False, role="label",
                 optional=False):
        self.get = _getter(source, field)
        self.field, self.where, self.binary = field, source.where, binary
        self.role, self.fields = role, source.fields
        self.known, self.optional = {}, optional

    def numbers(self, numbers, records):
        """Return the field of each record as a finite float."""
        return self.numbers_of(numbers, list(map(self.get, records)))

    def numbers_of(self, numbers, raw):
        """Return the field's values *raw*, as read, as finite floats."""
        try:
            values = list(map(self.known.get, raw))
        except TypeError:                   # a list or object: not a number
            values = [None] * len(raw)
        if None in values:
            fast = self._plain_numbers(raw)
            if fast is not None:
                return fast
            values = [self._number(number, value) if x is None else x
                      for number, value, x in zip(numbers, raw, values)]
        return values

    def _plain_numbers(self, raw):
        """Return raw as floats if every one is a finite JSON number (int
        or float, not bool), checked at C level; else None."""
        if self.binary or not set(map(type, raw)) <= {float, int}:
            return None
        try:
            values = list(map(float, raw))
        except OverflowError:
            return None
        if not all(map(math.isfinite, values)):
            return None
        return list(map(add, values, repeat(0.0)))     # no -0.0

    def _number(self, number, value):
        if self.optional and _missing_number(value):     # a JSON NaN too
            return math.nan                  # no label here: the usual case
        try:
            x = _finite_number(value)
        except ValueError as exc:
            hint = ("; --allow-partial leaves out the items missing one, "
                    "and counts them" if _missing_number(value) else "")
            raise EvalDeltaError(f"{self.where(number)}: {self.field}: "
                                 f"{exc}{hint}") from None
        if self.binary and x not in (0, 1):
            raise EvalDeltaError(f"{self.where(number)}: {self.field} is "
                                 f"declared binary but is {x:g}")
        if len(self.known) < 4096 and value is not _MISSING:
            self.known[value] = x
        return x

    def labels(self, numbers, records):
        """Return the field of each record as text: an id or a cluster.

        A missing or blank one is an error.
        """
        raw = list(map(self.get, records))
        try:
            labels = list(map(str.strip, raw))
        except TypeError:                   # numbers, or missing
            if set(map(type, raw)) == {int}:        # lm-eval's doc_id
                labels = list(map(str, raw))
            else:
                labels = [str(x).strip() if x not in (_MISSING, None)
                          else "" for x in raw]
        if "" in labels:
            at = labels.index("")
            where = self.where(numbers[at])
            if raw[at] in (_MISSING, None):
                names = self.fields or list(records[at])
                raise EvalDeltaError(
                    f"{where}: no {self.role} field {self.field!r} in this "
                    f"record; its fields are {', '.join(map(str, names))}")
            raise EvalDeltaError(f"{where}: the {self.role} field "
                                 f"{self.field!r} is blank")
        return labels


def _is_number(value):
    """Return True for a value that reads as a number, finite or not.

    Metric discovery uses it; a NaN is then reported where it stands.
    """
    if isinstance(value, (int, float)):
        return True
    if isinstance(value, str):
        try:
            if "_" in value:
                raise ValueError(value)
            float(value.strip())
        except ValueError:
            return value.strip().lower() in ("true", "false")
        return True
    return False


def _read_tallies(baseline, candidate, metrics, options=_Options(),
                  columns=False, groups=None, left_out=None):
    """Return ([tally per metric], dropped) of one wide file or two runs.

    A tally counts the items with each (a, b) pair of values, or with a
    cluster (the options' cluster, else their by) maps each cluster label
    to such a count (see _compare_tally); with *columns* and no cluster
    it is the _Columns of the items' values.  With one _Source each
    record holds both systems.  With two, records are joined on the
    options' id_col (by default the first of id, item, doc_id, sample_id
    that both runs have); repeated ids, and ids in one run only (unless
    allow_partial; *dropped* counts them), raise EvalDeltaError.  A wide
    file's rows are its items: its ids (id_col, or the first of
    _ID_FIELDS it has) are checked for repeats; those it has with no
    memory while they rise (see _Rising), else in its first _WIDE_IDS
    rows, since keeping every id takes memory for every row.  With jobs >
    1 a large candidate file is parsed in a helper process while the
    baseline is read (_candidate_batches): the same tallies.  With
    sequential (and *columns*) a wide file's _Columns keep its rows' order
    from the first row on, as two runs' keep the baseline's.  With a list
    *groups* two runs' _Columns come with a cluster (or subset) too: the
    list is filled with each item's label, in the columns' order.  With
    *left_out*, [(run, [(numbers, records)] --allow-partial left out of it
    for a missing value)] of the two runs (_complete_rows), their ids are
    not counted again as ids in one run only.
    """
    cluster, role = _grouping(options)
    columns = columns and (cluster is None or groups is not None)
    if candidate is None:
        return _read_wide(baseline, metrics, cluster, options.id_col, role,
                          columns, options.sequential and columns), 0
    key = options.id_col or _shared_id_field(baseline.run(), candidate.run())
    return _read_joined(baseline, candidate, metrics, key, options, columns,
                        groups, _left_ids(left_out, key))


def _left_ids(left_out, key):
    """Return [set of ids] of the records each run left out (see
    _read_tallies), [set(), set()] if none."""
    out = [set(), set()]
    for k, (source, removed) in enumerate(left_out or ()):
        ids = _Column(source, key, role="id")
        for numbers, records in removed:
            out[k].update(ids.labels(numbers, records))
    return out


def _grouping(options):
    """Return (the field that groups items, its role in messages): --by's
    subsets, else --cluster's clusters, else (None, "cluster")."""
    if options.by:
        return options.by, "subset"
    if options.strata:
        return options.strata, "stratum"
    return options.cluster, "cluster"


def _read_joint(sources, metric, *, id_field=None, allow_partial=False,
               by=None, different_items=False):
    """Return (Counter of S-tuples, dropped) of one metric of S runs
    joined on their ids (by default the first of _ID_FIELDS they all
    have): one value per run for each item in every run.  Ids in some
    runs only are an error unless allow_partial (*dropped* counts them).
    With *by*, a field of the first run's records, the tally is a dict
    from each subset's label to its Counter.  Runs that list the same ids
    in the same order (one tool's runs of one eval, as a rule) are
    joined by position, with no dict of ids: ten runs of 10^6 items hold
    their ids as ten _IdLists, not ten dicts of a million strings; runs
    with the same ids in other orders (written as items finished) are
    placed in the first run's order through its _Positions; only runs
    whose ids differ take a dict and a set each.  Ids that hold other
    items in another run are an error unless different_items (see
    _same_items).
    """
    key = id_field or _shared_id_field(sources[0].run(), sources[1].run())
    sources, kept = _identities(sources, key)
    runs, marks = [], None
    for k, source in enumerate(sources):
        label = by if by and not k else None
        order, _, values, found = _read_baseline(source, [metric], key,
                                                 label, "subset")
        runs.append((source.path, order, values[0]))
        marks = found if label else marks
    said = _same_items(kept, key, different_items)
    first = runs[0][1]
    columns = [values for _, _, values in runs]
    places = None                    # the first run's _Positions
    for k, (_, order, values) in enumerate(runs[1:], 1):
        if order.matches(first):
            continue
        if places is None:
            places = first.positions()
        columns[k] = _placed(places, order, values)
        if columns[k] is None:
            break                    # not the same ids: the full join
    else:
        if len(first):               # the same ids in every run
            return _joint_tally(zip(*columns), marks), _Dropped(0, {},
                                                                said=said)
    del columns
    tables = [(dict(zip(order, range(len(order)))), values)
              for _, order, values in runs]
    del runs, order, places
    labels = marks and {item: marks[at] for item, at in tables[0][0].items()}
    order, dropped = _shared_ids([(s.path, ids) for s, (ids, _) in zip(
        sources, tables)], key, allow_partial, "ranks")
    dropped.said += said
    rows = (tuple(values[ids[item]] for ids, values in tables)
            for item in order)
    return _joint_tally(rows, labels and list(map(labels.__getitem__,
                                                  order))), dropped


def _placed(places, order, values):
    """Return *values*, of the ids *order* (an _IdList), in the order of
    the ids of *places* (a _Positions), or None unless the ids are the
    same; looked up a batch at a time."""
    if len(order) != places.count:
        return None
    aligned = array("d", bytes(8 * places.count))
    for k, start in enumerate(order.starts[:-1]):
        ats = places.where(order._batch(k))
        if None in ats:
            return None
        for at, x in zip(ats, values[start:start + len(ats)]):
            aligned[at] = x
    return aligned


def _joint_tally(rows, labels=None):
    """Return the Counter of the S-tuples *rows*, or with *labels* (one a
    row) the dict from each label to the Counter of its rows."""
    if labels is None:
        return collections.Counter(rows)
    tally = {}
    for label, row in zip(labels, rows):
        tally.setdefault(label, collections.Counter())[row] += 1
    return tally


def _complete_rows(source, fields, left):
    """Return *source* without the records that lack a value (absent,
    null, empty or a word such as NA: _missing_number) of one of
    *fields*, counting them in left[0]: what --allow-partial leaves out
    (a wide file's system that did not run an item, a run's unscored
    items); with a list left[1], the records left out are added to it as
    (numbers, records), for the join to tell their ids from ids missing
    from the run.  A file whose records all lack one is an error."""
    getters = [_getter(source, field) for field in fields]

    def batches():
        for numbers, records in source.batches:
            keep = [i for i, record in enumerate(records)
                    if not any(_missing_number(get(record))
                               for get in getters)]
            left[0] += len(records) - len(keep)
            if left[1:] and len(keep) < len(records):
                out = sorted(set(range(len(records))) - set(keep))
                left[1].append(([numbers[i] for i in out],
                                [records[i] for i in out]))
            if keep:
                yield [numbers[i] for i in keep], [records[i] for i in keep]
    kept = batches()
    first = next(kept, None)
    if first is None:
        raise EvalDeltaError(f"{source.path}: no record has a value of "
                             f"every one of {', '.join(fields)}")
    record = first[1][0]
    if source.fields is not None:
        record = dict(zip(source.fields, record))
    return source._replace(batches=itertools.chain([first], kept),
                           first=record, first_number=first[0][0],
                           forkable=False)      # left[0] counts here


def _count(tally, labels, a, b):
    """Count the pairs (a[i], b[i]) in *tally*, by label if there are any."""
    if labels is None:
        tally.update(zip(a, b))
        return
    for label, x, y in zip(labels, a, b):
        counts = tally.get(label)
        if counts is None:
            counts = tally[label] = collections.Counter()
        counts[x, y] += 1


def _read_wide(source, metrics, cluster, id_field, role="cluster",
               columns=False, ordered=False):
    """Return [tally] of the one metric of a wide file (both systems' columns
    in each row), checking its ids for repeats (see _read_tallies)."""
    (_, a_field, b_field, kind, *_), = metrics
    binary = kind == "binary"
    for field in (a_field, b_field):
        _require(source.run(), field, "column", "the columns are",
                 source.first)
    a, b = _Column(source, a_field, binary), _Column(source, b_field, binary)
    label = _Column(source, cluster, role=role) if cluster else None
    key = id_field or next((name for name in _ID_FIELDS if _field(
        source.first, name) is not _MISSING), None)
    ids = _Column(source, key, role="id") if key else None
    again = source.path != _STDIN and (source.fields is not None
                                      or source.kind == "jsonl")
    seen, rows, rising = set(), 0, _Rising(source, key, again)
    tally = collections.Counter() if cluster is None else {}
    if ordered:
        tally = _Columns(array("d"), array("d"))
    for numbers, records in source.batches:
        rows += len(numbers)
        if ids and id_field:
            seen.update(ids.labels(numbers, records))
            if len(seen) < rows:
                _find_repeat(source.path, key)
        elif ids and not rising.consecutive(list(map(ids.get, records))) \
                and not rising.add(numbers, ids.labels(numbers, records)):
            _find_repeat(source.path, key, _WIDE_IDS)
            ids = None
        xs, ys = a.numbers(numbers, records), b.numbers(numbers, records)
        if type(tally) is _Columns:
            tally.a.extend(xs)
            tally.b.extend(ys)
            continue
        _count(tally, label and label.labels(numbers, records), xs, ys)
        if columns and len(tally) > max(_BATCH, rows // 2):
            tally = _as_columns(tally)  # the pairs are mostly distinct
    return [tally]


def _as_columns(counter):
    """Return the _Columns of a Counter of (a, b) pairs, each pair as many
    times as counted: a wide file's rows are counted while their pairs
    repeat (a 0/1 metric's four take the same memory at any length), and
    kept item by item once most are distinct."""
    pairs = list(counter.elements())
    return _Columns(array("d", map(itemgetter(0), pairs)),
                   array("d", map(itemgetter(1), pairs)))


def _first_repeat(source, key, items, numbers, ids, places):
    """Raise EvalDeltaError at the first of *items* (at lines *numbers*)
    that repeats an id: of *ids* (positions into *places*), or of this
    batch."""
    here = {}
    for item, number in zip(items, numbers):
        if item in ids:
            _repeated(source, key, item, number, places[ids[item]])
        if item in here:
            _repeated(source, key, item, number, here[item])
        here[item] = number


def _find_repeat(path, key, most=None):
    """Raise EvalDeltaError at the first repeated *key* of the file (of
    its first *most* records, if given): read again, since the fast pass
    kept no line numbers of the ids (standard input cannot be read again:
    then the message names no line).  If no id repeats (ids out of order,
    or two ids' hashes alike), return."""
    if path == _STDIN:
        raise EvalDeltaError(f"{path}: {key} values repeat")
    source = _open_source(path)
    ids, first, rows = _Column(source, key), {}, 0
    for numbers, records in source.batches:
        for number, item in zip(numbers, ids.labels(numbers, records)):
            if item in first:
                _repeated(source, key, item, number, first[item])
            first[item] = number
        rows += len(numbers)
        if most is not None and rows >= most:
            return


def _repeated(source, key, item, number, first):
    """Raise the error of an id seen twice, naming both places."""
    raise EvalDeltaError(f"{source.where(number)}: {key} {item!r} repeated "
                         f"(first at {source.where(first)})")


def _read_joined(baseline, candidate, metrics, key, options, columns=False,
                 groups=None, gone=(set(), set())):
    """Return (tallies, dropped) of two runs joined on *key*: the baseline
    held, the candidate streamed past it (see _read_tallies; *groups*
    gets the items' labels where the columns are grouped; *gone* holds
    the ids each run left out for a missing value, which *dropped* does
    not count)."""
    (cluster, role), allow_partial = _grouping(options), options.allow_partial
    fields = [m.b_field for m in metrics] + ([cluster] if cluster else [])
    (baseline, candidate), kept = _identities((baseline, candidate), key)
    stream = _candidate_batches(candidate, key, fields, options.jobs)
    try:
        order, numbers, values, labels = _read_baseline(
            baseline, metrics, key, cluster, role)
    except BaseException:
        stream.close()
        raise
    places = None                     # a _Positions, made if needed
    seen = array("I", [0]) * len(numbers)      # candidate's number
    only, first_only = 0, []
    readers = [_Column(candidate, m.b_field, m.kind == "binary",
                       optional=m.optional) for m in metrics]
    tallies = [collections.Counter() if cluster is None else {}
               for _ in metrics]
    if columns:                     # B's values at A's positions
        tallies = [_Columns(a, array("d", [0.0]) * len(numbers))
                   for a in values]
    expected, valued = 0, 0      # ids another run left out for a value
    for batch_numbers, items, raws in stream:
        if (seen.typecode == "I" and batch_numbers
                and max(batch_numbers) >> 8 * seen.itemsize):
            seen = array("q", seen)   # past 2^32 records: 8 bytes each
        start = expected              # where the last batch ended?
        end = start + len(items)
        if not order.same(start, items):
            if places is None:        # the candidate's order differs
                places = order.positions()
            ats = places.where(items)
            start = ats[0]
            if start is not None:
                end = start + len(ats)
                if ats != list(range(start, end)):
                    start = None
        if start is not None:               # the baseline's order: slices
            ats, expected = range(start, end), end
            if seen[start:end].count(0) < len(ats):
                _match(candidate, key, seen, ats, batch_numbers, items)
            seen[start:end] = array(seen.typecode, batch_numbers)
            if columns:
                if cluster:
                    _check_labels(baseline, candidate, cluster, numbers, ats,
                                  [labels[at] for at in ats], raws[-1],
                                  batch_numbers)
                for tally, column, raw in zip(tallies, readers, raws):
                    tally.b[start:end] = array(
                        "d", column.numbers_of(batch_numbers, raw))
                continue
            keep, picked = ats, [a[start:end] for a in values]
        else:
            keep, only = _match(candidate, key, seen, ats, batch_numbers,
                                items, only, first_only)
            valued += sum(1 for at, item in zip(ats, items)
                          if at is None and item in gone[0]) if gone[0] else 0
            if len(keep) < len(ats):
                mask = [at is not None for at in ats]
                batch_numbers = list(itertools.compress(batch_numbers, mask))
                raws = [list(itertools.compress(raw, mask)) for raw in raws]
            picked = values if columns else [[a[at] for at in keep]
                                             for a in values]
        if not keep:
            continue
        mine = labels and [labels[at] for at in keep]
        if cluster:
            _check_labels(baseline, candidate, cluster, numbers, keep, mine,
                          raws[-1], batch_numbers)
        for tally, column, a, raw in zip(tallies, readers, picked, raws):
            b = column.numbers_of(batch_numbers, raw)
            if columns:
                for at, y in zip(keep, b):
                    tally.b[at] = y
            else:
                _count(tally, mine, a, b)
    _check_join(baseline, candidate, key, order, seen, only, first_only,
                allow_partial)
    said = _same_items(kept, key, options.different_items)
    missing = seen.count(0)
    unvalued = sum(1 for item in itertools.compress(
        order, map(operator.not_, seen)) if item in gone[1]) \
        if missing and gone[1] else 0
    if groups is not None and columns:
        groups.extend(itertools.compress(labels, map(bool, seen)))
    if columns and missing:           # the items in both runs
        shared = list(map(bool, seen))
        tallies = [_Columns(*(array("d", itertools.compress(v, shared))
                             for v in t)) for t in tallies]
    return tallies, _Dropped(only - valued + missing - unvalued, {
        candidate.path: missing - unvalued, baseline.path: only - valued},
        said=said)


def _candidate_batches(source, key, fields, jobs):
    """Return an iterable of a joined run's batches as (numbers, ids, [raw
    values of each field]).  With jobs > 1 a large file (a table, not
    standard input) is parsed in a helper process meanwhile (_prefetched,
    in Fast paths), while this process reads the other run; the batches
    and errors come in the order a single process would meet them."""
    big = (source.kind in ("jsonl", "csv", "tsv") and source.path != _STDIN
           and source.forkable
           and os.path.getsize(source.path) >= _PREFETCH_BYTES)
    if jobs > 1 and big:
        prefetched = _prefetched(source, key, fields)
        if prefetched is not None:
            return prefetched
    return _field_batches(source, key, fields)


def _field_batches(source, key, fields):
    """Yield each batch of a source as (numbers, ids, [raw values of each
    field]): ids by *key* (see _Column.labels), or the line numbers if key
    is None (a wide file's rows)."""
    get_id = _Column(source, key, role="id") if key else None
    getters = [_getter(source, f) for f in fields]
    for numbers, records in source.batches:
        yield (numbers, get_id.labels(numbers, records) if key else numbers,
               [list(map(get, records)) for get in getters])


def _match(candidate, key, seen, ats, numbers, items, only=0,
           first_only=None):
    """Mark the baseline positions *ats* seen at the candidate's lines.

    Return (the positions kept, ids in the candidate only so far); a
    position seen before is a repeated id.
    """
    keep = []
    for at, number, item in zip(ats, numbers, items):
        if at is None:
            only += 1
            if len(first_only) < 3:
                first_only.append(item)
        elif seen[at]:
            _repeated(candidate, key, item, number, seen[at])
        else:
            seen[at] = number
            keep.append(at)
    return keep, only


def _check_labels(baseline, candidate, field, numbers, keep, mine, theirs,
                  batch_numbers):
    """Raise unless the candidate's cluster labels (*theirs*, as read),
    where given, agree."""
    for at, label, number, other in zip(keep, mine, batch_numbers, theirs):
        if other not in (_MISSING, None, "") and str(other).strip() != label:
            raise EvalDeltaError(
                f"{candidate.where(number)}: {field} {str(other)!r} differs "
                f"from {label!r} at {baseline.where(numbers[at])}")


def _read_baseline(source, metrics, key, cluster, role="cluster"):
    """Return the baseline's ids (an _IdList, in its order), record numbers,
    values and labels.  The ids are checked for repeats as they come:
    none can repeat while they rise (_rise_keys), and none is kept for
    it; once they stop rising, in a _Positions table of them (4 bytes a
    slot, where a dict of 10^7 ids takes a gigabyte), kept with the ids
    for the join to find the candidate's in.  The record numbers are a
    range while they run on by one, as a file's lines do."""
    known, last, order, numbers = None, None, _IdList(), range(0)
    values = [array("d") for _ in metrics]
    columns = [_Column(source, m.a_field, m.kind == "binary",
                       optional=m.optional) for m in metrics]
    label = _Column(source, cluster, role=role) if cluster else None
    labels = [] if cluster else None
    get_id = _Column(source, key, role="id")
    for batch_numbers, records in source.batches:
        items = get_id.labels(batch_numbers, records)
        if known is None and items:         # still rising?
            keys = _rise_keys(items)
            try:
                up = ((last is None or last < keys[0])
                      and all(map(lt, keys, keys[1:])))
            except TypeError:                # numbers, then text
                up = False
            last, known = (keys[-1], None) if up else (None,
                                                       order.positions())
        order.extend(items)
        again = known and known.add()
        if again:                           # positions: this batch's from here
            (at, first), here = again, len(numbers)
            _repeated(source, key, items[at - here], batch_numbers[at - here],
                      numbers[first] if first < here
                      else batch_numbers[first - here])
        numbers = _numbers_on(numbers, batch_numbers)
        for column, reader in zip(values, columns):
            column.extend(reader.numbers(batch_numbers, records))
        if label:
            labels.extend(map(sys.intern, label.labels(batch_numbers,
                                                       records)))
    return order, numbers, values, labels


def _rise_keys(items):
    """Return the keys ids are seen to rise by: whole numbers where every
    id is one (0, 1, ..., 10), else (length, text) (q1, ..., q10, and ids
    of one length in text order).  Ids whose keys strictly rise are
    distinct."""
    try:
        return list(map(int, items))
    except ValueError:
        return list(zip(map(len, items), items))


def _numbers_on(numbers, batch):
    """Return record numbers extended by a batch's: a range while they run
    on by one, else an array."""
    if isinstance(numbers, range):
        start = numbers.stop if numbers else batch[0] if batch else 0
        if batch == list(range(start, start + len(batch))):
            return range(numbers.start if numbers else start,
                         start + len(batch))
        numbers = array("q", numbers)
    numbers.extend(batch)
    return numbers


# Every join of runs (two runs' metrics streamed into tallies, their corpus
# statistics' rows, many runs for rank) words its mismatches one way: the
# run that lacks ids another run has is named, with the first few, and
# --allow-partial keeps the ids every run has, counting the rest.

class _Dropped(int):
    """How many ids some run lacks (an int), with .lacking: {run's path:
    how many ids other runs have that it lacks}, for the report, and .why
    they were left out (a wide file's: rows missing a value)."""

    why = "ids not in every run"

    def __new__(cls, count, lacking, why=None, said=()):
        self = super().__new__(cls, count)
        self.lacking = {path: n for path, n in lacking.items() if n}
        self.why = why or cls.why
        self.said = list(said)       # the join's other lines (_same_items)
        return self

    def notes(self):
        """Return the read: lines of the ids left out, run by run (and the
        join's other lines)."""
        return [f"{path}: lacks {_items(n, 'id')} another run has, left out "
                f"(--allow-partial)" for path, n in self.lacking.items()
                ] + self.said


def _lacking(lacks, has, count, key, first, verb="compares"):
    """Return the error of ids that run *lacks* lacks and run *has* has."""
    return EvalDeltaError(
        f"{lacks}: lacks {count} {key} value{'s' * (count != 1)} that {has} "
        f"has (first: {', '.join(map(str, first))}); --allow-partial {verb} "
        f"the ids every run has")


def _shared_ids(runs, key, allow_partial, verb="compares"):
    """Return (the ids every run has, in the first run's order; how many
    ids some run lacks) of runs [(path, ids in order)], raising the join's
    errors: without allow_partial the run that lacks the most ids (the
    later on a tie) is named, beside the first run holding ids it lacks.
    The two-run streaming join (_read_joined, _check_join) names the same
    run in the same words."""
    sets = [set(ids) for _, ids in runs]
    shared = set.intersection(*sets)
    every = set.union(*sets)
    if not allow_partial and len(shared) < len(every):
        lacks = max(range(len(runs)),
                    key=lambda k: (len(every - sets[k]), k))
        mine = sets[lacks]
        other = next(k for k in range(len(runs)) if sets[k] - mine)
        first = [i for i in runs[other][1] if i not in mine][:3]
        raise _lacking(runs[lacks][0], runs[other][0],
                       len(sets[other] - mine), key, first, verb)
    if not shared:
        raise EvalDeltaError(f"{runs[-1][0]}: no {key} in common with "
                             f"{', '.join(path for path, _ in runs[:-1])}")
    order = [i for i in runs[0][1] if i in shared]
    return order, _Dropped(len(every) - len(shared), {
        path: len(every - mine) for (path, _), mine in zip(runs, sets)})


def _check_join(baseline, candidate, key, order, seen, only, first_only,
                allow_partial):
    """Raise EvalDeltaError for ids in one run only, or none shared;
    *order* is the baseline's ids, *seen* the candidate's line of each."""
    missing = seen.count(0)
    if (missing or only) and not allow_partial:
        if missing >= only:
            first = list(itertools.islice(itertools.compress(
                order, map(operator.not_, seen)), 3))
            raise _lacking(candidate.path, baseline.path, missing, key,
                           first)
        raise _lacking(baseline.path, candidate.path, only, key, first_only)
    if missing == len(seen):
        raise EvalDeltaError(f"{candidate.path}: no {key} in common with "
                             f"{baseline.path}")


# Item identity.  Ids say which records to pair, not that they hold the
# same items: runs of two tasks (winogrande and ko_winogrande) both number
# their documents 0, 1, 2, ...  A reader that knows which fields hold the
# item itself or its hash (lm-eval's doc_hash or doc, Inspect's input and
# target, HELM's instance text and references) names them in
# _Source.identity; as the join reads each run, _Identities keeps a short
# digest of each such field by id (BLAKE2b, RFC 7693, of its canonical
# JSON: 8 bytes, whatever the item's size), and once the runs are read
# the ids they share must hold equal digests.  A mismatch stops the join
# in one line naming both runs, the first differing id and field, and how
# many ids differ; --same-ids-different-items pairs them anyway (the same
# questions translated, say), and says so.  A field one run lacks is not
# compared.

_DIGEST_SIZE = 8      # bytes of an identity digest: 2^-64 to collide


def _digest(value):
    """Return a short digest of a JSON value, the same whatever the order
    of its objects' keys.

    >>> _digest({"a": 1, "b": [2]}) == _digest({"b": [2], "a": 1})
    True
    >>> _digest("Sarah was a surgeon") == _digest("Sarah was a nurse")
    False
    """
    try:
        text = json.dumps(value, sort_keys=True, ensure_ascii=False,
                          separators=(",", ":"), default=repr)
    except (TypeError, ValueError):      # keys of mixed types
        text = repr(value)
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"),
                           digest_size=_DIGEST_SIZE).digest()


class _Identities:
    """One run's item digests by id (see above), gathered as the join
    reads its batches through tapped()."""

    def __init__(self, source, key, fields):
        self.path, self.task, self.fields = source.path, source.task, fields
        self.ids = _Column(source, key, role="id")
        self.getters = [_getter(source, f) for f in fields]
        self.digests = {}

    def tapped(self, source):
        """Return *source*, its batches digested as they go by."""
        def batches():
            for numbers, records in source.batches:
                items = self.ids.labels(numbers, records)
                columns = [list(map(get, records)) for get in self.getters]
                for item, values in zip(items, zip(*columns)):
                    self.digests.setdefault(item, tuple(
                        None if _missing(v) else _digest(v) for v in values))
                yield numbers, records
        return source._replace(batches=batches(), forkable=False)


def _identities(sources, key):
    """Return (the sources, their _Identities or None): the sources tapped
    where each of them names identity fields and they share some."""
    fields = [f for f in sources[0].identity
              if all(f in s.identity for s in sources[1:])]
    if not fields or key is None:
        return list(sources), None
    kept = [_Identities(s, key, fields) for s in sources]
    return [k.tapped(s) for k, s in zip(kept, sources)], kept


def _same_items(kept, key, different_items=False):
    """Return the read: lines on what the runs' shared ids hold: nothing
    where their items agree; with *different_items*, how many differ.
    Without it, ids holding different items raise EvalDeltaError, naming
    the first (in the first run's order), its field and the runs' tasks."""
    if not kept:
        return []
    said, first = [], kept[0]
    for other in kept[1:]:
        shared = differ = 0
        at = None
        for item, mine in first.digests.items():
            theirs = other.digests.get(item)
            if theirs is None:
                continue
            shared += 1
            field = next((f for f, x, y in zip(first.fields, mine, theirs)
                          if None not in (x, y) and x != y), None)
            if field is not None:
                differ += 1
                at = at or (item, field)
        if not differ:
            continue
        tasks = (f" (tasks {first.task} and {other.task})"
                 if first.task and other.task and first.task != other.task
                 else "")
        if different_items:
            said.append(f"{other.path}: {differ} of {shared} shared ids hold "
                        f"other items than in {first.path}, paired as given "
                        f"(--same-ids-different-items)")
            continue
        raise EvalDeltaError(
            f"{first.path} and {other.path}: the same ids hold different "
            f"items{tasks}: {key} {at[0]!r} differs in {at[1]}, and "
            f"{differ} of the {shared} shared ids "
            f"differ{'s' * (differ == 1)}; if they are meant to pair (the "
            f"same items reworded or translated), "
            f"--same-ids-different-items compares them anyway")
    return said


def _same_run(sources, tallies, dropped):
    """Return the read: line of a run compared with itself: one file given
    twice, two files of the same bytes, or every item's values the same
    in both where they are not all 0 or 1 (two systems often agree on
    every item of a short 0/1 eval, seldom on every score); else []."""
    paths = [s.path for s in sources]
    if _STDIN in paths:
        return []
    if os.path.realpath(paths[0]) == os.path.realpath(paths[1]):
        return ["both runs: one file, a run compared with itself"]
    if _same_bytes(*paths):
        return [f"{paths[1]}: the same bytes as the baseline's file: the "
                f"same run twice?"]
    if (tallies and not dropped and all(map(_all_equal, tallies))
            and not all(map(_all_binary, tallies))):
        return [f"{paths[1]}: every item's scores are the baseline's: the "
                f"same run twice?"]
    return []


def _same_bytes(a, b):
    """Return True if files a and b hold the same bytes (read only where
    their sizes agree, and only up to the first difference)."""
    try:
        if not (os.path.isfile(a) and os.path.isfile(b)) or \
                os.path.getsize(a) != os.path.getsize(b):
            return False
        with open(a, "rb") as f, open(b, "rb") as g:
            while True:
                x, y = f.read(1 << 20), g.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def _all_binary(tally):
    """Return True if every value of a tally is 0 or 1."""
    if isinstance(tally, _Columns):
        return set(tally.a) | set(tally.b) <= {0, 1}
    if isinstance(tally, dict) and not isinstance(tally,
                                                  collections.Counter):
        return all(map(_all_binary, tally.values()))
    return all(set(pair) <= {0, 1} for pair in tally)


def _other_tasks(sources):
    """Return the read: line of runs of different tasks (where the readers
    know them), else []."""
    tasks = [s.task for s in sources]
    if "" in tasks or len(set(tasks)) == 1:
        return []
    return [f"runs of different tasks: {', '.join(tasks)}"]


def _all_equal(tally):
    """Return True if every item of a tally has a == b."""
    if isinstance(tally, _Columns):
        return tally.a == tally.b
    if isinstance(tally, dict) and not isinstance(tally,
                                                  collections.Counter):
        return all(map(_all_equal, tally.values()))
    return all(a == b for a, b in tally)


def _require(run, name, noun, listing, names):
    """Raise EvalDeltaError, listing *names*, if run's records lack *name*."""
    if _field(run.records[0], name) is _MISSING:
        raise EvalDeltaError(f"{run.places[0]}: no {noun} {name!r}; {listing} "
                             f"{', '.join(names) or 'none'}")


# A leaderboard holds a row per model and aggregates over the items in its
# columns (win rates, standard errors, counts of wins and of items,
# lengths averaged): comparing its rows would take models for items.
_AGGREGATE_FIELD = re.compile(
    r"(.*[ _-])?(win[ _-]?rate|standard[ _-]error|std[ _-]?err(or)?|"
    r"n[ _-](wins|wins[ _-]base|draws|ties|losses|total|samples|items)|"
    r"avg[ _-]length|elo|rating)", re.IGNORECASE)


def _leaderboard(path, fields, aggregates_only=False):
    """Return the refusal of a table with a column naming models and none
    naming items (a leaderboard's aggregates, a row per model), else
    None.  Where two or more columns are aggregates (_AGGREGATE_FIELD),
    a first column with no name (pandas's index) or 'name' names the
    models too, and the refusal says what per-item file to give; with
    *aggregates_only*, only such a table is refused."""
    fields = [str(f) for f in fields]
    summed = [f for f in fields if _AGGREGATE_FIELD.fullmatch(f.strip())]
    named = next((f for f in fields if _MODEL_FIELD.fullmatch(f.strip())),
                 None)
    if named is None and len(summed) >= 2 and fields[0].strip() in (
            "", "name"):
        named = fields[0]                 # the models, as the index
    if named is None or any(_ITEM_FIELD.fullmatch(f.strip()) and f != named
                            and f not in summed for f in fields):
        return None
    if len(summed) >= 2:
        alpaca = {"win_rate", "n_total"} <= set(fields)
        return (f"{path}: a leaderboard: a row per model and aggregates over "
                f"the items ({_some(summed, 4)}), not per-item results, and "
                f"comparing its rows would take models for items; "
                + ("compare AlpacaEval's per-item judgments instead: "
                   "results/<model>/<annotator>/annotations.json, a file a "
                   "model" if alpaca else
                   "give each system's per-item results (lm-eval "
                   "--log_samples, an Inspect log, ...), or one file with a "
                   "row per item and a column per system"))
    if aggregates_only:
        return None
    return (f"{path}: a row per model (column {named!r}) and no item ids: a "
            f"leaderboard's aggregate scores, not per-item results, and "
            f"comparing its rows would take models for items; give each "
            f"system's per-item results (lm-eval --log_samples, an Inspect "
            f"log, ...), or one file with a row per item and a column per "
            f"system")


def _shared_id_field(run, other, required=True):
    """Return the first of _ID_FIELDS both runs' first records have (None if
    there is none and not *required*)."""
    for name in _ID_FIELDS:
        if (_field(run.records[0], name) is not _MISSING
                and _field(other.records[0], name) is not _MISSING):
            return name
    if required:
        for r in (run, other):
            board = _leaderboard(r.path, r.records[0])
            if board:
                raise EvalDeltaError(board)
        raise EvalDeltaError(
            f"{run.path}: no id field shared with {other.path} (tried "
            f"{', '.join(_ID_FIELDS)}; name one with --id); the fields are "
            f"{', '.join(run.records[0])}")
    return None


def _grouped_values(run, key, field):
    """Return {id: [values]} for runs with several samples per item."""
    groups = {}
    for record, place in zip(run.records, run.places):
        item = _field(record, key)
        if item is _MISSING or item in ("", None):
            raise EvalDeltaError(f"{place}: no {key}")
        try:
            value = _finite_number(_field(record, field))
        except ValueError as exc:
            raise EvalDeltaError(f"{place}: {field}: {exc}") from None
        groups.setdefault(str(item).strip(), []).append(value)
    return groups


def _numeric_fields(run, exclude=()):
    """Return the top-level fields whose first value is a number."""
    return [name for name, value in run.records[0].items()
            if name not in exclude and _is_number(value)]


# Which fields are metrics when none are named.  Only numbers are: a JSON
# number or true/false, or CSV text that reads as one (a JSON string "1"
# is a label, such as lm-eval's target); a record that lists its own
# metrics (lm-eval's "metrics" key) is taken at its word; ids and clusters
# never are.  The first records decide, and every later record is
# watched: a field missing there (absent, null or empty) that holds a
# number later is refused with its line, since the default set would
# silently lose a metric whose first value happens to be missing.

def _is_metric_value(value, table):
    """Return True for a value that makes its field a metric by default."""
    if table:
        return isinstance(value, str) and not _missing_number(value) and \
            _is_number(value)
    return type(value) in (int, float, bool) and not _missing(value)


def _default_metrics(baseline, candidate, exclude, skipped=None):
    """Return the fields compared when --metric names none (see above).

    A field that is a metric in one run's first record and something
    else in the other's is an error naming both places.  Fields whose
    names say they are no metric (_not_a_metric), and a framework's
    metrics that one run lacks, are left out and named with why in
    *skipped*, a dict, if given.
    """
    if baseline.metrics and (candidate.metrics or candidate.fields is None):
        theirs = candidate.metrics or tuple(
            name for name, value in candidate.first.items()
            if _is_metric_value(value, False))
        shared = [x for x in baseline.metrics
                  if x in theirs and x not in exclude]
        if skipped is not None:
            skipped.update((x, "in one run only") for x in dict.fromkeys(
                baseline.metrics + tuple(theirs)) if x not in shared
                and x not in exclude)
        if not shared:
            filtered = [re.fullmatch(r"(.+)\[(.+)\]", x)
                        for x in baseline.metrics + tuple(theirs)]
            plain = set(baseline.metrics) | set(theirs)
            hint = next((f"--filter {m.group(2)} (lm-eval: one run names "
                         f"its filters, the other none)" for m in filtered
                         if m and m.group(1) in plain), "--metric")
            raise EvalDeltaError(
                f"{candidate.path}: no metric in both runs: "
                f"{baseline.path} has {', '.join(baseline.metrics)}; this "
                f"run has {', '.join(theirs) or 'none'}; name one with "
                f"{hint}")
        return shared
    listed = baseline.first.get("metrics")
    if (isinstance(listed, list) and listed
            and all(isinstance(x, str) for x in listed)):
        return [x for x in listed if x not in exclude]
    nested = baseline.first.get("metric")      # lighteval's details
    if isinstance(nested, dict) and nested:
        return [f"metric.{name}" for name, value in nested.items()
                if _is_metric_value(value, False)]
    found = []
    for run, other in ((baseline, candidate), (candidate, baseline)):
        for name, value in run.first.items():
            if (name in exclude or name in found
                    or not _is_metric_value(value, run.fields is not None)):
                continue
            if _not_a_metric(name):
                if skipped is not None:
                    skipped[name] = _not_a_metric(name)
                continue
            theirs = _field(other.first, name)
            if not _is_metric_value(theirs, other.fields is not None):
                shown = ("missing" if _missing_number(theirs)
                         else f"{theirs!r}, not a number")
                raise EvalDeltaError(
                    f"{other.where(other.first_number)}: {name} is {shown} "
                    f"here but a number at {run.where(run.first_number)}; "
                    f"name the metrics to compare with --metric")
            found.append(name)
    return found


# When nobody names the metrics, a field's name says what it is not: an
# index (sample, idx, row), a label (label, gold, target, prediction) or a
# length (length, tokens) is read but never compared, and a field named
# for a cost (latency, time, duration, cost, loss, error, perplexity) is
# taken as lower-is-better.  Both are guesses, so both are said in the
# report's read: lines; --metric and --higher-is-better overrule them.

_INDEX_NAMES = {"sample", "index", "idx", "row", "line", "position", "pos",
                "seed", "epoch", "trial", "fold", "step", "iteration", "rank"}
_LABEL_WORDS = {"label", "labels", "gold", "target", "targets", "answer",
                "reference", "references", "prediction", "predictions",
                "pred", "preds", "predicted", "output", "choice", "class"}
_LENGTH_WORDS = {"length", "len", "tokens", "chars", "characters", "words",
                 "bytes"}
_LOWER_WORDS = {"latency", "time", "duration", "seconds", "secs", "sec", "ms",
                "cost", "price", "usd", "loss", "error", "errors",
                "perplexity", "ppl", "wer", "cer", "runtime", "elapsed",
                "mae", "mse", "rmse"}


def _not_a_metric(name):
    """Return what a field's name says it is when it is not a metric
    ('an index', 'a label', 'a length'), else None.

    >>> (_not_a_metric("sample"), _not_a_metric("gold_label"),
    ...  _not_a_metric("acc"))
    ('an index', 'a label', None)
    """
    words = re.findall(r"[a-z0-9]+", name.lower())
    if not words:
        return None
    if "_".join(words) in _INDEX_NAMES or words[-1] in ("idx", "index"):
        return "an index"
    if words[-1] in _LABEL_WORDS or words in (["y"], ["y", "true"]):
        return "a label"
    if words[-1] in _LENGTH_WORDS:
        return "a length"
    return None


def _lower_is_better(name):
    """Return True if a metric's name says smaller is better (a latency,
    a cost, a loss, an error rate; not a rate per unit).

    >>> _lower_is_better("latency_ms"), _lower_is_better("tokens_per_second")
    (True, False)
    """
    words = re.findall(r"[a-z0-9]+", name.lower())
    return "per" not in words and bool(_LOWER_WORDS.intersection(words))


def _watched(source, exclude):
    """Return *source* with its batches checked: a record where a field
    missing from the first record holds a number raises EvalDeltaError
    (see _default_metrics)."""
    first = source.first
    place = source.where(source.first_number)
    table = source.fields is not None
    exclude = set(exclude)
    getters = {name: _getter(source, name) for name, value in first.items()
               if _missing_number(value) and name not in exclude}

    def batches():
        for numbers, records in source.batches:
            if not table:
                # new fields in the order met, not a set's order, so that
                # the field refused is the same on every run
                new = dict.fromkeys(
                    name for record in records for name in record
                    if name not in first and name not in exclude
                    and name not in getters)
                getters.update((name, _getter(source, name)) for name in new)
            for name, get in getters.items():
                values = list(map(get, records))
                if not table and not {int, float, bool} & set(map(type,
                                                                  values)):
                    continue
                for number, value in zip(numbers, values):
                    if _is_metric_value(value, table):
                        raise EvalDeltaError(
                            f"{source.where(number)}: {name} holds a number "
                            f"here but is missing at {place}, so it would "
                            f"not be compared; name the metrics with "
                            f"--metric (a metric's missing values are an "
                            f"error, never dropped)")
            yield numbers, records
    return source._replace(batches=batches())


def _read_corpus(baseline, candidate, stat, *, id_field=None,
                allow_partial=False, group=None, jobs=1,
                different_items=False):
    """Return (items, dropped, note) of a _Stat (see _parse_stat): the
    items for _corpus_table, or for pass@k and pass^k a tally of the two
    systems' per-item estimates for _compare_tally, how many ids only one
    run had (with allow_partial), and a line on what was computed.

    Two runs are joined on *id_field* (see _read_tallies).  Fields:
    f1/precision/recall/mcc take (gold, pred), gold the same in both runs,
    or one field holding [gold, pred] (as lm-eval writes f1 and mcc);
    ratio takes (num, den); pass@k one field of 0/1 results, an item's
    samples being its records that share an id.  One wide file takes each
    system's fields in turn: (gold, pred A, pred B), (pair A, pair B),
    (num A, den A, num B, den B), (field A, field B).  With *group*, a
    field of the baseline's (a subset, a cluster), items come as (label,
    item) pairs, and pass@k's tally maps each label to its Counter.  With
    jobs > 1 a large candidate is parsed by a helper process while the
    baseline is read, as in _read_tallies.
    """
    kind = stat.stat
    passes = kind in ("pass@k", "pass^k")
    wide = candidate is None
    shapes = {"ratio": {2: "num,den", 1: "list"}, "pass@k": {1: "field"},
              "pass^k": {1: "field"}}.get(kind, {2: "gold,pred",
                                                 1: "pair"})
    if wide:
        shapes = {"ratio": {4: "num_a,den_a,num_b,den_b", 2: "list_a,list_b"},
                  "pass@k": {2: "field_a,field_b"},
                  "pass^k": {2: "field_a,field_b"}}.get(
                      kind, {3: "gold,pred_a,pred_b", 2: "pair_a,pair_b"})
    if len(stat.fields) not in shapes:
        raise EvalDeltaError(
            f"--stat {stat.name}: {kind} takes "
            f"{' or '.join(f'({s})' for s in shapes.values())}"
            f"{' in one wide file' if wide else ' in each run'}")
    extra, groups = (group,) if group else (), None
    if wide:
        rows, where = _corpus_rows(baseline, stat.fields + extra, id_field,
                                   passes)
        keys, values = list(rows), list(rows.values())
        if group:
            groups, values = _take_group(values, passes)
        a_rows, b_rows = _split_wide(kind, values)
        dropped = 0
    else:
        key = id_field or _shared_id_field(baseline.run(), candidate.run())
        (baseline, candidate), kept = _identities((baseline, candidate), key)
        stream = _candidate_batches(candidate, key, stat.fields, jobs)
        try:
            base, where_a = _corpus_rows(baseline, stat.fields + extra, key,
                                         passes)
        except BaseException:
            stream.close()
            raise
        cand, where_b = _corpus_rows(candidate, stat.fields, key, passes,
                                     stream)
        _same_items(kept, key, different_items)

        def where(label):
            return f"{where_a(label)} and {where_b(label)} (id {label})"
        same = base.keys() == cand.keys()
        keys, dropped = (list(base), 0) if same else _shared_ids(
            [(baseline.path, base), (candidate.path, cand)], key,
            allow_partial)
        a_rows = (list(base.values()) if same
                  else list(map(base.__getitem__, keys)))
        b_rows = list(map(cand.__getitem__, keys))
        if group:
            groups, a_rows = _take_group(a_rows, passes)
    if passes:
        return _pass_tally(stat, dict(zip(keys, zip(a_rows, b_rows))),
                           where, groups), \
            dropped, (f"{stat.name}: {kind[:5]}{stat.k} per item from its "
                      f"samples, averaged (the unbiased estimator of Chen "
                      f"et al. 2021)")
    labels = groups or [None] * len(keys)
    try:                            # few distinct rows: read each once
        signs = collections.Counter(zip(labels, a_rows, b_rows))
    except TypeError:               # [gold, pred] lists, or worse
        try:
            signs = collections.Counter(
                (g, _hashable(a), _hashable(b))
                for g, a, b in zip(labels, a_rows, b_rows))
        except TypeError:           # an object: said item by item below
            signs = None
    items = collections.Counter()
    for at, (g, a, b) in enumerate(zip(labels, a_rows, b_rows)
                                   if signs is None else signs):
        try:
            item = _corpus_item(kind, a, b)
        except ValueError as exc:
            if signs is not None:           # say it of the values as read
                at = list(zip(map(_hashable, a_rows), map(_hashable, b_rows))
                          ).index((_hashable(a), _hashable(b)))
                try:
                    _corpus_item(kind, a_rows[at], b_rows[at])
                except ValueError as first:
                    exc = first
            raise EvalDeltaError(f"{where(keys[at])}: {exc}") from None
        items[(g, item) if group else item] += (
            1 if signs is None else signs[g, a, b])
    if kind == "ratio":
        note = (f"{stat.name}: sum of {stat.fields[0]} / sum of "
                f"{stat.fields[1]}" if len(stat.fields) > 1 else
                f"{stat.name}: the items' lists pooled, sum over count")
    else:
        labels = {x for item in items for x in (item[1] if group else item)}
        binary = labels <= {0, 1}
        note = f"{stat.name}: {kind} over {len(labels)} classes, " + (
            "scikit-learn's (lm-eval's mcc)" if kind == "mcc" else
            "of class 1 (scikit-learn's default" + (", lm-eval's f1)"
                                                    if kind == "f1" else ")")
            if binary else "the macro average over the classes in the gold "
            "labels or the system's predictions")
    return items, dropped, note


def _take_group(rows, passes):
    """Return (group labels, rows without them): the label is each row's
    last value (of its first sample, for pass@k)."""
    if passes:
        return ([str(samples[0][-1]).strip() for samples in rows],
                [[s[:-1] for s in samples] for samples in rows])
    return (list(map(str.strip, map(str, map(itemgetter(-1), rows)))),
            list(map(itemgetter(slice(0, -1)), rows)))


def _split_wide(kind, rows):
    """Return (A's values, B's values) of each of a wide file's rows (or,
    for pass@k, of each item's samples)."""
    if kind in ("pass@k", "pass^k"):
        return ([[(s[0],) for s in samples] for samples in rows],
                [[(s[1],) for s in samples] for samples in rows])
    if kind == "ratio" and len(rows[0]) == 4:
        cuts = slice(0, 2), slice(2, 4)
    elif len(rows[0]) == 3:
        return (list(map(itemgetter(0, 1), rows)),
                list(map(itemgetter(0, 2), rows)))
    else:
        cuts = slice(0, 1), slice(1, 2)
    return tuple(list(map(itemgetter(cut), rows)) for cut in cuts)


def _corpus_rows(source, fields, key, repeats, stream=None):
    """Return ({id: the fields' values}, where) of a source: each id once,
    unless *repeats* (then {id: [values of each record]}); key None numbers
    the rows of a wide file; where(id) names an id's (first) place.
    *stream* gives the source's batches if they are read elsewhere (see
    _candidate_batches)."""
    out, places, lines = {}, {}, array("q")
    for numbers, labels, columns in (stream if stream is not None else
                                     _field_batches(source, key, fields)):
        for field, column in zip(fields, columns):
            if _MISSING in column or None in column or "" in column:
                at = next(i for i, v in enumerate(column) if _missing(v))
                raise EvalDeltaError(f"{source.where(numbers[at])}: no value "
                                     f"for {field!r}")
        rows = list(zip(*columns))
        if repeats:
            for label, row, number in zip(labels, rows, numbers):
                out.setdefault(label, []).append(row)
                places.setdefault(label, number)
            continue
        if len(set(labels)) < len(labels) or \
                not out.keys().isdisjoint(labels):
            _first_repeat(source, key, labels, numbers,
                          {label: at for at, label in enumerate(out)}, lines)
        out.update(zip(labels, rows))
        lines.extend(numbers)           # in the order of out's ids
    if not out:
        raise EvalDeltaError(f"{source.path}: no records")

    def where(label):               # an error's place: found when needed
        if repeats:
            return source.where(places[label])
        return source.where(lines[list(out).index(label)])
    return out, where


def _hashable(values):
    """Return a tuple of values with lists made tuples (a [gold, pred])."""
    return tuple(tuple(v) if isinstance(v, list) else v for v in values)


def _corpus_item(kind, a, b):
    """Return one item of _corpus_table from the two systems' values, or
    raise ValueError saying what is wrong with them."""
    if kind == "ratio":
        if len(a) == 1:             # a list per item: its sum over its length
            a, b = _pooled(a[0]), _pooled(b[0])
        numbers = [_finite_number(x) if type(x) is not Fraction else x
                   for x in a + b]
        if numbers[1] < 0 or numbers[3] < 0:
            raise ValueError("a negative denominator")
        return tuple(numbers)
    ends = []
    for values in (a, b):
        if len(values) == 1:
            pair = values[0]
            if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                raise ValueError(f"not a [gold, pred] pair: {pair!r}")
            values = pair
        ends.append([_label(x) for x in values])
    if ends[0][0] != ends[1][0]:
        raise ValueError(f"the gold labels differ: {ends[0][0]!r} and "
                         f"{ends[1][0]!r}")
    if None in ends[0] + ends[1]:
        raise ValueError("a missing label")
    return ends[0][0], ends[0][1], ends[1][1]


def _pooled(values):
    """Return (sum, count) of a list of numbers, the sum exact, or raise
    ValueError saying why not."""
    if not isinstance(values, (list, tuple)):
        raise ValueError(f"not a list of numbers: {_brief(values)}")
    try:
        total = sum(map(_exact, map(_finite_number, values)), Fraction(0))
    except ValueError:
        raise ValueError(f"not a list of numbers: {_brief(values)}") from None
    return total, len(values)


def _pass_tally(stat, pairs, where, groups=None):
    """Return the Counter of (A's, B's) pass@k or pass^k per item;
    where(id) names an item's place.  With *groups* (a label per item,
    in pairs' order), a Counter per label."""
    tally, by = collections.Counter(), {}
    labels = iter(groups or ())
    short = []
    for key, (a, b) in pairs.items():
        estimates = []
        for samples in (a, b):
            try:
                results = [_finite_number(s[0]) for s in samples]
            except ValueError as exc:
                raise EvalDeltaError(f"{where(key)}: {exc}") from None
            if any(x not in (0, 1) for x in results):
                raise EvalDeltaError(f"{where(key)}: {stat.fields[0]} must "
                                     f"be 0/1 per sample for {stat.stat}")
            if len(results) < stat.k:
                short.append(f"{key} ({len(results)})")
                continue
            estimates.append(_pass_at(len(results), int(sum(results)),
                                     stat.k, stat.stat == "pass^k"))
        if groups:
            tally = by.setdefault(next(labels), collections.Counter())
        if len(estimates) == 2:
            tally[tuple(estimates)] += 1
    if short:
        raise EvalDeltaError(f"{stat.name}: {len(short)} items have fewer "
                             f"than k = {stat.k} samples, e.g. "
                             f"{', '.join(short[:3])}")
    return by if groups else tally


## Input: Parquet #############################################################

# A reader of the Parquet files lighteval writes its details in, standard
# library only, after the format's specification (apache/parquet-format:
# parquet.thrift, Encodings.md) and Thrift's compact protocol
# (thrift/doc/specs/thrift-compact-protocol.md).  A file is 'PAR1', column
# chunks of pages, a footer (FileMetaData, Thrift compact) and its length
# and 'PAR1' again.  Only the leaf columns asked for are read and
# decompressed: data pages v1 and v2, dictionary pages, PLAIN,
# PLAIN_DICTIONARY / RLE_DICTIONARY and RLE values, levels in the RLE /
# bit-packed hybrid; SNAPPY (a small decompressor below), GZIP and
# uncompressed pages.  Values are assembled from definition and
# repetition levels (Melnik et al. 2010, "Dremel") into None, lists and,
# for groups outside lists, dicts.  Anything else (ZSTD, LZ4, BROTLI,
# DELTA encodings) is refused in one line naming the column and what it
# uses; a corrupt file is one line too: every loop is bounded by the bytes
# it has left, so none runs off the end or forever.

_PARQUET_CODECS = ("UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4",
                   "ZSTD", "LZ4_RAW")
_PARQUET_ENCODINGS = {0: "PLAIN", 2: "PLAIN_DICTIONARY", 3: "RLE",
                      4: "BIT_PACKED", 5: "DELTA_BINARY_PACKED",
                      6: "DELTA_LENGTH_BYTE_ARRAY", 7: "DELTA_BYTE_ARRAY",
                      8: "RLE_DICTIONARY", 9: "BYTE_STREAM_SPLIT"}
_PLAIN_WIDTHS = {1: "<i", 2: "<q", 4: "<f", 5: "<d"}  # INT32 INT64 FLOAT DOUBLE
_THRIFT_DEPTH = 32    # structs nested deeper are no Parquet footer


class _Leaf(NamedTuple):
    """A leaf column of a Parquet schema: its dotted path, physical type,
    the repetition of each node from the top down (0 required, 1 optional,
    2 repeated), whether its bytes are text, and its width (fixed-length
    byte arrays)."""
    path: str
    kind: int
    repetitions: tuple
    text: bool
    width: int


class _ParquetFile(NamedTuple):
    """A Parquet file's footer, read: its rows, leaves (by dotted path,
    in schema order), row groups' column chunks (by path) and key-value
    metadata."""
    path: str
    size: int
    rows: int
    leaves: dict
    groups: list
    metadata: dict


def _thrift(data, pos, end, place, depth=0):
    """Return (struct, position after it) of a Thrift compact-protocol
    struct in data[pos:end]: {field id: value}, structs as dicts, lists
    as lists, binary as bytes.

    Field header: delta << 4 | type (delta 0: a zigzag i16 id follows);
    integers are zigzag varints; binary a varint length and bytes; a list
    size << 4 | type (size 15: a varint size follows); booleans live in
    the type (1 true, 2 false).

    >>> _thrift(bytes([0x15, 0x04, 0x18, 0x02, 0x68, 0x69, 0x00]), 0, 7, "")
    ({1: 2, 2: b'hi'}, 7)
    """
    if depth > _THRIFT_DEPTH:
        raise EvalDeltaError(f"{place}: Thrift structs nested too deep")
    out, field = {}, 0
    while True:
        if pos >= end:
            raise EvalDeltaError(f"{place}: the footer ends inside a struct")
        byte = data[pos]
        pos += 1
        if byte == 0:
            return out, pos
        kind, delta = byte & 15, byte >> 4
        if delta:
            field += delta
        else:
            field, pos = _varint(data, pos, end, place)
            field = (field >> 1) ^ -(field & 1)
        if kind in (1, 2):
            out[field] = kind == 1
        else:
            out[field], pos = _thrift_value(data, pos, end, kind, place,
                                            depth)


def _thrift_value(data, pos, end, kind, place, depth):
    """Return (value, position after it) of one compact-protocol value of
    type *kind* (3 byte, 4-6 integers, 7 double, 8 binary, 9 and 10 list
    and set, 11 map, 12 struct)."""
    if kind in (4, 5, 6):
        value, pos = _varint(data, pos, end, place)
        return (value >> 1) ^ -(value & 1), pos
    if kind == 3:
        if pos >= end:
            raise EvalDeltaError(f"{place}: the footer ends inside a value")
        return data[pos], pos + 1
    if kind == 7:
        if pos + 8 > end:
            raise EvalDeltaError(f"{place}: the footer ends inside a double")
        return struct.unpack_from("<d", data, pos)[0], pos + 8
    if kind == 8:
        size, pos = _varint(data, pos, end, place)
        if size > end - pos:
            raise EvalDeltaError(f"{place}: a string of {size} bytes runs "
                                 f"past the footer's end")
        return bytes(data[pos:pos + size]), pos + size
    if kind in (9, 10):
        if pos >= end:
            raise EvalDeltaError(f"{place}: the footer ends inside a list")
        size, item = data[pos] >> 4, data[pos] & 15
        pos += 1
        if size == 15:
            size, pos = _varint(data, pos, end, place)
        if size > end - pos:           # every element takes a byte at least
            raise EvalDeltaError(f"{place}: a list of {size} elements runs "
                                 f"past the footer's end")
        values = []
        for _ in range(size):
            if item in (1, 2):         # a list's booleans take a byte each
                values.append(data[pos] == 1)
                pos += 1
            else:
                value, pos = _thrift_value(data, pos, end, item, place,
                                           depth + 1)
                values.append(value)
        return values, pos
    if kind == 12:
        return _thrift(data, pos, end, place, depth + 1)
    if kind == 11:
        size, pos = _varint(data, pos, end, place)
        if size == 0:
            return {}, pos
        if size > end - pos or pos >= end:
            raise EvalDeltaError(f"{place}: a map runs past the footer's end")
        keys, values = data[pos] >> 4, data[pos] & 15
        if keys not in (3, 4, 5, 6, 7, 8):
            raise EvalDeltaError(f"{place}: a map keyed by Thrift type {keys}")
        pos, out = pos + 1, {}
        for _ in range(size):
            key, pos = _thrift_value(data, pos, end, keys, place, depth + 1)
            out[key], pos = _thrift_value(data, pos, end, values, place,
                                          depth + 1)
        return out, pos
    raise EvalDeltaError(f"{place}: a Thrift value of unknown type {kind}")


def _varint(data, pos, end, place):
    """Return (value, position after it) of an unsigned LEB128 varint (at
    most 10 bytes).

    >>> _varint(bytes([0x96, 0x01]), 0, 2, "")
    (150, 2)
    """
    value = shift = 0
    for pos in range(pos, min(end, pos + 10)):
        byte = data[pos]
        value |= (byte & 127) << shift
        if byte < 128:
            return value, pos + 1
        shift += 7
    raise EvalDeltaError(f"{place}: a varint runs off the end of its bytes")


def _parquet_footer(path):
    """Return the _ParquetFile of a Parquet file: its footer read (and no
    page); a file that is not one, or whose footer is cut or corrupt,
    raises EvalDeltaError in one line."""
    try:
        with open(path, "rb") as f:
            size = f.seek(0, 2)
            if size < 12:
                raise EvalDeltaError(f"{path}: {size} bytes, too short for "
                                     f"a Parquet file")
            f.seek(0)
            start = f.read(4)
            f.seek(size - 8)
            tail = f.read(8)
            length = int.from_bytes(tail[:4], "little")
            if start != b"PAR1" or tail[4:] != b"PAR1":
                raise EvalDeltaError(f"{path}: not a Parquet file (no PAR1 "
                                     f"magic at its start and end; "
                                     f"truncated?)")
            if length > size - 12:
                raise EvalDeltaError(f"{path}: its Parquet footer says "
                                     f"{length} bytes, more than the file "
                                     f"holds (truncated?)")
            f.seek(size - 8 - length)
            data = f.read(length)
    except OSError as exc:
        raise EvalDeltaError(f"{path}: cannot read: {exc.strerror}") from None
    place = f"{path}: Parquet footer"
    meta, _ = _thrift(data, 0, len(data), place)
    schema = _typed(meta, 2, list, place)
    if not schema or not all(isinstance(e, dict) for e in schema):
        raise EvalDeltaError(f"{place}: no schema")
    leaves = _parquet_leaves(schema, place)
    groups = []
    for group in _typed(meta, 4, list, place):
        chunks = {}
        for chunk in _typed(_typed(group, None, dict, place), 1, list, place):
            info = _typed(_typed(chunk, None, dict, place), 3, dict, place)
            names = _typed(info, 3, list, place)
            chunks[".".join(_footer_text(n, place) for n in names)] = info
        groups.append((_footer_count(group.get(3), place), chunks))
    metadata = {}
    for pair in _typed(meta, 5, list, place):
        key = _typed(pair, None, dict, place).get(1)
        value = pair.get(2)
        metadata[_footer_text(key, place)] = (
            None if value is None else _footer_text(value, place))
    return _ParquetFile(path, size, _footer_count(meta.get(3), place),
                        leaves, groups, metadata)


def _typed(struct_, field, kind, place):
    """Return struct_[field] (struct_ itself if field is None; an empty
    *kind* if the field is absent), which must be a *kind*."""
    value = struct_ if field is None else struct_.get(field, kind())
    if not isinstance(value, kind):
        raise EvalDeltaError(f"{place}: a {type(value).__name__} where a "
                             f"{kind.__name__} belongs")
    return value


def _footer_text(value, place):
    """Return footer bytes as text (a name or a metadata value)."""
    if not isinstance(value, bytes):
        raise EvalDeltaError(f"{place}: a name that is not a string")
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        raise EvalDeltaError(f"{place}: a name that is not UTF-8") from None


def _footer_count(value, place):
    """Return a footer's count, which must be a whole number >= 0."""
    if type(value) is not int or value < 0:
        raise EvalDeltaError(f"{place}: a count of {value!r}")
    return value


def _parquet_leaves(schema, place):
    """Return {dotted path: _Leaf} of a flattened schema (depth first; an
    element's num_children says how many of the next elements it holds)."""
    leaves, stack = {}, []          # stack: [name, repetition, children left]
    for element in schema[1:]:
        name = _footer_text(element.get(4), place)
        children, width = element.get(5) or 0, element.get(2) or 0
        repetition = element.get(3, 0)
        if (type(children) is not int or children < 0 or type(width) is not
                int or repetition not in (0, 1, 2) or type(repetition) is
                bool or type(element.get(1, 0)) is not int):
            raise EvalDeltaError(f"{place}: column {name}: a bad schema entry")
        if children:
            stack.append([name, repetition, children])
            continue
        path = [x[0] for x in stack] + [name]
        logical = element.get(10) if isinstance(element.get(10), dict) else {}
        text = element.get(6) in (0, 4) or 1 in logical or 5 in logical
        leaves[".".join(path)] = _Leaf(
            ".".join(path), element.get(1), tuple(x[1] for x in stack) + (
                repetition,), text, width)
        while stack:
            stack[-1][2] -= 1
            if stack[-1][2]:
                break
            stack.pop()
    if stack:
        raise EvalDeltaError(f"{place}: the schema ends inside a group")
    return leaves


def _parquet_columns(footer, paths, limit=_INFLATE_LIMIT):
    """Return {dotted leaf path: ([its value in each row], [the definition
    level each row starts with])} of the leaf columns *paths* of a Parquet
    file, read and decompressed alone (the others are never touched).  A
    null is None, a list a list; a codec or encoding this reader lacks,
    or a corrupt page raises EvalDeltaError naming the column."""
    out = {}
    try:
        with open(footer.path, "rb") as f:
            for path in paths:
                leaf = footer.leaves[path]
                values, firsts = [], []
                for rows, chunks in footer.groups:
                    got = _parquet_chunk(f, footer, leaf, chunks.get(path),
                                         limit)
                    if len(got[0]) != rows:
                        raise EvalDeltaError(
                            f"{footer.path}: column {path}: {len(got[0])} "
                            f"rows where its row group has {rows}")
                    values += got[0]
                    firsts += got[1]
                out[path] = values, firsts
    except OSError as exc:
        raise EvalDeltaError(f"{footer.path}: cannot read: "
                             f"{exc.strerror}") from None
    return out


def _parquet_chunk(f, footer, leaf, info, limit):
    """Return (values, first definition levels) of one column chunk, row
    by row."""
    place = f"{footer.path}: column {leaf.path}"
    if not isinstance(info, dict):
        raise EvalDeltaError(f"{place}: no column chunk in a row group")
    codec = info.get(4)
    if codec not in (0, 1, 2):
        name = (_PARQUET_CODECS[codec] if type(codec) is int
                and 0 <= codec < len(_PARQUET_CODECS) else f"codec {codec!r}")
        raise EvalDeltaError(f"{place}: compressed with {name}, which this "
                             f"reader lacks (it reads SNAPPY, GZIP and "
                             f"uncompressed pages); rewrite the file with one "
                             f"of those")
    total = _footer_count(info.get(5), place)
    if total > limit // 8:
        raise EvalDeltaError(f"{place}: {total} values in a column chunk, "
                             f"more than --max-inflate lets this reader hold")
    if not total:                       # an empty row group: no page read
        return [], []
    start = info.get(9)
    dictionary = info.get(11)
    if type(dictionary) is int and 0 < dictionary < (start or 0):
        start = dictionary
    size = info.get(7)
    if (type(start) is not int or type(size) is not int or start < 4
            or size < 0 or start + size > footer.size - 8):
        raise EvalDeltaError(f"{place}: its pages lie outside the file "
                             f"(truncated?)")
    f.seek(start)
    data = f.read(size)
    levels = _max_levels(leaf)
    reps, defs, values, pos, dictionary = [], [], [], 0, None
    while len(defs) < total:
        if pos >= len(data):
            raise EvalDeltaError(f"{place}: its pages end after {len(defs)} "
                                 f"of {total} values")
        header, pos = _thrift(data, pos, len(data), f"{place}: page header")
        stored = header.get(3)
        if type(stored) is not int or not 0 <= stored <= len(data) - pos:
            raise EvalDeltaError(f"{place}: a page runs past its column "
                                 f"chunk (truncated?)")
        body, pos = data[pos:pos + stored], pos + stored
        kind = header.get(1)
        if kind == 2:
            dictionary = _dictionary_page(body, header, codec, leaf, place,
                                          limit)
        elif kind in (0, 3):
            page = _data_page(body, header, codec, leaf, levels, place, limit,
                              total - len(defs))
            reps += page[0]
            defs += page[1]
            values += _page_values(page[2], page[3], page[4], leaf,
                                   dictionary, place)
    if len(defs) != total or (reps and reps[0] != 0):
        raise EvalDeltaError(f"{place}: {len(defs)} values where its chunk "
                             f"says {total}")
    firsts = defs if not any(reps) else [d for r, d in zip(reps, defs)
                                         if r == 0]
    return _assemble(leaf, reps, defs, values, place), firsts


def _inflate(body, codec, size, place, limit):
    """Return a page's bytes decompressed (*size* bytes, as its header
    says), or raise EvalDeltaError saying the page does not decompress."""
    if type(size) is not int or not 0 <= size <= limit:
        raise EvalDeltaError(f"{place}: a page of {size!r} bytes "
                             f"uncompressed")
    if codec == 1:
        out = _unsnappy(body, size, place)
    elif codec == 2:
        try:
            inflater = zlib.decompressobj(47)       # gzip or zlib header
            out = inflater.decompress(body, size + 1)
        except zlib.error as exc:
            raise EvalDeltaError(f"{place}: a GZIP page that does not "
                                 f"decompress ({exc})") from None
    else:
        out = body
    if len(out) != size:
        raise EvalDeltaError(f"{place}: a page of {len(out)} bytes where its "
                             f"header says {size}")
    return out


def _unsnappy(data, size, place):
    """Return Snappy-compressed *data* decompressed (Google's format
    description: a varint length, then literals and back-copies), which
    must come to *size* bytes.

    Below, 6 bytes: the literal 'ab' (tag 0x04), then 4 bytes copied from
    2 back (tag 0x01, offset 2), an overlapping copy that repeats them.

    >>> bytes(_unsnappy(bytes([6, 0x04, 97, 98, 0x01, 2]), 6, ""))
    b'ababab'
    """
    end = len(data)
    declared, pos = _varint(data, 0, end, place)
    if declared != size:
        raise EvalDeltaError(f"{place}: a SNAPPY page of {declared} bytes "
                             f"where its header says {size}")
    out = bytearray()
    while pos < end:
        tag = data[pos]
        pos += 1
        kind = tag & 3
        if kind == 0:
            length = tag >> 2
            if length >= 60:
                extra = length - 59
                length = int.from_bytes(data[pos:pos + extra], "little")
                pos += extra
            length += 1
            if pos + length > end or len(out) + length > size:
                raise EvalDeltaError(f"{place}: a SNAPPY page that does not "
                                     f"decompress (a literal runs over)")
            out += data[pos:pos + length]
            pos += length
            continue
        if kind == 1:
            length = 4 + ((tag >> 2) & 7)
            offset = ((tag >> 5) << 8) | (data[pos] if pos < end else 0)
            pos += 1
        else:
            width = 2 if kind == 2 else 4
            length = (tag >> 2) + 1
            offset = int.from_bytes(data[pos:pos + width], "little")
            pos += width
        if (pos > end or not 0 < offset <= len(out)
                or len(out) + length > size):
            raise EvalDeltaError(f"{place}: a SNAPPY page that does not "
                                 f"decompress (a bad back-reference)")
        first = len(out) - offset
        if offset >= length:
            out += out[first:first + length]
        else:                         # an overlapping copy repeats its start
            out += (out[first:] * (length // offset + 1))[:length]
    if len(out) != size:
        raise EvalDeltaError(f"{place}: a SNAPPY page that does not "
                             f"decompress ({len(out)} of {size} bytes)")
    return out


def _max_levels(leaf):
    """Return (max repetition level, max definition level) of a leaf."""
    return (sum(r == 2 for r in leaf.repetitions),
            sum(r != 0 for r in leaf.repetitions))


def _dictionary_page(body, header, codec, leaf, place, limit):
    """Return the values of a dictionary page (PLAIN encoded)."""
    info = header.get(7)
    if not isinstance(info, dict):
        raise EvalDeltaError(f"{place}: a dictionary page with no header")
    data = _inflate(body, codec, header.get(2), place, limit)
    count = _footer_count(info.get(1), place)
    if info.get(2, 0) not in (0, 2):
        _refuse_encoding(info.get(2), place)
    return _plain_values(data, 0, count, leaf, place)[0]


def _data_page(body, header, codec, leaf, levels, place, limit, left):
    """Return (repetition levels, definition levels, values' bytes, their
    encoding, how many) of a data page, v1 or v2, of at most *left*
    values."""
    max_rep, max_def = levels
    if header.get(1) == 0:
        info = header.get(5)
        if not isinstance(info, dict):
            raise EvalDeltaError(f"{place}: a data page with no header")
        count = _page_count(info, left, place)
        data = _inflate(body, codec, header.get(2), place, limit)
        pos, reps, defs = 0, [0] * count, [max_def] * count
        for maximum, at in ((max_rep, 4), (max_def, 3)):
            if not maximum:
                continue
            if info.get(at, 3) != 3:
                _refuse_encoding(info.get(at), place)
            size = int.from_bytes(data[pos:pos + 4], "little")
            if pos + 4 + size > len(data):
                raise EvalDeltaError(f"{place}: levels run past their page")
            got = _hybrid(data, pos + 4, pos + 4 + size,
                          maximum.bit_length(), count, place)
            if at == 4:
                reps = got
            else:
                defs = got
            pos += 4 + size
        return reps, defs, data[pos:], info.get(2), defs.count(max_def)
    info = header.get(8)
    if not isinstance(info, dict):
        raise EvalDeltaError(f"{place}: a data page (v2) with no header")
    count = _page_count(info, left, place)
    rep_size = _footer_count(info.get(6, 0), place)
    def_size = _footer_count(info.get(5, 0), place)
    if rep_size + def_size > len(body):
        raise EvalDeltaError(f"{place}: levels run past their page")
    reps = (_hybrid(body, 0, rep_size, max_rep.bit_length(), count, place)
            if max_rep else [0] * count)
    defs = (_hybrid(body, rep_size, rep_size + def_size,
                    max_def.bit_length(), count, place)
            if max_def else [max_def] * count)
    rest = body[rep_size + def_size:]
    if info.get(7, True):
        size = header.get(2)
        rest = _inflate(rest, codec, size - rep_size - def_size
                        if type(size) is int else size, place, limit)
    return reps, defs, rest, info.get(4), defs.count(max_def)


def _page_count(info, left, place):
    """Return a data page's count of values, at most the *left* its chunk
    has yet to give."""
    count = _footer_count(info.get(1), place)
    if count > left:
        raise EvalDeltaError(f"{place}: a page of {count} values where its "
                             f"chunk has {left} left")
    return count


def _refuse_encoding(code, place):
    """Raise the error of an encoding this reader lacks."""
    name = (_PARQUET_ENCODINGS.get(code) if type(code) is int else None) \
        or f"encoding {code!r}"
    raise EvalDeltaError(f"{place}: encoded with {name}, which this reader "
                         f"lacks (it reads PLAIN, dictionary and RLE pages)")


def _hybrid(data, pos, end, width, count, place):
    """Return *count* values of the RLE / bit-packed hybrid encoding in
    data[pos:end], each *width* bits (Encodings.md): runs, each a varint
    header h; h odd: h >> 1 groups of 8 values bit-packed, least
    significant bit first; h even: one value (ceil(width / 8) bytes,
    little-endian) repeated h >> 1 times.

    >>> _hybrid(bytes([0x06, 0x01, 0x03, 0x88, 0xC6, 0xFA]), 0, 6, 3, 11, "")
    [1, 1, 1, 0, 1, 2, 3, 4, 5, 6, 7]
    """
    out, size, mask = [], (width + 7) // 8, (1 << width) - 1
    while len(out) < count:
        if pos >= end:
            raise EvalDeltaError(f"{place}: levels or indices end after "
                                 f"{len(out)} of {count} values")
        header, pos = _varint(data, pos, end, place)
        if header & 1:
            groups = header >> 1
            nbytes = groups * width
            if nbytes > end - pos:
                nbytes = (end - pos) // width * width   # the last run's tail
                if not nbytes and width:
                    raise EvalDeltaError(f"{place}: a bit-packed run past "
                                         f"its page")
            wanted = min(groups * 8, count - len(out))
            if width:
                wanted = min(wanted, nbytes * 8 // width)
                for at in range(0, wanted, 512):   # 64 groups at a time:
                    bits = int.from_bytes(         # linear, not quadratic
                        data[pos + at * width // 8:
                             pos + (at + 512) * width // 8], "little")
                    out += [(bits >> (i * width)) & mask
                            for i in range(min(512, wanted - at))]
            else:
                out += [0] * wanted
            pos += nbytes
        else:
            if pos + size > end:
                raise EvalDeltaError(f"{place}: an RLE run past its page")
            value = int.from_bytes(data[pos:pos + size], "little")
            pos += size
            out += [value] * min(header >> 1, count - len(out))
    return out


def _page_values(data, encoding, count, leaf, dictionary, place):
    """Return the *count* non-null values of a data page's value bytes."""
    if encoding == 0:
        return _plain_values(data, 0, count, leaf, place)[0]
    if encoding in (2, 8):
        if dictionary is None:
            raise EvalDeltaError(f"{place}: dictionary indices with no "
                                 f"dictionary page")
        if not count:
            return []
        if not data:
            raise EvalDeltaError(f"{place}: a page of indices with no bytes")
        indices = _hybrid(data, 1, len(data), data[0], count, place)
        if max(indices) >= len(dictionary):
            raise EvalDeltaError(f"{place}: a dictionary index past its "
                                 f"{len(dictionary)} entries")
        return [dictionary[i] for i in indices]
    if encoding == 3 and leaf.kind == 0:          # booleans, RLE
        size = int.from_bytes(data[:4], "little")
        return [bool(v) for v in _hybrid(data, 4, min(4 + size, len(data)),
                                         1, count, place)]
    _refuse_encoding(encoding, place)


def _plain_values(data, pos, count, leaf, place):
    """Return (values, position after them) of *count* PLAIN values."""
    kind = leaf.kind
    if kind in _PLAIN_WIDTHS:
        code = _PLAIN_WIDTHS[kind]
        width = struct.calcsize(code)
        if pos + count * width > len(data):
            raise EvalDeltaError(f"{place}: values run past their page")
        values = list(struct.unpack_from(f"<{count}{code[1]}", data, pos))
        return values, pos + count * width
    if kind == 0:
        if pos + (count + 7) // 8 > len(data):
            raise EvalDeltaError(f"{place}: values run past their page")
        bits = int.from_bytes(data[pos:pos + (count + 7) // 8], "little")
        return [bool(bits >> i & 1) for i in range(count)], \
            pos + (count + 7) // 8
    if kind == 6:
        values, end = [], len(data)
        for _ in range(count):
            if pos + 4 > end:
                raise EvalDeltaError(f"{place}: values run past their page")
            size = int.from_bytes(data[pos:pos + 4], "little")
            if pos + 4 + size > end:
                raise EvalDeltaError(f"{place}: values run past their page")
            values.append(bytes(data[pos + 4:pos + 4 + size]))
            pos += 4 + size
        return _texts(values, leaf, place), pos
    if kind == 7 and leaf.width > 0:
        if pos + count * leaf.width > len(data):
            raise EvalDeltaError(f"{place}: values run past their page")
        values = [bytes(data[i:i + leaf.width]) for i in range(
            pos, pos + count * leaf.width, leaf.width)]
        return _texts(values, leaf, place), pos + count * leaf.width
    raise EvalDeltaError(f"{place}: values of physical type {kind!r}, which "
                         f"this reader lacks")


def _texts(values, leaf, place):
    """Return byte values as text where the schema says they are."""
    if not leaf.text:
        return values
    try:
        return [v.decode("utf-8") for v in values]
    except UnicodeDecodeError:
        raise EvalDeltaError(f"{place}: a string that is not UTF-8") from None


def _assemble(leaf, reps, defs, values, place):
    """Return a leaf column's value in each row from its levels (Dremel):
    a repetition level r starts a new element of the list r levels deep
    (0 a new row); the definition level d says how far down the path is
    defined, so a null or an empty list shows where it stops.  Groups are
    transparent here (a null group gives None); _parquet_rows builds them.

    >>> leaf = _Leaf("a.list.element", 1, (1, 2, 1), False, 0)
    >>> _assemble(leaf, [0, 1, 0, 0, 0], [3, 2, 1, 0, 3], [5, 6], "")
    [[5, None], [], None, [6]]
    """
    max_def = sum(r != 0 for r in leaf.repetitions)
    depths, level = [], 0              # def level of each repeated node
    for repetition in leaf.repetitions:
        level += repetition != 0
        if repetition == 2:
            depths.append(level)
    if not depths:                     # no list: a value or None per row
        if not max_def:
            return values
        it = iter(values)
        return [next(it) if d == max_def else None for d in defs]
    rows, it, lists, deepest = [], iter(values), [None] * (len(depths) + 1), \
        len(depths)
    for r, d in zip(reps, defs):
        if r > deepest:
            raise EvalDeltaError(f"{place}: a repetition level of {r}")
        if r == 0:
            if d < depths[0] - 1:
                rows.append(None)
                continue
            if d == depths[0] - 1:
                rows.append([])
                continue
            lists[1] = []
            rows.append(lists[1])
            j = 1
        else:
            j = r
            if lists[j] is None:
                raise EvalDeltaError(f"{place}: a repetition level of {r} "
                                     f"before its list began")
        while j < deepest:
            if d < depths[j] - 1:
                lists[j].append(None)
                break
            if d == depths[j] - 1:
                lists[j].append([])
                break
            lists[j + 1] = []
            lists[j].append(lists[j + 1])
            j += 1
        else:
            lists[j].append(next(it) if d == max_def else None)
    return rows


def _parquet_rows(footer, prefixes, limit=_INFLATE_LIMIT):
    """Return {top-level column: [its value in each row]} of the leaves
    under *prefixes* (a column, or a field of a group: 'metrics',
    'doc.id'): a group a dict of the fields read (None where the group is
    null), a list (Parquet's LIST, or a repeated field) a list.  Groups
    inside lists are refused, naming the column."""
    paths = [p for p in footer.leaves if any(
        p == x or p.startswith(x + ".") for x in prefixes)]
    columns = _parquet_columns(footer, paths, limit)
    tops = dict.fromkeys(p.split(".")[0] for p in paths)
    return {top: _group_rows(footer, columns, [top]) for top in tops}


def _group_rows(footer, columns, parts):
    """Return the value in each row of the node at *parts* (a path of
    names), from its leaves' (values, row definition levels)."""
    prefix = ".".join(parts)
    under = [p for p in columns if p == prefix or p.startswith(prefix + ".")]
    leaf = footer.leaves[under[0]]
    if under == [prefix]:
        return columns[prefix][0]
    k = len(parts) - 1
    if 2 in leaf.repetitions[:k + 2]:          # a list from here down
        if len(under) > 1:
            raise EvalDeltaError(f"{footer.path}: column {prefix}: a list of "
                                 f"groups, which this reader lacks")
        return columns[under[0]][0]
    level = sum(r != 0 for r in leaf.repetitions[:k + 1])
    names = dict.fromkeys(p[len(prefix) + 1:].split(".")[0] for p in under)
    fields = {name: _group_rows(footer, columns, parts + [name])
              for name in names}
    return [None if d < level else {name: fields[name][i] for name in names}
            for i, d in enumerate(columns[under[0]][1])]


## Input: the reader registry #################################################

# Each eval framework writes per-item results its own way, as files and as
# the directories it lays them out in.  _READERS is one table of readers,
# one row a format: how to recognise a file of it (its name, its first
# bytes, or the one JSON object it holds), how to read it into the records
# the rest of the tool reads (an item id, optional epochs, subsets and
# numeric fields), which runs a directory that the framework wrote holds,
# and a description for --help and the README.  Detection goes down the
# table; the plain tables (CSV, TSV, JSONL, a JSON array) are the last row.
# Nothing outside Input names a format.  Where a framework writes several
# samples (epochs) of an item, the item's score is their mean (Miller 2024,
# "Adding Error Bars to Evals"): the item stays the unit of resampling and
# the report says so.  Where a reader has to choose (the newest of two runs
# of a task, the test split beside a valid one, test cases named twice), it
# makes the careful choice and says it in the report's read: lines; where
# no choice is safe it refuses in one line that says what the file is.


class _Reader(NamedTuple):
    """One row of the reader registry (see above)."""
    name: str                    # --from-format NAME
    description: str             # what it reads, for --help
    recognise: object            # recognise(_Head) -> bool
    read: object                 # read(_Head, _Reading) -> _Source
    layout: object = None        # layout(directory) -> [_Found] of its runs


class _Found(NamedTuple):
    """A run in a directory a framework wrote: its task, when it was
    written (text that sorts in time, '' if unknown) and its file."""
    task: str
    stamp: str
    path: str


_UNREAD = object()


class _Head:
    """What recognise() looks at: a file's name, its first bytes, its
    first line as JSON and, for a file that is one JSON object, that
    object (parsed once, then read by the reader that claims it)."""

    def __init__(self, path, inflate=_INFLATE_LIMIT):
        self.path, self.inflate = path, inflate
        self.name = os.path.basename(path).lower()
        self.bytes = b"" if path == _STDIN else _head_bytes(path)
        self.text = self.bytes.decode("utf-8-sig", "replace").lstrip()
        self._first = self._doc = _UNREAD

    def first(self):
        """Return the first line as a JSON object, or None."""
        if self._first is _UNREAD:
            line = self.text.partition("\n")[0]
            if "\n" not in self.text and len(self.bytes) >= _HEAD_SIZE:
                line = _first_line(self.path)   # a line longer than the head
            try:
                value = _JSON.decode(line)
            except (ValueError, RecursionError):
                value = None
            self._first = value if isinstance(value, dict) else None
        return self._first

    def document(self):
        """Return the file's one JSON object (over many lines, or on one
        line holding lists or objects), or None if it is not one."""
        if self._doc is _UNREAD:
            self._doc = None
            if self.text.startswith("{"):
                first = self.first()
                rest = self.text.partition("\n")[2].strip()
                if first is None or (not rest and any(
                        isinstance(v, (list, dict)) for v in first.values())):
                    doc = _load_json(self.path, self.inflate)
                    self._doc = doc if isinstance(doc, dict) else None
        return self._doc


_HEAD_SIZE = 1 << 16


def _head_bytes(path, size=_HEAD_SIZE):
    """Return the first bytes of a file, gunzipped if need be (b'' if the
    file cannot be read: the reader then says why)."""
    try:
        with open(path, "rb") as raw:
            head = raw.read(size)
            if head[:2] == b"\x1f\x8b":
                raw.seek(0)
                with gzip.GzipFile(fileobj=raw) as unzipped:
                    head = unzipped.read(size)
            return head
    except (OSError, EOFError, zlib.error):
        return b""


def _first_line(path):
    """Return a file's first line whole, however long (gunzipped)."""
    try:
        with open(path, "rb") as raw:
            gzipped = raw.read(2) == b"\x1f\x8b"
        with (gzip.open if gzipped else open)(path, "rb") as f:
            return f.readline(1 << 26).decode("utf-8-sig", "replace")
    except (OSError, EOFError, zlib.error):
        return ""


def _open_source(path, how=None):
    """Return the _Source of a run: a file, or the directory a framework
    wrote, read as *how* (a _Reading) says.

    The format is how.format, else that of the first row of _READERS
    that recognises the file's name and first bytes; a directory's runs
    are found by the first reader whose layout finds any.
    """
    how = how or _Reading()
    if path != _STDIN and os.path.isdir(path):
        return _directory_source(path, how)
    if path != _STDIN and not os.path.exists(path):
        raise EvalDeltaError(f"{path}: cannot read: No such file or "
                             f"directory")       # before a name claims it
    head = _Head(path, how.inflate)
    with _CollectorPaused():
        return _reader_of(head, how).read(head, how)


def _reader_of(head, how):
    """Return the _Reader of a file: how.format's, else the first that
    recognises it (records under --records: the generic document's)."""
    if how.format is not None:
        return _BY_NAME[how.format]
    if how.records is not None and head.document() is not None:
        return _BY_NAME["document"]
    return next(r for r in _READERS if r.recognise(head))


def _listed_source(path, labelled, notes=(), kind="json", systems=(),
                   corpus=()):
    """Return a _Source of (place, record) pairs; where() names the place.

    Records that list their metrics (a "metrics" key) give the _Source's
    metrics: those every record has; the others are named in a note.
    """
    if not labelled:
        raise EvalDeltaError(f"{path}: no records")
    places = [place for place, _ in labelled]
    records = [record for _, record in labelled]
    metrics, notes = _listed_metrics(records, tuple(notes))

    def where(number):
        return f"{path}: {places[number - 1]}"

    def batches():
        for start in range(0, len(records), _BATCH):
            chunk = records[start:start + _BATCH]
            yield list(range(start + 1, start + 1 + len(chunk))), chunk
    return _Source(path, kind, None, records[0], 1, batches(), where,
                  notes, tuple(systems), tuple(corpus), metrics)


def _listed_metrics(records, notes):
    """Return (metrics every record lists, notes naming the rest)."""
    lists = [r.get("metrics") for r in records]
    if not all(isinstance(x, list) for x in lists):
        return (), notes
    counts = collections.Counter(m for x in lists for m in set(x))
    order = dict.fromkeys(m for x in lists for m in x)   # as first listed
    every = tuple(m for m in order if counts[m] == len(records))
    some = [m for m in order if counts[m] < len(records)]
    if some:
        least, most = (f(counts[m] for m in some) for f in (min, max))
        notes += (f"{', '.join(some)}: scored on "
                  f"{least}{f' to {most}' * (most > least)} of "
                  f"{len(records)} items "
                  f"only, so not compared unless --metric names one "
                  f"(with --allow-partial where the other run lacks it)",)
    return every, notes


def _average_epochs(labelled, key="id"):
    """Return (labelled, notes) with one record per item: the records
    sharing *key* are epochs of one item, and each numeric field is their
    exact mean (rounded once); a field numeric in some epochs and missing
    in others is left missing, so the metric reader names it.

    >>> _average_epochs([("a", {"id": 1, "m": 1}), ("b", {"id": 1, "m": 0}),
    ...                 ("c", {"id": 2, "m": 1}), ("d", {"id": 2, "m": 1})])
    ([('a', {'id': 1, 'm': 0.5}), ('c', {'id': 2, 'm': 1.0})], ('2 epochs per item, averaged',))
    """
    groups = {}
    for place, record in labelled:
        groups.setdefault(record[key], []).append((place, record))
    sizes = sorted({len(group) for group in groups.values()})
    if sizes in ([], [1]):
        return labelled, ()
    out = []
    for group in groups.values():
        place, first = group[0]
        merged = {}
        for name in dict.fromkeys(k for _, r in group for k in r):
            values = [r.get(name, _MISSING) for _, r in group]
            labels = not any(type(v) in (int, float, bool) for v in values)
            merged[name] = (first.get(name) if name == key or labels
                            else _mean_of(values))
        merged.pop("epoch", None)
        out.append((place, merged))
    span = (f"{sizes[0]}" if len(sizes) == 1
            else f"{sizes[0]} to {sizes[-1]}")
    return out, (f"{span} epochs per item, averaged",)


def _epochs(labelled, how, key="id"):
    """_average_epochs, unless the reading keeps a record per epoch."""
    if how.keep_epochs:
        return labelled, ()
    return _average_epochs(labelled, key)


def _mean_of(values):
    """Return the exact mean of numbers (rounded once), the value itself
    if there is one, else None (missing: the metric reader names it)."""
    if len(values) == 1:
        return values[0]
    if all(type(v) in (int, float, bool) for v in values):
        return float(sum(map(_exact, values)) / len(values))
    return None


def _load_json(path, inflate=_INFLATE_LIMIT):
    """Return the one JSON value a file holds (gunzipped if need be)."""
    return _parse_document(path, _lines(path, inflate))


# Directories.  A framework's reader names the runs in a directory it
# wrote (_Found: task, time stamp, file); one chooser then picks, the same
# way for every framework: --task by its exact name, the newest run of a
# task (frameworks keep every run; the older ones are said to be left
# out), one task alone, or with --by task all of them as subsets.

def _directory_source(path, how):
    """Return the _Source of the run (or, with --by task, the runs) in a
    directory a framework wrote (see above)."""
    for reader in _READERS:
        found = reader.layout(path) if reader.layout else None
        if found:
            break
    else:
        files = [os.path.join(path, name) for name in os.listdir(path)
                 if os.path.isfile(os.path.join(path, name))]
        if len(files) == 1:                # a run's one file
            return _open_source(files[0], how)
        raise EvalDeltaError(
            f"{path}: a directory of {len(files)} files, none a run that a "
            f"framework writes in its directories (lm-eval samples_*.jsonl, "
            f"HELM per_instance_stats.json, Inspect logs, DeepEval test runs, "
            f"OpenCompass predictions/ or results/, lighteval details_*"
            f".parquet, Every Eval Ever .jsonl); name the file to read")
    runs, older = _newest_runs(path, found)
    if how.task is not None:
        if how.task not in runs:
            raise EvalDeltaError(
                f"{path}: no task {how.task!r} in this {reader.name} "
                f"directory; its tasks are {', '.join(sorted(runs))}")
        runs = {how.task: runs[how.task]}
    notes = [older[task] for task in runs if task in older]
    if len(runs) > 1 and not how.all_tasks:
        raise EvalDeltaError(
            f"{path}: {len(runs)} tasks in this {reader.name} directory "
            f"({', '.join(sorted(runs)[:6])}{', ...' * (len(runs) > 6)}); "
            f"pick one with --task NAME, or read "
            f"them all as subsets with --by task")
    if how.all_tasks:
        source = _tasks_source(path, runs, how)
    else:
        (run,) = runs.values()
        source = _open_source(run, how._replace(all_tasks=False))
    return source._replace(notes=tuple(notes) + source.notes)


def _newest_runs(path, found):
    """Return ({task: file of its newest run}, {task: a note on the runs
    left out} for the tasks run more than once)."""
    by_task = {}
    for run in sorted(found, key=lambda r: (r.task, r.stamp, r.path)):
        by_task.setdefault(run.task, []).append(run)
    older = {task: f"{task}: {os.path.relpath(runs[-1].path, path)} read, "
                   f"the newest of {len(runs)} runs in {path} (the older "
                   f"left out: name a file to read another)"
             for task, runs in by_task.items() if len(runs) > 1}
    return {task: runs[-1].path for task, runs in by_task.items()}, older


def _walk(path, depth):
    """Yield (folder, file names) of a directory and its folders down to
    *depth* levels, in sorted order."""
    for folder, folders, files in os.walk(path):
        folders.sort()
        if folder[len(path):].count(os.sep) >= depth:
            folders.clear()
        yield folder, sorted(files)


def _tasks_source(path, runs, how):
    """Return one _Source of the runs {task: file}: each record gains the
    field task and its id is prefixed with it, since ids repeat across
    tasks (--by task)."""
    labelled, notes, identities = [], [], set()
    for task, file in runs.items():
        source = _open_source(file, how._replace(all_tasks=False))
        identities.add(source.identity)
        for numbers, records in source.batches:
            if source.fields is not None:
                records = [dict(zip(source.fields, r)) for r in records]
            for number, record in zip(numbers, records):
                record = dict(record, task=task)
                for key in _ID_FIELDS:
                    if key in record:
                        record[key] = f"{task}/{record[key]}"
                        break
                labelled.append((source.where(number), record))
        notes += [f"{task}: {note}" for note in source.notes]
    notes.insert(0, f"{_items(len(runs), 'task')} read as one run, a "
                    f"field task each")
    source = _listed_source(path, labelled, notes)
    return source._replace(where=lambda number: labelled[number - 1][0],
                           identity=identities.pop() if len(
                               identities) == 1 else ())


# lm-evaluation-harness.  --log_samples writes, in output_path/<model>/,
# samples_<task>_<date>.jsonl (one line per document and filter: gsm8k has
# strict-match and flexible-extract, each line naming its metrics in
# "metrics") beside results_<date>.json (the aggregates and configs, read
# only for the names of the filters below).  Older versions write no
# "filter" and no "metrics" keys: a line per filter in the order of the
# task's configs.filter_list in results_<date>.json, and every key that is
# not the document's own is a metric.  Metrics written as [gold, pred]
# pairs (f1, mcc) are corpus-level: left out of the default set, and the
# report says so.

_LM_EVAL_KEYS = {"doc_id", "doc", "target", "arguments", "resps",
                 "filtered_resps", "doc_hash", "prompt_hash", "target_hash",
                 "filter", "metrics", "task_name", "task"}


def _is_lm_eval(head):
    """Recognise an lm-eval samples file: a first line with doc_id and lm-
    eval's own keys."""
    first = head.first()
    return (first is not None and "doc_id" in first
            and bool(first.keys() & (_LM_EVAL_KEYS - {"doc_id", "doc"})))


def _lm_eval_runs(path):
    """Return the _Found runs of an lm-eval output directory: its
    samples_<task>_<date> files."""
    return [_Found(*_task_and_stamp(name), os.path.join(folder, name))
            for folder, files in _walk(path, 2) for name in files
            if name.startswith("samples_") and
            name.endswith((".jsonl", ".jsonl.gz"))]


def _task_and_stamp(name):
    """Return (task, date) of lm-eval's samples_<task>_<date>.jsonl.

    >>> _task_and_stamp("samples_mmlu_anatomy_2024-05-01T10-00-00.123.jsonl")
    ('mmlu_anatomy', '2024-05-01T10-00-00.123')
    """
    stem = name[len("samples_"):].split(".jsonl")[0]
    match = re.search(r"_(\d{4}-\d\d-\d\dT[\d\-.:]+)$", stem)
    if not match:
        return stem, ""
    return stem[:match.start()], match.group(1)


def _read_lm_eval(head, how):
    """Return the _Source of an lm-eval samples file: a record per document, a
    metric per filter."""
    path = head.path
    rows = [(number, _json_object(line, f"{path}:{number}"))
            for start, lines in _lines(path, head.inflate)
            for number, line in enumerate(lines, start) if line.strip()]
    notes = []
    if rows and not any("filter" in record for _, record in rows):
        notes += _older_filters(path, rows)
    filters = list(dict.fromkeys(str(r.get("filter", "none"))
                                 for _, r in rows))
    if how.filter is not None:
        if filters == ["none"] and not any("filter" in r for _, r in rows):
            notes.append(f"its samples name no filter and it has one: read "
                         f"as --filter {how.filter}'s, which this file "
                         f"cannot confirm")
            rows = [(number, dict(r, filter=how.filter))
                    for number, r in rows]
            filters = [how.filter]
        elif how.filter not in filters:
            raise EvalDeltaError(f"{path}: no filter {how.filter!r}; the "
                                 f"filters are {', '.join(filters)}")
        filters = [how.filter]
    several = len(filters) > 1
    labelled, corpus = [], []
    for number, record in rows:
        name = str(record.get("filter", "none"))
        if name not in filters:
            continue
        doc = record.get("doc_id", _MISSING)
        if _missing(doc):
            raise EvalDeltaError(f"{path}:{number}: no doc_id")
        out = {"doc_id": str(doc), "filter": name}
        if "doc" in record:              # the document: --by doc.subject
            out["doc"] = record["doc"]
        if "doc_hash" in record:         # its hash: the item's identity
            out["doc_hash"] = record["doc_hash"]
        listed = record.get("metrics")
        names = (listed if isinstance(listed, list) else
                 [k for k in record if k not in _LM_EVAL_KEYS])
        kept = []
        for metric in names:
            value = record.get(metric, _MISSING)
            if isinstance(value, (list, tuple)):
                if metric not in corpus:
                    corpus.append(metric)
                out[metric] = tuple(_hashable(value))   # not a mean
                continue
            field = f"{metric}[{name}]" if several else metric
            out[field] = value
            kept.append(field)
        out["metrics"] = kept
        labelled.append((f"line {number}", out))
    labelled = _by_filter(labelled)
    labelled, epochs = _epochs(labelled, how, "doc_id")
    notes += epochs
    if corpus:
        notes.append(f"{', '.join(corpus)}: a list per item, which lm-eval "
                     f"aggregates over the corpus, and so are they compared "
                     f"unless --metric or --stat names what to compare")
    if several:
        notes.append(f"filters {', '.join(filters)}: each its own metric; "
                     f"--filter keeps one")
    source = _listed_source(path, labelled, notes, corpus=[
        _parse_stat(name) if name in _PAIR_STATS
        else _Stat(name, "ratio", (name,)) for name in corpus])
    return source._replace(task=_lm_eval_task(path, rows),
                           identity=_held_by(labelled, "doc_hash", "doc"))


def _lm_eval_task(path, rows):
    """Return the task of an lm-eval samples file: its records' task name
    (newer lm-eval), else its file's name (samples_<task>_<date>)."""
    named = {str(r.get("task_name")) for _, r in rows if "task_name" in r}
    if len(named) == 1:
        return named.pop()
    name = os.path.basename(path)
    task, stamp = _task_and_stamp(name)
    return task if name.startswith("samples_") and stamp else ""


def _held_by(labelled, *fields):
    """Return (the first of *fields* every record holds,), or ()."""
    return next(((f,) for f in fields
                 if all(f in record for _, record in labelled)), ())


def _older_filters(path, rows):
    """Name the filters of an older lm-eval samples file in place (its
    lines carry no 'filter'): the k-th line of a document is the k-th
    filter of configs[task].filter_list in the results_<date>.json beside
    it.  Return the notes; with no results file, or counts that do not
    fit its filters, a repeated document is refused, saying why."""
    counts = collections.Counter(str(r.get("doc_id")) for _, r in rows)
    if max(counts.values()) == 1:
        return []
    task, stamp = _task_and_stamp(os.path.basename(path))
    results = os.path.join(os.path.dirname(path), f"results_{stamp}.json")
    names = _filter_list(results, task) if stamp else None
    if not names or any(c % len(names) for c in counts.values()):
        repeat = next(number for number, r in rows
                      if counts[str(r.get("doc_id"))] > 1)
        raise EvalDeltaError(
            f"{path}:{repeat}: doc_id {rows[0][1].get('doc_id')!r} appears "
            f"{max(counts.values())} times with no 'filter' key: an older "
            f"lm-eval writes a line per filter, named in the run's "
            f"results_{stamp or '<date>'}.json (configs.{task}.filter_list)"
            + (", which does not list them" if names is not None else
               ", which is not beside this file; put it there")
            + "; --filter then picks one")
    seen = collections.Counter()
    for _, record in rows:
        doc = str(record.get("doc_id"))
        record["filter"] = names[seen[doc] % len(names)]
        seen[doc] += 1
    return [f"filters named from {os.path.basename(results)} (this older "
            f"lm-eval writes a line per filter, in its filter_list order)"]


def _filter_list(results, task):
    """Return the filter names of *task* in an lm-eval results file, []
    if it lists none, None if there is no such file."""
    if not os.path.isfile(results):
        return None
    doc = _load_json(results)
    config = (doc.get("configs") or {}).get(task) if isinstance(
        doc, dict) else None
    listed = config.get("filter_list") if isinstance(config, dict) else None
    return [str(f.get("name")) for f in listed or ()
            if isinstance(f, dict)]


def _by_filter(labelled):
    """Join an lm-eval document's lines of several filters into one
    record; a document seen again with a filter it has is a repeat (an
    epoch), and starts a record of its own."""
    out, open_ = [], {}
    for place, record in labelled:
        doc, name = record["doc_id"], record.pop("filter")
        slots = open_.setdefault(doc, [])
        target = next((i for i in slots if name not in out[i][2]), None)
        if target is None:
            slots.append(len(out))
            out.append((place, record, {name}))
            continue
        _, merged, seen = out[target]
        seen.add(name)
        merged["metrics"] = merged["metrics"] + record["metrics"]
        merged.update((k, v) for k, v in record.items() if k != "metrics")
    return [(place, record) for place, record, _ in out]


# Inspect (UK AISI inspect_ai): a .eval log is a zip archive holding
# samples/<id>_epoch_<n>.json, a .json log one object with "samples"; both
# are written as logs/<date>_<task>_<id>.{eval,json}.  A sample has an id,
# an epoch and scores {scorer: {"value": ...}}; a value is a letter (C 1,
# P 0.5, I and N 0, as Inspect's value_to_float), a number, a bool, or a
# dict of named values, each its own metric.  A sample with no scores and
# no error was never scored (inspect score scores it); NaN is Inspect's
# unscored value.

_INSPECT_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}


def _is_inspect(head):
    """Recognise an Inspect log: a zip (.eval), or an object with 'eval'."""
    if head.bytes[:4] == b"PK\x03\x04" or head.name.endswith(".eval"):
        return True
    doc = head.document()
    return doc is not None and isinstance(doc.get("eval"), dict) and (
        "samples" in doc or "results" in doc or "status" in doc)


_INSPECT_HEAD = re.compile(r'^\{[^{]*"eval"\s*:\s*\{')  # version, status


def _inspect_runs(path):
    """Return the _Found runs of an Inspect log directory: <date>_<task>_<id>
    logs (.json ones told by their first bytes, not parsed whole here: the
    reader parses the one it reads)."""
    found = []
    for folder, files in _walk(path, 1):
        for name in files:
            file = os.path.join(folder, name)
            if name.endswith(".eval") or (
                    name.endswith(".json") and _INSPECT_HEAD.search(
                        _Head(file).text[:4096])):
                stem = name.rsplit(".", 1)[0]
                parts = stem.split("_")
                if len(parts) >= 3 and re.match(r"\d{4}-\d\d-\d\dT", stem):
                    found.append(_Found("_".join(parts[1:-1]), parts[0],
                                        file))
                else:
                    found.append(_Found(stem, "", file))
    return found


def _inspect_value(value):
    """Return an Inspect score value as a number where Inspect reads one.

    >>> _inspect_value("C"), _inspect_value("yes"), _inspect_value(0.25)
    (1.0, 1.0, 0.25)
    """
    if type(value) in (int, float, bool):
        return value
    if isinstance(value, str):
        if value in _INSPECT_LETTERS:
            return _INSPECT_LETTERS[value]
        word = value.strip().lower()
        if word in ("yes", "true", "no", "false"):
            return float(word in ("yes", "true"))
    return value                   # left as it is: the reader names it


def _inspect_scores(sample, how, scorers):
    """Return {field: value} of a sample's scores ({} if unscored)."""
    scores = sample.get("scores")
    out = {}
    for scorer, score in (scores.items() if isinstance(scores, dict)
                          else ()):
        if scorer not in scorers:
            scorers.append(scorer)
        if how.scorer is not None and scorer != how.scorer:
            continue
        value = score.get("value") if isinstance(score, dict) else score
        named = (value.items() if isinstance(value, dict)
                 else [(None, value)])
        for key, part in named:
            out[scorer if key is None else f"{scorer}.{key}"] = \
                _inspect_value(part)
    return out


_INSPECT_RATIOS = {"num_instructions": ("inst_level_strict",
                                         "inst_level_loose")}
# A dict score's counts that Inspect sums over the samples before dividing
# (inspect_evals' ifeval: if_metric's instruction-level accuracy is the
# instructions followed over the instructions given, not a mean per item).


def _inspect_records(path, samples, how):
    """Return (labelled records, notes, corpus _Stats) of Inspect samples."""
    labelled, left, scorers = [], collections.Counter(), []
    ratios = {}
    for sample in samples:
        if not isinstance(sample, dict):
            raise EvalDeltaError(f"{path}: a sample that is not an object")
        place = f"sample {sample.get('id')!r} epoch {sample.get('epoch', 1)}"
        values = _inspect_scores(sample, how, scorers)
        why = ("errored" if sample.get("error") else "never scored"
               if not values else "NaN-scored" if any(
                   isinstance(v, float) and math.isnan(v)
                   for v in values.values()) else None)
        if why:
            left[why] += 1
            if not how.allow_partial:
                _refuse_inspect_sample(path, place, why, sample)
            continue
        for field in values:
            scorer, _, key = field.rpartition(".")
            for count in _INSPECT_RATIOS.get(key, ()):
                if scorer and f"{scorer}.{count}" in values:
                    ratios[f"{scorer}.{count}"] = field
        record = {"id": str(sample.get("id")),
                  "epoch": sample.get("epoch", 1), "metrics": [
                      f for f in values if f not in ratios
                      and f not in ratios.values()]}
        record.update(_inspect_item(sample))
        record.update(values)
        labelled.append((place, record))
    if how.scorer is not None and how.scorer not in scorers:
        raise EvalDeltaError(f"{path}: no scorer {how.scorer!r}; the "
                             f"scorers are {', '.join(scorers) or 'none'}")
    if not labelled:
        raise EvalDeltaError(
            f"{path}: none of its {len(samples)} samples has a score ("
            + ", ".join(f"{n} {why}" for why, n in left.items())
            + "): nothing to compare")
    labelled, notes = _epochs(labelled, how)
    notes += tuple(f"{n} {why} samples left out (--allow-partial)"
                   for why, n in left.items())
    if ratios:
        notes += (f"{', '.join(ratios)}: counts over "
                  f"{', '.join(sorted(set(ratios.values())))}, which Inspect "
                  f"sums over the samples before dividing (ifeval's "
                  f"instruction-level accuracy), and so are they compared",)
    return labelled, notes, [_Stat(count, "ratio", (count, total))
                             for count, total in ratios.items()]


def _inspect_item(sample):
    """Return the item an Inspect sample holds, {input, target}, as read:
    a chat input's messages as (role, content) alone, since each message
    also carries an id drawn afresh in every run."""
    item = {k: sample[k] for k in ("input", "target") if k in sample}
    if isinstance(item.get("input"), list):
        item["input"] = [[m.get("role"), m.get("content")]
                         if isinstance(m, dict) else m
                         for m in item["input"]]
    return item


def _refuse_inspect_sample(path, place, why, sample):
    """Raise the error of an Inspect sample with no score: errored, never
    scored, or NaN."""
    if why == "errored":
        error = sample.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        text = " ".join(str(message).split())
        raise EvalDeltaError(
            f"{path}: {place}: errored ({text[:80]}{'...' * (len(text) > 80)})"
            f", so it has no score; --allow-partial leaves errored samples "
            f"out and says how many")
    what = ("scored NaN, Inspect's value for a sample it could not score"
            if why == "NaN-scored" else "never scored (no score and no "
            "error): score the log first (inspect score "
            f"{shlex.quote(path)})")
    raise EvalDeltaError(f"{path}: {place}: {what}; --allow-partial leaves "
                         f"such samples out and says how many")


def _read_inspect(head, how):
    """Return the _Source of an Inspect .eval or .json log."""
    path = head.path
    doc = None if head.bytes[:4] == b"PK\x03\x04" else head.document()
    if doc is not None:
        return _inspect_source(path, doc.get("samples", _MISSING), doc, how)
    samples, header = [], {}
    try:
        with zipfile.ZipFile(path) as archive:
            names = sorted(n for n in archive.namelist()
                           if n.startswith("samples/") and n.endswith(".json"))
            samples = [_archived_json(archive, head, name) for name in names]
            if "header.json" in archive.namelist():
                header = _archived_json(archive, head, "header.json")
    except NotImplementedError:
        raise EvalDeltaError(
            f"{path}: compressed with zstd, which Python reads from 3.14 "
            f"on; convert it with 'inspect log convert {shlex.quote(path)} "
            f"--to json', or use Python 3.14") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise EvalDeltaError(f"{path}: not a readable Inspect .eval log "
                             f"({exc})") from None
    return _inspect_source(path, samples, header, how)


def _archived_json(archive, head, name):
    """Return the JSON value of a member of an Inspect .eval archive (no
    more than head.inflate bytes)."""
    with archive.open(name) as member:
        data = member.read(head.inflate + 1)
    if len(data) > head.inflate:
        raise EvalDeltaError(_too_inflated(head.path, f"its member {name}",
                                           head.inflate))
    return _inspect_json(data, head.path, name)


def _inspect_json(data, path, name):
    """Return the JSON value of a member of an Inspect .eval archive."""
    try:
        return json.loads(data, parse_constant=float)
    except ValueError as exc:
        raise EvalDeltaError(f"{path}: {name}: malformed JSON: "
                             f"{getattr(exc, 'msg', exc)}") from None


def _inspect_source(path, samples, header, how):
    """Return the _Source of an Inspect log's samples, or say why none."""
    status = header.get("status") if isinstance(header, dict) else None
    if samples is _MISSING:
        raise EvalDeltaError(
            f"{path}: an Inspect log header with no samples (written with "
            f"--no-log-samples, or saved header only); compare needs the "
            f"log with its samples")
    if not isinstance(samples, list) or not samples:
        raise EvalDeltaError(
            f"{path}: no samples in this Inspect log"
            + (f" (status {status})" if status else ""))
    labelled, notes, corpus = _inspect_records(path, samples, how)
    spec = header.get("eval") if isinstance(header, dict) else None
    task = spec.get("task") if isinstance(spec, dict) else None
    return _listed_source(path, labelled, notes, corpus=corpus)._replace(
        task=str(task or ""), identity=tuple(
            f for f in ("input", "target")
            if all(f in record for _, record in labelled)))


# HELM: a run directory (benchmark_output/runs/<suite>/<run spec>/) holds
# per_instance_stats.json, the per-item stats read here, beside
# run_spec.json, scenario.json and stats.json (aggregates and configs, not
# read).  per_instance_stats.json is a list of {instance_id,
# train_trial_index, perturbation, stats: [{name: {name, split, ...},
# mean}]}; an item's score for a metric is the stat of that name on one
# split, unperturbed; the item is (instance, trial).  A run may hold test
# and valid instances: the test split is read (stats.json reports each
# split apart), or the one split there is, and the rest are counted out.
# Bookkeeping stats (token counts, run times, finish reasons) are not
# metrics unless --metric names them.

_HELM_BOOKKEEPING = ("num_", "finish_reason_", "training_", "inference_",
                     "batch_size", "prompt_truncated", "max_prob")


def _is_helm(head):
    """Recognise HELM's per_instance_stats.json: a JSON list of instance_id and
    stats."""
    return (head.text.startswith("[") and '"instance_id"' in head.text
            and '"stats"' in head.text)


def _helm_runs(path):
    """Return the _Found runs of a HELM run or suite directory: each folder
    holding per_instance_stats.json."""
    return [_Found(os.path.basename(folder) if folder != path
                   else os.path.basename(os.path.abspath(path)), "",
                   os.path.join(folder, "per_instance_stats.json"))
            for folder, files in _walk(path, 2)
            if "per_instance_stats.json" in files]


def _read_helm(head, how):
    """Return the _Source of HELM's per_instance_stats.json: one split,
    unperturbed."""
    path = head.path
    doc = _load_json(path, head.inflate)
    if not isinstance(doc, list):
        raise EvalDeltaError(f"{path}: expected HELM's list of instances")
    entries = [e for e in doc if isinstance(e, dict)
               and not e.get("perturbation")]
    splits = collections.Counter(_helm_split(e) for e in entries)
    split = ("test" if "test" in splits else
             min(map(str, splits.keys() - {None}), default=None))
    labelled, seen, merged = [], {}, 0
    for entry in entries:
        if _helm_split(entry) != split:
            continue
        trial = entry.get("train_trial_index", 0)
        key = f"{entry.get('instance_id')}/{trial}"
        record = seen.get(key)
        if record is None:          # some runs split an instance's stats
            record = seen[key] = {"id": key, "metrics": []}   # over records
            labelled.append((f"instance {entry.get('instance_id')} trial "
                             f"{trial}", record))
        else:
            merged += 1
        for name, mean in _helm_stats(entry):
            if not name.get("perturbation") and name.get("split") == split:
                stat = str(name.get("name"))
                if stat in record and record[stat] != mean:
                    raise EvalDeltaError(
                        f"{path}: instance {entry.get('instance_id')} trial "
                        f"{trial}: {stat} is {record[stat]!r} in one record "
                        f"and {mean!r} in another; which one HELM scored "
                        f"cannot be told")
                if stat not in record and not stat.startswith(
                        _HELM_BOOKKEEPING):
                    record["metrics"].append(stat)
                record[stat] = mean
    notes = [f"HELM {split} split, unperturbed; token counts, run times "
             f"and finish reasons are not compared unless --metric names "
             f"them"]
    if merged:
        notes.append(f"{_items(merged, 'record')} continued an instance "
                     f"already read (its other stats): merged into it, one "
                     f"item per instance as stats.json counts them")
    others = [f"{n} {s}-split instance{'s' * (n > 1)}"
              for s, n in sorted(splits.items(), key=str) if s != split]
    if others:
        notes.append(f"{', '.join(others)} left out (the "
                     f"{split} split is read; stats.json reports each split "
                     f"apart)")
    folder = os.path.dirname(path)
    texts = _helm_instances(folder, head.inflate)
    for _, record in labelled:
        record.update(texts.get(record["id"].rpartition("/")[0], ()))
    return _listed_source(path, labelled, notes)._replace(
        task=_helm_scenario(folder, head.inflate), identity=tuple(
            f for f in ("input", "references") if texts and all(
                f in record for _, record in labelled)))


def _helm_instances(folder, inflate):
    """Return {instance id: {input, references}} of the instances of a HELM
    run (its instances.json, else scenario_state.json's request states:
    the text of each unperturbed instance and its references with their
    tags), {} if the run holds neither."""
    for name, part in (("instances.json", None),
                       ("scenario_state.json", "request_states")):
        file = os.path.join(folder, name)
        if os.path.isfile(file):
            doc = _load_json(file, inflate)
            break
    else:
        return {}
    listed = doc.get(part) if part and isinstance(doc, dict) else doc
    out = {}
    for entry in listed if isinstance(listed, list) else ():
        instance = entry.get("instance", entry) if part else entry
        if not isinstance(instance, dict) or instance.get("perturbation"):
            continue
        text = instance.get("input")
        refs = instance.get("references")
        out.setdefault(str(instance.get("id")), {
            "input": text.get("text") if isinstance(text, dict) else text,
            "references": [[(r.get("output") or {}).get("text"),
                            r.get("tags")] for r in refs
                           if isinstance(r, dict)]
            if isinstance(refs, list) else refs})
    return out


def _helm_scenario(folder, inflate):
    """Return the scenario of a HELM run ('mmlu:subject=philosophy', from
    its run_spec.json: the run's name before ':' and the scenario's
    arguments), '' if unknown."""
    file = os.path.join(folder, "run_spec.json")
    if not os.path.isfile(file):
        return ""
    spec = _load_json(file, inflate)
    if not isinstance(spec, dict) or not isinstance(spec.get("name"), str):
        return ""
    scenario = spec.get("scenario_spec")
    args = scenario.get("args") if isinstance(scenario, dict) else None
    name = spec["name"].partition(":")[0]
    if isinstance(args, dict) and args:
        name += ":" + ",".join(f"{k}={v}" for k, v in args.items())
    return name


def _helm_split(entry):
    """Return the split of a HELM instance's (unperturbed) stats."""
    return next((name.get("split") for name, _ in _helm_stats(entry)
                 if not name.get("perturbation")), None)


def _helm_stats(entry):
    """Return [(name object, mean)] of a HELM instance's stats."""
    stats = entry.get("stats") if isinstance(entry, dict) else None
    return [(s["name"], s.get("mean"))
            for s in (stats if isinstance(stats, list) else ())
            if isinstance(s, dict) and isinstance(s.get("name"), dict)]


# OpenAI evals: a record file holds a "spec" line, then events {sample_id,
# type, data}, in any order; "match" events carry data.correct per sample.

def _is_openai_evals(head):
    """Recognise an OpenAI evals record file: a spec line or {sample_id, type,
    data} events."""
    first = head.first()
    return first is not None and ("spec" in first or {
        "sample_id", "type", "data"} <= first.keys())


def _read_openai_evals(head, how):
    """Return the _Source of an OpenAI evals record file: match events (or
    graded choices)."""
    path, labelled, graded = head.path, [], 0
    scores = how.choice_scores
    for start, lines in _lines(path, head.inflate):
        for number, line in enumerate(lines, start):
            if not line.strip():
                continue
            event = _json_object(line, f"{path}:{number}")
            data = event.get("data")
            data = data if isinstance(data, dict) else {}
            item = str(event.get("sample_id"))
            if event.get("type") == "match":
                labelled.append((f"line {number}",
                                 {"id": item, "correct": data.get("correct")}))
            elif event.get("type") == "metrics" and "choice" in data:
                graded += 1
                if scores is None:
                    continue
                choice = str(data["choice"])
                if choice not in scores:
                    raise EvalDeltaError(
                        f"{path}:{number}: choice {choice!r} has no score in "
                        f"--choice-scores ({', '.join(scores)})")
                labelled.append((f"line {number}",
                                 {"id": item, "score": scores[choice]}))
    if not labelled and graded:
        raise EvalDeltaError(f"{path}: a model-graded eval (metrics events "
                             f"with a choice per sample): give each choice "
                             f"a score with --choice-scores A=1,B=0,...")
    return _listed_source(path, *_epochs(labelled, how))


# promptfoo: `promptfoo eval -o results.json` holds every system (provider,
# or provider and prompt where there are several prompts) in one file:
# results.results[] with testIdx, testCase, provider, success, score,
# namedScores; -o results.jsonl a result a line.  It is read as one wide
# file, a column per system (success) and per system and score
# (SYSTEM.score, SYSTEM.NAME).  An item is its test case (its description
# and vars), never its index: two evals both number their tests from 0.
# Repeats of a test (--repeat) share its testCase: epochs of one item.
# failureReason 2 is an API error, not a wrong answer.  A test that some
# systems never ran (a test limited to some prompts) is a missing cell:
# compare with --allow-partial compares the tests both systems ran.

def _is_promptfoo_lines(head):
    """Recognise promptfoo's results.jsonl: a first line with testIdx, provider
    and success."""
    first = head.first()
    return first is not None and {"testIdx", "provider", "success"} <= \
        first.keys()


def _is_promptfoo(head):
    """Recognise promptfoo's results.json: results.results, a list."""
    doc = head.document()
    inner = doc.get("results") if doc is not None else None
    return isinstance(inner, dict) and isinstance(inner.get("results"), list)


def _read_promptfoo(head, how):
    """Return the _Source of promptfoo's results.json."""
    return _promptfoo_source(head.path, head.document()["results"]["results"],
                             how)


def _read_promptfoo_lines(head, how):
    """Return the _Source of promptfoo's results.jsonl."""
    path = head.path
    results = [_json_object(line, f"{path}:{number}")
               for start, lines in _lines(path, head.inflate)
               for number, line in enumerate(lines, start) if line.strip()]
    return _promptfoo_source(path, results, how)


def _promptfoo_source(path, results, how):
    """Return the wide _Source of promptfoo's results: a row per test case, a
    column per system and score."""
    prompts = {_prompt_label(r) for r in results if isinstance(r, dict)}
    cells, systems, errored = {}, [], set()
    for number, result in enumerate(results, 1):
        if not isinstance(result, dict):
            raise EvalDeltaError(f"{path}: result {number} is not an object")
        system = _promptfoo_system(result, len(prompts) > 1)
        item = _promptfoo_test(result)
        if result.get("failureReason") == 2:
            if not how.allow_partial:
                _refuse_api_error(path, results, number, item, system)
            errored.add(item)
            continue
        if system not in systems:
            systems.append(system)
        values = {system: result.get("success"),
                  f"{system}.score": result.get("score")}
        named = result.get("namedScores")
        if isinstance(named, dict):
            values.update((f"{system}.{k}", v) for k, v in named.items())
        row = cells.setdefault(item, {})
        for column, value in values.items():
            row.setdefault(column, []).append(value)
    labelled, most = [], 1
    columns = {c: None for row in cells.values() for c in row}
    alone = len(systems) == 1          # one provider: its fields by what
    for item, row in cells.items():    # they hold, so that two files of
        if item in errored:            # two providers pair (success)
            continue
        record = dict(id=item, **columns)    # a test a system did not run
        for column, values in row.items():
            most = max(most, len(values))
            record[column] = _mean_of(values)
        if alone:
            record = {("success" if k == systems[0] else
                       k[len(systems[0]) + 1:] if k.startswith(
                           systems[0] + ".") else k): v
                      for k, v in record.items()}
        labelled.append((f"test {item}", record))
    if not labelled:
        raise EvalDeltaError(f"{path}: every test has an API error "
                             f"(failureReason 2): nothing was answered")
    notes = [f"one system, {systems[0]}: its pass/fail is success, its "
             f"score score; a test is its description and vars" if alone
             else f"systems {', '.join(systems)}: one column each; a test "
                  f"is its description and vars"]
    if most > 1:
        notes.append(f"up to {most} repeats per test, averaged")
    if errored:
        notes.append(f"{_items(len(errored), 'test')} with API errors left out "
                     f"(--allow-partial)")
    return _listed_source(path, labelled, notes, "promptfoo", systems)


def _refuse_api_error(path, results, number, item, system):
    """Raise the error of a promptfoo result that is an API error."""
    count = sum(isinstance(r, dict) and r.get("failureReason") == 2
                for r in results)
    if count == len(results):
        raise EvalDeltaError(f"{path}: all {count} results are API errors "
                             f"(failureReason 2): no test was answered")
    raise EvalDeltaError(
        f"{path}: result {number} (test {item}, {system}): an API error, not "
        f"a wrong answer ({count} of {len(results)} results); "
        f"--allow-partial leaves tests with errors out")


def _promptfoo_test(result):
    """Return the id of a promptfoo result's test: its description and
    vars (as JSON), else its testIdx where it has no test case."""
    test = result.get("testCase")
    if not isinstance(test, dict):
        return f"#{result.get('testIdx')}"
    described = test.get("description")
    values = json.dumps(test.get("vars", result.get("vars")), sort_keys=True,
                        ensure_ascii=False, separators=(",", ":"))
    return f"{described} {values}" if described else values


def _prompt_label(result):
    """Return a promptfoo result's prompt label (None if it has none)."""
    prompt = result.get("prompt")
    return str(prompt.get("label")) if isinstance(prompt, dict) else None


def _promptfoo_system(result, several_prompts):
    """Return the system of a promptfoo result: its provider, and its prompt
    where there are several."""
    provider = result.get("provider")
    if isinstance(provider, dict):
        provider = provider.get("label") or provider.get("id")
    name = str(provider)
    return f"{name} | {_prompt_label(result)}" if several_prompts else name


# DeepEval: deepeval test run writes .deepeval/.latest_test_run.json as
# {"testRunData": test run} and older versions the test run bare
# (.temp_test_run_data.json, test_run_<ts>.json): testCases[] with name
# (the item) and metricsData[] {name, score, success}.  One evaluate()
# names its cases test_case_0, 1, ...; a run of two evaluate() calls on the
# same inputs names a case twice: one item, its metrics merged (a metric
# scored twice is averaged, as epochs); a name given to two inputs is
# refused.  G-Eval metrics were named "NAME (GEval)", now "NAME [GEval]":
# read as the latter, so runs of both versions compare.

def _is_deepeval(head):
    """Recognise a DeepEval test run: testCases, bare or under testRunData."""
    doc = head.document()
    if doc is None:
        return False
    run = doc.get("testRunData", doc)
    return isinstance(run, dict) and isinstance(run.get("testCases"), list)


def _deepeval_runs(path):
    # test_run_<date>.json sort by date; .latest_test_run.json is the newest
    """Return the _Found runs of a DeepEval project: test_run_<date>.json and
    .deepeval/ files."""
    return [_Found("test run", "~latest" if "latest" in name else
                   name.rsplit(".", 1)[0], os.path.join(folder, name))
            for folder, files in _walk(path, 1) for name in files
            if name.endswith(".json") and name.startswith((
                "test_run_", ".latest_test_run", ".temp_test_run"))
            and _is_deepeval(_Head(os.path.join(folder, name)))]


def _read_deepeval(head, how):
    """Return the _Source of a DeepEval test run: a record per case name."""
    path, doc = head.path, head.document()
    cases = doc.get("testRunData", doc)["testCases"]
    items, inputs, renamed = {}, {}, set()
    for number, case in enumerate(cases, 1):
        if not isinstance(case, dict):
            raise EvalDeltaError(f"{path}: test case {number} is not an "
                                 f"object")
        item = str(case.get("name", number))
        text = case.get("input")
        if inputs.setdefault(item, text) != text:
            raise EvalDeltaError(
                f"{path}: test case {number}: the name {item!r} is given to "
                f"two different inputs, so items cannot be told apart; name "
                f"the test cases (LLMTestCase(name=...)) or compare runs of "
                f"one evaluate() each")
        record = items.setdefault(item, {"id": item, "metrics": []})
        data = case.get("metricsData")
        for metric in data if isinstance(data, list) else ():
            if isinstance(metric, dict):
                name = str(metric.get("name"))
                if name.endswith(" (GEval)"):      # before DeepEval named
                    name = name[:-len(" (GEval)")] + " [GEval]"  # it so
                    renamed.add(name)
                record.setdefault(f"_{name}", []).append(metric.get("score"))
                if name not in record["metrics"]:
                    record["metrics"].append(name)
    labelled = []
    for item, record in items.items():
        for name in record["metrics"]:
            record[name] = _mean_of(record.pop(f"_{name}"))
        labelled.append((f"test case {item!r}", record))
    notes = [f"{name[:-len(' [GEval]')]} (GEval), as older DeepEval "
             f"names it, read as {name}" for name in sorted(renamed)]
    if len(items) < len(cases):
        notes.append(f"{len(cases) - len(items)} test cases named again "
                     f"(a second evaluate() on the same inputs): one item "
                     f"each, their metrics merged")
    return _listed_source(path, labelled, notes)


# OpenCompass writes outputs/<date>/ with predictions/<model>/<dataset>.json
# ({"0": {"origin_prompt", "prediction", "gold"}, ...}: every run) and
# results/<model>/<dataset>.json (the aggregate, and per-item "details"
# only with --dump-eval-details: example_abbr is the item, correct or
# is_correct a bool or a list with one entry per repeat).  A results file
# with details is read; else its predictions, an item correct when its
# prediction equals its gold label (as OpenCompass's AccEvaluator counts
# post-processed predictions: a dataset whose evaluator post-processes
# or scores otherwise needs the details, and the report says which).

def _is_opencompass(head):
    """Recognise an OpenCompass per-item file: results with details, or
    predictions."""
    doc = head.document()
    return doc is not None and (
        isinstance(doc.get("details"), (list, dict))
        or _is_predictions(doc))


def _is_predictions(doc):
    """Return True for OpenCompass predictions: every entry an object with a
    prediction."""
    return bool(doc) and all(isinstance(v, dict) and "prediction" in v
                             for v in doc.values())


def _opencompass_runs(path):
    """Return the _Found runs of OpenCompass outputs: <date>/predictions/ or
    results/ with details."""
    found = {}
    for folder, files in _walk(path, 4):
        kind = os.path.basename(os.path.dirname(folder))
        if kind not in ("predictions", "results"):
            continue
        stamp = os.path.basename(os.path.dirname(os.path.dirname(folder)))
        model = os.path.basename(folder)
        for name in files:
            if name.endswith(".json"):
                key = (model, name[:-5], stamp)
                file = os.path.join(folder, name)
                if kind == "predictions" or b'"details"' in _head_bytes(file):
                    found.setdefault(key, {})[kind] = file
    models = {model for model, _, _ in found}
    return [_Found(dataset if len(models) == 1 else f"{model}/{dataset}",
                   stamp, files.get("results", files.get("predictions")))
            for (model, dataset, stamp), files in found.items()]


def _read_opencompass(head, how):
    """Return the _Source of an OpenCompass results (details) or predictions
    file."""
    path, doc = head.path, head.document()
    if not isinstance(doc.get("details"), (list, dict)):
        return _read_predictions(path, doc, how)
    details = doc["details"]
    entries = (details.items() if isinstance(details, dict)
               else enumerate(details))
    labelled = []
    for key, entry in entries:
        if not isinstance(entry, dict):
            raise EvalDeltaError(f"{path}: details {key!r} is not an object")
        item = str(entry.get("example_abbr", key))
        value = entry.get("correct", entry.get("is_correct"))
        for epoch, part in enumerate(value if isinstance(value, list)
                                     else [value]):
            labelled.append((f"details {key!r}",
                             {"id": item, "epoch": epoch, "correct": part}))
    return _listed_source(path, *_epochs(labelled, how))


def _read_predictions(path, doc, how):
    """Return the _Source of OpenCompass predictions: correct where prediction
    equals gold."""
    labelled = []
    for key, entry in doc.items():
        prediction, gold = entry.get("prediction"), entry.get("gold")
        if not isinstance(gold, (str, int, float)) or isinstance(gold, bool):
            raise EvalDeltaError(
                f"{path}: prediction {key!r}: gold is {type(gold).__name__}, "
                f"not one label, so exact match cannot score it; read the "
                f"results/ file written with --dump-eval-details")
        correct = str(prediction).strip() == str(gold).strip()
        labelled.append((f"prediction {key!r}", {"id": key,
                                                 "correct": int(correct)}))
    notes = ["OpenCompass predictions: correct where the prediction equals "
             "the gold label (AccEvaluator's count on post-processed "
             "predictions; a dataset scored otherwise needs results/ "
             "written with --dump-eval-details)"]
    return _listed_source(path, labelled, notes)


# Every Eval Ever (evaleval's shared schema, instance_level_eval 0.2, 2026):
# a *_samples.jsonl (or <uuid>.jsonl) of one model on one evaluation, a
# line per sample: {schema_version, evaluation_id, model_id,
# evaluation_name, sample_id, sample_hash, interaction_type, input, output
# or messages, answer_attribution, evaluation: {score, is_correct, ...}},
# written beside an aggregate <uuid>.json (model_info, evaluation_results
# [{evaluation_name, score_details: {score}}], detailed_evaluation_results
# naming the samples file).  The item is sample_id; sample_hash, a hash of
# the item's input and reference, is its identity (the join checks that
# two runs' hashes agree for an id).  is_correct is compared apart from
# score only where it differs from it on some item.

_EEE_KEYS = {"schema_version", "evaluation_id", "model_id",
             "evaluation_name", "sample_id", "interaction_type"}


def _is_every_eval_ever(head):
    """Recognise an Every Eval Ever samples file: a first line with
    sample_id, an evaluation object and the schema's other keys."""
    first = head.first()
    return (first is not None and isinstance(first.get("evaluation"), dict)
            and len(first.keys() & _EEE_KEYS) >= 4 and "sample_id" in first)


def _every_eval_ever_runs(path):
    """Return the _Found runs of a folder of Every Eval Ever samples files
    (data/<benchmark>/<developer>/<model>/): task its evaluation_name."""
    found = []
    for folder, files in _walk(path, 3):
        for name in files:
            head = _Head(os.path.join(folder, name))
            if name.endswith(".jsonl") and _is_every_eval_ever(head):
                task = head.first().get("evaluation_name")
                found.append(_Found(str(task), "", head.path))
    return found


def _read_every_eval_ever(head, how):
    """Return the _Source of an Every Eval Ever samples file: a record per
    sample_id (samples of one id averaged as epochs), metrics score and,
    where it says more, is_correct; sample_hash the item's identity."""
    path, labelled, models, tasks = head.path, [], {}, {}
    for start, lines in _lines(path, head.inflate):
        for number, line in enumerate(lines, start):
            if not line.strip():
                continue
            record = _json_object(line, f"{path}:{number}")
            labelled.append((f"line {number}",
                             _eee_record(record, f"{path}:{number}")))
            models.setdefault(str(record.get("model_id")), number)
            tasks.setdefault(str(record.get("evaluation_name")), number)
    if len(models) > 1:
        raise EvalDeltaError(
            f"{path}:{list(models.values())[1]}: model_id "
            f"{list(models)[1]!r} after {list(models)[0]!r}: an Every Eval "
            f"Ever samples file holds one model's samples; split it by model")
    apart = any(r["is_correct"] != r["score"] for _, r in labelled
                if r["is_correct"] is not _MISSING)
    for _, record in labelled:
        record["metrics"] = ["score", "is_correct"] if apart else ["score"]
    labelled, notes = _epochs(labelled, how, "sample_id")
    notes = [_eee_note(path, list(models)[0], list(tasks), labelled)] + list(
        notes)
    if not apart:
        notes.append("is_correct equals score on every sample, so score "
                     "stands for both")
    source = _listed_source(path, labelled, notes)
    return source._replace(identity=("sample_hash",))


def _eee_record(record, place):
    """Return the record of an Every Eval Ever sample: its id, identity,
    evaluation name and the numbers of its evaluation object."""
    item, evaluation = record.get("sample_id"), record.get("evaluation")
    if _missing(item):
        raise EvalDeltaError(f"{place}: no sample_id")
    if not isinstance(evaluation, dict):
        raise EvalDeltaError(f"{place}: 'evaluation' is "
                             f"{type(evaluation).__name__}, not an object "
                             f"with score and is_correct")
    out = {"sample_id": str(item), "sample_hash": record.get("sample_hash"),
           "evaluation_name": record.get("evaluation_name")}
    out["score"] = evaluation.get("score", _MISSING)
    correct = evaluation.get("is_correct", _MISSING)
    out["is_correct"] = int(correct) if type(correct) is bool else correct
    return out


def _eee_note(path, model, tasks, labelled):
    """Return the read: line of an Every Eval Ever file: its model and
    evaluation, and its aggregate's figures where one is beside it."""
    line = (f"Every Eval Ever: {model} on "
            f"{', '.join(str(t) for t in tasks)}")
    aggregate = _eee_aggregate(path, model)
    if aggregate is None:
        return line
    name, figures = aggregate
    shown = "; ".join(f"{what} {score:.4g}" if type(score) in (int, float)
                      else f"{what} {score}" for what, score in figures)
    return f"{line}; its aggregate {name} reports {shown or 'no score'}"


def _eee_aggregate(path, model):
    """Return (file name, [(evaluation, score)]) of the Every Eval Ever
    aggregate beside a samples file: the .json naming it in
    detailed_evaluation_results, else the one there of the same model;
    None if there is none."""
    folder = os.path.dirname(path) or "."
    named, same = [], []
    for name in sorted(os.listdir(folder)):
        file = os.path.join(folder, name)
        if not name.endswith(".json") or not os.path.isfile(file):
            continue
        try:
            doc = _Head(file).document()
        except EvalDeltaError:          # not JSON: not the aggregate
            continue
        if not doc or not isinstance(doc.get("evaluation_results"), list):
            continue
        detail = doc.get("detailed_evaluation_results")
        target = detail.get("file_path") if isinstance(detail, dict) else None
        if target and os.path.basename(str(target)) == os.path.basename(path):
            named.append((name, doc))
        elif (doc.get("model_info") or {}).get("id") == model:
            same.append((name, doc))
    chosen = named or (same if len(same) == 1 else [])
    if not chosen:
        return None
    name, doc = chosen[0]
    figures = dict.fromkeys(
        (f"{r.get('evaluation_name')}", (r.get("score_details") or {})
         .get("score")) for r in doc["evaluation_results"]
        if isinstance(r, dict))
    return name, list(figures)


# Files that hold no per-item results, recognised to say so and where the
# per-item file is: lm-eval's results_<date>.json, HELM's stats.json,
# run_spec.json and scenario.json, OpenCompass's results/ without details,
# simple-evals' metrics file and its _allresults.json (conversations with
# no item ids: pairing them by position is refused) and git-lfs pointers.

_AGGREGATES = (
    (lambda h, d: d is not None and isinstance(d.get("results"), dict)
     and ("configs" in d or "versions" in d),
     "lm-eval's results file: aggregates only; the per-item results are the "
     "samples_<task>_<date>.jsonl beside it (written with --log_samples)"),
    (lambda h, d: h.name in ("stats.json", "run_spec.json", "scenario.json",
                             "scenario_state.json") and h.text[:1] in "[{",
     "a HELM run's {name}, not its per-item stats: read the run directory "
     "or its per_instance_stats.json"),
    (lambda h, d: d is not None and "convos" in d and "htmls" in d,
     "simple-evals' _allresults.json: conversations with no item ids and no "
     "per-item scores, so runs could be paired only by position, which is "
     "refused; write each item's id and score (CSV or JSONL) to compare"),
    (lambda h, d: h.text.startswith("{") and _numbers_only(h),
     "aggregate figures only ({shown}), no per-item results: read the "
     "per-item file (OpenCompass: predictions/<model>/<dataset>.json, or "
     "results/ written with --dump-eval-details)"),
)


def _numbers_only(head):
    """Return True for a JSON object of numbers only: aggregate figures."""
    doc = head.document()
    return bool(doc) and all(type(v) in (int, float) or (
        isinstance(v, str) and not v.strip()) for v in doc.values())


def _aggregate_message(head):
    """Return what an aggregate-only file is and where its per-item file is, or
    None."""
    doc = head.document() if head.text.startswith("{") else None
    for test, message in _AGGREGATES:
        if test(head, doc):
            figures = list(doc.items())[:3] if _numbers_only(head) else []
            shown = ", ".join(f"{k} {v}" for k, v in figures)
            return message.format(name=head.name, shown=shown)
    return None


def _read_aggregate(head, how):
    """Refuse a file of aggregates only, saying where the per-item file is."""
    raise EvalDeltaError(f"{head.path}: {_aggregate_message(head)}")


# Pairwise preferences: a verdict per item between two outputs, read as a
# score on a pair: the second system's share of the verdict, 1 a win, 0 a
# loss, 1/2 a tie, a judge's probability as its value.  Each layout gives
# Verdicts in a _Source of kind "preferences"; _preference_pair() turns the
# two systems compared into a wide file of their shares (the first's
# 1 - x, the second's x), so compare's intervals, tests and verdicts are
# those of any paired metric: the candidate's mean is its win rate with
# ties as half, and the paired test of 2x - 1 is the sign test on the
# decisive verdicts where the verdicts are whole.  Layouts, from each
# project's source:
#   AlpacaEval annotations.json (alpaca_eval metrics/winrate.py): a list of
#     {instruction, generator_1 (the baseline), generator_2, preference}:
#     1 the baseline, 2 the model, 1.5 or 0 a draw, between them the
#     judge's probability; None or NaN not annotated (left out, said).
#   MT-Bench pairwise judgments (FastChat llm_judge, show_result.py):
#     {question_id, model_1, model_2, g1_winner, g2_winner, turn}; the
#     second game has the positions swapped, its winner already named by
#     model; a verdict that flips with the position (or a tie in the
#     first game) is a tie, as display_result_pairwise counts it; rows
#     with an error in either game are left out, as there.
#   Arena-Hard judgments (arena-hard-auto show_result.py): {question_id,
#     model, games: [{score}, {score}]}, scores A>>B, A>B, A=B, B>A, B>>A;
#     game 1 has the baseline as A, game 2 the model; an item's share is
#     the mean of its games (a strong verdict is a win here; Arena-Hard's
#     Bradley-Terry counts it three times).
#   Chatbot Arena battles and plain tables: {model_a, model_b, winner},
#     winner model_a, model_b, tie or tie (bothbad) (or a system's name,
#     a, b); each battle is an item, its question_id (if any) a cluster;
#     with a turn too (MT-Bench's human judgments, several judges to an
#     item), the item is the question's turn, as in MT-Bench's pair files.

class _Verdict(NamedTuple):
    """One judgment of two systems: the second's share of it, and where."""
    item: str            # what was judged (a question, and its turn)
    question: str        # the question it belongs to: a cluster
    a: str               # the system in the pair's first place
    b: str
    share: float         # b's share of the verdict, in [0, 1]
    place: str
    games: tuple = ()    # (b's share, b in the first position) per game
    fields: tuple = ()   # (name, value) of short labels: dataset, turn


_PREFERENCE_KEYS = (
    ({"generator_1", "generator_2", "preference"}, "alpaca-eval"),
    ({"model_1", "model_2", "g1_winner", "g2_winner"}, "mt-bench"),
    ({"model", "games"}, "arena-hard"),
    ({"model_a", "model_b", "winner"}, "battles"),
)
_VERDICT_FIELDS = {"instruction", "output_1", "output_2", "generator_1",
                   "generator_2", "preference", "model_1", "model_2",
                   "g1_winner", "g2_winner", "g1_judgment", "g2_judgment",
                   "g1_user_prompt", "g2_user_prompt", "model", "games",
                   "model_a", "model_b", "winner", "question_id", "uid",
                   "raw_completion", "conversation_a", "conversation_b"}


def _head_keys(head):
    """Return the field names of a file's first record (JSON or a header)."""
    first = head.first()
    if first is not None:
        return set(first)
    if head.text.startswith("["):
        found = re.search(r"\{[^{}]*", head.text)   # the first record's
        return set(re.findall(r'"(\w+)"\s*:', found.group())) if found \
            else set()
    if head.text.startswith("{"):
        return set()
    header = head.text.partition("\n")[0]
    return {f.strip().strip('"') for f in re.split(r"[,\t;]", header)}


def _preference_kind(head):
    """Return the name of a pairwise-preference layout, or None."""
    keys = _head_keys(head)
    return next((name for wanted, name in _PREFERENCE_KEYS
                 if wanted <= keys), None)


def _preference_records(head):
    """Yield (place, record) of a JSON array, JSONL or CSV file."""
    source = _table_source(head.path, head.inflate)
    for numbers, rows in source.batches:
        for number, row in zip(numbers, rows):
            yield source.where(number), (
                dict(zip(source.fields, row)) if source.fields else row)


def _brief(value):
    """Return a value's repr, cut to 60 characters, for a message."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _labels(record):
    """Return the (name, value) pairs of a record's short labels (dataset,
    category, turn, language): what --by can group by."""
    if not record.keys() - _VERDICT_FIELDS:
        return ()
    return tuple((k, v) for k, v in record.items()
                 if k not in _VERDICT_FIELDS and (
                     isinstance(v, (int, str)) and not isinstance(v, bool))
                 and len(str(v)) <= 40)


def _system_name(value, place, field):
    """Return a system's name from a record, or raise naming the place."""
    if value is None or isinstance(value, (dict, list)) or str(value) == "":
        raise EvalDeltaError(f"{place}: {field} names no system "
                             f"({_brief(value)})")
    return str(value)


def _read_alpaca_eval(head, how):
    """Return the _Source of AlpacaEval annotations (see above)."""
    verdicts, unannotated = [], 0
    for place, record in _preference_records(head):
        a = _system_name(record.get("generator_1"), place, "generator_1")
        b = _system_name(record.get("generator_2"), place, "generator_2")
        value = record.get("preference")
        if value is None or value == "" or (
                isinstance(value, float) and math.isnan(value)):
            unannotated += 1
            continue
        try:
            number = _finite_number(value)
        except ValueError:
            number = -1.0
        if not 0 <= number <= 2 or 0 < number < 1:
            raise EvalDeltaError(f"{place}: preference {_brief(value)} is "
                                 f"not 1 (generator_1 better) to 2 "
                                 f"(generator_2 better), or 0 for a draw")
        share = Fraction(1, 2) if number == 0 else _exact(number) - 1
        item = str(record.get("instruction", place))
        verdicts.append(_Verdict(item, item, a, b, float(share), place,
                                fields=_labels(record)))
    notes = ["AlpacaEval annotations: generator_2's share of each verdict "
             "is preference - 1 (a draw, 0 or 1.5, half; a probability as "
             "its value)"]
    if unannotated:
        notes.append(f"{_items(unannotated, 'instruction')} with no "
                     f"preference (None or NaN) left out, as AlpacaEval "
                     f"does")
    return _preference_source(head.path, verdicts, notes)


_GAME_WINNERS = {"model_1": 0.0, "model_2": 1.0, "tie": 0.5}


def _read_mt_bench(head, how):
    """Return the _Source of MT-Bench pairwise judgments (see above)."""
    verdicts, errors = [], 0
    for place, record in _preference_records(head):
        a = _system_name(record.get("model_1"), place, "model_1")
        b = _system_name(record.get("model_2"), place, "model_2")
        g1, g2 = record.get("g1_winner"), record.get("g2_winner")
        if "error" in (g1, g2):
            errors += 1
            continue
        for name, value in (("g1_winner", g1), ("g2_winner", g2)):
            if not isinstance(value, str) or value not in _GAME_WINNERS:
                raise EvalDeltaError(
                    f"{place}: {name} {_brief(value)} is not model_1, "
                    f"model_2, tie or error")
        share = 0.5 if g1 == "tie" or g1 != g2 else _GAME_WINNERS[g1]
        question, turn = str(record.get("question_id", place)), \
            record.get("turn", 1)
        verdicts.append(_Verdict(
            f"{question}/turn {turn}", question, a, b, share, place,
            ((_GAME_WINNERS[g1], False), (_GAME_WINNERS[g2], True)),
            _labels(record)))
    notes = ["MT-Bench pairwise judgments: a verdict that flips with the "
             "position, or a tie in the first game, is a tie (as FastChat's "
             "show_result counts them)"]
    if errors:
        notes.append(f"{_items(errors, 'judgment')} with an error in either "
                     f"game left out, as FastChat does")
    return _preference_source(head.path, verdicts, notes)


def _arena_hard_share(score, model_first):
    """Return the model's share of one Arena-Hard game's verdict, or None
    where the judge's verdict could not be read (Arena-Hard drops it)."""
    if not isinstance(score, str):
        return None
    verdict = score.replace(" ", "")
    first = {"A>>B": 1.0, "A>B": 1.0, "A=B": 0.5, "B>A": 0.0, "B>>A": 0.0}
    if verdict not in first:
        return None
    return first[verdict] if model_first else 1 - first[verdict]


def _read_arena_hard(head, how):
    """Return the _Source of Arena-Hard judgments (see above)."""
    verdicts, unread, named = [], 0, True
    for place, record in _preference_records(head):
        b = _system_name(record.get("model"), place, "model")
        a = record.get("baseline")
        if a is None:
            named, a = False, "baseline"
        a = _system_name(a, place, "baseline")
        games = record.get("games")
        if not isinstance(games, list) or not games:
            raise EvalDeltaError(f"{place}: games {_brief(games)} is not a "
                                 f"list of judged games")
        played = []
        for k, game in enumerate(games[:2]):
            share = _arena_hard_share(
                game.get("score") if isinstance(game, dict) else None, k == 1)
            if share is None:
                unread += 1
            else:
                played.append((share, k == 1))
        if not played:
            continue
        question = str(record.get("question_id", record.get("uid", place)))
        verdicts.append(_Verdict(question, question, a, b,
                                sum(s for s, _ in played) / len(played),
                                place, tuple(played), _labels(record)))
    notes = ["Arena-Hard judgments: an item's share is the mean of its "
             "games (the second with the positions swapped); A>>B counts "
             "as A>B here"]
    if not named:
        notes.append("the baseline is not named in the file (Arena-Hard "
                     "v0.1's is gpt-4-0314): called 'baseline'")
    if unread:
        notes.append(f"{_items(unread, 'game')} whose verdict the judge "
                     f"did not give in a readable form left out, as "
                     f"Arena-Hard does")
    return _preference_source(head.path, verdicts, notes)


def _read_battles(head, how):
    """Return the _Source of battles: Chatbot Arena's, or any table with
    model_a, model_b and winner (see above)."""
    verdicts, turns = [], False
    plain = {"model_a": 0.0, "model_b": 1.0, "tie": 0.5,
             "tie (bothbad)": 0.5}          # Chatbot Arena's words
    for place, record in _preference_records(head):
        a, b, winner = (record.get("model_a"), record.get("model_b"),
                        record.get("winner"))
        if a.__class__ is not str or not a:
            a = _system_name(a, place, "model_a")
        if b.__class__ is not str or not b:
            b = _system_name(b, place, "model_b")
        share = plain.get(winner) if winner.__class__ is str else None
        if share is None or winner == a or winner == b:
            text = str(winner).strip() if winner is not None else ""
            share = ({"model_a": 0.0, "a": 0.0, "model_b": 1.0, "b": 1.0}
                     .get(text.lower()) if text not in (a, b)
                     else float(text == b))
            if share is None and text.lower().startswith("tie"):
                share = 0.5
            if share is None:
                raise EvalDeltaError(f"{place}: winner {_brief(winner)} is "
                                     f"not model_a, model_b, tie or a "
                                     f"system's name")
        question, turn = record.get("question_id"), record.get("turn")
        item = place.rpartition(": ")[2]
        if question is not None and turn is not None:   # MT-Bench's human
            item = f"{question}/turn {turn}"   # judgments: as its pair files
            turns = True
        verdicts.append(_Verdict(item, item if question is None
                                else str(question), a, b, share, place,
                                fields=_labels(record)))
    items = {v.item for v in verdicts}
    shared = turns and (len(items) < len(verdicts) or len(
        {v.question for v in verdicts}) < len(items))
    return _preference_source(head.path, verdicts, [
        "battles: each question's turn is an item (as in MT-Bench's pair "
        "files), a tie a share of 1/2" if shared else
        "battles: each is an item, a tie a share of 1/2"])


def _preference_source(path, verdicts, notes):
    """Return the _Source of a file's Verdicts (kind "preferences")."""
    if not verdicts:
        raise EvalDeltaError(f"{path}: no judgments to read")
    systems = tuple(dict.fromkeys(s for v in verdicts for s in (v.a, v.b)))
    same = next((v for v in verdicts if v.a == v.b), None)
    if same:
        raise EvalDeltaError(f"{same.place}: a system judged against "
                             f"itself ({same.a})")

    def where(number):
        return verdicts[number - 1].place
    return _Source(path, "preferences", None, verdicts[0]._asdict(), 1,
                  iter([(list(range(1, len(verdicts) + 1)), verdicts)]),
                  where, tuple(notes), systems, forkable=False)


def _is_lfs_pointer(head):
    """Recognise a git-lfs pointer: its version line."""
    return head.bytes.startswith(b"version https://git-lfs.github.com/spec/")


def _read_lfs_pointer(head, how):
    """Refuse a git-lfs pointer, saying how to fetch the file."""
    raise EvalDeltaError(
        f"{head.path}: a git-lfs pointer ({len(head.bytes)} bytes), not the "
        f"file itself: fetch it with git lfs pull --include "
        f"{shlex.quote(head.path)}")


# lighteval writes its details (--save-details) only as Parquet:
# details/<model>/<date>/details_<task>_<date>.parquet, a row per example
# (and per metric group: a task whose metrics are computed in two passes,
# as aime24's sampling pass@1 and its extractive_match, writes each
# example twice, each row holding its own metrics and nulls for the
# others), beside results/<model>/results_<date>.json (the means, read for
# the read: line).  Two layouts: the older (example, predictions, gold,
# full_prompt, specifics, metrics: a group of numbers) and the newer (doc,
# model_response, metric).  No column numbers the items by anything but
# position, which is refused: an item is its text (doc.id where lighteval
# sets one), and a hash of its text and gold its identity, so two runs
# pair on the same example and the join can check that they hold it.
# Only these columns are read; predictions and tokens are never inflated.

def _lighteval_runs(path):
    """Return the _Found runs of a lighteval output or details directory:
    its details_<task>_<date>.parquet files."""
    return [_Found(*_details_task(name), os.path.join(folder, name))
            for folder, files in _walk(path, 4) for name in files
            if name.startswith("details_") and name.endswith(".parquet")]


def _details_task(name):
    """Return (task, date) of lighteval's details_<task>_<date>.parquet.

    >>> _details_task("details_lighteval|aime24|0_2025-05-02T21-28-09.71.parquet")
    ('lighteval|aime24|0', '2025-05-02T21-28-09.71')
    """
    stem = name[len("details_"):].rsplit(".parquet", 1)[0]
    match = re.search(r"_(\d{4}-\d\d-\d\dT[\d\-.:]+)$", stem)
    if not match:
        return stem, ""
    return stem[:match.start()], match.group(1)


def _read_lighteval(head, how):
    """Return the _Source of a lighteval details file: a record per
    example (its rows' metrics merged), id its text's hash or doc.id."""
    path = head.path
    footer = _parquet_footer(path)
    tops = dict.fromkeys(p.split(".")[0] for p in footer.leaves)
    group = "metric" if "metric" in tops else "metrics"
    newer = group == "metric"
    text = "doc.query" if newer else "example"
    if not any(p.startswith(group + ".") for p in footer.leaves) or (
            text not in footer.leaves):
        raise EvalDeltaError(
            f"{path}: a Parquet file without lighteval's columns (a "
            f"metrics group and example, or metric and doc.query); its "
            f"columns are {', '.join(list(tops)[:12])}")
    gold = [p for p in ("doc.id", "doc.gold_index", "doc.choices", "gold")
            if p in footer.leaves or any(x.startswith(p + ".")
                                         for x in footer.leaves)]
    rows = _parquet_rows(footer, [group, text] + gold, how.inflate)
    numbered = newer and all(isinstance(d, dict) and d.get("id")
                             for d in rows["doc"])
    labelled = _lighteval_items(path, rows, group, newer, numbered)
    labelled, notes = _merge_rows(path, labelled, footer.rows)
    notes.insert(0, _lighteval_note(path, labelled))
    if not numbered:
        notes.insert(1, "lighteval details number no items: each is named "
                        "by a hash of its example's text")
    source = _listed_source(path, labelled, [n for n in notes if n])
    return source._replace(identity=("item_hash",))


def _lighteval_items(path, rows, group, newer, numbered):
    """Return (place, record) of each row of lighteval details: id (doc.id
    if *numbered*, else a hash of the example's text), the item's hash
    (of its text and gold) and its metrics (booleans as 0 and 1)."""
    labelled = []
    golds = rows.get("gold") or [None] * len(rows[group])
    for i, metrics in enumerate(rows[group]):
        place = f"row {i + 1}"
        doc = (rows["doc"][i] or {}) if newer else {}
        if newer:
            content = doc.get("query")
            gold = [doc.get("gold_index"), doc.get("choices")]
        else:
            content, gold = rows["example"][i], golds[i]
        if not isinstance(content, str):
            raise EvalDeltaError(f"{path}: {place}: no "
                                 f"{'doc.query' if newer else 'example'} to "
                                 f"name its item (pairing by row position is "
                                 f"refused)")
        name = hashlib.sha256(content.encode()).hexdigest()[:16]
        item = doc["id"] if numbered else name
        whole = json.dumps([content, gold], sort_keys=True, default=str)
        record = {"id": str(item),
                  "item_hash": hashlib.sha256(whole.encode()).hexdigest()}
        for key, value in (metrics or {}).items():
            if value is not None:
                record[key] = int(value) if type(value) is bool else value
        labelled.append((place, record))
    return labelled


def _merge_rows(path, labelled, total):
    """Return (labelled, notes) with one record per id: rows of one example
    merged, a metric several rows hold averaged as epochs (and said), a
    metric no row holds left missing (the metric reader names it)."""
    groups = {}
    for place, record in labelled:
        groups.setdefault(record["id"], []).append((place, record))
    if len(groups) == len(labelled):
        for _, record in labelled:
            record["metrics"] = [k for k in record
                                 if k not in ("id", "item_hash")]
        return labelled, []
    out, repeated = [], 0
    for group in groups.values():
        place, first = group[0]
        merged = {"id": first["id"], "item_hash": first["item_hash"]}
        names = dict.fromkeys(k for _, r in group for k in r
                              if k not in ("id", "item_hash"))
        for name in names:
            values = [r[name] for _, r in group if name in r]
            repeated += len(values) > 1
            merged[name] = _mean_of(values)
        other = next((p for p, r in group
                      if r["item_hash"] != first["item_hash"]), None)
        if other is not None:
            raise EvalDeltaError(
                f"{path}: {other}: the example of {place} again, with a "
                f"different gold: two items that one id cannot tell apart")
        merged["metrics"] = list(names)
        out.append((place, merged))
    notes = [f"{total} rows of {len(out)} examples: each example's rows "
             f"merged (lighteval writes a row per metric group)"]
    if repeated:
        notes.append(f"{repeated} metric values held by several rows of "
                     f"one example: averaged as epochs")
    return out, notes


def _lighteval_note(path, labelled):
    """Return the read: line of the results_<date>.json of a details file
    (its means of the metrics read), or '' if none is found."""
    task, stamp = _details_task(os.path.basename(path))
    folder = os.path.dirname(os.path.abspath(path))
    places = [folder, os.path.dirname(folder)]
    parts = folder.split(os.sep)
    if "details" in parts:                 # details/<model>/<date>/
        at = len(parts) - 1 - parts[::-1].index("details")
        places.append(os.sep.join(parts[:at] + ["results"]
                                  + parts[at + 1:-1]))
    name = f"results_{stamp}.json"
    found = next((os.path.join(p, name) for p in places
                  if stamp and os.path.isfile(os.path.join(p, name))), None)
    if found is None:
        return ""
    try:
        doc = _load_json(found)
    except EvalDeltaError:
        return f"{name} beside it is not readable JSON, so not quoted"
    figures = ((doc.get("results") or {}).get(task)
               if isinstance(doc, dict) else None)
    if not isinstance(figures, dict):
        return ""
    names = dict.fromkeys(m for _, r in labelled for m in r["metrics"])
    shown = [f"{m} {figures[m]:.4g}" for m in names
             if type(figures.get(m)) in (int, float)]
    return (f"lighteval's {name} reports {task}: "
            f"{', '.join(shown) or 'none of these metrics'}")


# Any JSON object: records under the key named by --records.

def _read_document(head, how):
    """Return the _Source of the records under --records in a JSON object, or
    say which lists it holds."""
    path, doc = head.path, head.document()
    if how.records is not None:
        records = _field(doc, how.records)
        if (not isinstance(records, list)
                or not all(isinstance(r, dict) for r in records)):
            raise EvalDeltaError(f"{path}: {how.records!r} is not a list of "
                                 f"records")
        return _listed_source(path, [(f"{how.records}[{i}]", r)
                                     for i, r in enumerate(records)])
    lists = [f"{key} ({size} records)" for key, size in _record_lists(doc)]
    raise EvalDeltaError(
        f"{path}: a JSON object that no framework reader knows, not a list "
        f"of records; lists of records in it: {', '.join(lists) or 'none'}; "
        f"name the one to read with --records KEY")


def _record_lists(doc, prefix="", depth=3):
    """Yield (dotted key, length) of the lists of objects in a document.

    >>> list(_record_lists({"a": {"b": [{"x": 1}]}, "c": [1, 2]}))
    [('a.b', 1)]
    """
    for key, value in doc.items():
        if isinstance(value, list) and value and all(
                isinstance(v, dict) for v in value):
            yield prefix + key, len(value)
        elif isinstance(value, dict) and depth > 1:
            yield from _record_lists(value, f"{prefix}{key}.", depth - 1)


def _read_table(head, how):
    """Return the _Source of a plain table: CSV, TSV, JSONL or a JSON array."""
    return _table_source(head.path, head.inflate)


_READERS = (
    _Reader("lfs-pointer", "a git-lfs pointer where a file should be "
            "(says how to fetch it)", _is_lfs_pointer, _read_lfs_pointer),
    _Reader("inspect", "Inspect .eval or .json log (logs/<date>_<task>_<id>"
            ".eval in a directory)", _is_inspect, _read_inspect,
            _inspect_runs),
    _Reader("lighteval", "lighteval details_<task>_<date>.parquet, or the "
            "output or details directory holding them",
            lambda h: h.bytes[:4] == b"PAR1" or h.name.endswith(".parquet"),
            _read_lighteval, _lighteval_runs),
    _Reader("helm", "HELM per_instance_stats.json, or the run directory "
            "holding it", _is_helm, _read_helm, _helm_runs),
    _Reader("openai-evals", "OpenAI evals record file (match events)",
            _is_openai_evals, _read_openai_evals),
    _Reader("every-eval-ever", "Every Eval Ever samples .jsonl (sample_id, "
            "sample_hash, evaluation.score), or the folder holding them",
            _is_every_eval_ever, _read_every_eval_ever, _every_eval_ever_runs),
    _Reader("lm-eval", "lm-evaluation-harness samples_<task>_<date>.jsonl, "
            "or the output directory holding them", _is_lm_eval,
            _read_lm_eval, _lm_eval_runs),
    _Reader("promptfoo", "promptfoo results.json (-o results.json) or "
            "results.jsonl", lambda h: _is_promptfoo_lines(h)
            or _is_promptfoo(h), lambda h, how: (
                _read_promptfoo_lines if _is_promptfoo_lines(h)
                else _read_promptfoo)(h, how)),
    _Reader("deepeval", "DeepEval test run (.deepeval/.latest_test_run.json"
            ", test_run_<date>.json)", _is_deepeval, _read_deepeval,
            _deepeval_runs),
    _Reader("opencompass", "OpenCompass predictions/ or results/ "
            "<model>/<dataset>.json, or the outputs/<date>/ directory",
            _is_opencompass, _read_opencompass, _opencompass_runs),
    _Reader("alpaca-eval", "AlpacaEval annotations.json (generator_1, "
            "generator_2, preference)",
            lambda h: _preference_kind(h) == "alpaca-eval", _read_alpaca_eval),
    _Reader("mt-bench", "MT-Bench pairwise judgments (model_1, model_2, "
            "g1_winner, g2_winner)",
            lambda h: _preference_kind(h) == "mt-bench", _read_mt_bench),
    _Reader("arena-hard", "Arena-Hard judgments (model, games with A>B "
            "verdicts)", lambda h: _preference_kind(h) == "arena-hard",
            _read_arena_hard),
    _Reader("battles", "pairwise battles: Chatbot Arena's, or any CSV or "
            "JSON(L) with model_a, model_b, winner",
            lambda h: _preference_kind(h) == "battles", _read_battles),
    _Reader("aggregate", "files of aggregates only (lm-eval results_*.json, "
            "HELM stats.json, simple-evals): says where the per-item file is",
            lambda h: _aggregate_message(h) is not None, _read_aggregate),
    _Reader("document", "a JSON object with records under --records KEY",
            lambda h: h.document() is not None, _read_document),
    _Reader("table", "CSV, TSV, JSONL or a JSON array of records, "
            "optionally gzipped", lambda h: True, _read_table),
)
_BY_NAME = {reader.name: reader for reader in _READERS}
_FORMATS = {reader.name: reader.description for reader in _READERS}


## Input: runs compared and ranked ############################################

# What compare and rank do with the runs they are given, apart from the
# command line: which fields are the metrics (named, or chosen and said),
# which way each is better, the reading of each candidate against the
# baseline into MetricResults, and rank's joint tally.  Options travel as
# one record, the _Options settled at the door.

class _Compared(NamedTuple):
    """One candidate's comparison with the baseline: its results, then
    (once the family of every candidate is judged) their _Judgements."""
    names: tuple
    results: list
    subsets: list            # (label, _MetricResult) with --by
    dropped: int
    reading: list
    margins: dict
    preferences: object = None   # _PreferenceCounts of a preference file
    sequential: tuple = ()       # a _Sequential per result, with --sequential
    equivalence: dict = {}       # {metric: equivalence margin}
    judgements: list = ()        # a _Judgement per result
    subset_judgements: list = ()  # ... and per subset
    checks: tuple = ()           # --human: a _JudgeCheck per result
    as_judged: tuple = ()        # ... and the judge's verdict alone


def _compare_run(options, path, rng):
    """Read the baseline and one candidate (None: one wide file) as the
    _Options say, and compare them; the _Compared, not yet judged."""
    baseline = _open_source(options.runs[0], options.reading)
    candidate = _open_source(path, options.reading) if path else None
    preferences = None
    if "preferences" in (baseline.kind, candidate and candidate.kind):
        baseline, options, preferences = _preference_pair(options, baseline,
                                                         candidate)
        candidate = None
    shared = [s for s in baseline.corpus
              if candidate is None or s in candidate.corpus]
    named = [s for s in shared if s.name in (options.metric or ())]
    if named:                # --metric mcc: lm-eval's [gold, pred] pairs
        options = options._replace(
            metric=tuple(m for m in options.metric
                         if m not in {s.name for s in named}),
            stat=tuple(options.stat) + tuple(named))
    stats = list(options.stat)
    if not stats and not options.metric:     # lm-eval's f1, ifeval's lists
        stats = shared
    corpus, left_out = [], []
    for stat in list(stats):
        try:
            corpus.append(_compare_stat(options, path, stat, rng))
        except EvalDeltaError as e:
            if options.stat:            # asked for: the error stands
                raise
            stats.remove(stat)          # the framework's own, found
            left_out.append(f"{stat.name}: left out: " + (
                f"its [gold, pred] pairs are not the class labels an F1 or "
                f"MCC over the corpus takes ({e})" if stat.stat != "ratio"
                else f"its lists are not numbers to pool ({e})")
                + "; the framework that wrote it aggregates it by its "
                  "task's own rule, which this tool does not know; the "
                  "other metrics are compared")
    dropped = max((c[2] for c in corpus), default=0)
    listed = baseline.first.get("metrics") if baseline.corpus else None
    if (options.stat and not options.metric) or (stats and listed == []):
        names = (_wide_names(stats[0]) if candidate is None
                 else (baseline.path, candidate.path))
        reading = list(dict.fromkeys(line for c in corpus for line in c[3]))
        reading += [c[4] for c in corpus]
        reading += list(dict.fromkeys(line for c in corpus if isinstance(
            c[2], _Dropped) for line in c[2].notes()))
        return _Compared(names, [c[0] for c in corpus],
                         [row for c in corpus for row in c[1]], dropped,
                         reading, _margins(options.margin,
                                           [s.name for s in stats]),
                         equivalence=_margins(options.equivalence,
                                              [s.name for s in stats],
                                              "--equivalence"))
    said = []
    metrics, baseline, candidate = _chosen_metrics(options, baseline,
                                                   candidate, said)
    metrics = [m._replace(direction=_direction(options, m.name, said))
               for m in metrics]
    margins = _margins(options.margin, [m.name for m in metrics]
                       + [s.name for s in stats])
    reading = _source_notes(options, (baseline, candidate)) + left_out
    if options.human and preferences is not None:
        return _judged_preferences(options, baseline, metrics[0],
                                   preferences, reading + said, rng)
    if options.human:
        if candidate is None:
            columns = metrics[0].a_field, metrics[0].b_field
            options, sides, metrics, specs = _wide_sides(options, baseline,
                                                         metrics)
            return _judged_run(options, sides, metrics, reading + said, rng,
                               specs)._replace(names=columns)
        human = options.human
        at = options.runs.index(path, 1) if len(human) > 1 else 0
        return _judged_run(options, [baseline, candidate], metrics,
                           reading + said, rng, [human[0], human[at]])
    left = [[0, []], [0, []]]
    if options.allow_partial:
        baseline = _complete_rows(baseline, [f for m in metrics for f in (
            m.a_field, m.b_field)[:2 if candidate is None else 1]], left[0])
        if candidate is not None:
            candidate = _complete_rows(candidate, [m.b_field for m in metrics],
                                      left[1])
    tallies, missing = _read_tallies(baseline, candidate, metrics, options,
                                     columns=True, left_out=[
                                         (s, removed) for s, (_, removed)
                                         in zip((baseline, candidate), left)])
    if candidate is not None:
        reading += _same_run((baseline, candidate), tallies, missing)
        reading += _other_tasks((baseline, candidate))
    reading += said
    ordered = (_in_order(options, tallies, reading) if options.order
               else tallies)
    sequential = tuple(_sequential(options, m, t, reading)
                       for m, t in zip(metrics, ordered)
                       ) if options.sequential else ()
    results = [_compare_macro(t, rng, options, m) if options.macro else
               _compare_tally(_merged_tally(t) if options.by else t, rng,
                              options, m, clustered=bool(options.cluster))
               for t, m in zip(tallies, metrics)]
    subsets = [row for t, m in zip(tallies, metrics) if options.by
               for row in _compare_subsets(t, rng, options, m)]
    names = ((metrics[0].a_field, metrics[0].b_field) if candidate is None
             else (baseline.path, candidate.path))
    results += [c[0] for c in corpus]
    subsets += [row for c in corpus for row in c[1]]
    reading += [c[4] for c in corpus]
    reading += [f"{source.path}: {_items(n, 'record')} missing a value "
                f"left out (--allow-partial)"
                for source, (n, _) in zip((baseline, candidate), left) if n]
    reading += missing.notes() if isinstance(missing, _Dropped) else []
    if preferences is not None:    # one verdict's two shares: never unpaired
        results = [r._replace(ci_unpaired=None) for r in results]
        r = results[0]
        if preferences.whole and r.clusters is None and r.mcnemar is None:
            # a sign flip of -1, 0, +1 is the sign test: its exact p
            results[0] = r._replace(p=preferences.sign_p,
                                    test="sign test exact")
        subsets = [(label, r._replace(ci_unpaired=None))
                   for label, r in subsets]
    return _Compared(names, results, subsets, max(dropped, missing), reading,
                     margins, preferences, sequential,
                     _margins(options.equivalence, [r.metric for r in results],
                              "--equivalence"))


def _wide_sides(options, wide, metrics):
    """Return (options, [A's source, B's source], metrics, human fields) of
    compare --human on one file holding both systems: --a-col JUDGE_A
    --b-col JUDGE_B --human HUMAN_A,HUMAN_B (or --human twice), and
    --judge-covariate X_A,X_B.  The file is read as two runs, each row
    one item of both, under the fields' shared stems (judge, human),
    joined on the file's id field, else on its rows: the same row is the
    same item, as in any wide file."""
    fields = (options.human[0].split(",") if len(options.human) == 1
              else list(options.human))
    m = metrics[0]
    if m.a_field == m.b_field or len(fields) != 2 or not all(fields):
        raise EvalDeltaError(
            f"--human with one file of both systems ({wide.path}) names "
            f"each system's field of human scores: --a-col JUDGE_A --b-col "
            f"JUDGE_B --human HUMAN_A,HUMAN_B (with two runs, --human FIELD "
            f"or a labels FILE)")
    if wide.path == _STDIN:
        raise EvalDeltaError("--human with one file of both systems reads "
                             "it twice: give its path, not standard input")
    named = options.judge_covariate
    covariate = named.split(",", 1) if named and "," in named else [named] * 2
    columns = [(m.a_field, fields[0], covariate[0]),
               (m.b_field, fields[1], covariate[1])]
    names = [(_stem(*pair) or pair[0]) if all(pair) else pair[0]
             for pair in zip(*columns)]
    names[0] = m.name
    key = options.id_col or next((f for f in _ID_FIELDS if _field(
        wide.first, f) is not _MISSING), _ROW)
    for field in [f for side in columns for f in side if f]:
        _require(wide.run(), field, "column", "the columns are",
                 list(wide.first))
    sides = [_renamed(_open_source(wide.path, options.reading),
                      dict(zip(names, side)), key == _ROW)
             for side in columns]
    options = options._replace(id_col=key, judge_covariate=named and
                               names[2])
    return (options, sides, [m._replace(name=names[0], a_field=names[0],
                                         b_field=names[0])], [names[1]] * 2)


_ROW = "\x00row"        # a wide file's row, its item where it has no id


def _renamed(source, names, rows):
    """Return *source* with each record holding its fields *names* says
    (new name: old field) under their new names (a field it lacks is left
    out), and its row number as _ROW if *rows*."""
    def side(number, record):
        if source.fields is not None:
            record = dict(zip(source.fields, record))
        out = {**record, **{new: value for new, value in (
            (new, _field(record, old)) for new, old in names.items() if old)
            if value is not _MISSING}}
        if rows:
            out[_ROW] = number
        return out

    def batches():
        for numbers, records in source.batches:
            yield numbers, [side(n, r) for n, r in zip(numbers, records)]
    return source._replace(batches=batches(), fields=None, forkable=False,
                           first=side(source.first_number, source.first))


def _here(line):
    """Return a line with the absolute paths in it under the current
    folder written from it ('/home/me/evals/a.json' as 'a.json' in
    /home/me/evals)."""
    here = os.path.join(os.getcwd(), "")
    return line.replace(here, "") if len(here) > 1 else line


def _named_runs(options, runs):
    """Return the _Compared *runs* with their systems named for the report:
    by --names (the baseline's, then each candidate's; a wide file's two
    columns'), else by what tells the paths given apart (_short_names);
    systems named otherwise (columns, a preference file's) keep their
    names.  Their read: lines name the files under the current folder
    from it (_here)."""
    runs = [run._replace(reading=list(map(_here, run.reading)))
            for run in runs]
    given = list(options.runs)
    if options.names:                    # as many as systems (_options)
        first, *rest = options.names
        return [run._replace(names=(first, rest[k] if given[1:]
                                    else rest[0]))
                for k, run in enumerate(runs)]
    if not given[1:]:
        return runs
    files = [path for path in given if path != _STDIN]     # - stays -
    if len(set(files)) == 1:            # one file again: its name, twice
        files = [os.path.basename(path.rstrip("/")) or path for path in files]
    short = iter(_short_names(files, alone=True))
    short = [path if path == _STDIN else next(short) for path in given]
    return [run._replace(names=(short[0], short[k])) if all(
        name == _STDIN or os.path.exists(name) for name in run.names)
        else run for k, run in enumerate(runs, 1)]


def _judged(runs, options):
    """Return the _Compared *runs*, each with its _Judgements: Holm's
    family is every candidate's metrics (and, apart, their subsets)."""
    count = (f"{len(runs)} candidates x " if len(runs) > 1 else "")
    metrics = len(runs[0].results)
    labels = len({label for label, _ in runs[0].subsets})
    judged = dict(margin=runs[0].margins, equivalent=runs[0].equivalence)
    judgements = _per_run(_judge(
        [r for run in runs for r in run.results], options._replace(jobs=1),
        family=count + _items(
            metrics, "metric"), **judged), [len(run.results) for run in runs])
    subsets = _per_run(_judge(
        [r for run in runs for _, r in run.subsets], options,
        family=count + _items(labels, "subset") + " x " + _items(
            len(runs[0].subsets) // max(labels, 1), "metric"), **judged),
        [len(run.subsets) for run in runs])
    as_judged = _per_run(_judge(
        [c.judged for run in runs for c in run.checks],
        options._replace(jobs=1), family=count + _items(metrics, "metric"),
        **judged),
        [len(run.checks) for run in runs])
    return [run._replace(judgements=j, subset_judgements=sj,
                         as_judged=tuple(v.verdict for v in aj))
            for run, j, sj, aj in zip(runs, judgements, subsets, as_judged)]


def _best_of_runs(options, runs, rng):
    """Return ([_BestOf per metric], [notes]) of several candidates, each
    metric's runs joined on the items every run has (the rank reader):
    none for one candidate, or where the comparison is not of items one
    by one (clusters, preferences, statistics over the corpus, human
    labels), which the notes say."""
    if len(runs) < 2:
        return [], []
    why = ("--human" if options.human else "--stat" if options.stat
           else "preferences" if runs[0].preferences is not None else
           "--by" if options.by else None)
    if why:
        return [], [f"best of {len(runs)}: the choice is not accounted for "
                    f"with {why} yet; each candidate's own interval "
                    f"ignores that the best was picked"]
    sources = [_open_source(path, options.reading) for path in options.runs]
    best = []
    for r in runs[0].results:
        metric = _Metric(r.metric, r.metric, r.metric, direction=r.direction)
        try:
            tally, _ = _read_joint(
                sources, metric, id_field=options.id_col,
                allow_partial=options.allow_partial, by=options.cluster,
                different_items=options.different_items)
        except EvalDeltaError as e:
            return best, [f"best of {len(runs)}: {r.metric}: the runs do "
                          f"not join item by item ({e})"]
        best.append(_best_of(tally, rng, options, metric))
    return best, []


def _run_group(spec, options):
    """Return the _Sources of one system's runs, as --runs names them: a
    folder holding them (each entry a file or a framework's run folder,
    in name order), NAME=FILE,FILE,..., or one log of several epochs
    (_epoch_runs)."""
    if _group_name(spec) != spec:
        paths = [p for p in spec.partition("=")[2].split(",") if p]
    elif os.path.isdir(spec):
        paths = [os.path.join(spec, e) for e in sorted(os.listdir(spec))
                 if not e.startswith(".")]
    elif os.path.isfile(spec):
        return _epoch_runs(spec, options)
    else:
        raise EvalDeltaError(f"{spec}: no such file or folder; --runs takes "
                             f"a folder of a system's runs, NAME=FILE,FILE,"
                             f"... or a log of several epochs")
    if len(paths) < 2:
        raise EvalDeltaError(f"{spec}: {_items(len(paths), 'run')} in this "
                             f"group; the run-to-run spread needs two or more")
    return [_open_source(p, options.reading) for p in paths]


def _epoch_runs(path, options):
    """Return a _Source per epoch of one log whose items were each run
    several times (Inspect's epochs; lm-eval's repeats): the epoch a
    record names, else its place among its item's records, is its run."""
    source = _open_source(path, options.reading._replace(keep_epochs=True))
    key = options.id_col or _shared_id_field(source.run(), source.run())
    runs, seen = {}, collections.Counter()
    for numbers, batch in source.batches:
        for number, record in zip(numbers, batch):
            if not isinstance(record, dict):
                record = dict(zip(source.fields, record))
            item = _field(record, key)
            seen[item] += 1
            epoch = record.get("epoch", seen[item])
            runs.setdefault(epoch, []).append((source.where(number), record))
    if len(runs) < 2:
        raise EvalDeltaError(f"{path}: one run of each item (no epochs); "
                             f"--runs takes a folder of a system's runs, "
                             f"NAME=FILE,FILE,... or a log of several "
                             f"epochs")
    return [_listed_source(f"{path} epoch {epoch}", [
        (where.partition(": ")[2] or where, record)
        for where, record in labelled], source.notes)
        for epoch, labelled in runs.items()]


def _label_sample(options):
    """Return (the ids of options.pick_labels items drawn at random from
    the run, in file order, the items it has) for plan --pick-labels:
    random.Random(seed).sample, so the same seed draws the same items."""
    source = _open_source(options.runs[0], options.reading)
    key = options.id_col or _shared_id_field(source.run(), source.run())
    column = _Column(source, key, role="id")
    ids = [label for numbers, records in source.batches
           for label in column.labels(numbers, records)]
    if len(set(ids)) < len(ids):
        raise EvalDeltaError(f"{source.path}: an id is repeated "
                             f"({key!r}); give the field that names each "
                             f"item once with --id")
    if options.pick_labels > len(ids):
        raise EvalDeltaError(f"--pick-labels {options.pick_labels}: "
                             f"{source.path} has {_items(len(ids))}")
    chosen = random.Random(options.seed).sample(range(len(ids)),
                                                options.pick_labels)
    return [ids[k] for k in sorted(chosen)], len(ids)


def _grouped_runs(options, rng):
    """Return (the _Compared of the run-averaged scores, [_RunNoise per
    metric]) of compare --runs: every run of both systems joined on the
    item id (runs on other items are an error naming the file), each
    item's score averaged over a system's runs."""
    groups = [_run_group(path, options) for path in options.runs[:2]]
    sources = groups[0] + groups[1]
    ra, rb = len(groups[0]), len(groups[1])
    prompts = _prompt_names(options, groups) if options.crossed else None
    found = options.metric or _default_metrics(
        sources[0], sources[ra], _not_metrics(options, sources[0],
                                              sources[ra]))
    if not found:
        raise EvalDeltaError(f"{options.runs[0]}: no metric the runs share; "
                             f"name it with --metric")
    said, results, noise = [], [], []
    for name in found:
        metric = _Metric(name, name, name)
        metric = metric._replace(direction=_direction(options, name, said))
        tally, _ = _read_joint(sources, metric, id_field=options.id_col,
                               different_items=options.different_items)
        averaged = collections.Counter()
        for values, count in tally.items():
            averaged[_mean_of(values[:ra]), _mean_of(values[ra:])] += count
        continuous = set(averaged) - {(0, 0), (0, 1), (1, 0), (1, 1)}
        result = _compare_tally(averaged, rng, options, metric._replace(
            kind="continuous" if continuous else None))
        result = result._replace(share=bool(continuous) and all(
            v in (0, 1) for values in tally for v in values))
        if prompts:
            noise.append(_prompt_effect(tally, prompts, rng, options, metric))
        else:
            noise.append(_run_noise(tally, (ra, rb), options, metric))
            result = _with_run_noise(result, noise[-1])
        results.append(result)
    reading = [f"prompts: {ra} ({', '.join(prompts)}), each run by both "
               f"systems on the same items; each item's score is its mean "
               f"over the prompts" if prompts else
               f"runs: {ra} of the baseline, {rb} of the candidate, on the "
               f"same items; each item's score is its mean over a system's "
               f"runs"] + said
    names = tuple(map(_group_name, options.runs[:2]))
    return _Compared(names, results, [], 0, reading, {}), noise


def _group_name(spec):
    """Return the NAME of a --runs group given as NAME=FILE,FILE,..., else
    the spec itself (a folder, or a log of epochs)."""
    name, eq, _ = spec.partition("=")
    return name if eq and name and not os.path.exists(spec) else spec


def _prompt_names(options, groups):
    """Return the prompts of compare --prompts: the names of each system's
    runs (file names, without what follows the first dot), the same in
    both systems' folders, in the same order; else EvalDeltaError naming
    the first that one lacks."""
    names = [[_run_name(s.path) for s in group] for group in groups]
    if names[0] != names[1]:
        lacks = next(iter((set(names[0]) ^ set(names[1])) or names[0]))
        where = options.runs[1] if lacks in names[0] else options.runs[0]
        raise EvalDeltaError(f"{where}: no run for prompt {lacks!r}; "
                             f"--prompts pairs the two systems' runs by "
                             f"their file names, one per prompt")
    return tuple(names[0])


def _run_name(path):
    """Return a run file's name without the extensions a run file has:
    'p1' of 'folder/p1.jsonl.gz' (a name with other dots keeps them)."""
    name = os.path.basename(path)
    while os.path.splitext(name)[1].lower() in (".gz", ".jsonl", ".json",
                                                 ".csv", ".tsv", ".eval"):
        name = os.path.splitext(name)[0]
    return name


def _per_run(items, sizes):
    """Split a list into consecutive parts of the given sizes."""
    out, at = [], 0
    for size in sizes:
        out.append(items[at:at + size])
        at += size
    return out


def _judged_run(options, sources, metrics, reading, rng, specs):
    """Return the _Compared of compare --human: for each metric, the
    judge's scores of every item corrected by the human scores some
    items have (prediction-powered: _judge_check), the corrected figures
    as its result and the _JudgeCheck beside it.  *specs* are the two
    runs' --human: a field of their records, or a file of labels."""
    baseline, candidate = sources     # two runs: --human needs them
    fields, labels = [], []
    for k, (source, spec) in enumerate(zip(sources, specs)):
        if os.path.isfile(spec):
            field = options.human_field or "human"
            table = _human_labels(spec, field, options.id_col)
            sources[k] = _with_labels(source, table, options.id_col,
                                      candidate if k == 0 else baseline)
            labels.append(table)
            fields.append(_HUMAN)
        else:
            fields.append(spec)
    baseline, candidate = sources
    humans = [_Metric(f"{m.name} (human)", fields[0], fields[1], None,
                      m.direction, optional=True) for m in metrics]
    named = options.judge_covariate
    extra = [_Metric(named, named, named, "continuous")] if named else []
    for source in sources if named else ():
        _require(source.run(), named, "--judge-covariate field",
                 "the fields are", [str(f) for f in source.first])
    groups = [] if options.by or options.cluster or options.strata else None
    tallies, missing = _read_tallies(baseline, candidate,
                                     metrics + humans + extra, options,
                                     columns=True, groups=groups)
    for table in labels:
        table.check()
    where = [f"{source.path}: " + (f"its labels file {spec}"
                                   if field == _HUMAN else f"field {field!r}")
             for source, spec, field in zip(sources, specs, fields)]
    results, checks = [], []
    covariate = tallies[-1] if named else None
    subsets = []
    for m, judge, human in zip(metrics, tallies, tallies[len(metrics):]):
        result, check = _judged_metric(judge, human, m, rng, options, where,
                                       covariate, options.cluster and groups)
        if options.strata:
            result, check = _judged_strata(result, check, judge, human,
                                           groups, m, options, where)
        parts = []
        for label in sorted(set(groups)) if options.by else ():
            pick = [g == label for g in groups]     # --by: each corrected

            def part(columns):
                return _Columns(*(array("d", itertools.compress(v, pick))
                                  for v in columns))
            parts.append(_judged_metric(
                part(judge), part(human), m, rng, options,
                [f"{options.by} {label!r}: {w}" for w in where]))
            subsets.append((label, parts[-1][0]))
        if options.macro:
            result, check = _judged_macro(check, [c for _, c in parts],
                                          judge, human, groups, m, rng,
                                          options)
        results.append(result)
        checks.append(check)
    reading = list(reading) + (missing.notes() if isinstance(
        missing, _Dropped) else []) + _judge_map_words(options)
    return _Compared((baseline.path, candidate.path), results, subsets,
                     missing, reading, _margins(options.margin,
                                                [m.name for m in metrics]),
                     equivalence=_margins(options.equivalence,
                                          [m.name for m in metrics],
                                          "--equivalence"),
                     checks=tuple(checks))


_HUMAN = "\x00human"     # the field _with_labels gives a run's records


def _judged_preferences(options, wide, metric, counts, reading, rng):
    """Return the _Compared of compare PREFERENCES --human HUMAN: the
    judge's verdicts (the wide source of _preference_pair: each item's
    share for A and for B) corrected by a human's verdicts on some of the
    same items, as _judged_metric corrects scores (a preference is a
    score on a pair, a human verdict a second score on some items).  The
    human's file is a preference file of any format the tool reads, its
    verdicts between the same two systems, or a file of B's share per
    item id (--human-field).  Items that share a question (MT-Bench's
    turns) are clustered by it, as compare clusters them."""
    a, b = options.a_col, options.b_col
    spec = options.human[0]
    if len(options.human) > 1 or not os.path.isfile(spec):
        raise EvalDeltaError(f"--human {spec}: a preference file is "
                             f"corrected by one file of human verdicts on "
                             f"some of its items")
    if options.by:
        raise EvalDeltaError(f"{wide.path}: --by with --human on a "
                             f"preference file is not supported yet")
    human, said = _open_source(spec, options.reading), []
    if human.kind == "preferences":
        # cluster="question": the human's file keeps the judge's clusters,
        # so its reading says nothing of its own
        shares, _, _ = _preference_pair(options._replace(
            a_col=a, b_col=b, cluster="question", by=None), human)
        said = [f"{spec}: {note}" for note in shares.notes]
        values, places = {}, {}
        for numbers, records in shares.batches:
            for number, record in zip(numbers, records):
                values[record["id"]] = record[b]
                places[record["id"]] = shares.where(number)
        labels = _Labels(spec, values, places)
    else:
        labels = _human_labels(spec, options.human_field or "human",
                               options.id_col)
    x, y, clusters = array("d"), array("d"), []
    for numbers, records in _with_labels(wide, labels, "id", wide).batches:
        for number, record in zip(numbers, records):
            x.append(record[b])
            share = record[_HUMAN]
            y.append(math.nan if share is None else share)
            if options.cluster:
                cluster = _field(record, options.cluster)
                if _missing(cluster):
                    raise EvalDeltaError(
                        f"{wide.where(number)}: no cluster field "
                        f"{options.cluster!r} in this record; its fields "
                        f"are {', '.join(k for k in record if k != _HUMAN)}")
                clusters.append(cluster)
    labels.check()
    outside = [v for v in y if v == v and not 0 <= v <= 1]
    if outside:
        raise EvalDeltaError(f"{spec}: a human share of {outside[0]:g} for "
                             f"{b}; a verdict's share is from 0 to 1")
    result, check = _judged_metric(
        _Columns(array("d", (1 - v for v in x)), x),
        _Columns(array("d", (1 - v for v in y)), y), metric, rng, options,
        [f"{spec}: human verdicts"] * 2, clusters=clusters or None)
    return _Compared((a, b), [result], [], 0, list(reading) + said + [
        f"{spec}: human verdicts on {check.gap.labels:,} of the "
        f"{result.n_items:,} items, correcting the judge's"],
        _margins(options.margin, [metric.name]), preferences=counts,
        checks=(check,))


def _judged_metric(judge, human, metric, rng, options, where,
                   covariate=None, clusters=None):
    """Return (the corrected _MetricResult, its _JudgeCheck) of one
    metric: the judge's _Columns and the human's (NaN where a human gave
    none), aligned item by item; *where* names each system's labels in
    messages.  The judge's scores alone and the humans' alone are
    compared as compare compares any metric, for the report beside; with
    the _Columns of a *covariate*, the judge's error is regressed on it
    (_covariate_check).  With each item's cluster (*clusters*), every
    standard error is clustered, and the figures alone resample whole
    clusters."""
    judge = _judge_mapped(judge, human, metric, options, where)
    binary = all(x != x or x in (0.0, 1.0) for x in human.a) and all(
        x != x or x in (0.0, 1.0) for x in human.b)
    kind = "binary" if binary else "continuous"
    corrected, gap, bias, agreement, drift = _judge_check(
        judge, human, options.confidence, clusters)
    both = [k for k, (x, y) in enumerate(zip(human.a, human.b))
            if x == x and y == y]
    check = _JudgeCheck(
        *corrected, gap, _compare_metric(
            judge.a, judge.b, rng, options, metric, clusters=clusters)
        if clusters else _compare_tally(judge, rng, options, metric),
        _compare_metric([human.a[k] for k in both],
                        [human.b[k] for k in both], rng, options,
                        metric._replace(kind=kind), clusters=clusters and [
                            clusters[k] for k in both])
        if len(both) > 1 else None, tuple(bias), tuple(agreement),
        drift, _labels_needed(gap, gap.estimate, options.alpha,
                              options.power),
        covariate and _covariate_check(judge, human, covariate,
                                       options.judge_covariate,
                                       options.confidence, clusters),
        _agreement_audit([tuple((h[k], j[k]) for j, h in zip(judge, human)
                                if h[k] == h[k])
                          for k in range(len(judge.a))
                          if human.a[k] == human.a[k]
                          or human.b[k] == human.b[k]],
                         options.confidence))
    return _corrected_result(metric, kind, corrected, gap,
                             len(judge.a)), check


def _judged_strata(result, check, judge, human, strata, metric, options,
                   where):
    """Return (the _MetricResult, the _JudgeCheck) of --human --strata
    FIELD: each system's corrected mean and the gap the strata's PPI++
    corrections (_judge_check on each stratum's items alone, its own
    weight) weighed by the strata's shares of all the items
    (_corrected_strata; Fisch et al. 2024); *result* and *check* are
    _judged_metric's of all the items, whose judge alone, humans alone,
    bias and agreement stay.  The drift is the strata's own (labels
    drawn at other rates by stratum are no drift).  A stratum with fewer
    than two labels on a system, or two items labelled for both, is an
    error naming it: it cannot be corrected, and leaving it out would
    change what is estimated."""
    judge = _judge_mapped(judge, human, metric, options, where)
    total, parts, rows = len(judge.a), [], []
    for label in sorted(set(strata), key=str):
        pick = [g == label for g in strata]

        def part(columns):
            return _Columns(*(array("d", itertools.compress(v, pick))
                              for v in columns))
        j, h = part(judge), part(human)
        counts = [sum(1 for x in column if x == x) for column in h]
        counts.append(sum(1 for x, y in zip(*h) if x == x and y == y))
        place = min(range(3), key=lambda k: (counts[k] >= 2, k))
        if counts[place] < 2:
            said = (f"{where[place]}: " if place < 2 else "") + (
                f"{options.strata} {label!r} has "
                + (_items(counts[place], "human score") if place < 2
                   else _items(counts[place]) + " labelled for both systems"))
            raise EvalDeltaError(
                f"{said} for {metric.name}; --strata corrects each stratum "
                f"on its own labels and needs two at least in each (label "
                f"more of its items at random, or merge it with another "
                f"stratum)")
        corrected, gap, _, _, drift = _judge_check(j, h, options.confidence)
        parts.append((*corrected, gap, drift))
        rows.append(_Stratum(label, len(j.a), gap.labels,
                             Fraction(len(j.a), total), gap))
    shares = [r.share for r in rows]
    a, b, gap = (_corrected_strata([p[k] for p in parts], shares,
                                   options.confidence) for k in range(3))
    estimate = b.estimate - a.estimate
    ci, p = _normal_or_t(estimate, gap.se, gap.df, options.confidence)
    gap = gap._replace(estimate=estimate, ci=ci, p=p)
    drift = max((p[3] for p in parts if p[3] is not None), key=abs,
                default=None)
    check = check._replace(a=a, b=b, gap=gap, needed=None, drift=drift,
                           strata=(options.strata, tuple(rows)))
    return _corrected_result(metric, result.kind, (a, b), gap,
                             total), check


def _judged_macro(check, parts, judge, human, groups, metric, rng,
                  options):
    """Return (the _MetricResult, the _JudgeCheck) of --human --macro:
    each system's corrected mean and the gap the unweighted average of
    the subsets' (_corrected_macro of *parts*, their _JudgeChecks), the
    judge's figures alone and the humans' alone macro averages too
    (_compare_macro); the judge's bias, agreement and drift stay those of
    all the items (*check*'s), since they are of the judge, not of the
    average."""
    a, b, gap = (_corrected_macro([getattr(c, name) for c in parts],
                                  options.confidence)
                 for name in ("a", "b", "gap"))
    kind = check.human.kind if check.human else metric.kind
    both = [k for k, (x, y) in enumerate(zip(human.a, human.b))
            if x == x and y == y]
    check = check._replace(
        a=a, b=b, gap=gap, needed=None,
        judged=_compare_macro(_tally_by(groups, judge.a, judge.b), rng,
                              options, metric),
        human=_compare_macro(_tally_by(
            [groups[k] for k in both], [human.a[k] for k in both],
            [human.b[k] for k in both]), rng, options,
            metric._replace(kind=kind)))
    return _corrected_result(metric, kind, (a, b), gap,
                             len(judge.a)), check


def _judge_mapped(judge, human, metric, options, where):
    """Return the judge's _Columns on the humans' scale: as --judge-map
    says, else as they are where they lie in the humans' range; refuse a
    system without two labels (on items the judge scored too), items
    labelled for both fewer than two, and a judge outside the humans'
    range."""
    for column, place in zip((human.a, human.b), where):
        count = sum(1 for x in column if x == x)
        if count < 2:
            raise EvalDeltaError(
                f"{place}: {_items(count, 'human score')} for "
                f"{metric.name}; a correction needs two at least, on items "
                f"drawn at random (--human FIELD names the field that holds "
                f"them where a human scored, --human FILE a file of them)")
    both = sum(1 for x, y in zip(human.a, human.b) if x == x and y == y)
    if both < 2:
        raise EvalDeltaError(
            f"{metric.name}: {_items(both)} labelled by a human for both "
            f"systems; the corrected difference needs two at least (the "
            f"same items labelled in both runs)")
    spec = options.judge_map
    if spec is not None:
        if spec[0] == ">=":
            def scale(x):
                return float(x >= spec[1])
        else:
            lo, hi = spec

            def scale(x):
                return (x - lo) / (hi - lo)
        judge = _Columns(array("d", map(scale, judge.a)),
                         array("d", map(scale, judge.b)))
    labelled = [x for x in itertools.chain(human.a, human.b) if x == x]
    scored = list(itertools.chain(judge.a, judge.b))
    problem = _scales_differ(scored, labelled, options.scale)
    if problem:
        mapped = " (after --judge-map)" if spec is not None else ""
        raise EvalDeltaError(
            f"{metric.name}: the judge's scores{mapped} run from "
            f"{min(scored):g} to {max(scored):g}, the humans' from "
            f"{min(labelled):g} to {max(labelled):g}: {problem}; put them on "
            f"one scale with --judge-map >=T (a judge score of T or more is "
            f"a 1) or --judge-map LO,HI (the judge's LO to HI onto 0 to 1), "
            f"or declare the scale both use with --scale LO,HI")
    return judge


def _judge_map_words(options):
    """Return the read: line saying how --judge-map and --scale put the
    judge's scores on the humans' scale ([] where neither is given).

    >>> _judge_map_words(_Options(judge_map=(">=", 7.0)))
    ["--judge-map >=7: a judge's score of 7 or more is a 1, below it a 0"]
    """
    words = []
    if options.judge_map is not None:
        how, value = options.judge_map
        words.append(
            f"--judge-map >={value:g}: a judge's score of {value:g} or more "
            f"is a 1, below it a 0" if how == ">=" else
            f"--judge-map {how:g},{value:g}: the judge's scores from {how:g} "
            f"to {value:g} put onto 0 to 1")
    if options.scale is not None:
        words.append(f"--scale {options.scale[0]:g},{options.scale[1]:g}: "
                     f"the scale the judge and the humans share")
    return words


def _scales_differ(judge, human, scale=None):
    """Return why the judge's scores and the humans' look to be on two
    scales, or '' where one scale holds both.

    One scale is *scale* (LO, HI) where given, else the range the judge's
    and the humans' scores span together, never the humans' alone: a few
    labels of a 0-10 scale may happen to run from 2 to 10.  Two scales
    show where one side is 0/1 or within [0, 1] and the other is not,
    or where one side's largest magnitude is over four times the other's
    (0-100 against 1-5).  The correction itself (PPI++) is unbiased on any
    scale; the judge's bias and "as judged" figures need one.

    >>> _scales_differ([0, 3, 10], [2, 8]), _scales_differ([0.2, 0.9], [2, 8])
    ('', 'the humans score beyond 0 to 1 and the judge does not')
    >>> _scales_differ([3, 97], [1, 4]), _scales_differ([3, 11], [2], (0, 10))
    ('the two run over scales of 97 and 4', 'a judge score of 11 lies outside --scale 0,10')
    """
    if scale is not None:
        lo, hi = scale
        for who, values in (("judge", judge), ("human", human)):
            out = next((x for x in values if not lo <= x <= hi), None)
            if out is not None:
                return (f"a {who} score of {out:g} lies outside --scale "
                        f"{lo:g},{hi:g}")
        return ""
    unit = [all(0 <= x <= 1 for x in values) for values in (judge, human)]
    if unit == [True, False]:
        return "the humans score beyond 0 to 1 and the judge does not"
    if unit == [False, True]:
        return "the humans score from 0 to 1 and the judge beyond it"
    tops = sorted(max(map(abs, values)) for values in (judge, human))
    if tops[0] > 0 and tops[1] > 4 * tops[0]:
        return f"the two run over scales of {tops[1]:g} and {tops[0]:g}"
    return ""


class _Labels:
    """A file of human scores, one per item id, which _with_labels gives
    to a run's records; check() refuses a label for an id no run has."""

    def __init__(self, path, values, places):
        self.path, self.values, self.places = path, values, places
        self.used = set()

    def check(self):
        """Refuse labels of items that no run holds."""
        extra = [item for item in self.values if item not in self.used]
        if extra:
            raise EvalDeltaError(
                f"{self.places[extra[0]]}: a human label for item "
                f"{extra[0]!r}, which the runs do not hold"
                + (f" ({len(extra) - 1} more such)" if len(extra) > 1
                   else ""))


def _human_labels(path, field, id_field):
    """Return the _Labels of a file of human scores: a CSV, TSV, JSONL or
    JSON array with an id (--id, else the first of _ID_FIELDS) and
    *field*; a blank score is no label, a repeated id an error."""
    source = _open_source(path, _Reading())
    key = id_field or next((name for name in _ID_FIELDS if _field(
        source.first, name) is not _MISSING), None)
    if key is None:
        raise EvalDeltaError(f"{source.where(source.first_number)}: no id "
                             f"field ({', '.join(_ID_FIELDS)}; name it with "
                             f"--id) in the file of human labels")
    _require(source.run(), field, "field", "its fields are",
             _numeric_fields(source.run(), _ID_FIELDS))
    ids, scores = _Column(source, key, role="id"), _Column(
        source, field, optional=True)
    values, places = {}, {}
    for numbers, records in source.batches:
        for number, item, x in zip(numbers, ids.labels(numbers, records),
                                   scores.numbers(numbers, records)):
            if item in values:
                raise EvalDeltaError(f"{source.where(number)}: item {item!r} "
                                     f"is labelled twice in this file (also "
                                     f"{places[item]})")
            values[item], places[item] = x, source.where(number)
    if all(x != x for x in values.values()):
        raise EvalDeltaError(f"{path}: no human score in field {field!r}")
    return _Labels(path, values, places)


def _with_labels(source, labels, id_field, other):
    """Return *source* with each record given its item's human score from
    the _Labels (field _HUMAN; none where the file has none): the human
    label as a second score on the same record, so that the join reads it
    as it reads the judge's."""
    key = id_field or _shared_id_field(source.run(), other.run())
    values, used = labels.values, labels.used

    def label(record):
        item = _field(record, key)
        item = str(item).strip() if item not in (_MISSING, None) else ""
        used.add(item)
        return values.get(item)

    def batches():
        for numbers, records in source.batches:
            if source.fields is None:
                yield numbers, [{**r, _HUMAN: label(r)} for r in records]
            else:
                yield numbers, [list(r) + [label(dict(zip(source.fields,
                                                          r)))]
                                for r in records]
    first = {**source.first, _HUMAN: None}
    fields = None if source.fields is None else list(source.fields) + [
        _HUMAN]
    return source._replace(batches=batches(), first=first, fields=fields,
                           forkable=False)


def _in_order(options, tallies, said):
    """Return the _Columns *tallies* (in the baseline's file order) sorted
    by the baseline's field --order (numbers, or text such as ISO 8601
    timestamps; ties keep the file's order), the order the items ran."""
    field, source = options.order, _open_source(options.runs[0],
                                                options.reading)
    keys, kinds = [], set()
    for numbers, records in source.batches:
        for number, record in zip(numbers, records):
            if source.fields is not None:
                record = dict(zip(source.fields, record))
            value = _field(record, field)
            if _missing(value):
                raise EvalDeltaError(f"{source.where(number)}: no --order "
                                     f"field {field!r}")
            try:
                keys.append(_finite_number(value))
                kinds.add("number")
            except ValueError:
                keys.append(str(value))
                kinds.add("text")
    if len(kinds) > 1:
        raise EvalDeltaError(f"{source.path}: --order {field} holds both "
                             f"numbers and text; give one kind")
    if len(keys) != len(tallies[0].a):
        raise EvalDeltaError(f"--order: {source.path} has {len(keys)} "
                             f"records for {len(tallies[0].a)} items "
                             f"compared; give runs of one record per item")
    order = sorted(range(len(keys)), key=keys.__getitem__)
    said.append(f"--sequential: items taken in the order of {field} (ties "
                f"in file order)")
    return [_Columns(array("d", map(t.a.__getitem__, order)),
                    array("d", map(t.b.__getitem__, order)))
            for t in tallies]


def _sequential(options, metric, columns, said):
    """Return the _Sequential of one metric's _Columns (items in the
    baseline's file order): binary by the discordant pairs' mixture, else
    bounded by --bounds, or by [0, 1] where every value lies there (said).
    With clusters (a dict of each cluster's Counter), the unit is the
    cluster: its mean values, bounded as its items' are, clusters in the
    order first met (said)."""
    if isinstance(columns, dict):
        return _sequential(options, metric, _cluster_means(columns, said,
                                                           metric.name),
                           said)._replace(unit="cluster")
    values = set(columns.a) | set(columns.b)
    if metric.kind != "continuous" and values <= {0.0, 1.0}:
        return _sequential_binary(columns.a, columns.b, alpha=options.alpha,
                                  direction=metric.direction)
    bounds = options.bounds
    if bounds is None:
        if not (min(values) >= 0 and max(values) <= 1):
            raise EvalDeltaError(
                f"--sequential: {metric.name} is not 0/1 and has values "
                f"outside [0, 1]; give the range its values can take with "
                f"--bounds LO,HI")
        bounds = (0.0, 1.0)
        said.append(f"{metric.name}: --sequential takes its values to lie "
                    f"in [0, 1], as all of them do (--bounds LO,HI says "
                    f"otherwise)")
    outside = [x for x in values if not bounds[0] <= x <= bounds[1]]
    if outside:
        raise EvalDeltaError(f"--sequential: {metric.name} has a value "
                             f"{outside[0]:g} outside --bounds "
                             f"{bounds[0]:g},{bounds[1]:g}")
    return _sequential_bounded(columns.a, columns.b, *bounds,
                               alpha=options.alpha,
                               direction=metric.direction)


def _cluster_means(tally, said, name):
    """Return the _Columns of each cluster's mean values, clusters in the
    order first met, for --sequential over clusters (said)."""
    sums = [(sum(c.values()), sum(x * k for (x, _), k in c.items()),
             sum(y * k for (_, y), k in c.items())) for c in tally.values()]
    said.append(f"{name}: --sequential takes each cluster as one unit (its "
                f"mean values), {len(sums)} clusters in the order first met; "
                f"the sequence is of the mean over clusters")
    return _Columns([a / size for size, a, _ in sums],
                    [b / size for size, _, b in sums])


def _preference_pair(options, source, other=None):
    """Return (_Source, options, _PreferenceCounts) of the two systems of a
    preference file that compare compares: one wide file of their shares
    of each verdict (the first system's 1 - x, the second's x), its items
    the judged items (several verdicts of one item averaged, said), the
    options settled for it (--cluster question where a question holds
    several items).  --a-col and --b-col pick the systems; by default the
    file's two, in the order of its first verdict."""
    if other is not None:
        paths = [s.path for s in (source, other) if s.kind == "preferences"]
        raise EvalDeltaError(f"{paths[0]}: a preference file holds both "
                             f"systems' verdicts: compare it alone (--a-col "
                             f"and --b-col pick two systems), or rank the "
                             f"files together")
    if options.metric or options.stat or options.macro:
        flag = "--metric" if options.metric else "--stat" if options.stat \
            else "--macro"
        raise EvalDeltaError(f"{flag} does not go with a preference file: "
                             f"its one measure is the win rate")
    verdicts = [v for _, batch in source.batches for v in batch]
    systems = source.systems
    if options.a_col is None and options.b_col is None and len(systems) > 2:
        raise EvalDeltaError(f"{source.path}: {len(systems)} systems in this "
                             f"file ({_some(systems)}); pick two with --a-col "
                             f"and --b-col, or rank them")
    a = options.a_col or (verdicts[0].a if options.b_col != verdicts[0].a
                          else verdicts[0].b)
    b = options.b_col or next(s for s in systems if s != a)
    for name in (a, b):
        if name not in systems:
            raise EvalDeltaError(f"no system {name!r}; the systems are "
                                 f"{_some(systems)}")
    if a == b:
        raise EvalDeltaError(f"--a-col and --b-col both name {a}")
    items, shares, games, labels, questions = {}, {}, {}, {}, {}
    for v in verdicts:
        if {v.a, v.b} != {a, b}:
            continue
        flip = v.a != a
        shares.setdefault(v.item, []).append(1 - v.share if flip
                                             else v.share)
        games.setdefault(v.item, []).extend(
            (1 - share if flip else share, first != flip)
            for share, first in v.games)
        questions[v.item] = v.question
        labels.setdefault(v.item, dict(v.fields))
        items.setdefault(v.item, v.place[len(source.path) + 2:]
                         if v.place.startswith(source.path + ": ")
                         else v.place)           # where() adds the path
    if not shares:
        raise EvalDeltaError(f"{source.path}: no verdicts between {a} and {b}")
    taken = {"id", "question"} & {a, b}
    if taken:
        raise EvalDeltaError(f"{source.path}: a system named {min(taken)!r} "
                             f"is not supported; rename it in the file")
    notes = list(source.notes)
    twice = sum(1 for x in shares.values() if len(x) > 1)
    if twice:
        notes.append(f"{_items(twice)} judged more than once: "
                     f"{'its' if twice == 1 else 'their'} shares averaged")
    labelled = []
    for item, x in shares.items():
        share = float(sum(map(_exact, x)) / len(x))
        labelled.append((items[item], {
            **labels[item], "id": item, "question": questions[item],
            a: float(1 - _exact(share)), b: share}))
    counts = _preference_counts(a, b, [r[b] for _, r in labelled],
                               [tuple(g) for g in games.values() if g])
    clustered = len(set(questions.values())) < len(questions)
    if clustered and not (options.cluster or options.by):
        options = options._replace(cluster="question")
        notes.append(f"{len(questions)} items of "
                     f"{len(set(questions.values()))} questions: resampled "
                     f"by question (--cluster question)")
    wide = _listed_source(source.path, labelled, notes, "preferences",
                          (a, b))
    return wide._replace(measure="win rate"), \
        options._replace(a_col=a, b_col=b), counts


def _source_notes(options, sources):
    """Return the read: lines of the Sources' notes: a note every run has
    said once ("both runs: ..."), and lm-eval's note on corpus-level
    fields left out once --stat or --metric names what to compare."""
    sources = [s for s in sources if s]
    named = bool(options.stat or options.metric)
    said = []
    for source in sources:
        for note in source.notes:
            if named and "unless --metric or --stat names" in note:
                continue
            everywhere = len(sources) > 1 and all(
                note in other.notes for other in sources)
            line = (f"{'both' if len(sources) == 2 else 'all'} runs: {note}"
                    if everywhere else f"{source.path}: {note}")
            if line not in said:
                said.append(line)
    return said


def _compare_stat(options, path, stat, rng):
    """Return (_MetricResult, [(subset, _MetricResult)], dropped ids, the
    files' reading notes, note) of one corpus _Stat, with --by's subsets
    or --cluster's clusters; the files are read again (a _Source is read
    once), keeping every epoch for pass@k."""
    passes = stat.stat in ("pass@k", "pass^k")
    how = options.reading._replace(keep_epochs=True) if passes \
        else options.reading
    baseline = _open_source(options.runs[0], how)
    candidate = _open_source(path, how) if path else None
    group = options.by or options.cluster
    items, dropped, note = _read_corpus(
        baseline, candidate, stat, id_field=options.id_col,
        allow_partial=options.allow_partial, group=group, jobs=options.jobs,
        different_items=options.different_items)
    notes = _source_notes(options, (baseline, candidate))
    direction = _direction(options, stat.name, notes)
    if passes:
        metric = _Metric(stat.name, kind="continuous", direction=direction)
        result = _compare_tally(_merged_tally(items) if options.by else items,
                                rng, options, metric,
                                clustered=bool(options.cluster))
        subsets = (_compare_subsets(items, rng, options, metric)
                   if options.by else [])
        return result, subsets, dropped, notes, note
    metric = _Metric(stat.name, direction=direction)
    if options.interval == "bca":
        note += "; percentile intervals (--interval bca is for means)"
    if not options.by:
        table = _corpus_table(stat.stat, items,
                              clustered=bool(options.cluster))
        return (_compare_corpus(table, rng, options, metric), [], dropped,
                notes, note)
    pooled = collections.Counter()
    split = {}
    for (label, item), count in items.items():
        pooled[item] += count
        split.setdefault(label, collections.Counter())[item] += count
    table = _corpus_table(stat.stat, pooled)
    result = _compare_corpus(table, rng, options, metric)
    subsets = [(label, _compare_corpus(_corpus_table(
        stat.stat, split[label], classes=table.classes), rng, options,
        metric)) for label in sorted(split)]
    return result, subsets, dropped, notes, note


def _direction(options, name, said):
    """Return 'lower' or 'higher': as --lower-is-better and
    --higher-is-better say, else as the metric's name says (a guess, added
    to the list *said*)."""
    if name in options.lower_is_better:
        return "lower"
    if name in options.higher_is_better or not _lower_is_better(name):
        return "higher"
    note = (f"{name}: lower is better, as its name says "
            f"(--higher-is-better {name} says otherwise)")
    if note not in said:
        said.append(note)
    return "lower"


def _wide_names(stat):
    """Return the two systems' names in a wide file: their fields in a
    _Stat (gold,a,b gives a and b; num_a,den_a,num_b,den_b gives
    num_a/den_a and num_b/den_b)."""
    fields = stat.fields
    if len(fields) == 3:
        return fields[1], fields[2]
    half = len(fields) // 2
    return "/".join(fields[:half]), "/".join(fields[half:])


def _margins(specs, metrics, flag="--margin"):
    """Return {metric: margin} from --margin's (name or None, M) values
    (or --equivalence's, *flag*)."""
    if not specs:
        return {}
    default = [m for name, m in specs if name is None]
    named = [name for name, _ in specs if name is not None]
    if len(default) > 1:
        raise EvalDeltaError(f"{flag} without a name is given twice; name "
                             f"the metric: {flag} NAME=M")
    for name in named:
        if name not in metrics:
            raise EvalDeltaError(f"{flag} {name}=...: no metric {name!r}; "
                                 f"the metrics are {', '.join(metrics)}")
        if named.count(name) > 1:
            raise EvalDeltaError(f"{flag} {name}=... is given twice")
    out = {m: default[0] for m in metrics} if default else {}
    out.update((name, m) for name, m in specs if name is not None)
    return out


def _chosen_metrics(options, baseline, candidate, said=None):
    """Return (Metrics to compare, baseline, candidate), checking the
    names given; with none given the sources come back watched (see
    _default_metrics)."""
    fields = _metric_fields(options, baseline, candidate, said)
    kinds = dict(options.metric_type)
    for name in (tuple(kinds) + options.lower_is_better
                 + options.higher_is_better):
        if name not in [f[0] for f in fields]:
            raise EvalDeltaError(f"no metric {name!r} to set; the metrics are "
                                 f"{', '.join(f[0] for f in fields)}")
    if candidate is not None and not options.metric:
        exclude = _not_metrics(options, baseline, candidate)
        baseline, candidate = (s if s.metrics else _watched(s, exclude)
                               for s in (baseline, candidate))
    return [_Metric(*f, kinds.get(f[0])) for f in fields], baseline, candidate


def _stem(a, b):
    """Return the metric of a wide file's columns *a* and *b*: the end they
    share, else the word they begin with ('' if neither).

    >>> _stem("system_a_correct", "system_b_correct")
    'correct'
    >>> _stem("judge_a", "judge_b"), _stem("score1", "score2"), _stem("x", "y")
    ('judge', 'score', '')
    >>> _stem("acc_llama", "acc_mistral")
    'acc'
    """
    suffix = os.path.commonprefix([a[::-1], b[::-1]])[::-1].strip("_. ")
    if suffix:
        return suffix
    head = os.path.commonprefix([a, b])
    if max(len(a), len(b)) - len(head) > 2:      # a word, not a tag, after
        head = head[:max(map(head.rfind, "_. -")) + 1]
    return head.strip("_. -")


def _metric_fields(options, baseline, candidate, said=None):
    """Return [(metric name, field in A's records, field in B's)] of two
    Sources (candidate None for one wide file); what was guessed is added
    to the list *said*."""
    if candidate is None:
        if baseline.systems:
            return [_system_columns(options, baseline)]
        board = _leaderboard(baseline.path, baseline.first, True)
        if board:
            raise EvalDeltaError(board)
        a = options.a_col or CSV_HEADER[1]
        b = options.b_col or CSV_HEADER[2]
        if options.a_col is None and options.b_col is None and all(
                _field(baseline.first, x) is _MISSING for x in (a, b)):
            columns = ", ".join(map(str, baseline.first))
            board = _leaderboard(baseline.path, baseline.first)
            if board:
                raise EvalDeltaError(board)
            raise EvalDeltaError(
                f"{baseline.where(baseline.first_number)}: no column {a!r} "
                f"or {b!r}, so one run's results, not a file holding both "
                f"systems (the columns are {_some(columns.split(', '))}): "
                f"compare it with another run's, compare "
                f"{shlex.quote(baseline.path)} OTHER, or name the two "
                f"systems' columns with --a-col and --b-col")
        suffix = _stem(a, b)
        name = (options.metric[0] if options.metric
                else suffix or f"{b} - {a}")
        if (options.metric and options.a_col is None and options.b_col is None
                and name != (suffix or f"{b} - {a}")):
            raise EvalDeltaError(
                f"{baseline.path}: --metric {name!r}: a file holding both "
                f"systems compares two columns, here {a} and {b} (their "
                f"metric {suffix or 'unnamed'}); pick others with --a-col "
                f"and --b-col (the columns are "
                f"{_some([str(f) for f in baseline.first])}), and --metric "
                f"then names their metric")
        return [(name, a, b)]
    skipped = {}
    names = options.metric or _default_metrics(baseline, candidate,
                                           _not_metrics(options, baseline,
                                                        candidate), skipped)
    if not names:
        raise EvalDeltaError(
            f"{candidate.path}: no numeric field in both runs that names a "
            f"metric; the fields are {', '.join(candidate.first)}; name one "
            f"with --metric")
    if skipped and said is not None:
        said.append(
            "not compared by default: "
            + ", ".join(f"{k} ({v})" for k, v in skipped.items())
            + "; --metric NAME compares one")
    for name in names:
        for source in (baseline, candidate):
            _require(source.run(), name, "field", "numeric fields:",
                     _numeric_fields(source.run(), _ID_FIELDS))
    return [(name, name, name) for name in names]


def _system_columns(options, source):
    """Return (metric, A's column, B's column) of a file holding several
    systems (promptfoo): column SYSTEM is its success, SYSTEM.NAME its
    other measures.  --a-col and --b-col pick the systems (the two there
    are, by default), --metric the measure (success by default)."""
    path, systems = source.path, source.systems
    if len(systems) == 1:
        raise EvalDeltaError(f"{path}: one system in this file ({systems[0]})"
                             f": compare it with another run's file, "
                             f"compare {shlex.quote(path)} OTHER")
    if len(systems) != 2 and not (options.a_col and options.b_col):
        raise EvalDeltaError(f"{path}: {len(systems)} systems in this file "
                             f"({', '.join(systems)}); pick two with --a-col "
                             f"and --b-col")
    a, b = options.a_col or systems[0], options.b_col or systems[1]
    for name in (a, b):
        if name not in systems:
            raise EvalDeltaError(f"no system {name!r}; the systems are "
                                 f"{', '.join(systems)}")
    measure = options.metric[0] if options.metric else source.measure
    if measure == source.measure:
        return measure, a, b
    return measure, f"{a}.{measure}", f"{b}.{measure}"


def _not_metrics(options, baseline, candidate):
    """Return the fields that are never metrics: ids, clusters, lists."""
    key = options.id_col or _shared_id_field(baseline.run(), candidate.run(),
                                            False)
    return set(_ID_FIELDS) | {key, options.cluster, options.by,
                              options.strata, "metrics",
                              *options.human} - {None}


def _read_systems(source, names, allow_partial=False):
    """Return (the Counter of S-tuples of a wide file's columns *names*,
    one system each, item by item (rank's tally), the rows left out).
    With *allow_partial* a row missing a system's value is left out and
    counted (promptfoo writes no score where a provider failed), else
    it is an error naming its line."""
    for name in names:
        _require(source.run(), name, "column", "the columns are",
                 source.first)
    columns = [_Column(source, name, optional=allow_partial)
               for name in names]
    tally = collections.Counter()
    left = 0
    for numbers, records in source.batches:
        rows = zip(*(col.numbers(numbers, records) for col in columns))
        if allow_partial:
            rows = list(rows)
            kept = [row for row in rows if not any(map(math.isnan, row))]
            left += len(rows) - len(kept)
            rows = kept
        tally.update(rows)
    return tally, left


def _rank_input(options, sources):
    """Return (_Metric, tally of S-tuples, dropped, names) for rank."""
    if len(sources) == 1:
        listed = not options.systems and len(sources[0].systems) >= 2
        if listed:                       # promptfoo: every provider
            options = options._replace(systems=tuple(sources[0].systems))
        if not options.systems:
            raise EvalDeltaError(_leaderboard(sources[0].path,
                                              sources[0].first)
                                 or "one file: name each system's column "
                                    "with --systems COL,COL,...")
        if options.by:
            raise EvalDeltaError("--by with one wide file is not supported "
                                 "yet; give the runs as files")
        board = _leaderboard(sources[0].path, sources[0].first, True)
        if board:
            raise EvalDeltaError(board)
        names = options.systems
        tally, left = _read_systems(sources[0], names, options.allow_partial)
        if left and not tally:
            raise EvalDeltaError(
                f"{sources[0].path}: every one of its {left} rows lacks a "
                f"value for one of the {len(names)} systems, so no item has "
                f"them all; --systems names the ones to rank")
        suffix = os.path.commonprefix([x[::-1] for x in names])[::-1] \
            .strip("_. -")
        metric = _Metric((options.metric or [
            "success" if listed else suffix or "score"])[0], None, None)
        dropped = _Dropped(left, {}, "rows missing a system's value")
    else:
        if options.systems:
            raise EvalDeltaError("--systems names the columns of one wide "
                                 "file; with several runs, give --metric")
        found = options.metric or _default_metrics(
            sources[0], sources[1], _not_metrics(options, *sources[:2]))
        if len(found) != 1:
            raise EvalDeltaError(
                f"rank ranks on one metric; name it with --metric (the "
                f"runs have {', '.join(found) or 'none'})")
        for source in sources:
            _require(source.run(), found[0], "field", "numeric fields:",
                     _numeric_fields(source.run(), _ID_FIELDS))
        metric = _Metric(found[0], found[0], found[0])
        tally, dropped = _read_joint(sources, metric, id_field=options.id_col,
                                    allow_partial=options.allow_partial,
                                    by=options.by,
                                    different_items=options.different_items)
        names = _short_names(options.runs if len(options.runs) == len(
            sources) else [source.path for source in sources])
    names = options.names or names
    if len(names) != len(sources if len(sources) > 1 else options.systems):
        raise EvalDeltaError(f"--names gives {len(names)} names for "
                             f"{len(options.systems or sources)} systems")
    return metric, tally, dropped, names


def _holds_preferences(sources):
    """Return True if any of the Sources holds pairwise preferences (rank
    then rates the systems by Bradley-Terry: _preference_battles)."""
    return any(source.kind == "preferences" for source in sources)


def _preference_battles(options, sources):
    """Return (cells, names, notes, questions) of rank on preference
    files: every verdict of every file a battle, counted by (first
    system, second, the second's share) into cells [(i, j, share,
    count)] for _rank_preferences; --systems keeps the battles among the
    systems it names.  Where a question (of one file) holds several
    battles, *questions* counts each question's pattern of cells (a tuple
    of (cell, count)), for a bootstrap over questions; else None."""
    if not all(s.kind == "preferences" for s in sources):
        other = next(s for s in sources if s.kind != "preferences")
        raise EvalDeltaError(f"{other.path}: per-item scores, not "
                             f"preferences; rank preference files together, "
                             f"or score files together")
    for flag, given in (("--names", options.names), ("--metric",
                        options.metric), ("--by", options.by),
                        ("--pairs", options.pairs), ("--baseline",
                        options.against), ("--id", options.id_col)):
        if given:
            raise EvalDeltaError(f"{flag} does not go with preference files "
                                 f"(compare FILE --a-col X --b-col Y "
                                 f"compares two of their systems)")
    with _CollectorPaused():
        return _battles(options, sources)


def _human_battles(options, sources, names):
    """Return (the _CorrectedRatings, notes) of rank --human: the judge's
    verdicts of the *names* systems in *sources* (whose batches are lists,
    read once already), a human's on some of
    the same items (its file in any preference format), joined on the
    item; a human verdict on an item the judge's files lack, or between
    other systems, is an error naming it."""
    human = _open_source(options.human[0], options.reading)
    if human.kind != "preferences":
        raise EvalDeltaError(f"{human.path}: not a preference file: rank "
                             f"--human takes a human's verdicts in a "
                             f"preference format")
    index = {name: k for k, name in enumerate(names)}

    def key(v):            # a battle file's items are its records: by the
        item = v.item      # question (never by position)
        if v.place.endswith(": " + v.item):
            if v.question == v.item:
                raise EvalDeltaError(
                    f"{v.place}: a battle with no question_id, so a human's "
                    f"verdict on it cannot be found: --human joins battles "
                    f"on their question_id and pair")
            item = v.question
        return item, frozenset((v.a, v.b))
    judge = {}
    for source in sources:
        for _, batch in source.batches:
            for v in batch:
                if v.a in index and v.b in index:
                    k = key(v)
                    if k in judge:
                        raise EvalDeltaError(
                            f"{v.place}: {k[0]!r} between {v.a} and "
                            f"{v.b} is judged twice; the human's verdicts "
                            f"are joined on the item and the pair")
                    judge[k] = v
    shares = {}
    for _, batch in human.batches:
        for h in batch:
            k = key(h)
            v = judge.get(k)
            if v is None:
                raise EvalDeltaError(
                    f"{h.place}: a human verdict on {k[0]!r} between "
                    f"{h.a} and {h.b}, which the judged files lack")
            shares.setdefault(k, []).append(h.share if h.a == v.a
                                            else 1 - h.share)
    labelled = [(index[judge[k].a], index[judge[k].b],
                 math.fsum(y) / len(y), judge[k].share)
                for k, y in shares.items()]
    judged = [(index[v.a], index[v.b], v.share)
              for k, v in judge.items() if k not in shares]
    notes = [f"{human.path}: human verdicts on {len(labelled):,} of the "
             f"{len(judge):,} battles, correcting the judge's"]
    twice = sum(1 for y in shares.values() if len(y) > 1)
    if twice:
        notes.append(f"{human.path}: {_items(twice, 'battle')} judged by "
                     f"more than one human: their verdicts averaged")
    questions = [v.question for v in judge.values()]
    clusters = None
    if len(set(questions)) < len(questions):
        clusters = ([judge[k].question for k in shares],
                    [v.question for k, v in judge.items()
                     if k not in shares])
        notes.append(f"{len(questions):,} battles of "
                     f"{len(set(questions)):,} questions: the corrected "
                     f"ratings' covariance clustered by question")
    found = _ppi_bradley_terry(len(names), judged, labelled, clusters)
    return found, notes, _corrected_table(found, names, options,
                                          random.Random(options.seed))


def _battles(options, sources):
    """_preference_battles() of sources of preferences (see there)."""
    files = [(s.path, [v for _, batch in s.batches for v in batch])
             for s in sources]
    verdicts = [v for _, of in files for v in of]
    names = list(dict.fromkeys(x for s in sources for x in s.systems))
    if options.systems:
        unknown = [x for x in options.systems if x not in names]
        if unknown:
            raise EvalDeltaError(f"--systems: no system {unknown[0]!r}; the "
                                 f"systems are {_some(names)}")
        names = list(options.systems)
    index = {name: k for k, name in enumerate(names)}
    def key(a, b, share):              # a pair counted once, either order
        return ((index[a], index[b], share) if index[a] < index[b]
                else (index[b], index[a], 1 - share))
    files = [(path, [v for v in of if v.a in index and v.b in index])
             for path, of in files]
    kept = [v for _, of in files for v in of]
    triples = list(zip(map(attrgetter("a"), kept), map(attrgetter("b"), kept),
                       map(attrgetter("share"), kept)))
    cell_of, counted = {}, {}          # in the order cells first appear
    for triple, count in collections.Counter(triples).items():
        cell = cell_of[triple] = key(*triple)
        counted[cell] = counted.get(cell, 0) + count
    notes = [f"{source.path}: {note}" for source in sources
             for note in source.notes]
    left = len(verdicts) - len(kept)
    if left:
        notes.append(f"{_items(left, 'verdict')} with a system not in "
                     f"--systems left out")
    cells = [(i, j, share, c) for (i, j, share), c in counted.items()]
    questions = None
    if any(len(set(map(attrgetter("question"), of))) < len(of)
           for _, of in files):       # a question judged more than once
        asked = [(path, v.question) for path, of in files for v in of]
        at = {cell[:3]: k for k, cell in enumerate(cells)}
        by_question = {}
        for question, triple in zip(asked, triples):
            by_question.setdefault(question, collections.Counter())[
                at[cell_of[triple]]] += 1
        questions = collections.Counter(tuple(sorted(c.items()))
                                        for c in by_question.values())
        notes.append(f"{_items(len(kept), 'battle')} of "
                     f"{_items(len(by_question), 'question')}: resampled by "
                     f"question, its battles together (they share the "
                     f"question)")
    return cells, names, notes, questions


def _plan_from_pilot(options):
    """Return [(_Spread, _Detection)] of each metric of the pilot runs, sized
    as compare sizes it (_detection()), for options.gap or the gap seen; or,
    with options.repeats, [(metric, table, within, between, gap)] of
    _repeats_from_samples (the within-item variance from repeated
    samples)."""
    if len(options.runs) > 2:
        raise EvalDeltaError("--from takes one wide file or two runs")
    how, sizing = options.reading, dict(alpha=options.alpha,
                                        power=options.power)
    baseline = _open_source(options.runs[0], how)
    candidate = (_open_source(options.runs[1], how)
                 if len(options.runs) == 2 else None)
    metrics, baseline, candidate = _chosen_metrics(options, baseline,
                                                  candidate)
    if options.repeats:
        return _repeats_from_pilot(options, metrics, sizing)
    tallies, _ = _read_tallies(baseline, candidate, metrics, options)
    rows = []
    for m, tally in zip(metrics, tallies):
        r = _tally_spread(tally, metric=m.name, kind=m.kind,
                         clustered=bool(options.cluster))
        rows.append((r, _detection(r, gap=options.gap, **sizing)))
    return rows


def _labels_from_pilot(options):
    """Return [(the corrected gap's _MetricResult, its _Corrected)] of
    plan --from A B --human: each metric of the pilot runs corrected by
    its human labels, as compare --human corrects it."""
    if len(options.runs) != 2:
        raise EvalDeltaError("--human with --from takes two runs: the "
                             "baseline's and the candidate's")
    found = _compare_run(options, options.runs[1],
                         random.Random(options.seed))
    return [(r, check.gap) for r, check in zip(found.results, found.checks)]


def _repeats_from_pilot(options, metrics, sizing):
    """_plan_from_pilot with repeats: each metric's variances, from the
    pilot's records of every epoch."""
    how = options.reading._replace(keep_epochs=True)
    baseline = _read_run(options.runs[0], how)
    candidate = _read_run(options.runs[-1], how)
    key = options.id_col or _shared_id_field(baseline, candidate)
    ks = _repeat_counts(options.repeats)
    return [(name, *_repeats_from_samples(
        _grouped_values(baseline, key, a_field),
        _grouped_values(candidate, key, b_field), ks, gap=options.gap,
        **sizing)) for name, a_field, b_field, *_ in metrics]


## Input: what the files hold (check) #########################################

# check is a doctor, as brew doctor and flutter doctor are: it reads each
# input as compare reads it (the one reader registry: _READERS and
# _open_source), in one pass over its records, keeping per field its
# counts, missing values, the types met, the least and greatest number and
# up to _DISTINCT_MOST distinct values; per input its ids and, where the
# records carry the item itself (lm-eval's doc and doc_hash, a question's
# text, Every Eval Ever's sample_hash), a digest of it per id, so that two
# runs numbering their items alike but holding different ones are told
# apart.  What each field is (the id, a metric, a cluster, a subset, human
# labels, a judge's scores) follows compare's own rules (_ID_FIELDS,
# _default_metrics, _not_a_metric, _MODEL_FIELD, _ITEM_FIELD) and the
# values.  A folder is read as compare reads it; a folder of several
# systems' runs, or of files no framework wrote, is read entry by entry.
# Then the commands: each asks only what these files can answer, with the
# options compare will need (--id, --allow-partial, --metric where a
# field is scored on some items only).

_DISTINCT_MOST = 1 << 12   # distinct values kept per field; past it, "many"
_CHECK_MOST = 60           # inputs check reads under one folder at most
_CHECK_DEPTH = 8           # folders check goes down into at most
_CONTENT_FIELDS = ("doc_hash", "sample_hash", "input_hash", "doc", "input",
                   "question", "prompt", "instruction", "text")
_HUMAN_WORDS = {"human", "humans", "annotator", "annotators", "annotation",
                "rater", "raters", "manual", "expert", "crowd"}
_JUDGE_WORDS = {"judge", "judged", "judges", "grader", "graded", "llm",
                "gpt4", "geval", "autorater"}
_FEW_ITEMS = 30            # fewer items than this: only a large gap shows
_SUBSETS_MOST = 100        # more values than this: a cluster, not subsets
_CLUSTER_WORDS = {"passage", "context", "conversation", "dialogue", "dialog",
                  "thread", "repo", "repository", "document", "article",
                  "story", "cluster", "group", "session", "problem", "task"}


class _FieldProfile(NamedTuple):
    """One field of an input as check saw it."""
    name: str
    kind: str                # 0/1, number, text, list, object, or a mix
    count: int               # records holding a value
    missing: int             # records where it is absent, null or empty
    lo: object = None        # the least and greatest number
    hi: object = None
    distinct: object = None  # distinct values, None past _DISTINCT_MOST
    examples: tuple = ()     # a few values, as text
    roles: tuple = ()        # id, metric, cluster, subset, human labels, ...
    mean: object = None      # of the numbers
    repeats: bool = False    # some value held by two records or more


class _Profile(NamedTuple):
    """What check found in one input: how it was read, its fields, its ids
    (each id's hash, sorted, 8 bytes an id: what telling how inputs join
    takes) and the digest of each id's item (where the records carry it)."""
    path: str                # as given, or under the folder given
    format: str = ""         # the _READERS row that read it
    kind: str = ""           # csv, tsv, jsonl, json or preferences
    task: str = ""
    records: int = 0
    id_field: object = None
    ids: array = array("q")
    digests: dict = {}       # {id: digest of its content field}
    content: object = None   # that field
    fields: tuple = ()       # _FieldProfiles, in the order met
    notes: tuple = ()        # what the reader said it did
    systems: tuple = ()      # the systems of a file holding several
    metrics: tuple = ()      # compare's default metrics of this input
    refused: str = ""        # the tool's one line, where it refuses it
    folder: object = None    # the folder of plain files it came from
    runs: tuple = ()         # several runs of one system: their paths
    presence: dict = {}      # {which systems have a value: rows}
    name: str = ""           # the path, short (_short_names of them all)
    numbered: object = None  # True: every id a number; False: none; None:
                             # some are (compare --runs fails on epochs so)
    most: int = 0            # the most records an id has
    least: int = 0           # and the fewest


class _Checked(NamedTuple):
    """check's findings: the inputs, how their ids join, the problems and
    the commands (argv without the program, and what each answers)."""
    inputs: list
    joins: list              # lines on how the ids join
    problems: list
    commands: list           # (argv, what it answers)


class _FieldTally:
    """One field's profile gathered as its values stream past."""

    def __init__(self, name):
        self.name, self.count, self.missing = name, 0, 0
        self.types = collections.Counter()
        self.lo = self.hi = None
        self.sum, self.numbers = 0.0, 0
        self.distinct, self.many = collections.Counter(), False
        self.repeats = False         # known once distinct values overflow

    def add(self, raw, table):
        """Count a batch of the field's values *raw* (CSV text if *table*)."""
        present = [v for v in raw if not _missing(v)]
        self.missing += len(raw) - len(present)
        self.count += len(present)
        if not present:
            return
        if table:                    # CSV text: numbers where they read so
            numbers = [x for x in map(_number_or_none, present)
                       if x is not None]
            kinds = +collections.Counter(
                {"number": len(numbers), "text": len(present) - len(numbers)})
        else:
            kinds = collections.Counter(map(type, present))
            numbers = [float(v) for v in present
                       if type(v) in (int, float, bool) and math.isfinite(v)]
        self.types.update(kinds)
        if numbers:
            lo, hi = min(numbers), max(numbers)
            self.lo = lo if self.lo is None else min(self.lo, lo)
            self.hi = hi if self.hi is None else max(self.hi, hi)
            self.sum += math.fsum(numbers)
            self.numbers += len(numbers)
        if not self.many:
            self.distinct.update(v for v in present
                                 if type(v) not in (list, dict, tuple))
            if len(self.distinct) > _DISTINCT_MOST:
                self.many = True
                self.repeats = max(self.distinct.values()) > 1
                self.distinct = collections.Counter(
                    dict(itertools.islice(self.distinct.items(), 3)))

    def profile(self, roles=()):
        """Return the _FieldProfile of what was counted."""
        names = {int: "number", float: "number", bool: "true/false",
                 str: "text", list: "list", tuple: "list", dict: "object"}
        kinds = list(dict.fromkeys(names.get(t, getattr(t, "__name__", t))
                                   for t in self.types))
        if "number" in kinds and "true/false" in kinds:
            kinds.remove("true/false")
        kind = " and ".join(kinds) or "missing"
        if kind in ("number", "true/false") and not self.many and set(
                map(_number_or_none, self.distinct)) <= {0.0, 1.0}:
            kind = "0/1"
        examples = tuple(str(v) if len(str(v)) <= 24 else str(v)[:21]
                         + "..." for v in itertools.islice(self.distinct, 3))
        return _FieldProfile(self.name, kind, self.count, self.missing,
                             self.lo, self.hi,
                             None if self.many else len(self.distinct),
                             examples, tuple(roles),
                             self.sum / self.numbers if self.numbers else None,
                             self.repeats if self.many else
                             len(self.distinct) < sum(self.distinct.values()))


def _number_or_none(value):
    """Return a value that reads as a finite number as a float, else None."""
    try:
        return _finite_number(value) if type(value) not in (list, dict) \
            else None
    except ValueError:
        return None


def _check(options):
    """Return the _Checked of check's inputs (options.runs): each read and
    profiled, the ids joined, the problems and the commands found.

    A path that does not exist raises EvalDeltaError; a file the tool
    refuses is a finding (its one line), not an error.
    """
    profiles = []
    for path in options.runs:
        if path != _STDIN and not os.path.exists(path):
            raise EvalDeltaError(f"{path}: cannot read: No such file or "
                                 f"directory")
        profiles += _check_path(path, options, _CHECK_DEPTH)
    profiles = _runs_folders(profiles)
    profiles = [p._replace(name=name) for p, name in zip(
        profiles, _short_names([p.path for p in profiles]))]
    joins, problems = _check_joins(profiles)
    problems = [f"{p.name}: {p.refused}" for p in profiles if p.refused] \
        + _check_problems(profiles) + problems
    return _Checked(profiles, joins, problems,
                    _check_commands(profiles, options))


def _check_path(path, options, depth):
    """Return the _Profiles of one path: a file, a folder a framework wrote
    (one run, or its tasks' newest runs; where its runs lie in several
    folders, a system's each, each folder and file read on its own), or a
    folder of other files and folders, read entry by entry."""
    if path == _STDIN or not os.path.isdir(path):
        return [_profile(path, options)]
    found, layout = [], None
    for layout in _READERS:
        found = layout.layout(path) if layout.layout else []
        if found:
            break
    entries = sorted(e for e in os.listdir(path) if not e.startswith("."))
    if found:
        parts = [os.path.relpath(f.path, path).split(os.sep) for f in found]
        tops = sorted({p[0] for p in parts if len(p) > 1})
        direct = sorted({p[0] for p in parts if len(p) == 1})
        if depth and (len(tops) > 1 or tops and direct or not direct and set(
                entries) - set(tops) and not tops[0].startswith(".")):
            return _under(path, entries, options, depth)    # runs and more
        runs, older = _newest_runs(path, found)
        if len(runs) == 1 or options.reading.task is not None:
            return [_profile(path, options, layout.name,
                             options.reading.task or next(iter(runs)))]
        profiles = [_profile(run, options, layout.name, task)
                    for task, run in sorted(runs.items())]
        return [p._replace(notes=((older[task],) if task in older else ())
                           + p.notes)
                for p, task in zip(profiles, sorted(runs))]
    if not depth:
        return [_Profile(path, refused=f"a folder of {len(entries)} entries"
                                       f" below the depth check reads")]
    profiles = _under(path, entries, options, depth)
    if all(os.path.isfile(os.path.join(path, e)) for e in entries):
        profiles = [p._replace(folder=path) for p in profiles]
    return profiles


def _under(path, entries, options, depth):
    """Return the _Profiles of a folder's *entries* (at most _CHECK_MOST)."""
    profiles = []
    for entry in entries[:_CHECK_MOST]:
        profiles += _check_path(os.path.join(path, entry), options, depth - 1)
    if len(entries) > _CHECK_MOST:
        profiles.append(_Profile(path, refused=f"{len(entries)} entries; "
                                 f"the first {_CHECK_MOST} read"))
    return profiles


def _profile(path, options, format=None, task=""):
    """Return the _Profile of one run (a file, or a folder a framework
    wrote) read as compare reads it, in one pass."""
    how = options.reading
    try:
        if os.path.isdir(path):
            source = _open_source(path, how)
        else:
            head = _Head(path, how.inflate)
            reader = _reader_of(head, how)
            format = reader.name
            with _CollectorPaused():
                source = reader.read(head, how)
        if format != "lm-eval":
            task = ""      # others name runs by model and task together
        elif not task and not os.path.isdir(path):
            task = _task_and_stamp(os.path.basename(path))[0]
        return _profile_source(path, source, format or "", task, options)
    except EvalDeltaError as exc:
        line = str(exc)
        return _Profile(path, format=format or "", task=task,
                        refused=line[len(path) + 2:]
                        if line.startswith(f"{path}: ") else line)


def _profile_source(path, source, format, task, options):
    """Return the _Profile of an opened _Source: its records read once."""
    table = source.fields is not None
    key = options.id_col or next(
        (f for f in _ID_FIELDS if _field(source.first, f) is not _MISSING),
        None) or next((f for f in source.first if _ITEM_FIELD.fullmatch(
            str(f)) and not _MODEL_FIELD.fullmatch(str(f))
            and _not_a_metric(str(f)) != "an index"), None)
    content = next((f for f in _CONTENT_FIELDS
                    if f != key and f in source.first), None)
    tallies, hashes, digests, records = {}, array("q"), {}, 0
    presence, numbered = collections.Counter(), 0
    systems = [_getter(source, name) for name in source.systems
               if source.kind != "preferences"]
    ids_of = _Column(source, key, role="id").labels if key else None
    for numbers, batch in source.batches:
        records += len(batch)
        if not table and batch and not isinstance(batch[0], dict):
            batch = [r._asdict() for r in batch]       # _Verdicts
        if table:
            names = source.fields
        else:
            names = dict.fromkeys(n for r in batch for n in r)
        for name in names:
            if name not in tallies:
                tallies[name] = _FieldTally(name)
            tallies[name].add(list(map(_getter(source, name), batch)), table)
        presence.update(tuple(not _missing(get(r)) for get in systems)
                        for r in batch if systems)
        if ids_of:
            labels = ids_of(numbers, batch)
            hashes.extend(map(hash, labels))
            numbered += sum(map(str.isdigit, labels))
            if content:
                get = _getter(source, content)
                digests.update((label, _digest(get(r)))
                               for label, r in zip(labels, batch))
    metrics = _profile_metrics(source, key)
    fields = tuple(t.profile() for t in tallies.values())
    fields = tuple(f._replace(roles=_roles(f, key, metrics, source, format))
                   for f in fields)
    ids, least, most = _id_runs(hashes)
    return _Profile(path, format, source.kind, task, records, key, ids,
                    digests, content, fields, source.notes, source.systems,
                    tuple(metrics), presence=dict(presence),
                    numbered={0: False, records: True}.get(numbered),
                    most=most, least=least)


def _id_runs(hashes):
    """Return (the distinct values of *hashes*, sorted, as an array; the
    fewest and the most times one occurs).

    >>> _id_runs(array("q", [5, 3, 5, 5]))
    (array('q', [3, 5]), 1, 3)
    """
    ordered = sorted(hashes)
    if not ordered:
        return array("q"), 0, 0
    edges = [0] + [i for i in range(1, len(ordered))
                   if ordered[i] != ordered[i - 1]] + [len(ordered)]
    sizes = [j - i for i, j in zip(edges, edges[1:])]
    return (array("q", map(ordered.__getitem__, edges[:-1])),
            min(sizes, default=0), max(sizes, default=0))


def _digest(value):
    """Return a short digest of an item's content (any JSON value)."""
    text = (value if isinstance(value, str)
            else json.dumps(value, sort_keys=True, default=str))
    return zlib.crc32(text.encode("utf-8", "replace"))


def _profile_metrics(source, key):
    """Return the fields compare takes as metrics by default (its own
    _default_metrics, the input set against itself), or () where it would
    take none."""
    if source.kind == "preferences":
        return ()
    exclude = set(_ID_FIELDS) | {key, "metrics"} - {None}
    try:
        return _default_metrics(source, source, exclude)
    except EvalDeltaError:
        return ()


def _roles(f, key, metrics, source, format):
    """Return what a field is: the id, a metric (and a judge's scores),
    human labels, a cluster, a subset, a system's name, or what its name
    says it is not (an index, a label, a length)."""
    words = set(re.findall(r"[a-z0-9]+", f.name.lower()))
    numeric = f.kind in ("0/1", "number", "true/false")
    if f.name == key:
        return ("id",)
    if source.kind == "preferences":
        return ()
    if numeric and 0 < f.missing and f.count:     # on some items only
        if words & _HUMAN_WORDS or (format == "table" and metrics
                                    and f.name not in metrics):
            return ("human labels",)
        if f.name in source.first or format != "table":
            return ("scored on some items",)
    if f.name in metrics:
        judged = words & _JUDGE_WORDS or "[geval]" in f.name.lower()
        return ("metric",) + ("judge's scores",) * bool(judged) + (
            "lower is better",) * _lower_is_better(f.name)
    if _MODEL_FIELD.fullmatch(f.name):
        return ("system",)
    if _not_a_metric(f.name):
        return (_not_a_metric(f.name),)
    if (f.kind == "text" or f.kind == "number" and not metrics) and (
            not f.missing and f.repeats and f.distinct != 1):
        if (_ITEM_FIELD.fullmatch(f.name) or words & _CLUSTER_WORDS
                or f.distinct is None or f.distinct > _SUBSETS_MOST):
            return ("cluster",)
        return ("subset",)
    if f.name in _CONTENT_FIELDS:
        return ("content",)
    return ()


def _runs_folders(profiles):
    """Return *profiles* with each folder of one system's runs folded into
    one _Profile (runs: its files), where two such folders or more hold
    the same items: every file in a folder holding the same ids and fields
    (compare --runs)."""
    folders = {}
    for p in profiles:
        if p.folder is not None:
            folders.setdefault(p.folder, []).append(p)
    alike = {}                   # {the ids: [a folder of runs of them]}
    for folder, group in folders.items():
        first = group[0]
        if len(group) > 1 and all(
                not p.refused and p.ids and p.ids == first.ids
                and [f.name for f in p.fields]
                == [f.name for f in first.fields] for p in group):
            alike.setdefault(first.ids.tobytes(), []).append(first._replace(
                path=folder, runs=tuple(p.path for p in group), folder=None))
    runs = {p.path: p for group in alike.values() if len(group) > 1
            for p in group}
    if not runs:
        return profiles
    out, said = [], set()
    for p in profiles:
        if p.folder in runs:
            if p.folder not in said:
                said.add(p.folder)
                out.append(runs[p.folder])
        else:
            out.append(p)
    return out


def _joinable(a, b):
    """Return (shared ids, differing digests) of two per-item profiles."""
    shared = set(a.ids).intersection(b.ids)
    differ = ([i for i in a.digests.keys() & b.digests.keys()
               if a.digests[i] != b.digests[i]]
              if a.content and a.content == b.content else [])
    return shared, differ


def _check_joins(profiles):
    """Return (lines on how the inputs' ids join, problems seen there):
    inputs holding the same ids said together, then each pair that
    shares some ids only; where both carry the items' content, whether
    the shared ids hold the same items."""
    items = [p for p in profiles if p.ids and not p.refused]
    alike = {}
    for p in items:
        alike.setdefault(frozenset(p.ids), []).append(p)
    lines, problems = [], []
    for group in alike.values():
        if len(group) > 1:
            first = group[0]
            lines.append(f"{_listing([p.name for p in group])}: the same "
                         f"{_items(len(first.ids), 'id')} ({first.id_field})"
                         + _content_words(group, problems))
    keys = list(alike)
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            shared = a & b
            if shared:
                x, y = alike[a][0], alike[b][0]
                lines.append(
                    f"{x.name} and {y.name}: {_items(len(shared), 'id')} "
                    f"shared, {len(a) - len(shared)} only in the first, "
                    f"{len(b) - len(shared)} only in the second (compare "
                    f"takes them with --allow-partial)"
                    + _content_words([x, y], problems))
    if len(lines) > _CHECK_MOST:
        lines[_CHECK_MOST:] = [f"and {len(lines) - _CHECK_MOST} more pairs"]
    return lines, problems


def _listing(names):
    """Return 'a, b and c'."""
    return (", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1
            else "".join(names))


def _content_words(group, problems):
    """Return words on whether the inputs of *group* hold the same items
    under their shared ids (where they carry the items' content), adding
    a problem for each that does not; and a problem for different tasks."""
    first, words = group[0], ""
    for p in group[1:]:
        shared, differ = _joinable(first, p)
        tasks = (f"different tasks ({first.task}, {p.task})"
                 if first.task and p.task and first.task != p.task else "")
        if differ:
            at = sorted(differ, key=_natural)[0]
            problems.append(
                f"{first.name} and {p.name}: the same ids hold different "
                f"items: id {at}'s {first.content} differs"
                + (f" ({len(differ)} of {len(shared)} shared ids)"
                   if len(differ) > 1 else "") + f"{'; ' * bool(tasks)}"
                + tasks)
        elif tasks:
            problems.append(f"{first.name} and {p.name}: {tasks}")
    if first.content and all(p.content == first.content for p in group):
        same = not any(_joinable(first, p)[1] for p in group[1:])
        words = f"; their {first.content} " + ("agrees" if same
                                               else "differs")
    return words


def _natural(text):
    """Return a sort key putting '2' before '10'."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t)
            for t in re.split(r"(\d+)", text)]


def _check_problems(profiles):
    """Return what looks wrong within each input, and identical inputs."""
    problems = []
    for p in profiles:
        if p.refused:
            continue
        board = _leaderboard(p.name, [f.name for f in p.fields])
        if board:
            problems.append(board)
        repeats = p.records - len(p.ids) if p.ids else 0
        if repeats and not p.runs:
            most = p.most
            problems.append(
                f"{p.name}: {_items(p.records, 'record')} for "
                f"{_items(len(p.ids), 'id')} ({p.id_field}): up to {most} "
                f"records an item (samples, epochs or duplicates); compare "
                f"pairs one record an item: pass@k (--stat) or --runs reads "
                f"several")
        if not p.ids and p.kind != "preferences" and not board:
            problems.append(f"{p.name}: no id field (tried "
                            f"{', '.join(_ID_FIELDS)}); name one with --id")
        systems = [f for f in p.fields if "system" in f.roles
                   and (f.distinct or 2) > 1]
        if (len(p.systems) > 2 or systems) and not board:
            named = (f"systems {_some(list(p.systems), 6)}" if p.systems
                     else f"column {systems[0].name}: "
                          f"{', '.join(systems[0].examples)}, ...")
            problems.append(f"{p.name}: several systems in one file "
                            f"({named}): pick two with --a-col and --b-col, "
                            f"or rank them")
    if any(p.path == _STDIN for p in profiles):
        problems.append("-: standard input, read once: each command below "
                        "that names - reads it again, so pipe the same run "
                        "into each")
    few = [p for p in profiles if p.ids and len(p.ids) < _FEW_ITEMS
           and p.kind != "preferences" and not p.refused]
    if few:
        most = max(len(p.ids) for p in few)
        problems.append(
            ("every input" if len(few) == len(profiles) > 1 else
             _listing([p.name for p in few]))
            + (f": only {_items(most)}" if len(few) == 1 else
               f": {_items(most)} or fewer")
            + ": only a large gap can show (plan --from says how large)")
    files = [p for p in profiles if not p.refused and not p.runs
             and os.path.isfile(p.path)]
    for i, a in enumerate(files):
        for b in files[i + 1:]:
            if (os.path.samefile(a.path, b.path) or filecmp.cmp(
                    a.path, b.path, shallow=False)):
                problems.append(f"{a.name} and {b.name}: the same file"
                                if os.path.samefile(a.path, b.path) else
                                f"{a.name} and {b.name}: byte-identical "
                                f"files: the same run twice?")
    return problems


def _reading_argv(how):
    """Return the options that give the _Reading *how* (check passes the
    ones it was given on to the commands it suggests)."""
    argv = []
    for flag, value in (("--from-format", how.format),
                        ("--records", how.records), ("--task", how.task),
                        ("--filter", how.filter), ("--scorer", how.scorer)):
        if value is not None:
            argv += [flag, value]
    if how.choice_scores:
        argv += ["--choice-scores", ",".join(
            f"{k}={v:g}" for k, v in how.choice_scores.items())]
    if how.inflate != _INFLATE_LIMIT:
        argv += ["--max-inflate", str(how.inflate >> 20)]
    return argv


def _join_groups(profiles):
    """Return the per-item inputs in groups compare can join: the same id
    field, shared ids, the same items where their content is known, and a
    metric in common (or, for repeated ids, samples to pool)."""
    groups = []
    for p in profiles:
        for group in groups:
            first = group[0]
            shared, differ = _joinable(first, p)
            repeats = (first.records > len(first.ids), p.records > len(p.ids))
            tasks = {first.task, p.task} - {""}
            if (shared and not differ and first.id_field == p.id_field
                    and len(tasks) < 2
                    and repeats[0] == repeats[1]
                    and set(first.metrics) & set(p.metrics)):
                group.append(p)
                break
        else:
            groups.append([p])
    return groups


def _kinds(p):
    """Return {field name: _FieldProfile} of a profile."""
    return {f.name: f for f in p.fields}


def _check_commands(profiles, options):
    """Return [(argv, what it answers)]: the commands that answer what the
    profiled inputs can answer, with the options compare will need."""
    extra = _reading_argv(options.reading)
    found = [p for p in profiles if not p.refused]
    commands = []
    per_item, seen = [], set()       # a file given twice: once
    for p in found:
        if p.kind != "preferences" and p.ids and not p.runs and (
                os.path.realpath(p.path) not in seen or p.path == _STDIN):
            seen.add(os.path.realpath(p.path))
            per_item.append(p)
    for group in _join_groups(per_item):
        if len(group) > 1:
            commands += _group_commands(group, extra)
    runs = [p for p in found if p.runs]
    if len(runs) > 1 and set(runs[0].ids).intersection(runs[1].ids):
        a, b = runs[0].path, runs[1].path
        commands += [
            (["compare", "--runs", a, b] + extra,
             f"several runs of each system ({len(runs[0].runs)} and "
             f"{len(runs[1].runs)}): the gap of the run-averaged scores, the "
             f"run-to-run spread, where one run of each would put the gap"),
            (["plan", "--from", a, b, "--runs"] + extra,
             "how many runs of each system tell the gap from the run-to-run "
             "spread")]
    for p in found:
        commands += _single_commands(p, extra)
    prefs = [p for p in found if p.kind == "preferences"]
    for judge in prefs:
        for human in prefs:
            if (human is not judge and set(human.systems) == set(
                    judge.systems) and len(judge.systems) == 2
                    and set(human.ids) < set(judge.ids)):
                commands.append((
                    ["compare", judge.path, "--human", human.path] + extra,
                    f"the judge's verdicts in {judge.name} corrected by the "
                    f"human verdicts on {_items(len(human.ids))} of its "
                    f"{len(judge.ids)} (prediction-powered)"))
    return commands


def _group_commands(group, extra):
    """Return the commands of inputs that join: compare, rank, --cluster,
    --by, --human, --runs (epochs), pass@k, plan --from."""
    first, paths = group[0], [p.path for p in group]
    a, b = paths[:2]
    names = [p.name for p in group]
    shared = [m for m in first.metrics if all(m in p.metrics for p in group)]
    fields = [_kinds(p) for p in group]
    common = ["--id", first.id_field] if first.id_field not in _ID_FIELDS \
        else []
    partial = any(p.ids != first.ids for p in group)
    common += ["--allow-partial"] * partial + extra
    if first.records > len(first.ids):
        return _samples_commands(group, shared, common)
    whole = [m for m in shared
             if all(not f[m].missing for f in fields if m in f)]
    loose = any(f.missing and f.kind in ("0/1", "number") and f.count
                for p in group for f in p.fields if f.name != p.id_field)
    if not whole:
        return []
    named = [x for m in whole for x in ("--metric", m)] if (
        loose or whole != shared or any(set(p.metrics) != set(shared)
                                        for p in group)) else []
    out = [(["compare"] + paths + named + common,
            (f"is {names[1]} better than {names[0]}" if len(group) == 2 else
             f"is each of the {len(group) - 1} candidates better than "
             f"{names[0]}")
            + f" on {_some(whole, 4)}: paired intervals and tests, a "
              f"verdict (Holm across "
            + ("metrics)" if len(group) == 2 else "candidates x metrics)"))]
    if len(group) > 2:
        out.append((["rank"] + paths + ["--metric", whole[0]] + common,
                    f"which of the {len(group)} systems is best on "
                    f"{whole[0]}: means, rank intervals, the top group"))
    roles = {role: [f.name for f in first.fields if role in f.roles
                    and all(f.name in k for k in fields[:2])]
             for role in ("cluster", "subset", "human labels")}
    for name in roles["cluster"][:1]:
        f = _kinds(first)[name]
        size = (f"{_items(f.distinct, 'group')}, about "
                f"{round(first.records / f.distinct)} items each"
                if f.distinct else f"over {_DISTINCT_MOST} groups")
        out.append((["compare", a, b] + named + ["--cluster", name] + common,
                    f"the same, resampling the items of one {name} together "
                    f"({size})"))
    for name in roles["subset"][:1]:
        out.append((["compare", a, b] + named + ["--by", name] + common,
                    f"a verdict within each {name} "
                    f"({_items(_kinds(first)[name].distinct, 'subset')}), "
                    f"Holm across them"))
    judge = [m for m in whole if "judge's scores" in _kinds(first)[m].roles]
    for human in roles["human labels"][:1]:
        metric = (judge or whole)[0]
        labelled = _kinds(first)[human].count
        out.append((["compare", a, b, "--metric", metric, "--human", human]
                    + common, f"{metric} corrected by the human labels in "
                              f"{human} ({labelled} of {first.records} "
                              f"items; prediction-powered): the judge's "
                              f"bias and the corrected gap"))
        if not partial:
            out.append((["plan", "--from", a, b, "--metric", metric,
                         "--human", human] + common,
                        "how the corrected gap's interval narrows with more "
                        "human labels"))
    # epochs as runs; not where ids mix numbers and names ('0', 's1'):
    # compare --runs then finds no id in common between the epochs
    if all(any("epochs per item" in n for n in p.notes) for p in group[:2]
           ) and first.numbered is not None:
        out.append((["compare", "--runs", a, b] + extra,
                    "each epoch a run: the run-to-run spread beside the gap"))
    out += _class_commands(group, common)
    if not partial:
        out.append((["plan", "--from", a, b] + named + common,
                    f"how many items would detect the gap seen, at "
                    f"{_POWER:.0%} power (the pilot's agreement between the "
                    f"systems)"))
    return out


_GOLD_WORDS = {"label", "gold", "target", "answer", "reference", "truth"}
_PREDICTED_WORDS = {"prediction", "pred", "predicted", "output"}


def _class_fields(p):
    """Return (the gold field, the predicted fields) of a profile: class
    labels (few distinct values) named as such."""
    def named(f, words):
        return (words & set(re.findall(r"[a-z]+", f.name.lower()))
                and f.distinct and f.distinct <= _SUBSETS_MOST
                and not f.missing)
    gold = [f.name for f in p.fields if named(f, _GOLD_WORDS)]
    predicted = [f.name for f in p.fields if named(f, _PREDICTED_WORDS)]
    return (gold[0] if gold else None), predicted


def _class_commands(group, common):
    """Return compare --stat f1(gold,pred): F1 over the corpus, where two
    runs hold class labels and their predictions."""
    found = [_class_fields(p) for p in group[:2]]
    (gold, mine), (theirs, yours) = found
    if gold is None or gold != theirs or not mine or mine[:1] != yours[:1]:
        return []
    stat = f"f1({gold},{mine[0]})"
    return [(["compare", group[0].path, group[1].path, "--stat", stat]
             + common, f"is {group[1].name}'s F1 ({mine[0]} against "
                       f"{gold}) better than {group[0].name}'s: F1 over the "
                       f"whole set, not a mean of items")]


def _samples_commands(group, shared, common):
    """Return the commands of inputs with several records an item (samples
    of one problem): pass@k and pass^k, and plan --repeats."""
    fields = [_kinds(p) for p in group[:2]]
    binary = [m for m in shared if all(f[m].kind == "0/1" for f in fields)]
    k = min(p.least for p in group[:2])
    if not binary or k < 2:
        return []
    a, b = group[0].path, group[1].path
    m = binary[0]
    return [(["compare", a, b, "--stat", f"pass@{k}({m})", "--stat",
              f"pass^{k}({m})"] + common,
             f"pass@{k} and pass^{k} of {m} from each item's samples (its "
             f"records sharing an id)"),
            (["plan", "--from", a, b, "--metric", m, "--repeats", str(k)]
             + common, f"the items needed with 1 to {k} samples an item")]


def _systems_commands(p, extra):
    """Return the commands of a file holding several systems' columns
    (promptfoo's providers): compare two that share rows, rank them all
    where some rows have every one."""
    partial = ["--allow-partial"] * any(
        not all(present) for present in p.presence)
    pairs = [(i, j) for i in range(len(p.systems))
             for j in range(i + 1, len(p.systems))
             if any(present[i] and present[j] for present in p.presence)]
    out = []
    if len(p.systems) > 2 and any(map(all, p.presence)):
        out.append((["rank", p.path] + partial + extra,
                    f"which of its {len(p.systems)} systems is best: means, "
                    f"rank intervals, the top group"))
    for i, j in pairs[:1]:
        a, b = p.systems[i], p.systems[j]
        cols = ["--a-col", a, "--b-col", b] if len(p.systems) > 2 else []
        out.append((["compare", p.path] + cols + partial + extra,
                    f"is {b} better than {a}"))
    return out


def _single_commands(p, extra):
    """Return the commands one input answers alone: a file holding both
    systems' columns, several systems, or pairwise preferences."""
    fields = _kinds(p)
    if p.kind == "preferences":
        if len(p.systems) == 2:
            return [(["compare", p.path] + extra,
                     f"how often {p.systems[1]} is preferred to "
                     f"{p.systems[0]}: the win rate with its interval")]
        return [(["rank", p.path] + extra,
                 f"the {len(p.systems)} systems' Bradley-Terry ratings, rank "
                 f"intervals and top group")]
    if p.systems:
        return _systems_commands(p, extra)
    gold, predicted = _class_fields(p)
    if gold and len(predicted) == 2 and not p.runs:
        stat = f"f1({gold},{predicted[0]},{predicted[1]})"
        return [(["compare", p.path, "--stat", stat] + extra,
                 f"is {predicted[1]}'s F1 against {gold} better than "
                 f"{predicted[0]}'s: F1 over the whole set, not a mean of "
                 f"items")]
    a, b = CSV_HEADER[1:3]
    if a in fields and b in fields and not p.runs:
        return [(["compare", p.path] + extra,
                 f"is {b} better than {a}: paired intervals, McNemar's "
                 f"exact test, a verdict"),
                (["plan", "--from", p.path] + extra,
                 f"how many items would detect the gap seen, at "
                 f"{_POWER:.0%} power")]
    return []


## Report #####################################################################

# Doors (called from other sections): _calibration_json, _check_json,
# _compare_json, _compare_page, _forest_svg, _format_calibration,
# _format_check, _format_compare, _format_labels_plan, _format_peeking,
# _format_pilot, _format_plan, _format_rank, _format_repeats,
# _format_runs_plan, _format_stopping, _histogram_svg, _html,
# _joined_reports, _labels_plan_json, _OUTPUT_FORMATS, _markdown_lines,
# _Page, _peeking_json, _pilot_json, _plan_json, _plan_markdown, _plan_page,
# _power_curve_svg, _rank_json, _rank_page, _Ranked, _render,
# _runs_plan_json, _simulation_json, _stopping_json, _with_noise.

def _nu_words(ties):
    """Return why Davidson's (nu, interval) is unbounded, or None."""
    nu, span = ties
    if math.isinf(nu):
        return "every battle a tie, so nu has no finite estimate"
    if math.isinf(span.hi):
        return ("some rounds drew no decisive battle, so nu's interval is "
                "unbounded")
    return None


def _finite(value):
    """Return *value* (JSON data) with every infinite or NaN float as
    None: JSON has no Infinity, and a strict reader refuses it (the words
    say why a figure is unbounded)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def _metric_json(r):
    """Return the JSON object of one _MetricResult's figures."""
    def pair(ci):
        return None if ci is None else [float(ci.lo), float(ci.hi)]
    return {
        "observed": {"a": float(r.a), "b": float(r.b), "gap": float(r.gap)},
        "ci": {"a": pair(r.ci_a), "b": pair(r.ci_b),
               "paired_gap": pair(r.ci_paired),
               "unpaired_gap": pair(r.ci_unpaired)},
        "mcnemar": r.mcnemar and {
            "a_only": r.mcnemar.a_only, "b_only": r.mcnemar.b_only,
            "p_exact": float(r.mcnemar.p_exact)},
    }


def _format_peeking(seen, *, seed, acc_a, corr):
    """Return the text report of simulate --peeking."""
    lines = [f"peeking: {seen.replays} replays of {_items(seen.n_items)}, "
             f"both systems at accuracy {acc_a:g} (no true gap), latent "
             f"correlation {corr:g}, seed {seed}; looked at after every item "
             f"(the fixed-sample interval from the 20th)",
             "share of replays that had excluded zero by then (a false "
             "positive each):"]
    rows = [["items seen", "fixed-sample 95% CI, looked at every item",
             "confidence sequence (compare --sequential)"]]
    for look, naive, seq in zip(seen.looks, seen.naive, seen.sequence):
        rows.append([str(look), _percent(naive, seen.replays),
                     _percent(seq, seen.replays)])
    widths = [max(len(r[k]) for r in rows) for k in range(3)]
    lines += ["  ".join(cell.rjust(w) for cell, w in zip(row, widths))
              for row in rows]
    lines.append(f"a fixed-sample interval looked at once, at the end, "
                 f"excluded zero in {_percent(seen.once, seen.replays)} of "
                 f"replays; looked at after "
                 f"every item it did in {_percent(seen.naive[-1], seen.replays)}"
                 f"; the confidence sequence, valid however often one "
                 f"looks, in {_percent(seen.sequence[-1], seen.replays)}")
    return "\n".join(lines)


def _stop_quantile(stopping, q):
    """Return the q-quantile of the stopping item over all replays, or
    None where more than 1 - q of them never stopped."""
    k = math.ceil(q * stopping.replays) - 1
    return stopping.stops[k] if k < len(stopping.stops) else None


def _format_stopping(stopping, *, seed, power):
    """Return the text lines of plan --sequential."""
    st = stopping
    median, p90 = _stop_quantile(st, 0.5), _stop_quantile(st, 0.9)

    def item(x):
        return f"beyond {st.most}" if x is None else str(x)
    by_fixed = (sum(1 for x in st.stops if x <= st.fixed)
                if st.fixed else None)
    lines = [f"sequential (compare --sequential, a look after every item), "
             f"{st.replays} replays of up to {_items(st.most)}, seed {seed}:",
             f"  stopping item: median {item(median)}, 90th percentile "
             f"{item(p90)}; {_percent(st.replays - len(st.stops), st.replays)}"
             f" never stopped within {st.most}"]
    if by_fixed is not None:
        lines.append(f"  stopped by the fixed-sample size {st.fixed} "
                     f"({power:.0%} power) in "
                     f"{_percent(by_fixed, st.replays)} of replays")
    return lines


def _stopping_json(stopping, *, seed):
    """Return the JSON object of plan --sequential."""
    st = stopping
    return {"replays": st.replays, "max_items": st.most, "seed": seed,
            "median": _stop_quantile(st, 0.5),
            "p90": _stop_quantile(st, 0.9),
            "never_stopped": st.replays - len(st.stops),
            "fixed_sample_items": st.fixed,
            "stopped_by_fixed": (sum(1 for x in st.stops if x <= st.fixed)
                                 if st.fixed else None)}


def _peeking_json(seen, *, seed, acc_a, corr):
    """Return the JSON object of simulate --peeking."""
    return {"replays": seen.replays, "n_items": seen.n_items, "seed": seed,
            "acc": acc_a, "corr": corr, "looks": seen.looks,
            "naive_excluded_zero": seen.naive,
            "naive_at_the_end_alone": seen.once,
            "sequence_excluded_zero": seen.sequence}


def _format_calibration(cal, *, alpha=0.05, binary=True):
    """Return the calibration table of simulate --intervals (binary) or
    --differences."""
    def share(count):
        return (f"{100 * (count / cal.replays):.1f}% ± "
                f"{100 * _mc_se(count, cal.replays):.1f}%")

    rows = [["interval", "covers the true gap", "CI above zero",
             "CI below zero"]]
    rows += [[name, share(cal.covered[name]), share(cal.above_zero[name]),
              share(cal.below_zero[name])] for name in cal.covered]
    rows += [["test", f"rejects at alpha {alpha:g}", "", ""]]
    rows += [[name, share(count), "", ""] for name, count in cal.rejected.items()]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    gap = f"{_pts(cal.gap)} pts" if binary else _decimal(cal.gap)
    lines = [f"calibration over {cal.replays} replays (true gap {gap}), "
             f"each with its Monte Carlo s.e.:"]
    lines += ["  " + "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()
              for r in rows]
    if not cal.gap:
        lines.append("the true gap is 0: above + below zero is each "
                     "interval's false-positive rate")
    return "\n".join(lines)


def _calibration_json(cal):
    """Return the JSON object of a _Calibration."""
    return {"replays": cal.replays, "gap": float(cal.gap),
            "intervals": {name: {"covered": cal.covered[name],
                                 "above_zero": cal.above_zero[name],
                                 "below_zero": cal.below_zero[name]}
                          for name in cal.covered},
            "tests": dict(cal.rejected)}


def _simulation_json(result, cov, *, seed, resamples, acc_a, acc_b):
    """Return the JSON object of a simulate run."""
    true_a, true_b = _exact(acc_a), _exact(acc_b)
    out = {"n_items": result.n_items, "seed": seed, "resamples": resamples,
           "true": {"a": float(true_a), "b": float(true_b),
                    "gap": float(true_b - true_a)}}
    out.update(_metric_json(result))
    if cov is not None:
        out["coverage"] = cov._asdict()
    return out


class _Units(NamedTuple):
    """How one metric's values print, the same in every line of a report:
    a 0/1 metric's means as percentages and its differences as points,
    any other metric in its own units; *places* decimals throughout (see
    _units)."""
    binary: bool
    places: int
    digits: "int | None" = None   # scientific notation, this many digits
                                  # after the point (values past 1e9 or
                                  # below 1e-4)

    def value(self, x, sign=False):
        """Return x in these units: '+6.7', '258.5', '-0.0', '1.23e+300'."""
        if self.digits is not None:
            return (f"{float(x):{'+' if sign and x else ''}.{self.digits}e}"
                    if math.isfinite(float(x)) else f"{float(x)}")
        x = _exact(x) if isinstance(x, float) else Fraction(x)
        return _fixed(x * 100 if self.binary else x, self.places, sign=sign)

    def mean(self, x):
        """Return a mean: '57.9%' of a 0/1 metric, else '258.5'."""
        return self.value(x) + "%" * self.binary

    def gap(self, x, sign=True):
        """Return a difference: '+6.7 pts' of a 0/1 metric, else '-11.7';
        unsigned with *sign* False (a size, a margin, a standard error)."""
        return self.value(x, sign) + " pts" * self.binary

    def span(self, interval, sign=True):
        """Return an interval's ends: '[-0.6, +13.9]'; 'no spread' where
        they meet (every value, or every difference, the same), which an
        interval of no width would claim as certainty."""
        if interval.lo == interval.hi:
            return "no spread"
        return (f"[{self.value(interval.lo, sign)}, "
                f"{self.value(interval.hi, sign)}]")

    def span_words(self, interval):
        """Return an interval of differences for a sentence:
        '[-0.6, +13.9] pts' of a 0/1 metric."""
        if interval.lo == interval.hi:
            return "none: no spread"
        return self.span(interval) + " pts" * self.binary


def _units(binary, intervals, values=()):
    """Return the _Units of a metric whose report shows these intervals
    (and values): two significant digits of the narrowest interval with
    width, as measurements are quoted (JCGM 100:2008, 7.2.6), so that a
    mean and its interval end at the same decimal place; without any
    width, four significant digits of the largest value.  A 0/1 metric
    keeps at least one decimal of a point.

    >>> _units(True, [Interval(-0.006, 0.139)]).places
    1
    >>> u = _units(False, [Interval(-25.91, 2.481)])
    >>> u.places, u.span(Interval(-25.91, 2.481)), u.value(258.46)
    (0, '[-26, +2]', '258')
    >>> _units(False, [Interval(0.4, 0.4)], [0.8125]).places
    4
    """
    unit = 100 if binary else 1
    intervals = [ci for ci in intervals if ci is not None]
    widths = [abs(float(ci.hi) - float(ci.lo)) * unit for ci in intervals]
    widths = [w for w in widths if w > 0 and math.isfinite(w)]
    sizes = [abs(float(x)) * unit for x in list(values) + [
        end for ci in intervals for end in ci] if x is not None]
    top = max([x for x in sizes if x > 0 and math.isfinite(x)], default=0)
    if widths:
        places = 1 - math.floor(math.log10(min(widths)))
    else:
        places = 3 - math.floor(math.log10(top)) if top else 1
    if not binary and top and not 1e-4 <= top < 1e9:
        return _Units(binary, 0, max(1, min(
            math.floor(math.log10(top)) + places - 1, 15)))
    return _Units(binary, max(1 if binary else 0, min(places, 12)))


def _units_of(r):
    """Return the _Units of one _MetricResult's report: from its paired
    interval, else its means."""
    return _units(r.kind == "binary" or r.share, [r.ci_paired], [r.a, r.b])


def _at_limit(r, resamples):
    """Return True where a resampled p is the least *resamples* can give,
    1 / (resamples + 1): no resample was as extreme, and the p is a bound."""
    return bool(resamples) and r.test.endswith(
        ("monte carlo", "randomization")) and r.p == Fraction(
            1, resamples + 1)


def _p_cell(r, resamples=None):
    """Return a table's p: '<= 0.0004998' at the resampling limit."""
    return ("<= " if _at_limit(r, resamples) else "") + _p_text(r.p)


def _p_words(r, resamples=None):
    """Return 'p = X', or 'p <= X' with why where X is the least p the
    resamples can give."""
    if _at_limit(r, resamples):
        return (f"p <= {_p_text(r.p)}, the least {resamples} resamples can "
                f"give")
    return f"p = {_p_text(r.p)}"


def _sentence(r, j, *, confidence, resamples=None):
    """Return the plain-words verdict on one metric, its details below
    it: --verbose's words (see _sentence_parts)."""
    head, margin, details, sizing = _sentence_parts(r, j, confidence,
                                                    resamples)
    return "\n  ".join([head] + [margin] * bool(margin) + details
                        + [sizing])      # the verdict first, the rest below


def _adjusted_p(j):
    """Return the adjusted p a _Judgement's verdict follows."""
    return j.p_holm if j.p_adjusted is None else j.p_adjusted


def _adjusted_words(adjust):
    """Return how --adjust adjusted a family's p-values, in words.

    >>> _adjusted_words("holm"), _adjusted_words("bh")
    ('Holm-adjusted', 'BH-adjusted (Benjamini-Hochberg)')
    """
    label = _ADJUST_LABELS[adjust]
    if adjust == "none":
        return "not adjusted"
    return f"{label}-adjusted" + (f" ({_ADJUST_NAMES[adjust]})"
                                  if adjust != "holm" else "")


def _adjust_note(adjust, family):
    """Return the line under compare's table saying how its p-values were
    adjusted across *family*; Holm's as it always read."""
    if adjust == "holm":
        return (f"p (Holm): each p adjusted across {family}, the verdicts "
                f"decided on it")
    if adjust == "none":
        return (f"p: not adjusted across {family}, each verdict decided on "
                f"its own p")
    held = ("for independent or positively dependent tests" if adjust == "bh"
            else "under any dependence")
    return (f"p ({_ADJUST_LABELS[adjust]}): each p "
            f"{_adjusted_words(adjust)} across {family}, the verdicts "
            f"decided on it: the expected share of wrong calls among the "
            f"calls made (the false discovery rate) is held at alpha {held}, "
            f"not the chance of any wrong call (--adjust holm)")


def _sentence_parts(r, j, confidence, resamples=None):
    """Return (the verdict line, the margin's sentence or None, the detail
    sentences, the sizing sentence) of one metric: the verdict with its
    interval and test; non-inferiority at --margin; the discordant pairs
    and the unpaired and score intervals, or the clustered standard
    error; and what an eval of this size detects."""
    u = _units_of(r)
    level = _decimal(_exact(confidence) * 100) + "%"
    ci = u.span_words(r.ci_paired)
    if r.method == "prediction-powered":
        ci += f" by {r.paired_method}"
    elif r.paired_method:
        ci += f" by {r.paired_method}" + (
            "" if r.df is None else f", {_df_words(r.df)}")
    elif r.method == "saddlepoint":
        ci += " by saddlepoint"
    gap = u.gap(r.gap)
    verdict = _verdict_words(j)
    if j.verdict in ("better", "worse"):
        head = (f"the candidate is {verdict}: {gap} ({level} CI {ci}), "
                f"{_p_words(r, resamples)} ({r.test}), " + (
                    "not adjusted" if j.adjust == "none" else
                    f"{_p_text(_adjusted_p(j))} after "
                    f"{_ADJUST_NAMES[j.adjust]}"))
    elif j.verdict == "non-inferior":
        head = (f"{verdict} within the margin of "
                f"{u.gap(j.margin, sign=False)}: {gap} "
                f"({level} CI {ci}); not shown better "
                f"({_p_words(r, resamples)}, {r.test})")
    else:
        head = (f"{verdict}: {gap} ({level} CI {ci}), "
                f"{_p_words(r, resamples)} ({r.test})")
    margin = None if j.margin is None else _margin_words(r, j, u)
    parts = []
    if r.mcnemar:
        m = r.mcnemar
        wins = ((m.b_only, m.a_only) if r.direction == "higher"
                else (m.a_only, m.b_only))
        unpaired = ("Discordant" if r.ci_unpaired is None else
                    f"Unpaired CI {u.span_words(r.ci_unpaired)}; discordant")
        parts.append(f"{unpaired} pairs: the candidate is better on "
                     f"{_items(wins[0])}, the baseline on {wins[1]}; "
                     f"McNemar exact p={_p_text(m.p_exact)}, "
                     f"mid-p={_p_text(r.mid_p)}; Newcombe score CI "
                     f"{u.span_words(r.score_ci)}"
                     + ("" if r.boot_ci is None else
                        f"; paired bootstrap CI {u.span_words(r.boot_ci)}")
                     + ".")
    elif r.ci_unpaired is not None:      # None: shares of one verdict
        parts.append(f"Unpaired CI {u.span_words(r.ci_unpaired)}.")
    if r.clusters is not None:
        parts.append(f"Clustered standard error {u.gap(r.se, sign=False)} "
                     f"over {r.clusters} clusters.")
    return (f"{r.metric}: {head}.", margin, parts,
            _detection_words(r, j.detection, gap, u))


def _verdict_words(j):
    """Return the verdict with what qualifies it, as the table shows it."""
    words = j.verdict
    if j.verdict == "worse" and j.non_inferior:
        words += ", yet non-inferior"
    if j.caution:
        words += f" ({j.caution})"
    return words


def _margin_words(r, j, u):
    """Return the sentence on the non-inferiority margin, in the metric's
    units (_Units *u*) and direction."""
    sign = "-" if r.direction == "higher" else "+"
    bound = sign + u.gap(j.margin, sign=False)
    if j.margin_ci is None:
        return (f"Non-inferiority within the margin ({bound}) is not "
                f"judged: the paired differences have no spread.")
    span = u.span_words(j.margin_ci)
    side = "above" if r.direction == "higher" else "below"
    if j.non_inferior:
        return (f"Non-inferior: the {j.margin_method} {span} stays {side} "
                f"the margin {bound}.")
    return (f"Not shown non-inferior: the {j.margin_method} {span} does not "
            f"stay {side} the margin {bound}.")


def _detection_words(r, found, gap, u):
    """Return the sentence on what the eval's size detects."""
    size = (_items(r.n_items) if r.clusters is None
            else f"{_items(r.n_items)} in {r.clusters} clusters")
    if found.mde is None:
        return f"With {size}: {found.why}."
    how = (" at the observed discordance (McNemar exact)"
           if found.method == "McNemar exact" else "")
    words = (f"With {size} this eval detects a difference of about "
             f"{u.gap(found.mde, sign=False)} with "
             f"{_decimal(_exact(found.power) * 100)}% power{how}")
    if found.items_needed and r.method != "prediction-powered":
        words += (f"; detecting {gap} would take about "
                  f"{found.items_needed} items")
    elif found.why:
        words += f"; {found.why}"
    return words + "."


def _rows(results, judgements, confidence, resamples=None):
    """Return the table rows of compare's report, a row per metric."""
    level = _decimal(_exact(confidence) * 100) + "%"
    adjust = judgements[0].adjust if judgements else "holm"
    adjusted = (any(j.family_size > 1 for j in judgements)
                and adjust != "none")
    rows = [["metric", "type", "baseline", "candidate", "difference",
             f"{level} CI (paired)", "p"]
            + [f"p ({_ADJUST_LABELS[adjust]})"] * adjusted + ["verdict"]]
    for r, j in zip(results, judgements):
        u = _units_of(r)
        rows.append([
            r.metric + ("" if r.direction == "higher" else " (lower better)"),
            r.kind, f"{u.mean(r.a)} {u.span(r.ci_a, False)}",
            f"{u.mean(r.b)} {u.span(r.ci_b, False)}", u.gap(r.gap),
            u.span(r.ci_paired), _p_cell(r, resamples)]
            + [_p_text(_adjusted_p(j))] * adjusted + [_verdict_words(j)])
    return rows


def _header(names, n_items, dropped, clusters=None):
    """Return compare's first line: the two runs, the items, the clusters and
    the ids left out."""
    line = (f"baseline: {names[0]}   candidate: {names[1]}   "
            f"{_items(n_items)}")
    if clusters is not None:
        line += f" in {clusters} clusters"
    if dropped:
        line += f" ({dropped} ids in one run only, left out)"
    return line


def _format_compare(run, options, markdown=False):
    """Return the text (or markdown) report of compare (a judged
    _Compared): table, words.

    Its reading holds lines on how the files were read (epochs averaged,
    filters), shown under the header.  With --by, its subsets, (label,
    _MetricResult) pairs, and their _Judgements are a table after the
    overall report.  With the _PreferenceCounts of a preference file, its
    figures follow the words.
    """
    results, judgements, subsets = run.results, run.judgements, run.subsets
    confidence, resamples = options.confidence, options.resamples
    by, alpha = options.by, options.alpha
    preferences = run.preferences
    head = _compare_head(run, options)
    words, notes = (_verbose_words if options.verbose else _words)(
        run, options)
    mark = _markdown if markdown else str
    read = [f"read: {line}" for line in run.reading]
    if markdown:                 # the read: lines a list, not one paragraph
        lines = [mark(head), ""] + [f"- {mark(line)}" for line in read]
        lines += [""] * bool(read)
    else:
        lines = [head] + read
    lines += _table(_rows(results, judgements, confidence, resamples),
                    markdown)
    if any(j.family_size > 1 for j in judgements):
        lines += [""] * markdown + [mark(_adjust_note(
            judgements[0].adjust, judgements[0].family))]
    lines += [""]
    for w in words:                  # markdown: the rest as nested items
        first, *rest = w.split("\n  ")
        lines += [("- " if markdown else "") + mark(first)] + [
            ("  - " if markdown else "  ") + mark(x) for x in rest]
    if preferences is not None:          # the judge's, where corrected
        lines += [("- " if markdown else "") + mark(w) for w in
                  _preference_lines(preferences, run.checks[0].judged
                                    if run.checks else results[0],
                                    confidence, bool(run.checks))]
    if notes:
        lines += (["", "Notes:"] if markdown else ["notes:"])
        lines += [("- " if markdown else "  ") + mark(n) for n in notes]
    if by is not None:
        lines += [""] + _subset_lines(by, subsets, run.subset_judgements,
                                      confidence, alpha, markdown,
                                      {r.metric: _units_of(r)
                                       for r in results})
    return "\n".join(lines)


def _compare_head(run, options):
    """Return compare's first line (_header), with the macro average and
    the judge's correction said."""
    results, subsets = run.results, run.subsets
    head = _header(run.names, results[0].n_items, run.dropped,
                   results[0].clusters)
    if options.macro:
        head += (f"; overall: the macro average over the "
                 f"{len({label for label, _ in subsets})} {options.by} "
                 f"subsets")
    if run.checks:
        head += (f"; the judge's scores corrected by human scores on "
                 f"{_items(run.checks[0].gap.labels)} (prediction-powered)")
        if run.checks[0].strata:
            field, strata = run.checks[0].strata
            head += f" in each of {len(strata)} {field} strata"
    return head


def _verbose_words(run, options):
    """Return (words, notes) of compare --verbose: each metric's verdict
    with every detail below it, its churn, and each note per metric."""
    results, judgements = run.results, run.judgements
    confidence = options.confidence
    words = [_sentence(r, j, confidence=confidence,
                       resamples=options.resamples)
             for r, j in zip(results, judgements)]
    for k, check in enumerate(run.checks):
        words[k] += "".join("\n  " + line for line in _judge_lines(
            results[k], judgements[k], check, run.as_judged[k], options))
    for k, q in enumerate(run.sequential):
        words[k] += "\n  " + _sequential_words(results[k], q, confidence)
    words += [_equivalence_words(r, j, options.alpha) for r, j
              in zip(results, judgements) if j.equivalence is not None]
    words += [_churn_words(r, confidence) for r in results
              if r.mcnemar is not None and r.ci_unpaired is not None]
    notes = [f"{r.metric}: {note}" for r, j in zip(results, judgements)
             for note in j.notes + (_macro_notes(r, run.subsets)
                                    if options.macro else [])]
    return words, notes + _judge_notes(run)


def _words(run, options):
    """Return (words, notes) of compare's report: one verdict line per
    metric (with its margin, anytime-valid and sizing sentences), and
    each note, or sizing sentence, that several metrics share said once
    for all of them; the details behind a verdict (unpaired and score
    intervals, discordant pairs, churn) are --verbose's."""
    results, judgements = run.results, run.judgements
    parts = [_sentence_parts(r, j, options.confidence, options.resamples)
             for r, j in zip(results, judgements)]
    sizing = [size for *_, size in parts]
    shared = {size for size in sizing if sizing.count(size) > 1}
    words, hidden = [], False
    for k, (r, (head, margin, details, size)) in enumerate(zip(results,
                                                               parts)):
        lines = [head] + [margin] * bool(margin)
        if k < len(run.sequential):
            lines.append(_sequential_words(r, run.sequential[k],
                                           options.confidence))
        if k < len(run.checks):
            lines += _judge_lines(r, run.judgements[k], run.checks[k],
                                  run.as_judged[k], options)
        words.append("\n  ".join(lines + [size] * (size not in shared)))
        hidden = hidden or bool(details)
    words += [_equivalence_words(r, j, options.alpha) for r, j
              in zip(results, judgements) if j.equivalence is not None]
    said = {}                        # a note (or sizing) to its metrics
    for r, j, size in zip(results, judgements, sizing):
        for note in j.notes + (_macro_notes(r, run.subsets) if options.macro
                               else []) + [size[0].lower() + size[1:]] * (
                                   size in shared):
            said.setdefault(note, []).append(r.metric)
    everyone = len(results) > 1
    notes = [(f"all {len(results)} metrics" if everyone and len(names)
              == len(results) else ", ".join(names)) + f": {note}"
             for note, names in said.items()] + _judge_notes(run)
    if hidden:
        words.append("(--verbose: the detail behind each verdict, such as "
                     "the unpaired interval, discordant pairs and churn)")
    return words, notes


def _judge_lines(r, j, check, as_judged, options):
    """Return the lines of a judge-corrected metric under its verdict:
    the judge's figures alone and the humans' alone, the judge's bias and
    agreement, the labels' worth, and the finding where correcting
    changed the verdict."""
    u = _units_of(r)
    level = _decimal(_exact(options.confidence) * 100) + "%"

    def span(ci):
        return u.span_words(Interval(_exact(ci.lo), _exact(ci.hi)))
    judged, gap = check.judged, check.gap
    lines = []
    if as_judged != j.verdict:
        lines.append(f"Finding: {as_judged} as judged; {j.verdict} after "
                     f"correction by the human labels.")
    lines.append(f"As judged (the judge's scores of all {_items(r.n_items)} "
                 f"taken as the truth): {u.gap(judged.gap)} ({level} CI "
                 f"{span(judged.ci_paired)}), {as_judged}.")
    if check.human is not None:
        h = check.human
        lines.append(f"Humans alone (the {_items(h.n_items)} labelled for "
                     f"both): {u.gap(h.gap)} ({level} CI "
                     f"{span(h.ci_paired)}).")
    words = []
    for name, (mean, ci) in zip(("the baseline's", "the candidate's",
                                 "on the gap"), check.bias):
        words.append(f"{name} {u.gap(_exact(mean))}"
                     + (f" {span(ci)}" if ci is not None else ""))
    lines.append(f"The judge's bias (judge minus human, {level} CI): "
                 f"{', '.join(words[:2])}; {words[2]}.")
    finding = _audit_finding(check, u, level, span)
    if finding:
        lines.insert(int(as_judged != j.verdict), finding)
    if check.audit and options.verbose:
        lines.append("Agreement, both systems' labelled answers (" + level
                     + " CI, jackknife over items): " + "; ".join(
                         f"{a.name} {a.value:.2f}" + (
                             f" [{a.ci.lo:.2f}, {a.ci.hi:.2f}]" if a.ci
                             else "") for a in check.audit) + ".")
    if check.agreement:
        said = [f"{name} sensitivity {_share_text(g.sensitivity)}, "
                f"specificity {_share_text(g.specificity)}, Cohen's kappa "
                f"{_share_text(g.kappa)}"
                for name, g in zip(("the baseline's", "the candidate's"),
                                   check.agreement)]
        lines.append(f"Agreement with the human labels: {said[0]}; "
                     f"{said[1]}.")
    if check.covariate is not None:
        lines.append(_covariate_line(check.covariate, u, level, span))
    if check.strata:
        lines.append(_strata_line(check.strata, u))
    lines.append(f"{_items(gap.labels, 'human label')} and "
                 f"{gap.unlabelled:,} judge scores give {_worth(gap)} ("
                 + ("PPI++ weight tuned in each stratum" if check.strata
                    else "PPI++ weight tuned in each subset"
                    if gap.weight is None else
                    f"PPI++ weight {gap.weight:.2f}: 1 trusts the judge as "
                    f"PPI does, 0 sets it aside") + ").")
    if j.verdict not in ("better", "worse") and gap.estimate and \
            gap.moments:
        needed = check.needed
        power = _decimal(_exact(options.power) * 100)
        lines.append(
            f"Detecting {u.gap(_exact(gap.estimate))} with {power}% power "
            + (f"would take about {needed:,} human labels of these "
               f"{r.n_items:,} items, at this judge's agreement."
               if needed else f"would take more labels than the "
               f"{r.n_items:,} items have."))
    return lines


# Landis and Koch (1977, "The measurement of observer agreement for
# categorical data", Biometrics 33:159-174): the words for a kappa's size.
_AGREES = ((0.0, "no better than chance"), (0.2, "slightly"),
           (0.4, "fairly"), (0.6, "moderately"), (0.8, "substantially"),
           (1.01, "almost perfectly"))


def _audit_finding(check, u=None, level="95%", span=None):
    """Return the judge audit's one finding line: how well the judge
    agrees with the humans (Cohen's kappa on 0/1 scores, the quadratic
    kappa on a scale) in Landis and Koch's words, with its interval, and
    the judge's bias on the gap; None without an audit.  Without units
    *u* the line is in plain numbers (JSON)."""
    head = next((a for a in check.audit if a.name == "quadratic kappa"),
                check.audit[0] if check.audit else None)
    if head is None:
        return None
    word = next(w for top, w in _AGREES if head.value < top)
    mean, ci = check.bias[2]
    bias = (u.gap(_exact(mean)) + (f" {span(ci)}" if ci else "")
            if u else f"{mean:+.4g}" + (f" [{ci.lo:.4g}, {ci.hi:.4g}]"
                                        if ci else ""))
    lean = ("favours the candidate" if mean > 0 else "favours the baseline"
            if mean < 0 else "favours neither system")
    return (f"The judge agrees with the humans {word} ({head.name} "
            f"{head.value:.2f}" + (f" [{head.ci.lo:.2f}, {head.ci.hi:.2f}]"
                                   if head.ci else "")
            + f") and {lean} by {bias} ({level} CI).")


def _worth(c):
    """Return what a _Corrected's labels and judge scores are worth."""
    return (f"the precision of about {round(c.effective):,} labels alone"
            if c.effective else "no more precision than the labels alone")


def _covariate_line(c, u, level, span):
    """Return the report's line of a _Covariate (--judge-covariate)."""
    per = u.gap(_exact(c.slope * c.sd))
    ci = (f"{level} CI {span(Interval(c.ci.lo * c.sd, c.ci.hi * c.sd))}"
          if c.ci else "too few items for an interval")
    differ = (f"[{c.gap_ci.lo:+.4g}, {c.gap_ci.hi:+.4g}]" if c.gap_ci
              else "no interval")
    return (f"The judge's error (judge minus human) against {c.name}: "
            f"{per} per SD of {c.name} ({c.sd:.4g}; {ci}), over "
            f"{c.answers:,} labelled answers; the candidate's {c.name} "
            f"less the baseline's is {c.gap:+.4g} {differ}, so about "
            f"{u.gap(_exact(c.implied))} of the judge's gap goes with "
            f"{c.name}.")


def _strata_line(strata, u):
    """Return the report's line of a stratified correction (--strata):
    the method, and each stratum's items, labels, weight and gap."""
    field, rows = strata
    total = sum(r.items for r in rows)
    return (f"Stratified by {field} (stratified PPI, Fisch et al. 2024: "
            f"each stratum corrected on its own items, weighed by its share "
            f"of all the items): " + "; ".join(
                f"{r.label} {_items(r.items)} ({_percent(r.items, total)}), "
                f"{r.labels:,} labelled ({_percent(r.labels, r.items)}), "
                f"gap {u.gap(_exact(r.gap.estimate))}" for r in rows) + ".")


def _share_text(x):
    """Return a share to two decimals, or 'none' where there is none."""
    return "none" if x is None else f"{float(x):.2f}"


def _judge_notes(run):
    """Return the notes of a judge-corrected comparison, said once: what
    the correction assumes, and where the labelled items look unlike the
    rest."""
    if not run.checks:
        return []
    strata = run.checks[0].strata
    notes = ["judge-corrected figures take the human-labelled items to be "
             "a random sample of the items (prediction-powered inference "
             "is unbiased only then)" if not strata else
             f"judge-corrected figures take the human-labelled items of "
             f"each {strata[0]} stratum to be a random sample of its items "
             f"(stratified prediction-powered inference is unbiased only "
             f"then)"]
    notes += [f"{r.metric}: the labelled items' judge scores differ from "
              f"the others' (z = {c.drift:+.1f}): labels not drawn at "
              f"random would bias the correction"
              for r, c in zip(run.results, run.checks) if c.drift]
    small = {}
    for r, c in zip(run.results, run.checks):
        if c.gap.df is None:
            continue
        why = (f"fewer than {_PPI_CLT_LEAST} clusters hold a human label, "
               f"so Student's t on their count - 1 degrees of freedom"
               if c.gap.clusters else
               f"a stratum has fewer than {_PPI_CLT_LEAST} human labels, "
               f"or few that the judge got wrong, so Student's t on the "
               f"strata's Welch-Satterthwaite degrees of freedom"
               if c.strata else
               f"a subset has fewer than {_PPI_CLT_LEAST} human labels, so "
               f"Student's t on the subsets' Welch-Satterthwaite degrees "
               f"of freedom" if c.gap.weight is None else
               f"fewer than {_PPI_CLT_LEAST} human labels, or few that the "
               f"judge got wrong, so Student's t on the two parts' "
               f"variances (Welch-Satterthwaite degrees of freedom, the "
               f"labels' from their fourth moment)")
        small.setdefault(why, []).append(r.metric)
    notes += [f"{', '.join(names)}: {why}, not the normal interval"
              for why, names in small.items()]
    return notes


def _percent(count, total):
    """Return count / total as a percentage to one decimal: '47.9%'."""
    return f"{_fixed(Fraction(100 * count, total), 1)}%"


def _sequential_words(r, q, confidence):
    """Return the sentence of an anytime-valid comparison."""
    level = _decimal(_exact(confidence) * 100) + "%"
    span = _units_of(r).span_words(Interval(_exact(q.ci.lo),
                                            _exact(q.ci.hi)))
    when = (f"its test rejected no difference at {q.unit} {q.stopped_at} "
            f"of {q.n_items} (the candidate {q.direction}): the eval could "
            f"have stopped there" if q.stopped_at else f"its test never "
            f"rejected no difference in {_items(q.n_items, q.unit)}")
    return (f"Anytime-valid, however often you looked: the {level} "
            f"confidence sequence ends at {span}; {when}; anytime p = "
            f"{_p_text(q.p)} ({q.method}); it assumes the {q.unit}s' order "
            f"(the files') was fixed before their outcomes were seen"
            + (", and the values lie within the bounds" if q.method.startswith(
                "betting") else "") + ".")


def _equivalence_words(r, j, alpha):
    """Return the sentence of a metric's two one-sided tests."""
    e = j.equivalence
    u = _units_of(r)
    bound = u.gap(e.margin, sign=False)
    if e.ci is None:
        return (f"{r.metric}: equivalence within +-{bound} cannot be "
                f"judged: {e.method}.")
    level = _decimal((1 - 2 * _exact(alpha)) * 100) + "%"
    span = u.span_words(Interval(_exact(e.ci.lo), _exact(e.ci.hi)))
    where = {"equivalent": "lies inside", "not equivalent": "lies beyond",
             "cannot tell": "reaches past"}[e.verdict]
    return (f"{r.metric}: {e.verdict} within +-{bound}: the {level} "
            f"{e.method} {span} {where} the margins (two one-sided tests "
            f"at alpha {float(alpha):g}, Schuirmann 1987).")


def _churn(r, confidence=CONFIDENCE):
    """Return ((improved, Interval), (regressed, Interval)) of a binary
    _MetricResult: the items on which the candidate alone was right (or,
    lower being better, alone was not 1) and those on which it alone was
    wrong, with intervals of their shares of the items that hold together:
    each exact (Clopper-Pearson) at 1 - (1 - confidence) / 2, so that both
    cover at once with at least *confidence* (Bonferroni)."""
    m = r.mcnemar
    up, down = ((m.b_only, m.a_only) if r.direction == "higher"
                else (m.a_only, m.b_only))
    each = 1 - (1 - _exact(confidence)) / 2
    return tuple((k, _clopper_pearson(k, r.n_items, each))
                 for k in (up, down))


def _churn_words(r, confidence):
    """Return the churn line of a binary metric."""
    (up, up_ci), (down, down_ci) = _churn(r, confidence)
    level = _decimal(_exact(confidence) * 100) + "%"

    def share(k, ci):
        return (f"{_fixed(Fraction(100 * k, r.n_items), 1)}%, {level} CI "
                f"[{_fixed(ci.lo * 100, 1)}, {_fixed(ci.hi * 100, 1)}]%")
    return (f"{r.metric} churn: the candidate gained {_items(up)} "
            f"({share(up, up_ci)}) and lost {down} ({share(down, down_ci)}) "
            f"of {r.n_items}, the two intervals holding together; McNemar "
            f"exact p = {_p_text(r.mcnemar.p_exact)}.")


def _sequential_json(q):
    """Return the JSON object of a _Sequential."""
    return {"method": q.method, "ci": [float(q.ci.lo), float(q.ci.hi)],
            "stopped_at": q.stopped_at, "direction": q.direction,
            "p": float(q.p), "p_text": _p_text(q.p), "n_items": q.n_items,
            "unit": q.unit}


def _win_interval(r):
    """Return the win rate's interval from a preference result's paired one:
    the difference of the shares is 2 x win rate - 1."""
    return Interval(*((1 + _exact(x)) / 2 for x in r.ci_paired))


def _preference_lines(c, r, confidence, judged=False):
    """Return the lines of a pair's _PreferenceCounts: the win rate with its
    interval (from the paired result r) and the counts behind it; *judged*:
    they are the judge's, beside a correction by human verdicts."""
    level = _decimal(_exact(confidence) * 100) + "%"
    lo, hi = _win_interval(r)
    decisive = c.wins + c.losses
    lines = [
        ("as judged, " if judged else "")
        + f"win rate of {c.b} against {c.a}: {_fixed(c.win_rate * 100, 2)}% "
        f"({level} CI [{_fixed(lo * 100, 2)}, {_fixed(hi * 100, 2)}]%, ties "
        f"as half; standard error {c.se * 100:.4g} pts, of the mean share "
        f"as AlpacaEval gives it); {_items(c.wins, 'win')}, "
        f"{c.losses} loss{'es' * (c.losses != 1)}, "
        f"{_items(c.ties, 'tie')} ({_percent(c.ties, c.n)}) of "
        f"{_items(c.n)}; sign test on the {decisive} decisive verdicts: "
        f"p = {_p_text(c.sign_p)}"
        + (" (the standard error and the sign test take the items as "
           "independent; the table's interval and test resample the "
           f"{r.clusters} clusters)" if r.clusters is not None else "")
        + "."]
    if c.discrete != c.win_rate:
        lines.append(f"each verdict taken whole (a share above one half a "
                     f"win): win rate {_fixed(c.discrete * 100, 2)}%.")
    if c.games:
        lines.append(f"position: the first position won {c.first_won} of "
                     f"the {c.games} decisive games ("
                     f"{_percent(c.first_won, c.games)}); {c.flipped} of "
                     f"{c.n} verdicts changed with the position.")
    lines.append("(the table's difference is the candidate's win rate less "
                 "the baseline's: 2 x win rate - 1)")
    return lines


def _preference_json(c, r):
    """Return the JSON object of a pair's _PreferenceCounts."""
    lo, hi = _win_interval(r)
    out = {"a": c.a, "b": c.b, "n_items": c.n, "win_rate": float(c.win_rate),
           "ci": [float(lo), float(hi)], "standard_error": c.se,
           "wins": c.wins, "losses": c.losses, "ties": c.ties,
           "discrete_win_rate": float(c.discrete),
           "sign_test_p": float(c.sign_p)}
    if c.games:
        out.update(decisive_games=c.games, first_position_won=c.first_won,
                   changed_with_position=c.flipped)
    return out


def _macro_notes(r, subsets):
    """Return the caution of a macro average whose subsets are too small
    for its stratified bootstrap: a subset of one item is resampled into
    itself, so the interval says nothing of its spread."""
    small = sorted(label for label, s in subsets
                   if s.metric == r.metric and s.n_items < 2)
    if not small:
        return []
    return [f"the macro interval cannot see the spread within "
            f"{_items(len(small), 'subset')} of one item ({_some(small)}): "
            f"their stratified resamples are the item itself, so it is too "
            f"narrow; read the test, not the interval"]


def _table(rows, markdown):
    """Return the lines of a table: aligned text, or markdown."""
    if markdown:
        table = ["| " + " | ".join(map(_markdown, row)) + " |"
                 for row in rows]
        table.insert(1, "|" + "---|" * len(rows[0]))
        return table
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return ["  ".join(cell.ljust(w) for cell, w in zip(row, widths)).rstrip()
            for row in rows]


def _subset_lines(by, subsets, judgements, confidence, alpha, markdown,
                  units=None):
    """Return the lines of the per-subset table and its flags; each
    metric's values in its overall result's _Units, where *units* has
    them."""
    adjust = judgements[0].adjust if judgements else "holm"
    rows = _subset_rows(by, subsets, judgements, confidence, units)
    gap = [""] * markdown                # markdown: blocks apart
    family = judgements[0].family if judgements else ""
    lines = [f"by {by}: {len({label for label, _ in subsets})} subsets, "
             f"each p {_adjusted_words(adjust)} across {family}"] + gap + \
        _table(rows, markdown)
    small = sorted({label for label, r in subsets if r.n_items < 20})
    if small:
        lines += gap + [f"fewer than 20 items, so rough: {_some(small)}"]
    before = [f"{r.metric} in {label}" for (label, r), j
              in zip(subsets, judgements)
              if float(r.p) < alpha <= _adjusted_p(j)]
    if before:
        lines += gap + [f"significant before {_ADJUST_NAMES[adjust]}'s "
                        f"adjustment only: {_some(before)}"]
    return [_markdown(line) if markdown and not line.startswith("|")
            else line for line in lines]


def _subset_rows(by, subsets, judgements, confidence, units=None):
    """Return the rows of the per-subset table (see _subset_lines)."""
    level = _decimal(_exact(confidence) * 100) + "%"
    adjust = judgements[0].adjust if judgements else "holm"
    shown = adjust != "none"
    rows = [["metric", by, "items", "baseline", "candidate", "difference",
             f"{level} CI (paired)", "p"]
            + [f"p ({_ADJUST_LABELS[adjust]})"] * shown + ["verdict"]]
    units = dict(units or {})
    for _, r in subsets:                 # one metric prints one way
        if r.metric not in units:
            units[r.metric] = _units(r.kind == "binary", [
                x.ci_paired for _, x in subsets if x.metric == r.metric],
                [r.a, r.b])
    for (label, r), j in zip(subsets, judgements):
        u = units[r.metric]
        rows.append([r.metric, label, str(r.n_items), u.mean(r.a),
                     u.mean(r.b), u.gap(r.gap), u.span(r.ci_paired),
                     _p_text(r.p)] + [_p_text(_adjusted_p(j))] * shown
                    + [_verdict_words(j)])
    return rows


_MARKDOWN = {c: "\\" + c for c in "\\`*_[]|~#"}
_MARKDOWN.update({"<": "&lt;", ">": "&gt;", "&": "&amp;", "\n": " "})


def _markdown(text):
    """Return text that markdown shows as it is: no emphasis, no extra
    table column, no HTML.

    >>> print(_markdown("a|b *x* <b>"))
    a\\|b \\*x\\* &lt;b&gt;
    """
    return text.translate(str.maketrans(_MARKDOWN))


def _compare_json(run, options):
    """Return the JSON object of compare (a judged _Compared), with the
    settings that produced it; with --by, its per-subset results under
    "subsets"."""
    results, judgements, subsets = run.results, run.judgements, run.subsets
    resamples, interval = options.resamples, options.interval
    names, by, macro = run.names, options.by, options.macro
    out = _compare_entries(results, judgements, interval, resamples)
    if macro:
        for r, entry in zip(results, out):
            entry["notes"] = entry["notes"] + _macro_notes(r, subsets)
    if results and all(r.kind == "corpus" for r in results):
        interval = "percentile"      # --interval bca is for means (read:)
    report = {"n_items": results[0].n_items, "seed": options.seed,
              "resamples": resamples,
              "confidence": float(options.confidence),
              "alpha": float(options.alpha),
              "power": judgements[0].detection.power
              if judgements else _POWER, "interval": interval,
              "baseline": names[0], "candidate": names[1],
              "dropped_ids": run.dropped, "metrics": out}
    if by is not None:
        rows = _compare_entries([r for _, r in subsets],
                                run.subset_judgements, interval, resamples)
        for (label, r), row in zip(subsets, rows):
            row.update(subset=label, n_items=r.n_items)
        report.update(by=by, subsets=rows,
                      overall="macro" if macro else "pooled")
    report["reading"] = run.reading
    for entry, q in zip(report["metrics"], run.sequential):
        entry["sequential"] = _sequential_json(q)
    for entry, check, verdict in zip(report["metrics"], run.checks,
                                     run.as_judged):
        entry["judge_corrected"] = _judge_json(check, verdict)
    if run.preferences is not None:      # the judge's, where corrected
        report["preferences"] = _preference_json(
            run.preferences, run.checks[0].judged if run.checks
            else results[0])
    return report


def _judge_json(check, as_judged):
    """Return the JSON object of a _JudgeCheck: the corrected means and
    gap with their weights and labels, the judge's figures alone and the
    humans' alone, the bias, the agreement and the drift."""
    def corrected(c):
        return {"estimate": c.estimate, "ci": [c.ci.lo, c.ci.hi], "p": c.p,
                "se": c.se, "weight": c.weight, "labels": c.labels,
                "unlabelled": c.unlabelled, "effective_labels": c.effective,
                "df": c.df}

    def alone(r):
        return r and {"a": float(r.a), "b": float(r.b),
                      "gap": float(r.gap), "n_items": r.n_items,
                      "ci": [float(r.ci_paired.lo), float(r.ci_paired.hi)],
                      "p": float(r.p), "test": r.test}
    return {
        "method": "PPI++ (Angelopoulos, Duchi and Zrnic 2023)",
        "a": corrected(check.a), "b": corrected(check.b),
        "gap": corrected(check.gap),
        "as_judged": dict(alone(check.judged), verdict=as_judged),
        "humans_alone": alone(check.human),
        "bias": {name: {"mean": mean, "ci": ci and [ci.lo, ci.hi]}
                 for name, (mean, ci) in zip(("a", "b", "gap"), check.bias)},
        "agreement": [{"sensitivity": g.sensitivity and float(g.sensitivity),
                       "specificity": g.specificity and float(g.specificity),
                       "kappa": g.kappa and float(g.kappa), "items": g.items}
                      for g in check.agreement],
        "agreement_audit": {
            "finding": _audit_finding(check),
            "method": "jackknife over the labelled items, Student's t "
                      "on items - 1 df",
            "statistics": [{"statistic": a.name, "value": a.value,
                            "ci": a.ci and [a.ci.lo, a.ci.hi]}
                           for a in check.audit]},
        "labelled_items_differ_z": check.drift,
        "labels_needed": check.needed,
        **({"strata": {
            "field": check.strata[0],
            "method": "stratified PPI++ (Fisch et al. 2024): each "
                      "stratum's PPI++ weighed by its share of all items",
            "strata": [{"stratum": r.label, "items": r.items,
                        "labels": r.labels, "share": float(r.share),
                        "weight": r.gap.weight,
                        "gap": corrected(r.gap)}
                       for r in check.strata[1]]}} if check.strata else {}),
        "covariate": check.covariate and {
            "name": check.covariate.name, "slope": check.covariate.slope,
            "ci": check.covariate.ci and list(check.covariate.ci),
            "sd": check.covariate.sd, "answers": check.covariate.answers,
            "gap": check.covariate.gap,
            "gap_ci": check.covariate.gap_ci and list(
                check.covariate.gap_ci),
            "implied_gap_bias": check.covariate.implied,
            "method": "least squares, standard error clustered by item "
                      "(CR1), Student's t on items - 1 df"}}


def _compare_entries(results, judgements, interval, resamples=None):
    """Return _compare_json's entry of each result."""
    entries = []
    for r, j in zip(results, judgements):
        kind = "percentile" if r.kind == "corpus" else interval  # as read:
        entry = {"metric": r.metric, "type": r.kind, "direction": r.direction,
                 "interval": kind, "method": r.method,
                 "paired_interval": (r.paired_method or "saddlepoint"
                                     if r.method == "saddlepoint"
                                     or r.paired_method else kind),
                 "system_interval": (
                     "Clopper-Pearson" if r.kind == "binary"
                     and r.clusters is None else "expanded percentile"
                     if r.paired_method == "expanded percentile" else
                     "saddlepoint" if r.method == "saddlepoint" else kind)}
        entry.update(_metric_json(r))
        entry["test"] = {"name": r.test, "p": float(r.p),
                         "p_holm": float(j.p_holm), "adjust": j.adjust,
                         "p_adjusted": float(_adjusted_p(j)),
                         "p_text": _p_text(r.p),     # survives underflow
                         "at_resampling_limit": _at_limit(r, resamples)}
        if r.mcnemar is None:
            del entry["mcnemar"]
        else:
            entry["mid_p"] = float(r.mid_p)
            entry["score_ci"] = [r.score_ci.lo, r.score_ci.hi]
            if r.boot_ci is not None:
                entry["bootstrap_ci"] = [float(x) for x in r.boot_ci]
        entry["se"] = r.se
        if r.clusters is not None:
            entry.update(clusters=r.clusters, clustered_se=r.se)
        if r.df is not None:            # the t interval's and test's
            entry["df"] = r.df
        found = j.detection
        entry.update(
            mde=None if found.mde is None else float(found.mde),
            items_needed=found.items_needed, sizing=found.method,
            sizing_note=found.why, margin=j.margin,
            non_inferior=j.non_inferior,
            margin_ci=j.margin_ci and [float(x) for x in j.margin_ci],
            margin_interval=j.margin_method, verdict=j.verdict,
            caution=j.caution, notes=j.notes)
        if j.equivalence is not None:
            e = j.equivalence
            entry["equivalence"] = {
                "margin": e.margin, "verdict": e.verdict, "method": e.method,
                "ci": e.ci and [float(e.ci.lo), float(e.ci.hi)]}
        if r.mcnemar is not None and r.ci_unpaired is not None:
            (up, up_ci), (down, down_ci) = _churn(r)
            entry["churn"] = {
                "gained": up, "lost": down,
                "gained_ci": [float(up_ci.lo), float(up_ci.hi)],
                "lost_ci": [float(down_ci.lo), float(down_ci.hi)]}
        entries.append(entry)
    return entries


class _Ranked(NamedTuple):
    """What rank found: the _Ranking and what its report shows with it."""
    ranking: object
    pairs: list = ()         # (first, second, _MetricResult) asked for
    judgements: list = ()    # ... and their _Judgements
    dropped: int = 0         # ids not in every run, left out
    reading: list = None     # read: lines (None: a subset's ranking)
    subsets: list = ()       # (label, _Ranked) with --by
    matrix: object = None    # preferences: the win-rate matrix
    corrected: object = None  # rank --human: (_CorrectedRatings, notes,
                              # _CorrectedTable)


def _corrected_lines(corrected, r, options):
    """Return (the heading, the finding, table rows) of rank --human."""
    found, _, t = corrected
    level = _decimal(_exact(options.confidence) * 100) + "%"
    order = sorted(range(len(r.names)), key=lambda k: -t.ratings[k])
    head = (f"ratings corrected by a human's verdicts on {found.labels:,} "
            f"of the {found.labels + found.unlabelled:,} battles "
            f"(prediction-powered Bradley-Terry, PPI++ weight "
            f"{found.weight:.2f}; the battles taken to be labelled at "
            f"random); " + ("the intervals hold all at once (max-t)"
                            if t.joint else "each interval normal, on its "
                            "own") + f", and the rank sets and top group "
            f"come from {t.draws:,} draws of the fit's normal law:")
    judged = r.names[max(range(len(r.names)), key=r.means.__getitem__)]
    group = [r.names[k] for k in order if t.top[k]]
    as_judged = [name for name, top in zip(r.names, r.top) if top]
    together = (" (no detectable order among them)" if len(group) > 1
                else "")
    if judged not in group:
        finding = (f"Finding: {judged} rates best as judged; after "
                   f"correction it is not in the top group "
                   f"({', '.join(group)})")
    elif set(group) == set(as_judged):
        finding = (f"the top group is the same after correction: "
                   f"{', '.join(group)}{together}")
    else:
        finding = (f"Finding: the top group as judged is "
                   f"{', '.join(as_judged)}; after correction it is "
                   f"{', '.join(group)}{together}")
    table = [["system", f"corrected rating [{level} CI]",
              f"rank ({level} joint set)", "top group", "as judged"]]
    ranks, anchor = _ranks(t.ratings), options.anchor
    table += [[r.names[k], f"{t.ratings[k]:.1f} (the anchor)"
               if anchor and r.names[k] == anchor[0] else
               f"{t.ratings[k]:.1f} [{t.cis[k].lo:.1f}, {t.cis[k].hi:.1f}]",
               f"{ranks[k]:g} ({t.rank_sets[k].lo:g}-"
               f"{t.rank_sets[k].hi:g})", "yes" if t.top[k] else "",
               f"{r.means[k]:.1f}"] for k in order]
    return head, finding, table


def _exact_words(r, order):
    """Return rank's clauses on what the exact pairwise tests added to the
    bootstrap's top group and rank sets (_ExactRanks), each "" where they
    added nothing, so a report the tests agree with reads as before."""
    if r.exact is None:
        return "", ""
    sets, top = r.bootstrap
    tests = f"{r.exact.test} of each pair"
    holm = f"Holm over the {r.exact.hypotheses} ordered pairs"
    kept = [r.names[s] for s in order if r.top[s] and not top[s]]
    wider = [r.names[s] for s in order if r.joint_rank_cis[s] != sets[s]]
    return ((f"; at {_items(r.n_items)} {tests}, {holm}, also keep "
             f"{', '.join(kept)}" if kept else ""),
            (f", widened for {', '.join(wider)} by {tests} ({holm}), less "
             f"sure than the bootstrap" if wider else ""))


def _format_rank(ranked, options, markdown=False):
    """Return the text (or markdown) report of rank (a _Ranked), then each
    subset's.  The rank column holds the joint rank sets (all true ranks
    inside them at once, at the confidence), or with --marginal-ranks each
    rank's own percentile interval.  A _Ranking of preferences
    (Bradley-Terry ratings) is said so, with its anchor and its win-rate
    matrix."""
    p = _rank_parts(ranked, options)
    reading = ranked.reading or ()
    mark = _markdown if markdown else str
    if markdown:                 # the read: lines a list, as compare's
        lines = [mark(p.head)] + [""] * bool(reading) + [
            f"- {mark(f'read: {line}')}" for line in reading]
    else:
        lines = [p.head] + [f"read: {line}" for line in reading]
    lines += [""] * markdown + _table(p.rows, markdown) + ["", mark(p.words)]
    for line in p.caution:
        lines += [""] * markdown + [mark(line)]
    lines += [""] * markdown         # markdown: a paragraph of its own
    lines += [mark(line) for line in p.notes]
    if p.matrix:
        lines += [""] + _table(p.matrix, markdown)
    if p.corrected:
        head, finding, table = p.corrected
        lines += ["", mark(head)] + [""] * markdown + [mark(finding)] + [
            ""] * markdown + _table(table, markdown)
    if p.pairs:
        caption, rows = p.pairs
        lines += ["", mark(caption)] + [""] * markdown + _table(rows,
                                                                markdown)
    if p.adjusted:
        lines += ["", mark(p.adjusted)]
    return "\n\n".join(["\n".join(lines)] + [
        f"{options.by} {label}:\n" + _format_rank(sub, options, markdown)
        for label, sub in ranked.subsets])


class _RankParts(NamedTuple):
    """The pieces of rank's report (_rank_parts), as the text, markdown
    and HTML reports show them."""
    head: str
    rows: list               # the table: a row per system
    words: str               # the top group
    caution: list
    notes: list              # how the intervals and rank sets hold
    matrix: list             # the win rates' table, or None
    corrected: tuple         # rank --human: (head, finding, table), or None
    pairs: tuple             # (caption, rows) of the pairs, or None
    adjusted: str = ""       # what --adjust other than holm adjusts


def _rank_parts(ranked, options):
    """Return the _RankParts of a _Ranked (its own, not its subsets')."""
    r, pairs, judgements = ranked.ranking, ranked.pairs, ranked.judgements
    alpha, confidence = options.alpha, options.confidence
    anchor, marginal = options.anchor, options.marginal_ranks
    dropped = ranked.dropped
    rated = r.kind == "preferences"
    u = _units(r.kind == "binary", list(r.cis) + [res.ci_paired for _, _,
                                                  res in pairs], r.means)
    level = _decimal(_exact(confidence) * 100) + "%"
    if rated:
        model = ("Bradley-Terry ratings on the Elo scale (400 log10 of "
                 "strength, ties as half a win)")
        if r.ties is not None:
            nu, span = r.ties
            why = _nu_words(r.ties)
            model = (f"Davidson ratings on the Elo scale (400 log10 of "
                     f"strength; ties by Davidson's 1970 model, nu = "
                     f"{nu:.3g} [{span.lo:.3g}, {span.hi:.3g}]"
                     + (f"; {why}" if why else "") + ")")
        head = (f"{len(r.names)} systems, {_items(r.n_items, 'battle')}, "
                f"{model}, "
                + (f"{anchor[0]} at {anchor[1]:g}" if anchor else
                   "averaging 1000")
                + f", {r.resamples} bootstrap rounds over "
                + ("questions" if r.method.endswith("by question")
                   else "battles"))
    else:
        drawn = (f"{r.resamples} draws of the means' joint normal law"
                 if r.method == "saddlepoint" else
                 f"{r.resamples} joint resamples")
        head = (f"{len(r.names)} systems, {_items(r.n_items)}, metric "
                f"{r.metric} ({r.direction} is better), {drawn}"
                + (f" ({dropped} {getattr(dropped, 'why', _Dropped.why)}, "
                   f"left out)" if dropped else ""))
    if r.method == "saddlepoint":
        head += "; means' intervals by saddlepoint"
    joint = r.joint_rank_cis is not None and not marginal
    rows = [["system", f"{'rating' if rated else 'mean'} [{level} CI]",
             f"rank ({level} {'joint set' if joint else 'CI'})",
             "top group"]]
    order = sorted(range(len(r.names)), key=lambda s: (r.ranks[s], s))
    for s in order:
        lo, hi = r.joint_rank_cis[s] if joint else r.rank_cis[s]
        rows.append([r.names[s],
                     f"{r.means[s]:.1f} (the anchor)" if rated and anchor
                     and r.names[s] == anchor[0] else
                     f"{r.means[s]:.1f} [{r.cis[s].lo:.1f}, "
                     f"{r.cis[s].hi:.1f}]" if rated else
                     f"{u.mean(r.means[s])} {u.span(r.cis[s], False)}",
                     f"{r.ranks[s]:g} ({lo:g}-{hi:g})",
                     "yes" if r.top[s] else ""])
    top = [r.names[s] for s in order if r.top[s]]
    most = (f"{r.critical:.1f} rating points" if rated else
            u.gap(r.critical, sign=False))
    law = "normal law" if r.method == "saddlepoint" else "bootstrap"
    kept, widened = _exact_words(r, order)
    words = (f"top group, not detectably worse than the best at alpha "
             f"{alpha:g} (joint {law} of the largest difference, "
             f"{most} at most{kept}): {', '.join(top)}")
    if len(top) == 1:
        words += "; it stands alone"
    caution = []
    if rated and r.unrated:
        caution = [(f"caution: {r.unrated} of the {r.resamples} rounds "
                  f"({r.unrated / r.resamples:.0%}) have no finite rating: "
                  f"in each, a system won, or lost, every battle it drew "
                  f"against the rest, and its rating is where the fit "
                  f"stopped, so the intervals and the top group above are "
                  f"wider than the battles can support; more battles "
                  f"between these systems would narrow them")]
    what = "ratings" if rated else "means"
    notes = [
        f"{what}: {level} intervals that hold for every system at once "
        f"(max-t over the joint bootstrap)" if options.joint_intervals else
        f"{what}: each {level} interval holds on its own, not all at once; "
        f"--joint-intervals makes them hold together",
        f"ranks: {level} sets that hold for every system at once (Mogstad, "
        f"Romano, Shaikh and Wilhelm 2024){widened}; --marginal-ranks shows "
        f"each rank's own interval" if joint else
        f"ranks: each system's own {level} interval, not jointly: all of "
        f"them hold at once less often"]
    matrix = ranked.matrix
    rates = None
    if matrix is not None and len(r.names) <= 12:
        rates = [["win rate of row vs column"] + [r.names[s] for s in order]]
        for s in order:
            rates.append([r.names[s]] + [
                "" if matrix[s][t] is None else f"{matrix[s][t]:.3f}"
                for t in order])
    corrected = None
    if ranked.corrected is not None:
        corrected = _corrected_lines(ranked.corrected, r, options)
    adjust = options.adjust
    paired = None
    if pairs:
        shown = adjust != "none"
        table = [["pair (second - first)", "difference",
                  f"{level} CI (paired)", "p"]
                 + [f"p ({_ADJUST_LABELS[adjust]})"] * shown + ["verdict"]]
        for (a, b, res), j in zip(pairs, judgements):
            table.append([f"{b} - {a}", u.gap(res.gap),
                          u.span(res.ci_paired), _p_text(res.p)]
                         + [_p_text(_adjusted_p(j))] * shown
                         + [_verdict_words(j)])
        paired = (f"paired differences, {_adjusted_words(adjust)} across "
                  f"these {len(pairs)}:" if len(pairs) > 1 else
                  "the paired difference (one pair: no adjustment):", table)
    adjusted = ""
    if adjust != "holm" and r.exact is not None and ranked.reading is not None:
        adjusted = (
            f"--adjust {adjust} "
            + ("leaves the pairs' p-values as they are" if adjust == "none"
               else "adjusts the pairs' p-values")
            + ("" if pairs else " (--pairs, --baseline)")
            + "; the rank sets and the top group keep Holm's adjustment, "
            "as sets that hold all at once need" + (
                "" if adjust == "none" else " (a false discovery rate does "
                "not bound the chance that any of them is wrong)"))
    return _RankParts(head, rows, words, caution, notes, rates, corrected,
                      paired, adjusted)


# Output formats are one table, as tabulate's _table_formats: a row per
# format, each turning a report's text, its markdown (where the command
# has a markdown of its own, else the text in a fenced block), its JSON
# object or its _Page (where the command has one, else the text on a page
# of its own) into what is printed.  Every command prints through
# _render().

def _fenced(text):
    """Return text as a markdown code block, shown as it is."""
    return "```\n" + text + "\n```"


_OUTPUT_FORMATS = {
    "text": lambda text, markdown, data, page: text(),
    "markdown": lambda text, markdown, data, page: (markdown or (
        lambda: _fenced(text())))(),
    "json": lambda text, markdown, data, page: json.dumps(
        _finite(data()), allow_nan=False),
    "html": lambda text, markdown, data, page: _html((page or (
        lambda: _Page(preformatted=text())))()),
}


def _render(fmt, *, text, data, markdown=None, page=None):
    """Return a report in *fmt*, a key of _OUTPUT_FORMATS: *text*, *data*
    (the JSON object), *markdown* and *page* (a _Page) are functions, so
    that only the form asked for is built."""
    return _OUTPUT_FORMATS[fmt](text, markdown, data, page)


def _joined_reports(reports, *, fmt, baseline, family="candidates x metrics",
                    best=None, adjust="holm"):
    """Return the printed report of compare: one comparison's, or several
    joined (JSON: {"baseline", "comparisons", "best_of"}; text: the
    sections in turn, then the best candidate's gain with the choice
    accounted for).  *reports* are _compare_json objects or
    _format_compare texts, in *fmt* (text, markdown or json); *best* is
    (([_BestOf], notes), the _Compared runs, the _Options)."""
    if len(reports) == 1:
        return _render(fmt, text=lambda: reports[0],
                      markdown=lambda: reports[0], data=lambda: reports[0])
    head = (f"{len(reports)} candidates against the baseline {baseline}; "
            f"p-values {_adjusted_words(adjust)} across {family}")
    tail = _best_lines(*best) if best else []
    return _render(fmt, text=lambda: "\n\n".join([head] + reports + [
        "\n".join(tail)] * bool(tail)),
                  markdown=lambda: "\n\n".join(
                      [_markdown(head)] + reports + [
                          "\n\n".join(map(_markdown, tail))] * bool(tail)),
                  data=lambda: {"baseline": baseline, "holm": family,
                                "comparisons": reports,
                                "best_of": _best_json(*best) if best
                                else None})


# A page is one more format (SVG inline, CSS inline, no script, nothing
# fetched): coverage.py's htmlcov puts the total first, then the table,
# then the detail; the page does the same with a command's verdicts,
# tables, plots, notes, read: lines and the command that makes it again.
# Every string on it passes through html.escape, the SVGs through
# _xml_escape, so that a name from a file stays text.

class _Page(NamedTuple):
    """What an HTML report shows, in the order a reader needs it (_html):
    every part a plain string or list, built from the pieces the text and
    markdown reports use."""
    title: str = "bootstrap-eval-deltas report"
    head: tuple = ()         # lines under the title: what was compared
    verdicts: tuple = ()     # the verdict sentences; "\n  " starts the
                             # lines below one, as in the text report
    tables: tuple = ()       # (caption, rows), rows[0] the header
    figures: tuple = ()      # (caption, SVG document)
    details: tuple = ()      # (heading, lines): a judge's audit, ...
    notes: tuple = ()
    reading: tuple = ()      # the read: lines, without "read: "
    command: tuple = ()      # the arguments that make the page again
    preformatted: str = None  # a report with no page of its own: its text
    verdict_heading: str = "Verdict"


_PAGE_STYLE = """\
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;
color:#1b1b1b;max-width:80rem;margin:0 auto;padding:.8rem}
h1{font-size:1.25rem;margin:.3rem 0}h2{font-size:1.05rem;margin:1.4rem 0 .4rem}
.head{color:#444;margin:.2rem 0;overflow-wrap:anywhere}
#verdict{border-left:4px solid #1f5fa8;background:#f2f5fa;padding:.2rem .9rem}
#verdict>ul>li{margin:.5rem 0}#verdict>ul>li>b{font-weight:600}
ul{padding-left:1.2rem}li{overflow-wrap:anywhere}li ul{color:#444}
.table{overflow-x:auto}table{border-collapse:collapse;font-size:.88rem;
font-variant-numeric:tabular-nums;margin:.3rem 0}
.caption{color:#444;margin:.8rem 0 .1rem}
th,td{border-bottom:1px solid #d8d8d8;padding:.25rem .55rem;
text-align:left;white-space:nowrap}th{background:#f4f4f4}
.plots{display:grid;gap:0 1rem;
grid-template-columns:repeat(auto-fill,minmax(min(100%,36rem),1fr))}
figure{margin:.8rem 0}figure svg{display:block;max-width:100%;height:auto}
figcaption{color:#444;font-weight:600}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f6f6f6;
padding:.5rem;font-size:.85rem}pre.command{white-space:pre;overflow-x:auto}
@media print{body{max-width:none;font-size:10pt}#verdict{background:none}
figure,table,#verdict{break-inside:avoid}h2{break-after:avoid}
.table{overflow:visible}
th,td{white-space:normal;padding:.15rem .3rem}pre.command{white-space:pre-wrap}}
"""


def _html(page):
    """Return the HTML document of a _Page: the title and the head lines,
    the verdicts (id "verdict", before any table), each table, each
    figure, each detail, the notes, the read: lines and the command;
    every string escaped (html.escape), every SVG inline.

    >>> text = _html(_Page(verdicts=["acc: <b>better</b>"]))
    >>> "<li><b>acc: &lt;b&gt;better&lt;/b&gt;</b></li>" in text
    True
    """
    from html import escape
    out = ["<!DOCTYPE html>", '<html lang="en">', "<head>",
           '<meta charset="utf-8">',
           '<meta name="viewport" content="width=device-width, '
           'initial-scale=1">', f"<title>{escape(page.title)}</title>",
           f"<style>\n{_PAGE_STYLE}</style>", "</head>", "<body>",
           f"<h1>{escape(page.title)}</h1>"]
    out += [f'<p class="head">{escape(line)}</p>' for line in page.head]

    def items(lines, first=""):
        """A list: each line's first part, its "\\n  " parts below."""
        html = ["<ul>"]
        for line in lines:
            top, *below = line.split("\n  ")
            html.append(f"<li>{first and '<b>'}{escape(top)}"
                        f"{first and '</b>'}" + ("<ul>" + "".join(
                            f"<li>{escape(x)}</li>" for x in below)
                                                  + "</ul>" if below else "")
                        + "</li>")
        return html + ["</ul>"]
    if page.verdicts:
        out += ['<section id="verdict">',
                f"<h2>{escape(page.verdict_heading)}</h2>"]
        out += items(page.verdicts, first="b") + ["</section>"]
    if page.preformatted is not None:
        out.append(f"<pre>{escape(page.preformatted)}</pre>")
    for caption, rows in page.tables:
        if caption:
            out.append(f'<p class="caption">{escape(caption)}</p>')
        out += ['<div class="table"><table>']
        out.append("<thead><tr>" + "".join(f"<th>{escape(c)}</th>"
                                          for c in rows[0])
                   + "</tr></thead><tbody>")
        out += ["<tr>" + "".join(f"<td>{escape(c)}</td>" for c in row)
                + "</tr>" for row in rows[1:]]
        out.append("</tbody></table></div>")
    if page.figures:
        out += ["<h2>Plots</h2>", '<div class="plots">']
    for caption, svg in page.figures:
        svg = svg[svg.index("<svg"):]        # inline: no XML declaration
        out.append("<figure>" + (f"<figcaption>{escape(caption)}"
                                 f"</figcaption>" if caption else "")
                   + f"{svg}</figure>")
    out += ["</div>"] * bool(page.figures)
    for heading, lines in page.details:
        out.append(f"<h2>{escape(heading)}</h2>")
        out += items(lines)
    for heading, lines in (("Notes", page.notes),
                           ("Read", [f"read: {x}" for x in page.reading])):
        if lines:
            out.append(f"<h2>{heading}</h2>")
            out += items(lines)
    if page.command:
        out += ["<h2>Made by</h2>", f'<pre class="command"><code>'
                f"{escape(shlex.join(page.command))}</code></pre>"]
    return "\n".join(out + ["</body>", "</html>"])


def _compare_page(runs, options, best=None, noise=()):
    """Return the _Page of compare: each candidate's verdicts, its table
    (and its subsets'), a plot per metric (_histogram_svg), the judge
    against the humans where --human corrected the scores (_judge_svg and
    the audit lines of _judge_lines), then the notes and read: lines."""
    several = len(runs) > 1
    page = dict(head=[], verdicts=[], tables=[], figures=[], details=[],
                notes=[], reading=[])
    hint = None
    for run in runs:
        results, judgements = run.results, run.judgements
        who = f"{_title_name(run.names[1])}: " if several else ""
        page["head"].append(_compare_head(run, options))
        words, notes = (_verbose_words if options.verbose else _words)(
            run, options)
        audits = [_judge_lines(results[k], judgements[k], check,
                               run.as_judged[k], options)
                  for k, check in enumerate(run.checks)]
        audit = {line for lines in audits for line in lines
                 if not line.startswith("Finding:")}     # a verdict's own
        for w in words:
            if w.startswith("(--verbose"):       # said once, below
                hint = w[1:-1]
                continue
            page["verdicts"].append(who + "\n  ".join(
                x for x in w.split("\n  ") if x not in audit))
        adjusted = any(j.family_size > 1 for j in judgements)
        page["tables"].append((
            who + (f"p (Holm): each p adjusted across {judgements[0].family}"
                   f", the verdicts decided on it" if adjusted else ""),
            _rows(results, judgements, options.confidence,
                  options.resamples)))
        if options.by is not None:
            units = {r.metric: _units_of(r) for r in results}
            rows = _subset_rows(options.by, run.subsets,
                                run.subset_judgements, options.confidence,
                                units)
            lines = _subset_lines(options.by, run.subsets,
                                  run.subset_judgements, options.confidence,
                                  options.alpha, False, units)
            page["tables"].append((who + lines[0], rows))
            notes += lines[len(rows) + 1:]
        if run.preferences is not None:
            page["details"].append((who + "Preferences", _preference_lines(
                run.preferences, run.checks[0].judged if run.checks
                else results[0], options.confidence, bool(run.checks))))
        page["figures"] += [(who[:-2], _histogram_svg(
            [r], confidence=options.confidence, judgements=[j]))
            for r, j in zip(results, judgements)]
        for k, check in enumerate(run.checks):
            page["figures"].append((
                who[:-2], _judge_svg(results[k], judgements[k], check,
                                     options)))
            page["details"].append((
                f"{who}{results[k].metric}: the judge against the humans",
                audits[k]))
        page["notes"] += [who + note for note in notes]
        page["reading"] += [x for x in run.reading
                            if x not in page["reading"]]
    if best and best[0][0]:
        page["verdicts"] += _best_lines(*best)
    if hint:
        page["notes"].append(hint)
    if noise:                            # --runs, --prompts
        page["details"].append(("Runs" if not options.crossed else
                                "Prompts", (_prompt_lines if options.crossed
                                            else _noise_lines)(
            noise, runs[0].results, options)))
    names = [_title_name(name) for name in runs[0].names]
    title = (f"compare: {names[1]} against {names[0]}" if not several else
             f"compare: {len(runs)} candidates against {names[0]}")
    return _Page(title=title, command=options.command,
                 **{k: tuple(v) for k, v in page.items()})


def _title_name(name):
    """Return a run's name as a title shows it: a file or folder by its
    own name, without a data file's extension; a column as it is."""
    if os.path.exists(name):
        name = os.path.basename(name.rstrip("/\\")) or name
    return _short_name(name)


def _judge_svg(r, j, check, options):
    """Return the judge against the humans on one metric: the difference
    as the judge's scores alone say it, as the humans' labels alone say
    it, and corrected (prediction-powered), each with its interval,
    against zero."""
    scale, _, _, xlabel, sides = _difference_words(r, j, options.confidence)
    level = _decimal(_exact(options.confidence) * 100)
    rows = [(f"judge alone ({r.n_items:,} items)", check.judged)]
    if check.human is not None:
        rows.append((f"humans alone ({check.human.n_items:,} items)",
                     check.human))
    rows.append(("judge corrected by humans", r))
    return _intervals_svg(
        [(label, scale * float(x.gap), scale * float(x.ci_paired.lo),
          scale * float(x.ci_paired.hi)) for label, x in rows],
        title=f"{r.metric}: the judge against the humans",
        subtitle=f"candidate - baseline with its {level}% CI; corrected: "
                 f"{_verdict_words(j)}", xlabel=xlabel, sides=sides)


def _rank_page(ranked, options):
    """Return the _Page of rank: the top group first, the table, the
    forest plot (_forest_svg) and, for three systems or more, the matrix
    of pairs (_pairs_svg), the pairs' and corrected tables, then the
    notes and read: lines; each subset's table after the rest."""
    p = _rank_parts(ranked, options)
    r = ranked.ranking
    tables = [("", p.rows)]
    if p.corrected:
        head, finding, table = p.corrected
        tables.append((head, table))
    if p.pairs:
        tables.append(p.pairs)
    if p.matrix:
        tables.append(("", p.matrix))
    figures = [("", _forest_svg(r, confidence=options.confidence,
                                marginal=options.marginal_ranks))]
    if len(r.names) > 2:
        figures.append(("", _pairs_svg(ranked, options)))
    for label, sub in ranked.subsets:
        tables.append((f"{options.by} {label}", _rank_parts(sub,
                                                            options).rows))
    return _Page(
        title=f"rank: {len(r.names)} systems on {r.metric}", head=(p.head,),
        verdicts=(p.words,) + tuple(p.corrected[1:2] if p.corrected
                                    else ()),
        tables=tuple(tables), figures=tuple(figures),
        notes=tuple(p.caution + p.notes + [p.adjusted] * bool(p.adjusted)),
        reading=tuple(ranked.reading or ()),
        command=options.command)


def _pairs_svg(ranked, options):
    """Return the matrix of rank's pairs: each row's win rate against each
    column (preferences), or the difference of the means, row minus
    column, in the table's units, bold where --pairs or --baseline found
    it detectable after Holm."""
    r = ranked.ranking
    order = sorted(range(len(r.names)), key=lambda s: (r.ranks[s], s))
    names = [_short_name(r.names[s]) for s in order]
    if ranked.matrix is not None:
        m = ranked.matrix
        cells = [[None if s == t or m[s][t] is None else
                  (f"{m[s][t]:.2f}", 2 * m[s][t] - 1, False) for t in order]
                 for s in order]
        return _matrix_svg(names, cells, title="win rate of the row "
                           "against the column", subtitle="blue: the row "
                           "wins more often; red: the column does")
    u = _units(r.kind == "binary", list(r.cis), r.means)
    sign = 1 if r.direction == "higher" else -1
    found = {}
    for (a, b, _), j in zip(ranked.pairs, ranked.judgements):
        found[a, b] = found[b, a] = j.verdict in ("better", "worse")
    top = max(abs(float(r.means[s] - r.means[t])) for s in order
              for t in order) or 1
    cells = [[None if s == t else (
        u.gap(r.means[s] - r.means[t]), sign * float(
            r.means[s] - r.means[t]) / top,
        found.get((r.names[s], r.names[t]), False)) for t in order]
        for s in order]
    return _matrix_svg(names, cells, title=f"{r.metric}: the row's mean "
                       f"minus the column's", subtitle=(
                           "blue: the row better; red: the column better"
                           + ("; bold: detectable after Holm" if found
                              else "; rank --pairs tests each pair")))


def _plan_page(plan, options, svg, repeats=None, stopping=()):
    """Return the _Page of plan from a design: the items needed first,
    the table of power by items (and by repeats, _repeats_parts), the
    power curve with the answer marked (*svg*), then the simulated power
    and the *stopping* lines of --sequential as notes."""
    d = plan.design
    head, said, rows, simulated = _plan_parts(plan)
    tables = [("", rows)]
    notes = list(simulated)
    if repeats:
        caption, table, end = _repeats_parts(repeats, options.within_var)
        tables.append((caption, table))
        notes.append(end)
    return _Page(
        title=f"plan: A={d.acc_a:g} against B={d.acc_b:g}",
        head=tuple(head), verdicts=tuple(said), tables=tuple(tables),
        verdict_heading="Answer",
        figures=(("", svg),), notes=tuple(notes) + tuple(
            x.strip() for x in stopping),
        command=options.command)


def _noise_lines(noise, results, options):
    """Return the lines of compare --runs: the run-to-run spread beside the
    gap, where one run of each would put it, and the runs needed."""
    level = _decimal(_exact(options.confidence) * 100) + "%"
    lines = []
    for q, r in zip(noise, results):
        u = _units_of(r)
        (ra, rb), (sa, sb), (ca, cb) = q.runs, q.run_sd, q.run_sd_ci
        lines.append(
            f"{q.metric} run to run: one run's mean moves by SD "
            f"{u.gap(sa, sign=False)} for the baseline ({level} CI "
            f"{u.span(Interval(*map(_exact, ca)), False)}, {ra} runs) and "
            f"{u.gap(sb, sign=False)} for the candidate "
            f"({u.span(Interval(*map(_exact, cb)), False)}, {rb} runs); "
            f"the gap's item-to-item SD is {u.gap(q.item_sd, sign=False)}"
            + (f" ({u.span(Interval(*map(_exact, q.item_sd_ci)), False)})"
               if q.item_sd_ci else "") + ".")
        lines += _averaged_lines(q, u, level, options.verbose)
        lines.append(
            f"  one new run of each: the gap would read within "
            f"{u.span_words(Interval(*map(_exact, q.one_run)))} ({level} "
            f"prediction, t on {q.one_run_df:.1f} degrees of freedom); the "
            f"first run of each alone, items only, would have said "
            f"{u.span_words(Interval(*map(_exact, q.naive)))}.")
        if q.runs_needed:
            lines.append(
                f"  to tell {u.gap(q.gap)} from run noise alone ("
                f"{options.power:.0%} power, alpha {options.alpha:g}): about "
                f"{q.runs_needed} runs of each.")
    return lines


def _averaged_lines(q, u, level, verbose):
    """Return the lines of compare --runs on the interval of the run-
    averaged gap (_with_run_noise): how much of it is run-to-run noise;
    with --verbose, the runs' shifts and the items-only standard error."""
    c = q.averaged
    share = ("under 1%" if c.run_part < 0.005 else f"{c.run_part:.0%}")
    lines = [f"  the {level} CI above: run-to-run noise is {share} of its "
             f"variance (t on {_df_words(c.df)})." if c.run_part else
             f"  the {level} CI above: items only; the runs' means agree."]
    if verbose:
        sa, sb = (u.gap(_exact(x), sign=False) for x in c.shift_sd)
        items = u.gap(_exact(q.item_sd / math.sqrt(q.n_items)), sign=False)
        lines.append(f"  of the run noise, a shift of the whole run: SD {sa} "
                     f"for the baseline and {sb} for the candidate (the rest "
                     f"is items flipping on their own); standard error "
                     f"{u.gap(_exact(c.se), sign=False)}, items alone "
                     f"{items}.")
    return lines


def _prompt_lines(effects, results, options):
    """Return the lines of compare --prompts: each metric's gap averaged
    over the prompts as a random factor, and the verdict under each."""
    level = _decimal(_exact(options.confidence) * 100) + "%"
    lines = []
    for e, r in zip(effects, results):
        u = _units_of(r)
        gaps = [r_.gap for r_ in e.results]
        lines.append(
            f"{e.metric} across {len(e.prompts)} prompts: the gap under one "
            f"prompt runs from {u.gap(min(gaps))} to {u.gap(max(gaps))} "
            f"(SD {u.gap(_exact(e.prompt_sd), sign=False)}); with prompts "
            f"as a random factor, {u.gap(_exact(e.gap))} ({level} CI "
            f"{u.span_words(Interval(*map(_exact, e.ci)))}, t on "
            f"{e.df:.1f} degrees of freedom, prompts and items).")
        verdicts = collections.defaultdict(list)
        for name, res, p in zip(e.prompts, e.results, e.p_holm):
            sign = 1 if r.direction != "lower" else -1
            verdicts["better" if p < options.alpha and sign * res.gap > 0
                     else "worse" if p < options.alpha
                     else "no detectable difference"].append(name)
        lines.append(f"  each prompt alone (Holm across the "
                     f"{len(e.prompts)}): " + "; ".join(
                         f"{word} under {', '.join(names)}"
                         for word, names in verdicts.items()) + ".")
        here = r.ci_paired.lo > 0 or r.ci_paired.hi < 0
        anew = e.ci.lo > 0 or e.ci.hi < 0
        if here != anew:
            lines.append(
                "  Finding: " + ("a gap on these prompts that prompts drawn "
                                 "anew may not show (the interval across "
                                 "prompts takes in 0)" if here else
                                 "no gap detectable on these prompts' "
                                 "items alone, yet one across prompts") + ".")
    return lines


def _runs_rows(q, gap, options):
    """Return (rows, runs needed) of plan --runs for one _RunNoise: a row
    (runs of each, the standard error run noise alone gives the
    run-averaged gap, the power at *gap*) at the runs given, a few more
    and the runs needed (_run_noise_needed)."""
    v = sum(sd * sd for sd in q.run_sd)
    needed = _run_noise_needed(q, gap, options)
    counts = sorted({min(q.runs), 2 * min(q.runs), 5, 10, 20,
                     *([needed] if needed else [])})
    return [(r, math.sqrt(v / r), _normal_power(gap, math.sqrt(v / r),
                                                 options.alpha))
            for r in counts], needed


def _format_runs_plan(noise, results, options, markdown=False):
    """Return the text (or markdown) of plan --from A B --runs: per
    metric, the run-to-run spread and what more runs of each would buy
    against the gap."""
    lines = []
    mark, item = (_markdown, "- ") if markdown else (str, "  ")
    for q, r in zip(noise, results):
        lines += [""] * (markdown and bool(lines))
        u = _units_of(r)
        gap = q.gap if options.gap is None else options.gap
        (ra, rb), (sa, sb) = q.runs, q.run_sd
        lines.append(mark(f"{q.metric}: {ra} runs of the baseline and {rb} "
                          f"of the candidate on {_items(q.n_items)}; one "
                          f"run's mean moves by SD {u.gap(sa, sign=False)} "
                          f"and {u.gap(sb, sign=False)}; the gap "
                          f"{u.gap(_exact(q.gap))}"))
        rows, needed = _runs_rows(q, gap, options)
        table = _table(
            [["runs of each", "SE from run noise",
              f"power at {u.gap(_exact(gap))}"]] + [
                [str(k), u.gap(_exact(se), sign=False), f"{p:.2f}"]
                for k, se, p in rows], markdown)
        lines += ["", *table, ""] if markdown else ["  " + x for x in table]
        lines.append(item + mark(
            f"to tell {u.gap(_exact(gap))} from run noise alone "
            f"({options.power:.0%} power, alpha {options.alpha:g}): "
            + (f"about {needed} runs of each" if needed else
               "no gap to tell (give --gap)" if not gap else
               "any runs: the runs do not move")))
    lines += [""] * markdown
    lines.append(mark("(run noise on these items only; compare's interval "
                      "adds the items' own spread, which more items "
                      "shrink)"))
    return "\n".join(lines)


def _runs_plan_json(noise, results, options):
    """Return the JSON object of plan --from A B --runs."""
    entries = []
    for q in noise:
        gap = q.gap if options.gap is None else options.gap
        rows, needed = _runs_rows(q, gap, options)
        entries.append({
            "metric": q.metric, "n_items": q.n_items, "runs": list(q.runs),
            "run_sd": list(q.run_sd), "observed_gap": q.gap, "gap": gap,
            "by_runs": [{"runs": k, "se": se, "power": p}
                        for k, se, p in rows], "runs_needed": needed})
    return {"alpha": options.alpha, "power": options.power,
            "metrics": entries}


def _with_noise(report, noise, results, options):
    """Return compare's report (text, markdown or JSON object) with the
    runs' lines (or "runs" entries) added; under --prompts, the prompts'
    (_prompt_lines, "prompts")."""
    if options.crossed and isinstance(report, dict):
        report["prompts"] = [
            {"metric": e.metric, "n_items": e.n_items,
             "prompts": list(e.prompts), "gap": e.gap, "ci": list(e.ci),
             "df": e.df, "prompt_sd": e.prompt_sd,
             "method": "prompts and items as random factors, Student's t "
                       "(Satterthwaite)",
             "per_prompt": [{"prompt": name, "gap": float(r.gap),
                             "ci": [float(r.ci_paired.lo),
                                    float(r.ci_paired.hi)],
                             "p": float(r.p), "p_holm": float(p)}
                            for name, r, p in zip(e.prompts, e.results,
                                                  e.p_holm)]}
            for e in noise]
        return report
    if isinstance(report, dict):
        report["runs"] = [
            {"metric": q.metric, "n_items": q.n_items,
             "runs": list(q.runs), "run_sd": list(q.run_sd),
             "run_sd_ci": [list(ci) for ci in q.run_sd_ci],
             "item_sd": q.item_sd,
             "item_sd_ci": q.item_sd_ci and list(q.item_sd_ci),
             "gap": q.gap,
             "one_run_interval": list(q.one_run),
             "one_run_df": q.one_run_df,
             "first_runs_item_only_interval": list(q.naive),
             "runs_needed": q.runs_needed,
             "averaged": {"ci": list(q.averaged.ci), "se": q.averaged.se,
                          "df": q.averaged.df,
                          "run_share": q.averaged.run_part,
                          "shift_sd": list(q.averaged.shift_sd),
                          "method": "items and runs as random factors, "
                                    "Student's t (Satterthwaite)"
                                    if q.averaged.run_part else
                                    "items only: the runs' means agree"}}
             for q in noise]
        return report
    lines = (_prompt_lines(noise, results, options) if options.crossed
             else _noise_lines(noise, results, options))
    if options.format == "markdown":
        return report + "\n\n" + "\n\n".join(map(_markdown, lines))
    return report + "\n\n" + "\n".join(lines)


def _best_lines(found, runs, options):
    """Return the lines of the best candidate of each metric: its gain as
    observed with its own interval, and the interval that holds whichever
    candidate was picked (_best_of)."""
    best, notes = found
    level = _decimal(_exact(options.confidence) * 100) + "%"
    lines = []
    for m, b in enumerate(best):       # best[m] is runs' m-th metric
        k = b.best
        own = runs[k].results[m]
        u = _units_of(own)
        joint = u.span_words(Interval(*map(_exact, b.joint[k])))
        lines.append(
            f"best of {len(b.gains)} on {b.metric}: {runs[k].names[1]}, "
            f"{u.gap(b.gains[k])} as observed ({level} CI "
            f"{u.span_words(own.ci_paired)} on its own); accounting for the "
            f"choice, " + (
                f"{u.gap(_exact(b.hybrid[0]))} "
                f"{u.span_words(Interval(*map(_exact, b.hybrid[1])))} (the "
                f"hybrid estimate and interval of Andrews, Kitagawa and "
                f"McCloskey 2024), and {joint} " if b.hybrid else
                f"{joint} ") +
            f"in intervals that hold for all {len(b.gains)} candidates at "
            f"once (max-t over one joint bootstrap of the "
            + (f"{b.clusters:,} clusters of the {_items(b.n_items)}"
               if b.clusters else _items(b.n_items)) + " every run has)")
    return lines + notes


def _best_json(found, runs, options):
    """Return the JSON list of _best_lines' figures."""
    best, notes = found
    return {"notes": notes, "metrics": [
        {"metric": b.metric, "direction": b.direction, "n_items": b.n_items,
         "clusters": b.clusters,
         "best": runs[b.best].names[1], "gains": [float(g) for g in b.gains],
         "simultaneous_ci": [[ci.lo, ci.hi] for ci in b.joint],
         "method": "max-t over a joint paired bootstrap (Romano and Wolf "
                   "2005)",
         "hybrid": b.hybrid and {
             "estimate": b.hybrid[0], "ci": list(b.hybrid[1]),
             "method": "hybrid of Andrews, Kitagawa and McCloskey (2024), "
                       "beta = alpha / 10, normal law of the gains"}}
        for b in best]}


def _rank_json(ranked, options):
    """Return the JSON object of rank (a _Ranked; a system's "mean" is its
    Bradley-Terry rating where the _Ranking is of preferences), with its
    subsets' under "subsets"."""
    r, pairs, judgements = ranked.ranking, ranked.pairs, ranked.judgements
    seed, alpha, confidence = options.seed, options.alpha, options.confidence
    found, _, table = ranked.corrected or (None, None, None)
    corrected = ranked.corrected and {
        "method": "prediction-powered Bradley-Terry (PPI++)",
        "weight": found.weight, "labels": found.labels,
        "unlabelled": found.unlabelled,
        "intervals": "joint" if table.joint else "each",
        "draws": table.draws,
        "systems": [{"name": name, "rating": rating, "ci": list(ci),
                     "rank_set": list(ranks), "top_group": top}
                    for name, rating, ci, ranks, top in zip(
                        r.names, table.ratings, table.cis, table.rank_sets,
                        table.top)]}
    anchor, marginal = options.anchor, options.marginal_ranks
    dropped = ranked.dropped
    report = {
        "n_items": r.n_items, "seed": seed, "resamples": r.resamples,
        "confidence": float(confidence), "alpha": float(alpha),
        "metric": r.metric, "type": r.kind, "direction": r.direction,
        "dropped_ids": dropped, "critical": float(r.critical),
        "method": r.method,
        "rank_intervals": ("marginal" if marginal or r.joint_rank_cis is None
                           else "joint"),
        "intervals": "joint" if options.joint_intervals else "each",
        "systems": [{"name": name, "mean": float(mean),
                     "ci": [float(ci.lo), float(ci.hi)], "rank": rank,
                     "rank_ci": list(joint if joint and not marginal
                                     else rci),
                     "rank_ci_marginal": [rci.lo, rci.hi],
                     "rank_set_joint": joint and list(joint),
                     "top_group": top}
                    for name, mean, ci, rank, rci, top, joint in zip(
                        r.names, r.means, r.cis, r.ranks, r.rank_cis,
                        r.top, r.joint_rank_cis or [None] * len(r.names))],
        "pairs": [{"a": a, "b": b, "difference": float(res.gap),
                   "ci": [float(res.ci_paired.lo), float(res.ci_paired.hi)],
                   "test": res.test, "p": float(res.p),
                   "p_holm": float(j.p_holm), "adjust": j.adjust,
                   "p_adjusted": float(_adjusted_p(j)), "verdict": j.verdict,
                   "method": res.method}
                  for (a, b, res), j in zip(pairs, judgements)]}
    if r.kind == "preferences":
        report.update(anchor=None if anchor is None else
                      {"system": anchor[0], "rating": anchor[1]},
                      unrated_rounds=r.unrated,
                      win_rates=ranked.matrix, ties={"model": "half"}
                      if r.ties is None else {
                          "model": "davidson", "nu": r.ties[0],
                          "nu_ci": [r.ties[1].lo, r.ties[1].hi],
                          "nu_note": _nu_words(r.ties)})
    if corrected:
        report["human_corrected"] = corrected
    if ranked.reading is not None:
        report["reading"] = ranked.reading
    if ranked.subsets:
        report.update(by=options.by, subsets=[
            dict(_rank_json(sub, options), subset=label)
            for label, sub in ranked.subsets])
    return report


class Plan(NamedTuple):
    """The answers of plan, every number for the report."""
    design: _Design
    corr: object             # latent correlation, or None if discordance given
    alpha: float
    power: float
    items_needed: object
    connor: object
    unpaired: object
    power_at: dict           # n -> exact power
    mde_at: dict             # n -> smallest detectable gap (None: none)
    simulated: dict          # n -> (rejections, replays)
    confidence: float = CONFIDENCE

    def __repr__(self):
        """One short line: the design and the items it needs."""
        d = self.design
        return (f"Plan(acc_a={d.acc_a:g}, acc_b={d.acc_b:g}, "
                f"discordance={float(d.p10 + d.p01):.4g}, "
                f"alpha={self.alpha:g}, power={self.power:g}, "
                f"items_needed={self.items_needed}, "
                f"unpaired={self.unpaired})")

    def __str__(self):
        return _format_plan(self)

    def to_dict(self):
        """Return the JSON object of plan --json, as a dict."""
        return _plan_json(self)


def _format_plan(plan, markdown=False):
    """Return the text (or markdown) report of plan (no trailing
    newline): the design, the items needed, the table of power by items
    (_plan_parts)."""
    head, said, rows, simulated = _plan_parts(plan)
    if markdown:
        return "\n\n".join([_markdown(x) for x in head + said]
                            + ["\n".join(_table(rows, True))]
                            + [_markdown(x) for x in simulated])
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    return "\n".join(head + said + [
        "  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in rows]
                     + simulated)


def _plan_markdown(plan, options, repeats=None, stopping=()):
    """Return the markdown of plan from a design: _format_plan's, then the
    table by repeats and the *stopping* lines of --sequential."""
    return "\n\n".join(
        [_format_plan(plan, True)] + ([_format_repeats(
            repeats, options.within_var, True)] if repeats else [])
        + _markdown_lines(stopping))


def _markdown_lines(lines):
    """Return a text report's lines as markdown blocks: an indented line
    (a detail of the line above) a list item, any other a paragraph.

    >>> _markdown_lines(["a_b:", "  c"])
    ['a\\\\_b:', '- c']
    """
    return [("- " if x[:1] == " " else "") + _markdown(x.strip())
            for x in lines]


def _plan_parts(plan):
    """Return plan's (design lines, items-needed lines, table rows,
    simulated lines)."""
    d = plan.design
    gap = _exact(d.acc_b) - _exact(d.acc_a)
    head = (f"design: A={d.acc_a:g}, B={d.acc_b:g} (gap {_pts(gap)} pts), ")
    head += (f"latent correlation {plan.corr:g} (bivariate normal copula)"
             if plan.corr is not None else "discordance given")
    heads = [head,
             f"discordant items: A only {d.p10:.4f}, B only {d.p01:.4f}, "
             f"together {d.discordance:.4f}"]
    lines = []
    level = f"{plan.power:.0%} power at alpha {plan.alpha:g}"
    if plan.items_needed is None:
        lines.append(f"no gap to detect: items for {level} undefined")
    else:
        lines.append(f"items for {level}, McNemar's exact test: "
                     f"{plan.items_needed} (Connor 1987 approximation: "
                     f"{plan.connor})")
        lines.append(f"unpaired design, two separate samples: "
                     f"{plan.unpaired} items per system (two-proportion "
                     f"z-test, Fleiss)")
    level = _decimal(_exact(plan.confidence) * 100)
    rows = [["n", "exact power", "smallest detectable gap",
             f"expected {level}% CI half-width"]]
    for n, p in plan.power_at.items():
        mde = plan.mde_at.get(n)
        rows.append([str(n), f"{p:.3f}",
                     "none below 100%" if mde is None
                     else f"+{100 * mde:.1f} pts",
                     f"{100 * _expected_half_width(n, d, plan.confidence):.1f}"
                     f" pts"])
    simulated = []
    for n, (hits, replays) in plan.simulated.items():
        simulated.append(f"simulated at n={n}: McNemar rejected in "
                     f"{100 * (hits / replays):.1f}% of {replays} replays "
                     f"(Monte Carlo s.e. {100 * _mc_se(hits, replays):.1f}%);"
                     f" exact power "
                     f"{100 * _mcnemar_power(n, d, alpha=plan.alpha):.1f}%")
    return heads, lines, rows, simulated


def _format_pilot(rows, *, gap=None, alpha=0.05, power=_POWER,
                  markdown=False):
    """Return the text (or markdown) of plan --from: a line per metric
    (_pilot_plan), or with repeats each metric's variances and its table
    of items."""
    mark, apart = (_markdown, "\n\n") if markdown else (str, "\n")
    if rows and not isinstance(rows[0][0], str):
        return apart.join(mark(_pilot_plan(r, gap=gap, alpha=alpha,
                                           power=power)) for r, _ in rows)
    lines = []
    for name, table, within, between, seen in rows:
        lines.append(mark(f"{name}: gap {seen:+.4g}; between-item variance "
                          f"{between:.4g}, within-item variance "
                          f"{within:.4g} (estimated from the repeated "
                          f"samples)"))
        lines.append(_format_repeats(table, within, markdown))
    return apart.join(lines)


def _pilot_json(rows, *, gap=None, alpha=0.05, power=_POWER):
    """Return the JSON object of plan --from (see _format_pilot)."""
    entries = []
    for row in rows:
        if isinstance(row[0], str):
            name, table, within, between, seen = row
            entries.append({"metric": name, "gap": seen, "between": between,
                            "within": within, "items_needed_by_repeats": {
                                "inf" if k is None else str(k): v
                                for k, v in table.items()}})
            continue
        r, found = row
        entries.append({
            "metric": r.metric, "type": r.kind, "n_items": r.n_items,
            "clusters": r.clusters, "observed_gap": float(r.gap),
            "gap": float(r.gap if gap is None else gap),
            "se": r.se, "discordance": r.mcnemar and (
                r.mcnemar.a_only + r.mcnemar.b_only) / r.n_items,
            "items_needed": found.items_needed, "mde": found.mde,
            "method": found.method, "note": found.why})
    return {"alpha": alpha, "power": power, "metrics": entries}


def _labels_rows(gap, target, width, alpha, power, confidence):
    """Return the figures of plan --human for one metric: a row per label
    count (labels, the 95% CI's half-width, the power at *target*) and
    the labels for *power* at target and for a half-width of *width*.
    The labels the pilot has are its own interval (Student's t below
    _PPI_CLT_LEAST labels); other counts are _corrected_se's, which reads
    the moments without compare's finite-count details (within 1% of
    the pilot's own at its count, measured in tests/test_judged.py)."""
    items = gap.labels + gap.unlabelled
    z = _upper_z(float((1 - _exact(confidence)) / 2))
    counts = sorted({n for n in (gap.labels, 2 * gap.labels,
                                 5 * gap.labels, 10 * gap.labels,
                                 items // 2, items) if 2 <= n <= items})
    rows = []
    for n in counts:
        se = gap.se if n == gap.labels else _corrected_se(gap, n)
        half = ((gap.ci.hi - gap.ci.lo) / 2 if n == gap.labels
                else z * se)
        rows.append((n, half, _normal_power(target, se, alpha)))
    needed = _labels_needed(gap, target, alpha, power)
    for_width = (_labels_for_se(gap, width / z) if width else None)
    return rows, needed, for_width


def _normal_power(gap, se, alpha):
    """Return the power of a two-sided z test at *alpha* against *gap*."""
    if not se:
        return 1.0 if gap else alpha
    shift, z = abs(gap) / se, _upper_z(alpha / 2)
    return NormalDist().cdf(shift - z) + NormalDist().cdf(-shift - z)


def _format_labels_plan(found, *, gap=None, width=None, alpha=0.05,
                        power=_POWER, confidence=CONFIDENCE, markdown=False):
    """Return the text (or markdown) of plan --from A B --human: per
    metric, the labels now and what more would buy (_labels_rows)."""
    lines, level = [], _decimal(_exact(confidence) * 100)
    mark, item = (_markdown, "- ") if markdown else (str, "  ")
    for r, c in found:
        lines += [""] * (markdown and bool(lines))
        u, items = _units_of(r), c.labels + c.unlabelled
        target = c.estimate if gap is None else gap
        rows, needed, for_width = _labels_rows(c, target, width, alpha,
                                               power, confidence)
        lines.append(mark(f"{r.metric}: {_items(c.labels, 'human label')} "
                          f"of {items:,} items give {_worth(c)} (PPI++ "
                          f"weight {c.weight:.2f}); the corrected gap "
                          f"{u.gap(_exact(c.estimate))}"))
        table = _table(
            [["labels", f"{level}% CI half-width",
              f"power at {u.gap(_exact(target))}"]] + [
                [f"{n:,}" + (" (now)" if n == c.labels else " (all)"
                             if n == items else ""),
                 u.gap(_exact(half), sign=False), f"{p:.2f}"]
                for n, half, p in rows], markdown)
        lines += ["", *table, ""] if markdown else ["  " + x for x in table]
        pct = _decimal(_exact(power) * 100)
        lines.append(item + mark(
            f"to detect {u.gap(_exact(target))} with {pct}% "
            f"power: " + (f"about {needed:,} labels" if needed
                          else f"more labels than the {items:,} "
                          f"items have" if target else
                          "no gap to detect; give --gap")))
        if width:
            lines.append(item + mark(
                f"for a {level}% CI of "
                f"+-{u.gap(_exact(width), sign=False)}"
                f": " + (f"about {for_width:,} labels" if for_width
                         else f"more labels than the {items:,} "
                              f"items have")))
    clustered = [c.design for _, c in found if c.clusters]
    lines += [""] * markdown
    lines.append(mark("(at the judge's agreement with the humans seen in the "
                 "pilot, PPI++'s weight tuned for each count"
                 + (f", the variance scaled by the clusters' design effect "
                    f"seen ({', '.join(f'{d:.2f}' for d in clustered)}) at "
                    f"every count" if clustered else "")
                 + "; the labelled items drawn at random, as plan "
                   "--pick-labels draws them)"))
    return "\n".join(lines)


def _labels_plan_json(found, *, gap=None, width=None, alpha=0.05,
                      power=_POWER, confidence=CONFIDENCE):
    """Return the JSON object of plan --from A B --human."""
    entries = []
    for r, c in found:
        target = c.estimate if gap is None else gap
        rows, needed, for_width = _labels_rows(c, target, width, alpha,
                                               power, confidence)
        entries.append({
            "metric": r.metric, "labels": c.labels,
            "items": c.labels + c.unlabelled, "weight": c.weight,
            "clusters": c.clusters, "design_effect": c.design,
            "effective_labels": c.effective, "corrected_gap": c.estimate,
            "gap": target, "by_labels": [
                {"labels": n, "half_width": half, "power": p}
                for n, half, p in rows],
            "labels_for_power": needed, "width": width,
            "labels_for_width": for_width})
    return {"alpha": alpha, "power": power, "confidence": confidence,
            "metrics": entries}


def _format_repeats(table, within, markdown=False):
    """Return the items-by-repeats table and where repeats stop paying
    (text, or markdown)."""
    head, rows, end = _repeats_parts(table, within)
    return "\n".join([head] + (["", *_table(rows, True), ""] if markdown
                               else [f"{k:>5}  {v:>12}" for k, v in rows])
                     + [end])


def _repeats_parts(table, within):
    """Return (heading, rows, where repeats stop paying) of the
    items-by-repeats table."""
    limit = table[None]
    head = (f"repeats per item (Miller 2024), within-item variance "
            f"{within:g} (normal approximation):")
    rows = [["K", "items needed"]] + [["many" if k is None else str(k),
                                       str(v)] for k, v in table.items()]
    enough = min((k for k in table if k is not None and table[k] <= 1.05 * limit),
                 default=None)
    if enough is None:
        return head, rows, ("every repeat shown still saves more than 5% "
                            "of items")
    return head, rows, (f"from K={enough} on, more repeats save less than "
                        f"5% of the items")


def _plan_json(plan):
    """Return the JSON object of plan."""
    d = plan.design
    simulated = {}
    for n, (hits, replays) in plan.simulated.items():
        simulated[str(n)] = {"power": hits / replays, "replays": replays,
                             "se": _mc_se(hits, replays)}
    return {"acc_a": d.acc_a, "acc_b": d.acc_b, "corr": plan.corr,
            "alpha": plan.alpha, "power": plan.power,
            "discordance": d.discordance, "p10": d.p10, "p01": d.p01,
            "items_needed": plan.items_needed,
            "items_needed_connor": plan.connor,
            "unpaired_items_needed": plan.unpaired,
            "power_at": {str(n): p for n, p in plan.power_at.items()},
            "ci_half_width_at": {str(n): _expected_half_width(
                n, d, plan.confidence) for n in plan.power_at},
            "mde_at": {str(n): g for n, g in plan.mde_at.items()},
            "simulated": simulated}


# Pictures are hand-written SVG: a fixed 640 x 400 canvas per panel, linear
# axes with "nice" ticks, text escaped for XML.  They are strings like the
# other reports; main writes them, and the HTML page holds them inline.
# Each says what the table says, in its units (a 0/1 metric in percent and
# points), with the names shortened as the table's, which way is better
# and the verdict.

_W, _H, _LEFT, _RIGHT, _TOP, _BOTTOM = 640, 400, 70, 20, 52, 68


def _nice_ticks(lo, hi, count=5):
    """Return round tick values covering [lo, hi].

    >>> _nice_ticks(0, 1)
    [0.0, 0.2, 0.4, 0.6, 0.8, 1.0]
    """
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / count
    power = 10 ** math.floor(math.log10(raw))
    step = min((m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw))
    first = math.floor(lo / step)
    return [round(i * step, 12) for i in range(first, math.ceil(hi / step) + 1)]


class _Frame(NamedTuple):
    """Maps data coordinates of one panel to SVG coordinates."""
    x0: float
    x1: float
    y0: float
    y1: float
    top: float

    def x(self, v):
        return _LEFT + (v - self.x0) / (self.x1 - self.x0) * (_W - _LEFT - _RIGHT)

    def y(self, v):
        span = _H - _TOP - _BOTTOM
        return self.top + _TOP + span - (v - self.y0) / (self.y1 - self.y0) * span


def _axes(frame, xticks, yticks, title, xlabel, ylabel, subtitle=None,
          sides=None):
    """Return the SVG of a panel's title (and subtitle), axes, ticks and
    labels; *sides* (left, right) label the x axis's two ends below it
    (which side is better)."""
    esc = _xml_escape
    bottom, top = frame.y(frame.y0), frame.y(frame.y1)
    left, right = frame.x(frame.x0), frame.x(frame.x1)
    out = [f'<text x="{_W / 2:.1f}" y="{frame.top + 22:.1f}" '
           f'text-anchor="middle" font-size="{_fitted(title, 16, _W - 16)}">'
           f'{esc(title)}</text>',
           f'<line x1="{left:.1f}" y1="{bottom:.1f}" x2="{right:.1f}" '
           f'y2="{bottom:.1f}" stroke="black"/>',
           f'<line x1="{left:.1f}" y1="{bottom:.1f}" x2="{left:.1f}" '
           f'y2="{top:.1f}" stroke="black"/>']
    if subtitle:
        out.append(f'<text x="{_W / 2:.1f}" y="{frame.top + 40:.1f}" '
                   f'text-anchor="middle" font-size="'
                   f'{_fitted(subtitle, 12, _W - 16)}" fill="#333">'
                   f'{esc(subtitle)}</text>')
    for t in xticks:
        x = frame.x(t)
        out.append(_tick((x, bottom, x, bottom + 5), (x, bottom + 19),
                         "middle", t))
    for t in yticks:
        y = frame.y(t)
        out.append(_tick((left - 5, y, left, y), (left - 8, y + 4), "end", t))
    fit = 2 * min((left + right) / 2, _W - (left + right) / 2) - 8
    out.append(f'<text x="{(left + right) / 2:.1f}" y="{bottom + 38:.1f}" '
               f'text-anchor="middle" font-size="{_fitted(xlabel, 13, fit)}">'
               f'{esc(xlabel)}</text>')
    for k, words in enumerate(sides or ()):
        size = _fitted(words, 12, (right - left) / 2 - 8)
        out.append(f'<text x="{(left, right)[k]:.1f}" y="{bottom + 58:.1f}" '
                   f'text-anchor="{("start", "end")[k]}" font-size="{size}" '
                   f'fill="#1f5fa8">{esc(words)}</text>')
    out.append(f'<text transform="translate(18 {(top + bottom) / 2:.1f}) '
               f'rotate(-90)" text-anchor="middle" font-size="13">'
               f'{esc(ylabel)}</text>')
    return out


def _tick(line, at, anchor, value):
    """Return one tick mark and its label."""
    x1, y1, x2, y2 = line
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="black"/><text x="{at[0]:.1f}" y="{at[1]:.1f}" '
            f'text-anchor="{anchor}" font-size="12">{value:g}</text>')


def _svg(panels, body):
    """Return an SVG document of *panels* stacked panels drawn by *body*."""
    height = _H * panels
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_W}" '
            f'height="{height}" viewBox="0 0 {_W} {height}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" '
            f'fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


def _power_curve_svg(points, *, target, answer, title):
    """Return an SVG of exact power against items, target and answer marked.

    *points* are (n, power) pairs in increasing n.  The answer's label goes
    above the target's line left of the point, or below it right of the
    point, where an increasing curve is not.
    """
    xs = [n for n, _ in points]
    xticks = _nice_ticks(0, max(xs))
    frame = _Frame(xticks[0], xticks[-1], 0.0, 1.0, 0)
    body = _axes(frame, xticks, _nice_ticks(0, 1), title, "items",
                 "power of McNemar's exact test")
    path = " ".join(f"{'M' if i == 0 else 'L'}{frame.x(n):.1f},"
                    f"{frame.y(p):.1f}" for i, (n, p) in enumerate(points))
    body.append(f'<path d="{path}" fill="none" stroke="#1f5fa8" '
                f'stroke-width="2"/>')
    y = frame.y(target)
    body.append(f'<line x1="{frame.x(frame.x0):.1f}" y1="{y:.1f}" '
                f'x2="{frame.x(frame.x1):.1f}" y2="{y:.1f}" stroke="#888" '
                f'stroke-dasharray="6 4"/>')
    if answer is not None:
        x = frame.x(answer)
        words = f"{answer} items for {target:.0%} power"
        above = x - 10 - _text_width(words, 13) > _LEFT + 4
        body.append(f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x:.1f}" '
                    f'y2="{frame.y(0):.1f}" stroke="#c0392b" '
                    f'stroke-dasharray="2 3"/>')
        body.append(f'<circle cx="{x:.1f}" cy="{y:.1f}" r="5" fill="#c0392b"/>'
                    f'<text x="{x - 10 if above else x + 10:.1f}" '
                    f'y="{y - 10 if above else y + 20:.1f}" font-size="13" '
                    f'text-anchor="{"end" if above else "start"}">'
                    f'{_xml_escape(words)}</text>')
    return _svg(1, body)


def _difference_words(r, j, confidence):
    """Return (scale, title, subtitle, x label, sides) of a panel of r's
    paired difference: in the table's units (a 0/1 metric's in points,
    *scale* 100), with its verdict (a _Judgement *j*, or None) and which
    side of zero is better."""
    u = _units_of(r)
    level = _decimal(_exact(confidence) * 100)
    lower = r.direction == "lower"
    name = r.metric + " (lower is better)" * lower
    title = f"{name}: " + (_verdict_words(j) if j is not None else
                           "candidate - baseline")
    how = (" by saddlepoint" if r.method == "saddlepoint" and not
           r.paired_method else f" by {r.paired_method}"
           if r.paired_method else "")
    drawn = ("ideal bootstrap of " if isinstance(r.draws, _Density) else
             "bootstrap of " if r.draws else "")
    subtitle = (f"{drawn}candidate - baseline: "
                f"{u.gap(r.gap)}, {level}% CI {u.span_words(r.ci_paired)}"
                f"{how}")
    xlabel = (f"difference in {r.metric}{', points' * u.binary} "
              f"(candidate - baseline)")
    better = ("baseline", "candidate")[::-1 if lower else 1]
    sides = (f"\u2190 {better[0]} better", f"{better[1]} better \u2192")
    return 100 if u.binary else 1, title, subtitle, xlabel, sides


def _histogram_svg(results, *, confidence=CONFIDENCE, bins=40,
                   judgements=None):
    """Return an SVG with one panel per metric: the paired bootstrap
    distribution of the difference (a histogram of the resamples, or the
    saddlepoint's density curve where there are none, or the interval
    alone where neither was kept), its CI (solid), zero (dashed) and
    the non-inferiority margin (dotted), titled with the verdict of each
    _Judgement in *judgements*, the side that is better labelled."""
    body = []
    for i, r in enumerate(results):
        j = judgements[i] if judgements else None
        body += _difference_panel(r, j, i, confidence, bins)
    return _svg(len(results), body)


def _difference_panel(r, j, i, confidence, bins):
    """Return panel i of _histogram_svg."""
    scale, title, subtitle, xlabel, sides = _difference_words(r, j,
                                                              confidence)
    ci = Interval(*(scale * float(x) for x in r.ci_paired))
    margin = None
    if j is not None and j.margin is not None:
        margin = scale * float(j.margin) * (-1 if r.direction == "higher"
                                            else 1)
    ends = [0.0, ci.lo, ci.hi] + [margin] * (margin is not None)
    level = _decimal(_exact(confidence) * 100)
    if isinstance(r.draws, _Density):
        xs = [scale * x for x in r.draws.x]
        fs = [f / scale for f in r.draws.density]
        if not math.isfinite(fs[0]):             # a point mass: a spike
            xs, fs = xs * 3, [0.0, 1.0, 0.0]
        ylabel, entry = "density", [("#4a7ab5", "", "density")]
        lo, hi = min(xs[0], *ends), max(xs[-1], *ends)
        top = max(fs)
    elif r.draws:
        draws = sorted(scale * x for x in r.draws)
        lo, hi = min(draws[0], *ends), max(draws[-1], *ends)
        count = bins
        if hi == lo:                     # every resample 0: one bar, centred
            lo, hi, count = -0.5, 0.5, bins | 1
        width = (hi - lo) / count
        counts = [0] * count
        for v in draws:
            counts[min(count - 1, int((v - lo) / width))] += 1
        ylabel, entry, top = "resamples", [], max(counts)
    else:                                # nothing kept: the interval alone
        lo, hi, ylabel, entry, top = min(ends), max(ends), "", [], 1
    if hi == lo:                         # no spread: a spike at 0
        lo, hi = -0.5, 0.5
    pad = (hi - lo) / 20                 # no line on the panel's edge
    xticks = _nice_ticks(lo - pad, hi + pad)
    yticks = _nice_ticks(0, top) if ylabel else []
    frame = _Frame(xticks[0], xticks[-1], 0, yticks[-1] if yticks else 1,
                   i * _H)
    body = _axes(frame, xticks, yticks, title, xlabel, ylabel, subtitle,
                 sides)
    if r.mcnemar is not None:            # the items' own differences
        m = r.mcnemar
        wins = ((m.b_only, m.a_only) if r.direction == "higher"
                else (m.a_only, m.b_only))
        words = (f"items: {wins[0]:,} better, {wins[1]:,} worse, "
                 f"{r.n_items - sum(wins):,} the same")
        room = _W - _LEFT - _RIGHT - 2 * max(map(_text_width, sides)) - 24
        body.append(f'<text x="{(_LEFT + _W - _RIGHT) / 2:.1f}" '
                    f'y="{frame.y(0) + 58:.1f}" text-anchor="middle" '
                    f'font-size="{_fitted(words, 12, room)}" fill="#333">'
                    f'{_xml_escape(words)}</text>')
    if isinstance(r.draws, _Density):
        points = " ".join(f"{frame.x(x):.1f},{frame.y(f):.1f}"
                          for x, f in zip(xs, fs))
        body.append(f'<polyline points="{points}" fill="none" '
                    f'stroke="#4a7ab5" stroke-width="2"/>')
    elif r.draws:
        for k, c in enumerate(counts):
            x0, x1 = frame.x(lo + k * width), frame.x(lo + (k + 1) * width)
            body.append(f'<rect x="{x0:.1f}" y="{frame.y(c):.1f}" '
                        f'width="{max(x1 - x0 - 1, 0.5):.1f}" '
                        f'height="{frame.y(0) - frame.y(c):.1f}" '
                        f'fill="#9cb9dd"/>')
    else:                                # the estimate on its interval
        y = frame.y(0.5)
        body.append(f'<line x1="{frame.x(ci.lo):.1f}" y1="{y:.1f}" '
                    f'x2="{frame.x(ci.hi):.1f}" y2="{y:.1f}" '
                    f'stroke="#c0392b" stroke-width="3"/><circle cx="'
                    f'{frame.x(scale * float(r.gap)):.1f}" cy="{y:.1f}" '
                    f'r="5" fill="#c0392b"/>')
    body += _ci_lines(frame, ci if r.draws else None, margin)
    entry += [("#c0392b", "", f"{level}% CI"),
              ("#555", ' stroke-dasharray="6 4"', "zero")]
    entry += [("#d35400", ' stroke-dasharray="2 3"',
               "margin")] * (margin is not None)
    if isinstance(r.draws, _Density):    # what reaches the legend's rows
        high = [x for x, f in zip(xs, fs) if f > 0.7 * frame.y1]
    elif r.draws:
        high = [lo + (k + 0.5) * width for k, c in enumerate(counts)
                if c > 0.7 * frame.y1]
    else:
        high = []
    lines = [v for v in ends[:3 if r.draws else 1] + ends[3:]]

    def crossed(left):                   # lines and mass under the legend
        x0 = _LEFT + 6 if left else _W - _RIGHT - 114
        return sum(x0 <= frame.x(v) <= x0 + 118 for v in lines) + 2 * any(
            x0 <= frame.x(v) <= x0 + 118 for v in high)
    left = crossed(True) < crossed(False) or (
        crossed(True) == crossed(False)
        and (ci.lo + ci.hi) / 2 > (frame.x0 + frame.x1) / 2)
    body.append(_legend(i * _H, entry, left=left))
    return body


def _ci_lines(frame, ci, margin=None):
    """Return a panel's lines: the paired CI's ends (solid; none where
    *ci* is None), 0 (dashed) and the margin (dotted)."""
    out = []
    ci = ci or Interval(None, None)
    for value, colour, dash in ((ci.lo, "#c0392b", ""),
                                (ci.hi, "#c0392b", ""),
                                (0.0, "#555", ' stroke-dasharray="6 4"'),
                                (margin, "#d35400",
                                 ' stroke-dasharray="2 3"')):
        if value is None:
            continue
        x = frame.x(float(value))
        out.append(f'<line x1="{x:.1f}" y1="{frame.y(0):.1f}" '
                   f'x2="{x:.1f}" y2="{frame.y(frame.y1):.1f}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>')
    return out


_DATA_SUFFIXES = (".gz", ".jsonl", ".json", ".csv", ".tsv", ".eval")


def _short_name(name):
    """Return a system's name as a picture shows it: without a data
    file's extension ("cand.jsonl" is "cand").

    >>> _short_name("runs/cand.jsonl.gz"), _short_name("gpt-4.json")
    ('runs/cand', 'gpt-4')
    """
    for suffix in _DATA_SUFFIXES:
        if name.lower().endswith(suffix) and len(name) > len(suffix):
            name = name[:-len(suffix)]
    return name


def _forest_svg(ranking, *, confidence=CONFIDENCE, marginal=False):
    """Return an SVG forest plot of a _Ranking: a row per system, best
    first, its mean (dot) and CI (line) in the table's units, its rank
    set at the right; the top group's rows shaded."""
    r = ranking
    order = sorted(range(len(r.names)), key=lambda s: (r.ranks[s], s))
    rated = r.kind == "preferences"
    scale = 100 if r.kind == "binary" else 1      # percent, as the table
    cis = [Interval(scale * float(ci.lo), scale * float(ci.hi))
           for ci in r.cis]
    lo, hi = min(ci.lo for ci in cis), max(ci.hi for ci in cis)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) / 20
    xticks = _nice_ticks(lo - pad, hi + pad)
    rows = len(order)
    frame = _Frame(xticks[0], xticks[-1], 0, rows, 0)
    level = _decimal(_exact(confidence) * 100)
    what = "rating" if rated else "mean"
    joint = r.joint_rank_cis is not None and not marginal
    body = _axes(frame, xticks, [], f"{r.metric}: {what} and {level}% CI, "
                 f"{r.direction} is better", r.metric + " (%)" * (
                     scale == 100), "",
                 f"the top group shaded; at the right each rank and its "
                 f"{level}% {'joint set' if joint else 'interval'}")
    esc = _xml_escape
    names = [_short_name(name) for name in r.names]
    for row, s in enumerate(order):
        y0, y1 = frame.y(rows - row), frame.y(rows - row - 1)
        y = (y0 + y1) / 2
        if r.top[s]:
            body.append(f'<rect x="{frame.x(frame.x0):.1f}" y="{y0:.1f}" '
                        f'width="{frame.x(frame.x1) - frame.x(frame.x0):.1f}"'
                        f' height="{y1 - y0:.1f}" fill="#e8eef7"/>')
        rank_lo, rank_hi = (r.joint_rank_cis if joint else r.rank_cis)[s]
        body.append(f'<line x1="{frame.x(cis[s].lo):.1f}" '
                    f'y1="{y:.1f}" x2="{frame.x(cis[s].hi):.1f}" '
                    f'y2="{y:.1f}" stroke="#1f5fa8" stroke-width="2"/>'
                    f'<circle cx="{frame.x(scale * float(r.means[s])):.1f}" '
                    f'cy="{y:.1f}" r="4" fill="#1f5fa8"/>'
                    f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" '
                    f'text-anchor="end" font-size="12">{esc(names[s])}'
                    f'</text><text x="{_W + 4}" y="{y + 4:.1f}" '
                    f'font-size="12">{r.ranks[s]:g} ({rank_lo:g}-'
                    f'{rank_hi:g})</text>')
    y = _H + 12                          # the legend in a row of its own
    body.append(f'<line x1="{_LEFT}" y1="{y}" x2="{_LEFT + 24}" y2="{y}" '
                f'stroke="#1f5fa8" stroke-width="2"/>'
                f'<text x="{_LEFT + 30}" y="{y + 4}" font-size="12">'
                f'{what}, {level}% CI</text>'
                f'<rect x="{_LEFT + 160}" y="{y - 5}" width="24" height="10" '
                f'fill="#e8eef7" stroke="#888"/>'
                f'<text x="{_LEFT + 190}" y="{y + 4}" font-size="12">top '
                f'group</text>')
    # the names' margin as wide as the longest name needs
    extra = math.ceil(max(0.0, max(_text_width(name) for name in names)
                          - (_LEFT - 12)))
    width, height = _W + extra + 64, _H + 30   # 64: the rank column
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" '
            f'fill="white"/>\n<g transform="translate({extra} 0)">\n'
            + "\n".join(body) + "\n</g>\n</svg>\n")


def _intervals_svg(rows, *, title, xlabel, subtitle=None, sides=None):
    """Return an SVG of estimates with their intervals, a row each, against
    zero (dashed): *rows* are (label, estimate, lo, hi), in the units
    the axis shows (the judge against the humans, say)."""
    ends = [0.0] + [x for _, est, lo, hi in rows for x in (est, lo, hi)]
    lo, hi = min(ends), max(ends)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) / 20
    xticks = _nice_ticks(lo - pad, hi + pad)
    n = len(rows)
    frame = _Frame(xticks[0], xticks[-1], 0, n, 0)
    body = _axes(frame, xticks, [], title, xlabel, "", subtitle, sides)
    x = frame.x(0.0)
    body.append(f'<line x1="{x:.1f}" y1="{frame.y(0):.1f}" x2="{x:.1f}" '
                f'y2="{frame.y(n):.1f}" stroke="#555" stroke-width="2" '
                f'stroke-dasharray="6 4"/>')
    for k, (label, est, a, b) in enumerate(rows):
        y = (frame.y(n - k) + frame.y(n - k - 1)) / 2
        body.append(f'<line x1="{frame.x(a):.1f}" y1="{y:.1f}" '
                    f'x2="{frame.x(b):.1f}" y2="{y:.1f}" stroke="#1f5fa8" '
                    f'stroke-width="2"/><circle cx="{frame.x(est):.1f}" '
                    f'cy="{y:.1f}" r="4" fill="#1f5fa8"/>'
                    f'<text x="{_LEFT - 6}" y="{y + 4:.1f}" '
                    f'text-anchor="end" font-size="12">{_xml_escape(label)}'
                    f'</text>')
    extra = math.ceil(max(0.0, max(_text_width(row[0]) for row in rows)
                          - (_LEFT - 12)))
    width = _W + extra
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{_H}" viewBox="0 0 {width} {_H}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" '
            f'fill="white"/>\n<g transform="translate({extra} 0)">\n'
            + "\n".join(body) + "\n</g>\n</svg>\n")


def _matrix_svg(names, cells, *, title, subtitle):
    """Return an SVG heat map of a square matrix: *cells*[i][j] is
    (text, shade in [-1, 1], bold) or None (the diagonal); blue where the
    row does better, red where the column does."""
    n = len(names)
    label = max(_text_width(name) for name in names) + 12
    cell = max(56, math.ceil(max((_text_width(c[0]) for row in cells
                                  for c in row if c), default=0)) + 10)
    top = 60 + label                     # the columns' names, turned
    width = math.ceil(label + n * cell + 16)
    height = math.ceil(top + n * cell + 10)
    width = max(width, math.ceil(max(_text_width(title, 14),
                                     _text_width(subtitle))) + 16)
    esc = _xml_escape
    body = [f'<text x="8" y="20" font-size="{_fitted(title, 14, width - 16)}"'
            f'>{esc(title)}</text><text x="8" y="38" font-size="'
            f'{_fitted(subtitle, 12, width - 16)}" fill="#333">'
            f'{esc(subtitle)}</text>']
    for k, name in enumerate(names):
        y = top + k * cell + cell / 2 + 4
        x = label + k * cell + cell / 2 + 4
        body.append(f'<text x="{label - 6:.1f}" y="{y:.1f}" '
                    f'text-anchor="end" font-size="12">{esc(name)}</text>'
                    f'<text x="{x:.1f}" y="{top - 6:.1f}" font-size="12" '
                    f'transform="rotate(-90 {x:.1f} {top - 6:.1f})">'
                    f'{esc(name)}</text>')
    for i, row in enumerate(cells):
        for k, c in enumerate(row):
            x, y = label + k * cell, top + i * cell
            if c is None:
                body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell}" '
                            f'height="{cell}" fill="#eee"/>')
                continue
            text, shade, bold = c
            shade = max(-1.0, min(1.0, shade))
            fill = (f"rgb({round(255 - 160 * shade)},"
                    f"{round(255 - 100 * shade)},255)" if shade >= 0 else
                    f"rgb(255,{round(255 + 120 * shade)},"
                    f"{round(255 + 120 * shade)})")
            body.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{cell}" '
                        f'height="{cell}" fill="{fill}" stroke="white"/>'
                        f'<text x="{x + cell / 2:.1f}" '
                        f'y="{y + cell / 2 + 4:.1f}"'
                        f' text-anchor="middle" font-size="12"'
                        + ' font-weight="bold"' * bool(bold)
                        + f'>{esc(text)}</text>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}" '
            f'font-family="sans-serif">\n<rect width="100%" height="100%" '
            f'fill="white"/>\n' + "\n".join(body) + "\n</svg>\n")


# Text widths of sans-serif at 12 px, by character class (from the advance
# widths of Helvetica and DejaVu Sans, rounded up): enough to size margins
# so that no label runs off the canvas.
_NARROW, _WIDE = set("iljtfrI.,;:'!|()[] "), set("mwMW@%")


def _fitted(text, size, room):
    """Return the font size, at most *size*, at which *text* fits *room*
    px (one decimal; never below 7)."""
    width = _text_width(text, size)
    return size if width <= room else max(7.0, math.floor(
        10 * size * room / width) / 10)


def _text_width(text, size=12):
    """Return an upper estimate of the width of *text* in px."""
    em = sum(0.34 if c in _NARROW else 0.9 if c in _WIDE else
             0.7 if c.isupper() else 0.6 for c in text)
    return em * size


def _xml_escape(text):
    """Return text with &, < and > escaped for SVG (xml.sax.saxutils's
    escape, without importing urllib.request behind it at start-up)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">",
                                                                   "&gt;")


def _legend(top, entries, left=False):
    """Return a legend at the panel's top right (or left): (colour, dash,
    label)."""
    out = []
    for k, (colour, dash, label) in enumerate(entries):
        y = top + _TOP + 12 + 16 * k
        x = _LEFT + 10 if left else _W - _RIGHT - 110
        out.append(f'<line x1="{x}" y1="{y}" x2="{x + 24}" y2="{y}" '
                   f'stroke="{colour}" stroke-width="2"{dash}/>'
                   f'<text x="{x + 30}" y="{y + 4}" font-size="12">'
                   f'{_xml_escape(label)}</text>')
    return "".join(out)


_ROLE_WORDS = {"cluster": "cluster (--cluster)", "subset": "subset (--by)",
               "human labels": "human labels (--human)"}


def _format_check(checked, prog, markdown=False):
    """Return check's report: each input (how it was read, its fields),
    how the ids join, the problems, then the commands, each runnable as
    printed (*prog* is the program as it was invoked) with what it
    answers."""
    md = _markdown if markdown else str
    item = "- " if markdown else "  "       # a listed line's start
    lines = [md(f"check: {_items(len(checked.inputs), 'input')}")]
    for p in checked.inputs:
        lines += [""] + [md(line) for line in _input_lines(p)]
        rows = [_field_row(f) for f in p.fields]
        if rows:
            lines += [""] * markdown + _table(
                [["field", "type", "values", "missing", "looks like"]]
                + rows, markdown) + [""] * (markdown and bool(p.notes))
        lines += [md(f"{item}read: {note}") for note in p.notes]
    lines += [""] + [md(x) for x in (["ids:"] + [
        f"{item}{line}" for line in checked.joins] if checked.joins else
        ["ids: no two inputs share ids"])]
    lines += [""] + [md(x) for x in (["problems:"] + [
        f"{item}{line}" for line in checked.problems] if checked.problems
        else ["problems: none seen"])]
    if not checked.commands:
        lines += ["", md("commands: none: a comparison needs two runs on "
                         "the same items, a file holding two systems, or "
                         "pairwise preferences")]
        return "\n".join(lines)
    lines += ["", md("commands (run from this folder):")]
    shown = [(" ".join([prog] + [shlex.quote(a) for a in argv]), what)
             for argv, what in checked.commands]
    if markdown:
        for command, what in shown:
            lines += ["", md(what + ":"), "", "```", command, "```"]
    else:
        for command, what in shown:
            lines += [f"  {command}", f"      {what}"]
    return "\n".join(lines)


def _input_lines(p):
    """Return the head lines of one input of check's report."""
    head = p.path
    if p.refused and not p.format:
        return [f"{head}: refused: {p.refused}"]
    if p.refused:
        return [f"{head}: read as {p.format}, refused: {p.refused}"]
    how = p.format + (f" ({p.kind})" if p.kind and p.kind != p.format
                      else "")
    said = [f"{head}: {how}"]
    said += [f"task {p.task}"] * bool(p.task)
    if p.runs:
        said.append(f"{_items(len(p.runs), 'run')} of one system "
                    f"({_some([os.path.basename(r) for r in p.runs], 4)}; "
                    f"the first profiled)")
    said.append(_items(p.records, "record"))
    if p.ids:
        said.append(f"{_items(len(p.ids))} (id field {p.id_field})")
    elif p.kind != "preferences":
        said.append("no id field")
    if p.systems:
        said.append(f"systems {_some(list(p.systems), 6)}")
    if p.content:
        said.append(f"item content in {p.content}")
    return [", ".join(said)]


def _field_row(f):
    """Return one field's row of check's table."""
    if f.lo is not None and f.kind in ("0/1", "number", "true/false"):
        values = (f"mean {_g(f.mean)}" if f.kind == "0/1" else
                  f"{_g(f.lo)} to {_g(f.hi)}, mean {_g(f.mean)}")
    elif f.kind in ("list", "object"):
        values = ""
    elif f.distinct is None:
        values = "many distinct: " + ", ".join(f.examples)
    else:
        values = f"{f.distinct} distinct" + (
            ": " + ", ".join(f.examples) if f.examples else "") + (
            ", ..." if f.distinct > len(f.examples) else "")
    roles = ", ".join(_ROLE_WORDS.get(r, r) for r in f.roles)
    return [f.name, f.kind, values, str(f.missing) if f.missing else "",
            roles]


def _g(x):
    """Return a number in 4 significant digits."""
    return f"{x:.4g}"


def _check_json(checked):
    """Return check's report as a JSON object: the commands as argv lists
    (without the program), what each answers in "answers"."""
    return {"inputs": [dict(
        path=p.path, format=p.format or None, kind=p.kind or None,
        task=p.task or None, records=p.records, items=len(p.ids),
        id_field=p.id_field, content=p.content, runs=list(p.runs),
        systems=list(p.systems), metrics=list(p.metrics),
        notes=list(p.notes), refused=p.refused or None,
        fields=[dict(name=f.name, type=f.kind, count=f.count,
                     missing=f.missing, min=f.lo, max=f.hi, mean=f.mean,
                     distinct=f.distinct, examples=list(f.examples),
                     roles=list(f.roles)) for f in p.fields])
        for p in checked.inputs],
        "joins": checked.joins, "problems": checked.problems,
        "commands": [argv for argv, _ in checked.commands],
        "answers": [what for _, what in checked.commands]}


## Library use ################################################################

# compare() and rank() serve notebooks: plain sequences of per-item scores
# in item order (the caller pairs them; files are joined on their ids),
# holding bools, ints, floats, Fractions or anything with __index__ or
# __float__ (numpy's scalars and arrays, a pandas Series) without
# importing them.  They read the values as the command line reads a wide
# file of the same columns, and run the same statistics with the same
# seeded random.Random, so to_dict() is the JSON of compare or rank --json
# on that file, and str() its text report.  The seed is 2026 unless given.

class Comparison:
    """What compare() found, as plain numbers and words.

    The fields a notebook reaches for are floats: *a* and *b* (each
    system's mean), *gap* (b - a), *ci* (the paired interval of the gap,
    a (low, high) tuple), *ci_a* and *ci_b* (each mean's interval), *p*
    (the paired test's p-value) and *p_holm*; *verdict* is the verdict in
    words and *notes* what qualifies it (an interval of no width says "no
    spread"), *metric*, *n_items* and *test* say what was compared and how.
    str() is the text report and to_dict() the JSON of compare --json;
    *result* (a _MetricResult, exact Fractions where the figures are
    exact) and *judgement* hold everything behind them, and *options* the
    settings they were computed with.

    >>> c = compare([1, 0, 1, 1, 0] * 40, [1, 1, 1, 0, 1] * 40)
    >>> c.gap, [round(x, 3) for x in c.ci], c.verdict
    (0.2, [0.089, 0.306], 'better')
    >>> round(c.p, 6), c.n_items
    (0.00033, 200)
    """
    __slots__ = {"run": "the judged comparison behind every figure",
                 "options": "the options the figures were computed with"}

    def __init__(self, run, options):
        self.run, self.options = run, options

    result = property(lambda self: self.run.results[0],
                      doc="the MetricResult behind every figure")
    judgement = property(lambda self: self.run.judgements[0],
                         doc="the Judgement: verdict, Holm's p, notes")
    names = property(lambda self: tuple(self.run.names),
                     doc="the two systems' names, baseline first")

    metric = property(lambda self: self.result.metric,
                      doc="the metric's name")
    n_items = property(lambda self: self.result.n_items,
                       doc="the number of paired items")
    test = property(lambda self: self.result.test,
                    doc="the paired test behind p")
    a = property(lambda self: float(self.result.a),
                 doc="the baseline's mean")
    b = property(lambda self: float(self.result.b),
                 doc="the candidate's mean")
    gap = property(lambda self: float(self.result.gap),
                   doc="the candidate's mean minus the baseline's")
    ci = property(lambda self: _floats(self.result.ci_paired),
                  doc="the paired interval of the gap, (low, high)")
    ci_a = property(lambda self: _floats(self.result.ci_a),
                    doc="the baseline mean's interval, (low, high)")
    ci_b = property(lambda self: _floats(self.result.ci_b),
                    doc="the candidate mean's interval, (low, high)")
    p = property(lambda self: float(self.result.p),
                 doc="the paired test's two-sided p-value")
    p_holm = property(lambda self: float(self.judgement.p_holm),
                      doc="p after Holm's adjustment (itself, for one metric)")
    verdict = property(lambda self: self.judgement.verdict,
                       doc="better, worse, no detectable difference, ...")

    @property
    def notes(self):
        """The notes behind the verdict, in words, as the report's; an
        interval of no width says so (the report's "no spread"), for
        (0, 0) is not certainty."""
        lo, hi = self.ci
        return list(self.judgement.notes) + (
            ["no spread: every paired difference is the same, so the "
             "interval has no width and says nothing of its certainty"]
            if lo == hi else [])

    def __repr__(self):
        lo, hi = self.ci
        ci = ("no spread" if lo == hi else f"({lo:+.6g}, {hi:+.6g})")
        return (f"Comparison(metric={self.metric!r}, n_items={self.n_items}, "
                f"a={self.a:.6g}, b={self.b:.6g}, "
                f"gap={self.gap:+.6g}, ci={ci}, p={self.p:.4g}, "
                f"verdict={self.verdict!r})")

    def __str__(self):
        return _format_compare(self.run, self.options)

    def to_dict(self):
        """Return the JSON object of compare --json, as a dict."""
        return _compare_json(self.run, self.options)


def _floats(interval):
    """Return an Interval of exact or float bounds as a (low, high) tuple
    of floats."""
    return float(interval.lo), float(interval.hi)


class Standings:
    """What rank() found, as plain numbers and words.

    *names*, *means* (floats), *ranks* and *top* (whether each system is
    in the top group) are lists in the systems' order; *best* names the
    systems of the top group.  str() is the text report and to_dict() the
    JSON of rank --json; *ranking* holds everything behind them, and
    *options* the settings they were computed with.

    >>> s = rank({"a": [1, 0, 1, 1] * 25, "b": [0, 0, 1, 0] * 25,
    ...           "c": [1, 1, 1, 0] * 25}, resamples=500)
    >>> s.means, s.best
    ([0.75, 0.25, 0.75], ['a', 'c'])
    """
    __slots__ = {"ranked": "the ranking behind every figure",
                 "options": "the options the figures were computed with"}

    def __init__(self, ranked, options):
        self.ranked, self.options = ranked, options

    ranking = property(lambda self: self.ranked.ranking,
                       doc="the Ranking behind every figure")

    metric = property(lambda self: self.ranking.metric,
                      doc="the metric's name")
    n_items = property(lambda self: self.ranking.n_items,
                       doc="the number of items every system has")
    names = property(lambda self: list(self.ranking.names),
                     doc="the systems' names, in the order given")
    means = property(lambda self: [float(m) for m in self.ranking.means],
                     doc="each system's mean")
    ranks = property(lambda self: list(self.ranking.ranks),
                     doc="each system's rank (ties share the average)")
    top = property(lambda self: list(self.ranking.top),
                   doc="whether each system is in the top group")
    best = property(lambda self: [n for n, t in zip(self.ranking.names,
                                                    self.ranking.top) if t],
                    doc="the names of the top group's systems")

    def __repr__(self):
        r = self.ranking
        shown = ", ".join(f"{name}: {float(mean):.4g} (rank {rank:g})"
                          for name, mean, rank in list(zip(
                              r.names, r.means, r.ranks))[:6])
        more = f", +{len(r.names) - 6} more" if len(r.names) > 6 else ""
        return (f"Standings(metric={r.metric!r}, n_items={r.n_items}, "
                f"{shown}{more}; top group {self.best[:6]!r})"[:480])

    def __str__(self):
        return _format_rank(self.ranked, self.options)

    def to_dict(self):
        """Return the JSON object of rank --json, as a dict."""
        return _rank_json(self.ranked, self.options)


def plan(acc_a, acc_b, *, corr=None, discordance=None, alpha=0.05,
         power=_POWER, n_items=None):
    """Return the Plan of a paired binary eval before it is run (see
    _plan_design): str() is plan's text report, to_dict() its JSON.

    >>> p = plan(0.72, 0.76, corr=0.6)
    >>> p
    Plan(acc_a=0.72, acc_b=0.76, discordance=0.3037, alpha=0.05, power=0.8, items_needed=1533, unpaired=1887)
    >>> p.to_dict()["items_needed"]
    1533
    """
    return _plan_design(acc_a, acc_b, corr=corr, discordance=discordance,
                       alpha=alpha, power=power, n_items=n_items)


def _plain(values, name):
    """Return a list of plain numbers (int, float, Fraction) of a sequence
    of scores: bools and __index__ types as ints, others by __float__.

    >>> _plain([True, 0, 0.5], "a")
    [1, 0, 0.5]
    """
    out = []
    for i, value in enumerate(values):
        if isinstance(value, (bool, int, Fraction)):
            out.append(int(value) if isinstance(value, bool) else value)
            continue
        try:
            out.append(operator.index(value))
            continue
        except TypeError:
            pass
        try:
            out.append(float(value))
        except (TypeError, ValueError):
            raise EvalDeltaError(f"{name}[{i}]: not a number: "
                                 f"{value!r}") from None
    return out


def _library_spec(value, parse, keyword):
    """Return a library keyword's value as its option's parser reads it
    (a string as on the command line, a pair as LO,HI), or None.

    >>> _library_spec("1,10", _judge_map_of, "judge_map")
    (1.0, 10.0)
    """
    if value is None:
        return None
    text = value if isinstance(value, str) else ",".join(map(str, value))
    try:
        return parse(text)
    except EvalDeltaError as error:
        raise EvalDeltaError(f"{keyword}: {error}") from None


def compare(baseline, candidate, *, metric="metric", kind=None,
            direction="higher", margin=None, confidence=CONFIDENCE,
            alpha=0.05, resamples=RESAMPLES, interval="percentile",
            method="auto", seed=SEED, jobs=1, human_a=None, human_b=None,
            judge_map=None, scale=None):
    """Return the Comparison of two systems' per-item scores, in item order.

    *kind* is "binary" or "continuous" (default: binary when every value
    is 0 or 1); *direction* "higher" or "lower" is better; *margin* a
    non-inferiority margin in the metric's units.  With *human_a* and
    *human_b*, each system's human scores item by item (None where a
    human gave none), the scores are a judge's, corrected by them as
    compare --human corrects them (prediction-powered inference, PPI++);
    to_dict()'s "judge_corrected" holds the detail; *judge_map* (">=7" or
    "1,10") and *scale* ((1, 5)) are --judge-map's and --scale's.  The
    other options are compare's; one metric is a family of one, which
    every adjustment leaves as it is, so --adjust (across metrics, subsets
    and candidates) has no keyword here.  If the sequences differ in
    length or hold a value that is not a finite number, EvalDeltaError is
    raised.

    >>> c = compare([1, 0, 1, 1, 0] * 40, [1, 1, 1, 0, 1] * 40)
    >>> c
    Comparison(metric='metric', n_items=200, a=0.6, b=0.8, gap=+0.2, ci=(+0.0885392, +0.305949), p=0.0003304, verdict='better')
    >>> c.to_dict()["metrics"][0]["mcnemar"]["b_only"]
    80
    """
    options = _library_options(
        confidence=confidence, alpha=alpha, resamples=resamples, seed=seed,
        jobs=jobs, interval=interval, method=method,
        margin=() if margin is None else ((None, margin),),
        judge_map=_library_spec(judge_map, _judge_map_of, "judge_map"),
        scale=_library_spec(scale, _bounds_of, "scale"))
    m = _Metric(metric, kind=kind, direction=direction)
    a, b = _library_columns([_plain(baseline, "baseline"),
                             _plain(candidate, "candidate")],
                            ["baseline", "candidate"], kind)
    if (human_a is None) != (human_b is None):
        raise EvalDeltaError("give human_a and human_b, each system's human "
                             "scores (None where a human gave none), or "
                             "neither")
    if human_a is not None:
        human = [_library_labels(h, name, len(a)) for h, name in (
            (human_a, "human_a"), (human_b, "human_b"))]
        result, check = _judged_metric(
            _Columns(array("d", a), array("d", b)),
            _Columns(*(array("d", h) for h in human)), m,
            random.Random(seed), options, ["human_a", "human_b"])
        run = _Compared(("baseline", "candidate"), [result], [], 0, [],
                        _margins(options.margin, [metric]), checks=(check,))
        return Comparison(_judged([run], options)[0], options)
    tally = collections.Counter(zip(a, b))
    if len(tally) > max(_BATCH, len(a) // 2):   # as a file's are read
        tally = _Columns(array("d", a), array("d", b))
    result = _compare_tally(tally, random.Random(seed), options, m)
    run = _Compared(("baseline", "candidate"), [result], [], 0, [],
                    _margins(options.margin, [metric]))
    return Comparison(_judged([run], options)[0], options)


def rank(systems, *, metric="score", direction="higher",
         confidence=CONFIDENCE, alpha=0.05, resamples=RESAMPLES,
         method="auto", seed=SEED, jobs=1):
    """Return the Standings of several systems' per-item scores: *systems*
    maps each name to its scores in item order (or is a list of them,
    named system 1, 2, ...).  The options are rank's.

    >>> s = rank({"a": [1, 0, 1, 1] * 25, "b": [0, 0, 1, 0] * 25,
    ...           "c": [1, 1, 1, 0] * 25}, resamples=500)
    >>> s.ranking.ranks, s.ranking.top
    ([1.5, 3, 1.5], [True, False, True])
    """
    if not isinstance(systems, dict):
        systems = {f"system {i}": v for i, v in enumerate(systems, 1)}
    names = [str(name) for name in systems]
    options = _library_options(confidence=confidence, alpha=alpha,
                               resamples=resamples, seed=seed, jobs=jobs,
                               method=method)
    columns = [_plain(v, name) for name, v in zip(names, systems.values())]
    tally = collections.Counter(zip(*_library_columns(columns, names)))
    ranking = _rank_systems(tally, random.Random(seed), names, options,
                            _Metric(metric, direction=direction))
    return Standings(_Ranked(ranking), options)


def _library_options(**given):
    """Return the _Options of compare() or rank(), checked as the command
    line checks them: the same errors, in the library's words."""
    for name in ("confidence", "alpha"):
        if not 0 < given[name] < 1:
            raise EvalDeltaError(f"{name} must be in (0, 1), not "
                                 f"{given[name]!r}")
    if type(given["resamples"]) is not int or given["resamples"] < 1:
        raise EvalDeltaError(f"resamples must be a whole number of at "
                             f"least 1, not {given['resamples']!r}")
    for name, allowed in (("interval", ("percentile", "bca")),
                          ("method", _METHODS)):
        if given.get(name, allowed[0]) not in allowed:
            raise EvalDeltaError(f"{name} must be one of "
                                 f"{', '.join(allowed)}, not "
                                 f"{given[name]!r}")
    _check_resamples(given["resamples"], given["confidence"])
    return _Options(**given)


def _library_labels(values, name, n):
    """Return human scores, None (or NaN) where a human gave none, as
    floats with NaN for none; one per item."""
    values = list(values)
    if len(values) != n:
        raise EvalDeltaError(f"{name} has {len(values)} values for {n} "
                             f"items: give one per item, None where a human "
                             f"gave no score")
    out = []
    for i, value in enumerate(values):
        if value is None or (isinstance(value, float) and value != value):
            out.append(math.nan)
            continue
        try:
            out.append(_finite_number(_plain([value], name)[0]))
        except ValueError as exc:
            raise EvalDeltaError(f"{name}[{i}]: {exc}") from None
    return out


def _library_columns(columns, names, kind=None):
    """Return *columns* of plain numbers, one per system in item order, as
    floats, as a file's values are read: each a finite number (and 0 or 1
    where *kind* is binary), the columns of one length."""
    if len({len(c) for c in columns}) > 1:
        if len(columns) == 2:
            raise EvalDeltaError(f"the baseline has {len(columns[0])} "
                                 f"values and the candidate "
                                 f"{len(columns[1])}: give one per item "
                                 f"each")
        raise EvalDeltaError("the systems have " + ", ".join(
            f"{name} {len(c)}" for name, c in zip(names, columns))
            + " values: give one per item each")
    if not columns[0]:
        raise EvalDeltaError("no items to compare" if len(columns) == 2
                             else "no items to rank")
    floats = []
    for name, column in zip(names, columns):
        out = []
        for i, value in enumerate(column):
            try:
                x = _finite_number(value)
            except ValueError as exc:
                raise EvalDeltaError(f"{name}[{i}]: {exc}") from None
            if kind == "binary" and x not in (0, 1):
                raise EvalDeltaError(f"{name}[{i}] is declared binary but "
                                     f"is {x:g}")
            out.append(x)
        floats.append(out)
    return floats


## Command line ###############################################################

_COMMANDS = ("simulate", "compare", "plan", "rank", "check")


def _bounded(kind, lo, hi, *, lo_open=True, hi_open=True):
    """Return an argparse type: a number of *kind* in the given range."""
    def check(text):
        try:
            x = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected a number, not {text!r}") from None
        too_low = x <= lo if lo_open else x < lo
        too_high = hi is not None and (x >= hi if hi_open else x > hi)
        if too_low or too_high or not math.isfinite(x):
            left, right = "(" if lo_open else "[", ")" if hi_open else "]"
            span = f"{left}{lo}, {'inf' if hi is None else hi}{right}"
            raise argparse.ArgumentTypeError(f"must be in {span}, not {text}")
        return x
    return check


_PROBABILITY = _bounded(float, 0, 1)
_CORRELATION = _bounded(float, 0, 1, lo_open=False)


def _at_least(minimum):
    """Return an argparse type for whole numbers of at least *minimum*."""
    return _bounded(int, minimum, None, lo_open=False)


def _add_common(stats, output):
    """Add the options every command shares: resamples, seed, confidence
    (to the group *stats*), --format and --json (to *output*)."""
    stats.add_argument("--resamples", type=_at_least(1), default=RESAMPLES,
                        help="bootstrap resamples per interval "
                             "(default %(default)s)")
    stats.add_argument("--seed", type=int, default=SEED,
                        help="seed of the random.Random that drives every "
                             "draw (default %(default)s)")
    stats.add_argument("--confidence", type=_PROBABILITY, default=CONFIDENCE,
                        help="two-sided confidence of the intervals "
                             "(default %(default)s)")
    _add_format(output)


def _add_format(parser):
    """Add --format (a row of _OUTPUT_FORMATS) and --json, its short form."""
    parser.add_argument("--format", choices=list(_OUTPUT_FORMATS),
                        help="report format (default text; markdown suits "
                             "a pull-request comment; json is --json; html "
                             "is one self-contained page)")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object instead of the text "
                             "report (values as fractions: 0.036, not 3.6)")


def _add_quiet(parser):
    """Add --quiet: no progress on stderr."""
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (by default a line "
                             "rewritten on a terminal, else a line every "
                             f"{_PIPED_EVERY:g} s of long work)")


def _add_verbose(parser):
    """Add --verbose: the report's every note for every metric."""
    parser.add_argument("--verbose", action="store_true",
                        help="the full report: each metric's notes, churn "
                             "and sizing in its own lines (by default a "
                             "note that holds for several metrics is said "
                             "once)")


def _add_jobs(parser, work):
    """Add --jobs, the processes that may share *work*."""
    parser.add_argument("--jobs", type=_at_least(1),
                        default=2 if _can_fork() else 1,
                        help=f"processes for {work}: 1 does all the work "
                             f"here, 2 adds a helper process; the numbers "
                             f"are identical (default %(default)s here)")


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose usage errors are one line on stderr (the
    command, the problem, where the options are listed) and exit 2, not
    the whole usage block before the line that matters."""

    _MISSING = {"compare": "give the baseline's run, then the candidate's "
                           "(or one file holding both)",
                "rank": "give the runs to rank (or one wide file with "
                        "--systems)",
                "check": "give the files or folders to check"}

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)    # --n-item is a typo,
        super().__init__(*args, **kwargs)           # not --n-items

    def error(self, message):
        message = " ".join(message.split())
        if message.startswith("the following arguments are required"):
            message = self._MISSING.get(self.prog.split()[-1], message)
        elif message.startswith("unrecognized arguments: "):
            message += self._near(message.split(": ", 1)[1].split())
        self.exit(2, f"{self.prog}: error: {message}; see {self.prog} "
                     f"--help\n")

    def _near(self, given):
        """Return ' (did you mean --x?)' for the first mistyped option
        among *given*, from the options of every command (abbreviations
        are refused: --n-item is no --n-items)."""
        options = set(self._option_string_actions)
        for action in self._actions:
            for command in (getattr(action, "choices", None) or {}).values():
                if isinstance(command, argparse.ArgumentParser):
                    options.update(command._option_string_actions)
        for word in given:
            if word.startswith("--"):
                near = difflib.get_close_matches(word.split("=")[0],
                                                 sorted(options), 1, 0.6)
                if near:
                    return f" (did you mean {near[0]}?)"
        return ""


def _build_parser(prog="bootstrap-eval-deltas"):
    """Return the argparse parser of the four commands: simulate, compare,
    rank, plan; its usage and errors name the program *prog*."""
    parser = _Parser(
        prog=prog,
        description="Is system B really better than system A on your eval "
                    "set, or is the gap noise?  With no command, runs "
                    "'simulate', the article's experiment.",
        epilog="Run '%(prog)s COMMAND --help' for a command's options.")
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add_command in (_add_simulate, _add_compare, _add_plan, _add_rank,
                        _add_check):
        add_command(commands)
    return parser


def _add_simulate(commands):
    """Add the simulate command (the default) and its options."""
    sim = commands.add_parser(
        "simulate", help="reproduce the article: simulate, bootstrap, "
                         "McNemar, coverage loop, per-item CSV (default)",
        description="Simulate two correlated systems on the same items, "
                    "report bootstrap intervals and McNemar's exact test, "
                    "replay the experiment to check the paired interval's "
                    "coverage, and write the per-item CSV.",
        epilog="Examples: %(prog)s; %(prog)s --n-items 2000 --no-csv; "
               "%(prog)s --acc-b 0.72 --intervals percentile,bca,score")
    setting = sim.add_argument_group("the article's setting")
    stats = sim.add_argument_group(
        "statistics: the coverage loop and its resamples")
    cal = sim.add_argument_group(
        "calibration: intervals and tests over replays")
    early = sim.add_argument_group(
        "stopping early: looking (peeking) while the eval runs")
    output = sim.add_argument_group("output")
    setting.add_argument("--n-items", type=_at_least(1), default=N_ITEMS,
                         help="items in the eval set (default %(default)s)")
    setting.add_argument("--corr", type=_CORRELATION, 
                         help=f"loading of the shared latent difficulty, in "
                              f"[0, 1) (default {CORR})")
    setting.add_argument("--acc-a", type=_PROBABILITY,
                         help=f"true accuracy of system A, in (0, 1) "
                              f"(default {ACC_A})")
    setting.add_argument("--acc-b", type=_PROBABILITY,
                         help=f"true accuracy of system B, in (0, 1) "
                              f"(default {ACC_B})")
    stats.add_argument("--replays", type=_at_least(0), default=REPLAYS,
                       help="replays of the coverage loop; 0 skips it "
                            "(default %(default)s)")
    _add_common(stats, output)
    output.add_argument("--out", metavar="PATH",
                        help=f"where to write the per-item CSV, atomically "
                             f"(default {CSV_PATH})")
    output.add_argument("--no-csv", action="store_true",
                        help="do not write the per-item CSV")
    _add_jobs(stats, "the coverage loop")
    _add_quiet(output)
    cal.add_argument("--intervals", type=_interval_list, metavar="NAMES",
                     help="calibrate intervals instead of the coverage "
                          "lines: a comma list of percentile, bca, score; "
                          "each one's coverage and rate of excluding zero "
                          "over the replays, and McNemar's rejection rate "
                          "(e.g. --intervals percentile,bca,score)")
    cal.add_argument("--differences", choices=_SHAPES,
                     help="calibrate the continuous paired intervals "
                          "instead of the binary article: per-item "
                          "differences of sd 1 and this shape (lognormal is "
                          "right-skewed, lognormal-left its mirror) and mean "
                          "--gap; over the replays, how often each interval, "
                          "by saddlepoint and by resampling, percentile and "
                          "BCa, covers the gap and excludes zero, and how "
                          "often each sign-flip test rejects; no CSV")
    cal.add_argument("--gap", type=_bounded(float, -math.inf, None),
                     help="the true mean difference of --differences, in "
                          "sds (default 0: excluding zero is then a false "
                          "positive)")
    stats.add_argument("--by-counts", action="store_true",
                       help="draw from counts: the run's resamples from "
                            "its four cell counts, each replay's cells one "
                            "multinomial draw and its interval the ideal "
                            "bootstrap's, at a cost that does not grow with "
                            "--n-items (a power study at a new size; not the "
                            "article's random stream)")
    early.add_argument("--peeking", action="store_true",
                       help="replay the article's systems with no true gap "
                            "(B as good as A), looking after every item: how "
                            "often a fixed-sample interval excludes zero at "
                            "some look, against the anytime-valid confidence "
                            "sequence of compare --sequential; no CSV")
    sim.set_defaults(run=_run_simulate)


def _add_compare(commands):
    """Add the compare command and its options."""
    cmp = commands.add_parser(
        "compare", help="judge two systems' per-item results",
        description="Compare a baseline and a candidate scored on the same "
                    "items: each system's mean with its CI, the difference "
                    "with paired and unpaired bootstrap CIs, a paired test "
                    "(McNemar for 0/1 metrics, sign-flip otherwise), Holm's "
                    "adjustment across metrics and a verdict in words.",
        epilog="Examples: %(prog)s datasets/bootstrap-eval-deltas.csv; "
               "%(prog)s base.jsonl cand.jsonl --metric acc; "
               "%(prog)s a.csv b.csv --id qid --lower-is-better latency "
               "--format markdown")
    inp = cmp.add_argument_group("input: what to read")
    what = cmp.add_argument_group("what to compare: metrics, clusters, "
                                  "subsets")
    stats = cmp.add_argument_group("statistics: how sure")
    judged = cmp.add_argument_group(
        "judged evals: an LLM judge's scores corrected by human labels")
    early = cmp.add_argument_group(
        "stopping early: looking (peeking) while the eval runs")
    many = cmp.add_argument_group(
        "many runs and candidates: seeds, repeats, epochs, prompts")
    gates = cmp.add_argument_group(
        "gates: non-inferiority, equivalence, exit 1 in CI")
    reading = _reading_group(cmp)
    output = cmp.add_argument_group("output")
    inp.add_argument("baseline", help="per-item results of the baseline (A): "
                     "CSV, TSV, JSONL or a JSON array, optionally .gz; alone, "
                     "a wide file with both systems' columns")
    inp.add_argument("candidates", nargs="*", metavar="CANDIDATE",
                     help="per-item results of the candidate (B), joined to "
                          "the baseline's on the id field; several "
                          "candidates are each compared with the baseline, "
                          "Holm-adjusted across candidates x metrics")
    inp.add_argument("--id", dest="id_col", metavar="FIELD",
                     help="field naming the item (default: the first of "
                          f"{', '.join(_ID_FIELDS)} present)")
    inp.add_argument("--names", type=_names_list, metavar="NAME,...",
                     help="labels of the baseline and each candidate (of "
                          "--a-col and --b-col, for one file), in order "
                          "(default: what tells the paths apart)")
    inp.add_argument("--a-col",
                     help=f"one-file mode: column of the baseline's score "
                          f"(default {CSV_HEADER[1]})")
    inp.add_argument("--b-col",
                     help=f"one-file mode: column of the candidate's score "
                          f"(default {CSV_HEADER[2]})")
    what.add_argument("--metric", action="append", metavar="NAME",
                      help="metric field to compare, dots for nested JSON "
                           "(metrics.acc); repeat for several (default: every "
                           "numeric field both runs have)")
    what.add_argument("--stat", action="append", default=[],
                      metavar="NAME=STAT(FIELD,...)",
                      help="a corpus statistic, not a mean: f1, precision, "
                           "recall or mcc of (gold,pred) fields or of one "
                           "field of [gold, pred] pairs (lm-eval's f1 and "
                           "mcc; 0/1 labels give class 1's, others the macro "
                           "average; mcc is scikit-learn's); ratio(num,den), "
                           "sum over sum; pass@K(field) or pass^K(field) from "
                           "each item's 0/1 samples (its records sharing an "
                           "id). Paired bootstrap and approximate "
                           "randomization test; repeatable. E.g. --stat "
                           "f1(label,prediction) --stat tokens=ratio(right,"
                           "total) --stat pass@5(passed)")
    what.add_argument("--metric-type", action="append", default=[],
                      metavar="NAME=TYPE", type=_metric_type,
                      help="force a metric binary or continuous (default: "
                           "binary when every value is 0 or 1)")
    what.add_argument("--lower-is-better", action="append", default=[],
                      metavar="NAME",
                      help="a metric where smaller is better; repeatable "
                           "(default: metrics named for a latency, time, "
                           "duration, cost, loss, error or perplexity, said "
                           "in the report)")
    what.add_argument("--higher-is-better", action="append", default=[],
                      metavar="NAME",
                      help="a metric where larger is better although its "
                           "name says otherwise; repeatable")
    what.add_argument("--cluster", metavar="FIELD",
                      help="items sharing this field's value (questions on "
                           "one passage, samples of one prompt) are "
                           "resampled and sign-flipped together")
    what.add_argument("--by", metavar="FIELD",
                      help="also compare within each subset of items that "
                           "share this field's value (an MMLU subject): a "
                           "row per subset and metric, Holm across all of "
                           "them; the overall result pools every item")
    what.add_argument("--macro", action="store_true",
                      help="with --by: the overall result is the macro "
                           "average, the unweighted mean of subset means "
                           "(MMLU's headline), with a stratified bootstrap "
                           "interval and a stratified sign-flip test")
    inp.add_argument("--allow-partial", action="store_true",
                     help="compare the ids both runs have and report how "
                          "many were left out, instead of failing")
    inp.add_argument("--same-ids-different-items", action="store_true",
                     dest="different_items",
                     help="pair records by id even where the runs' files "
                          "hold different items under it (a question's "
                          "text, a document's hash): the same items "
                          "translated or reworded; without it such runs "
                          "are refused")
    stats.add_argument("--interval", choices=("percentile", "bca"),
                       default="percentile",
                       help="bootstrap interval of the means and the paired "
                            "difference: percentile (the article's) or bca, "
                            "bias-corrected and accelerated (default "
                            "%(default)s)")
    stats.add_argument("--method", choices=_METHODS, default="auto",
                       help="saddlepoint: each interval as infinitely many "
                            "resamples would give it (the ideal bootstrap), "
                            "computed, not resampled, and the sign-flip p "
                            "past 20 nonzero differences by Robinson's "
                            "saddlepoint; resample: --resamples draws; auto "
                            "(default): the saddlepoint for continuous "
                            f"metrics of {_SADDLE_LEAST} unclustered items or "
                            "more, resampling otherwise")
    stats.add_argument("--alpha", type=_PROBABILITY, default=0.05,
                       help="significance level after the adjustment "
                            "(--adjust; default %(default)s)")
    stats.add_argument("--adjust", choices=sorted(_ADJUSTMENTS),
                       default="holm",
                       help="how the p-values are adjusted across metrics x "
                            "subsets x candidates: holm (default; the chance "
                            "of any wrong call), bh (Benjamini-Hochberg's "
                            "false discovery rate), by (Benjamini-Yekutieli's, "
                            "for any dependence) or none")
    gates.add_argument("--equivalence", action="append", type=_margin_spec,
                       metavar="[NAME=]M",
                       help="equivalence margin in the metric's units, for "
                            "every metric or, as NAME=M, for one: two "
                            "one-sided tests at --alpha, equivalent where the "
                            "1 - 2 alpha interval lies within +-M")
    many.add_argument("--prompts", action="store_true",
                      help="the baseline and the candidate are each a folder "
                           "of runs under the same prompts (a file per "
                           "prompt, named alike): the gap under each prompt "
                           "(Holm across them) and averaged over prompts as "
                           "a random factor")
    many.add_argument("--runs", action="store_true",
                      help="the baseline and the candidate are each several "
                           "runs of that system on the same items (seeds, "
                           "repeats at temperature > 0): a folder of them, "
                           "NAME=FILE,"
                           "FILE,..., or one log of several epochs; the "
                           "comparison of the run-averaged scores, the "
                           "run-to-run spread, and where one run of each "
                           "would put the gap")
    early.add_argument("--sequential", action="store_true",
                       help="also an anytime-valid comparison, valid however "
                            "often one peeked at the eval while it ran: the "
                            "confidence sequence at the end, the item at "
                            "which it first excluded zero, an anytime "
                            "p-value; items in the baseline's file order; "
                            "--fail-on then uses its verdict")
    early.add_argument("--order", metavar="FIELD",
                       help="with --sequential, the baseline's field that "
                            "orders the items as they ran (a timestamp or a "
                            "number; default: the file's order)")
    early.add_argument("--bounds", type=_bounds_spec, metavar="LO,HI",
                       help="with --sequential, the range a continuous "
                            "metric's values can take (default: [0, 1] "
                            "where every value lies in it)")
    gates.add_argument("--margin", action="append", type=_margin_spec,
                       metavar="[NAME=]M",
                       help="non-inferiority margin in the metric's units "
                            "(0.03 is 3 points of accuracy), for every metric "
                            "or, as NAME=M, for one; repeatable: a candidate "
                            "whose Newcombe score interval (0/1 metrics) or "
                            "t interval (others) stays above -M in the "
                            "metric's direction is non-inferior")
    output.add_argument("--plot", metavar="FILE.svg",
                        help="also draw each metric's paired bootstrap "
                             "distribution with its CI and zero, as SVG")
    output.add_argument("--html", metavar="FILE.html",
                        help="also write the report as one self-contained "
                             "HTML page (--format html prints it)")
    judged.add_argument("--human", action="append", default=[],
                        metavar="FIELD|FILE",
                        help="a judge's scores corrected by human scores on "
                             "some of the items (prediction-powered "
                             "inference, PPI++): a field of the runs' "
                             "records, present on the items a human scored, "
                             "or a file of them (an id and --human-field); "
                             "once for both runs or once per run; for a "
                             "preference file, a file of human verdicts on "
                             "some of its items.  The report adds the "
                             "judge's figures alone, the humans' alone, the "
                             "judge's bias and agreement; the labelled items "
                             "must be a random sample of the items")
    judged.add_argument("--human-field", metavar="NAME",
                        help="with --human FILE: the file's field of human "
                             "scores (default human)")
    judged.add_argument("--judge-covariate", metavar="FIELD",
                        help="with --human: a number of each answer (its "
                             "length): the judge's error regressed on it, "
                             "and how far the systems differ on it, the bias "
                             "a judge fond of long answers puts on the gap")
    judged.add_argument("--judge-map", type=_judge_map_spec,
                        metavar=">=T|LO,HI",
                        help="with --human: the judge's scores onto the "
                             "humans' scale: >=T makes a judge score of T or "
                             "more a 1 (0/1 human labels), LO,HI maps the "
                             "judge's LO..HI onto 0..1")
    judged.add_argument("--scale", type=_bounds_spec, metavar="LO,HI",
                        help="with --human: the scale the judge and the "
                             "humans both score on (1,5 or 0,10); by default "
                             "the range their scores span together")
    judged.add_argument("--strata", metavar="FIELD",
                        help="with --human: the labels were drawn at "
                             "random within each value of this field, at "
                             "rates that differ: each stratum corrected on "
                             "its own and weighed by its share of the items "
                             "(stratified PPI, Fisch et al. 2024)")
    gates.add_argument("--fail-on", choices=("worse", "not-better",
                                             "inferior", "changed",
                                             "not-equivalent"),
                       help="exit 1 when some metric is worse, is not "
                            "better, (with --margin) is not shown "
                            "non-inferior, changed detectably either way, or "
                            "(with --equivalence) is not shown equivalent, to "
                            "gate a CI job; stderr names the metrics")
    _add_common(stats, output)
    _add_verbose(output)
    _add_quiet(output)
    _add_jobs(stats, "index resampling (metrics with many distinct values)")
    _add_reading(reading)
    cmp.set_defaults(run=_run_compare)


def _reading_group(parser):
    """Return the group of the options that say how to read a framework's
    files (made where it is to show; _add_reading fills it)."""
    return parser.add_argument_group(
        "eval frameworks' own files",
        "read as they come, a file or the directory a framework wrote; "
        "the format is detected from the file's name and first bytes: "
        + "; ".join(f"{name}: {text}" for name, text in _FORMATS.items()))


def _add_reading(group):
    """Add the options that say how to read a framework's files."""
    group.add_argument("--from-format", choices=list(_FORMATS),
                       metavar="NAME", help="read the runs as this format "
                       "instead of detecting it: " + ", ".join(_FORMATS))
    group.add_argument("--records", metavar="KEY",
                       help="a JSON document's key holding the records "
                            "(dots reach in: results.items)")
    group.add_argument("--task", metavar="NAME",
                       help="in a directory a framework wrote, the task "
                            "to read, by its exact name (lm-eval's "
                            "winogrande, a HELM run's directory name)")
    group.add_argument("--filter", metavar="NAME",
                       help="lm-eval: the filter to keep (strict-match); "
                            "by default each filter is its own metric")
    group.add_argument("--scorer", metavar="NAME",
                       help="Inspect: the scorer to keep")
    group.add_argument("--choice-scores", metavar="C=S,...",
                       type=_choice_scores,
                       help="OpenAI evals, model-graded: the score of each "
                            "choice (Y=1,N=0)")
    group.add_argument("--max-inflate", metavar="MB", type=_at_least(1),
                       help="the megabytes a gzip stream or one member of "
                            "an Inspect .eval archive may inflate to "
                            f"(default {_INFLATE_LIMIT >> 20}: a guard "
                            "against archive bombs)")


def _reading(args):
    """Return the _Reading of the command line's options."""
    return _Reading(args.from_format, args.records, args.task, args.filter,
                   args.scorer, bool(getattr(args, "allow_partial", False)),
                   args.choice_scores,
                   all_tasks=getattr(args, "by", None) == "task",
                   inflate=(args.max_inflate or 0) << 20 or _INFLATE_LIMIT)


def _choice_scores(text):
    """argparse type of --choice-scores: 'A=1,B=0.5,C=0'."""
    scores = {}
    for part in text.split(","):
        choice, _, value = part.rpartition("=")
        try:
            scores[choice.strip()] = _finite_number(value)
        except ValueError:
            choice = ""
        if not choice.strip():
            raise argparse.ArgumentTypeError(
                f"expected CHOICE=SCORE,... like Y=1,N=0, not {text!r}")
    return scores


def _interval_list(text):
    """argparse type of --intervals: names from _INTERVALS, comma-separated."""
    names = [x.strip() for x in text.split(",") if x.strip()]
    wrong = [x for x in names if x not in _INTERVALS]
    if wrong or not names:
        raise argparse.ArgumentTypeError(
            f"expected names from {', '.join(_INTERVALS)}, not {text!r}")
    return names


def _n_list(text):
    """argparse type of --n-list: item counts like 250,500,1000."""
    try:
        values = [int(x) for x in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected item counts like 250,500,1000, not {text!r}") from None
    if not values or min(values) < 1:
        raise argparse.ArgumentTypeError(f"item counts must be >= 1: {text}")
    return values


def _add_rank(commands):
    """Add the rank command and its options to *commands*."""
    rank = commands.add_parser(
        "rank", help="rank several systems: each mean with its CI, rank "
                     "intervals and the group not detectably worse than "
                     "the best",
        description="Rank two or more systems scored on the same items, "
                    "from one joint paired bootstrap: each system's mean "
                    "with its CI, its rank with a rank interval, and the "
                    "top group (the systems not detectably worse than the "
                    "best), never a strict order.",
        epilog="Examples: %(prog)s a.jsonl b.jsonl c.jsonl --metric acc; "
               "%(prog)s wide.csv --systems m1,m2,m3,m4 --pairs")
    inp = rank.add_argument_group("input: what to read")
    what = rank.add_argument_group("what to compare")
    stats = rank.add_argument_group("statistics: how sure")
    judged = rank.add_argument_group(
        "pairwise preferences and judged verdicts (Bradley-Terry)")
    reading = _reading_group(rank)
    output = rank.add_argument_group("output")
    inp.add_argument("runs", nargs="+", metavar="RUN",
                     help="each system's per-item results (read as compare "
                          "reads them), or one wide file with --systems")
    inp.add_argument("--systems", type=_names_list, metavar="COL,COL,...",
                     help="one wide file: the column of each system")
    inp.add_argument("--names", type=_names_list, metavar="NAME,...",
                     help="labels of the systems, in order (default: the "
                          "file names or columns)")
    inp.add_argument("--id", dest="id_col", metavar="FIELD",
                     help="field naming the item (default: the first of "
                          f"{', '.join(_ID_FIELDS)} every run has)")
    what.add_argument("--metric", action="append", metavar="NAME",
                      help="the metric to rank on (needed when the runs "
                           "have several)")
    what.add_argument("--lower-is-better", nargs="?", const=True,
                      metavar="NAME",
                      help="smaller values are better; NAME, as in "
                           "compare, is the metric ranked on (default: as "
                           "its name says, said in the report: latency, "
                           "time, cost, loss, error, perplexity)")
    what.add_argument("--higher-is-better", metavar="NAME",
                      help="larger values are better although the metric's "
                           "name says otherwise")
    inp.add_argument("--allow-partial", action="store_true",
                     help="rank on the ids every run has and say how many "
                          "were left out, instead of failing")
    inp.add_argument("--same-ids-different-items", action="store_true",
                     dest="different_items",
                     help="pair records by id even where the runs hold "
                          "different items under it (as compare's)")
    judged.add_argument("--human", metavar="FILE",
                        help="preference files: a human's verdicts on some of "
                             "the same battles (any preference format, joined "
                             "on the item): the Bradley-Terry ratings "
                             "corrected by them (prediction-powered, PPI++) "
                             "beside the judge's")
    stats.add_argument("--method", choices=_METHODS, default="auto",
                       help="the means' intervals and the pairs' "
                            "comparisons as in compare --method (default "
                            "%(default)s); ranks and the top group come from "
                            "the joint resamples (and exact pairwise tests) "
                            "either way")
    stats.add_argument("--alpha", type=_PROBABILITY, default=0.05,
                       help="level of the top group and of the pairwise "
                            "tests (default %(default)s)")
    stats.add_argument("--adjust", choices=sorted(_ADJUSTMENTS),
                       default="holm",
                       help="how the p-values of --pairs or --baseline are "
                            "adjusted across the pairs: holm (default), bh "
                            "(Benjamini-Hochberg), by (Benjamini-Yekutieli) "
                            "or none; the rank sets and the top group keep "
                            "Holm's")
    what.add_argument("--by", metavar="FIELD",
                      help="also rank within each subset of items sharing "
                           "this field's value (taken from the first run)")
    stats.add_argument("--marginal-ranks", action="store_true",
                       help="show each rank's own interval instead of the "
                            "joint rank sets (which hold for every system at "
                            "once)")
    stats.add_argument("--joint-intervals", action="store_true",
                       help="make the means' (or ratings') intervals hold for "
                            "every system at once, not each on its own "
                            "(max-t over the joint bootstrap)")
    judged.add_argument("--anchor", type=_anchor_spec, metavar="NAME=RATING",
                        help="preference files: the Bradley-Terry rating of "
                             "one system (default: the ratings average 1000)")
    judged.add_argument("--ties", choices=("half", "davidson"),
                        help="preference files: a tie as half a win for each "
                             "side (half, the default, as Chatbot Arena "
                             "counts it) or by Davidson's tie model")
    what.add_argument("--pairs", action="store_true",
                      help="also every pair's paired difference with its "
                           "CI and Holm-adjusted p")
    what.add_argument("--baseline", metavar="NAME",
                      help="also each system against this one (a name of "
                           "--names, a file or a column): paired difference, "
                           "CI and p, Holm-adjusted across the candidates")
    output.add_argument("--plot", metavar="FILE.svg",
                        help="also draw a forest plot: a row per system, its "
                             "mean and CI, the top group shaded, as SVG")
    output.add_argument("--html", metavar="FILE.html",
                        help="also write the report as one self-contained "
                             "HTML page (--format html prints it)")
    _add_common(stats, output)
    _add_quiet(output)
    _add_jobs(stats, "index resampling")
    _add_reading(reading)
    rank.set_defaults(run=_run_rank)


def _add_check(commands):
    """Add the check command (a doctor for eval files) and its options."""
    check = commands.add_parser(
        "check", help="say what eval files hold and which commands answer "
                      "what they can answer",
        description="Read each file or folder as compare would, and say "
                    "what was read and how (format, task, items, the id "
                    "field), each field with its type, range and missing "
                    "values and what it looks like (a metric, a judge's "
                    "scores, human labels, a cluster, a subset), how the "
                    "inputs' ids join and whether they hold the same items, "
                    "the problems seen, then the commands that answer what "
                    "these files can answer, runnable as printed (--json: "
                    "as argv lists, what each answers beside them).",
        epilog="Examples: %(prog)s datasets/examples/base.jsonl "
               "datasets/examples/cand.jsonl; %(prog)s out/ --json")
    what = check.add_argument_group("input: what to read")
    what.add_argument("paths", nargs="+", metavar="FILE_OR_DIR",
                      help="per-item results, a folder a framework wrote, or "
                           "a folder of such files and folders (read entry "
                           "by entry)")
    what.add_argument("--id", dest="id_col", metavar="FIELD",
                      help="field naming the item (default: the first of "
                           f"{', '.join(_ID_FIELDS)} present, else a field "
                           f"named like one)")
    reading = _reading_group(check)
    output = check.add_argument_group("output")
    _add_format(output)
    _add_quiet(output)
    _add_reading(reading)
    check.set_defaults(run=_run_check)


def _names_list(text):
    """argparse type of --systems and --names: comma-separated names."""
    names = [x.strip() for x in text.split(",")]
    if len(names) < 2 or not all(names):
        raise argparse.ArgumentTypeError(
            f"expected two names or more, separated by commas, not {text!r}")
    return names


def _add_plan(commands):
    """Add the plan command and its options to *commands*."""
    plan = commands.add_parser(
        "plan", help="power, items needed and detectable gap of a paired "
                     "binary eval, before you build it",
        description="Plan a paired comparison of two systems' accuracy: "
                    "the discordant cells implied by the agreement between "
                    "systems, the exact power of McNemar's test, the items "
                    "needed for the target power, the smallest detectable "
                    "gap, and what an unpaired design would need.",
        epilog="Example: %(prog)s --acc-a 0.72 --acc-b 0.76 --corr 0.6 "
               "--simulate")
    design = plan.add_argument_group("the design: the systems and the items")
    pilot = plan.add_argument_group(
        "input: pilot results to plan from (plan --from)")
    reading = _reading_group(plan)
    stats = plan.add_argument_group("statistics: how sure")
    judged = plan.add_argument_group(
        "judged evals: human labels for an LLM judge's scores")
    many = plan.add_argument_group(
        "many runs: seeds, repeats, epochs")
    early = plan.add_argument_group(
        "stopping early: looking (peeking) while the eval runs")
    sim = plan.add_argument_group("simulation: replay the design")
    output = plan.add_argument_group("output")
    design.add_argument("--acc-a", type=_PROBABILITY,
                        help=f"accuracy of system A (default {ACC_A})")
    design.add_argument("--acc-b", type=_PROBABILITY,
                        help=f"accuracy of system B (default {ACC_B}, or "
                             f"acc-a + gap)")
    design.add_argument("--gap", type=_bounded(float, -1, 1),
                        help="B's accuracy minus A's, instead of --acc-b")
    agree = design.add_mutually_exclusive_group()
    agree.add_argument("--corr", type=_CORRELATION,
                        help=f"the article's latent correlation (default "
                             f"{CORR})")
    agree.add_argument("--discordance", type=_PROBABILITY,
                        help="share of items where exactly one system is "
                             "right, instead of --corr")
    pilot.add_argument("--from", dest="pilot", nargs="+",
                       metavar="FILE", help="pilot results (BASELINE "
                       "[CANDIDATE], read as compare reads them): estimate "
                       "the agreement from them and plan for the observed "
                       "gap, or for --gap")
    judged.add_argument("--human", action="append", metavar="FIELD|FILE",
                        help="with --from A B: the pilot's human scores, as "
                             "compare --human reads them: how the judge-"
                             "corrected gap's interval and power grow with "
                             "more labels, and the labels --gap or --width "
                             "needs")
    judged.add_argument("--human-field", metavar="NAME",
                        help="with --human FILE: its field of human scores")
    judged.add_argument("--judge-map", type=_judge_map_spec,
                        metavar=">=T|LO,HI",
                        help="with --human: the judge's scores onto the "
                             "humans' scale, as in compare")
    judged.add_argument("--scale", type=_bounds_spec, metavar="LO,HI",
                        help="with --human: the scale the judge and the "
                             "humans both score on, as in compare")
    judged.add_argument("--width", type=_bounded(float, 0, None), metavar="W",
                        help="with --human: the labels for a CI of +-W on "
                             "the gap (0.02 for +-2 pts)")
    many.add_argument("--runs", action="store_true",
                      help="with --from A B: each is several runs of one "
                           "system, as compare --runs reads them: the "
                           "run-to-run spread and the runs of each that "
                           "tell the gap (or --gap) from it")
    judged.add_argument("--pick-labels", type=int, metavar="N",
                        help="with --from RUN: print N of its item ids drawn "
                             "at random (--seed), one per line: the items to "
                             "give human labels, as compare --human assumes")
    pilot.add_argument("--id", dest="id_col", metavar="FIELD",
                       help="with --from: field naming the item")
    pilot.add_argument("--same-ids-different-items", action="store_true",
                       dest="different_items",
                       help="with --from: pair records by id even where the "
                            "runs hold different items under it (as "
                            "compare's)")
    pilot.add_argument("--a-col",
                       help="with --from and one file: baseline's column")
    pilot.add_argument("--b-col",
                       help="with --from and one file: candidate's column")
    pilot.add_argument("--cluster", metavar="FIELD",
                       help="with --from: items sharing this field's value "
                            "are sized by the clustered standard error")
    pilot.add_argument("--metric", action="append", metavar="NAME",
                       help="with --from: the metric(s) to plan for")
    stats.add_argument("--alpha", type=_PROBABILITY, default=0.05,
                       help="two-sided significance level (default "
                            "%(default)s)")
    stats.add_argument("--power", type=_PROBABILITY, default=_POWER,
                       help="target power (default %(default)s)")
    many.add_argument("--repeats", type=_at_least(1), metavar="K",
                      help="samples per item averaged into its score: show "
                           "items needed for 1..K repeats (needs "
                           "--within-var)")
    many.add_argument("--within-var", type=_bounded(float, 0, None,
                                                    lo_open=False),
                      help="variance of an item's paired difference between "
                           "repeated samples of the same item; with --from "
                           "and several rows per item it is estimated")
    stats.add_argument("--confidence", type=_PROBABILITY,
                       help="confidence of the paired interval whose expected "
                            f"half-width the table shows (default "
                            f"{CONFIDENCE})")
    design.add_argument("--n-items", type=_n_list, metavar="N,N,...",
                        help="item counts for the power table (default: a "
                             "range around the answer)")
    early.add_argument("--sequential", action="store_true",
                       help="also simulate compare --sequential on the "
                            "design, looked at after every item: the "
                            "stopping item's median and 90th percentile "
                            "against the fixed-sample items needed "
                            "(--replays, --seed)")
    sim.add_argument("--simulate", action="store_true",
                     help="also replay the article's simulator at the "
                          "planned n (needs --corr) and report how often "
                          "McNemar rejected")
    sim.add_argument("--replays", type=_at_least(1),
                     help=f"replays for --simulate (default {REPLAYS})")
    sim.add_argument("--seed", type=int,
                     help=f"seed for --simulate (default {SEED})")
    _add_format(output)
    output.add_argument("--plot", metavar="FILE.svg",
                        help="also draw the exact power against items, the "
                             "target and the answer marked, as SVG")
    output.add_argument("--html", metavar="FILE.html",
                        help="also write the report as one self-contained "
                             "HTML page (--format html prints it)")
    _add_quiet(output)
    _add_reading(reading)
    plan.set_defaults(run=_run_plan)


def _program(argv=None):
    """Return the program as it was invoked, as words, for usage, errors,
    the commands check prints and the command a page quotes: ('python3',
    PATH) for the script run by its path (python3 bootstrap_eval_deltas.py,
    python3 -m bootstrap_eval_deltas), the command's name for the console
    script, and bootstrap-eval-deltas when main() is given its arguments
    (a library call, a test)."""
    name = sys.argv[0] if argv is None and sys.argv else ""
    if name.endswith(".py"):
        return ("python3", name)
    return (os.path.basename(name) or "bootstrap-eval-deltas",)


def _with_default_command(argv, prog="bootstrap-eval-deltas"):
    """Return argv with simulate in front when it names no command (the
    article's run); a word that is no command is an error naming *prog*."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and not argv[0].startswith("-") and argv[0] not in _COMMANDS:
        near = difflib.get_close_matches(argv[0], _COMMANDS, 1, 0.6)
        print(f"{prog}: error: no command {argv[0]!r}; the "
              f"commands are {', '.join(_COMMANDS)}"
              + (f" (did you mean {near[0]}?)" if near else "")
              + f"; see {prog} --help", file=sys.stderr)
        raise SystemExit(2)
    if not argv or argv[0] not in _COMMANDS + ("-h", "--help", "--version"):
        argv.insert(0, "simulate")
    return argv


def _progress(total, quiet):
    """Return a callback printing replays done and time left to stderr: one
    line rewritten on a terminal, a line every _PIPED_EVERY seconds
    elsewhere; None with --quiet."""
    if quiet or total == 0:
        return None
    piped = not sys.stderr.isatty()
    start = time.monotonic()
    shown = [0.0]

    def report(done):
        now = time.monotonic() - start
        if done < total and now - shown[0] < (_PIPED_EVERY if piped
                                              else 0.2):
            return
        if piped and done == total:
            return
        shown[0] = now
        left = now / done * (total - done)
        said = (f"replay {done}/{total}, {now:.0f} s elapsed, about "
                f"{left:.0f} s left")
        if piped:
            sys.stderr.write(said + "\n")
        else:
            sys.stderr.write(f"\r{said} ")
            if done == total:
                sys.stderr.write("\r" + " " * 60 + "\r")
        sys.stderr.flush()
    return report


def _check_writable(path):
    """Fail before the work, not after it, if *path* cannot be written."""
    parent = os.path.dirname(path) or "."
    if os.path.isdir(path):
        raise EvalDeltaError(f"{path}: is a directory, not a file to write")
    while not os.path.exists(parent):
        parent = os.path.dirname(parent) or "."
    if not os.access(parent, os.W_OK):
        raise EvalDeltaError(f"{path}: cannot write in {parent}")


def _check_plot(path):
    """Refuse a --plot file that is not .svg, is in a folder that does not
    exist, or cannot be written."""
    if not path.lower().endswith(".svg"):
        raise EvalDeltaError(f"--plot draws SVG: give a file name ending in "
                             f".svg, not {path}")
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        raise EvalDeltaError(f"--plot {path}: no folder {parent}; make it "
                             f"first")
    _check_writable(path)


def _check_page(path):
    """Refuse an --html file that is not .html or .htm, is in a folder
    that does not exist, or cannot be written."""
    if not path.lower().endswith((".html", ".htm")):
        raise EvalDeltaError(f"--html writes a page: give a file name "
                             f"ending in .html, not {path}")
    parent = os.path.dirname(path)
    if parent and not os.path.isdir(parent):
        raise EvalDeltaError(f"--html {path}: no folder {parent}; make it "
                             f"first")
    _check_writable(path)


def _emit(options, **forms):
    """Print a report in the format asked (_render's *forms*) and, with
    --html FILE, write its page there too (a page of the text where the
    command has none of its own)."""
    forms.setdefault("page", lambda: _Page(
        preformatted=forms["text"](), command=options.command))
    print(_render(options.format, **forms))
    if options.html:
        _write_plot(options.html, _render("html", **forms))


def _write_plot(path, svg):
    """Write a --plot file and say so on stderr."""
    _write_atomic(path, svg)
    print(f"bootstrap-eval-deltas: wrote {path}", file=sys.stderr)


def _write_atomic(path, text):
    """Write text to path via a temporary file and os.replace."""
    parent = os.path.dirname(path) or "."
    os.makedirs(parent, exist_ok=True)
    umask = os.umask(0)
    os.umask(umask)
    fd, tmp = tempfile.mkstemp(dir=parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# The door.  Each command's options are checked once, here, and settled
# into one _Options record: what would be silently ignored, or cannot go
# together, is refused before any work, and the defaults are filled in.
# The runners below, the readers, the statistics and the reports take the
# record whole and check nothing again.

def _options(args):
    """Return the _Options of parsed arguments: the command's checks
    (_simulate_options, _compare_options, _rank_options, _plan_options),
    then the record, its format settled from --format and --json (short
    for --format json, refused when the two disagree)."""
    if args.json and args.format not in (None, "json"):
        raise EvalDeltaError(f"--json is --format json; it cannot go with "
                             f"--format {args.format}")
    fmt = "json" if args.json else args.format or "text"
    settle = {"simulate": _simulate_options, "compare": _compare_options,
              "rank": _rank_options, "plan": _plan_options,
              "check": _check_options}[args.command]
    page = getattr(args, "html", None)
    if page:
        _check_page(page)
    return settle(args)._replace(format=fmt, html=page)


def _simulate_options(args):
    """Return simulate's _Options: the article's run, a calibration
    (--intervals, --differences), --by-counts or --peeking."""
    common = dict(n_items=args.n_items, replays=args.replays,
                  resamples=args.resamples, seed=args.seed,
                  confidence=args.confidence, jobs=args.jobs,
                  quiet=args.quiet)
    if args.differences:
        for name in ("corr", "acc_a", "acc_b", "intervals", "out"):
            if getattr(args, name) is not None:
                raise EvalDeltaError(f"{_flag(name)} is for the binary "
                                     f"design; --differences draws "
                                     f"continuous ones")
        if args.no_csv:
            raise EvalDeltaError("--differences writes no CSV; --no-csv is "
                                 "not needed")
        if args.by_counts:
            raise EvalDeltaError("--by-counts replays the binary design's "
                                 "coverage loop; --differences draws "
                                 "continuous ones item by item")
        if not args.replays:
            raise EvalDeltaError("--differences calibrates over the "
                                 "replays; give --replays of at least 1")
        _check_resamples(args.resamples, args.confidence)
        return _Options(**common, differences=args.differences,
                        gap=args.gap or 0.0, csv=None)
    if args.gap is not None:
        raise EvalDeltaError("--gap goes with --differences (the binary "
                             "design's gap is --acc-b minus --acc-a)")
    design = dict(corr=CORR if args.corr is None else args.corr,
                  acc_a=ACC_A if args.acc_a is None else args.acc_a,
                  acc_b=ACC_B if args.acc_b is None else args.acc_b)
    if args.peeking:
        for flag, given in (("--intervals", args.intervals),
                            ("--out", args.out),
                            ("--acc-b", design["acc_b"] != ACC_B),
                            ("--by-counts", args.by_counts)):
            if given:
                raise EvalDeltaError(f"--peeking does not go with {flag}: "
                                     f"it replays the article's systems "
                                     f"with no true gap (B at --acc-a) and "
                                     f"writes no CSV")
        if not args.replays:
            raise EvalDeltaError("--peeking counts over the replays; give "
                                 "--replays of at least 1")
        return _Options(**common, **design, peeking=True, csv=None)
    if args.intervals and not args.replays:
        raise EvalDeltaError("--intervals calibrates over the replays; give "
                             "--replays of at least 1")
    if args.no_csv and args.out is not None:
        raise EvalDeltaError("--out names the CSV that --no-csv says not "
                             "to write; give one of them")
    _check_resamples(args.resamples, args.confidence)
    if args.by_counts and args.intervals:
        raise EvalDeltaError("--intervals calibrates resampled intervals "
                             "item by item; --by-counts replays only the "
                             "paired percentile interval")
    options = _Options(**common, **design,
                       intervals=tuple(args.intervals or ()),
                       by_counts=args.by_counts)
    if args.no_csv or args.out:
        return options._replace(csv=args.out)
    path = _csv_path(options)
    if not os.path.isdir(os.path.dirname(path)):     # the command run
        return options._replace(                     # elsewhere: not asked
            csv=None, unwritten=f"per-item CSV not written: no "
            f"{os.path.dirname(path)} folder here (--out PATH writes it)")
    return options._replace(csv=path)


def _csv_path(options):
    """Return where simulate writes its per-item CSV unless --out says:
    CSV_PATH at the article's setting (the file that ships), else a file
    beside it named for what differs (bootstrap-eval-deltas-n1000.csv),
    so that another setting, or an edited N_ITEMS, never rewrites the
    article's data."""
    marks = {"n_items": "n", "corr": "corr", "acc_a": "a", "acc_b": "b",
             "seed": "seed"}
    differs = [f"{mark}{getattr(options, name):g}"
               for name, mark in marks.items()
               if _exact(getattr(options, name)) != _exact(
                   _ARTICLE_RUN[name])]
    if not differs:
        return CSV_PATH
    stem, extension = os.path.splitext(CSV_PATH)
    return f"{stem}-{'-'.join(differs)}{extension}"


def _compare_options(args):
    """Return compare's _Options, refusing options that would be silently
    ignored, or given twice; the --stat texts parsed."""
    if len(args.candidates) > 1 and args.plot:
        raise EvalDeltaError("--plot draws one comparison; give one "
                             "candidate")
    systems = 1 + len(args.candidates) if args.candidates else 2
    if args.names and len(args.names) != systems:
        raise EvalDeltaError(f"--names gives {len(args.names)} names for "
                             f"{systems} systems (the baseline, then each "
                             f"candidate)")
    if args.candidates:
        for flag, value in (("--a-col", args.a_col), ("--b-col", args.b_col)):
            if value is not None:
                raise EvalDeltaError(f"{flag} names a column of one wide "
                                     f"file; with two runs, --metric names "
                                     f"the field of both")
    else:
        if args.metric and len(args.metric) > 1:
            raise EvalDeltaError("one wide file holds one metric (--a-col "
                                 "and --b-col); --metric names it once")
    for flag, names in (("--metric", args.metric or []),
                        ("--metric-type", [n for n, _ in args.metric_type]),
                        ("--lower-is-better", args.lower_is_better),
                        ("--higher-is-better", args.higher_is_better)):
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise EvalDeltaError(f"{flag} {twice[0]} is given twice")
    both = set(args.lower_is_better) & set(args.higher_is_better)
    if both:
        raise EvalDeltaError(f"{min(both)} is given both --lower-is-better "
                             f"and --higher-is-better")
    if args.macro and not args.by:
        raise EvalDeltaError("--macro averages the subsets of --by FIELD; "
                             "give --by")
    if args.macro and args.interval == "bca":
        raise EvalDeltaError("--macro's intervals are percentile ones; "
                             "--interval bca does not go with it")
    if args.by and args.cluster:
        raise EvalDeltaError("--by and --cluster together are not supported "
                             "yet: give one")
    if args.strata and (args.by or args.cluster):
        raise EvalDeltaError(f"--strata with {'--by' if args.by else '--cluster'}"
                             f" is not supported yet: give one")
    stats = [_parse_stat(text) for text in args.stat]
    if stats:
        if args.macro:
            raise EvalDeltaError("--macro with --stat is not supported yet: "
                                 "a corpus statistic's subsets are rows "
                                 "under the pooled one")
        names = [s.name for s in stats] + (args.metric or [])
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            raise EvalDeltaError(f"--stat {twice[0]} is named twice")
    if args.sequential:
        for flag, given in (("--by", args.by), ("--margin", args.margin),
                            ("--stat", stats)):
            if given:
                raise EvalDeltaError(f"--sequential with {flag} is not "
                                     f"supported yet")
        if args.order and args.allow_partial:
            raise EvalDeltaError("--order with --allow-partial is not "
                                 "supported yet")
        if args.order and args.cluster:
            raise EvalDeltaError("--order with --cluster is not supported "
                                 "yet: the clusters go in the order the "
                                 "files first meet them")
    elif args.bounds is not None or args.order:
        raise EvalDeltaError(f"{'--bounds' if args.bounds else '--order'} "
                             f"goes with --sequential")
    if args.runs and args.prompts:
        raise EvalDeltaError("give --runs (independent runs of each system) "
                             "or --prompts (the same prompts for both), "
                             "not both")
    if args.runs or args.prompts:
        grouped = "--runs" if args.runs else "--prompts"
        if len(args.candidates) != 1:
            raise EvalDeltaError(f"{grouped} compares two systems: give the "
                                 f"baseline's folder of runs and the "
                                 f"candidate's")
        for flag, given in (("--cluster", args.cluster), ("--by", args.by),
                            ("--sequential", args.sequential),
                            ("--stat", stats), ("--human", args.human),
                            ("--margin", args.margin),
                            ("--equivalence", args.equivalence),
                            ("--plot", args.plot)):
            if given:
                raise EvalDeltaError(f"{grouped} with {flag} is not "
                                     f"supported yet")
    if args.human:
        for flag, given in (("--sequential", args.sequential),
                            ("--stat", stats)):
            if given:
                raise EvalDeltaError(f"--human with {flag} is not supported "
                                     f"yet")
        if len(args.human) not in (1, 1 + len(args.candidates or [None])):
            raise EvalDeltaError(f"--human is given {len(args.human)} times "
                                 f"for {1 + len(args.candidates)} runs: "
                                 f"give it once for every run, or once per "
                                 f"run in their order")
    else:
        for flag, given in (("--human-field", args.human_field),
                            ("--judge-map", args.judge_map),
                            ("--scale", args.scale),
                            ("--judge-covariate", args.judge_covariate),
                            ("--strata", args.strata)):
            if given is not None:
                raise EvalDeltaError(f"{flag} goes with --human")
    if args.fail_on == "not-equivalent" and not args.equivalence:
        raise EvalDeltaError("--fail-on not-equivalent needs --equivalence: "
                             "equivalence is judged against a margin")
    if args.fail_on == "inferior" and not args.margin:
        raise EvalDeltaError("--fail-on inferior needs --margin: "
                             "non-inferiority is judged against a margin")
    _check_resamples(args.resamples, args.confidence)
    return _Options(
        runs=(args.baseline, *args.candidates), id_col=args.id_col,
        names=tuple(args.names or ()),
        a_col=args.a_col, b_col=args.b_col, metric=tuple(args.metric or ()),
        stat=tuple(stats), metric_type=tuple(args.metric_type),
        lower_is_better=tuple(args.lower_is_better),
        higher_is_better=tuple(args.higher_is_better), cluster=args.cluster,
        by=args.by, macro=args.macro, allow_partial=args.allow_partial,
        different_items=args.different_items, strata=args.strata,
        reading=_reading(args), resamples=args.resamples,
        confidence=args.confidence, interval=args.interval,
        method=args.method, seed=args.seed, jobs=args.jobs, alpha=args.alpha,
        adjust=args.adjust, margin=tuple(args.margin or ()),
        equivalence=tuple(args.equivalence or ()),
        sequential=args.sequential, order=args.order, bounds=args.bounds,
        fail_on=args.fail_on, human=tuple(args.human),
        human_field=args.human_field, judge_map=args.judge_map,
        scale=args.scale, judge_covariate=args.judge_covariate,
        plot=args.plot, verbose=args.verbose,
        group_runs=args.runs or args.prompts, crossed=args.prompts)


def _rank_options(args):
    """Return rank's _Options; --lower-is-better given alone names the
    metric ranked on (None until it is read)."""
    if args.pairs and args.baseline:
        raise EvalDeltaError("give --pairs (every pair) or --baseline NAME "
                             "(each system against one), not both")
    _check_resamples(args.resamples, args.confidence)
    lower = () if args.lower_is_better is None else (
        None if args.lower_is_better is True else args.lower_is_better,)
    return _Options(
        runs=tuple(args.runs), systems=tuple(args.systems or ()),
        names=tuple(args.names or ()), id_col=args.id_col,
        metric=tuple(args.metric or ()), lower_is_better=lower,
        higher_is_better=(() if args.higher_is_better is None
                          else (args.higher_is_better,)),
        allow_partial=args.allow_partial, by=args.by,
        different_items=args.different_items,
        reading=_reading(args), resamples=args.resamples,
        confidence=args.confidence, method=args.method, seed=args.seed,
        jobs=args.jobs, alpha=args.alpha, adjust=args.adjust,
        pairs=args.pairs, against=args.baseline, marginal_ranks=args.marginal_ranks,
        joint_intervals=args.joint_intervals, anchor=args.anchor,
        ties=args.ties, plot=args.plot,
        human=(args.human,) if args.human else ())


# Options of plan that only --from uses, and options it cannot use.
_PILOT_ONLY = ("id_col", "a_col", "b_col", "metric", "cluster",
               "from_format", "records", "task", "filter", "scorer",
               "choice_scores", "human", "runs")
_NOT_WITH_PILOT = ("acc_a", "acc_b", "corr", "discordance", "confidence",
                   "n_items", "simulate", "plot", "within_var")


def _check_options(args):
    """Return check's _Options: the paths and how to read them."""
    return _Options(runs=tuple(args.paths), id_col=args.id_col,
                    reading=_reading(args), quiet=args.quiet)


def _flag(name):
    """Return the command-line flag of an argparse destination (id_col is
    --id)."""
    return "--" + {"id_col": "id", "pilot": "from"}.get(name, name).replace(
        "_", "-")


def _plan_options(args):
    """Return plan's _Options, refusing options that would be silently
    ignored; B's accuracy from --acc-b, or --acc-a plus --gap."""
    given = [n for n in (_NOT_WITH_PILOT if args.pilot else _PILOT_ONLY)
             if getattr(args, n) not in (None, False)]
    if given:
        raise EvalDeltaError(
            f"{_flag(given[0])} " + ("does not go with --from: the pilot "
                                     "data set the design" if args.pilot
                                     else "goes with --from (pilot data)"))
    if args.pick_labels is not None:
        if not args.pilot or len(args.pilot) > 1:
            raise EvalDeltaError("--pick-labels draws from one run's items: "
                                 "give it with --from RUN")
        if args.pick_labels < 1:
            raise EvalDeltaError(f"--pick-labels {args.pick_labels}: give "
                                 f"how many items to label, 1 or more")
        for name in ("sequential", "repeats", "gap", "metric", "cluster"):
            if getattr(args, name) not in (None, False):
                raise EvalDeltaError(f"{_flag(name)} does not go with "
                                     f"--pick-labels")
    elif args.runs:
        if len(args.pilot) != 2:
            raise EvalDeltaError("--runs with --from takes two groups of "
                                 "runs: the baseline's and the candidate's")
        for name in ("sequential", "repeats", "cluster", "human"):
            if getattr(args, name) not in (None, False):
                raise EvalDeltaError(f"{_flag(name)} does not go with "
                                     f"--runs in plan")
    elif args.human:
        if len(args.pilot) != 2 or len(args.human) > 2:
            raise EvalDeltaError("--human with --from takes two runs and "
                                 "--human once, or once per run")
        for name in ("sequential", "repeats"):
            if getattr(args, name) not in (None, False):
                raise EvalDeltaError(f"{_flag(name)} does not go with "
                                     f"--human in plan yet")
    elif not (args.simulate or args.sequential):
        for name in ("replays", "seed"):
            if getattr(args, name) is not None:
                raise EvalDeltaError(f"{_flag(name)} goes with --simulate "
                                     f"or --sequential")
    options = _Options(
        runs=tuple(args.pilot or ()), id_col=args.id_col, a_col=args.a_col,
        b_col=args.b_col, cluster=args.cluster,
        different_items=args.different_items,
        metric=tuple(args.metric or ()), reading=_reading(args),
        alpha=args.alpha, power=args.power, repeats=args.repeats,
        within_var=args.within_var, sequential=args.sequential,
        simulate=args.simulate, n_items=args.n_items, corr=args.corr,
        discordance=args.discordance, gap=args.gap,
        acc_a=ACC_A if args.acc_a is None else args.acc_a,
        confidence=CONFIDENCE if args.confidence is None
        else args.confidence,
        replays=REPLAYS if args.replays is None else args.replays,
        seed=SEED if args.seed is None else args.seed, plot=args.plot,
        quiet=args.quiet, pick_labels=args.pick_labels,
        human=tuple(args.human or ()), human_field=args.human_field,
        judge_map=args.judge_map, scale=args.scale, width=args.width,
        group_runs=args.runs)
    if not args.human:
        for flag, given in (("--human-field", args.human_field),
                            ("--judge-map", args.judge_map),
                            ("--scale", args.scale),
                            ("--width", args.width)):
            if given is not None:
                raise EvalDeltaError(f"{flag} goes with --human")
    if args.pilot:
        return options
    if args.gap is not None and args.acc_b is not None:
        raise EvalDeltaError("give --acc-b or --gap, not both")
    acc_b = (ACC_B if args.gap is None else round(options.acc_a + args.gap,
                                                   12)
             ) if args.acc_b is None else args.acc_b
    if not 0 < acc_b < 1:
        raise EvalDeltaError(f"acc-a + gap must be in (0, 1), not {acc_b:g}")
    if (args.repeats is None) != (args.within_var is None):
        raise EvalDeltaError("--repeats needs --within-var, or --from with "
                             "several samples per item")
    if args.discordance is not None and args.simulate:
        raise EvalDeltaError("--simulate replays the article's simulator, "
                             "which needs --corr, not --discordance")
    return options._replace(acc_b=acc_b)


def _metric_type(text):
    """argparse type of --metric-type: NAME=binary or NAME=continuous."""
    name, _, kind = text.rpartition("=")
    if not name or kind not in ("binary", "continuous"):
        raise argparse.ArgumentTypeError(
            f"expected NAME=binary or NAME=continuous, not {text!r}")
    return name, kind


def _judge_map_spec(text):
    """argparse type of --judge-map: '>=T' or 'LO,HI' (_judge_map_of)."""
    try:
        return _judge_map_of(text)
    except EvalDeltaError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _bounds_spec(text):
    """argparse type of --bounds and --scale: LO,HI (_bounds_of)."""
    try:
        return _bounds_of(text)
    except EvalDeltaError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _margin_spec(text):
    """argparse type of --margin: 'M' or 'NAME=M', M > 0 and finite."""
    name, _, value = text.rpartition("=")
    try:
        margin = _bounded(float, 0, None)(value)
    except argparse.ArgumentTypeError as exc:
        raise argparse.ArgumentTypeError(
            f"expected M or NAME=M with M a positive number: {exc}") from None
    return (name or None), margin


def _anchor_spec(text):
    """argparse type of --anchor: NAME=RATING."""
    name, _, value = text.rpartition("=")
    try:
        rating = float(value)
    except ValueError:
        rating = math.nan
    if not name or not math.isfinite(rating):
        raise argparse.ArgumentTypeError(
            f"expected NAME=RATING (a system and a finite number), not "
            f"{text!r}")
    return name, rating


# The runners: each takes the settled _Options, reads, computes, prints
# through _render, and returns the exit status.

def _run_simulate(options):
    """Run simulate (the article's run, or a calibration) and print its
    report; return 0."""
    if options.differences:
        return _run_differences(options)
    if options.peeking:
        return _run_peeking(options)
    out = options.csv
    if out:
        _check_writable(out)
    design = dict(corr=options.corr, acc_a=options.acc_a,
                  acc_b=options.acc_b)
    rng = random.Random(options.seed)
    pairs = simulate(rng, options.n_items, **design)
    result = (_compare_binary_by_counts if options.by_counts
              else _compare_binary)(pairs, rng, resamples=options.resamples,
                                    confidence=options.confidence)
    progress = _progress(options.replays, options.quiet)
    if options.intervals:
        cal, cov = _calibration(rng, options, progress), None
    elif options.by_counts:
        cal, cov = None, _coverage_by_counts(
            rng, replays=options.replays, n_items=options.n_items,
            confidence=options.confidence, progress=progress, **design)
    else:
        cal, cov = None, coverage(
            rng, replays=options.replays, n_items=options.n_items,
            resamples=options.resamples, confidence=options.confidence,
            jobs=options.jobs, progress=progress, **design)
    if out:
        _write_atomic(out, _csv_text(pairs))

    def data():
        report = _simulation_json(result, cov, seed=options.seed,
                                  resamples=options.resamples,
                                  acc_a=options.acc_a, acc_b=options.acc_b)
        report["csv"] = out
        if cal:
            report["calibration"] = _calibration_json(cal)
        return report

    def text():
        return (_format_simulation(result, cov, acc_a=options.acc_a,
                                   acc_b=options.acc_b,
                                   confidence=options.confidence,
                                   calibration=cal)
                + "\n" + (f"wrote {out} ({len(pairs)} items)" if out
                          else options.unwritten))
    print(_render(options.format, text=text, data=data))
    return 0


def _run_peeking(options):
    """Run simulate --peeking and print how often each look excluded zero;
    return 0."""
    seen = _peeking(random.Random(options.seed), replays=options.replays,
                    n_items=options.n_items, corr=options.corr,
                    acc_a=options.acc_a,
                    progress=_progress(options.replays, options.quiet))
    shown = dict(seed=options.seed, acc_a=options.acc_a, corr=options.corr)
    print(_render(options.format,
                  text=lambda: _format_peeking(seen, **shown),
                  data=lambda: _peeking_json(seen, **shown)))
    return 0


def _run_differences(options):
    """simulate --differences: the continuous calibration table."""
    cal = _continuous_calibration(
        random.Random(options.seed), options,
        _progress(options.replays, options.quiet))
    print(_render(options.format, data=lambda: {
        "differences": options.differences, "n_items": options.n_items,
        "seed": options.seed, "resamples": options.resamples,
        "confidence": float(options.confidence),
        "calibration": _calibration_json(cal)}, text=lambda: (
            f"n={options.n_items} per-item differences, "
            f"{options.differences}, sd 1, true mean {_decimal(cal.gap)}; "
            f"{options.resamples} resamples where resampled\n"
            + _format_calibration(cal, binary=False))))
    return 0


def _run_compare(options):
    """Run compare: read, compare, judge and print each candidate against
    the baseline; return 1 if --fail-on holds, else 0."""
    if options.plot:
        _check_plot(options.plot)
    rng = random.Random(options.seed)
    if options.group_runs:
        compared, noise = _grouped_runs(options, rng)
        runs = _judged([compared], options)
        best = ([], [])
    else:
        runs = [_compare_run(options, path, rng)
                for path in options.runs[1:] or [None]]
        runs = _judged(runs, options)
        best = _best_of_runs(options, runs, rng)
        noise = ()
    named = _named_runs(options, runs)
    if options.format != "html":
        reports = [_compare_json(run, options) if options.format == "json"
                   else _format_compare(run, options,
                                        options.format == "markdown")
                   for run in (runs if options.format == "json" else named)]
        if noise:
            reports = [_with_noise(reports[0], noise, runs[0].results,
                                   options)]
        print(_joined_reports(
            reports, fmt=options.format,
            baseline=options.runs[0] if options.format == "json"
            else named[0].names[0],
            family=runs[0].judgements[0].family if runs[0].judgements
            else "", best=(best, runs, options), adjust=options.adjust))
    if options.format == "html" or options.html:
        page = _html(_compare_page(named, options, (best, runs, options),
                                   noise))
        if options.format == "html":
            print(page)
        if options.html:
            _write_plot(options.html, page)
    if options.plot:
        _write_plot(options.plot, _histogram_svg(
            runs[0].results, confidence=options.confidence,
            judgements=runs[0].judgements))
    several = len(runs) > 1
    tripped = [(f"{run.names[1]}: {metric}" if several else metric, why)
               for run in runs
               for metric, why in _failures(run.results, [
                   j._replace(verdict=q.direction or
                              "no detectable difference")
                   for j, q in zip(run.judgements, run.sequential)]
                   + list(run.judgements[len(run.sequential):]),
                   options.fail_on)]
    for metric, why in tripped:
        print(f"bootstrap-eval-deltas: --fail-on {options.fail_on}: {metric} "
              f"{why}", file=sys.stderr)
    return 1 if tripped else 0


def _run_check(options):
    """Run check: read and profile the inputs, print what they hold and
    the commands that answer what they can; return 0."""
    checked = _check(options)
    prog = shlex.join(options.program)
    print(_render(options.format,
                  text=lambda: _format_check(checked, prog),
                  markdown=lambda: _format_check(checked, prog, True),
                  data=lambda: _check_json(checked)))
    return 0


def _failures(results, judgements, fail_on):
    """Return [(metric, why)] for the metrics that trip --fail-on."""
    out = []
    for r, j in zip(results, judgements):
        if fail_on == "worse" and j.verdict == "worse":
            out.append((r.metric, "is worse"))
        elif fail_on == "not-better" and j.verdict != "better":
            out.append((r.metric, f"is not better ({j.verdict})"))
        elif fail_on == "changed" and j.verdict in ("better", "worse"):
            out.append((r.metric, f"changed detectably ({j.verdict})"))
        elif fail_on == "not-equivalent" and j.equivalence is not None \
                and j.equivalence.verdict != "equivalent":
            out.append((r.metric, f"is not shown equivalent "
                                  f"({j.equivalence.verdict})"))
        elif fail_on == "inferior" and j.margin is not None and \
                not j.non_inferior:
            out.append((r.metric, "is not shown non-inferior"))
    return out


def _run_rank(options):
    """Run rank: read the runs, rank them jointly, compare the pairs asked
    for and print; return 0."""
    if options.plot:
        _check_plot(options.plot)
    sources = [_open_source(path, options.reading) for path in options.runs]
    if _holds_preferences(sources):
        return _run_rank_preferences(options, sources)
    if options.anchor or options.human:
        raise EvalDeltaError(f"{'--anchor' if options.anchor else '--human'}"
                             f" goes with preference files in rank (compare "
                             f"corrects two runs' scores with --human)")
    if options.ties:
        raise EvalDeltaError("--ties says how a preference's tie counts: "
                             "it goes with preference files")
    reading = [f"{source.path}: {note}" for source in sources
               for note in source.notes]
    metric, tally, dropped, names = _rank_input(options, sources)
    reading += dropped.notes() if isinstance(dropped, _Dropped) else []
    if (options.against not in names and options.against in options.runs
            and len(options.runs) == len(names)):     # a path, shortened
        options = options._replace(against=names[options.runs.index(
            options.against)])
    if options.against is not None and options.against not in names:
        raise EvalDeltaError(f"--baseline {options.against!r} is none of "
                             f"the systems: {', '.join(names)}")
    metric = metric._replace(direction=_rank_direction(options, metric.name,
                                                       reading))
    rng = random.Random(options.seed)
    subsets = tally if options.by else {}
    if options.by:
        tally = _merged_tally(tally)
    ranking = _rank_systems(tally, rng, names, options, metric)
    subsets = [(label, _rank_systems(subsets[label], rng, names, options,
                                     metric)) for label in sorted(subsets)]
    chosen = ([(i, j) for i in range(len(names))
               for j in range(i + 1, len(names))] if options.pairs else
              [(names.index(options.against), j) for j in range(len(names))
               if names[j] != options.against] if options.against else [])
    pairs = [(names[i], names[j], _compare_tally(
        _pair_tally(tally, i, j), rng, options._replace(plot=None),
        metric._replace(name=f"{names[j]} - {names[i]}")))
        for i, j in chosen]
    judged = _judge([r for _, _, r in pairs], options,
                    family="pairs" if options.pairs else "candidates")
    ranked = _Ranked(ranking, pairs, judged, dropped, reading,
                     [(label, _Ranked(r)) for label, r in subsets])
    return _print_ranked(ranked, options)


def _run_rank_preferences(options, sources):
    """Run rank on preference files: Bradley-Terry ratings; return 0."""
    if options.human:                # the judge's verdicts read twice: once
        sources = [s._replace(batches=list(s.batches))   # held as lists
                   for s in sources]
    cells, names, reading, questions = _preference_battles(options, sources)
    ranking = _rank_preferences(cells, random.Random(options.seed), names,
                                options, questions)
    corrected = (_human_battles(options, sources, names) if options.human
                 else None)
    reading = reading + (corrected[1] if corrected else [])
    ranked = _Ranked(ranking, reading=reading,
                     matrix=_win_rates(len(names), cells),
                     corrected=corrected)
    return _print_ranked(ranked, options)


def _print_ranked(ranked, options):
    """Print rank's report of a _Ranked in the format asked, and draw its
    forest plot where asked; return 0."""
    _emit(options, text=lambda: _format_rank(ranked, options),
          markdown=lambda: _format_rank(ranked, options, True),
          data=lambda: _rank_json(ranked, options),
          page=lambda: _rank_page(ranked, options))
    if options.plot:
        _write_plot(options.plot, _forest_svg(
            ranked.ranking, confidence=options.confidence,
            marginal=options.marginal_ranks))
    return 0


def _rank_direction(options, name, said):
    """Return rank's direction on metric *name*: --lower-is-better (alone,
    or naming the metric, as compare's does), --higher-is-better NAME,
    else as the name says (a guess, added to the list *said*)."""
    for flag, given in (("--lower-is-better", options.lower_is_better),
                        ("--higher-is-better", options.higher_is_better)):
        if given and given[0] is not None and given[0] != name:
            raise EvalDeltaError(f"{flag} {given[0]}: rank ranks on "
                                 f"{name!r}; name that metric, or give the "
                                 f"flag alone")
    if options.lower_is_better and options.higher_is_better:
        raise EvalDeltaError(f"{name} is given both --lower-is-better and "
                             f"--higher-is-better")
    if options.lower_is_better:
        return "lower"
    if options.higher_is_better or not _lower_is_better(name):
        return "higher"
    said.append(f"{name}: lower is better, as its name says "
                f"(--higher-is-better {name} says otherwise)")
    return "lower"


def _run_plan(options):
    """Run plan: from a design or a pilot, print power, items needed and
    the detectable gap; return 0."""
    if options.plot:
        _check_plot(options.plot)
    if options.pick_labels:
        ids, total = _label_sample(options)
        _emit(options, text=lambda: "\n".join(ids),
              data=lambda: {"seed": options.seed, "items": total,
                            "ids": ids})
        return 0
    if options.runs:
        return _run_pilot(options)
    plan = _plan_design(options.acc_a, options.acc_b, corr=options.corr,
                        discordance=options.discordance, alpha=options.alpha,
                        power=options.power, n_items=options.n_items,
                        confidence=options.confidence)
    repeats = None
    if options.repeats:
        repeats = _items_with_repeats(plan.design, options.within_var,
                                      _repeat_counts(options.repeats),
                                      alpha=options.alpha,
                                      power=options.power)
    needed, ns = plan.items_needed, list(plan.power_at)
    simulated = {}
    for n in (([needed] if needed else []) + [n for n in ns if n != needed]
              if options.simulate else []):
        hits, _ = _simulated_power(
            random.Random(options.seed), n, replays=options.replays,
            corr=plan.corr, acc_a=options.acc_a, acc_b=options.acc_b,
            alpha=options.alpha,
            progress=_progress(options.replays, options.quiet))
        simulated[n] = (hits, options.replays)
    plan = plan._replace(simulated=simulated)
    stopping = None
    if options.sequential:
        stopping = _sequential_stopping(
            random.Random(options.seed), plan.design,
            replays=options.replays, most=3 * (needed or max(ns)),
            fixed=needed, alpha=options.alpha,
            progress=_progress(options.replays, options.quiet))
    svg = _plan_svg(plan, max(ns + [needed or 0]))
    if options.plot:
        _write_plot(options.plot, svg)

    def data():
        report = _plan_json(plan)
        if repeats:
            report["items_needed_by_repeats"] = {
                "inf" if k is None else str(k): v for k, v in repeats.items()}
        if stopping:
            report["sequential"] = _stopping_json(stopping,
                                                  seed=options.seed)
        return report
    said = _format_stopping(stopping, seed=options.seed,
                            power=options.power) if stopping else []
    more = ([_format_repeats(repeats, options.within_var)]
            if repeats else []) + said
    _emit(options, data=data, text=lambda: "\n".join(
        [_format_plan(plan)] + more), markdown=lambda: _plan_markdown(
            plan, options, repeats, said),
          page=lambda: _plan_page(plan, options, svg, repeats, said))
    return 0


def _run_pilot(options):
    """Run plan --from: each metric of the pilot runs sized as compare
    sizes it (and, with --sequential, replayed); return 0."""
    if options.group_runs:
        found, noise = _grouped_runs(options, random.Random(options.seed))
        _emit(options, text=lambda: _format_runs_plan(
            noise, found.results, options), data=lambda: _runs_plan_json(
                noise, found.results, options),
              markdown=lambda: _format_runs_plan(noise, found.results,
                                                 options, True))
        return 0
    if options.human:
        found = _labels_from_pilot(options)
        sizing = dict(gap=options.gap, width=options.width,
                      alpha=options.alpha, power=options.power,
                      confidence=options.confidence)
        _emit(options, text=lambda: _format_labels_plan(found, **sizing),
              data=lambda: _labels_plan_json(found, **sizing),
              markdown=lambda: _format_labels_plan(found, **sizing,
                                                   markdown=True))
        return 0
    rows = _plan_from_pilot(options)
    sizing = dict(gap=options.gap, alpha=options.alpha, power=options.power)
    stops = _pilot_stopping(options, rows) if options.sequential else {}

    def data():
        report = _pilot_json(rows, **sizing)
        for entry in report["metrics"]:
            if entry["metric"] in stops:
                entry["sequential"] = _stopping_json(
                    stops[entry["metric"]], seed=options.seed)
        return report

    def text(markdown=False):
        lines = [_format_pilot(rows, **sizing, markdown=markdown)]
        for name, st in stops.items():
            said = _format_stopping(st, seed=options.seed,
                                    power=options.power)
            lines += [f"{name}: " + said[0]] + said[1:]
        if markdown:
            return "\n\n".join(lines[:1] + _markdown_lines(lines[1:]))
        return "\n".join(lines)
    _emit(options, text=text, data=data, markdown=lambda: text(True))
    return 0


def _pilot_stopping(options, rows):
    """Return {metric: _Stopping} of plan --from --sequential: each 0/1
    metric's pilot discordance, at the gap seen (or --gap), replayed."""
    stops = {}
    for row in rows:
        r, found = row
        if r.mcnemar is None or r.clusters is not None:
            raise EvalDeltaError(f"--sequential: {r.metric} is not a 0/1 "
                                 f"metric of independent items; plan "
                                 f"--sequential replays those only")
        d = Fraction(r.mcnemar.a_only + r.mcnemar.b_only, r.n_items)
        g = _exact(r.gap if options.gap is None else options.gap)
        if not d or abs(g) > d:
            raise EvalDeltaError(f"--sequential: {r.metric}: a gap of "
                                 f"{float(g):g} cannot arise at the pilot's "
                                 f"discordance {float(d):g}")
        design = _Design(0.0, 0.0, float((d - g) / 2), float((d + g) / 2))
        most = 3 * (found.items_needed or r.n_items)
        stops[r.metric] = _sequential_stopping(
            random.Random(options.seed), design, replays=options.replays,
            most=most, fixed=found.items_needed, alpha=options.alpha,
            progress=_progress(options.replays, options.quiet))
    return stops


def _plan_svg(plan, largest):
    """Return the power curve of a Plan up to a quarter past *largest*."""
    d = plan.design
    top = largest * 5 // 4
    grid = sorted({max(1, top * i // 40) for i in range(1, 41)})
    return _power_curve_svg(
        [(n, _mcnemar_power(n, d, alpha=plan.alpha)) for n in grid],
        target=plan.power, answer=plan.items_needed,
        title=f"Power to detect {_pts(_exact(d.acc_b) - _exact(d.acc_a))} "
              f"pts (A={d.acc_a:g}, B={d.acc_b:g})")


def main(argv=None) -> int:
    """Run the command line; return the exit status."""
    program = _program(argv)
    prog = shlex.join(program)
    args = _build_parser(prog).parse_args(_with_default_command(argv, prog))
    watch = not getattr(args, "quiet", False)
    if watch:                            # long resampling says how long
        _WATCH.append(_Progress(sys.stderr, lines=not sys.stderr.isatty()))
    try:
        return args.run(_options(args)._replace(command=program + tuple(
            sys.argv[1:] if argv is None else argv), program=program))
    except BrokenPipeError:              # e.g. | head: end quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 141                       # 128 + SIGPIPE, as a shell says
    except (EvalDeltaError, OSError) as exc:
        line = str(exc).replace("\r", "\\r").replace("\n", "\\n")
        print(f"bootstrap-eval-deltas: error: {line}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("bootstrap-eval-deltas: interrupted; nothing written",
              file=sys.stderr)
        return 130
    finally:
        if watch:
            _WATCH.pop().clear()


## Fast paths #################################################################

import gc                       # the modules only speed needs, imported
import mmap                     # here so that no other section can use
import multiprocessing          # them: processes, shared memory and the
import pickle                   # collector stay behind these doors
import signal

# Speed only.  Each piece below is a second body for work a plain function
# elsewhere describes, with the same results (tests/oracle.py keeps the
# straightforward twins and the tests hold the two together); what each
# gains is in its docstring and measured by tests/benchmark.py.  The other
# sections call a few doors (_draw_indices, _draw_codes, _resample_sums,
# _resample_columns, _in_parallel, _replays, _prefetched, the join's _IdList
# and _Positions) and never see processes, shared memory or the collector.

_REJECT = 15         # code of a rejected draw in the fast sampler
_CHUNK = 1 << 15     # 32-bit words per getrandbits() call: stays in cache
_RING_BYTES = 1 << 24  # shared memory between coverage() and its helper,
_RING_MOST = 1 << 27   # or room for three replays' words, up to this


_FORK_LEAST = 1 << 15  # distinct pairs from which a helper process shares it
_FORK_PICKS = 1 << 22  # index draws (items x resamples) from which a helper
                       # shares them: below, a fork costs more than it saves
_FORK_FITS = 1 << 18   # Bradley-Terry rounds x cells, likewise (20 systems,
                       # 10^5 battles: 1.8x; 8 systems, 2 x 10^4: 1.35x)
_PREFETCH_BYTES = 1 << 23  # a joined run's size from which a helper parses it


class _CollectorPaused:
    """Pause the cyclic garbage collector while reading builds millions of
    small objects that hold no cycles (records, verdicts, tallies): each
    full collection walks every object alive, and a file's objects set
    off one at every quarter more, a third of the reading time at 10^6
    records.  Plain reference counting still frees them; the collector
    runs again, as it was, once the block ends."""

    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


def _can_fork():
    """Return True where a helper process can be forked: the fork start
    method exists and there is more than one core to run it."""
    return ("fork" in multiprocessing.get_all_start_methods()
            and (os.cpu_count() or 1) > 1)


# Every bootstrap index is one rng.randrange(n), and the fast paths below
# consume the generator exactly as those calls would, so a seed gives the
# same numbers as the one-index-at-a-time loop (tests/ keeps that loop as
# the oracle).  CPython's randrange(n) is getrandbits(k) with k =
# n.bit_length(), retried while the value is >= n, and getrandbits(k) for
# k <= 32 is the top k bits of one 32-bit Mersenne Twister word.  A single
# getrandbits(32*m) returns the next m words, least significant first.  So
# we draw the words in bulk, read their top bytes with C-level slicing,
# map them to per-item codes with bytes.translate (deleting rejected
# draws), and count codes per resample with bytes.count.  A draw of m words
# never overshoots while m indices are still wanted, since each index
# takes at least one word.


def _draw_indices(rng, n, count):
    """Return [rng.randrange(n) for _ in range(count)], drawn in bulk."""
    k = n.bit_length()
    if k > 32 or array("I").itemsize != 4:          # pragma: no cover
        return [rng.randrange(n) for _ in range(count)]
    if k > 16:
        return _draw_wide_indices(rng, n, count)
    parts = _draw_mapped(rng, n, count, _index_table(n),
                         lambda m: list(filter((-1).__ne__, m)))
    return [i for part in parts for i in part]


def _draw_codes(rng, n, count, codes):
    """Return bytes(codes[rng.randrange(n)] for _ in range(count)).

    *codes* is a bytes of n small codes (below 15).  The generator ends in
    the same state as after the one-at-a-time loop.
    """
    if n < 1 << 16:                 # each chunk mapped while it is fresh
        return b"".join(_draw_words(rng, n, count, lambda low, top:
                                   _codes_from_words([(low, top)], n, codes)))
    return bytes(map(codes.__getitem__, _draw_indices(rng, n, count)))


def _draw_chunks(rng, count, take):
    """Draw the words of count rng.randrange(n) calls, chunk by chunk.

    take(data) handles one chunk (32-bit words, little-endian bytes) and
    returns how many of its words gave an accepted index.  Asking for as
    many words as indices are still wanted never overshoots.
    """
    need = count
    while need:
        got = 0
        for start in range(0, need, _CHUNK):
            size = min(_CHUNK, need - start)
            got += take(rng.getrandbits(32 * size).to_bytes(4 * size, "little"))
        need -= got


def _draw_words(rng, n, count, keep=None):
    """Consume rng as count calls of rng.randrange(n) (n < 2**16) would.

    Return the words drawn as (low, top) chunks: the words' second and
    top bytes, all that an index of up to 16 bits reads (low is empty for
    n <= 256, whose index is in the top byte).  If given, keep(low, top)
    is called on each chunk while it is fresh, and its result is listed
    instead.
    """
    k = n.bit_length()
    chunks = []

    def take(data):
        top, low = data[3::4], data[2::4] if k > 8 else b""
        chunks.append(keep(low, top) if keep else (low, top))
        return len(top) - _reject_count(top, low, n, k)

    _draw_chunks(rng, count, take)
    return chunks


def _reject_count(top, low, n, k):
    """Return how many of the drawn words give an index >= n (k <= 16).

    *top* holds the words' top bytes, *low* their second bytes.  A word
    rejects where its top 16 bits reach n << (16 - k): its top byte is
    above that threshold's, or equal to it with the second byte at or
    above the threshold's second (found one by one: 1 word in 256).
    """
    if k <= 8:
        return _bytes_at_least(top, n << (8 - k))
    first, second = divmod(n << (16 - k), 256)
    if not second:
        return _bytes_at_least(top, first)
    count = _bytes_at_least(top, first + 1)
    i = top.find(first)
    while i >= 0:
        count += low[i] >= second
        i = top.find(first, i + 1)
    return count


def _bytes_at_least(data, floor):
    """Return how many bytes of data are >= floor.

    Deleting them and counting what is left branches on every byte,
    cheap while few are deleted but 3 to 4 ns a byte where a third of
    them are; past a tenth, each byte becomes a bit counted by
    int.bit_count instead, about 1.6 ns a byte at any share.
    """
    if floor > 255:
        return 0
    if 10 * (256 - floor) <= 256:
        return len(data.translate(None, bytes(range(floor))))
    return int.from_bytes(data.translate(_at_least_table(floor)),
                          "little").bit_count()


@functools.lru_cache(maxsize=4)
def _at_least_table(floor):
    """Return the translate table of 1 for bytes >= floor, else 0."""
    return bytes(b >= floor for b in range(256))


_PLANE_BITS = 4      # index bits below the top byte mapped by planes of
_CRUMB_BITS = 6      # nibbles, and of crumbs (codes below 3); past them a
                     # 16-bit table, slower


@functools.lru_cache(maxsize=8)
def _code_tables(n, codes):
    """Return the translate tables mapping word bytes to item codes.

    For n <= 256 one table maps the top byte (its rejected inputs the
    delete set).  For an index of k = 8 + j bits, the index is 2^j top +
    low, low the top j bits of the second byte, and the tables are
    "planes" of the top byte that hold several codes a byte: with codes
    below 3 (a paired bootstrap's 0, 1, 2 and a 0/1 metric's; j <=
    _CRUMB_BITS), four 2-bit crumbs, low's two lowest bits picking one, a
    rejected draw 3, in 2^(j - 2) planes; else (j <= _PLANE_BITS) two
    nibbles, low's lowest bit picking one, in 2^(j - 1) planes.  The
    masks, one per bit of low, 0xFF where it is set, pick between planes
    and then within the byte; they are made from the second bytes as one
    integer, so the tables give the shift that brings each bit of low to
    a byte's lowest bit.  Return (planes, shifts, the delete set, the
    bits a code takes), or None past both: the words' top 16 bits then
    index a table.
    """
    k = n.bit_length()

    def code(i):
        return codes[i] if i < n else _REJECT

    if k <= 8:
        top = bytes(code(b >> (8 - k)) for b in range(256))
        return top, None, bytes(b for b in range(256) if top[b] == _REJECT), 8
    j = k - 8
    shifts = [8 - j + bit for bit in range(j)]
    if 2 <= j <= _CRUMB_BITS and max(codes) < 3:
        def crumb(i):
            return 3 if i >= n else codes[i]
        planes = [bytes(sum(crumb(t << j | 4 * quarter + c) << 2 * c
                            for c in range(4)) for t in range(256))
                  for quarter in range(1 << (j - 2))]
        return planes, shifts, _CRUMB_REJECT, 2
    if j > _PLANE_BITS:
        return None
    planes = [bytes(code(t << j | 2 * half) | code(t << j | 2 * half + 1) << 4
                    for t in range(256)) for half in range(1 << (j - 1))]
    return planes, shifts, _LOW_REJECT, 4


_LOW_NIBBLE = bytes(b & 15 for b in range(256))
_LOW_REJECT = bytes(b for b in range(256) if b & 15 == _REJECT)
_LOW_CRUMB = bytes(b & 3 for b in range(256))
_CRUMB_REJECT = bytes(b for b in range(256) if b & 3 == 3)


def _codes_from_words(chunks, n, codes):
    """Return the codes of the accepted draws in the chunks, in order.

    A chunk (None, codes) was mapped already and is taken as it is.
    """
    tables = _code_tables(n, bytes(codes))
    out = []
    if tables is None:                      # past the planes: a 16-bit table
        table = _index_codes(n, bytes(codes))
        reject = bytes([_REJECT])
        for low, top in chunks:
            if low is None:
                out.append(top)
                continue
            both = bytearray(2 * len(top))
            both[0::2], both[1::2] = low, top
            hi = array("H")
            hi.frombytes(both)
            if sys.byteorder == "big":               # pragma: no cover
                hi.byteswap()
            out.append(bytes(itemgetter(*hi)(table) if len(hi) > 1 else
                             (table[hi[0]],)).translate(None, reject))
        return b"".join(out)
    planes, shifts, rejected, width = tables
    first = 2 if width == 2 else 1          # low's bits that pick in a byte
    for low, top in chunks:
        if low is None:                     # mapped already
            out.append(top)
            continue
        if shifts is None:
            out.append(top.translate(planes, rejected))
            continue
        level = [int.from_bytes(top.translate(p), "little") for p in planes]
        second, ones = int.from_bytes(low, "little"), _ones(len(low))
        for shift in shifts[first:]:        # pick a plane, bit by bit
            m = (second >> shift & ones) * 255
            level = [x ^ ((x ^ y) & m) for x, y in zip(level[::2],
                                                         level[1::2])]
        u = level[0]                        # then within the byte: the
        for bit in reversed(range(first)):  # nibble, the crumb
            m = (second >> shifts[bit] & ones) * 255
            u = (u ^ (u & m)) | (u >> (4 >> (first - 1 - bit)) & m)
        picked = u.to_bytes(len(top), "little")
        out.append(picked.translate(_LOW_CRUMB if width == 2 else
                                    _LOW_NIBBLE, rejected))
    return b"".join(out)


@functools.lru_cache(maxsize=8)
def _index_codes(n, codes):
    """Map the top 16 bits of a word to the code of randrange(n)'s index
    (n < 2**16), _REJECT if none."""
    shift = 16 - n.bit_length()
    return bytes(codes[h >> shift] if h >> shift < n else _REJECT
                 for h in range(1 << 16))


def _hi16(data):
    """Return the top 16 bits of each little-endian 32-bit word of data."""
    halves = array("H")
    halves.frombytes(data)
    if sys.byteorder == "big":                       # pragma: no cover
        halves.byteswap()
    return halves[1::2]


def _draw_mapped(rng, n, count, table, accept):
    """Draw the words of count rng.randrange(n) calls (512 <= n < 2**16).

    Each word's top 16 bits go through *table* (one C-level itemgetter
    call per chunk); accept(mapped) returns the accepted part.  Return the
    list of accepted parts, in order.
    """
    parts = []

    def take(data):
        hi = _hi16(data)
        parts.append(accept(itemgetter(*hi)(table) if len(hi) > 1
                            else (table[hi[0]],)))
        return len(parts[-1])

    _draw_chunks(rng, count, take)
    return parts


@functools.lru_cache(maxsize=8)
def _index_table(n):
    """Map the top 16 bits of a word to randrange(n)'s index, -1 if none."""
    shift = 16 - n.bit_length()
    return tuple(h >> shift if h >> shift < n else -1 for h in range(1 << 16))


def _draw_wide_indices(rng, n, count):
    """_draw_indices for 2**16 <= n < 2**32: shift whole words."""
    shift = 32 - n.bit_length()
    out = []

    def take(data):
        words = array("I")
        words.frombytes(data)
        if sys.byteorder == "big":                   # pragma: no cover
            words.byteswap()
        before = len(out)
        out.extend(filter(n.__gt__, map(rshift, words, repeat(shift))))
        return len(out) - before

    _draw_chunks(rng, count, take)
    return out


def _bit_plane_sum(ints, pattern):
    """Return a function giving the sum of ints[i] over the set bits i of
    pattern(), which has no bit from len(ints) on.

    With the integers offset to be >= 0, bit b of each one forms a mask,
    and the sum is sum over b of 2**b * popcount(pattern & mask_b): a few
    dozen C-level operations on big integers instead of one per item.

    >>> total = _bit_plane_sum([5, -2, 7], lambda: 0b101)
    >>> total()
    12
    """
    offset = max(0, -min(ints))
    width = (max(ints) + offset).bit_length() // 8 + 1
    data = b"".join(x.to_bytes(width, "little")
                    for x in map(add, reversed(ints), repeat(offset)))
    masks = []
    for b in range(8 * width):
        mask = int(data[b // 8::width].translate(_BIT_DIGITS[b % 8]), 2)
        if mask:
            masks.append((b, mask))

    def total():
        bits = pattern()
        return (sum((bits & mask).bit_count() << b for b, mask in masks)
                - offset * bits.bit_count())
    return total


_BIT_DIGITS = [bytes(b"01"[b >> t & 1] for b in range(256))   # bit t of a
               for t in range(8)]                            # byte, as text


class _Ring:
    """Shared memory that a forked helper reads raw words from.

    Chunks go in at increasing offsets, wrapping round.  The bytes from
    *tail* to *head* (counted since the start) belong to replays still in
    flight; a replay's bytes are released when its result comes back, and
    results come back in order.
    """

    def __init__(self, size):
        self.memory = mmap.mmap(-1, size)    # anonymous, shared across fork
        self.size = size
        self.head = self.tail = 0
        self.ends = collections.deque()      # head after each replay in flight

    def place(self, data):
        """Copy data in and return its offset, or None if it cannot fit."""
        at = self.head % self.size
        skip = self.size - at if at + len(data) > self.size else 0
        if self.head + skip + len(data) - self.tail > self.size:
            return None
        self.head += skip
        at = self.head % self.size
        self.memory[at:at + len(data)] = data
        self.head += len(data)
        return at

    def sent(self):
        """Mark the bytes placed so far as one replay in flight."""
        self.ends.append(self.head)

    def release(self):
        """Free the oldest replay in flight."""
        self.tail = self.ends.popleft()


def _pipelined(rng, replays, n, resamples, design, bounds_of):
    """Yield the bounds of each replay, computed in a forked helper.

    This process draws (it owns rng) while the helper maps and counts.
    Raw words go through a shared ring the moment they are drawn, and
    only their offsets through the pipe.  Words that find the ring full
    of replays in flight (the helper is behind, as it is where mapping
    costs more than drawing, or a replay is too big for the whole ring)
    are mapped to paired codes here, and the codes go through the pipe.
    """
    context = multiprocessing.get_context("fork")
    ours, theirs = context.Pipe()
    per_replay = resamples * n * (1 if n <= 256 else 2) * 17 // 16
    ring = _Ring(max(_RING_BYTES, min(3 * per_replay, _RING_MOST)))
    helper = context.Process(target=_helper_loop, daemon=True,
                             args=(theirs, ours, ring.memory, bounds_of))
    helper.start()
    theirs.close()
    results = collections.deque()

    def collect():
        results.append(ours.recv())
        ring.release()

    def keeper(latent):
        codes = []

        def keep(low, top):
            # Words that find the ring full (the helper is behind) are
            # mapped here, not waited on: the two processes share the
            # mapping where it costs more than drawing (past 4,096 items).
            data = low + top
            at = ring.place(data)
            while at is None and ours.poll():
                collect()
                at = ring.place(data)
            if at is not None:
                return at, len(low), len(top)
            if not codes:
                codes.append(_paired_codes(_outcomes(latent, **design)))
            return None, _codes_from_words([(low, top)], n, codes[0])
        return keep

    try:
        for _ in range(replays):
            ours.send(_replay_draws(rng, n, resamples, design, keeper))
            ring.sent()
            while ours.poll():
                collect()
            while results:
                yield results.popleft()
        ours.send(None)                          # no more replays
        while ring.ends:
            collect()
            yield results.popleft()
    finally:
        ours.close()
        helper.join(timeout=5)
        if helper.is_alive():                        # pragma: no cover
            helper.terminate()


def _helper_loop(conn, parent_end, memory, bounds_of):
    """Serve _pipelined: read replays one ahead, send back their bounds."""
    parent_end.close()          # else the parent closing it is no EOF here
    signal.signal(signal.SIGINT, signal.SIG_IGN)   # Ctrl-C is the parent's

    def words(place):
        if place[0] is None:                # (None, codes): mapped there
            return place
        at, low, top = place
        return memory[at:at + low], memory[at + low:at + low + top]

    try:
        current = conn.recv()
        while current:
            following = conn.recv()
            latent, drawn = current
            if isinstance(drawn, list):
                drawn = [words(place) for place in drawn]
            conn.send(bounds_of(latent, drawn))
            current = following
    except (EOFError, BrokenPipeError, ConnectionResetError):
        pass                    # the parent stopped early (an error, Ctrl-C)
    finally:
        conn.close()


def _prefetched(source, key, fields):
    """Return _field_batches(source, key, fields) parsed by a forked
    helper, or None where none can be forked (one core, no fork, no room
    for its spool).  The helper writes each batch pickled to an unnamed
    temporary file, then the error that stopped it, if one did; this
    process reads them back in order once it is done, so memory holds a
    batch at a time.  Gain: the two runs of a join parsed at once."""
    global _QUIET                  # set in the helper: one progress line
    if not _can_fork():
        return None
    try:
        spool = tempfile.TemporaryFile()
    except OSError:
        return None
    pid = os.fork()
    if pid == 0:                                    # pragma: no cover
        _QUIET, status = True, 1
        try:
            try:
                for batch in _field_batches(source, key, fields):
                    pickle.dump(batch, spool, pickle.HIGHEST_PROTOCOL)
            except (EvalDeltaError, OSError) as exc:
                pickle.dump(f"{source.path}: {exc.strerror}"
                            if isinstance(exc, OSError) and exc.strerror
                            else str(exc), spool)
            spool.flush()
            status = 0
        finally:
            os._exit(status)
    return _Prefetched(pid, spool)


class _Prefetched:
    """The batches a forked helper parsed (see _candidate_batches), read
    back when iterated; close() stops a helper whose work is not wanted."""

    def __init__(self, pid, spool):
        self.pid, self.spool = pid, spool

    def __iter__(self):
        try:
            _, status = os.waitpid(self.pid, 0)
        except BaseException:
            self.close()
            raise
        self.pid = None
        if status:
            self.spool.close()
            raise EvalDeltaError("the helper process failed; try --jobs 1")
        with self.spool:
            self.spool.seek(0)
            while True:
                try:
                    batch = pickle.load(self.spool)
                except EOFError:
                    return
                if isinstance(batch, str):
                    raise EvalDeltaError(batch)
                yield batch

    def close(self):
        if self.pid is not None:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
            self.pid = None
        self.spool.close()


class _IdList:
    """A run's ids in order, held compactly: each batch's ids as one str,
    joined by newlines (a batch with an id holding a newline stays a
    list), so 10^7 ids such as q1234567 take about 100 MB rather than the
    640 MB of a list of str objects.  It is read as a list is: len,
    iteration and slices (lists of the ids, made when asked for); same()
    compares a batch with the ids at a place without making them.

    >>> ids = _IdList()
    >>> ids.extend(["q1", "q10", "é"]); ids.extend(["x\\ny"])
    >>> len(ids), ids[1:4], list(ids)
    (4, ['q10', 'é', 'x\\ny'], ['q1', 'q10', 'é', 'x\\ny'])
    >>> ids.same(0, ["q1", "q10", "é"]), ids.same(0, ["q1", "q10\\né"])
    (True, False)
    """

    def __init__(self):
        self.batches, self.starts, self.table = [], [0], None

    def extend(self, items):
        """Append a batch of ids (a list of str)."""
        if items:
            text = "\n".join(items)
            plain = text.count("\n") == len(items) - 1
            self.batches.append(text if plain else list(items))
            self.starts.append(self.starts[-1] + len(items))

    def __len__(self):
        return self.starts[-1]

    def _batch(self, k):
        batch = self.batches[k]
        return batch.split("\n") if type(batch) is str else batch

    def __iter__(self):
        for k in range(len(self.batches)):
            yield from self._batch(k)

    def __getitem__(self, part):
        start, stop, step = part.indices(len(self))
        if step != 1:                                  # pragma: no cover
            raise TypeError("_IdList takes slices of step 1")
        out = []
        k = bisect.bisect_right(self.starts, start) - 1
        while start < stop:
            here, last = self.starts[k], min(stop, self.starts[k + 1])
            out += self._batch(k)[start - here:last - here]
            start, k = last, k + 1
        return out

    def matches(self, other):
        """Return True if *other*, an _IdList, holds the same ids in the
        same order: batch by batch where the batches line up (equal ids
        make equal batches), else id by id."""
        if len(self) != len(other):
            return False
        if self.starts == other.starts:
            return self.batches == other.batches
        return all(map(operator.eq, self, other))

    def positions(self):
        """Return the _Positions of these ids, where each one is: made
        once, then kept and brought up to date."""
        if self.table is None:
            self.table = _Positions(self)
        else:
            self.table.add()
        return self.table

    def same(self, start, items):
        """Return True if the ids from *start* on are *items*."""
        k = bisect.bisect_left(self.starts, start)
        if (k < len(self.batches) and self.starts[k] == start
                and self.starts[k + 1] - start == len(items)
                and type(self.batches[k]) is str):   # a whole batch
            return "\n".join(items) == self.batches[k]
        return self[start:start + len(items)] == items


class _Positions:
    """The position of each id of an _IdList: an open-addressing table of
    positions keyed by the ids' hashes (4 bytes a slot, at most half of
    them full, linear probing), each hit checked against the id's own
    text, so that 10^7 ids take about 170 MB where a dict of them takes
    1.1 GB.  where(ids) gives the position of each, None for an id not
    there, and get(id) one's.  It follows its _IdList as
    that grows: add() takes in the ids appended since and names the first
    that was there already (a repeat, after which the table is done).

    >>> ids = _IdList()
    >>> ids.extend(["q1", "q10"]); ids.extend(["x\\ny", "q2"])
    >>> p = ids.positions()
    >>> [p.get(i) for i in ("q2", "q1", "x\\ny", "q10", "q3", "q1\\nq10")]
    [3, 0, 2, 1, None, None]
    >>> ids.extend(["q3", "q10"]); p.add()      # q10 again, first at 1
    (5, 1)
    """

    def __init__(self, ids):
        """Take in the ids *ids* holds, distinct (a run's ids checked for
        repeats, or ids that rose) and so put in with no checks."""
        self.ids, self.count, self.offsets = ids, len(ids), []
        self._resize(1 << max(3, (2 * self.count).bit_length()),
                     len(ids.batches))

    def _items(self, k):
        """Return batch k's ids; the first time, note where each starts
        in the batch's text (offsets)."""
        items = self.ids._batch(k)
        if k == len(self.offsets):
            self.offsets.append(array("I", itertools.accumulate(
                map(len, items), lambda end, size: end + size + 1,
                initial=0)) if type(self.ids.batches[k]) is str else None)
        return items

    def _at(self, at):
        """Return the id at position *at*."""
        ids = self.ids
        k = bisect.bisect_right(ids.starts, at) - 1
        j, batch = at - ids.starts[k], ids.batches[k]
        if type(batch) is str:
            offsets = self.offsets[k]
            return batch[offsets[j]:offsets[j + 1] - 1]
        return batch[j]

    def _resize(self, slots, batches):
        """Make the table *slots* (a power of two) long, the ids of the
        first *batches* batches in it (distinct: no checks)."""
        code = "I" if slots < 1 << 32 else "q"
        table, mask, at = array(code, [0]) * slots, slots - 1, 0
        for k in range(batches):
            items = self._items(k)
            for slot in map(and_, map(hash, items), repeat(mask)):
                while table[slot]:
                    slot = slot + 1 & mask
                at += 1
                table[slot] = at      # the position + 1: 0 is an empty slot
        self.table, self.mask = table, mask

    def add(self):
        """Take in the ids the _IdList gained since; return (its position,
        the earlier one's) of the first id that was there already, else
        None."""
        for k in range(len(self.offsets), len(self.ids.batches)):
            size = self.ids.starts[k + 1] - self.ids.starts[k]
            if 2 * (self.count + size) > self.mask + 1:
                self._resize(1 << (2 * (self.count + size) - 1).bit_length(),
                             k)
            table, mask = self.table, self.mask
            items = self._items(k)
            for item, slot in zip(items, map(and_, map(hash, items),
                                             repeat(mask))):
                while table[slot]:
                    if self._at(table[slot] - 1) == item:
                        return self.count, table[slot] - 1
                    slot = slot + 1 & mask
                self.count += 1
                table[slot] = self.count
        return None

    def get(self, item):
        """Return the position of *item*, None if it is not there."""
        return self.where([item])[0]

    def where(self, items):
        """Return the position of each of *items*, None where not there."""
        table, mask, out = self.table, self.mask, []
        for item, slot in zip(items, map(and_, map(hash, items),
                                         repeat(mask))):
            at = None
            while table[slot]:
                if self._at(table[slot] - 1) == item:
                    at = table[slot] - 1
                    break
                slot = slot + 1 & mask
            out.append(at)
        return out


class _Rising:
    """Finds a repeated id among a wide file's rows.  While the ids rise
    (as whole numbers, or as text) none can repeat and no memory is kept;
    add() is False once they stop rising, and the file is read again for
    the repeat (_find_repeat).  Where it cannot be read again (standard
    input, records a reader built) the ids are kept from the start, for
    the first _WIDE_IDS rows, and a repeat is raised with its lines."""

    def __init__(self, source, key, again):
        self.source, self.key = source, key
        self.last, self.rows = None, 0
        self.first = None if again else {}

    def consecutive(self, raw):
        """Return True for ids as read that go on 0, 1, 2, ... (or from 1)
        as text: the common case, checked at C speed."""
        if self.first is not None:
            return False
        if type(self.last) is int:
            start = self.last + 1
        elif self.last is None and raw[:1] in (["0"], ["1"]):
            start = int(raw[0])
        else:
            return False
        if raw != list(map(str, range(start, start + len(raw)))):
            return False
        self.last = start + len(raw) - 1
        return True

    def add(self, numbers, labels):
        """Return False if *labels*, the next ids as text, may repeat."""
        if self.first is not None:
            for item, number in zip(labels, numbers):
                if item in self.first:
                    _repeated(self.source, self.key, item, number,
                              self.first[item])
                if self.rows < _WIDE_IDS:
                    self.first[item] = number
            self.rows += len(labels)
            return True
        try:
            keys = list(map(int, labels))
        except ValueError:
            keys = labels
        if self.last is not None:
            keys.insert(0, self.last)
        try:
            up = all(map(lt, keys, keys[1:]))
        except TypeError:                  # numbers, then text
            up = False
        self.last = keys[-1]
        return up


# Resample sums.  A resample draws `draws` units (items, or clusters) with
# replacement and adds up their A values, B values and sizes.  Units with
# equal values form groups, and when there are few groups a multinomial
# count over the groups gives the resample (cost independent of n); else
# randrange indices are drawn in bulk and the values picked with one
# C-level itemgetter call per resample.


def _resample_sums(rng, a, b, size, counts, resamples, jobs=1):
    """Return the A, B and size sums of resamples + 1 resamples.

    Unit group j has values a[j], b[j], size[j] (1 if size is None) and
    counts[j] members; each resample draws sum(counts) units.  The last
    resample serves _shifted.  See _resample_columns.
    """
    columns = [a, b]
    if size and len(set(size)) > 1:
        columns.append(size)
    sums = _resample_columns(rng, columns, counts, resamples, jobs)
    if len(sums) == 2:
        sums.append([sum(counts) * (size[0] if size else 1)]
                    * (resamples + 1))
    return tuple(sums)


def _resample_columns(rng, columns, counts, resamples, jobs=1):
    """Return each column's sums over resamples + 1 resamples.

    Unit group j has the values columns[i][j] and counts[j] members; each
    resample draws sum(counts) units with replacement, and every column
    is summed over the same draws (the pairing of systems is kept).  With
    few groups each resample is one multinomial draw from rng; else the
    resamples are split in _BLOCKS blocks, each drawn by index from its
    own generator seeded from rng, so that two processes can share the
    work (jobs) with the same result.
    """
    draws = sum(counts)
    total = resamples + 1
    if _BOOT_GROUPED * len(counts) <= draws:
        order = sorted(range(len(counts)), key=counts.__getitem__,
                       reverse=True)         # large groups first: faster
        weights = [counts[j] for j in order]
        ordered = [[column[j] for j in order] for column in columns]
        out = [[] for _ in columns]
        for done, x in enumerate(_multinomials(rng, draws, weights, total),
                                 1):
            for sums, column in zip(out, ordered):
                sums.append(sum(map(mul, x, column)))
            _step("resampling", done, total)
        return out
    seeds = [rng.getrandbits(128) for _ in range(_BLOCKS)]
    table = _packed([_expand(column, counts) for column in columns])
    tasks = [(random.Random(seed), draws, total // _BLOCKS
              + (j < total % _BLOCKS), table)
             for j, seed in enumerate(seeds)]
    blocks = _in_parallel(_pick_sums, tasks, jobs if draws * total
                          >= _FORK_PICKS else 1, "resampling")
    return [[x for block in blocks for x in block[i]]
            for i in range(len(columns))]


def _in_parallel(func, tasks, jobs, what=None):
    """Return [func(*task) for task in tasks], the second half of the
    tasks in a forked helper process when jobs > 1 and fork is there.
    With *what*, the tasks this process runs are its progress (_step).

    The helper sends its results back pickled through a pipe; if it fails,
    or this process is interrupted, the helper is stopped and waited for.
    """
    def run(mine):
        done = []
        if what:
            _step(what, 0, len(mine))
        for task in mine:
            done.append(func(*task))
            if what:
                _step(what, len(done), len(mine))
        return done
    half = len(tasks) // 2
    if jobs < 2 or not half or not _can_fork():
        return run(tasks)
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:                                    # pragma: no cover
        os.close(readable)
        status = 1
        _WATCH.clear()                              # one progress line
        try:
            data = pickle.dumps([func(*task) for task in tasks[half:]])
            with open(writable, "wb") as pipe:
                pipe.write(data)
            status = 0
        finally:
            os._exit(status)
    os.close(writable)
    try:
        mine = run(tasks[:half])
        with open(readable, "rb") as pipe:
            data = pipe.read()
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        raise
    finally:
        _, status = os.waitpid(pid, 0)
    if status:
        raise EvalDeltaError("the helper process failed; try --jobs 1")
    return mine + pickle.loads(data)


def _pick_sums(rng, n, count, table):
    """Return each column's sums over the picks of count resamples.

    The picks are count * n calls of rng.randrange(n), in order; *table*
    is the _Packed columns of integers.  The words are drawn in bulk and
    cut, exactly, into the words of each resample (rejected words
    included), whose top bits pick from the table, padded with zeros for
    the rejected values.  Each entry packs every column's value into one
    integer, in lanes wide enough that n of them add up without carrying
    into the next lane: one C-level itemgetter call and one sum() give all
    the columns' sums of a resample.
    """
    if table.packed is None:                        # pragma: no cover
        return _plain_pick_sums(rng, n, count, table.columns)
    totals = [sum(pick(table.packed))
              for pick in map(_picker, _windows(rng, n, count))]
    return [[(t >> lane & (1 << end - lane) - 1) - n * offset
             for t in totals]
            for lane, end, offset in zip(table.lanes, table.lanes[1:]
                                         + [table.width], table.offsets)]


class _Packed(NamedTuple):
    """_Columns of integers packed one row per integer, for _pick_sums
    (packed is None past 2**31 rows: too many for 32-bit words)."""
    columns: list
    packed: list
    lanes: list
    width: int
    offsets: list


def _packed(columns):
    """Return the _Packed columns: each lane holds value + offset >= 0 and
    room for the sum of n of them; the table is padded with zeros to 2**k
    entries for the rejected draws of randrange(n)."""
    n = len(columns[0])
    k = n.bit_length()
    if k > 31:                                      # pragma: no cover
        return _Packed(columns, None, None, None, None)
    offsets = [max(0, -min(c)) for c in columns]
    lanes, at = [], 0
    for c, offset in zip(columns, offsets):
        lanes.append(at)
        at += (max(c) + offset).bit_length() + k
    packed = [0] * (1 << k)
    for c, offset, lane in zip(columns, offsets, lanes):
        packed[:n] = map(add, packed[:n], (x + offset << lane for x in c))
    return _Packed(columns, packed, lanes, at, offsets)


def _picker(window):
    """Return a function picking the values at the positions of *window* from a
    sequence."""
    return itemgetter(*window) if len(window) > 1 else _one(window[0])


def _windows(rng, n, count):
    """Yield the words' top-k-bit values of count resamples of n
    rng.randrange(n) calls, one array per resample, rejected draws in.

    Drawing never runs ahead of the calls: each call takes at least one
    word, so asking for as many words as indices are still unseen is safe.
    """
    k = n.bit_length()
    shift = 32 - k
    idx, flags, pos, ready = array("I"), b"", 0, 0
    unseen = count * n
    for _ in range(count):
        while ready < n:
            m = min(_CHUNK, unseen - ready)
            mask, reject = _lane_masks(m, k, n)
            words = rng.getrandbits(32 * m) >> shift & mask
            fresh = array("I")
            fresh.frombytes(words.to_bytes(4 * m, "little"))
            if sys.byteorder == "big":               # pragma: no cover
                fresh.byteswap()
            idx = idx[pos:] + fresh
            flags = flags[pos:] + (words + reject).to_bytes(
                4 * m, "little")[3::4].translate(_TOP_BIT)
            pos = 0
            ready += m - flags.count(1, len(flags) - m)
        end = pos + n
        rejected = flags.count(1, pos, end)
        while rejected:
            end, rejected = end + rejected, flags.count(1, end,
                                                        end + rejected)
        yield idx[pos:end]
        pos, ready, unseen = end, ready - n, unseen - n


_TOP_BIT = bytes(b >> 7 for b in range(256))


@functools.lru_cache(maxsize=4)
def _lane_masks(m, k, n):
    """Return (k low bits set in each of m 32-bit lanes, n's reject offset).

    Adding 2**31 - n to a lane holding v < 2**31 sets its top bit exactly
    when v >= n, without carrying into the next lane.
    """
    lanes = int.from_bytes(b"\1\0\0\0" * m, "little")
    return lanes * ((1 << k) - 1), lanes * ((1 << 31) - n)


def _plain_pick_sums(rng, n, count, columns):       # pragma: no cover
    """Return each column's resample sums index by index: the oracle of
    _pick_sums."""
    out = [[] for _ in columns]
    for picks in _index_lists(rng, n, count):
        for sums, column in zip(out, columns):
            sums.append(sum(map(column.__getitem__, picks)))
    return out


def _one(i):
    """Return a function picking position *i* of a sequence, as a 1-tuple (as
    itemgetter of several gives tuples)."""
    def pick(values):
        return (values[i],)
    return pick


def _index_lists(rng, n, count, batch_indices=1 << 20):
    """Yield count lists of n rng.randrange(n) indices, in draw order.

    Indices are drawn for many lists at a time; since the draws are one
    sequence, that changes nothing but the speed.
    """
    per_batch = max(1, batch_indices // n)
    for start in range(0, count, per_batch):
        batch = min(per_batch, count - start)
        drawn = _draw_indices(rng, n, batch * n)
        for i in range(0, batch * n, n):
            yield drawn[i:i + n]


def _replays(rng, replays, n, resamples, design, jobs, judge):
    """Yield judge(latent, draws) for each replay, in order.

    With jobs > 1 (and fork) a helper process judges while this one
    draws the next replay; the results are the same either way.
    """
    if jobs > 1 and _can_fork():
        return _pipelined(rng, replays, n, resamples, design, judge)
    return (judge(*_replay_draws(rng, n, resamples, design))
            for _ in range(replays))


def _replay_bounds(latent, drawn, *, positions, design):
    """Return one replay's paired deltas at the two percentile positions."""
    _, deltas = _replay_deltas(latent, drawn, design)
    return deltas[positions[0]], deltas[positions[1]]


if __name__ == "__main__":
    sys.exit(main())
