"""The straightforward algorithms the fast paths must match exactly.

Every index is one rng.randrange(n) call and every sum is a plain loop,
the way one would first write them.  They are slow on purpose: the tests
run them on small sizes and tests/benchmark.py times them on the default
run.
"""
import collections
import math
import random
from fractions import Fraction
from statistics import NormalDist


def written(x):
    """The value as written: a float is the decimal it prints as."""
    return Fraction(repr(x)) if isinstance(x, float) else Fraction(x)


def simulate(rng, n, corr, acc_a, acc_b):
    """Latent difficulty shared by both systems; 0/1 outcome pairs."""
    za = NormalDist().inv_cdf(acc_a)
    zb = NormalDist().inv_cdf(acc_b)
    noise = math.sqrt(1 - corr * corr)
    items = []
    for _ in range(n):
        shared = rng.gauss(0, 1)
        a = corr * shared + noise * rng.gauss(0, 1)
        b = corr * shared + noise * rng.gauss(0, 1)
        items.append((1 if a < za else 0, 1 if b < zb else 0))
    return items


def system_counts(outcomes, rng, resamples):
    n = len(outcomes)
    counts = []
    for _ in range(resamples):
        total = 0
        for _ in range(n):
            total += outcomes[rng.randrange(n)]
        counts.append(total)
    return counts


def paired_deltas(pairs, rng, resamples):
    n = len(pairs)
    deltas = []
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        deltas.append(sum(pairs[i][1] - pairs[i][0] for i in picks))
    return deltas


def unpaired_deltas(pairs, rng, resamples):
    n = len(pairs)
    deltas = []
    for _ in range(resamples):
        a_picks = [rng.randrange(n) for _ in range(n)]
        b_picks = [rng.randrange(n) for _ in range(n)]
        deltas.append(sum(pairs[i][1] for i in b_picks)
                      - sum(pairs[i][0] for i in a_picks))
    return deltas


def percentile(values, confidence):
    """Sorted values at int(tail*B) and int((1-tail)*B), as the article."""
    ordered = sorted(values)
    tail = (1 - confidence) / 2
    return (ordered[int(tail * len(ordered))],
            ordered[int((1 - tail) * len(ordered))])


def mcnemar_p(pairs):
    """Exact two-sided McNemar p by summing binomial probabilities."""
    a_only = sum(1 for a, b in pairs if a == 1 and b == 0)
    b_only = sum(1 for a, b in pairs if a == 0 and b == 1)
    m = a_only + b_only
    tail = Fraction(0)
    for i in range(min(a_only, b_only) + 1):
        tail += Fraction(math.factorial(m),
                         math.factorial(i) * math.factorial(m - i)) / 2 ** m
    return a_only, b_only, min(Fraction(1), 2 * tail)


def coverage(rng, replays, n, corr, acc_a, acc_b, resamples, confidence):
    gap = Fraction(str(acc_b)) - Fraction(str(acc_a))
    covered = excludes = 0
    for _ in range(replays):
        pairs = simulate(rng, n, corr, acc_a, acc_b)
        lo, hi = percentile(paired_deltas(pairs, rng, resamples), confidence)
        if Fraction(lo, n) <= gap <= Fraction(hi, n):
            covered += 1
        if lo > 0:
            excludes += 1
    return covered, excludes


def default_run(seed=2026, n=500, corr=0.6, acc_a=0.72, acc_b=0.76,
                resamples=2000, replays=1000, confidence=0.95):
    """The whole default run, one index at a time; returns its numbers."""
    rng = random.Random(seed)
    pairs = simulate(rng, n, corr, acc_a, acc_b)
    ci_a = percentile(system_counts([a for a, _ in pairs], rng, resamples),
                      confidence)
    ci_b = percentile(system_counts([b for _, b in pairs], rng, resamples),
                      confidence)
    ci_paired = percentile(paired_deltas(pairs, rng, resamples), confidence)
    ci_unpaired = percentile(unpaired_deltas(pairs, rng, resamples),
                             confidence)
    return {
        "pairs": pairs,
        "ci": (ci_a, ci_b, ci_paired, ci_unpaired),
        "mcnemar": mcnemar_p(pairs),
        "coverage": coverage(rng, replays, n, corr, acc_a, acc_b, resamples,
                             confidence),
    }


def sign_flip_exact(diffs):
    """Every sign pattern of the nonzero differences, counted directly."""
    nonzero = [written(d) for d in diffs if d]
    observed = abs(sum(nonzero))
    hits = 0
    for pattern in range(2 ** len(nonzero)):
        total = sum(d if pattern >> i & 1 else -d
                    for i, d in enumerate(nonzero))
        if abs(total) >= observed:
            hits += 1
    return Fraction(hits, 2 ** len(nonzero))


def sign_flip_monte_carlo(diffs, rng, resamples):
    """Bit i of each random pattern flips the i-th smallest difference."""
    nonzero = sorted(written(d) for d in diffs if d)
    observed = abs(sum(nonzero))
    hits = 0
    for _ in range(resamples):
        bits = rng.getrandbits(len(nonzero))
        total = sum(-d if bits >> i & 1 else d for i, d in enumerate(nonzero))
        if abs(total) >= observed:
            hits += 1
    return Fraction(1 + hits, 1 + resamples)


