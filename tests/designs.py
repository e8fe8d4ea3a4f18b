"""Simulated evals with a known truth, shared by the calibration tests and
tests/benchmark.py --part calibration."""
import collections
import math


def clustered(rng, count, gap, kind="continuous"):
    """One clustered eval {cluster: Counter of (a, b)}: *count* clusters.

    "continuous": 6 items a cluster, the difference gap + a cluster
    effect N(0, 1) + noise N(0, 1); "unequal": the same with 2, 4, 8, 16
    or 30 items a cluster; "skewed": 6 items, the cluster effect a centred
    lognormal (sigma 1); "binary": 8 items of 0/1 scores, the cluster's
    accuracy N(0.6, 0.15) clipped to [0.05, 0.95], B's that plus *gap*.
    """
    tally = {}
    for g in range(count):
        c = collections.Counter()
        if kind == "binary":
            p = min(0.95, max(0.05, rng.gauss(0.6, 0.15)))
            for _ in range(8):
                u = rng.random()
                c[(int(u < p), int((u if rng.random() < 0.5 else
                                    rng.random()) < p + gap))] += 1
        else:
            size = rng.choice((2, 4, 8, 16, 30)) if kind == "unequal" else 6
            u = (rng.lognormvariate(0, 1) - math.exp(0.5) if kind == "skewed"
                 else rng.gauss(0, 1))
            for _ in range(size):
                c[(0.0, round(gap + u + rng.gauss(0, 1), 9))] += 1
        tally[g] = c
    return tally


def macro(rng, design):
    """Return (tally by subset, the true macro difference) of a design:
    "20 x 6 continuous" (20 subsets of 6 items, true shifts 0, 0.1, 0.2)
    or "0/1 of 10 to 200" (five 0/1 subsets of 10, 20, 40, 80 and 200
    items, B 5 points above A in each)."""
    tally, truth = {}, 0.0
    if design.startswith("20"):
        for s in range(20):
            shift = 0.1 * (s % 3)
            tally[s] = collections.Counter(
                (0.0, round(shift + rng.gauss(0, 1), 6)) for _ in range(6))
            truth += shift / 20
        return tally, truth
    for k, n in enumerate((10, 20, 40, 80, 200)):
        pa, pb = 0.5 + 0.08 * k, 0.55 + 0.08 * k
        c = collections.Counter()
        for _ in range(n):
            u = rng.random()
            c[(int(u < pa), int((u if rng.random() < 0.6 else
                                 rng.random()) < pb))] += 1
        tally[k] = c
        truth += (pb - pa) / 5
    return tally, truth


JUDGES = ("unbiased", "biased", "favours B")


def judged(rng, items, labels, judge, acc=(0.70, 0.74)):
    """One judged eval of two systems: ((A's, B's judge scores), (A's, B's
    human scores, NaN where unlabelled)) on *items* items, *labels* of
    them labelled by a human at random, and the truth (A, B, B - A).

    Each system is right on an item with its accuracy; the human sees the
    truth.  The judge passes a right answer 90% of the time and a wrong
    one: "unbiased", as often as makes its mean the truth's; "biased",
    30% of the time for both systems; "favours B", half the time on a
    long answer and 5% on a short one, B writing long answers 70% of the
    time to A's 20% (the length bias of issue 33's example: the judge's
    gap about 9 points where the truth's is 4).
    """
    marked = set(rng.sample(range(items), labels))
    judges, humans = ([], []), ([], [])
    for i in range(items):
        for s, p in enumerate(acc):
            truth = int(rng.random() < p)
            if judge == "unbiased":
                wrong = 0.1 * p / (1 - p)
            elif judge == "biased":
                wrong = 0.3
            else:
                wrong = 0.5 if rng.random() < (0.2, 0.7)[s] else 0.05
            judges[s].append(float(rng.random() < (0.9 if truth
                                                   else wrong)))
            humans[s].append(float(truth) if i in marked else math.nan)
    return judges, humans, (acc[0], acc[1], acc[1] - acc[0])


def crossed_runs(rng, n, runs, shift=0.02, shock=0.0):
    """0/1 items crossed with runs: item i's chance p_i (B's p_i + shift),
    each run drawing every item afresh, plus a run-wide shock of SD
    *shock* on the chance (a server, a seed).  Returns (tally of (a runs,
    b runs) tuples, draw) where draw() gives one new run of each."""
    p = [rng.random() for _ in range(n)]

    def one(extra):
        bump = rng.gauss(0, shock) if shock else 0.0
        return [int(rng.random() < min(1, max(0, q + extra + bump)))
                for q in p]
    a = [one(0.0) for _ in range(runs[0])]
    b = [one(shift) for _ in range(runs[1])]
    return collections.Counter(zip(*a, *b)), lambda: (one(0.0), one(shift))


