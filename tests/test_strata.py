"""Stratified prediction-powered inference (compare --human --strata) and
where the next labels go (plan --human --budget): Fisch et al. 2024,
Zrnic and Candes 2024 (#46)."""
import csv
import json
import math
import random
import statistics
from array import array
from fractions import Fraction
from statistics import NormalDist

import pytest
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed
import designs
import oracle
from test_input import jsonl
from test_input import run

Z = NormalDist().inv_cdf(0.975)


def columns(pair):
    return bed._Columns(array("d", pair[0]), array("d", pair[1]))


def strata_runs(tmp_path, seed=3, sizes=(500, 500), rates=(0.10, 0.02)):
    """Two runs of judge scores ("judge"), human scores ("human") where
    labelled and the stratum ("topic") of designs.judged_strata."""
    rng = random.Random(seed)
    judge, human, strata, _ = designs.judged_strata(rng, sizes, rates)
    rows = [[dict({"id": i, "judge": j, "topic": s},
                  **({} if h != h else {"human": h}))
             for i, (j, h, s) in enumerate(zip(js, hs, strata))]
            for js, hs in zip(judge, human)]
    paths = [jsonl(tmp_path, f"{n}.jsonl", r)
             for n, r in zip(("a", "b"), rows)]
    return paths, rows, (judge, human, strata)


# -- the estimate, against the oracle ------------------------------------

@settings(max_examples=15, deadline=None)
@given(st.lists(st.tuples(st.lists(st.tuples(st.integers(0, 4),
                                             st.integers(0, 4)),
                                   min_size=2, max_size=6),
                          st.lists(st.integers(0, 4), min_size=1,
                                   max_size=6)),
                min_size=1, max_size=3))
def test_the_stratified_mean_is_the_oracles(strata):
    # Each stratum's PPI++ on its own items, weighed by its share of all
    # the items: the estimate is the oracle's in exact fractions.
    parts = [bed._ppi_mean([y for y, _ in lab], [f for _, f in lab], rest)
             for lab, rest in strata]
    shares = [Fraction(len(lab) + len(rest),
                       sum(len(x) + len(r) for x, r in strata))
              for lab, rest in strata]
    found = bed._corrected_strata(parts, shares)
    estimate, _ = oracle.stratified_ppi(
        [([y for y, _ in lab], [f for _, f in lab], rest)
         for lab, rest in strata], Z)
    assert found.estimate == pytest.approx(float(estimate), abs=1e-12)
    assert found.labels == sum(len(lab) for lab, _ in strata)


def test_the_stratified_se_is_the_oracles_where_normal():
    # With 150 labels a stratum of continuous scores the interval is the
    # normal one: its se is sqrt(sum w_k^2 var_k) of the oracle's.
    rng = random.Random(8)
    strata, parts, shares = [], [], []
    for size, labels, bias in ((600, 150, 0.0), (2400, 150, 0.3)):
        truth = [rng.random() for _ in range(size)]
        judge = [x + bias + rng.uniform(-0.2, 0.2) for x in truth]
        strata.append((truth[:labels], judge[:labels], judge[labels:]))
        parts.append(bed._ppi_mean(*strata[-1]))
        shares.append(Fraction(size, 3000))
    assert all(c.df is None for c in parts)
    found = bed._corrected_strata(parts, shares)
    estimate, se = oracle.stratified_ppi(strata, Z)
    assert found.estimate == pytest.approx(float(estimate), abs=1e-12)
    assert found.se == pytest.approx(se, rel=1e-9)
    assert found.df is None
    assert found.ci.lo == pytest.approx(found.estimate - Z * se, rel=1e-9)


def test_one_stratum_is_the_unstratified_correction():
    rng = random.Random(4)
    judge, human, _, _ = designs.judged_strata(rng, (500,), (0.2,))
    a, b, gap, rows, _ = bed._judge_check_strata(columns(judge),
                                                 columns(human), ["x"] * 500)
    plain, whole, *_ = bed._judge_check(columns(judge), columns(human))
    assert gap.estimate == pytest.approx(whole.estimate, abs=1e-12)
    assert gap.se == pytest.approx(whole.se, rel=1e-12)
    assert (a.estimate, b.estimate) == pytest.approx(
        (plain[0].estimate, plain[1].estimate), abs=1e-12)
    assert rows[0].share == 1 and rows[0].labels == 100


