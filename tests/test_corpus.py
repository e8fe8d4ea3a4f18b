"""Corpus statistics: F1, precision, recall, MCC, ratios and pass@k, with
the paired bootstrap and the approximate randomization test."""
import collections
import itertools
import json
import math
import os
import random
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(__file__)


def confusion_stat(stat, gold, pred, binary=None):
    """The statistic straight from label lists, as scikit-learn defines
    it: binary 0/1 labels give class 1's F1/precision/recall, other labels
    the macro average over the labels in gold or pred; MCC by Gorodkin's
    formula over the confusion matrix; 0 where a ratio is 0/0.  *binary*
    (by default: only 0/1 labels here) is decided once for a comparison,
    over both systems' labels."""
    labels = sorted(set(gold) | set(pred), key=str)
    if binary is None:
        binary = set(labels) <= {0, 1}
    n = len(gold)
    if stat == "mcc":
        c = sum(g == p for g, p in zip(gold, pred))
        t = [gold.count(k) for k in labels]
        q = [pred.count(k) for k in labels]
        cov = c * n - sum(x * y for x, y in zip(t, q))
        den = (n * n - sum(y * y for y in q)) * (n * n - sum(x * x for x in t))
        return cov / math.sqrt(den) if den else 0.0

    def one(k):
        tp = sum(g == k and p == k for g, p in zip(gold, pred))
        fp = sum(g != k and p == k for g, p in zip(gold, pred))
        fn = sum(g == k and p != k for g, p in zip(gold, pred))
        if stat == "precision":
            return Fraction(tp, tp + fp) if tp + fp else Fraction(0)
        if stat == "recall":
            return Fraction(tp, tp + fn) if tp + fn else Fraction(0)
        return (Fraction(2 * tp, 2 * tp + fp + fn) if 2 * tp + fp + fn
                else Fraction(0))

    if binary:
        return one(1)
    return sum(map(one, labels), Fraction(0)) / len(labels)


def table_of(stat, gold, a, b):
    return bed._corpus_table(stat, list(zip(gold, a, b)))


def values(stat, gold, a, b):
    t = table_of(stat, gold, a, b)
    return bed._corpus_values(t, bed._column_sums(t))


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(["f1", "precision", "recall", "mcc"]),
       st.lists(st.tuples(st.integers(0, 3), st.integers(0, 3),
                          st.integers(0, 3)), min_size=1, max_size=30),
       st.booleans())
def test_each_statistic_equals_the_direct_computation(stat, rows, binary):
    if binary:
        rows = [(g % 2, a % 2, b % 2) for g, a, b in rows]
    gold, a, b = (list(x) for x in zip(*rows))
    ours = values(stat, gold, a, b)
    two = set(gold + a + b) <= {0, 1}
    for mine, system in zip(ours, (a, b)):
        direct = confusion_stat(stat, gold, system, two)
        if stat == "mcc":
            assert mine == pytest.approx(direct, abs=1e-12)
        else:
            assert mine == direct


def test_degenerate_cases_are_zero_as_scikit_learn_gives_them():
    gold = [1, 0, 1, 0]
    none = [0, 0, 0, 0]                      # no positive predictions
    assert values("precision", gold, none, none) == (0, 0)
    assert values("f1", gold, none, none) == (0, 0)
    assert values("recall", gold, none, gold) == (0, 1)
    one_class = [1, 1, 1, 1]                 # a single class in gold
    assert values("mcc", one_class, one_class, [1, 0, 1, 1]) == (0.0, 0.0)
    assert values("f1", [0, 0], [0, 0], [0, 0]) == (0, 0)     # no class 1
    assert values("mcc", gold, gold, [1 - g for g in gold]) == (1.0, -1.0)


def test_text_labels_give_the_macro_average():
    gold = ["cat", "dog", "dog", "eel"]
    a = ["cat", "dog", "cat", "cat"]
    f1, _ = values("f1", gold, a, gold)
    # cat 2*1/(2*1 + 2 + 0) = 1/2, dog 2/3, eel 0
    assert f1 == Fraction(7, 18)


