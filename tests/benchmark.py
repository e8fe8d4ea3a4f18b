#!/usr/bin/env python3
"""Time the fast paths against the straightforward ones and scipy.

    python3 tests/benchmark.py                 # everything, ~15 minutes
    python3 tests/benchmark.py --part article --replays 100   # quicker
    python3 tests/benchmark.py --part scale --largest 100000
    python3 tests/benchmark.py --part plan     # ~10 seconds
    python3 tests/benchmark.py --part rank     # 10 systems, ~2 minutes
    python3 tests/benchmark.py --part saddle   # saddlepoint, ~6 minutes
    python3 tests/benchmark.py --part corpus   # binary F1, ~2 minutes
    python3 tests/benchmark.py --part preferences --battles 200000
    python3 tests/benchmark.py --part preferences --peer-python venv/bin/python
    python3 tests/benchmark.py --part sequential   # stopping, 10^6 items, ~5 min
    python3 tests/benchmark.py --part calibration  # coverage and power
    python3 tests/benchmark.py --part judged       # PPI++ coverage, ~4 min
    python3 tests/benchmark.py --part small        # 10-200 items, ~6 min
    python3 tests/benchmark.py --part winners      # best of K, ~5 min
    python3 tests/benchmark.py --part runs         # run-to-run noise, ~1 min
    python3 tests/benchmark.py --part bycounts     # simulate --by-counts
    python3 tests/benchmark.py --part battles      # rank on battles vs numpy
    python3 tests/benchmark.py --part grouped      # --by and --macro
    python3 tests/benchmark.py --part sizes        # the loop at other N
    python3 tests/benchmark.py --part join --join-rows 10000000   # memory
    python3 tests/benchmark.py --part parquet      # lighteval details, pyarrow
    python3 tests/benchmark.py --part hostile      # issue 62's budgets, ~3 min
    python3 tests/benchmark.py --part peers        # beside numpy, ~3 min
    python3 tests/benchmark.py --part issue49      # issue 49's rows, ~4 min
    python3 tests/benchmark.py --part store        # a 10^6-item run saved

The article part times the default run and the paired bootstrap against
the straightforward implementation on the same work (tests/oracle.py, one
randrange per index) and fails loudly if any number differs.  The scale
part writes its own files (binary, continuous and clustered scores, up to
10^6 items) and times whole `compare` processes against the first loop
one would write and, when scipy is importable (it is no dependency),
scipy.stats.bootstrap on the same files and resamples, reading and
joining included; then the peak memory of a 10^7-row wide CSV.  Not part
of the test suite: timings on a shared machine are noisy, so they belong
here, not in assertions.

What these parts measured when they were last run (moved here from the
README, which keeps only what helps a user choose; a 2-core shared
machine, so read the ratios, not the absolute times):

## Speed, and why the numbers are still exact

Drawn one index at a time, the coverage loop makes 10^9 calls of
`randrange(500)`. CPython's `randrange(n)` takes one 32-bit Mersenne Twister
word per attempt, keeps its top `k = n.bit_length()` bits, and tries again if
they are `>= n`; and `getrandbits(32*m)` hands out the next `m` words at once.
So the tool draws the words in blocks of 16,384, reads their top bytes with
byte-string slicing, maps them to per-item codes with `bytes.translate`
(dropping rejected words), and counts codes per resample with `bytes.count`.
It consumes the generator exactly as the one-at-a-time loop does, so every
number, and the generator's state afterwards, is identical; the tests check
that against the slow loop (`tests/oracle.py`) for many sizes and seeds. For
sizes of 257 to 16,383 items, whose indices take 9 to 14 bits, the bits
below the top byte pick among "planes": tables of the top byte holding
four 2-bit codes a byte where the codes are below 3 (a paired bootstrap's
three, a 0/1 metric's two), else two 4-bit codes (up to 4,095 items),
chosen bit by bit with masks over whole blocks as big integers; past them
the top 16 bits of each word go through a lookup table instead, one
C-level `itemgetter` call per block. On two cores the
coverage loop splits in two: the main process, which owns the generator,
draws the Gaussian values and the words and notes where draws were rejected,
and a forked helper process maps the words to codes and counts them. The
words' top two bytes (one below 257 items) pass through an anonymous
shared memory mapping with room for three replays, only their offsets
through the pipe. When the mapping is full (the helper is behind, as it
is past 4,096 items), the main process maps the words itself and sends
their codes, so both cores share the mapping. A block's paired delta is
counted from its codes read as one integer (B's wins in one bit, A's in
the other; `int.bit_count` does not branch on every byte as
`bytes.count` of a common byte does).

```sh
python3 tests/benchmark.py --part article                 # ~5 minutes
python3 tests/benchmark.py --part article --replays 100   # a tenth of the loop
```

prints each case's time beside the straightforward implementation's, and
stops with an error if any number differs. On the 2-core machine this was
written on (Python 3.11):

```
case                                          ours straightforward     ratio
paired bootstrap, n=100, B=2000            0.006 s      0.048 s      8.6x
paired bootstrap, n=500, B=2000            0.021 s      0.251 s     11.9x
paired bootstrap, n=2000, B=2000           0.193 s      0.992 s      5.1x
default run, jobs=1                       21.426 s    250.702 s     11.7x
default run, jobs=2                       11.733 s    250.702 s     21.4x
all numbers identical to the straightforward implementation
```

Most of what is left is the generator itself: `getrandbits` plus
`int.to_bytes` cost about 9 ms of the 12 ms per replay, and only the process
that owns the generator can do them.

At other sizes (`python3 tests/benchmark.py --part sizes`, ~3 minutes):
the whole coverage loop, two processes, wall time per draw, the faster
of two runs, beside the straightforward loop (one `randrange` per index,
one replay of 2x10^6 draws) and the floor, the standard library's
`getrandbits` alone producing the same number of words:

```
     n replays     ours straightf.  ratio   floor ours/floor
   100    1600   14.8ns    282.1ns  19.0x   6.5ns      2.27x
   256     625   23.3ns    294.8ns  12.6x  10.2ns      2.30x
   500     320   10.7ns    252.1ns  23.6x   5.2ns      2.04x
  1000     160   10.7ns    242.0ns  22.5x   5.2ns      2.06x
  2000      80   11.0ns    251.8ns  22.8x   5.2ns      2.14x
  4000      40   13.0ns    248.6ns  19.1x   5.3ns      2.47x
  4097      39   39.7ns    330.5ns   8.3x  10.2ns      3.89x
  8000      20   19.3ns    256.3ns  13.3x   5.2ns      3.69x
 10000      16   41.8ns    294.0ns   7.0x   8.3ns      5.01x
```

So 18x holds from 100 to 4,096 items except just past a power of two
(256 to about 400 items), and not past 4,096. Two things cost there.
Just past a power of two up to half the words are rejected (256 items
take 9 bits, 4,097 take 13): twice the words to draw, as the floor
column shows, and to map. And past 4,096 items an index has 13 or 14
bits, so the planes double with each bit: 8 planes of crumbs at 13 bits,
16 at 14, each a translate and a conversion to an integer per word,
where 11 bits need 2. Where mapping costs more than drawing, the drawing
process maps the words that find the ring full itself instead of
waiting, so both cores map (10,000 items: 41.6 ns a draw against 83.2
before, 8,000 items 19.3 against 24.0, 30 replays). Past the planes
(16,384 items and up) the 16-bit table takes over. From 100 to 4,000
items about half of our time is the generator's: `getrandbits` plus
`int.to_bytes`, 7.8 ns a word, in the process that owns it. Whole default
runs, medians of paired runs: 1,000 items 28.1 s against 103.0 s before
the helper mapped past 512 items; 2,000 items (`--n-items 2000 --no-csv`)
48.1 s (46.9 and 49.3) against 59.0 s before the changes above (one
paired run) and 67.5 s before the 2-bit planes; the straightforward loop
would take about 1,000 s (4x10^9 draws at 250 ns). `--by-counts` (see *Change the
setting*) takes 0.10 s of CPU for 1,000 replays at any N from 100 to
10^6 (`python3 tests/benchmark.py --part bycounts`), against 0.24-0.72 s
for numpy's multinomial recipe with 2,000 resamples and 21 s for the
item-by-item loop at 500 items in one process.

### Subsets

`python3 tests/benchmark.py --part grouped` times `compare --by` and
`--by --macro` on 57 subsets of 250 0/1 items (2,000 resamples, whole
processes, medians of 3) beside numpy and scipy counting each subset's
cells the same way (multinomial resamples, a binomial test). Paired
runs, medians of 5 on this 2-core machine: 1.25 s against 1.31 s for
`--by`, 1.72 s against 1.08 s with `--macro` (`--by` took 1.56 s with
the sizing by bisection and a Fraction made for each replicate, 1.96 s
before the batched multinomial draws). The
resamples' multinomial counts are one binomial draw per cell
in Python, in the article's random stream (keeping each cell's binomial
constants from one resample to the next gained 1.1-1.4x and was removed
as short of the 1.5x a fast path must earn, so these figures are a little
better than today's); `--macro` draws every subset a second time
for the stratified interval, which is why it stays behind numpy. What
the numpy script does not do is each subset's exact McNemar power sizing
(the difference it detects, the items a gap would take): the items
needed are found by false position in n (4.6 power evaluations on
average, where bisection took 9), about 6 ms a subset; with two jobs a
helper process sizes half the subsets.

### compare at scale

`compare` does not follow the article's random stream (see *How compare
resamples*), which is what lets it resample from counts.

```sh
python3 tests/benchmark.py --part scale                   # ~15 minutes
python3 tests/benchmark.py --part scale --largest 10000   # the small cases
```

writes its own files and times whole processes: `compare` with 10,000
resamples; the first loop one would write (parse, join, one `randrange`
per pick, float sums; timed on fewer resamples and scaled, marked `*`); and,
when scipy is importable (it is no dependency of this tool),
`scipy.stats.bootstrap(paired=True, vectorized=True, method="percentile")`
on the same files and resamples, its script reading and joining them too.
Then the peak memory of a 10^7-row wide CSV. On the same machine:

```
binary, 10000 resamples from the four cell counts: resampling alone, and all of _compare_tally (McNemar in integers up to 10^5 discordant items)
  n=500           0.030 s    0.042 s
  n=100000        0.027 s    0.086 s
  n=1e+06         0.027 s    0.040 s
  n=1e+07         0.027 s    0.040 s

compare, whole process, 10000 resamples (straightforward: * = timed on fewer resamples, scaled)
case                                    ours  straightf.   ratio     scipy   ratio
binary n=500                           0.20s       0.9s*      5x     1.03s    5.2x
binary n=100000                        0.49s     216.0s*    440x    14.95s   30.4x
continuous n=500                       0.14s       1.0s*      7x     0.78s    5.7x
continuous n=10000                     0.22s      22.9s*    102x     2.73s   12.2x
continuous n=100000                    0.74s     309.8s*    419x    14.72s   19.9x
binary n=100000 in 10000 clusters      1.57s     216.3s*    137x     3.65s    2.3x

wide CSV of 1e+07 rows of 0/1 scores: compare took 5.6 s, peak resident memory 41 MB
```

(Since a wide file's ids are checked for repeats, the same 10^7-row file
takes 1.19 times as long, median of five paired whole-process runs on a
loaded 2-core machine, and 41.6 MiB at its peak against 40.0 before; the
benchmark printed 8.3 s and 42 MB there, against 8.3 s and 40 MB for the
code before the check on the same machine.)

(`--largest 100000`, rerun after the _Columns reader. The 10^6-item binary
case, from an
earlier run: ours 4.31 s, scipy 357 s, the JSON parse alone 4.09 s; after
the chunked JSONL parse and helper-parsed candidate, 2.57 s, against
3.45 s before them, medians of five paired whole-process runs; later, with
the candidate's ids compared in place and its values kept beside the
baseline's, 1.95 s against 2.22 s the same day.) The
continuous rows are now the saddlepoint's (the default `--method auto` for
continuous metrics of 100 items or more; at 500 items and more it has no
resamples to draw); before it, resampling took 7.6 s at 10^4 and 64.9 s at
10^5 items, 0.6 and 0.4 times scipy's speed.

A 0/1 metric costs the same at any n once read, so the run is mostly
parsing (the JSON parse of the 10^6-item files varied between 2.7 and 4.1 s
from run to run here; `compare` took 1.05 to 1.8 times as long).
Continuous scores with 10^5 distinct values cannot be grouped: every
resample picks 10^5 values, and Python does per pick what numpy does per
batch. The saddlepoint draws no resamples (`python3 tests/benchmark.py
--part saddle`, same files, one run each; `--method resample` for the
resampled line):

```
continuous compare, whole process: the saddlepoint (auto) against 10000 resamples (ours and scipy's)
n=100000: saddlepoint    0.54s   paired CI [0.039256, 0.041009]
        resampled     49.74s   paired CI [0.039261, 0.041011]   saddlepoint 91.6x faster
        scipy         14.09s   paired CI [0.039263, 0.041000]   saddlepoint 26.0x faster
n=1e+06: saddlepoint    3.47s   paired CI [0.039712, 0.040266]
        just parsing the two files 2.40s (compare takes 1.45x that)
```

The part now also starts at 10^4 items and adds a line for scipy doing
all the work `compare --method resample` does (`SCIPY_SAME_WORK`: one
paired bootstrap giving both systems' intervals and the paired one, an
unpaired bootstrap, a sign-flip `permutation_test`; the `scipy` line
above is the paired interval alone). At 10^4 items and 10^4 resamples,
medians of three whole-process runs: ours 6.9 s wall (13.1 s of CPU in
two processes, 54 MB peak), scipy 13.5 s (13.7 s of CPU, 719 MB), so
resampling takes about half scipy's time for the same output, and the
same CPU.

At 10^6 items (about 460,000 distinct values a column) the time is
reading and joining (about 1.4 s: JSONL parsed a chunk of lines per call,
the candidate's file by a helper process while the baseline's is read,
the candidate's values put in an array beside the baseline's), the exact
integers (0.3 s) and the laws themselves (about 1.6 s in each of two
processes: the two systems' laws in one, the difference's and the
sign-flip test's in the other; counting a column's distinct values, in
sorted order, is a third of it), each pass over the distinct values
costing what a loop of C-level `map` calls costs in Python. Timed as
whole processes against the bare parse, pair by pair over five runs, the
ratio's median was 1.52 (3.61 s against 2.38 s; peak memory 219 MiB).
It was 2.00 to 2.13 while the reader counted the (baseline, candidate)
pairs of a continuous metric as it does a 0/1 metric's: a Counter of a
million distinct pairs, flattened again for the exact integers, then
counted once more per column.

## How it is fast

Files are read a batch of lines at a time. A wide file's values go into a
count of (baseline, candidate) pairs while the pairs repeat, so a wide
file of 0/1 scores takes the same memory at any length (41.6 MiB peak for
10^7 rows); once most pairs are distinct (a continuous score) they are
kept item by item instead, two arrays of floats, which is what the
saddlepoint reads (as two arrays of 8-byte integers, each value as
written over the least common denominator, and the differences in a
third:
two JSONL runs of 10^7 continuous scores of 4 decimals peak at 462 MiB
and take 27.7 s, against 1,498 MiB and 37.0 s with lists of Python
integers). Its ids are checked for repeats with no memory while
they rise (0, 1, 2, ... as most tools number rows: checked as text at C
speed), else over the first 2^20 rows, read again to name the repeat's
two lines. Of two joined runs, the baseline's ids and values are kept (its
ids a batch at a time as one newline-joined string, about 9 bytes an id
of 8 characters where a list of strings takes 65, and its values as
arrays of floats; its ids are checked for repeats with no
memory while they rise as whole numbers or by length and text, as 0, 1,
..., 10 or q1, ..., q10 do, else in a table of their positions, below:
two JSONL runs of 10^7 0/1 items peak at about 340 MiB, where a plain
parse-and-join script, one dict of the baseline, takes 861 MiB, and
this tool took 967 MiB while it kept a list of the ids, 1,616 MiB while
it kept a dict of positions) and the candidate's values are placed
beside them as it streams past (a batch in the baseline's order is matched
by comparing its ids with the baseline's at the place the last batch
ended, before any is looked up); with `--jobs 2` (the default where `fork`
exists) a candidate file of 8 MB or more is parsed by a helper process
meanwhile, which spools its batches to an unnamed temporary file for this
one to read back in order (the same counts, the same errors in the same
order). Where the candidate's order differs, the baseline's positions
come from a table of 4-byte slots keyed by the ids' hashes, each hit
checked against the id's own text, not from a dict of every id (a dict
of 10^7 ids takes a gigabyte); the same table checks a baseline's ids
for repeats once they stop rising. `rank` holds every run the same way
and, where the runs list the same ids in the same order (one tool's runs
of one eval, as a rule), pairs them by position; runs with the same ids
in other orders are placed in the first run's order through its table,
and only runs whose ids differ take a dict and a set each.
`python3 tests/benchmark.py --part join --join-rows 10000000` measures
the join beside the plain script; on this machine, two runs of 10^7 0/1
items in the same order: `compare` 328 MiB and 23.2 s, `rank` 392 MiB
and 32.7 s, the plain script 861 MiB and 63.9 s; the candidate shuffled
in blocks of 10^5 lines: `compare` 494 MiB and 69.1 s (1,508 MiB with a
dict of positions), `rank` 796 MiB and 94.6 s (4,621 MiB and 110 s with
a dict and set of each run's ids); continuous scores in the same order:
`compare` 481 MiB and 37.3 s. The table is Python, not C: a baseline
whose ids do not rise costs more time than a dict did (10^7 ids
shuffled in blocks: 55 s against 45 s) for a third of the memory (635
MiB against 1,567).

Judge-corrected comparison (issue 33; `--part judged`, ~4 minutes): 4,000
items, 200 replays, truth A 0.70, B 0.74; coverage of the PPI++ intervals
of A / B / the gap, and of the judge's own paired interval of the gap:

    judge       labels  corrected A / B / gap   gap CI width  judge alone
    unbiased        50    92.5 / 92.0 / 92.5       0.2718         95.5%
    unbiased       200    94.5 / 94.5 / 94.0       0.1366         94.5%
    unbiased      1000    95.0 / 93.0 / 96.0       0.0654         97.5%
    biased          50    94.0 / 96.0 / 93.0       0.2890         68.0%
    biased         200    95.0 / 94.0 / 95.0       0.1408         68.5%
    biased        1000    93.0 / 94.0 / 94.5       0.0667         68.5%
    favours B       50    95.5 / 95.0 / 93.5       0.2738          0.0%
    favours B      200    95.0 / 93.5 / 95.0       0.1350          0.0%
    favours B     1000    97.5 / 94.0 / 96.0       0.0650          0.0%

(Monte Carlo s.e. 1.5 points.)

lighteval details from Parquet (issue 48; `--part parquet`, ~1 minute): a
100,000-row details file in the older layout, SNAPPY, dictionary pages
(25.0 MB, most of it the predictions column), CPU seconds, best of three,
the standard-library reader against pyarrow 26 reading the same columns to
Python lists (same values):

    columns                        ours    pyarrow   ours / pyarrow
    metrics (a group of 3)        0.117      0.026             4.5
    metrics, example and gold     0.466      0.095             4.9

and the lighteval reader's records (the same columns, items hashed, rows
merged) 0.97 s in all, under the 2 s goal; the predictions' 22 MB are
never read, so they cost nothing (the same figures with 2.3 MB of them).

Beside numpy written for the same work (issue 49; `--part peers`, ~3
minutes): whole processes, three paired runs, medians, CPU = user + sys
of the process and its helpers, on a 2-core machine at load 0.7-0.9
("before": the first measurement, at load 1.4-1.8):

    case                                ours   peer   CPU ratio   wall ratio
    (CPU seconds)                                     now before  now before
    compare --sequential, 10^6 17-digit 14.97  4.65  3.25  3.79  2.37  2.75
      scores / numpy betting sequence
    compare --human, 10^6 items, 10^5    4.39  4.55  0.96  1.51  0.82  1.30
      0/1 labels / numpy PPI++
    compare, 10^6 6-decimal scores /     5.60  2.08  2.69  3.28  1.68  2.57
      parsing the two files with json

The peers give the same numbers (the sequence's stopping item and ends,
the three corrected intervals).  What moved them this time: a JSONL
chunk's one-object-a-line check skips the per-line bracket counts where
the chunk holds no bracket (0.25 s per 10^6 lines), a constant column is
found by counting, not by a set of 2 x 10^6 floats (0.48 s of the
continuous compare), and at --human the scales' check by min and max
(0.14 s), the audit's rows in one pass (0.12 s) and the melded
interval's root searched from a bracket about the normal limit (0.05 s).
What is left: with --sequential, reading and the plain compare's
saddlepoint take most of it (17-digit scores become integers over 10^22,
so the exact integers, their counting and the laws work on big
integers); the sequence itself is 1.6 s of 14.9 in one process.  The
continuous compare reads each 10^6-line file in about 1.0 s (the joined
decode 0.4, ids and numbers 0.4, lines 0.1), at json's own per-line
parse, before 3 s of saddlepoint laws, sign-flip p and exact integers.
Measured and left out for buying under 1.5x on their own paths: the
decimals of 17-digit floats read in bulk from one repr of the list
(1.23x on the exact integers), a variance taken from the counts of few
distinct values (1.36x on 0/1 floats; set and count forms no faster).

Issue 49 (`--part battles`, `--part bycounts`, or all its rows with
`--part issue49`; whole processes, medians of 3 runs paired with the
peer's, a 2-core machine at load 0.7-0.9, CPU seconds being user + sys):

    rank, 50 systems, 1,000 rounds   ours     numpy   ratio   peak MiB
    10^5 battles, --jobs 1           2.77     1.72    1.64x   85 vs 178
    10^6 battles, --jobs 1           4.39     3.39    1.34x  124 vs 179
    simulate --by-counts, 10^4       0.38     1.07    0.36x   76 vs 103

(the battles part's own single runs: 1.60x and 1.33x CPU; with --jobs 2
the wall 1.08x and 0.98x).  The peer parses the battles with json, draws
multinomial counts of the (pair, verdict) cells with numpy and fits every
round at once by Newton's method.  Each round here draws every cell
Poisson(its count) times from a tabled distribution function (0.5 ms a
round at 10^5 battles, where the multinomial's chain of pure-Python
binomials took 6.3 ms), sums the pairs by running sums (0.27 ms) and fits
by Newman's iteration to 1e-4 in log-strength (0.75-0.95 ms, about four
passes over the 1,225 pairs); a battle of the three fields alone skips
the question and label look-ups (reading 10^6: 0.4 s less).  Against the
code before: 0.41x the CPU at 10^5 battles (2.64 s against 6.50) and
0.59x at 10^6 (4.27 against 7.53).  What is left is the fit and the
draw, each a pure-Python pass over the pairs or cells per round, and at
10^6 the reading (about 1.4 s: the json decode 0.6, the rest the
battles' columns).  Measured and left out for buying under 1.5x on
rank's run: the cells drawn in order of their tables (0.85 s against
1.06 of draws at 10^6, 1.06x in all), SQUAREM's extrapolation of
Newman's passes (no fewer passes to 1e-4), a one-step Newton start from
the full data's Hessian (0.3 ms to save 1.2 passes).  --by-counts at
10^4 items costs what it costs at 500 (0.38 s); at 10^6 items, 1.9 s
against numpy's 1.2 s, the article's copula drawing the single run's
items one by one.
"""
import argparse
import bisect
import collections
import importlib.util
import json
import math
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), os.pardir))
sys.path.insert(0, os.path.dirname(__file__))