# -- calibration ----------------------------------------------------------

@pytest.mark.parametrize("sizes, replays, least, most_plain", [
    ((400, 1000), 30, 0.85, None),
    pytest.param((1000, 3000), 2000, 0.935, 0.80, marks=pytest.mark.slow),
    pytest.param((1000, 1000), 2000, 0.935, 0.88, marks=pytest.mark.slow)])
def test_stratified_intervals_cover_where_the_pooled_one_is_biased(
        sizes, replays, least, most_plain):
    # Two strata, labels drawn at 10% in one and 1% in the other, the
    # judge passing B's wrong answers 60% more often in the second: one
    # PPI++ over all the labels learns the judge's errors mostly from the
    # first stratum and misses the second's lean; the stratified interval
    # covers the truth.  (slow: 2,000 replays of 1,000 and 3,000 items,
    # 100 and 30 labels: 94.55%, the pooled 71.85%; of 1,000 and 1,000
    # items, 100 and 10 labels: 94.5% (the pooled 82.95%), 93.25% before
    # a stratum whose labels all agree with its judge got lam = 0; the
    # default run's 30 of 1,400 items, ~0.4 s, show the pooled bias.)
    rng = random.Random(46)
    covered = plain = 0
    errors = []
    for _ in range(replays):
        judge, human, strata, truth = designs.judged_strata(rng, sizes)
        _, _, gap, _, _ = bed._judge_check_strata(columns(judge),
                                                  columns(human), strata)
        _, pooled, *_ = bed._judge_check(columns(judge), columns(human))
        covered += gap.ci.lo <= truth[2] <= gap.ci.hi
        plain += pooled.ci.lo <= truth[2] <= pooled.ci.hi
        errors.append((gap.estimate - truth[2],
                       pooled.estimate - truth[2]))
    assert covered / replays >= least, covered
    assert most_plain is None or plain / replays <= most_plain, plain
    stratified, pooled = zip(*errors)
    spread = statistics.stdev(pooled) / math.sqrt(replays)
    assert statistics.fmean(pooled) > 3 * spread      # biased up
    assert abs(statistics.fmean(stratified)) < 3 * statistics.stdev(
        stratified) / math.sqrt(replays)


def test_a_stratum_whose_labels_all_agree_with_its_judge_is_classical():
    # 10 labels whose gaps the judge got right on every one, the judge
    # passing B's wrong answers on the 990 others: the tuned weight's
    # rectifier has no spread, and its interval was the judge's own
    # (0.14 off); at lam = 0 it is the labels' mean and t interval.
    rng = random.Random(5)
    judge, human, strata, truth = designs.judged_strata(rng, (100, 1000),
                                                        (0.5, 0.0))
    items = range(100, 1100)                      # the second stratum
    marked = [k for k in items if judge[1][k] - judge[0][k] == -1][:2] + [
        k for k in items if judge[1][k] - judge[0][k] == 1][:2] + [
        k for k in items if judge[0][k] == judge[1][k]][:6]
    for k in marked:
        human[0][k], human[1][k] = judge[0][k], judge[1][k]
    *_, rows, _ = bed._judge_check_strata(columns(judge), columns(human),
                                          strata)
    gap = rows[1].gap
    dy = [human[1][k] - human[0][k] for k in marked]
    assert gap.weight == 0 and gap.labels == 10
    assert gap.estimate == pytest.approx(statistics.fmean(dy), abs=1e-12)
    assert gap.se == pytest.approx(statistics.stdev(dy) / math.sqrt(10),
                                   rel=1e-12)
    assert gap.ci.lo < truth[2] < gap.ci.hi
    _, alone, *_ = bed._judge_check(*(columns([c[100:] for c in x])
                                      for x in (judge, human)))
    assert alone.weight > 0 and not alone.ci.lo < truth[2] < alone.ci.hi
    # From 100 labels that all agree (_PPI_CLT_LEAST) the judge is kept:
    # the rule of three bounds its errors under 3 in 100 gaps.
    more = [k for k in items if k not in marked][:bed._PPI_CLT_LEAST - 10]
    for k in more:
        human[0][k], human[1][k] = judge[0][k], judge[1][k]
    *_, rows, _ = bed._judge_check_strata(columns(judge), columns(human),
                                          strata)
    assert rows[1].gap.labels == bed._PPI_CLT_LEAST
    assert rows[1].gap.weight > 0