def test_ratio_is_sum_over_sum_and_refuses_a_zero_denominator():
    items = [(1.0, 2.0, 2.0, 3.0), (0.5, 1.0, 1.0, 1.0)]
    t = bed._corpus_table("ratio", items)
    assert bed._corpus_values(t, bed._column_sums(t)) == (Fraction(1, 2),
                                                          Fraction(3, 4))
    with pytest.raises(bed.EvalDeltaError, match="denominators is 0"):
        t = bed._corpus_table("ratio", [(1, 0, 1, 0)])
        bed._corpus_values(t, bed._column_sums(t))


# -- resampling and randomization --------------------------------------------

def index_replicates(gold, a, b, resamples, seed, stat):
    """The straightforward bootstrap: one randrange per pick, the
    statistic recomputed from the picked labels."""
    rng = random.Random(seed)
    n = len(gold)
    out = []
    for _ in range(resamples):
        picks = [rng.randrange(n) for _ in range(n)]
        g = [gold[i] for i in picks]
        out.append(confusion_stat(stat, g, [b[i] for i in picks])
                   - confusion_stat(stat, g, [a[i] for i in picks]))
    return out


def homogeneity_z(first, second, bins):
    """Two-sample chi-square z (Wilson-Hilferty) over value bins."""
    edges = sorted(set(first + second))
    cut = [edges[round(i * (len(edges) - 1) / bins)] for i in range(1, bins)]

    def counts(xs):
        c = [0] * bins
        for x in xs:
            c[sum(x > e for e in cut)] += 1
        return c

    o1, o2 = counts(first), counts(second)
    cells = [(x, y) for x, y in zip(o1, o2) if x + y]
    stat = sum((x - y) ** 2 / (x + y) for x, y in cells)
    df = len(cells) - 1
    return (((stat / df) ** (1 / 3) - (1 - 2 / (9 * df)))
            / math.sqrt(2 / (9 * df)))


@pytest.mark.parametrize("stat", [
    "f1", pytest.param("mcc", marks=pytest.mark.slow)])
def test_pattern_resampling_matches_index_resampling_in_distribution(stat):
    # 400 items, 8 (gold, A, B) patterns: each resample is one multinomial
    # draw over the patterns; the oracle picks items one at a time.
    rng = random.Random(3)
    gold = [int(rng.random() < 0.4) for _ in range(400)]
    a = [g if rng.random() < 0.8 else 1 - g for g in gold]
    b = [g if rng.random() < 0.85 else 1 - g for g in gold]
    result = bed._compare_corpus(table_of(stat, gold, a, b), random.Random(1),
                                 bed._Options(resamples=800))
    ours = [float(x) for x in result.draws]
    theirs = [float(x) for x in index_replicates(gold, a, b, 800, 2, stat)]
    assert abs(homogeneity_z(ours, theirs, 12)) < 3


def exact_randomization_p(stat, gold, a, b):
    """p over all 2^n swaps, counted exactly."""
    observed = abs(confusion_stat(stat, gold, b)
                   - confusion_stat(stat, gold, a))
    hits = 0
    for swaps in itertools.product((0, 1), repeat=len(gold)):
        x = [q if s else p for p, q, s in zip(a, b, swaps)]
        y = [p if s else q for p, q, s in zip(a, b, swaps)]
        d = abs(confusion_stat(stat, gold, y) - confusion_stat(stat, gold, x))
        hits += d >= observed * (1 - 1e-12)
    return Fraction(hits, 2 ** len(gold))


@pytest.mark.parametrize("stat,seed", [
    ("f1", 1), pytest.param("mcc", 2, marks=pytest.mark.slow),
    pytest.param("f1", 3, marks=pytest.mark.slow),
    pytest.param("precision", 4, marks=pytest.mark.slow)])