def shifted_runs(rng, n, runs, gap=0.02, shift=0.02, spread=0.0):
    """0/1 items crossed with runs, each run shifting all its items: item
    i's chance p_i (uniform on 0.1-0.9; 0.3-0.7 if *spread*) for A and
    p_i + gap (+ or - *spread* at random: the items' own gaps vary) for B,
    each run of each system adding a shift of SD *shift* to every chance
    and drawing every item afresh.  The system gap, over items and runs,
    is *gap* (the chances stay inside 0-1 but past 4 SDs of the shift).
    Returns the tally of (a runs, b runs) tuples."""
    wide = (0.3, 0.7) if spread else (0.1, 0.9)
    p = [rng.uniform(*wide) for _ in range(n)]
    q = [x + gap + (rng.choice((-spread, spread)) if spread else 0.0)
         for x in p]

    def one(chances):
        bump = rng.gauss(0, shift) if shift else 0.0
        return [int(rng.random() < min(1, max(0, c + bump))) for c in chances]
    a = [one(p) for _ in range(runs[0])]
    b = [one(q) for _ in range(runs[1])]
    return collections.Counter(zip(*a, *b))


def judged_lengths(rng, items, labels, lenient_on_long):
    """A judged eval of two systems with each answer's length: (judge
    columns, human columns (NaN where unlabelled), length columns), A
    and B.  B writes longer answers (mean 300 words to A's 150, SD 80).
    Each system is right 72% of the time; the judge passes a right answer
    90% of the time and a wrong one 30% of the time, or, if
    *lenient_on_long*, 5% plus 0.25% per word (80% at 300 words): its
    error then grows with length, which B has more of."""
    marked = set(rng.sample(range(items), labels))
    judges, humans, lengths = ([], []), ([], []), ([], [])
    for i in range(items):
        for s, mean in enumerate((150, 300)):
            words = max(1.0, rng.gauss(mean, 80))
            truth = int(rng.random() < 0.72)
            wrong = (min(1.0, 0.05 + 0.0025 * words) if lenient_on_long
                     else 0.3)
            judges[s].append(float(rng.random() < (0.9 if truth
                                                   else wrong)))
            humans[s].append(float(truth) if i in marked else math.nan)
            lengths[s].append(words)
    return judges, humans, lengths


def bt_battles(rng, strength, battles=800, every=4, favoured=3,
               lean=0.3):
    """Battles among len(strength) systems: the truth drawn from the
    Bradley-Terry law of *strength*, a judge right 80% of the time that
    also gives the *favoured* system a share *lean* of its battles, and
    the human's verdict (the truth) on every *every*-th battle.  Returns
    (judged [(i, j, f)], labelled [(i, j, y, f)])."""
    judged, labelled = [], []
    for b in range(battles):
        i, j = rng.sample(range(len(strength)), 2)
        p = 1 / (1 + math.exp(strength[i] - strength[j]))
        y = float(rng.random() < p)
        f = y if rng.random() < 0.8 else 1 - y
        if favoured in (i, j) and rng.random() < lean:
            f = float(j == favoured)
        if b % every == 0:
            labelled.append((i, j, y, f))
        else:
            judged.append((i, j, f))
    return judged, labelled


def judged_clusters(rng, clusters, size, labels, shock=0.15, spread=0.1,
                    lenient=0.4):
    """A judged eval of two systems whose items come in *clusters* of
    *size* (the questions of a passage, the turns of a conversation):
    (judge columns, human columns (NaN where unlabelled), each item's
    cluster, the true gap).  A cluster moves both systems' chance of a
    right answer by +-shock, the candidate's by +-spread more, and the
    judge passes a wrong answer 0% or *lenient* of the time as the
    cluster falls: so judge, human and gap all err together within a
    cluster.  A is right 70% of the time on average, B 74%; *labels*
    items are labelled at random, whatever their clusters."""
    items = clusters * size
    marked = set(rng.sample(range(items), labels))
    judges, humans, names = ([], []), ([], []), []
    for g in range(clusters):
        u, v = rng.choice((-shock, shock)), rng.choice((-spread, spread))
        wrong = rng.choice((0.0, lenient))
        for k in range(size):
            i = g * size + k
            names.append(f"c{g}")
            for s, p in enumerate((0.70 + u, 0.74 + u + v)):
                truth = int(rng.random() < p)
                judges[s].append(float(rng.random() < (0.9 if truth
                                                       else wrong)))
                humans[s].append(float(truth) if i in marked else math.nan)
    return judges, humans, names, 0.04