# -- the command line and the library -----------------------------------

def test_compare_strata_reports_each_stratum(capsys, tmp_path):
    paths, _, (judge, human, strata) = strata_runs(tmp_path)
    status, out, err = run(capsys, *paths, "--metric", "judge", "--human",
                           "human", "--strata", "topic", "--json")
    assert status == 0, err
    entry = json.loads(out)["metrics"][0]
    found = entry["judge_corrected"]
    a, b, gap, rows, _ = bed._judge_check_strata(columns(judge),
                                                 columns(human), strata)
    assert found["gap"]["estimate"] == pytest.approx(gap.estimate,
                                                     abs=1e-12)
    assert found["gap"]["ci"] == pytest.approx([gap.ci.lo, gap.ci.hi],
                                               abs=1e-12)
    assert entry["observed"]["gap"] == pytest.approx(gap.estimate,
                                                     abs=1e-12)
    said = found["strata"]
    assert said["field"] == "topic" and "Fisch" in said["method"]
    assert [(s["stratum"], s["items"], s["labels"], s["share"])
            for s in said["strata"]] == [("s0", 500, 50, 0.5),
                                         ("s1", 500, 10, 0.5)]
    status, out, err = run(capsys, *paths, "--metric", "judge", "--human",
                           "human", "--strata", "topic")
    assert "stratified by topic (2 strata)" in out.splitlines()[0]
    assert "Stratified by topic (stratified PPI, Fisch et al. 2024" in out
    assert "s1 500 items (50.0%), 10 labelled (2.0%)" in out
    assert "each stratum of topic to be a random sample" in out
    nan = [[None if x != x else x for x in h] for h in human]
    library = bed.compare(*judge, human_a=nan[0], human_b=nan[1],
                          strata=strata)
    assert library.gap == pytest.approx(gap.estimate, abs=1e-12)
    assert library.ci == pytest.approx((gap.ci.lo, gap.ci.hi), abs=1e-12)


def test_by_says_where_the_labelled_share_differs(capsys, tmp_path):
    # --by with --human: labels at 10% of one subset and 2% of the other
    # (chi-square p < 0.001) get a note pointing to --strata; the same
    # rate in both gets none.  (250 items a topic: 25 labels against 5,
    # chi-square 14.2, p 0.0002; 500 doubled the CPU.)
    paths, _, _ = strata_runs(tmp_path, sizes=(250, 250))
    status, out, err = run(capsys, *paths, "--metric", "judge", "--human",
                           "human", "--by", "topic")
    assert status == 0, err
    assert ("the share of items labelled differs by topic (2.0% to 10.0%, "
            "chi-square p < 0.001)") in out and "--strata topic" in out
    paths, _, _ = strata_runs(tmp_path, sizes=(250, 250),
                              rates=(0.06, 0.06))
    status, out, err = run(capsys, *paths, "--metric", "judge", "--human",
                           "human", "--by", "topic")
    assert status == 0 and "share of items labelled" not in out


@pytest.mark.parametrize("argv, said", [
    (["--strata", "nope"], "no stratum field 'nope'"),
    (["--strata", "topic", "--by", "topic"], "--strata with --by"),
])
def test_bad_strata_get_one_line(capsys, tmp_path, argv, said):
    paths, _, _ = strata_runs(tmp_path, sizes=(200, 200), rates=(0.1, 0.1))
    status, out, err = run(capsys, *paths, "--metric", "judge", "--human",
                           "human", *argv)
    assert status == 2 and out == ""
    assert said in err and len(err.strip().splitlines()) == 1