def block_picks(units, rng, resamples, blocks=8):
    """Yield resamples + 1 resamples of the units, one randrange per pick:
    in *blocks* blocks of as equal sizes as can be, each drawn from a
    generator seeded by 128 bits of rng (as the tool's index path)."""
    g = len(units)
    seeds = [rng.getrandbits(128) for _ in range(blocks)]
    for j, seed in enumerate(seeds):
        block = random.Random(seed)
        for _ in range((resamples + 1) // blocks
                       + (j < (resamples + 1) % blocks)):
            yield [units[block.randrange(g)] for _ in range(g)]


def unit_bootstraps(a, b, labels, rng, resamples, blocks=8):
    """Resample items (labels None) or whole clusters by index.

    Units go in sorted order: items by (a, b), clusters by (items, sum
    of a, sum of b).  resamples + 1 resamples of one randrange per unit,
    in blocks of as equal sizes as can be, each drawn from a generator
    seeded by 128 bits of rng; the means are exact.  Returns A's, B's, paired and unpaired replicates,
    the unpaired one B's mean in resample r minus A's in resample r + 1.
    """
    labels = labels or range(len(a))
    clusters = {}
    for label, x, y in zip(labels, a, b):
        unit = clusters.setdefault(label, [0, 0, 0])
        unit[0] += 1
        unit[1] += written(x)
        unit[2] += written(y)
    units = sorted(tuple(u) for u in clusters.values())
    means = []
    for picks in block_picks(units, rng, resamples, blocks):
        items = sum(u[0] for u in picks)
        means.append((sum(u[1] for u in picks) / items,
                      sum(u[2] for u in picks) / items))
    mean_a = [m[0] for m in means[:-1]]
    mean_b = [m[1] for m in means[:-1]]
    return (mean_a, mean_b, [y - x for x, y in zip(mean_a, mean_b)],
            [means[r][1] - means[r + 1][0] for r in range(resamples)])


def _inverse(m):
    """Gauss-Jordan inverse of a square list-of-lists matrix."""
    k = len(m)
    rows = [list(r) + [float(i == j) for j in range(k)] for i, r in
            enumerate(m)]
    for c in range(k):
        pivot = max(range(c, k), key=lambda r: abs(rows[r][c]))
        rows[c], rows[pivot] = rows[pivot], rows[c]
        top = rows[c][c]
        rows[c] = [x / top for x in rows[c]]
        for r in range(k):
            if r != c and rows[r][c]:
                f = rows[r][c]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[c])]
    return [r[k:] for r in rows]


def _inverse_root(m):
    """M^(-1/2) of a symmetric positive definite matrix by the
    Denman-Beavers iteration (Y -> M^(1/2), Z -> M^(-1/2))."""
    k = len(m)
    y = [list(r) for r in m]
    z = [[float(i == j) for j in range(k)] for i in range(k)]
    for _ in range(60):
        yi, zi = _inverse(y), _inverse(z)
        y, z = ([[(a + b) / 2 for a, b in zip(r, s)] for r, s in zip(y, zi)],
                [[(a + b) / 2 for a, b in zip(r, s)] for r, s in zip(z, yi)])
    return z


def _cr2_forms(labels):
    """The CR2 variance of a mean, the long way: y' M y with
    M = sum over clusters g of c_g c_g' / n^2, c_g = (I - P)' E_g' A_g' 1,
    P = 11'/n the hat matrix of the mean, E_g picking cluster g's rows and
    A_g = (I - H_gg)^(-1/2) (Bell and McCaffrey 2002).  Returns the c_g."""
    n = len(labels)
    forms = []
    for g in sorted(set(labels), key=str):
        rows = [i for i in range(n) if labels[i] == g]
        k = len(rows)
        a = _inverse_root([[float(i == j) - 1 / n for j in range(k)]
                           for i in range(k)])
        weights = [sum(a[i][j] for i in range(k)) for j in range(k)]  # A'1
        c = [0.0] * n
        for w, i in zip(weights, rows):     # E_g' A_g' 1
            c[i] += w
        mean = sum(c) / n                   # then (I - P)'
        forms.append([x - mean for x in c])
    return forms


def clustered_se(values, labels):
    """CR2 the long way (_cr2_forms); CR1 for clusters of one size."""
    n = len(values)
    if len(set(labels)) < 2:
        return 0.0
    total = sum(sum(c * v for c, v in zip(form, values)) ** 2
                for form in _cr2_forms(labels))
    return math.sqrt(max(0.0, total)) / n