def bt_turns(rng, strength, questions=300, turns=3, every=4, rho=0.8,
             favoured=3, lean=0.3):
    """Battles that share questions, as MT-Bench's turns do: each
    question pits a random pair over *turns* battles whose outcomes go
    together (each turn reuses the question's one uniform draw with
    chance *rho*, so each keeps the Bradley-Terry chance of *strength*),
    a judge right 80% of the time that, on a share *lean* of the
    questions, hands every turn to the *favoured* system, and a human's
    verdict (the truth) on a random 1 in *every* battles.  Returns
    (judged [(i, j, f)], labelled [(i, j, y, f)], (the labelled
    battles' questions, the judged's))."""
    judged, labelled, marks = [], [], ([], [])
    for q in range(questions):
        i, j = rng.sample(range(len(strength)), 2)
        p = 1 / (1 + math.exp(strength[i] - strength[j]))
        shared, leaning = rng.random(), rng.random() < lean
        for _ in range(turns):
            u = shared if rng.random() < rho else rng.random()
            y = float(u < p)
            f = y if rng.random() < 0.8 else 1 - y
            if favoured in (i, j) and leaning:
                f = float(j == favoured)
            if rng.random() < 1 / every:
                labelled.append((i, j, y, f))
                marks[0].append(f"q{q}")
            else:
                judged.append((i, j, f))
                marks[1].append(f"q{q}")
    return judged, labelled, marks


def judged_close(rng, items, labels, agree=0.97, corr=0.9, lean=0.1):
    """A judged eval whose judge agrees with the human on most items, so
    the rectifier is 0 on most labelled items: each item has one uniform
    draw u that both systems reuse with chance *corr* (A right where u <
    0.70, B where u < 0.74); the judge gives the truth with chance
    *agree*, and passes a wrong answer of B's with chance *lean* more.
    Returns (judge columns, human columns (NaN where unlabelled), the
    truth (A, B, B - A) of the humans' scores)."""
    marked = set(rng.sample(range(items), labels))
    judges, humans = ([], []), ([], [])
    for i in range(items):
        u = rng.random()
        for s, p in enumerate((0.70, 0.74)):
            truth = int((u if rng.random() < corr else rng.random()) < p)
            said = truth if rng.random() < agree else 1 - truth
            if s == 1 and not said and rng.random() < lean:
                said = 1
            judges[s].append(float(said))
            humans[s].append(float(truth) if i in marked else math.nan)
    return judges, humans, (0.70, 0.74, 0.04)


def judged_scores(rng, items, labels, lean=2):
    """A judged eval on a 0-10 scale: each item's level u in {0.3, 0.5,
    0.7, 0.9}, the human's score Binomial(10, u - 0.05) for A and (10, u)
    for B (true means 5.5 and 6.0), the judge's the human's plus 1 plus a
    step in {-2, -1, 0, 0, 1, 2}, plus *lean* on a long answer (B's 70%
    of the time, A's 20%), clipped to 0-10."""
    marked = set(rng.sample(range(items), labels))
    judges, humans = ([], []), ([], [])
    for i in range(items):
        u = rng.choice((0.3, 0.5, 0.7, 0.9))
        for s, p in enumerate((u - 0.05, u)):
            h = sum(rng.random() < p for _ in range(10))
            j = h + 1 + rng.choice((-2, -1, 0, 0, 1, 2))
            if rng.random() < (0.2, 0.7)[s]:
                j += lean
            judges[s].append(float(min(10, max(0, j))))
            humans[s].append(float(h) if i in marked else math.nan)
    return judges, humans, (5.5, 6.0, 0.5)


def judged_strata(rng, sizes=(1000, 1000), rates=(0.10, 0.01),
                  leans=(0.0, 0.6), acc=(0.70, 0.74)):
    """A judged eval whose labels were drawn at a rate per stratum and
    whose judge errs differently by stratum: stratum k has sizes[k]
    items, round(rates[k] * sizes[k]) of them labelled at random; each
    system is right with its accuracy *acc* everywhere (the human sees
    the truth); the judge passes a right answer 90% of the time and a
    wrong one 10%, and in stratum k a wrong answer of B's with chance
    leans[k] more.  Returns (judge columns, human columns (NaN where
    unlabelled), each item's stratum, the truth (A, B, B - A))."""
    judges, humans, strata = ([], []), ([], []), []
    for k, (size, rate, lean) in enumerate(zip(sizes, rates, leans)):
        marked = set(rng.sample(range(size), round(rate * size)))
        for i in range(size):
            strata.append(f"s{k}")
            for s, p in enumerate(acc):
                truth = rng.random() < p
                said = rng.random() < (0.9 if truth else 0.1)
                if s == 1 and not truth and not said:
                    said = rng.random() < lean
                judges[s].append(float(said))
                humans[s].append(float(truth) if i in marked else math.nan)
    return judges, humans, strata, (acc[0], acc[1], acc[1] - acc[0])