def test_a_stratum_without_two_labels_is_named(capsys, tmp_path):
    _, rows, _ = strata_runs(tmp_path, sizes=(200, 200), rates=(0.1, 0.1))
    for side in rows:
        side[0]["topic"] = "lonely"
        side[0]["human"] = 1.0
    paths = [jsonl(tmp_path, f"{n}2.jsonl", r)
             for n, r in zip(("a", "b"), rows)]
    status, out, err = run(capsys, *paths, "--metric", "judge", "--human",
                           "human", "--strata", "topic")
    assert status == 2 and len(err.strip().splitlines()) == 1
    assert "topic 'lonely' has 1 human score for judge" in err
    assert "needs two at least in each" in err
    with pytest.raises(bed.EvalDeltaError, match="strata goes with human"):
        bed.compare([1, 0], [0, 1], strata=["x", "y"])


# -- where the next labels go -----------------------------------------------

def test_neyman_allocation_is_the_best_split_by_brute_force():
    # The rounded allocation's variance sum N_k^2 sd_k^2 / n_k is within
    # 1% of the best integer split's; the labels drawn stay drawn.
    rng = random.Random(2)
    for _ in range(30):
        sizes = [rng.randint(20, 200) for _ in range(3)]
        had = [rng.randint(2, 10) for _ in sizes]
        sds = [rng.uniform(0.05, 1.0) for _ in sizes]
        budget = rng.randint(1, 60)
        draw = bed._neyman_allocation(sizes, had, sds, budget)
        assert sum(draw) == budget and min(draw) >= 0

        def cost(split):
            return sum((n * sd) ** 2 / (k + m) for n, sd, k, m in zip(
                sizes, sds, had, split))
        best = min(cost((i, j, budget - i - j)) for i in range(budget + 1)
                   for j in range(budget + 1 - i))
        assert cost(draw) <= best * 1.01


@pytest.mark.parametrize("replays, pilot_seed", [
    (15, 1), pytest.param(400, 3, marks=pytest.mark.slow)])
def test_the_predicted_width_is_the_width_seen(replays, pilot_seed):
    # A pilot of 1,000 and 3,000 items (200 and 150 labelled) sizes 300
    # more labels by Neyman's allocation; evals labelled so report a
    # standard error (and, slow, spread their estimates) within 10% of
    # the one predicted.  The prediction is as good as the pilot's
    # residual SDs: from 10 or 30 labels a stratum it was off by 10-20%.
    rng = random.Random(pilot_seed)
    sizes = (1000, 3000)
    judge, human, strata, _ = designs.judged_strata(rng, sizes, (0.2, 0.05))
    *_, rows, _ = bed._judge_check_strata(columns(judge), columns(human),
                                          strata)
    draw = bed._neyman_allocation(
        [r.items for r in rows], [r.labels for r in rows],
        [bed._residual_sd(r.gap) for r in rows], 300)
    predicted = bed._strata_se(rows, draw)
    rates = tuple((r.labels + m) / r.items for r, m in zip(rows, draw))
    ses, estimates = [], []
    for _ in range(replays):
        judge, human, strata, _ = designs.judged_strata(rng, sizes, rates)
        *_, gap, _, _ = bed._judge_check_strata(columns(judge),
                                                columns(human), strata)
        ses.append(gap.se)
        estimates.append(gap.estimate)
    assert predicted == pytest.approx(statistics.fmean(ses), rel=0.10)
    if replays >= 400:
        assert predicted == pytest.approx(statistics.stdev(estimates),
                                          rel=0.10)