def cluster_df(labels, icc=0.0):
    """Bell-McCaffrey degrees of freedom the long way: tr(M W)^2 /
    tr((M W)^2) of the CR2 form M = sum c_g c_g', W the items' working
    covariance (1 on the diagonal, icc within a cluster): with F the
    matrix of the c_g, tr(MW) = tr(F'WF) and tr((MW)^2) = |F'WF|^2."""
    forms = _cr2_forms(labels)
    n = len(labels)

    def weighted(h):                        # W h
        return [sum((1.0 if i == j else icc if labels[i] == labels[j]
                     else 0.0) * h[j] for j in range(n)) for i in range(n)]
    moved = [weighted(h) for h in forms]
    dot = [[sum(x * y for x, y in zip(f, h)) for h in moved] for f in forms]
    return (sum(dot[g][g] for g in range(len(forms))) ** 2
            / sum(x * x for row in dot for x in row))


def icc(values, labels):
    """The one-way ANOVA within-cluster correlation, by its textbook sums
    of squares, truncated to [0, 1)."""
    groups = {}
    for label, x in zip(labels, values):
        groups.setdefault(label, []).append(x)
    n, g = len(values), len(groups)
    if g < 2 or n <= g:
        return 0.0
    mean = sum(values) / n
    msb = sum(len(v) * (sum(v) / len(v) - mean) ** 2
              for v in groups.values()) / (g - 1)
    msw = sum((x - sum(v) / len(v)) ** 2 for v in groups.values()
              for x in v) / (n - g)
    n0 = (n - sum(len(v) ** 2 for v in groups.values()) / n) / (g - 1)
    between = max(0.0, (msb - msw) / n0)
    if between + msw <= 0:
        return 0.0
    return min(between / (between + msw), 1 - 1e-9)


def bca(replicates, estimate, data, statistic, confidence):
    """BCa the textbook way: leave each item out and recompute."""
    from statistics import NormalDist
    ordered = sorted(replicates)
    size = len(ordered)
    below = sum(1 for x in ordered if x < estimate)
    ties = sum(1 for x in ordered if x == estimate)
    share = min(max((below + ties / 2) / size, 0.5 / size), 1 - 0.5 / size)
    z0 = NormalDist().inv_cdf(share)
    exact = [written(x) for x in data]
    jack = [statistic(exact[:i] + exact[i + 1:]) for i in range(len(data))]
    mean = sum(jack) / len(jack)
    num = sum((mean - x) ** 3 for x in jack)
    spread = sum((mean - x) ** 2 for x in jack)
    accel = float(num) / (6 * math.sqrt(spread) ** 3) if spread else 0.0
    ends = []
    for tail in ((1 - confidence) / 2, (1 + confidence) / 2):
        z = z0 + NormalDist().inv_cdf(tail)
        level = NormalDist().cdf(z0 + z / (1 - accel * z))
        ends.append(ordered[min(max(int(level * size), 0), size - 1)])
    return tuple(ends), accel


def bivariate_normal_cdf(h, k, rho, steps=20000):
    """P(X < h, Y < k) as the integral over x < h of phi(x) times
    Phi((k - rho x) / sqrt(1 - rho^2)), composite Simpson from -9."""
    from statistics import NormalDist
    gauss = NormalDist()
    s = math.sqrt(1 - rho * rho)
    lo = -9.0
    width = (h - lo) / steps

    def f(x):
        return gauss.pdf(x) * gauss.cdf((k - rho * x) / s)

    total = f(lo) + f(h)
    for i in range(1, steps):
        total += (4 if i % 2 else 2) * f(lo + i * width)
    return total * width / 3


def mcnemar_power(n, p10, p01, alpha):
    """Every outcome of n paired items, weighted by its probability."""
    from math import comb
    power = Fraction(0)
    rest = 1 - p10 - p01
    for a_only in range(n + 1):
        for b_only in range(n + 1 - a_only):
            m = a_only + b_only
            k = min(a_only, b_only)
            tail = sum(comb(m, i) for i in range(k + 1))
            if min(Fraction(1), Fraction(2 * tail, 2 ** m)) <= alpha:
                ways = comb(n, a_only) * comb(n - a_only, b_only)
                power += Fraction(ways) * (Fraction(p10) ** a_only
                                           * Fraction(p01) ** b_only
                                           * Fraction(rest) ** (n - m))
    return float(power)


def mcnemar_power_by_m(n, p10, p01, alpha):
    """Power summed over m = 0..n discordant pairs, each m afresh: the
    critical value from the exact test in integers, the two tails of
    B's count term by term (floats, via logs)."""
    from math import comb, exp, lgamma, log
    pd = p10 + p01
    q = p01 / pd
    power = 0.0
    for m in range(n + 1):
        if pd >= 1:
            weight = float(m == n)
        else:
            weight = exp(lgamma(n + 1) - lgamma(m + 1) - lgamma(n - m + 1)
                         + m * log(pd) + (n - m) * log(1 - pd))
        if weight < 1e-300:
            continue
        c, below = -1, 0                 # below: sum of C(m, i), i <= c
        while c + 1 < m / 2 and Fraction(2 * (below + comb(m, c + 1)),
                                         2 ** m) <= alpha:
            c += 1
            below += comb(m, c)
        if c < 0:
            continue
        def pmf(k):
            if q in (0.0, 1.0):
                return float(k == (m if q == 1.0 else 0))
            return exp(lgamma(m + 1) - lgamma(k + 1) - lgamma(m - k + 1)
                       + k * log(q) + (m - k) * log(1 - q))
        tail = sum(pmf(k) for k in range(c + 1))
        tail += sum(pmf(k) for k in range(m - c, m + 1))
        power += weight * tail
    return power