def test_randomization_p_matches_enumeration_of_every_swap(stat, seed):
    rng = random.Random(seed)
    gold = [int(rng.random() < 0.5) for _ in range(12)]
    a = [g if rng.random() < 0.6 else 1 - g for g in gold]
    b = [g if rng.random() < 0.95 else 1 - g for g in gold]
    exact = exact_randomization_p(stat, gold, a, b)
    rounds = 8000
    p = bed._randomization_test(table_of(stat, gold, a, b), random.Random(5),
                               rounds=rounds)
    se = math.sqrt(float(exact) * (1 - float(exact)) / rounds)
    assert abs(float(p) - float(exact)) < 4 * se + 1 / rounds


def test_randomization_by_bits_matches_enumeration_for_many_rows():
    # Distinct ratio rows: one random bit per item (the bit-plane path).
    rng = random.Random(9)
    items = [(rng.randint(0, 9), rng.randint(1, 9), rng.randint(0, 9),
              rng.randint(1, 9)) for _ in range(11)]
    t = bed._corpus_table("ratio", items)
    assert bed._FLIP_GROUPED * len(t.rows) > len(items)

    def ratio_gap(rows):
        sa = sum(r[0] for r in rows), sum(r[1] for r in rows)
        sb = sum(r[2] for r in rows), sum(r[3] for r in rows)
        return Fraction(sb[0], sb[1]) - Fraction(sa[0], sa[1])

    observed = abs(ratio_gap(items))
    hits = sum(abs(ratio_gap([(r[2], r[3], r[0], r[1]) if s else r
                              for r, s in zip(items, swaps)])) >= observed
               for swaps in itertools.product((0, 1), repeat=len(items)))
    exact = hits / 2 ** len(items)
    p = bed._randomization_test(t, random.Random(2), rounds=20000)
    se = math.sqrt(exact * (1 - exact) / 20000)
    assert abs(float(p) - exact) < 4 * se + 1 / 20000


def test_identical_systems_give_p_one_and_a_zero_interval():
    gold = [0, 1, 1, 0, 1]
    r = bed._compare_corpus(table_of("f1", gold, gold, gold), random.Random(1),
                            bed._Options(resamples=100))
    assert r.p == 1 and r.gap == 0 and r.ci_paired == (0, 0)


# -- pass@k ------------------------------------------------------------------

@settings(max_examples=10, deadline=None)
@given(st.integers(1, 9), st.data())
def test_pass_at_k_equals_counting_k_subsets(n, data):
    c = data.draw(st.integers(0, n))
    k = data.draw(st.integers(1, n))
    samples = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    some = Fraction(sum(any(samples[i] for i in s) for s in subsets),
                    len(subsets))
    every = Fraction(sum(all(samples[i] for i in s) for s in subsets),
                     len(subsets))
    assert bed._pass_at(n, c, k) == some
    assert bed._pass_at(n, c, k, every=True) == every
    assert bed._pass_at(n, c, 1) == Fraction(c, n)       # k = 1: the mean


def write_samples(tmp_path, name, results):
    path = tmp_path / name
    path.write_text("".join(json.dumps({"task_id": f"t{i}", "passed": r})
                            + "\n" for i, rs in enumerate(results)
                            for r in rs))
    return str(path)