import bootstrap_eval_deltas as bed  # noqa: E402
import designs  # noqa: E402
import oracle  # noqa: E402


def timed(fn, *args, **kwargs):
    start = time.perf_counter()
    result = fn(*args, **kwargs)
    return result, time.perf_counter() - start


def fast_default_run(replays, jobs):
    rng = random.Random(bed.SEED)
    pairs = bed.simulate(rng)
    result = bed._compare_binary(pairs, rng)
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


# Scale: compare on generated files ######################################

SCIPY_SCRIPT = r"""
import json, sys, numpy as np
from scipy import stats
def load(path, cluster):
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            out[r["id"]] = (r["score"], r.get("cluster"))
    return out
a_path, b_path, resamples, clustered = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"
A, B = load(a_path, clustered), load(b_path, clustered)
ids = [i for i in A if i in B]
a = np.array([A[i][0] for i in ids], float)
b = np.array([B[i][0] for i in ids], float)
if clustered:                       # resample clusters: sums and sizes
    labels = np.unique([A[i][1] for i in ids], return_inverse=True)[1]
    g = labels.max() + 1
    data = (np.bincount(labels, a, g), np.bincount(labels, b, g),
            np.bincount(labels, minlength=g).astype(float))
    def gap(sa, sb, k, axis=-1):
        return (sb.sum(axis=axis) - sa.sum(axis=axis)) / k.sum(axis=axis)
else:
    data = (a, b)
    def gap(x, y, axis=-1):
        return y.mean(axis=axis) - x.mean(axis=axis)
batch = max(1, 10 ** 7 // len(data[0]))
ci = stats.bootstrap(data, gap, paired=True, vectorized=True, batch=batch,
                     n_resamples=resamples, method="percentile",
                     random_state=1).confidence_interval
print(ci.low, ci.high)
"""

SCIPY_SAME_WORK = r"""
import json, sys, numpy as np
from scipy import stats
def load(path):
    with open(path) as f:
        return {r["id"]: r["score"] for r in map(json.loads, f)}
a_path, b_path, resamples = sys.argv[1], sys.argv[2], int(sys.argv[3])
A, B = load(a_path), load(b_path)
ids = [i for i in A if i in B]
a = np.array([A[i] for i in ids], float)
b = np.array([B[i] for i in ids], float)
batch = max(1, 10 ** 7 // len(a))
def joint(x, y, axis=-1):            # each system's mean and the gap
    mx, my = x.mean(axis=axis), y.mean(axis=axis)
    return np.stack([mx, my, my - mx])
def gap(x, y, axis=-1):
    return y.mean(axis=axis) - x.mean(axis=axis)
kw = dict(vectorized=True, batch=batch, n_resamples=resamples,
          method="percentile", random_state=1)
paired = stats.bootstrap((a, b), joint, paired=True, **kw)
unpaired = stats.bootstrap((a, b), gap, paired=False, **kw)
flip = stats.permutation_test((b - a,), lambda d, axis=-1: d.mean(axis=axis),
                              permutation_type="samples", vectorized=True,
                              n_resamples=resamples, batch=batch,
                              random_state=1)
ci = paired.confidence_interval
print(ci.low[2], ci.high[2], flip.pvalue)
"""

READ_SCRIPT = r"""
import json, sys
for path in sys.argv[1:]:
    with open(path) as f:
        for line in f:
            json.loads(line)
"""