def stratified_macro(subsets, rng, resamples, blocks=8):
    """The stratified bootstrap of macro means, one randrange per item.

    *subsets* maps a label to its (a, b) pairs.  For each subset in sorted
    order: resamples + 1 resamples of its own items, in blocks seeded as
    unit_bootstraps seeds them; each resample's macro mean is the plain
    mean of the subsets' resampled means.  Returns A's, B's, paired and
    unpaired replicates (the unpaired: B's in resample r, A's in r + 1).
    """
    per_subset = []
    for label in sorted(subsets):
        items = sorted((written(a), written(b)) for a, b in subsets[label])
        n = len(items)
        per_subset.append([(sum(a for a, _ in picks) / n,
                            sum(b for _, b in picks) / n)
                           for picks in block_picks(items, rng, resamples,
                                                    blocks)])
    s = len(per_subset)
    macro = [(sum(m[r][0] for m in per_subset) / s,
              sum(m[r][1] for m in per_subset) / s)
             for r in range(resamples + 1)]
    a = [m[0] for m in macro[:-1]]
    b = [m[1] for m in macro[:-1]]
    return (a, b, [y - x for x, y in zip(a, b)],
            [macro[r][1] - macro[r + 1][0] for r in range(resamples)])


def stratified_sign_flip(subsets):
    """Every sign pattern of the weighted differences (a / (S n_s))."""
    weighted = []
    s = len(subsets)
    for pairs in subsets.values():
        n = len(pairs)
        weighted += [(written(b) - written(a)) / (s * n) for a, b in pairs
                     if written(b) != written(a)]
    observed = abs(sum(weighted))
    hits = sum(1 for pattern in range(2 ** len(weighted))
               if abs(sum(w if pattern >> i & 1 else -w
                          for i, w in enumerate(weighted))) >= observed)
    return Fraction(hits, 2 ** len(weighted))


def joint_sums(tuples, rng, resamples, blocks=8):
    """Each system's sum over resamples + 1 joint resamples of the items
    (S-tuples), one randrange per item, blocks seeded as unit_bootstraps
    seeds them; items in sorted order."""
    items = sorted(tuple(written(x) for x in t) for t in tuples)
    out = [[] for _ in items[0]]
    for picks in block_picks(items, rng, resamples, blocks):
        for s, column in enumerate(out):
            column.append(sum(p[s] for p in picks))
    return out


def ideal_bootstrap(parts):
    """The exact law of a resampled sum: {S: probability} for S the sum
    over (values, sign) parts of sign * (len(values) draws with
    replacement from values), by convolution, one draw at a time."""
    law = {0: Fraction(1)}
    for values, sign in parts:
        n = len(values)
        one = {}
        for v in values:
            one[sign * v] = one.get(sign * v, 0) + Fraction(1, n)
        for _ in range(n):
            nxt = {}
            for s, p in law.items():
                for v, q in one.items():
                    nxt[s + v] = nxt.get(s + v, 0) + p * q
            law = nxt
    return law


def quantile_of(law, p):
    """The least S with P(S <= S) > p, and P(S < it), P(S <= it)."""
    below = Fraction(0)
    for s in sorted(law):
        if below + law[s] > p:
            return s, below, below + law[s]
        below += law[s]
    raise ValueError("p must be below 1")


def sign_flip_law(values):
    """The exact law of sum(+-v) with fair independent signs."""
    law = {0: Fraction(1)}
    for v in values:
        nxt = {}
        for s, p in law.items():
            for t in (s + v, s - v):
                nxt[t] = nxt.get(t, 0) + p / 2
        law = nxt
    return law


def ratio_bootstrap(sums, sizes):
    """The exact law of sum(sums*) / sum(sizes*) over resamples of the
    clusters, by enumerating every sequence of draws (few clusters)."""
    import itertools
    g = len(sums)
    law = {}
    for picks in itertools.product(range(g), repeat=g):
        r = Fraction(sum(sums[i] for i in picks),
                     sum(sizes[i] for i in picks))
        law[r] = law.get(r, 0) + Fraction(1, g ** g)
    return law


def davidson_loglik(size, games, logs, log_nu):
    """Davidson's log-likelihood of games {(i, j): (i's wins, j's, ties)}."""
    total = 0.0
    for (i, j), (a, b, t) in games.items():
        pi, pj = math.exp(logs[i]), math.exp(logs[j])
        tie = math.exp(log_nu) * math.sqrt(pi * pj)
        d = pi + pj + tie
        total += a * math.log(pi / d) + b * math.log(pj / d) + t * math.log(
            tie / d)
    return total