def test_pass_at_k_from_repeated_records(capsys, tmp_path):
    rng = random.Random(4)
    a = [[int(rng.random() < 0.3) for _ in range(5)] for _ in range(40)]
    b = [[int(rng.random() < 0.5) for _ in range(5)] for _ in range(40)]
    base, cand = (write_samples(tmp_path, f"{n}.jsonl", r)
                  for n, r in (("a", a), ("b", b)))
    assert bed.main(["compare", base, cand, "--id", "task_id", "--stat",
                     "pass@2(passed)", "--stat", "pass@1(passed)",
                     "--resamples", "200", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    got = {m["metric"]: m["observed"] for m in report["metrics"]}
    expect = sum(bed._pass_at(5, sum(r), 2) for r in b) / 40
    assert got["pass@2(passed)"]["b"] == pytest.approx(float(expect))
    assert got["pass@1(passed)"]["a"] == pytest.approx(
        sum(map(sum, a)) / 200)


def test_pass_at_k_names_items_with_too_few_samples(capsys, tmp_path):
    base = write_samples(tmp_path, "a.jsonl", [[1, 0, 1], [1]])
    cand = write_samples(tmp_path, "b.jsonl", [[1, 1, 1], [0, 0, 1]])
    assert bed.main(["compare", base, cand, "--id", "task_id", "--stat",
                     "pass@2(passed)"]) == 2
    err = capsys.readouterr().err
    assert "1 items have fewer than k = 2 samples, e.g. t1 (1)" in err


# -- the command line and lm-eval --------------------------------------------

def lm_eval(name):
    return os.path.join(HERE, "fixtures", "lm-eval", name)


def pairs_of(path, field):
    with open(path) as f:
        return [json.loads(line)[field] for line in f if line.strip()]


def test_lm_eval_cola_mcc_is_compared_as_lm_eval_reports_it(capsys):
    base, cand = lm_eval("samples_cola_base.jsonl"), \
        lm_eval("samples_cola_cand.jsonl")
    assert bed.main(["compare", base, cand, "--json", "--resamples",
                     "300"]) == 0
    report = json.loads(capsys.readouterr().out)
    (entry,) = report["metrics"]
    assert entry["metric"] == "mcc" and entry["type"] == "corpus"
    for side, path in (("a", base), ("b", cand)):
        gold, pred = zip(*pairs_of(path, "mcc"))
        assert entry["observed"][side] == pytest.approx(
            confusion_stat("mcc", list(gold), list(pred)), abs=1e-12)
    assert entry["test"]["name"] == "approximate randomization"


def test_lm_eval_boolq_f1_beside_its_means(capsys):
    base, cand = lm_eval("samples_boolq_base.jsonl"), \
        lm_eval("samples_boolq_cand.jsonl")
    assert bed.main(["compare", base, cand, "--json", "--resamples",
                     "300"]) == 0
    report = json.loads(capsys.readouterr().out)
    entries = {m["metric"]: m for m in report["metrics"]}
    assert list(entries) == ["acc", "acc_norm", "f1"]
    gold, pred = zip(*pairs_of(cand, "f1"))
    assert entries["f1"]["observed"]["b"] == pytest.approx(
        float(confusion_stat("f1", list(gold), list(pred))))
    # --metric names what to compare: f1 is then left out
    assert bed.main(["compare", base, cand, "--metric", "acc", "--json",
                     "--resamples", "300"]) == 0
    assert [m["metric"] for m in json.loads(
        capsys.readouterr().out)["metrics"]] == ["acc"]


def test_stat_on_gold_and_prediction_fields_and_a_wide_file(capsys,
                                                            tmp_path):
    rng = random.Random(6)
    rows = []
    for i in range(80):
        g = rng.choice("xyz")
        rows.append({"id": i, "gold": g,
                     "a": g if rng.random() < 0.6 else rng.choice("xyz"),
                     "b": g if rng.random() < 0.8 else rng.choice("xyz")})
    wide = tmp_path / "wide.jsonl"
    wide.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert bed.main(["compare", str(wide), "--stat",
                     "macro=f1(gold,a,b)", "--json", "--resamples",
                     "200"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)["metrics"]
    gold = [r["gold"] for r in rows]
    assert entry["observed"]["a"] == pytest.approx(
        float(confusion_stat("f1", gold, [r["a"] for r in rows])))
    runs = []
    for side in "ab":
        path = tmp_path / f"{side}.jsonl"
        path.write_text("".join(json.dumps({"id": r["id"], "gold": r["gold"],
                                            "pred": r[side]}) + "\n"
                                for r in rows))
        runs.append(str(path))
    assert bed.main(["compare", *runs, "--stat", "macro=f1(gold,pred)",
                     "--json", "--resamples", "200"]) == 0
    (two,) = json.loads(capsys.readouterr().out)["metrics"]
    assert two["observed"] == entry["observed"]


@pytest.mark.parametrize("argv,message", [
    (["--stat", "f2(gold,pred)"], "the statistics are f1, precision"),
    (["--stat", "f1 gold"], "write STAT(FIELD,...)"),
    (["--stat", "pass@0(x)"], "k in pass@k must be a whole number"),
    (["--stat", "ratio(x,y,z)"], "ratio takes (num,den) or (list) in each "
                                 "run"),
    (["--stat", "f1(f1)", "--by", "target", "--macro"],
     "--macro with --stat is not supported"),
    (["--stat", "f1=f1(f1)", "--stat", "f1=mcc(f1)"],
     "--stat f1 is named twice"),
])
def test_bad_stats_are_refused_in_one_line(capsys, argv, message):
    status = bed.main(["compare", lm_eval("samples_boolq_base.jsonl"),
                       lm_eval("samples_boolq_cand.jsonl"), *argv])
    err = capsys.readouterr().err
    assert status == 2 and message in err and err.count("\n") == 1


def test_gold_labels_that_differ_between_runs_are_refused(capsys, tmp_path):
    paths = []
    for side, gold in (("a", 1), ("b", 0)):
        path = tmp_path / f"{side}.jsonl"
        path.write_text(json.dumps({"id": 1, "gold": gold, "pred": 1}) + "\n")
        paths.append(str(path))
    assert bed.main(["compare", *paths, "--stat", "f1(gold,pred)"]) == 2
    err = capsys.readouterr().err
    assert "a.jsonl:1 and " in err and "b.jsonl:1 (id 1): the gold labels differ: 1 and 0" in err


@pytest.mark.parametrize("replays, most", [
    pytest.param(60, 0.12, marks=pytest.mark.slow),
    pytest.param(300, 0.085, marks=pytest.mark.slow)])
def test_randomization_test_false_positive_rate_under_the_null(replays,
                                                               most):
    # Two systems equally good (each right 75% of the time, independently)
    # on 80 items: the test rejects at 5% about 5% of the time (within 2.5
    # Monte Carlo standard errors at 60 replays, 2.7 at 300).
    rng = random.Random(12)
    rejected = 0
    for _ in range(replays):
        gold = [int(rng.random() < 0.4) for _ in range(80)]
        a = [g if rng.random() < 0.75 else 1 - g for g in gold]
        b = [g if rng.random() < 0.75 else 1 - g for g in gold]
        p = bed._randomization_test(table_of("f1", gold, a, b), rng,
                                   rounds=199)
        rejected += p <= Fraction(1, 20)
    assert rejected / replays <= most


@pytest.mark.parametrize("replays, low", [
    pytest.param(16, 0.8, marks=pytest.mark.slow),
    pytest.param(100, 0.88, marks=pytest.mark.slow)])
def test_bootstrap_interval_covers_the_true_f1_difference(replays, low):
    # The population: a large fixed set; each replay draws 150 items from
    # it, and the paired interval should cover the population difference
    # about 95% of the time (at least 13 of 16 replays, 88 of 100).
    rng = random.Random(13)
    population = []
    for _ in range(8000):
        g = int(rng.random() < 0.4)
        population.append((g, g if rng.random() < 0.75 else 1 - g,
                           g if rng.random() < 0.82 else 1 - g))
    gold, a, b = (list(x) for x in zip(*population))
    truth = values("f1", gold, a, b)
    gap = truth[1] - truth[0]
    covered = 0
    for _ in range(replays):
        sample = [population[rng.randrange(8000)] for _ in range(150)]
        r = bed._compare_corpus(bed._corpus_table("f1", sample), rng,
                                bed._Options(resamples=400))
        covered += r.ci_paired.lo <= gap <= r.ci_paired.hi
    assert covered / replays >= low
    assert covered / replays <= 0.99 or replays < 100   # 40 can all cover


@pytest.mark.parametrize("replays, most", [
    pytest.param(30, 0.1, marks=pytest.mark.slow),
    pytest.param(150, 0.07, marks=pytest.mark.slow)])
def test_non_inferiority_at_the_margin_is_called_rarely(replays, most):
    # B's true F1 is below A's by exactly the margin: "non-inferior" should
    # come out about 2.5% of the time (measured: 2.5% of 400 replays at
    # 100 and at 300 items); at most 3 of 30 replays, 10 of 150.
    rng = random.Random(21)
    population = []
    for _ in range(8000):
        g = int(rng.random() < 0.4)
        population.append((g, g if rng.random() < 0.82 else 1 - g,
                           g if rng.random() < 0.78 else 1 - g))
    gold, a, b = (list(x) for x in zip(*population))
    truth = values("f1", gold, a, b)
    margin = float(truth[0] - truth[1])
    calls = 0
    for _ in range(replays):
        sample = [population[rng.randrange(8000)] for _ in range(100)]
        r = bed._compare_corpus(bed._corpus_table("f1", sample), rng,
                                bed._Options(resamples=200))
        (j,) = bed._judge([r], margin=margin)
        calls += bool(j.non_inferior)
    assert calls / replays <= most


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 3)
    | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=3),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=2), inner, max_size=2),
    max_leaves=5)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.tuples(JSON_VALUES, JSON_VALUES, JSON_VALUES),
                min_size=1, max_size=6),
       st.sampled_from(["f1(gold,pred)", "mcc(pair)", "ratio(gold,pred)",
                        "pass@2(pred)"]))