def write_runs(folder, kind, n, clusters=None):
    """Write base.jsonl and cand.jsonl: n items, scores of *kind*."""
    rng = random.Random(n)
    paths = [os.path.join(folder, f"{kind}-{n}-{name}.jsonl")
             for name in ("base", "cand")]
    rows = ([], [])
    for i in range(n):
        shared = rng.gauss(0, 1) + (rng.gauss(0, 1) if clusters else 0)
        if clusters:                      # one cluster effect per cluster
            shared = random.Random(i // (n // clusters)).gauss(0, 1)
        noise_a, noise_b = rng.gauss(0, 1), rng.gauss(0, 1)
        if kind == "continuous":
            a = round(0.72 + 0.1 * shared + 0.1 * noise_a, 6)
            b = round(0.76 + 0.1 * shared + 0.1 * noise_b, 6)
        else:
            a = int(0.6 * shared + 0.8 * noise_a < 0.58)
            b = int(0.6 * shared + 0.8 * noise_b < 0.71)
        for out, score in zip(rows, (a, b)):
            row = {"id": f"q{i}", "score": score}
            if clusters:
                row["cluster"] = f"c{i // (n // clusters)}"
            out.append(json.dumps(row) + "\n")
    for path, lines in zip(paths, rows):
        with open(path, "w") as f:
            f.writelines(lines)
    return paths


PEAK_SCRIPT = r"""
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def run_process(argv):
    """Run argv; return (wall seconds, stdout)."""
    start = time.perf_counter()
    child = subprocess.run(argv, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if child.returncode:
        raise SystemExit(f"{argv[:3]} failed: {child.stderr.strip()}")
    return elapsed, child.stdout


def peak_megabytes(argv):
    """Return the peak resident memory of argv run alone, in MB (Linux)."""
    _, out = run_process([sys.executable, "-c", PEAK_SCRIPT, *argv])
    return int(out) / 1024


def straightforward_time(paths, resamples, budget=2_000_000):
    """Time the first loop one would write (parse, join, one randrange per
    pick, float sums), on enough resamples for ~2e6 picks; scale it up."""
    start = time.perf_counter()
    runs = []
    for path in paths:
        with open(path) as f:
            runs.append({r["id"]: r["score"] for r in map(json.loads, f)})
    a, b = runs
    ids = [i for i in a if i in b]
    xs, ys = [a[i] for i in ids], [b[i] for i in ids]
    n = len(ids)
    setup = time.perf_counter() - start
    rng = random.Random(1)
    sample = max(1, min(resamples, budget // n))
    start = time.perf_counter()
    for _ in range(sample):
        picks = [rng.randrange(n) for _ in range(n)]
        sum(ys[i] for i in picks) - sum(xs[i] for i in picks)
    per = (time.perf_counter() - start) / sample
    return setup + per * resamples, sample < resamples


def resampling_only(resamples):
    """Time _compare_tally alone on 0/1 tallies: the cost should not grow
    with n, since each resample is one multinomial draw of four cells."""
    print(f"\nbinary, {resamples} resamples from the four cell counts: "
          f"resampling alone, and all of compare_tally (McNemar in integers "
          f"up to 10^5 discordant items)")
    for n in (500, 10 ** 5, 10 ** 6, 10 ** 7):
        cells = [59 * n // 100, 13 * n // 100, 17 * n // 100]
        cells.append(n - sum(cells))
        keys = [(1, 1), (1, 0), (0, 1), (0, 0)]
        _, alone = timed(bed._resample_sums, random.Random(1),
                         [a for a, _ in keys], [b for _, b in keys], None,
                         cells, resamples)
        _, whole = timed(bed._compare_tally,
                         bed.collections.Counter(dict(zip(keys, cells))),
                         random.Random(1), resamples=resamples)
        print(f"  n={n:<10g} {alone:8.3f} s {whole:8.3f} s", flush=True)


def scale_cases(folder, resamples, largest):
    have_scipy = importlib.util.find_spec("scipy") is not None
    here = os.path.join(os.path.dirname(__file__), os.pardir,
                        "bootstrap_eval_deltas.py")
    cases = [("binary", 500, None), ("binary", 10 ** 5, None),
             ("binary", 10 ** 6, None), ("continuous", 500, None),
             ("continuous", 10 ** 4, None), ("continuous", 10 ** 5, None),
             ("binary", 10 ** 5, 10 ** 4)]
    print(f"\ncompare, whole process, {resamples} resamples "
          f"(straightforward: * = timed on fewer resamples, scaled)")
    print(f"{'case':<34} {'ours':>9} {'straightf.':>11} {'ratio':>7} "
          f"{'scipy':>9} {'ratio':>7}")
    for kind, n, clusters in cases:
        if n > largest:
            continue
        paths = write_runs(folder, kind, n, clusters)
        extra = ["--cluster", "cluster"] if clusters else []
        ours, _ = run_process([sys.executable, here, "compare", *paths,
                                  "--resamples", str(resamples), *extra])
        slow, scaled = straightforward_time(paths, resamples)
        line = (f"{kind} n={n:g}" + (f" in {clusters:g} clusters"
                                     if clusters else ""))
        text = (f"{line:<34} {ours:8.2f}s {slow:9.1f}s{'*' if scaled else ' '}"
                f" {slow / ours:6.0f}x")
        if have_scipy:
            theirs, _ = run_process([sys.executable, "-c", SCIPY_SCRIPT,
                                        *paths, str(resamples),
                                        "1" if clusters else "0"])
            text += f" {theirs:8.2f}s {theirs / ours:6.1f}x"
        print(text, flush=True)
        if kind == "binary" and n == 10 ** 6 and not clusters:
            read, _ = run_process([sys.executable, "-c", READ_SCRIPT,
                                      *paths])
            print(f"{'  just parsing the two files':<34} {read:8.2f}s "
                  f"(compare takes {ours / read:.2f}x that)", flush=True)
        for path in paths:
            os.remove(path)
    if not have_scipy:
        print("scipy is not importable: its column is left out")


NUMPY_GROUPED = r"""
import csv, sys
import numpy as np
from scipy.stats import binomtest
path, resamples, macro = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
cells = {}
with open(path) as f:
    for row in csv.DictReader(f):
        key = (int(row["system_a_correct"]), int(row["system_b_correct"]))
        counts = cells.setdefault(row["subset"], {})
        counts[key] = counts.get(key, 0) + 1
rng = np.random.default_rng(1)
order = [(0, 0), (0, 1), (1, 0), (1, 1)]
gain = np.array([0, 1, -1, 0])
means = []
for subset, counts in cells.items():       # each subset: count resamples
    c = np.array([counts.get(k, 0) for k in order])
    n = c.sum()
    draws = rng.multinomial(n, c / n, size=resamples)
    diff = draws @ gain / n
    lo, hi = np.percentile(diff, [2.5, 97.5])
    b, a = c[1], c[2]
    p = binomtest(int(b), int(a + b)).pvalue if a + b else 1.0
    means.append(diff)
if macro:                                  # the subsets' mean, stratified
    lo, hi = np.percentile(np.mean(means, axis=0), [2.5, 97.5])
print(len(cells), lo, hi)
"""


def grouped_cases(folder, subsets=57, items=250, resamples=2000):
    """compare --by and --macro of 0/1 scores in *subsets* subsets, whole
    processes (median of 3), against numpy and scipy counting each
    subset's cells (multinomial resamples, a binomial test), where they
    are importable."""
    rng = random.Random(4)
    path = os.path.join(folder, "subsets.csv")
    with open(path, "w") as f:
        f.write("id,subset,system_a_correct,system_b_correct\n")
        for s in range(subsets):
            p = rng.uniform(0.4, 0.9)
            for i in range(items):
                a = int(rng.random() < p)
                b = a if rng.random() < 0.7 else int(rng.random() < p + 0.02)
                f.write(f"{s * items + i},task{s:02d},{a},{b}\n")
    have = all(importlib.util.find_spec(m) for m in ("numpy", "scipy"))
    script = os.path.join(folder, "numpy_grouped.py")
    with open(script, "w") as f:
        f.write(NUMPY_GROUPED)
    print(f"\ngrouped 0/1 scores, {subsets} subsets of {items} items, "
          f"{resamples} resamples, whole processes (median of 3)")
    for flag, macro in (("--by subset", "0"), ("--by subset --macro", "1")):
        argv = [sys.executable, bed.__file__, "compare", path,
                "--resamples", str(resamples), *flag.split()]
        ours = sorted(run_process(argv)[0] for _ in range(3))[1]
        if have:
            theirs = sorted(run_process([sys.executable, script, path,
                                         str(resamples), macro])[0]
                            for _ in range(3))[1]
            row(f"  compare {flag}", ours, theirs)
        else:
            print(f"  compare {flag}: {ours:.2f} s (numpy or scipy not "
                  f"importable)")
    os.remove(path)


PLAIN_JOIN = r"""
import collections, json, sys
held = {}
with open(sys.argv[1]) as f:                 # the baseline, held by id
    for line in f:
        record = json.loads(line)
        held[record["id"]] = record["score"]
cells = collections.Counter()
with open(sys.argv[2]) as f:                 # the candidate, streamed
    for line in f:
        record = json.loads(line)
        cells[held[record["id"]], record["score"]] += 1
print(len(cells))
"""


def write_joined(folder, kind, rows, order="same"):
    """Write two JSONL runs of *rows* items (ids q0, q1, ...; 0/1 scores,
    or continuous ones of 4 decimals), a batch of lines at a time; the
    candidate's lines in the baseline's order or shuffled."""
    rng = random.Random(rows)
    paths = [os.path.join(folder, f"join-{kind}-{side}.jsonl")
             for side in ("base", "cand")]
    with open(paths[0], "w") as base, open(paths[1], "w") as cand:
        for start in range(0, rows, 10 ** 5):
            lines = ([], [])
            for i in range(start, min(rows, start + 10 ** 5)):
                for out, p in zip(lines, (0.72, 0.76)):
                    score = (int(rng.random() < p) if kind == "binary"
                             else round(rng.random(), 4))
                    out.append(f'{{"id": "q{i}", "score": {score}}}\n')
            base.writelines(lines[0])
            if order == "shuffled":
                rng.shuffle(lines[1])     # within each block of 10^5
            cand.writelines(lines[1])
    return paths


def join_cases(folder, rows):
    """Peak memory and wall time of whole processes joining two runs:
    compare and rank, beside a plain parse-and-join script (one dict of
    the baseline's scores by id, the candidate streamed past it)."""
    print(f"\ntwo JSONL runs of {rows:g} items joined on their ids, whole "
          f"processes (compare and rank at 200 resamples)")
    here = bed.__file__
    for kind, order in (("binary", "same"), ("binary", "shuffled"),
                        ("continuous", "same")):
        paths = write_joined(folder, kind, rows, order)
        cases = [("compare", [sys.executable, here, "compare", *paths,
                              "--resamples", "200"])]
        if kind == "binary":
            cases.append(("rank", [sys.executable, here, "rank", *paths,
                                   "--resamples", "200"]))
            if order == "same":
                cases.append(("plain parse-and-join",
                              [sys.executable, "-c", PLAIN_JOIN, *paths]))
        for name, argv in cases:
            start = time.perf_counter()
            peak = peak_megabytes(argv)
            elapsed = time.perf_counter() - start
            print(f"  {kind + ', ' + order + ' order':<26} {name:<22} "
                  f"{peak:7.0f} MiB {elapsed:7.1f} s", flush=True)
        for path in paths:
            os.remove(path)


def wide_csv_memory(folder, rows):
    path = os.path.join(folder, "wide.csv")
    rng = random.Random(3)
    with open(path, "w") as f:
        f.write("item,system_a_correct,system_b_correct\n")
        for start in range(0, rows, 10 ** 5):
            f.writelines(f"{i},{int(rng.random() < 0.72)},"
                         f"{int(rng.random() < 0.76)}\n"
                         for i in range(start, min(rows, start + 10 ** 5)))
    here = os.path.join(os.path.dirname(__file__), os.pardir,
                        "bootstrap_eval_deltas.py")
    argv = [sys.executable, here, "compare", path, "--resamples", "10000"]
    elapsed, _ = run_process(argv)
    peak = peak_megabytes(argv)
    os.remove(path)
    print(f"\nwide CSV of {rows:g} rows of 0/1 scores: compare took "
          f"{elapsed:.1f} s, peak resident memory {peak:.0f} MB")


# Plan: whole processes, and the power engine against a plain sum #######

PLAN_CASES = [
    ("plan (the article's setting)", []),
    ("plan --gap 0.01", ["--gap", "0.01"]),
    ("plan --gap 0.005", ["--gap", "0.005"]),
    ("plan --n-items 100000", ["--n-items", "100000"]),
    ("plan --n-items 10000000", ["--n-items", "10000000"]),
    ("plan --discordance 0.2", ["--acc-a", "0.72", "--acc-b", "0.76",
                                "--discordance", "0.2"]),
]


def plan_cases():
    """Time plan as a whole process, and _mcnemar_power against the sum
    over every m (tests/oracle.py) at a size the plain sum can do."""
    here = os.path.join(os.path.dirname(__file__), os.pardir,
                        "bootstrap_eval_deltas.py")
    print(f"\n{'plan, whole process':<38} {'seconds':>9}")
    for name, extra in PLAN_CASES:
        elapsed, _ = run_process([sys.executable, here, "plan", *extra])
        print(f"{name:<38} {elapsed:9.2f}", flush=True)
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "pilot.csv")
        with open(path, "w") as f:
            f.write(bed._csv_text(bed.simulate(random.Random(1), 300)))
        elapsed, _ = run_process([sys.executable, here, "plan", "--from",
                                  path])
        print(f"{'plan --from (300 pilot items)':<38} {elapsed:9.2f}")
    design = bed._copula_design(0.72, 0.76, 0.6)
    fast, t_fast = timed(bed._mcnemar_power, 1500, design)
    slow, t_slow = timed(oracle.mcnemar_power_by_m, 1500, design.p10,
                         design.p01, bed.Fraction(1, 20))
    assert abs(fast - slow) < 1e-10, "power differs from the plain sum"
    row("exact power, n=1500", t_fast, t_slow)


# Rank: S systems, whole processes, beside scipy ########################

SCIPY_RANK = r"""
import json, sys, numpy as np
from scipy import stats
paths, resamples = sys.argv[2:], int(sys.argv[1])
runs = []
for path in paths:
    with open(path) as f:
        runs.append({r["id"]: r["score"] for r in map(json.loads, f)})
ids = [i for i in runs[0] if all(i in run for run in runs[1:])]
data = [np.array([run[i] for i in ids], float) for run in runs]
def means(*xs, axis=-1):
    return np.stack([x.mean(axis=axis) for x in xs])
batch = max(1, 10 ** 7 // (len(ids) * len(data)))
ci = stats.bootstrap(data, means, paired=True, vectorized=True, batch=batch,
                     n_resamples=resamples, method="percentile",
                     random_state=1).confidence_interval
print(ci.low, ci.high)
"""


def write_systems(folder, kind, n, systems):
    """Write one JSONL run per system: n items, correlated scores."""
    rng = random.Random(n + systems)
    shared = [rng.gauss(0, 1) for _ in range(n)]
    paths = []
    for s in range(systems):
        path = os.path.join(folder, f"rank-{kind}-{n}-{s}.jsonl")
        with open(path, "w") as f:
            for i, d in enumerate(shared):
                noise = rng.gauss(0, 1)
                score = (round(0.7 + 0.1 * d + 0.1 * noise + 0.005 * s, 6)
                         if kind == "continuous"
                         else int(0.6 * d + 0.8 * noise < 0.5 + 0.01 * s))
                f.write(json.dumps({"id": f"q{i}", "score": score}) + "\n")
        paths.append(path)
    return paths


def rank_cases(folder, resamples, cases):
    here = os.path.join(os.path.dirname(__file__), os.pardir,
                        "bootstrap_eval_deltas.py")
    have_scipy = importlib.util.find_spec("scipy") is not None
    print(f"\nrank, whole process, {resamples} joint resamples")
    print(f"{'case':<34} {'ours':>9} {'scipy':>9} {'ratio':>7}")
    for kind, n, systems in cases:
        paths = write_systems(folder, kind, n, systems)
        ours, _ = run_process([sys.executable, here, "rank", *paths,
                               "--resamples", str(resamples)])
        text = f"{f'{systems} systems, {kind} n={n:g}':<34} {ours:8.2f}s"
        if have_scipy:
            theirs, _ = run_process([sys.executable, "-c", SCIPY_RANK,
                                     str(resamples), *paths])
            text += f" {theirs:8.2f}s {theirs / ours:6.1f}x"
        print(text, flush=True)
        for path in paths:
            os.remove(path)


# Saddlepoint: accuracy, coverage, speed ###############################

def saddle_accuracy(reference=200_000, per=10_000):
    """Each saddlepoint end against `reference` resamples, as a distance
    in Monte Carlo standard errors of a `per`-resample end's level: how
    far the ideal-bootstrap end is from what resampling would find."""
    shapes = {
        "normal": lambda r: round(r.gauss(0.03, 0.2), 4),
        "lognormal": lambda r: round(r.lognormvariate(0, 1) - 1.6, 4),
        "lognormal, left": lambda r: round(1.6 - r.lognormvariate(0, 1), 4),
        "rare event (2%)": lambda r: 1.0 if r.random() < 0.02 else 0.0,
        "lattice {-1,0,1}": lambda r: r.choice([-1, 0, 0, 1]),
    }
    print(f"\nsaddlepoint ends against {reference} resamples, in Monte Carlo "
          f"s.e. of a {per}-resample end (lower end, upper end)")
    print(f"{'differences':<20} {'n=20':>13} {'n=100':>13} {'n=1000':>13}")
    for name, draw in shapes.items():
        cells = []
        for n in (20, 100, 1000):
            rng = random.Random(n)
            ints, _ = bed._exact_ints([draw(rng) for _ in range(n)])
            counter = bed.collections.Counter(ints)
            law = bed._SumLaw([(bed._law_part(counter), 1)])
            keys = sorted(counter)
            drawn = sorted(bed._resample_sums(
                random.Random(1), keys, [0] * len(keys), None,
                [counter[k] for k in keys], reference)[0][:-1])
            out = []
            for p in (0.025, 0.975):
                end = law.quantile(p)
                below = bisect.bisect_left(drawn, end) / reference
                upto = bisect.bisect_right(drawn, end) / reference
                miss = 0.0 if below <= p <= upto else min(abs(below - p),
                                                         abs(upto - p))
                out.append(miss / math.sqrt(p * (1 - p) / per))
            cells.append(f"{out[0]:5.2f} {out[1]:5.2f}")
        print(f"{name:<20} " + " ".join(f"{c:>13}" for c in cells),
              flush=True)


def saddle_coverage(resamples=1000):
    print(f"\ncoverage of the true mean difference (0), nominal 95%, and the "
          f"sign flip's false positives at 5% ({resamples} resamples where "
          f"resampled)")
    for shape in ("normal", "lognormal"):
        for n, replays in ((20, 400), (100, 1000), (1000, 300)):
            cal = bed._continuous_calibration(random.Random(n), bed._Options(
                differences=shape, gap=0.0, replays=replays, n_items=n,
                resamples=resamples))
            cells = "  ".join(f"{name} {100 * count / replays:5.1f}%"
                              for name, count in cal.covered.items())
            flips = "  ".join(f"{name.split(', ')[1]} "
                              f"{100 * count / replays:4.1f}%"
                              for name, count in cal.rejected.items())
            print(f"{shape:<10} n={n:<5} {replays:5} replays: {cells};  "
                  f"sign flip: {flips}", flush=True)


def saddle_speed(folder, resamples):
    have_scipy = importlib.util.find_spec("scipy") is not None
    here = os.path.join(os.path.dirname(__file__), os.pardir,
                        "bootstrap_eval_deltas.py")
    print(f"\ncontinuous compare, whole process: the saddlepoint (auto) "
          f"against {resamples} resamples (ours and scipy's)")
    for n in (10 ** 4, 10 ** 5, 10 ** 6):
        paths = write_runs(folder, "continuous", n)
        sp, out = run_process([sys.executable, here, "compare", *paths,
                               "--json"])
        entry = json.loads(out)["metrics"][0]
        print(f"n={n:g}: saddlepoint {sp:7.2f}s   paired CI "
              f"[{entry['ci']['paired_gap'][0]:.6f}, "
              f"{entry['ci']['paired_gap'][1]:.6f}]", flush=True)
        if n <= 10 ** 5:
            ours, out = run_process([sys.executable, here, "compare", *paths,
                                     "--method", "resample", "--resamples",
                                     str(resamples), "--json"])
            entry = json.loads(out)["metrics"][0]
            print(f"        resampled   {ours:7.2f}s   paired CI "
                  f"[{entry['ci']['paired_gap'][0]:.6f}, "
                  f"{entry['ci']['paired_gap'][1]:.6f}]   saddlepoint "
                  f"{ours / sp:.1f}x faster", flush=True)
            if have_scipy:
                theirs, out = run_process([sys.executable, "-c",
                                           SCIPY_SCRIPT, *paths,
                                           str(resamples), "0"])
                lo, hi = map(float, out.split())
                print(f"        scipy       {theirs:7.2f}s   paired CI "
                      f"[{lo:.6f}, {hi:.6f}]   saddlepoint "
                      f"{theirs / sp:.1f}x faster", flush=True)
                same, out = run_process([sys.executable, "-c",
                                         SCIPY_SAME_WORK, *paths,
                                         str(resamples)])
                lo, hi, _ = map(float, out.split())
                print(f"        scipy, all  {same:7.2f}s   paired CI "
                      f"[{lo:.6f}, {hi:.6f}]   resampled {ours / same:.2f}x "
                      "its time (the same work: the systems' and the "
                      "paired CIs, the unpaired CI, a sign-flip test)",
                      flush=True)
        else:
            read, _ = run_process([sys.executable, "-c", READ_SCRIPT,
                                   *paths])
            print(f"        just parsing the two files {read:.2f}s "
                  f"(compare takes {sp / read:.2f}x that)", flush=True)
        for path in paths:
            os.remove(path)
    if not have_scipy:
        print("scipy is not importable: its line is left out")


# Corpus statistics: binary F1, flat in n ################################

NUMPY_F1 = r"""
import json, sys, numpy as np
paths, resamples = sys.argv[2:], int(sys.argv[1])
runs = []
for path in paths:
    with open(path) as f:
        runs.append({r["id"]: (r["gold"], r["pred"]) for r in map(json.loads, f)})
ids = [i for i in runs[0] if i in runs[1]]
gold = np.array([runs[0][i][0] for i in ids])
a = np.array([runs[0][i][1] for i in ids])
b = np.array([runs[1][i][1] for i in ids])
n, rng = len(ids), np.random.default_rng(1)
def f1(g, p):
    tp = ((g == 1) & (p == 1)).sum(axis=-1)
    return 2 * tp / ((g == 1).sum(axis=-1) + (p == 1).sum(axis=-1))
gaps = []
for _ in range(resamples):
    pick = rng.integers(n, size=n)
    gaps.append(f1(gold[pick], b[pick]) - f1(gold[pick], a[pick]))
print(np.percentile(gaps, [2.5, 97.5]))
"""


def corpus_cases(folder, resamples):
    print(f"\nbinary F1, {resamples} paired resamples and {resamples} "
          f"randomization rounds from the (gold, A, B) pattern counts")
    for n in (10 ** 3, 10 ** 5, 10 ** 6, 10 ** 7):
        shares = [0.30, 0.05, 0.04, 0.01, 0.02, 0.03, 0.05, 0.50]
        patterns = [(g, x, y) for g in (0, 1) for x in (0, 1) for y in (0, 1)]
        items = {p: round(s * n) for p, s in zip(patterns, shares)}
        table = bed._corpus_table("f1", [p for p, c in items.items()
                                        for _ in range(1)])
        table = table._replace(counts=[items[p] for p in
                                       _patterns_of(table)])
        _, alone = timed(bed._compare_corpus, table, random.Random(1),
                         resamples=resamples)
        print(f"  n={n:<10g} {alone:8.3f} s", flush=True)
    here = os.path.join(os.path.dirname(__file__), os.pardir,
                        "bootstrap_eval_deltas.py")
    rng = random.Random(5)
    paths = [os.path.join(folder, f"f1-{s}.jsonl") for s in "ab"]
    with open(paths[0], "w") as fa, open(paths[1], "w") as fb:
        for i in range(10 ** 6):
            g = int(rng.random() < 0.4)
            for f, right in ((fa, 0.8), (fb, 0.83)):
                f.write(json.dumps({"id": i, "gold": g, "pred": g if
                                    rng.random() < right else 1 - g}) + "\n")
    ours, out = run_process([sys.executable, here, "compare", *paths,
                             "--stat", "f1(gold,pred)", "--resamples",
                             str(resamples), "--json"])
    ci = json.loads(out)["metrics"][0]["ci"]["paired_gap"]
    print(f"whole process, 10^6 items: ours {ours:.2f}s, paired CI "
          f"[{ci[0]:.5f}, {ci[1]:.5f}]", flush=True)
    read, _ = run_process([sys.executable, "-c", READ_SCRIPT, *paths])
    print(f"  just parsing the two files {read:.2f}s", flush=True)
    if importlib.util.find_spec("numpy") is not None:
        few = max(1, resamples // 50)        # 10^6 picks each: scaled up
        theirs, out = run_process([sys.executable, "-c", NUMPY_F1,
                                   str(few), *paths])
        setup, _ = run_process([sys.executable, "-c", NUMPY_F1, "1",
                                *paths])
        scaled = setup + (theirs - setup) * (resamples - 1) / (few - 1)
        print(f"  numpy index bootstrap (F1 only, no test): {theirs:.2f}s "
              f"for {few} resamples, about {scaled:.0f}s for {resamples}",
              flush=True)
    for path in paths:
        os.remove(path)


NUMPY_BT = r"""
import json, sys
import numpy as np
from scipy.optimize import minimize
path, rounds = sys.argv[1], int(sys.argv[2])
a, b, w = [], [], []
names = {}
with open(path) as f:
    for line in f:
        r = json.loads(line)
        a.append(names.setdefault(r["model_a"], len(names)))
        b.append(names.setdefault(r["model_b"], len(names)))
        w.append({"model_a": 0.0, "model_b": 1.0}.get(r["winner"], 0.5))
a, b, w = np.array(a), np.array(b), np.array(w)
S, N = len(names), len(a)
code = (a * S + b) * 3 + (w * 2).astype(int)     # a (pair, outcome) cell
cells, inverse = np.unique(code, return_inverse=True)
ca, cb = cells // 3 // S, cells // 3 % S
cw = (cells % 3) / 2.0
def fit(counts, x0):
    def loss(theta):
        d = theta[cb] - theta[ca]
        p = 1 / (1 + np.exp(-d))
        ll = counts * (cw * np.log(p) + (1 - cw) * np.log1p(-p))
        g = np.zeros(S)
        r = counts * (cw - p)
        np.add.at(g, cb, r)
        np.add.at(g, ca, -r)
        return -ll.sum(), -g
    x = minimize(loss, x0, jac=True, method="L-BFGS-B",
                 options={"gtol": 1e-9}).x
    return x - x.mean()
counts = np.bincount(inverse, minlength=len(cells)).astype(float)
observed = fit(counts, np.zeros(S))
rng = np.random.default_rng(1)
draws = []
for _ in range(rounds):           # the notebook: battles.sample(replace=True)
    pick = rng.integers(0, N, N)
    again = np.bincount(inverse[pick], minlength=len(cells)).astype(float)
    draws.append(fit(again, observed))
lo, hi = np.percentile(np.array(draws) * 400 / np.log(10), [2.5, 97.5], axis=0)
print(S, N, float(lo.mean()), float(hi.mean()))
"""


NOTEBOOK_BT = r"""
import math, sys, time, warnings
import numpy as np, pandas as pd
from sklearn.linear_model import LogisticRegression
warnings.simplefilter("ignore", FutureWarning)   # penalty=None's spelling
path, rounds = sys.argv[1], int(sys.argv[2])
start = time.perf_counter()
battles = pd.read_json(path, lines=True)
def mle_elo(df):
    # The notebook's steps: win and tie tables by model pair, a win counted
    # twice and a tie once for each side, a weighted logistic regression
    # on +-log(10) columns, no intercept, no penalty.  (Its design matrix is
    # built here by numpy, not by its loop over the pairs.)
    models = sorted(set(df["model_a"]) | set(df["model_b"]))
    def table(rows):
        return pd.crosstab(rows["model_a"], rows["model_b"]).reindex(
            index=models, columns=models, fill_value=0)
    tie = df["winner"].str.startswith("tie")
    a_won = table(df[df["winner"] == "model_a"])
    b_won = table(df[df["winner"] == "model_b"])
    tied = table(df[tie])
    won = (2 * a_won + 2 * b_won.T + tied + tied.T).to_numpy(float)
    p = len(models)
    i, j = np.nonzero(~np.eye(p, dtype=bool))
    keep = won[i, j] + won[j, i] > 0
    i, j = i[keep], j[keep]
    x = np.zeros((2 * len(i), p))
    for r in (2 * np.arange(len(i)), 2 * np.arange(len(i)) + 1):
        x[r, i], x[r, j] = math.log(10), -math.log(10)
    y = np.tile([1.0, 0.0], len(i))
    w = np.empty(2 * len(i))
    w[0::2], w[1::2] = won[i, j], won[j, i]
    fit = LogisticRegression(fit_intercept=False, penalty=None, tol=1e-6)
    fit.fit(x, y, sample_weight=w)
    return pd.Series(400 * fit.coef_[0] + 1000, index=models)
observed = mle_elo(battles)
ready = time.perf_counter()
rows = [mle_elo(battles.sample(frac=1.0, replace=True, random_state=k))
        for k in range(rounds)]
bounds = pd.DataFrame(rows).quantile([0.025, 0.975])
done = time.perf_counter()
print(ready - start, (done - ready) / rounds)
"""


def _importable(python, *modules):
    """Return True if interpreter *python* imports every module."""
    probe = "import " + ", ".join(modules)
    return subprocess.run([python, "-c", probe], capture_output=True
                          ).returncode == 0


def preference_cases(folder, battles, systems, rounds, peer=sys.executable,
                     notebook_rounds=5):
    """Bradley-Terry rank of a Chatbot Arena-sized battles file: ours,
    whole process, against the Chatbot Arena notebook's recipe (pandas
    and scikit-learn: battles resampled each round, pivot tables, a
    weighted logistic regression), timed over *notebook_rounds* rounds
    and projected, and against numpy and scipy doing the same on the
    (pair, verdict) cells (a leaner recipe than the notebook's), both run
    by the interpreter *peer*."""
    path = os.path.join(folder, "battles.jsonl")
    write_battles(path, battles, systems)
    print(f"preferences: {battles} battles among {systems} systems, "
          f"{rounds} bootstrap rounds (whole processes)", flush=True)
    ours, _ = run_process([sys.executable, bed.__file__, "rank", path,
                           "--resamples", str(rounds), "--json"])
    print(f"  ours (--jobs 2 where it can fork)   {ours:9.1f} s", flush=True)
    if _importable(peer, "numpy", "pandas", "sklearn"):
        script = os.path.join(folder, "notebook_bt.py")
        with open(script, "w") as f:
            f.write(NOTEBOOK_BT)
        took, out = run_process([peer, script, path, str(notebook_rounds)])
        setup, per_round = map(float, out.split())
        projected = setup + rounds * per_round
        print(f"  the notebook's recipe, pandas and scikit-learn: "
              f"{per_round:.2f} s a round over {notebook_rounds} rounds, "
              f"{setup:.1f} s to read and fit once: {projected:.0f} s "
              f"projected for {rounds} rounds, {projected / ours:.0f}x ours",
              flush=True)
    else:
        print("  the notebook's recipe: pandas or scikit-learn not "
              "importable (--peer-python names an interpreter that has "
              "them)")
    if _importable(peer, "numpy", "scipy"):
        script = os.path.join(folder, "numpy_bt.py")
        with open(script, "w") as f:
            f.write(NUMPY_BT)
        theirs, _ = run_process([peer, script, path, str(rounds)])
        row("  numpy and scipy on the cells", ours, theirs)
    else:
        print("  numpy and scipy on the cells: not importable")
    os.remove(path)


# Issue 49: the rows where purpose-written numpy was ahead, whole processes
# measured the same way (CPU of the process and its helpers, wall, peak
# resident memory), each beside a numpy peer doing the same work.

NUMPY_CELLS_BT = r"""
import json, sys
import numpy as np
path, rounds = sys.argv[1], int(sys.argv[2])
names, code = {}, []
outcome = {"model_a": 0, "model_b": 2}
with open(path) as f:
    for line in f:
        r = json.loads(line)
        i = names.setdefault(r["model_a"], len(names))
        j = names.setdefault(r["model_b"], len(names))
        w = outcome.get(r["winner"], 1)            # b's share x2: 0, 1 (tie), 2
        if i > j:
            i, j, w = j, i, 2 - w                  # a pair counted once
        code.append((i * 4096 + j) * 3 + w)
S = len(names)
cells, counts = np.unique(np.array(code), return_counts=True)
del code
ca, cb, cw = cells // 3 // 4096, cells // 3 % 4096, (cells % 3) / 2.0
N = counts.sum()
pair_ids, pair_of = np.unique(ca * 4096 + cb, return_inverse=True)
pa, pb = pair_ids // 4096, pair_ids % 4096
P = len(pair_ids)

def fit(w, x):                 # batched Newton: rows of cell counts w
                              # (R, C), from strengths x (R, S)
    R = w.shape[0]
    games = np.zeros((R, P)); won = np.zeros((R, P))
    np.add.at(games.T, pair_of, w.T)
    np.add.at(won.T, pair_of, (w * cw).T)
    for _ in range(100):
        p = 1 / (1 + np.exp(x[:, pa] - x[:, pb]))          # b beats a
        r = won - games * p
        g = np.zeros((R, S)); np.add.at(g.T, pb, r.T); np.add.at(g.T, pa, -r.T)
        v = games * p * (1 - p)
        h = np.zeros((R, S, S))
        h[:, pa, pb] -= v; h[:, pb, pa] -= v
        d = np.zeros((R, S)); np.add.at(d.T, pa, v.T); np.add.at(d.T, pb, v.T)
        h[:, np.arange(S), np.arange(S)] += d
        step = np.linalg.solve(h[:, 1:, 1:], g[:, 1:, None])[:, :, 0]
        x[:, 1:] += step
        if np.abs(step).max() < 1e-7:
            break
    return x - x.mean(axis=1, keepdims=True)

observed = fit(counts[None, :].astype(float), np.zeros((1, S)))[0]
rng = np.random.default_rng(1)
draws = rng.multinomial(N, counts / N, size=rounds).astype(float)
ratings = fit(draws, np.tile(observed, (rounds, 1))) * 400 / np.log(10)
lo, hi = np.percentile(ratings, [2.5, 97.5], axis=0)
print(S, N, float(lo.mean()), float(hi.mean()))
"""


def whole_process(argv):
    """Run argv under a fresh interpreter that waits for it; return (CPU
    seconds: user + sys of argv and the helpers it waited for; wall
    seconds; peak resident MB of the largest of them (Linux: KB); its
    stdout)."""
    code = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
            "c = subprocess.run(sys.argv[1:], capture_output=True, text=True); "
            "w = time.perf_counter() - t; sys.stdout.write(c.stdout); "
            "sys.stderr.write(c.stderr); "
            "u = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(u.ru_utime + u.ru_stime, w, u.ru_maxrss); "
            "sys.exit(c.returncode)")
    child = subprocess.run([sys.executable, "-c", code, *argv],
                           capture_output=True, text=True)
    if child.returncode:
        raise SystemExit(f"{argv[:3]} failed: {child.stderr.strip()}")
    body, _, last = child.stdout.rstrip("\n").rpartition("\n")
    cpu, wall, peak = last.split()
    return float(cpu), float(wall), int(peak) / 1024, body


def peer_row(name, ours, theirs):
    """Print a row of (CPU, wall, peak MB) ours and the peer's, and the
    ratios ours / peer's (1.0 or less: ours is as fast)."""
    print(f"  {name:<30} CPU {ours[0]:6.2f} s vs {theirs[0]:6.2f} s "
          f"({ours[0] / theirs[0]:4.2f}x)   wall {ours[1]:6.2f} s vs "
          f"{theirs[1]:6.2f} s ({ours[1] / theirs[1]:4.2f}x)   peak "
          f"{ours[2]:5.0f} vs {theirs[2]:5.0f} MB", flush=True)


def write_battles(path, battles, systems, seed=8):
    """Write a Chatbot Arena-like battles file: Elo strengths N(1000, 150),
    random pairs, 12% ties."""
    rng = random.Random(seed)
    elo = [rng.gauss(1000, 150) for _ in range(systems)]
    names = [f"model-{k:03d}" for k in range(systems)]
    with open(path, "w") as f:
        for _ in range(battles):
            i, j = rng.sample(range(systems), 2)
            p_b = 1 / (1 + 10 ** ((elo[i] - elo[j]) / 400))
            u = rng.random()
            winner = ("tie" if u < 0.12 else "model_b"
                      if rng.random() < p_b else "model_a")
            f.write(f'{{"model_a": "{names[i]}", "model_b": "{names[j]}", '
                    f'"winner": "{winner}"}}\n')


def battle_cases(folder, systems=50, rounds=1000, sizes=(10 ** 5, 10 ** 6)):
    """Issue 49: rank on a battles file (50 systems, 1,000 rounds) at 10^5
    and 10^6 battles, ours (one process: --jobs 1, and the default) beside
    numpy doing the same work: the battles parsed with json, multinomial
    counts of the (pair, verdict) cells and a batched Newton fit."""
    have_numpy = importlib.util.find_spec("numpy") is not None
    print(f"\nbattles: rank, {systems} systems, {rounds} rounds; whole "
          f"processes, ours vs numpy's", flush=True)
    script = os.path.join(folder, "numpy_cells_bt.py")
    with open(script, "w") as f:
        f.write(NUMPY_CELLS_BT)
    for n in sizes:
        path = os.path.join(folder, f"battles-{n}.jsonl")
        write_battles(path, n, systems)
        argv = [sys.executable, bed.__file__, "rank", path, "--resamples",
                str(rounds), "--json"]
        theirs = (whole_process([sys.executable, script, path, str(rounds)])
                  if have_numpy else None)
        for jobs in ("1", "2"):
            ours = whole_process(argv + ["--jobs", jobs])
            if theirs:
                peer_row(f"{n:,} battles, --jobs {jobs}", ours[:3],
                         theirs[:3])
            else:
                print(f"  {n:,} battles, --jobs {jobs}: CPU {ours[0]:.2f} s,"
                      f" wall {ours[1]:.2f} s, peak {ours[2]:.0f} MB "
                      f"(numpy not importable)")
        os.remove(path)


NUMPY_BY_COUNTS = r"""
import sys
import numpy as np
from scipy.stats import multivariate_normal, norm
n, replays, resamples = int(sys.argv[1]), 1000, 2000
acc_a, acc_b, corr = 0.72, 0.76, 0.6
rng = np.random.default_rng(2026)
# the single run: n items from the Gaussian copula, then its bootstraps
# from the four cell counts (A's, B's, paired, unpaired)
z = rng.multivariate_normal([0, 0], [[1, corr], [corr, 1]], size=n)
a = z[:, 0] < norm.ppf(acc_a)
b = z[:, 1] < norm.ppf(acc_b)
a_only, b_only = int((a & ~b).sum()), int((b & ~a).sum())
right_a, right_b = a.sum() / n, b.sum() / n
per_a = rng.binomial(n, right_a, resamples)
per_b = rng.binomial(n, right_b, resamples)
cells = [a_only / n, b_only / n, 1 - (a_only + b_only) / n]
draws = rng.multinomial(n, cells, size=resamples)
paired = draws[:, 1] - draws[:, 0]
unpaired = rng.binomial(n, right_b, resamples) - rng.binomial(
    n, right_a, resamples)
bounds = [np.percentile(x, [2.5, 97.5]) for x in (per_a, per_b, paired,
                                                  unpaired)]
# the replays: each replay's cells one multinomial, its paired interval
# from resamples multinomial draws of them
both = multivariate_normal([0, 0], [[1, corr], [corr, 1]]).cdf(
    [norm.ppf(acc_a), norm.ppf(acc_b)])          # the design's cells
p10, p01 = acc_a - both, acc_b - both
covered = 0
for _ in range(replays):
    x10, x01, rest = rng.multinomial(n, [p10, p01, 1 - p10 - p01])
    d = rng.multinomial(n, [x10 / n, x01 / n, rest / n], size=resamples)
    diffs = np.sort((d[:, 1] - d[:, 0]) / n)
    covered += diffs[int(0.025 * resamples)] <= acc_b - acc_a <= diffs[
        int(0.975 * resamples)]
print(covered / replays, bounds[2])
"""


def by_counts_processes(folder, sizes=(500, 10 ** 4, 10 ** 6)):
    """Issue 49: simulate --by-counts (1,000 replays, --no-csv) as a whole
    process at N items, beside numpy doing the same work: the run's items
    drawn from the copula, its four bootstraps from the cell counts, and
    1,000 replays each a multinomial of the cells with a paired interval
    from 2,000 multinomial resamples (ours: the ideal bootstrap's)."""
    have_peer = all(importlib.util.find_spec(m) for m in ("numpy", "scipy"))
    print("\nsimulate --by-counts, whole processes, ours vs numpy's",
          flush=True)
    script = os.path.join(folder, "numpy_by_counts.py")
    with open(script, "w") as f:
        f.write(NUMPY_BY_COUNTS)
    for n in sizes:
        ours = whole_process([sys.executable, bed.__file__, "simulate",
                              "--by-counts", "--n-items", str(n), "--no-csv"])
        if have_peer:
            peer_row(f"{n:,} items", ours[:3], whole_process(
                [sys.executable, script, str(n)])[:3])
        else:
            print(f"  {n:,} items: CPU {ours[0]:.2f} s, wall {ours[1]:.2f} "
                  f"s (numpy or scipy not importable)")


def sequential_cases(folder, n=10 ** 6, replays=200, most=2000):
    """Issue 34: when compare --sequential stops, looked at after every
    item, ours beside a numpy implementation of the same sequences written
    apart and confseq's betting sequence where it is installed; then
    compare --sequential against plain compare on 10^6-row wide files
    (whole processes, medians of three)."""
    try:
        import numpy as np
    except ImportError:
        np = None
    try:
        from confseq import betting as confseq_betting
    except ImportError:
        confseq_betting = None

    def numpy_betting(d, alpha=0.05):      # d in [-1, 1], the test at 0
        x = (np.asarray(d) + 1) / 2
        t = np.arange(1, len(x) + 1)
        mu = (0.5 + np.cumsum(x)) / (t + 1)
        s2 = (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1)
        s2 = np.concatenate([[0.25], s2[:-1]])
        lam = np.minimum(np.sqrt(2 * np.log(2 / alpha)
                                 / (s2 * t * np.log(1 + t))), 1.0)
        up = np.cumsum(np.log1p(lam * (x - 0.5)))
        down = np.cumsum(np.log1p(-lam * (x - 0.5)))
        hit = np.nonzero(np.maximum(up, down) >= np.log(2 / alpha))[0]
        return int(hit[0]) + 1 if len(hit) else None

    def numpy_mixture(a, b, alpha=0.05):   # 0/1: the discordant signs
        from scipy.special import betaln
        d = np.asarray(b) - np.asarray(a)
        where = np.nonzero(d)[0]
        up = (d[where] > 0).astype(float)
        k = np.arange(1, len(up) + 1)
        s = np.cumsum(up)
        log_m = (betaln(0.5 + s, 0.5 + k - s) - betaln(0.5, 0.5)
                 + k * np.log(2))
        hit = np.nonzero(log_m >= np.log(1 / alpha))[0]
        return int(where[hit[0]]) + 1 if len(hit) else None

    def confseq_stop(d, alpha=0.05):
        x = (np.asarray(d) + 1) / 2
        lower, upper = confseq_betting.betting_cs(x, alpha=alpha)
        hit = np.nonzero((lower > 0.5) | (upper < 0.5))[0]
        return int(hit[0]) + 1 if len(hit) else None

    def summary(stops):
        done = sorted(s for s in stops if s is not None)
        if not done:
            return f"{0:>6.1%} {'-':>7} {'-':>6}"
        return (f"{len(done) / len(stops):>6.1%} {done[len(done) // 2]:>7} "
                f"{done[int(0.9 * len(done))]:>6}")

    print(f"\nsequential: {replays} replays, up to {most} items, a look after "
          f"every item, alpha 0.05: stopped within {most}, median and 90th "
          f"percentile stopping item; null: the share that ever stopped")
    print(f"{'design':<34} {'sequence':<22} {'stopped':>6} {'median':>7} "
          f"{'p90':>6}   null")
    rng = random.Random(34)
    gap_runs = [[rng.gauss(0.05, 0.15) for _ in range(most)]
                for _ in range(replays)]
    null_runs = [[rng.gauss(0.0, 0.15) for _ in range(most)]
                 for _ in range(replays)]
    ways = [("ours (betting)", lambda d: bed._sequential_bounded(
        [0.5] * len(d), [0.5 + x for x in d], 0, 1).stopped_at)]
    if np is not None:
        ways.append(("numpy, written apart", numpy_betting))
    if confseq_betting is not None:
        ways.append(("confseq betting_cs", confseq_stop))
    for name, way in ways:
        stops = [way(d) for d in gap_runs]
        null = [way(d) for d in null_runs]
        share = sum(s is not None for s in null) / replays
        print(f"{'bounded, gap 0.05, SD 0.15':<34} {name:<22} "
              f"{summary(stops)}   {share:.1%}", flush=True)
    if confseq_betting is None:
        print("  (confseq not installed: it needs a C++ build)")
    for label, gap in (("0/1, +4 pts (the article's design)", 0.04),
                       ("0/1, +8 pts", 0.08)):
        design = bed._copula_design(0.72, 0.72 + gap, 0.6)
        null_design = bed._copula_design(0.72, 0.72, 0.6)
        runs = {}
        for key, dz in (("gap", design), ("null", null_design)):
            runs[key] = []
            for _ in range(replays):
                a, b = [], []
                for _ in range(most):
                    u = rng.random()
                    a.append(1 if u < dz.p10 else 0)
                    b.append(1 if dz.p10 <= u < dz.p10 + dz.p01 else 0)
                runs[key].append((a, b))
        ways = [("ours (mixture, alpha)", lambda a, b:
                 bed._sequential_binary(a, b).stopped_at)]
        if np is not None:
            ways.append(("numpy, written apart", numpy_mixture))
        for name, way in ways:
            stops = [way(a, b) for a, b in runs["gap"]]
            null = [way(a, b) for a, b in runs["null"]]
            share = sum(s is not None for s in null) / replays
            print(f"{label:<34} {name:<22} {summary(stops)}   {share:.1%}",
                  flush=True)
        fixed = sum(bed._mcnemar_p(sum(x > y for x, y in zip(a, b)),
                                   sum(y > x for x, y in zip(a, b))) <= 0.05
                    for a, b in runs["gap"]) / replays
        print(f"{'':<34} one McNemar test at item {most}: {fixed:.1%} "
              f"reject")
    for kind in ("binary", "continuous"):
        rng = random.Random(6)
        path = os.path.join(folder, "wide.csv")
        with open(path, "w") as f:
            f.write("id,system_a_correct,system_b_correct\n")
            for i in range(n):
                if kind == "binary":
                    a = int(rng.random() < 0.7)
                    b = a if rng.random() < 0.7 else int(rng.random() < 0.72)
                else:
                    a = round(rng.random(), 3)
                    b = round(min(1, max(0, a + rng.gauss(0.002, 0.15))), 3)
                f.write(f"{i},{a},{b}\n")
        argv = [sys.executable, bed.__file__, "compare", path]
        plain = sorted(run_process(argv)[0] for _ in range(3))[1]
        seq = sorted(run_process(argv + ["--sequential"])[0]
                     for _ in range(3))[1]
        print(f"sequential: {n} {kind} items, whole processes (median of 3):"
              f" compare {plain:.2f} s, compare --sequential {seq:.2f} s: "
              f"{seq / plain:.2f}x", flush=True)
        os.remove(path)


# Peers: three paths beside numpy written for the same work (issue 49) ######

NUMPY_BETTING = r"""
import json, sys
import numpy as np
def load(path):
    with open(path) as f:
        return {r["id"]: r["score"] for r in map(json.loads, f)}
A, B = load(sys.argv[1]), load(sys.argv[2])
lo, hi, alpha = float(sys.argv[3]), float(sys.argv[4]), 0.05
ids = [i for i in A if i in B]
a = np.array([A[i] for i in ids], float)
b = np.array([B[i] for i in ids], float)
w = hi - lo
x = (b - a + w) / (2 * w)                  # in [0, 1]; no difference: 1/2
n = len(x)
t = np.arange(1, n + 1)
mu = (0.5 + np.cumsum(x)) / (t + 1)
s2 = np.concatenate([[0.25], (0.25 + np.cumsum((x - mu) ** 2)) / (t + 1)])
bets = np.sqrt(2 * np.log(2 / alpha) / (s2[:-1] * t * np.log1p(t)))
log_stop = np.log(2 / alpha)
up = np.cumsum(np.log1p(np.minimum(bets, 1) * (x - 0.5)))
down = np.cumsum(np.log1p(-np.minimum(bets, 1) * (x - 0.5)))
hit = np.nonzero(np.maximum(up, down) >= log_stop)[0]
def capital(m, side):                      # log K+ (side 1) or K- (-1)
    cap = 0.5 / (m if side > 0 else 1 - m)
    return np.log1p(side * np.minimum(bets, cap) * (x - m)).sum() - log_stop
def end(side):                             # bisection from the mean out
    inside, outside = x.mean(), (1e-12 if side > 0 else 1 - 1e-12)
    if capital(outside, side) < 0:
        return outside
    for _ in range(60):
        m = (inside + outside) / 2
        if capital(m, side) >= 0:
            outside = m
        else:
            inside = m
    return outside
ci = [w * (2 * end(s) - 1) for s in (1, -1)]
print(int(hit[0]) + 1 if len(hit) else None, ci)
"""

NUMPY_PPI = r"""
import json, sys
import numpy as np
def load(path):
    with open(path) as f:
        return {r["id"]: (r["judge"], r.get("human"))
                for r in map(json.loads, f)}
A, B = load(sys.argv[1]), load(sys.argv[2])
ids = [i for i in A if i in B]
fa = np.array([A[i][0] for i in ids], float)
fb = np.array([B[i][0] for i in ids], float)
nan = float("nan")
ya = np.array([nan if A[i][1] is None else A[i][1] for i in ids], float)
yb = np.array([nan if B[i][1] is None else B[i][1] for i in ids], float)
def ppi(y, f, lam=None):                   # PPI++ (Angelopoulos et al. 2023)
    got = ~np.isnan(y)
    yl, fl, fu = y[got], f[got], f[~got]
    n, big_n = len(yl), len(fu)
    if lam is None:
        lam = np.cov(yl, fl)[0, 1] / ((1 + n / big_n) * np.var(f, ddof=1))
        lam = min(max(lam, 0.0), 1.0)
    rect = yl - lam * fl
    est = lam * fu.mean() + rect.mean()
    se = np.sqrt(rect.var() / n + lam ** 2 * fu.var() / big_n)
    return est, est - 1.959964 * se, est + 1.959964 * se, lam
both = ~np.isnan(ya) & ~np.isnan(yb)
gap = ppi(np.where(both, yb - ya, nan), fb - fa)
print(ppi(ya, fa, gap[3]), ppi(yb, fb, gap[3]), gap)
"""


def write_stream(folder, n, kind):
    """Write two JSONL runs of n items for the peers part: "betting", the
    sequential part's continuous design with every float's digits kept
    (17 significant, as a model's scores are written); "judged", 0/1
    judge scores of every item and a human's on every tenth."""
    rng = random.Random(49)
    paths = [os.path.join(folder, f"{kind}-{name}.jsonl")
             for name in ("base", "cand")]
    with open(paths[0], "w") as fa, open(paths[1], "w") as fb:
        for i in range(n):
            if kind == "betting":
                a = rng.random()
                b = min(1.0, max(0.0, a + rng.gauss(0.002, 0.15)))
                ra, rb = {"id": f"q{i}", "score": a}, {"id": f"q{i}",
                                                       "score": b}
            else:
                ta, tb = int(rng.random() < 0.70), int(rng.random() < 0.74)
                ja = ta if rng.random() < 0.85 else 1 - ta
                jb = tb if rng.random() < 0.85 else int(rng.random() < 0.8)
                ra, rb = {"id": f"q{i}", "judge": ja}, {"id": f"q{i}",
                                                        "judge": jb}
                if i % 10 == 0:
                    ra["human"], rb["human"] = ta, tb
            fa.write(json.dumps(ra) + "\n")
            fb.write(json.dumps(rb) + "\n")
    return paths


def process_cost(argv):
    """Run argv; return (CPU seconds, user and sys, of it and its helper
    processes; wall seconds)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, _ = run_process(argv)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime
            + after.ru_stime - before.ru_stime), wall


def paired_costs(ours, theirs, runs):
    """Run the two argvs in turn *runs* times; return each one's median
    (CPU, wall) and the median of the pairs' CPU ratios."""
    pairs = [(process_cost(ours), process_cost(theirs)) for _ in range(runs)]
    def median(xs):
        return sorted(xs)[len(xs) // 2]
    return ([median([p[k][j] for p in pairs]) for j in (0, 1)]
            for k in (0, 1)), median([o[0] / t[0] for o, t in pairs])


def peer_cases(folder, n=10 ** 6, runs=3):
    """Issue 49's rows where numpy written for the work was ahead: compare
    --sequential of 10^6 continuous items (17-digit scores in [0, 1])
    against a numpy betting sequence over the same stream (reading,
    joining, the test's stopping item and the sequence's ends by
    bisection); compare --human at 10^6 items with 10^5 labels against
    numpy's PPI++ (reading, joining, both means and the gap); a plain
    compare of 10^6 continuous 6-decimal scores against parsing the two
    files with json.  Whole processes, paired, medians of *runs*; CPU is
    user + sys of the process and its helpers."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        print("\npeers: numpy is not importable: part skipped")
        return
    here = bed.__file__
    print(f"\npeers: whole processes, {runs} paired runs, medians; "
          f"CPU = user + sys with helpers")
    print(f"{'case':<40} {'ours CPU':>9} {'peer CPU':>9} {'ratio':>6} "
          f"{'ours wall':>10} {'peer wall':>10}")
    cases = []
    paths = write_stream(folder, n, "betting")
    cases.append(("compare --sequential / numpy betting",
                  [sys.executable, here, "compare", *paths, "--sequential"],
                  [sys.executable, "-c", NUMPY_BETTING, *paths, "0", "1"]))
    cases.append(("  (plain compare of the same / betting)",
                  [sys.executable, here, "compare", *paths],
                  [sys.executable, "-c", NUMPY_BETTING, *paths, "0", "1"]))
    judged = write_stream(folder, n, "judged")
    cases.append(("compare --human / numpy PPI++",
                  [sys.executable, here, "compare", *judged, "--metric",
                   "judge", "--human", "human"],
                  [sys.executable, "-c", NUMPY_PPI, *judged]))
    scores = write_runs(folder, "continuous", n)
    cases.append(("continuous compare / json parse",
                  [sys.executable, here, "compare", *scores],
                  [sys.executable, "-c", READ_SCRIPT, *scores]))
    for name, ours, theirs in cases:
        ((o_cpu, o_wall), (t_cpu, t_wall)), ratio = paired_costs(
            ours, theirs, runs)
        print(f"{name:<40} {o_cpu:8.2f}s {t_cpu:8.2f}s {ratio:6.2f} "
              f"{o_wall:9.2f}s {t_wall:9.2f}s", flush=True)
    for path in (*paths, *judged, *scores):
        os.remove(path)


def _patterns_of(table):
    """The (gold, A, B) pattern of each row of a binary _CorpusTable."""
    out = []
    for row in table.rows:
        gold = row[1]
        out.append((gold, row[3], row[7]))
    return out


# Calibration: coverage and power where data are thin (issue 24) ###########

def _binary_truth(gap, rng, draws=200000):
    """The binary design's true mean difference at *gap*, by simulation
    of its cluster accuracies (the clipping makes it no closed form)."""
    total = 0.0
    for _ in range(draws):
        p = min(0.95, max(0.05, rng.gauss(0.6, 0.15)))
        total += min(1.0, p + gap) - p
    return total / draws


def calibration_cases(replays):
    """Print coverage of the cluster t interval at 3-50 clusters (null and
    gap, symmetric, unequal, skewed, binary), power at the detectable
    difference compare reports and at the clusters plan --from plans,
    joint rank coverage, and macro coverage with small subsets."""
    print(f"\ncalibration, {replays} replays a cell, nominal 95% (power "
          f"nominal 80%); Monte Carlo se about "
          f"{100 * math.sqrt(0.05 * 0.95 / replays):.1f} points "
          f"({100 * math.sqrt(0.16 / replays):.1f} for power)")
    counts = (3, 5, 10, 20, 50)
    print(f"{'cluster t interval covers':<34}"
          + "".join(f"{g:>7}" for g in counts))
    for kind in ("continuous", "unequal", "skewed", "binary"):
        # a shift of continuous scores moves the interval with it: one row
        for gap in (0.0, 0.1) if kind == "binary" else (0.5,):
            truth = (_binary_truth(gap, random.Random(1)) if kind == "binary"
                     else gap)
            cells = []
            for g in counts:
                rng = random.Random(g * 101 + len(kind))
                hits = 0
                for _ in range(replays):
                    r = bed._compare_tally(
                        designs.clustered(rng, g, gap, kind), rng,
                        bed._Options(resamples=41), clustered=True)
                    hits += r.ci_paired.lo <= truth <= r.ci_paired.hi
                cells.append(f"{100 * hits / replays:6.1f}%")
            print(f"  {kind + ', gap ' + format(gap, 'g'):<32}"
                  + "".join(f"{c:>7}" for c in cells))
    print(f"{'power at the reported difference':<34}"
          + "".join(f"{g:>7}" for g in (6, 10, 20, 50)))
    cells = []
    for g in (6, 10, 20, 50):
        rng = random.Random(g)
        hits = 0
        for _ in range(replays):
            pilot = bed._tally_spread(designs.clustered(rng, g, 0.0),
                                     clustered=True)
            mde = bed._detection(pilot, gap=0).mde
            r = bed._compare_tally(designs.clustered(rng, g, mde), rng,
                                   bed._Options(resamples=41), clustered=True)
            hits += r.p < 0.05
        cells.append(f"{100 * hits / replays:6.1f}%")
    print(f"  {'continuous, 6 items a cluster':<32}"
          + "".join(f"{c:>7}" for c in cells))
    print(f"{'power at the planned clusters':<34}"
          + "".join(f"{g:>7}" for g in (10, 20)) + "   (pilot clusters, "
          "gap 0.5)")
    cells = []
    for g in (10, 20):
        rng = random.Random(g + 7)
        hits = 0
        for _ in range(replays):
            pilot = bed._tally_spread(designs.clustered(rng, g, 0.5),
                                     clustered=True)
            items = bed._detection(pilot, gap=0.5).items_needed
            r = bed._compare_tally(designs.clustered(rng, items // 6, 0.5),
                                   rng, bed._Options(resamples=41),
                                   clustered=True)
            hits += r.p < 0.05
        cells.append(f"{100 * hits / replays:6.1f}%")
    print(f"  {'continuous, 6 items a cluster':<32}"
          + "".join(f"{c:>7}" for c in cells))
    sizes = (3, 5, 10)
    print(f"{'rank intervals all hold at once':<34}"
          + "".join(f"{k:>7}" for k in sizes) + "   (systems, 1,000 items)")
    joint, marginal = [], []
    for k in sizes:
        rng = random.Random(k)
        truth = [0.6 + 0.01 * j for j in range(k)]
        ranks = [k - j for j in range(k)]
        hits = [0, 0]
        for _ in range(max(50, replays // 5)):
            tally = collections.Counter(tuple(int(rng.random() < p)
                                              for p in truth)
                                        for _ in range(1000))
            r = bed._rank_systems(tally, rng, list(range(k)),
                                  bed._Options(resamples=400))
            hits[0] += all(s.lo <= t <= s.hi
                           for s, t in zip(r.joint_rank_cis, ranks))
            hits[1] += all(lo <= t <= hi
                           for (lo, hi), t in zip(r.rank_cis, ranks))
        joint.append(f"{100 * hits[0] / max(50, replays // 5):6.1f}%")
        marginal.append(f"{100 * hits[1] / max(50, replays // 5):6.1f}%")
    print(f"  {'joint (the default)':<32}" + "".join(f"{c:>7}" for c in joint))
    print(f"  {'marginal (--marginal-ranks)':<32}"
          + "".join(f"{c:>7}" for c in marginal))
    print("macro average's paired interval covers")
    for design in ("20 x 6 continuous", "0/1 of 10 to 200"):
        rng = random.Random(len(design))
        hits = 0
        for _ in range(replays):
            tally, truth = designs.macro(rng, design)
            r = bed._compare_macro(tally, rng, bed._Options(resamples=41))
            hits += r.ci_paired.lo <= truth <= r.ci_paired.hi
        print(f"  {design:<32}{100 * hits / replays:6.1f}%")


# By counts: the coverage loop whose cost does not grow with N ##############

def _numpy_counts_loop(n, replays, design, resamples=2000):
    """The recipe one writes in numpy: each replay's cells a multinomial,
    its paired bootstrap as resamples multinomial draws of the cells."""
    import numpy as np
    rng = np.random.default_rng(1)
    cells = [design.p10, design.p01, 1 - design.p10 - design.p01]
    gap, covered = design.acc_b - design.acc_a, 0
    for _ in range(replays):
        a_only, b_only, rest = rng.multinomial(n, cells)
        draws = rng.multinomial(n, [a_only / n, b_only / n, rest / n],
                                size=resamples)
        diffs = np.sort((draws[:, 1] - draws[:, 0]) / n)
        lo, hi = diffs[int(0.025 * resamples)], diffs[int(0.975 * resamples)]
        covered += lo <= gap <= hi
    return covered


def by_counts_cases(replays):
    """Time simulate's coverage loop by counts (1,000 replays) at N from 100
    to 10^6, beside the item-by-item loop at small N and numpy's recipe."""
    have_numpy = importlib.util.find_spec("numpy") is not None
    print(f"\ncoverage loop, {replays} replays: by counts (ideal bootstrap "
          f"by saddlepoint) beside item by item and numpy's multinomial "
          f"recipe (2,000 resamples); CPU seconds in-process")
    print(f"{'N':>9} {'by counts':>10} {'item by item':>13} "
          f"{'numpy':>8} {'coverage (counts, items)':>26}")
    design = bed._copula_design(bed.ACC_A, bed.ACC_B, bed.CORR)
    for n in (100, 500, 2000, 10000, 10 ** 6):
        start = time.process_time()
        fast = bed._coverage_by_counts(random.Random(1), replays=replays,
                                      n_items=n)
        t_fast = time.process_time() - start
        slow = t_slow = None
        if n <= 2000:
            start = time.process_time()
            slow = bed.coverage(random.Random(1), replays=replays // 10,
                                n_items=n)
            t_slow = (time.process_time() - start) * 10
        t_numpy = None
        if have_numpy:
            start = time.process_time()
            _numpy_counts_loop(n, replays, design)
            t_numpy = time.process_time() - start
        cover = f"{fast.covered / fast.replays:.3f}" + (
            f", {slow.covered / slow.replays:.3f}" if slow else "")
        print(f"{n:>9} {t_fast:>9.2f}s "
              + (f"{t_slow:>11.1f}s*" if t_slow else f"{'-':>13}")
              + (f" {t_numpy:>7.2f}s" if t_numpy else f" {'-':>8}")
              + f" {cover:>26}", flush=True)
    print("* timed over a tenth of the replays, times ten")


SIZES = (100, 256, 500, 1000, 2000, 4000, 4097, 8000, 10000)


def word_floor(words, chunk=1 << 15):
    """Return the seconds the standard library takes to generate *words*
    32-bit Mersenne Twister words, getrandbits in chunks: all the words
    the coverage loop consumes, and nothing done with them."""
    rng, best = random.Random(1), float("inf")
    for _ in range(3):
        start, left = time.perf_counter(), words
        while left:
            take = min(chunk, left)
            rng.getrandbits(32 * take)
            left -= take
        best = min(best, time.perf_counter() - start)
    return best


def size_cases(sizes, budget=32 * 10 ** 7, resamples=2000):
    """The article's coverage loop at other N_ITEMS: ours (two processes
    where fork exists) beside the straightforward loop and the floor.

    Ours runs max(16, budget / (resamples * n)) replays, the faster of two
    runs; the straightforward loop (tests/oracle.py) one replay of 2e6
    draws, the faster of two, scaled per draw (its cost per draw does not
    depend on the resamples); the floor is word_floor of the words the replays consume
    on average (n / 2^k of them give an index).  Each size first checks
    one replay's numbers against the straightforward loop's.
    """
    jobs = 2 if bed._can_fork() else 1
    print(f"coverage loop, {resamples} resamples a replay, jobs={jobs}: "
          "wall time per draw")
    print(f"{'n':>6} {'replays':>7} {'ours':>8} {'straightf.':>10} "
          f"{'ratio':>6} {'floor':>7} {'ours/floor':>10}")
    for n in sizes:
        fast = bed.coverage(random.Random(n), replays=1, n_items=n,
                            resamples=100, jobs=jobs)
        slow = oracle.coverage(random.Random(n), 1, n, bed.CORR, bed.ACC_A,
                               bed.ACC_B, 100, bed.CONFIDENCE)
        assert (fast.covered, fast.excludes_zero) == slow, f"n={n} differs"
        replays = max(16, budget // (resamples * n))
        draws = replays * resamples * n
        ours = min(timed(bed.coverage, random.Random(1), replays=replays,
                         n_items=n, resamples=resamples, jobs=jobs)[1]
                   for _ in range(2))
        few = max(100, 2 * 10 ** 6 // n)       # resamples: 2e6 draws
        slow_per = min(timed(oracle.coverage, random.Random(1), 1, n,
                             bed.CORR, bed.ACC_A, bed.ACC_B, few,
                             bed.CONFIDENCE)[1] for _ in range(2)) / (few * n)
        words = round(draws * (1 << n.bit_length()) / n)
        floor = word_floor(words)
        print(f"{n:>6} {replays:>7} {ours / draws * 1e9:>6.1f}ns "
              f"{slow_per * 1e9:>8.1f}ns {slow_per * draws / ours:>5.1f}x "
              f"{floor / draws * 1e9:>5.1f}ns {ours / floor:>9.2f}x",
              flush=True)
    print("floor: generating the same words with getrandbits alone")


def judged_cases(replays, items=4000):
    """Issue 33: a judge's scores corrected by human labels (PPI++), its
    intervals' coverage of each mean and the gap beside the judge's own
    (the judge's scores taken as the truth), with an unbiased judge, one
    biased for both systems and one that favours B's long answers, at
    50, 200 and 1,000 labels of *items* items."""
    print(f"\njudge-corrected coverage (PPI++), {items} items, {replays} "
          f"replays; truth A 0.70, B 0.74, gap +0.04; Monte Carlo s.e. "
          f"about {100 * math.sqrt(0.05 * 0.95 / replays):.1f} points")
    print(f"{'judge':<11} {'labels':>6}  {'corrected A / B / gap':>24}  "
          f"{'gap CI width':>12}  {'judge alone: gap':>16}")
    for judge in designs.JUDGES:
        for labels in (50, 200, 1000):
            rng = random.Random(labels * 7 + len(judge))
            covered, alone, width = [0, 0, 0], 0, 0.0
            for _ in range(replays):
                (ja, jb), (ha, hb), truth = designs.judged(rng, items,
                                                           labels, judge)
                corrected, gap, *_ = bed._judge_check(
                    bed._Columns(ja, jb), bed._Columns(ha, hb))
                for k, c in enumerate([*corrected, gap]):
                    covered[k] += c.ci.lo <= truth[k] <= c.ci.hi
                width += gap.ci.hi - gap.ci.lo
                d = [y - x for x, y in zip(ja, jb)]
                se = math.sqrt(bed._variance(d, 1) / items)
                alone += abs(sum(d) / items - truth[2]) <= 1.959964 * se
            shares = " / ".join(f"{100 * c / replays:.1f}" for c in covered)
            print(f"{judge:<11} {labels:>6}  {shares:>24}  "
                  f"{width / replays:>12.4f}  "
                  f"{100 * alone / replays:>15.1f}%")
    judged_ratings(replays)
    judged_clusters(replays)


def judged_clusters(replays):
    """Issue 33's clusters: items that err together within a cluster
    (tests/designs.judged_clusters) and battles whose turns go together
    (designs.bt_turns): the gap's and the rating differences' coverage
    with the standard error clustered (compare and rank --human with
    clusters) and taken item by item."""
    print(f"\njudge-corrected, clustered items, {replays} replays: coverage "
          f"clustered / item by item")
    for clusters, size, labels in ((20, 50, 400), (30, 40, 300),
                                   (8, 60, 160)):
        rng = random.Random(clusters * size + labels)
        hits = [0, 0]
        for _ in range(replays):
            (ja, jb), (ha, hb), names, truth = designs.judged_clusters(
                rng, clusters, size, labels)
            judge, human = bed._Columns(ja, jb), bed._Columns(ha, hb)
            for k, groups in enumerate((names, None)):
                gap = bed._judge_check(judge, human, clusters=groups)[1]
                hits[k] += gap.ci.lo <= truth <= gap.ci.hi
        print(f"  gap, {clusters} clusters of {size}, {labels} labels: "
              f"{100 * hits[0] / replays:.1f}% / "
              f"{100 * hits[1] / replays:.1f}%")
    strength, rng, hits, total = [0.0, 0.4, -0.3, 0.2], random.Random(5), \
        [0, 0], 0
    for _ in range(replays):
        judged, labelled, questions = designs.bt_turns(rng, strength)
        for k, groups in enumerate((questions, None)):
            found = bed._ppi_bradley_terry(4, judged, labelled, groups)
            hits[k] += sum(abs(found.theta[s] - strength[s])
                           <= 1.959964 * math.sqrt(found.cov[s][s])
                           for s in range(1, 4))
        total += 3
    print(f"  rating differences, 300 questions of 3 turns: "
          f"{100 * hits[0] / total:.1f}% / {100 * hits[1] / total:.1f}%")


def judged_ratings(replays, battles=2000):
    """Issue 33's preferences: Bradley-Terry ratings of 4 systems from a
    judge that hands system 3 a third of its battles, corrected by a
    human's verdicts (the truth) on 100, 400 and 1,000 of *battles*
    battles (rank --human): how often the corrected interval of each
    rating difference covers the truth, and the judge's own fit's bias on
    the favoured system."""
    strength = [0.0, 0.4, -0.3, 0.2]
    print(f"\njudge-corrected Bradley-Terry, 4 systems, {battles} battles, "
          f"{replays} replays: coverage of the 3 rating differences, the "
          f"judge alone's bias on the favoured system (log-strength)")
    for labels in (100, 400, 1000):
        rng = random.Random(labels)
        covered = total = 0
        bias = weight = 0.0
        for _ in range(replays):
            judged, labelled = designs.bt_battles(rng, strength, battles,
                                          battles // labels)
            found = bed._ppi_bradley_terry(4, judged, labelled)
            weight += found.weight
            for k in range(1, 4):
                half = 1.959964 * math.sqrt(found.cov[k][k])
                covered += abs(found.theta[k] - strength[k]) <= half
                total += 1
            alone = bed._bt_fit(4, [(i, j, 1.0, f) for i, j, f in judged]
                                + [(i, j, 1.0, f) for i, j, _, f in labelled])
            bias += (alone[3] - alone[0]) - strength[3]
        print(f"  {labels:>5} human verdicts: corrected "
              f"{100 * covered / total:5.1f}%  PPI++ weight "
              f"{weight / replays:.2f}  judge alone's bias "
              f"{bias / replays:+.3f}", flush=True)


SMALL_NS = (10, 15, 20, 30, 50, 100, 200)


def small_designs():
    """Issue 35's grid: n items, baseline accuracy, correlation, gap."""
    for n in SMALL_NS:
        for acc in (0.5, 0.7, 0.85, 0.9, 0.95, 0.98):
            for corr in (0.0, 0.5, 0.9):
                for gap in (0.0, 0.03, 0.05, 0.10):
                    if acc + gap <= 0.995:
                        yield n, acc, corr, gap


def small_cases(replays=400, only_binary=False):
    """Issue 35: every headline 0/1 interval's coverage at 10 to 200 items,
    computed exactly over every outcome of each design (a multinomial of
    the four cells), and continuous paired intervals at 10 to 40 items by
    simulation.  Needs numpy and scipy."""
    try:
        import numpy as np
        from scipy import stats
        from scipy.special import gammaln
    except ImportError:
        print("small: needs numpy and scipy; skipped")
        return
    z = bed._upper_z(0.025)

    def wilson(k, n):
        c = (k + z * z / 2) / (n + z * z)
        h = z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
        return c - h, c + h

    def newcombe(cells):                # written apart from the module's
        both, ao, bo, ne = cells.T.astype(float)
        n = cells.sum(1).astype(float)
        pa, pb = (both + ao) / n, (both + bo) / n
        la, ua = wilson(both + ao, n)
        lb, ub = wilson(both + bo, n)
        margins = (both + ao) * (bo + ne) * (both + bo) * (ao + ne)
        cross = both * ne - ao * bo
        psi = np.where((margins == 0) | ((cross >= 0) & (cross <= n / 2)), 0.0,
                       np.where(cross > 0, cross - n / 2, cross)
                       / np.sqrt(np.where(margins > 0, margins, 1)))
        down = np.sqrt(np.maximum(0, (pb - lb) ** 2 + (ua - pa) ** 2
                                  - 2 * psi * (pb - lb) * (ua - pa)))
        up = np.sqrt(np.maximum(0, (ub - pb) ** 2 + (pa - la) ** 2
                                - 2 * psi * (ub - pb) * (pa - la)))
        return pb - pa - down, pb - pa + up

    def ideal_bootstrap(n):
        """The paired percentile interval of the ideal bootstrap (what
        resampling tends to) for each (b_only, a_only): B* - A* of a
        multinomial resample is 2 B* - D*, D* ~ Bin(n, d/n), B* | D* ~
        Bin(D*, b/d)."""
        k = np.arange(n + 1)
        out = {}
        for d in range(n + 1):
            pd = stats.binom.pmf(k, n, d / n) if d else (k == 0) * 1.0
            for b in range(d + 1):
                if not d:
                    out[0, 0] = (0.0, 0.0)
                    continue
                joint = pd[:, None] * stats.binom.pmf(k[None, :], k[:, None],
                                                      b / d)
                values = (2 * k[None, :] - k[:, None]).ravel()
                order = np.argsort(values, kind="stable")
                cum = np.cumsum(joint.ravel()[order])
                ends = values[order][np.searchsorted(cum, [0.025, 0.975])]
                out[b, d - b] = tuple(ends / n)
        return out

    print(f"\nsmall evals: 0/1 coverage computed exactly over every outcome, "
          f"{len(list(small_designs()))} designs (n {SMALL_NS}, accuracies "
          f"0.5-0.98, correlations 0-0.9, gaps 0-10 pts)")
    rows = collections.defaultdict(list)
    widths = collections.defaultdict(list)
    for n in SMALL_NS:
        cells = np.array([(x, c, b, n - x - c - b) for b in range(n + 1)
                          for c in range(n + 1 - b)
                          for x in range(n + 1 - b - c)])
        lo, hi = newcombe(cells)
        for i in random.Random(n).sample(range(len(cells)), 50):
            ours = bed._newcombe_interval(*map(int, cells[i]))
            assert abs(ours.lo - lo[i]) < 1e-12 and abs(ours.hi - hi[i]) < 1e-12
        boot = ideal_bootstrap(n)
        bl, bh = np.array([boot[int(b), int(c)] for _, c, b, _ in cells]).T
        score = np.array([oracle.score_takes_over(n, int(c + b))
                          for _, c, b, _ in cells])
        exact = {}                      # (a_only, b_only): the interval
        for b in range(n + 1):          # McNemar's test inverts; (b, a)'s
            for a in range(min(b, n - b) + 1):       # is minus (a, b)'s
                exact[a, b] = bed._mcnemar_interval(a, b, n)
                exact[b, a] = bed.Interval(-exact[a, b].hi, -exact[a, b].lo)
        el, eh = np.array([exact[int(c), int(b)] for _, c, b, _ in cells]).T
        cp = np.array([bed._clopper_pearson(k, n) for k in range(n + 1)])
        k = np.arange(n + 1)
        for n_, acc, corr, gap in small_designs():
            if n_ != n:
                continue
            d = bed._copula_design(acc, acc + gap, corr)
            both = acc - d.p10
            p = np.maximum([both, d.p10, d.p01, 1 - both - d.p10 - d.p01], 0)
            log_w = gammaln(n + 1) - gammaln(cells + 1).sum(1) + (
                cells * np.log(np.where(p > 0, p, 1))).sum(1)
            w = np.where(((cells > 0) & (p == 0)).any(1), 0, np.exp(log_w))
            truth = d.p01 - d.p10
            inside = lambda a, b: (a <= truth + 1e-12) & (truth - 1e-12 <= b)
            newc, bootc = inside(lo, hi), inside(bl, bh)
            rows["paired: McNemar's inverted (ours)"].append(
                (w * inside(el, eh)).sum())
            rows["paired: Newcombe or bootstrap (before)"].append(
                (w * np.where(score, newc, bootc)).sum())
            widths["exact"].append((w * (eh - el)).sum())
            widths["before"].append((w * np.where(score, hi - lo,
                                                  bh - bl)).sum())
            widths["Newcombe"].append((w * (hi - lo)).sum())
            disagree = (((el > 0) | (eh < 0))
                        != ((np.where(score, lo, bl) > 0)
                            | (np.where(score, hi, bh) < 0)))
            widths["verdicts parted before"].append((w * disagree).sum())
            rows["paired: bootstrap alone"].append((w * bootc).sum())
            rows["paired: Newcombe alone"].append((w * newc).sum())
            for acc_s in (acc, acc + gap):
                pk = stats.binom.pmf(k, n, acc_s)
                rows["system: Clopper-Pearson (ours)"].append(
                    (pk * ((cp[:, 0] <= acc_s) & (acc_s <= cp[:, 1]))).sum())
                wl, wh = wilson(k, n)
                rows["system: Wilson"].append(
                    (pk * ((wl <= acc_s) & (acc_s <= wh))).sum())
            rows["_cell"].append((n, acc, corr, gap))
    cellnames = rows.pop("_cell")
    print(f"{'interval':<32} {'worst':>7} {'mean':>7}  {'cells < 93.5%':>13}"
          f"  worst cell (n, acc, corr, gap)")
    for name, values in rows.items():
        v = np.array(values)
        where = cellnames[int(v.argmin()) // (2 if "system" in name else 1)]
        print(f"{name:<32} {100 * v.min():>6.1f}% {100 * v.mean():>6.1f}%  "
              f"{int((v < 0.935).sum()):>13}  {where}")
    ratio = np.array(widths["exact"])
    for other in ("before", "Newcombe"):
        r = ratio / np.array(widths[other])
        print(f"width of McNemar's inverted / {other}: mean {r.mean():.3f}, "
              f"range {r.min():.3f}-{r.max():.3f}")
    parted = np.array(widths["verdicts parted before"])
    print(f"chance the interval before and the one now differ on leaving "
          f"out 0: mean {100 * parted.mean():.2f}%, at most "
          f"{100 * parted.max():.2f}%")
    by_n = collections.defaultdict(list)
    for (n, *_), e, b in zip(cellnames, widths["exact"], widths["before"]):
        by_n[n].append(e / b)
    print("  width ratio (now / before) by items: " + ", ".join(
        f"{n}: {np.mean(v):.3f}" for n, v in sorted(by_n.items())))
    if only_binary:
        return
    # The tool's own path, resampled, beside scipy's bootstrap, a few cells
    print(f"\nthe tool's compare path by simulation, {replays} replays "
          f"(Monte Carlo s.e. about {100 * math.sqrt(0.05 * 0.95 / replays):.1f}"
          f" points), scipy.stats.bootstrap (paired percentile) beside it:")
    for n, acc, corr, gap in ((10, 0.95, 0.9, 0.03), (30, 0.85, 0.5, 0.05),
                              (30, 0.9, 0.5, 0.05), (200, 0.95, 0.5, 0.03),
                              (200, 0.7, 0.5, 0.05)):
        rng = random.Random(n * 1000 + int(acc * 100))
        ours = theirs = 0
        truth = gap
        for _ in range(replays):
            pairs = bed.simulate(rng, n, corr=corr, acc_a=acc, acc_b=acc + gap)
            a, b = [x for x, _ in pairs], [y for _, y in pairs]
            r = bed._compare_metric(a, b, random.Random(rng.random()),
                                    bed._Options(resamples=1000))
            ours += r.ci_paired.lo - 1e-12 <= truth <= r.ci_paired.hi + 1e-12
            res = stats.bootstrap((np.array(a), np.array(b)),
                                  lambda x, y: np.mean(y) - np.mean(x),
                                  paired=True, method="percentile",
                                  n_resamples=1000,
                                  random_state=rng.randrange(2 ** 32))
            ci = res.confidence_interval
            theirs += ci.low - 1e-12 <= truth <= ci.high + 1e-12
        print(f"  n={n:<4} acc {acc} corr {corr} gap {gap}: ours "
              f"{100 * ours / replays:.1f}%, scipy percentile "
              f"{100 * theirs / replays:.1f}%")
    # Continuous paired differences at 10 to 40 items
    shapes = {
        "normal": lambda r: (r.random(), None, r.gauss(0.05, 0.2)),
        "bounded": lambda r: (r.random(), r.gauss(0, 0.15), r.gauss(0, 0.15)),
        "lognormal": lambda r: (r.random(), None, r.lognormvariate(0, 1)
                                - math.exp(0.5) + 0.05),
    }

    def pair(r, shape):
        q, e, f = shapes[shape](r)
        if e is None:
            return q, q + f
        return (min(1, max(0, q + e)), min(1, max(0, q + 0.05 + f)))

    print(f"\ncontinuous paired differences, {replays} replays: ours "
          f"(expanded percentile below 100 items), the plain percentile "
          f"(scipy), t")
    for shape in shapes:
        r0 = random.Random(1)
        truth = (0.05 if shape != "bounded" else
                 sum(b - a for a, b in (pair(r0, shape)
                                        for _ in range(400000))) / 400000)
        for n in (10, 15, 20, 30, 40):
            rng = random.Random(n)
            ours = plain = tee = 0
            for _ in range(replays):
                ps = [pair(rng, shape) for _ in range(n)]
                a, b = [x for x, _ in ps], [y for _, y in ps]
                res = bed._compare_metric(a, b, random.Random(rng.random()),
                                          bed._Options(resamples=2000))
                ours += res.ci_paired.lo <= truth <= res.ci_paired.hi
                d = np.array(b) - np.array(a)
                ci = stats.bootstrap((d,), np.mean, method="percentile",
                                     n_resamples=2000, random_state=rng.randrange(
                                         2 ** 32)).confidence_interval
                plain += ci.low <= truth <= ci.high
                half = stats.t.ppf(0.975, n - 1) * d.std(ddof=1) / math.sqrt(n)
                tee += abs(d.mean() - truth) <= half
            print(f"  {shape:<9} n={n:<3} ours {100 * ours / replays:5.1f}%  "
                  f"percentile {100 * plain / replays:5.1f}%  "
                  f"t {100 * tee / replays:5.1f}%", flush=True)
    # Bradley-Terry ratings read together
    print(f"\nBradley-Terry ratings all covered at once, {replays // 2} "
          f"replays, 80 battles a system, a fifth of them ties (each a half "
          f"win in expectation): each interval alone, --joint-intervals")
    for size in (5, 8):
        elo = [1000 + 40 * k for k in range(size)]
        truth = [x - sum(elo) / size + 1000 for x in elo]
        strengths = [x / bed._ELO for x in elo]
        rng = random.Random(size)
        held = [0, 0]
        for _ in range(replays // 2):
            cells = collections.Counter()
            for _ in range(80 * size):
                i, j = rng.sample(range(size), 2)
                p_j = 1 / (1 + math.exp(strengths[i] - strengths[j]))
                cells[i, j, 0.5 if rng.random() < 0.2 else float(
                    rng.random() < (p_j - 0.1) / 0.8)] += 1
            cells = [(i, j, x, c) for (i, j, x), c in cells.items()]
            seed = rng.getrandbits(64)
            for k, joint in enumerate((False, True)):
                r = bed._rank_preferences(
                    cells, random.Random(seed), [str(s) for s in range(size)],
                    bed._Options(resamples=400, joint_intervals=joint))
                held[k] += all(ci.lo <= t <= ci.hi
                               for ci, t in zip(r.cis, truth))
        print(f"  {size} systems: each alone {100 * held[0] / (replays // 2):.1f}%"
              f", joint {100 * held[1] / (replays // 2):.1f}%", flush=True)


def winner_cases(replays=300, n=300):
    """Issue 37: K candidates against one baseline (0/1 items sharing a
    difficulty): how often the best candidate's own interval, and the
    simultaneous one and the hybrid one (compare's "accounting for the
    choice"), cover the best candidate's true gain; the best's observed
    gain minus its true gain on average; and how often the hybrid's
    median-unbiased estimate is at or above the truth (50% if it is)."""
    print(f"\nbest of K candidates, {n} items, {replays} replays: the "
          f"picked candidate's true gain covered by its own interval, the "
          f"simultaneous one and the hybrid one; all K covered at once; the "
          f"pick's bias; the hybrid estimate at or above the truth")
    z = statistics.NormalDist()
    for label, gains in (("K=5, all equal to the baseline", [0.0] * 5),
                         ("K=25, all equal", [0.0] * 25),
                         ("K=5, one +3 pts among close", [0.03, 0.01, 0.01,
                                                           0.0, 0.0]),
                         ("K=25, one +3 pts among close", [0.03] + [0.01] * 8
                          + [0.0] * 16)):
        rng = random.Random(len(gains) * 7 + int(gains[0] * 100))
        own = joint = every = hybrid = above = 0
        bias = 0.0
        cuts = [z.inv_cdf(0.7 + g) for g in [0.0] + gains]
        for _ in range(replays):
            tally = collections.Counter()
            for _ in range(n):
                shared = rng.gauss(0, 1)
                tally[tuple(int(0.5 * shared + 0.75 ** 0.5 * rng.gauss(0, 1)
                                < cut) for cut in cuts)] += 1
            b = bed._best_of(tally, rng, bed._Options(resamples=1000))
            k = b.best
            pair = collections.Counter()
            for key, count in tally.items():
                pair[key[0], key[k + 1]] += count
            r = bed._compare_tally(pair, rng, bed._Options(resamples=1000))
            truth = gains[k]
            own += r.ci_paired.lo <= truth <= r.ci_paired.hi
            joint += b.joint[k].lo <= truth <= b.joint[k].hi
            every += all(c.lo <= g <= c.hi for c, g in zip(b.joint, gains))
            bias += float(b.gains[k]) - truth
            hybrid += b.hybrid[1].lo <= truth <= b.hybrid[1].hi
            above += b.hybrid[0] >= truth
        print(f"  {label:<32} own {100 * own / replays:5.1f}%  simultaneous "
              f"{100 * joint / replays:5.1f}%  hybrid "
              f"{100 * hybrid / replays:5.1f}%  all at once "
              f"{100 * every / replays:5.1f}%  bias {100 * bias / replays:+.2f}"
              f" pts  estimate >= truth {100 * above / replays:4.1f}%",
              flush=True)


def runs_cases(replays=400, n=300):
    """Issue 37: several runs of each system (0/1 items crossed with runs,
    each run drawing every answer afresh, plus a run-wide shock): how
    often one new run of each lands inside compare --runs's prediction
    interval, beside the first runs' item-only interval."""
    print(f"\nruns: {n} items, {replays} replays: the gap one new run of "
          f"each shows, covered by the prediction interval and by the first "
          f"runs' item-only interval")
    for runs, shock in (((2, 2), 0.0), ((3, 3), 0.01), ((5, 5), 0.02),
                        ((2, 5), 0.01)):
        rng = random.Random(sum(runs) * 100 + int(shock * 1000))
        ours = naive = 0
        sd = []
        for _ in range(replays):
            tally, draw = designs.crossed_runs(rng, n, runs, shock=shock)
            q = bed._run_noise(tally, runs)
            new_a, new_b = draw()
            new = (sum(new_b) - sum(new_a)) / n
            ours += q.one_run.lo <= new <= q.one_run.hi
            naive += q.naive.lo <= new <= q.naive.hi
            sd.append(q.run_sd[0])
        print(f"  runs {runs[0]} and {runs[1]}, run shock SD {shock:.2f}: "
              f"run-to-run SD of a run's mean about "
              f"{100 * statistics.median(sd):.1f} pts; prediction "
              f"{100 * ours / replays:.1f}%, item-only "
              f"{100 * naive / replays:.1f}%", flush=True)
    print(f"\nruns (issue 44): 500 items, {replays} replays: the system gap "
          f"covered by compare --runs's interval and by the items-only one")
    options = bed._Options(resamples=200)
    for runs in (2, 3, 5):
        for shift, spread in ((0.02, 0.0), (0.02, 0.15), (0.0, 0.0),
                              (0.0, 0.15)):
            rng = random.Random(runs * 100 + int(shift * 1000) + int(
                spread * 100))
            ours = items = 0
            for _ in range(replays):
                tally = designs.shifted_runs(rng, 500, (runs, runs),
                                             shift=shift, spread=spread)
                averaged = collections.Counter()
                for values, count in tally.items():
                    averaged[bed._mean_of(values[:runs]),
                             bed._mean_of(values[runs:])] += count
                r = bed._compare_tally(averaged, rng, options,
                                       bed._Metric(kind="continuous"))
                q = bed._with_run_noise(r, bed._run_noise(tally,
                                                          (runs, runs)))
                ours += q.ci_paired.lo <= 0.02 <= q.ci_paired.hi
                items += r.ci_paired.lo <= 0.02 <= r.ci_paired.hi
            print(f"  {runs} runs of each, shift SD {100 * shift:.0f} pts, "
                  f"item gaps {'vary' if spread else 'alike'}: with runs "
                  f"{100 * ours / replays:.1f}%, items only "
                  f"{100 * items / replays:.1f}%", flush=True)


def parquet_cases(folder, rows=100_000):
    """Time reading a lighteval details file's metric columns (and the
    example and gold that name its items) by the module's standard-library
    Parquet reader against pyarrow reading the same columns to Python
    lists; CPU seconds, each the best of three.  Skipped without pyarrow."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        print("parquet: skipped (no pyarrow)")
        return
    rng = random.Random(48)
    vocabulary = [f"w{i}" for i in range(2000)]
    path = os.path.join(folder, "details_lighteval|bench|0_2026-01-01T00-00-00.parquet")
    table = pa.table({
        "example": [f"Question {i}: " + "words " * rng.randint(5, 40) for i in range(rows)],
        "predictions": [[" ".join(rng.choices(vocabulary, k=rng.randint(30, 120)))]
                        for _ in range(rows)],
        "gold": [[str(i % 97)] for i in range(rows)],
        "metrics": [{"acc": float(rng.random() < 0.6), "em": rng.random() < 0.5,
                     "judge": None if i % 7 == 0 else rng.random()} for i in range(rows)]})
    pq.write_table(table, path, compression="snappy")
    columns = ["metrics", "example", "gold"]
    footer = bed._parquet_footer(path)

    def cpu(fn):
        best = math.inf
        for _ in range(3):
            start = time.process_time()
            fn()
            best = min(best, time.process_time() - start)
        return best
    ours = cpu(lambda: bed._parquet_rows(bed._parquet_footer(path), ["metrics"]))
    theirs = cpu(lambda: pq.read_table(path, columns=["metrics"]).to_pydict())
    assert bed._parquet_rows(footer, columns) == pq.read_table(path, columns=columns).to_pydict()
    print(f"parquet: {rows:,} rows, {os.path.getsize(path) / 1e6:.1f} MB, SNAPPY")
    row("metric columns (a group of 3)", ours, theirs)
    ours = cpu(lambda: bed._parquet_rows(bed._parquet_footer(path), columns))
    theirs = cpu(lambda: pq.read_table(path, columns=columns).to_pydict())
    row("metrics, example and gold", ours, theirs)
    whole = cpu(lambda: bed._read_run(path))
    print(f"  the lighteval reader's records, read whole: {whole:.2f} s CPU")


def store_cases(folder, items=10 ** 6):
    """Save a 10^6-item run in a run store, read it back whole, and compare
    a second run with it from the store (compare --store), against the same
    compare of the two files: what the store adds to a CI step."""
    rng = random.Random(1)
    paths = []
    for name in ("base", "cand"):
        path = os.path.join(folder, f"{name}.csv")
        with open(path, "w") as f:
            f.write("id,acc,score\n")
            f.writelines(f"q{i},{int(rng.random() < 0.7)},"
                         f"{rng.random():.4f}\n" for i in range(items))
        paths.append(path)
    db = os.path.join(folder, "evals.db")

    def cpu(fn):
        start = time.process_time()
        fn()
        return time.process_time() - start
    with bed._Store(db) as store:
        saved = cpu(lambda: store.save(paths[0], "base"))
        back = cpu(lambda: store.extract(1, os.path.join(folder, "out")))
        store.accept(1)
    size = os.path.getsize(paths[0])
    print(f"store: a {items:,}-item run ({size / 2 ** 20:.1f} MiB) saved in "
          f"{saved:.2f} s CPU, {os.path.getsize(db) / 2 ** 20:.1f} MiB in the "
          f"store; read back in {back:.2f} s CPU")
    plain, _ = process_cost([sys.executable, bed.__file__, "compare",
                             paths[0], paths[1], "--quiet", "--json"])
    stored, _ = process_cost([sys.executable, bed.__file__, "compare",
                              paths[1], "--quiet", "--json", "--store", db])
    print(f"  compare of the two files {plain:.2f} s CPU; the same against "
          f"the store's baseline, saving the run and the comparison "
          f"{stored:.2f} s ({stored / plain:.2f}x)")


def hostile_cases(folder):
    """Issue 62's budgets, whole processes (CPU seconds and peak memory):
    check on 30 rows of 3,000 and 30,000 columns (quadratic in the columns
    before: 0.9 and 33 s CPU); a Parquet file of 300 bytes whose RLE pages
    claim 10^6 rows (23 s and 1.2 GB before, now refused); a one-line JSON
    array of 2 x 10^6 records beside the same records as JSON Lines (the
    array parsed whole, twice, before: 9.6 s CPU and 1.47 GB peak)."""
    import pathlib
    from test_budgets import lying

    def cost(argv):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = subprocess.run(argv, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        return (after.ru_utime - before.ru_utime + after.ru_stime
                - before.ru_stime), child.returncode, child.stderr.strip()
    rng = random.Random(62)
    for columns in (3000, 30000):
        path = os.path.join(folder, f"wide{columns}.csv")
        with open(path, "w") as f:
            f.write("id," + ",".join(f"m{j}" for j in range(columns)) + "\n")
            for i in range(30):
                f.write(f"q{i}," + ",".join(str(rng.randint(0, 1))
                                            for _ in range(columns)) + "\n")
        cpu, status, _ = cost([sys.executable, bed.__file__, "check", path])
        print(f"hostile: check, 30 rows x {columns:,} columns: {cpu:.2f} s "
              f"CPU (exit {status})")
    path = lying(pathlib.Path(folder), 10 ** 6)
    argv = [sys.executable, bed.__file__, "compare", path, path]
    cpu, status, said = cost(argv)
    print(f"hostile: Parquet of {os.path.getsize(path)} bytes claiming "
          f"10^6 rows: {cpu:.2f} s CPU, exit {status}: {said[:90]}...")
    records = [{"id": f"q{i}", "acc": rng.randint(0, 1), "subject": f"s{i % 7}"}
               for i in range(2 * 10 ** 6)]
    for kind in ("json", "jsonl"):
        paths = []
        for name in ("base", "cand"):
            paths.append(os.path.join(folder, f"{name}.{kind}"))
            with open(paths[-1], "w") as f:
                if kind == "json":
                    json.dump(records, f)
                else:
                    f.writelines(json.dumps(r) + "\n" for r in records)
        argv = [sys.executable, bed.__file__, "compare", *paths, "--quiet"]
        cpu, status, _ = cost(argv)
        print(f"hostile: compare of two {kind} files of 2 x 10^6 records: "
              f"{cpu:.2f} s CPU, {peak_megabytes(argv):.0f} MB peak")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("article", "scale", "plan", "rank",
                                           "saddle", "corpus", "preferences",
                                           "sequential", "calibration", "bycounts",
                                           "grouped", "sizes", "join", "judged",
                                           "small", "winners", "runs", "parquet",
                                           "peers", "battles", "issue49",
                                           "store", "hostile", "all"),
                        default="all")
    parser.add_argument("--battles", type=int, default=2 * 10 ** 6,
                        help="battles of the preferences part")
    parser.add_argument("--systems", type=int, default=150)
    parser.add_argument("--rounds", type=int, default=1000,
                        help="bootstrap rounds of the preferences part")
    parser.add_argument("--notebook-rounds", type=int, default=5,
                        help="rounds the notebook's recipe is timed over")
    parser.add_argument("--peer-python", default=sys.executable,
                        help="the interpreter that runs the peers' scripts")
    parser.add_argument("--replays", type=int, default=bed.REPLAYS)
    parser.add_argument("--peer-runs", type=int, default=3,
                        help="paired whole-process runs of the peers part")
    parser.add_argument("--resamples", type=int, default=10000,
                        help="resamples of the scale part")
    parser.add_argument("--largest", type=int, default=10 ** 6,
                        help="skip scale cases with more items")
    parser.add_argument("--wide-rows", type=int, default=10 ** 7)
    parser.add_argument("--join-rows", type=int, default=10 ** 6,
                        help="items of each run in the join part")
    parser.add_argument("--sizes", type=int, nargs="+", default=SIZES,
                        help="N_ITEMS of the sizes part")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    if args.part in ("article", "all"):
        print(f"{'case':<38} {'ours':>11} {'straightforward':>12} "
              f"{'ratio':>9}   (replays={args.replays})")
        bootstrap_cases()
        slow, t_slow = timed(oracle.default_run, replays=args.replays)
        for jobs in (1, 2) if bed._can_fork() else (1,):
            fast, t_fast = timed(fast_default_run, args.replays, jobs)
            assert same_numbers(fast, slow), "default run numbers differ"
            row(f"default run, jobs={jobs}", t_fast, t_slow)
        print("all numbers identical to the straightforward implementation")
    if args.part in ("sizes", "all"):
        size_cases(args.sizes)
    if args.part in ("plan", "all"):
        plan_cases()
    if args.part in ("rank", "all"):
        with tempfile.TemporaryDirectory() as folder:
            rank_cases(folder, args.resamples,
                       [("binary", 10 ** 5, 10), ("continuous", 10 ** 4, 10),
                        ("continuous", 10 ** 5, 3),
                        ("continuous", 10 ** 5, 10)])
    if args.part in ("saddle", "all"):
        saddle_accuracy()
        saddle_coverage()
        with tempfile.TemporaryDirectory() as folder:
            saddle_speed(folder, args.resamples)
    if args.part in ("corpus", "all"):
        with tempfile.TemporaryDirectory() as folder:
            corpus_cases(folder, args.resamples)
    if args.part in ("sequential", "all"):
        with tempfile.TemporaryDirectory() as folder:
            sequential_cases(folder)
    if args.part in ("peers", "issue49", "all"):
        with tempfile.TemporaryDirectory() as folder:
            peer_cases(folder, runs=args.peer_runs)
    if args.part in ("grouped", "all"):
        with tempfile.TemporaryDirectory() as folder:
            grouped_cases(folder)
    if args.part in ("bycounts", "all"):
        by_counts_cases(args.replays)
    if args.part in ("bycounts", "issue49", "all"):
        with tempfile.TemporaryDirectory() as folder:
            by_counts_processes(folder)
    if args.part in ("battles", "issue49", "all"):
        with tempfile.TemporaryDirectory() as folder:
            battle_cases(folder, rounds=args.rounds)
    if args.part in ("calibration", "all"):
        calibration_cases(args.replays)
    if args.part in ("judged", "all"):
        judged_cases(min(args.replays, 200))
    if args.part in ("small", "all"):
        small_cases(min(args.replays, 400))
    if args.part in ("winners", "all"):
        winner_cases(min(args.replays, 300))
    if args.part in ("runs", "all"):
        runs_cases(min(args.replays, 400))
    if args.part in ("parquet", "all"):
        with tempfile.TemporaryDirectory() as folder:
            parquet_cases(folder)
    if args.part in ("hostile", "all"):
        with tempfile.TemporaryDirectory() as folder:
            hostile_cases(folder)
    if args.part in ("preferences", "all"):
        with tempfile.TemporaryDirectory() as folder:
            preference_cases(folder, args.battles, args.systems, args.rounds,
                             args.peer_python, args.notebook_rounds)
    if args.part in ("store", "all"):
        with tempfile.TemporaryDirectory() as folder:
            store_cases(folder)
    if args.part in ("join", "all"):
        with tempfile.TemporaryDirectory() as folder:
            join_cases(folder, args.join_rows)
    if args.part in ("scale", "all"):
        resampling_only(args.resamples)
        with tempfile.TemporaryDirectory() as folder:
            scale_cases(folder, args.resamples, args.largest)
            wide_csv_memory(folder, args.wide_rows)


if __name__ == "__main__":
    main()