def davidson_mle(size, games, sweeps=400):
    """Davidson's model fitted the long way: cyclic coordinate ascent, each
    parameter (log-strengths 1.., then log nu; log-strength 0 held at 0)
    by golden-section search on [-8, 8]; centred at the end."""
    x = [0.0] * (size + 1)
    ratio = (math.sqrt(5) - 1) / 2

    def value(k, v):
        y = list(x)
        y[k] = v
        return davidson_loglik(size, games, y[:size], y[size])
    for _ in range(sweeps):
        for k in range(1, size + 1):
            lo, hi = -8.0, 8.0
            for _ in range(60):
                m1, m2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
                if value(k, m1) < value(k, m2):
                    lo = m1
                else:
                    hi = m2
            x[k] = (lo + hi) / 2
    centre = sum(x[:size]) / size
    return [v - centre for v in x[:size]], x[size]


def places(values):
    """Each value's place, 1 for the largest, ties sharing the best of
    theirs, and the worst place each shares: by counting."""
    return ([1 + sum(1 for w in values if w > v) for v in values],
            [sum(1 for w in values if w >= v) for v in values])


def joint_rank_sets(observed, drawn, confidence):
    """Mogstad et al.'s simultaneous rank sets, a pair and a row at a time:
    every difference's bootstrap se, the confidence quantile of each row's
    largest studentized deviation, and the systems surely above and below."""
    size, rows = len(observed), len(drawn)
    pairs = [(j, k) for j in range(size) for k in range(j + 1, size)]
    se = {}
    for j, k in pairs:
        d = [row[j] - row[k] for row in drawn]
        mean = sum(d) / rows
        se[j, k] = math.sqrt(sum((x - mean) ** 2 for x in d)
                             / max(1, rows - 1))
    stats = sorted(max((abs((row[j] - row[k]) - (observed[j] - observed[k]))
                        / se[j, k] for j, k in pairs if se[j, k]),
                       default=0.0) for row in drawn)
    c = stats[min(rows - 1, math.ceil(rows * Fraction(repr(confidence)))
                  - 1)]
    above, below = [0] * size, [0] * size
    for j, k in pairs:
        gap = observed[j] - observed[k]
        if (gap > c * se[j, k]) if se[j, k] else gap > 0:
            below[j] += 1
            above[k] += 1
        elif (-gap > c * se[j, k]) if se[j, k] else gap < 0:
            below[k] += 1
            above[j] += 1
    return [(1 + above[s], size - below[s]) for s in range(size)]


def exact_rank_sets(rows, level, binary=True):
    """Rank sets from exact one-sided tests of every ordered pair (j, k)
    of systems (rows: one tuple of values per item, larger better), Holm's
    step-down over all of them by hand: the one-sided p of "j no better
    than k" by summing binomial probabilities (0/1) or by every sign
    pattern (else), the smallest first, rejecting while p (m - i) < level.
    Returns [(lowest rank, highest rank)] and the systems none is above."""
    size = len(rows[0])
    hypotheses = []
    for j in range(size):
        for k in range(size):
            if j == k:
                continue
            diffs = [written(r[j]) - written(r[k]) for r in rows]
            if binary:
                up = sum(1 for d in diffs if d > 0)
                m = up + sum(1 for d in diffs if d < 0)
                p = sum(Fraction(math.comb(m, i), 2 ** m)
                        for i in range(up, m + 1))
            else:
                nonzero = [d for d in diffs if d]
                total = sum(nonzero)
                p = Fraction(sum(
                    1 for pattern in range(2 ** len(nonzero))
                    if sum(d if pattern >> i & 1 else -d
                           for i, d in enumerate(nonzero)) >= total),
                    2 ** len(nonzero))
            if sum(diffs) <= 0:     # not ahead: not a claim to test
                p = Fraction(1)
            hypotheses.append((p, j, k))
    hypotheses.sort(key=lambda h: h[0])
    m, sure = len(hypotheses), set()
    for i, (p, j, k) in enumerate(hypotheses):
        if not p * (m - i) < level:
            break
        sure.add((j, k))
    sets = [(1 + sum((j, s) in sure for j in range(size)),
             size - sum((s, k) in sure for k in range(size)))
            for s in range(size)]
    return sets, [all((j, s) not in sure for j in range(size))
                  for s in range(size)]


def ppi_mean(y, f, f_unlabelled, z):
    """PPI++'s mean, written out in exact fractions of the values as
    written (float sums only at the square root): the weight cov(y, f) /
    ((1 + n/N) var(f, f~)) clipped to [0, 1] (cov over n, the variance
    over n + N - 1, as ppi-python's ppi_mean_ci takes them), the estimate
    lam mean(f~) + mean(y - lam f), and its normal interval with the two
    parts' variances over their counts.  Returns (estimate, lam, lo, hi).
    """
    y, f, g = ([written(x) for x in v] for v in (y, f, f_unlabelled))
    n, big_n = len(y), len(g)
    my, mf = sum(y) / n, sum(f) / n
    cov = sum((a - my) * (b - mf) for a, b in zip(y, f)) / n
    every = f + g
    mean = sum(every) / len(every)
    var = sum((x - mean) ** 2 for x in every) / (len(every) - 1)
    lam = min(Fraction(1), max(Fraction(0), cov / ((1 + Fraction(n, big_n))
                                                   * var))) if var else 0
    r = [a - lam * b for a, b in zip(y, f)]
    mr, mg = sum(r) / n, sum(g) / big_n
    estimate = lam * mg + mr
    v_r = sum((x - mr) ** 2 for x in r) / n / n
    v_g = lam * lam * sum((x - mg) ** 2 for x in g) / big_n / big_n
    half = z * math.sqrt(v_r + v_g)
    return estimate, lam, float(estimate) - half, float(estimate) + half