def test_plan_budget_says_where_the_labels_go(capsys, tmp_path):
    paths, rows, _ = strata_runs(tmp_path)
    out_csv = tmp_path / "next.csv"
    argv = ["plan", "--from", *paths, "--metric", "judge", "--human",
            "human", "--strata", "topic", "--budget", "200"]
    assert bed.main(argv + ["--label-next", str(out_csv), "--json"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert report["allocation"] == "Neyman" and report["budget"] == 200
    draws = {s["stratum"]: s["draw"] for s in report["strata"]["strata"]}
    assert sum(draws.values()) == 200
    half = report["half_width"]
    assert half["allocated"] <= half["uniform"] < half["now"]
    picked = [(e["id"], e["stratum"]) for e in report["label_next"]]
    unlabelled = {(str(r["id"]), r["topic"]) for r in rows[0]
                  if "human" not in r}
    assert len(set(picked)) == 200 and set(picked) <= unlabelled
    assert {s: sum(1 for _, x in picked if x == s) for s in draws} == draws
    with open(out_csv, newline="") as f:
        assert [tuple(r) for r in csv.reader(f)] == [("id", "stratum")] + [
            (i, s) for i, s in picked]
    assert bed.main(argv) == 0
    text = capsys.readouterr().out
    assert "Neyman's allocation" in text and "drawn uniformly at random" \
        in text
    assert bed.main(argv[:-4] + ["--budget", "50", "--json"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert plain["allocation"] == "uniform" and plain["strata"]["field"] \
        is None and len(plain["label_next"]) == 50
    # A folder that is not there is an error, not made (as --html's)
    nowhere = tmp_path / "no" / "such" / "next.csv"
    assert bed.main(argv + ["--label-next", str(nowhere)]) == 2
    assert "no folder" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()


def test_plan_budget_on_one_file_of_both_systems(capsys, tmp_path):
    # The judged team's one wide file (--a-col/--b-col, --human HA,HB), as
    # compare takes it: --budget and --label-next share and draw the
    # labels as they do for the same items in two runs.
    paths, rows, _ = strata_runs(tmp_path, sizes=(150, 150),
                                 rates=(0.2, 0.1))
    wide = tmp_path / "judged.csv"
    with open(wide, "w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["id", "topic", "judge_a", "judge_b", "human_a",
                      "human_b"])
        for a, b in zip(*rows):
            out.writerow([a["id"], a["topic"], a["judge"], b["judge"],
                          a.get("human", ""), b.get("human", "")])
    budget = ["--strata", "topic", "--budget", "40", "--json"]
    reports = []
    for given in (["--from", *paths, "--metric", "judge", "--human",
                   "human"],
                  ["--from", str(wide), "--a-col", "judge_a", "--b-col",
                   "judge_b", "--human", "human_a,human_b"]):
        next_csv = tmp_path / f"next{len(reports)}.csv"
        assert bed.main(["plan", *given, *budget, "--label-next",
                         str(next_csv)]) == 0, capsys.readouterr().err
        reports.append(json.loads(capsys.readouterr().out))
        reports[-1]["csv"] = next_csv.read_text()
    two, one = reports
    assert sum(s["draw"] for s in one["strata"]["strata"]) == 40
    for key in ("strata", "half_width", "label_next", "csv"):
        assert one[key] == two[key], key


@pytest.mark.parametrize("extra, said", [
    (["--budget", "0"], "--budget 0: give how many labels"),
    (["--budget", "5000"], "--budget 5000: only 940 items"),
    (["--budget", "5", "--gap", "0.1"], "--gap does not go with --budget"),
    (["--label-next", "x.csv"], "--label-next goes with --budget"),
    (["--strata", "topic"], "--strata in plan goes with --budget"),
])
def test_plan_budget_refuses_what_it_cannot_do(capsys, tmp_path, extra,
                                               said):
    paths, _, _ = strata_runs(tmp_path)
    status = bed.main(["plan", "--from", *paths, "--metric", "judge",
                       "--human", "human", *extra])
    out, err = capsys.readouterr()
    assert status == 2 and said in err and out == ""


def test_strata_on_a_preference_file_is_refused(capsys):
    status, out, err = run(capsys, "datasets/examples/prefs-judge.json",
                           "--human", "datasets/examples/prefs-human.json",
                           "--strata", "category")
    assert status == 2 and out == ""
    assert "--strata with --human on a preference file" in err