def test_any_values_give_a_result_or_one_line(tmp_path_factory, rows, spec):
    # Whatever the fields hold: exit 0, or exit 2 and one line on stderr.
    folder = tmp_path_factory.mktemp("fuzz")
    paths = []
    for side in "ab":
        path = folder / f"{side}.jsonl"
        path.write_text("".join(
            json.dumps({"id": i, "gold": g, "pred": p, "pair": q}) + "\n"
            for i, (g, p, q) in enumerate(rows)) + json.dumps(
                {"id": "last", "gold": 1, "pred": 1, "pair": [1, 1]}) + "\n")
        paths.append(str(path))
    from io import StringIO
    import contextlib
    err = StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(
            StringIO()):
        status = bed.main(["compare", *paths, "--stat", spec,
                           "--resamples", "50"])
    assert status in (0, 2)
    if status == 2:
        assert err.getvalue().count("\n") == 1


# -- clusters and subsets ------------------------------------------------------

def test_clusters_of_one_item_are_the_items_themselves():
    rng = random.Random(14)
    items = [(g, g if rng.random() < 0.7 else 1 - g,
              g if rng.random() < 0.8 else 1 - g)
             for g in (int(rng.random() < 0.4) for _ in range(120))]
    plain = bed._compare_corpus(bed._corpus_table("f1", items),
                                random.Random(3), bed._Options(resamples=300))
    single = bed._compare_corpus(bed._corpus_table(
        "f1", list(enumerate(items)), clustered=True), random.Random(3),
        bed._Options(resamples=300))
    assert single._replace(test=plain.test, clusters=None) == plain
    assert single.clusters == 120