def ppi_clustered_se(y, f, g, cy, cg):
    """The clustered standard error of PPI++'s mean (ppi_mean's weight and
    estimate) by the delta method on three means, the judge's on the
    unlabelled items m1, the humans' m2 and the judge's m3 on the
    labelled: their covariance the CR1 sandwich G / (G - 1) sum psi_g
    psi_g' over the clusters, psi_g = ((S1_g - m1 N_g) / N, (S2_g - m2
    n_g) / n, (S3_g - m3 n_g) / n), and theta = lam m1 + m2 - lam m3's
    gradient (lam, 1, -lam) on either side; in fractions."""
    y, f, g = ([written(x) for x in v] for v in (y, f, g))
    lam = ppi_mean(y, f, g, 1.96)[1]
    n, big_n = len(y), len(g)
    m = [sum(g) / big_n, sum(y) / n, sum(f) / n]
    psi = {}
    for c, x in zip(cg, g):
        psi.setdefault(c, [0, 0, 0])[0] += (x - m[0]) / big_n
    for c, a, b in zip(cy, y, f):
        row = psi.setdefault(c, [0, 0, 0])
        row[1] += (a - m[1]) / n
        row[2] += (b - m[2]) / n
    groups = len(psi)
    grad = [lam, 1, -lam]
    cov = [[sum(p[i] * p[j] for p in psi.values()) * Fraction(groups,
                                                            groups - 1)
            for j in range(3)] for i in range(3)]
    return math.sqrt(sum(grad[i] * cov[i][j] * grad[j]
                         for i in range(3) for j in range(3)))


def clopper_pearson(k, n, confidence=0.95):
    """The exact binomial interval by its definition: the p whose upper
    (lower) tail at k, summed term by term with math.comb, is (1 -
    confidence) / 2, found by bisection on p."""
    tail = (1 - confidence) / 2

    def at_least(p):
        return sum(math.comb(n, j) * p ** j * (1 - p) ** (n - j)
                   for j in range(k, n + 1))

    def solve(f, rising):
        lo, hi = 0.0, 1.0
        for _ in range(80):
            mid = (lo + hi) / 2
            if (f(mid) < tail) == rising:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    lower = 0.0 if k == 0 else solve(at_least, True)
    upper = 1.0 if k == n else solve(
        lambda p: 1 - at_least(p) + math.comb(n, k) * p ** k
        * (1 - p) ** (n - k), False)
    return lower, upper



def melded_interval(a_only, b_only, n, confidence=0.95, steps=2000,
                    mid=False):
    """Fay and Lumbard's (2021) interval of p_B - p_A as exact2x2's
    mcnemarExactDP states it, the slow way: with x = b_only of m = a_only
    + b_only discordant items, the lower limit is the smallest Delta whose
    P(T (2B - 1) <= Delta) reaches (1 - confidence) / 2 for either of T ~
    Beta(m, n - m + 1) and Beta(m + 1, n - m), B ~ Beta(x, m - x + 1); the
    upper one the largest whose P(T (2B - 1) >= Delta) does, B ~ Beta(x +
    1, m - x).  Beta laws of integers through binomial sums, T's by
    Simpson's rule over [0, 1] in *steps*, each limit by bisection on
    [-1, 1]; a Beta with a zero shape is its point mass.  *mid*: the mid-p
    form (Fay and Lumbard 2021, section 4; mcnemarExactDP(midp = TRUE)):
    both limits are quantiles of one law, the 50/50 mixtures of the two
    T's and of the two B's, four terms of equal weight."""
    tail = (1 - confidence) / 2
    x, m = b_only, a_only + b_only

    def below(a, b, c):                 # P(Beta(a, b) <= c)
        if a == 0:                      # B = 0
            return 1.0 if c >= 0 else 0.0
        if b == 0:                      # B = 1
            return 1.0 if c >= 1 else 0.0
        if c <= 0 or c >= 1:
            return 0.0 if c <= 0 else 1.0
        k = a + b - 1
        return sum(math.comb(k, j) * c ** j * (1 - c) ** (k - j)
                   for j in range(a, k + 1))

    def expect(f, a, b):                # E f(T), T ~ Beta(a, b)
        if a == 0:
            return f(0.0)
        if b == 0:
            return f(1.0)
        norm = math.factorial(a + b - 1) / (math.factorial(a - 1)
                                            * math.factorial(b - 1))
        h = 1.0 / steps
        total = 0.0
        for i in range(steps + 1):
            t = i * h
            w = 1 if i in (0, steps) else 4 if i % 2 else 2
            total += w * norm * t ** (a - 1) * (1 - t) ** (b - 1) * f(t)
        return total * h / 3

    def at_most(delta, shape, beta):    # P(T (2B - 1) <= delta)
        if beta[0] == 0 and 0 not in shape:     # B = 0: -T <= delta
            return 1 - below(*shape, -delta)
        if beta[1] == 0 and 0 not in shape:     # B = 1: T <= delta
            return below(*shape, delta)

        def given(t):
            if t == 0:
                return 1.0 if delta >= 0 else 0.0
            return below(*beta, (1 + delta / t) / 2)
        return expect(given, *shape)

    shapes = ((m, n - m + 1), (m + 1, n - m))

    def solve(f, level):                # f rising in delta
        lo, hi = -1.0, 1.0
        for _ in range(50):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if f(mid) < level else (lo, mid)
        return (lo + hi) / 2

    if mid:
        def mixed(d):
            return sum(at_most(d, s, beta) for s in shapes
                       for beta in ((x, m - x + 1), (x + 1, m - x))) / 4
        return solve(mixed, tail), solve(mixed, 1 - tail)
    lower = solve(lambda d: max(at_most(d, s, (x, m - x + 1))
                                for s in shapes), tail)
    upper = solve(lambda d: min(at_most(d, s, (x + 1, m - x))
                                for s in shapes), 1 - tail)
    return lower, upper

def binary_intervals(pairs, confidence=0.95):
    """compare's intervals of 0/1 pairs outside the article's run: each
    system's exact interval, and the counts (a_only, b_only, n) whose
    McNemar-compatible interval (melded_interval) is the paired one."""
    n = len(pairs)
    a_only = sum(1 for a, b in pairs if a > b)
    b_only = sum(1 for a, b in pairs if b > a)
    systems = [clopper_pearson(sum(1 for p in pairs if p[s]), n, confidence)
               for s in (0, 1)]
    return systems, (a_only, b_only, n)


def betting(xs, alpha, m, c=0.5):
    """The hedged betting test of Waudby-Smith and Ramdas (2024) by its
    definition, item by item: the predictable plug-in bet of each item
    from the items before it, each gambler's capital as a product, and the
    first item where max(K+, K-) / 2 reaches 1/alpha.  Returns (K+_n,
    K-_n, that item or None, the largest max(K+, K-) / 2)."""
    up = down = 1.0
    first, best = None, 1.0
    seen = []
    for t, x in enumerate(xs, 1):
        s2 = 0.25
        if seen:
            means = [(0.5 + sum(seen[:i])) / (i + 1)
                     for i in range(1, len(seen) + 1)]
            s2 = (0.25 + sum((y - mu) ** 2 for y, mu in zip(seen, means))
                  ) / (len(seen) + 1)
        bet = math.sqrt(2 * math.log(2 / alpha) / (s2 * t * math.log(1 + t)))
        up *= 1 + min(bet, c / m) * (x - m)
        down *= 1 - min(bet, c / (1 - m)) * (x - m)
        seen.append(x)
        hedged = max(up, down) / 2
        best = max(best, hedged)
        if first is None and hedged >= 1 / alpha:
            first = t
    return up, down, first, best


def winner_hybrid(gains, cov_row, best, alpha=0.05, steps=400):
    """Andrews, Kitagawa and McCloskey's hybrid estimate and interval for
    the winner's mean, the plain way: the ends of the selection set found
    by bisecting on "the winner is still the largest" as its value y moves
    (the others held at their parts independent of it), the truncated
    normal's distribution function by Simpson's rule, and each answer by
    bisection over mu.  Returns (estimate, lo, hi)."""
    var = cov_row[best]
    sd, y = math.sqrt(var), gains[best]
    z = [g - c / var * y for g, c in zip(gains, cov_row)]

    def chosen(v):
        return all(z[k] + cov_row[k] / var * v <= v
                   for k in range(len(gains)))

    def edge(far):                        # the last chosen value toward far
        if chosen(far):
            return math.inf if far > y else -math.inf
        inside, outside = y, far
        for _ in range(200):
            mid = (inside + outside) / 2
            inside, outside = (mid, outside) if chosen(mid) else (inside, mid)
        return inside
    lo, hi = edge(y - 50 * sd), edge(y + 50 * sd)
    beta = alpha / 10
    c = NormalDist().inv_cdf(1 - beta / (2 * len(gains)))

    def integral(a, b, mu):
        h = (b - a) / steps
        f = [math.exp(-0.5 * ((a + i * h - mu) / sd) ** 2)
             for i in range(steps + 1)]
        return h / 3 * (f[0] + f[-1] + 4 * sum(f[1:-1:2]) + 2 * sum(f[2:-1:2]))

    def share(mu):
        a, b = max(lo, mu - c * sd), min(hi, mu + c * sd)
        if y <= a or y >= b:
            return 0.0 if y <= a else 1.0
        return integral(a, y, mu) / integral(a, b, mu)

    def solve(target):
        left, right = y - c * sd, y + c * sd
        for _ in range(60):
            mid = (left + right) / 2
            left, right = (mid, right) if share(mid) > target else (left, mid)
        return (left + right) / 2
    tail = (alpha - beta) / (1 - beta) / 2
    return solve(0.5), solve(1 - tail), solve(tail)