@pytest.mark.parametrize("replays, most", [
    (50, 0.12), pytest.param(200, 0.09, marks=pytest.mark.slow)])
def test_cluster_randomization_false_positive_rate_under_the_null(replays,
                                                                   most):
    # 25 passages of 4 questions each, the questions of a passage alike
    # (a passage effect), both systems equally good: about 5% rejected
    # (within 2.3 Monte Carlo standard errors at 50, 2.7 at 200).
    rng = random.Random(15)
    rejected = 0
    for _ in range(replays):
        items = []
        for c in range(25):
            hard = rng.random() < 0.5
            for _ in range(4):
                g = int(rng.random() < 0.4)
                right = 0.55 if hard else 0.9
                items.append((c, (g, g if rng.random() < right else 1 - g,
                                  g if rng.random() < right else 1 - g)))
        table = bed._corpus_table("f1", items, clustered=True)
        rejected += bed._randomization_test(table, rng, rounds=199) <= \
            Fraction(1, 20)
    assert rejected / replays <= most


def test_stat_by_subset_gives_each_subsets_own_value(capsys, tmp_path):
    rng = random.Random(16)
    rows = []
    for i in range(240):
        g = int(rng.random() < 0.4)
        rows.append({"id": i, "subject": f"s{i % 3}", "gold": g,
                     "a": g if rng.random() < 0.7 else 1 - g,
                     "b": g if rng.random() < 0.8 else 1 - g})
    wide = tmp_path / "wide.jsonl"
    wide.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert bed.main(["compare", str(wide), "--stat", "f1(gold,a,b)", "--by",
                     "subject", "--json", "--resamples", "200"]) == 0
    report = json.loads(capsys.readouterr().out)
    for entry in report["subsets"]:
        mine = [r for r in rows if r["subject"] == entry["subset"]]
        gold = [r["gold"] for r in mine]
        assert entry["n_items"] == 80
        assert entry["observed"]["b"] == pytest.approx(float(
            confusion_stat("f1", gold, [r["b"] for r in mine])))
    overall = report["metrics"][0]["observed"]["a"]
    assert overall == pytest.approx(float(confusion_stat(
        "f1", [r["gold"] for r in rows], [r["a"] for r in rows])))


def test_pass_at_k_by_subset_and_by_cluster(capsys, tmp_path):
    rng = random.Random(17)
    paths = []
    for side, rate in (("a", 0.3), ("b", 0.5)):
        path = tmp_path / f"{side}.jsonl"
        path.write_text("".join(
            json.dumps({"task_id": f"t{i}", "suite": f"s{i % 2}",
                        "repo": f"r{i // 4}",
                        "passed": int(rng.random() < rate)}) + "\n"
            for i in range(40) for _ in range(3)))
        paths.append(str(path))
    for extra in (["--by", "suite"], ["--cluster", "repo"]):
        assert bed.main(["compare", *paths, "--id", "task_id", "--stat",
                         "pass@2(passed)", "--resamples", "100", "--json",
                         *extra]) == 0
        report = json.loads(capsys.readouterr().out)
        assert report["n_items"] == 40
        if extra[0] == "--by":
            assert [s["subset"] for s in report["subsets"]] == ["s0", "s1"]
        else:
            assert report["metrics"][0]["clusters"] == 10


def test_pass_at_k_keeps_a_frameworks_epochs_apart(capsys):
    # Inspect's log has two epochs per sample: pass@2 reads both (and
    # does not say they were averaged), as counting them directly gives.
    base = os.path.join(HERE, "fixtures", "inspect", "base.json")
    cand = os.path.join(HERE, "fixtures", "inspect", "cand.json")
    assert bed.main(["compare", base, cand, "--stat", "pass@2(match)",
                     "--resamples", "100", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not any("averaged" in line and "epochs" in line
                   for line in report["reading"])
    samples = collections.defaultdict(list)
    source = bed._open_source(base, bed._Reading(keep_epochs=True))
    for _, records in source.batches:
        for r in records:
            samples[r["id"]].append(int(r["match"]))
    expect = sum(bed._pass_at(len(s), sum(s), 2) for s in samples.values())
    assert report["metrics"][0]["observed"]["a"] == pytest.approx(
        float(expect / len(samples)))


def test_a_wide_files_systems_are_named_by_their_fields(capsys, tmp_path):
    wide = tmp_path / "wide.jsonl"
    wide.write_text("".join(json.dumps({"id": i, "gold": i % 2, "a": 1,
                                        "b": i % 2}) + "\n"
                            for i in range(30)))
    assert bed.main(["compare", str(wide), "--stat", "f1(gold,a,b)",
                     "--resamples", "100"]) == 0
    head = capsys.readouterr().out.splitlines()[0]
    assert head.startswith("baseline: a   candidate: b   30 items")


def corpus_runs(n=3000, seed=6):
    rng = random.Random(seed)
    runs = []
    for name, right in (("a", 0.7), ("b", 0.75)):
        rows = []
        for i in range(n):
            g = i % 3 == 0
            rows.append({"id": i, "gold": int(g), "pred": int(
                g if rng.random() < right else not g), "num": i % 5,
                "den": 5, "cluster": f"c{i % 40}"})
        runs.append(rows)
    return runs


def write_jsonl(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return str(path)


@pytest.mark.skipif(not bed._can_fork(), reason="needs fork")
@pytest.mark.slow
def test_a_corpus_candidate_parsed_by_a_helper_gives_the_same_report(
        capsys, tmp_path, monkeypatch):
    # Any file counts as large, so --jobs 2 parses the candidate in a
    # helper while the baseline is read (several 64 KB batches, the
    # candidate shuffled, some ids in one run only): the same JSON.
    monkeypatch.setattr(bed, "_PREFETCH_BYTES", 0)
    base, cand = corpus_runs()
    random.Random(1).shuffle(cand)
    paths = (write_jsonl(tmp_path, "a.jsonl", base),
             write_jsonl(tmp_path, "b.jsonl", cand[:-7]))
    for extra in (["--stat", "f1(gold,pred)", "--stat", "r=ratio(num,den)"],
                  ["--stat", "mcc(gold,pred)", "--cluster", "cluster"]):
        outputs = []
        for jobs in ("1", "2"):
            status = bed.main(["compare", *paths, "--json", "--jobs", jobs,
                               "--resamples", "100", "--allow-partial",
                               *extra])
            out, _ = capsys.readouterr()
            assert status == 0
            outputs.append(json.loads(out))
        assert outputs[0] == outputs[1]
        assert outputs[0]["dropped_ids"] == 7
    rng = random.Random(2)                  # pass@k: an item's samples
    samples = [[[int(rng.random() < p) for _ in range(4)]
                for _ in range(1500)] for p in (0.4, 0.5)]
    paths = [write_samples(tmp_path, f"s{i}.jsonl", r)
             for i, r in enumerate(samples)]
    outputs = []
    for jobs in ("1", "2"):
        assert bed.main(["compare", *paths, "--id", "task_id", "--stat",
                         "pass@2(passed)", "--json", "--jobs", jobs,
                         "--resamples", "100"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_corpus_reading_errors_name_their_lines(capsys, tmp_path,
                                                monkeypatch, jobs):
    # A repeated id (in a later batch) and a missing value: one line
    # naming the place, the same with or without the helper, baseline's
    # errors before the candidate's.
    monkeypatch.setattr(bed, "_PREFETCH_BYTES", 0)
    base, cand = corpus_runs()
    good = write_jsonl(tmp_path, "good.jsonl", cand)
    repeated = [dict(r) for r in cand]
    repeated[2500]["id"] = 17
    missing = [dict(r) for r in cand]
    del missing[2700]["pred"]
    cases = [(repeated, f"repeated.jsonl:2501: id '17' repeated (first at "
                        f"{tmp_path}/repeated.jsonl:18)"),
             (missing, "missing.jsonl:2701: no value for 'pred'")]
    for rows, message in cases:
        name = message.split(":")[0]
        bad = write_jsonl(tmp_path, name, rows)
        for paths in ((write_jsonl(tmp_path, "base.jsonl", base), bad),
                      (bad, good)):
            status = bed.main(["compare", *paths, "--stat", "f1(gold,pred)",
                               "--jobs", jobs])
            _, err = capsys.readouterr()
            assert status == 2 and err.count("\n") == 1
            assert f"{tmp_path}/{message}" in err


def test_json_names_the_interval_a_corpus_statistic_had(capsys):
    # --interval bca is for means: a corpus statistic's intervals are
    # percentile ones, as its read: line says, and the JSON says so too.
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        os.pardir, "datasets", "examples")
    assert bed.main(["compare", os.path.join(here, "tagger-base.jsonl"),
                     os.path.join(here, "tagger-cand.jsonl"), "--stat",
                     "f1(label,prediction)", "--interval", "bca",
                     "--resamples", "200", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    entry = report["metrics"][0]
    assert report["interval"] == entry["interval"] == "percentile"
    assert any("percentile intervals" in line for line in report["reading"])