def step_up_adjusted(ps, dependent=False):
    """Benjamini-Hochberg's adjusted p of each, straight from its
    definition: min over the p-values at or above it of m p_(j) / j (times
    1 + 1/2 + ... + 1/m for Benjamini-Yekutieli), capped at 1."""
    m = len(ps)
    c = sum(Fraction(1, i) for i in range(1, m + 1)) if dependent else 1
    ranked = sorted(ps)
    return [min(1, min(c * m * ranked[j] / (j + 1) for j in range(m)
                       if ranked[j] >= p)) for p in ps]


def step_up_rejected(ps, q, dependent=False):
    """The hypotheses Benjamini and Hochberg's (1995) procedure rejects:
    the k smallest, k the largest i with p_(i) <= i q / (m c(m))."""
    m = len(ps)
    c = sum(Fraction(1, i) for i in range(1, m + 1)) if dependent else 1
    order = sorted(range(m), key=lambda i: ps[i])
    k = max((i + 1 for i in range(m)
             if ps[order[i]] <= Fraction(i + 1) * q / (m * c)), default=0)
    return set(order[:k])


def score_takes_over(n, discordant):
    """True where a 0/1 difference's headline interval was Newcombe's score
    interval, not the paired bootstrap's, before it was the one McNemar's
    test inverts: below 100 items or 20 discordant ones.  Kept as the rule
    the exact interval is measured against (test_small, benchmark)."""
    return n < 100 or discordant < 20


def exact_item_counts(items):
    """The judge audit's items counted the plain way: every score of every
    item made a Fraction, then the tuples counted."""
    return collections.Counter(tuple((Fraction(h), Fraction(j)) for h, j in item)
                   for item in items)


def stratified_ppi(strata, z):
    """Stratified PPI++ (Fisch et al. 2024) written out: each stratum's
    (y, f, f_unlabelled) corrected on its own by ppi_mean (its own
    weight), weighed by its share of all the items, w_k = (n_k + N_k) /
    sum of them; the variance sum of w_k^2 var_k (the normal one).
    Returns (estimate as a Fraction, se)."""
    total = sum(len(y) + len(g) for y, _, g in strata)
    estimate, variance = Fraction(0), 0.0
    for y, f, g in strata:
        w = Fraction(len(y) + len(g), total)
        est, _, lo, hi = ppi_mean(y, f, g, z)
        estimate += w * est
        variance += float(w) ** 2 * ((hi - lo) / (2 * z)) ** 2
    return estimate, math.sqrt(variance)


def pair_sums(again, spans, shares):
    """Each pair's games, the higher system's wins (its share of each
    battle) and ties, summed cell by cell: the twin of the module's
    strided sums of a Bradley-Terry round."""
    games, won, draws = [], [], []
    for _, _, first, end in spans:
        g, w, t = 0, 0, 0
        for k in range(first, end):
            g += again[k]
            w += shares[k] * again[k]
            if shares[k] == 0.5:
                t += again[k]
        games.append(g)
        won.append(w)
        draws.append(t)
    return games, won, draws


def poisson(rng, mean):
    """A Poisson(mean) draw by sequential search of its distribution
    function (Devroye 1986, X.3.3), one rng.random() each, for small
    means (exp(-mean) must not underflow)."""
    u, k = rng.random(), 0
    chance = math.exp(-mean)
    below = chance
    while below <= u:
        k += 1
        chance *= mean / k
        below += chance
    return k


def melded_lower(x, m, n, tail, positive, bed):
    """The module's melded lower limit as first written: Brent's root of
    the melded distribution function minus *tail* over the whole range
    [0, 1] (or [-1, 0]), the edge cases as the module takes them; the
    twin of the bracket it narrows to 4 standard errors about the normal
    limit."""
    if positive:
        shape, lo, hi = (m, n - m + 1), 0.0, 1.0
    elif x == 0:
        return -1.0 if m == n else -bed._beta_quantile(m + 1, n - m, 1 - tail)
    elif m == n:
        return min(0.0, 2 * bed._beta_quantile(x, m - x + 1, tail) - 1)
    else:
        shape, lo, hi = (m + 1, n - m), -1.0, 0.0

    def gap(delta):
        return bed._melded_cdf(delta, x, m, shape) - tail
    f_lo, f_hi = gap(lo), gap(hi)
    if f_lo >= 0:
        return math.ulp(0.0) if positive else lo
    if f_hi <= 0:
        return hi
    return bed._brent_root(gap, lo, hi, f_lo, f_hi)
