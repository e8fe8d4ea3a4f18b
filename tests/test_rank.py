"""rank: a joint paired bootstrap of several systems, rank intervals, the
top group, against straightforward oracles and by simulation."""
import json
import os
import collections
import math
import random
import statistics

import pytest
from hypothesis import assume
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed
import oracle


@settings(max_examples=8, deadline=None)
@given(rows=st.lists(st.tuples(*[st.sampled_from([0.0, 1.0, 0.5, 0.25])] * 3),
                     min_size=2, max_size=30),
       seed=st.integers(0, 2 ** 32), resamples=st.integers(41, 80))
def test_joint_bootstrap_matches_one_index_at_a_time(rows, seed, resamples):
    tally = bed.collections.Counter(rows)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bed, "_BOOT_GROUPED", 10 ** 9)     # index path
        got = bed._rank_systems(tally, random.Random(seed), ["a", "b", "c"],
                                bed._Options(resamples=resamples))
    sums = [column[:-1] for column in
            oracle.joint_sums(rows, random.Random(seed), resamples)]
    n = len(rows)
    binary = all(x in (0, 1) for row in rows for x in row)
    for s in range(3):
        lo, hi = oracle.percentile(sums[s], 0.95)
        if binary:          # a 0/1 metric's intervals are exact
            assert tuple(got.cis[s]) == pytest.approx(oracle.clopper_pearson(
                int(sum(row[s] for row in rows)), n), abs=1e-12)
        else:
            assert got.cis[s] == (lo / n, hi / n)
        first = [1 + sum(1 for t in range(3) if sums[t][r] > sums[s][r])
                 for r in range(resamples)]     # ties: the best place
        last = [sum(1 for t in range(3) if sums[t][r] >= sums[s][r])
                for r in range(resamples)]      # and the worst
        lo, hi = (oracle.percentile(first, 0.95)[0],
                  oracle.percentile(last, 0.95)[1])
        if got.top[s]:      # may be first, and second if others may be
            lo, hi = 1, max(hi, 1 + (sum(got.top) > 1))
        assert tuple(got.rank_cis[s]) == (lo, hi)
    totals = [sum(bed.Fraction(repr(t[s])) for t in rows) for s in range(3)]
    spread = sorted(max(sums[s][r] - totals[s] for s in range(3))
                    - min(sums[s][r] - totals[s] for s in range(3))
                    for r in range(resamples))
    critical = spread[min(resamples - 1, int(resamples * 0.95))]
    assert got.critical == critical / n
    boot = [max(totals) - t <= critical for t in totals]
    assert got.bootstrap[1] == boot
    assert got.top == [b or e for b, e in zip(boot, got.exact.top)]


def test_two_systems_rank_gives_compares_numbers():
    rng = random.Random(3)
    rows = [(int(rng.random() < 0.7), int(rng.random() < 0.75))
            for _ in range(400)]
    tally = bed.collections.Counter(rows)
    ranked = bed._rank_systems(tally, random.Random(9), ["a", "b"],
                               bed._Options(resamples=500))
    compared = bed._compare_tally(tally, random.Random(9),
                                  bed._Options(resamples=500))
    assert ranked.means == [compared.a, compared.b]
    assert ranked.cis == [compared.ci_a, compared.ci_b]


def _replays(means, n, replays, seed):
    rng = random.Random(seed)
    for _ in range(replays):
        # correlated systems: a shared difficulty per item
        rows = []
        for _ in range(n):
            hard = rng.random()
            rows.append(tuple(int(hard < m + 0.3 * (rng.random() - 0.5))
                              for m in means))
        yield rng, bed.collections.Counter(rows)


@pytest.mark.parametrize("count", [pytest.param(16, marks=pytest.mark.slow),
                                   pytest.param(200, marks=pytest.mark.slow)])
def test_top_group_keeps_equal_systems_together(count):
    # Five equally good systems: the top group should hold all five in at
    # least 95% of replays (allowing three Monte Carlo standard errors).
    kept = replays = 0
    for rng, tally in _replays([0.6] * 5, 300, count, 1):
        ranked = bed._rank_systems(tally, rng, list("abcde"),
                                   bed._Options(resamples=150 if count < 100
                                                else 400))
        kept += all(ranked.top)
        replays += 1
    assert kept / replays >= 0.95 - 3 * (0.05 * 0.95 / replays) ** 0.5


@pytest.mark.slow
def test_a_clearly_better_system_stands_alone():
    alone = replays = 0
    for rng, tally in _replays([0.5, 0.5, 0.6, 0.5], 1000, 40, 2):
        ranked = bed._rank_systems(tally, rng, list("abcd"),
                                   bed._Options(resamples=200))
        alone += ranked.top == [False, False, True, False]
        replays += 1
    assert alone / replays >= 0.9


@settings(max_examples=12, deadline=None)
@given(rows=st.lists(st.tuples(*[st.sampled_from([0, 1])] * 4), min_size=1,
                     max_size=40),
       continuous=st.lists(st.tuples(*[st.sampled_from(
           [0.0, 0.5, 0.25, 1.0, 3.0])] * 3), min_size=1, max_size=9),
       level=st.sampled_from([0.05, 0.2, 0.01]))
def test_exact_rank_sets_match_a_step_down_by_hand(rows, continuous, level):
    # Rank sets and the top group from one-sided exact tests of every
    # ordered pair, Holm over all of them (Mogstad, Romano, Shaikh and
    # Wilhelm 2024's sets from simultaneous pairwise tests): as the oracle
    # sums binomial tails and sign patterns and steps down by hand.
    for data, binary in ((rows, True), (continuous, False)):
        tally = collections.Counter(data)
        keys = sorted(tally)
        counts = [tally[k] for k in keys]
        ints, _ = bed._exact_ints([x for k in keys for x in k])
        size = len(keys[0])
        columns = [ints[s::size] for s in range(size)]
        totals = [sum(map(lambda x, c: x * c, col, counts))
                  for col in columns]
        got = bed._exact_ranks(columns, counts,
                               lambda j, k: totals[j] - totals[k], binary,
                               confidence=1 - level, alpha=level)
        sets, top = oracle.exact_rank_sets(data, bed.Fraction(repr(level)),
                                           binary)
        assert [tuple(x) for x in got.sets] == sets
        assert got.top == top
        assert got.hypotheses == size * (size - 1)


def _independent(rng, means, n):
    return collections.Counter(tuple(int(rng.random() < m) for m in means)
                               for _ in range(n))


def _small_n_rank_replays(means, sizes, replays, resamples, seed):
    # Per size: replays whose true best (a tied one: any) left the top
    # group, and replays naming one system alone on top although the exact
    # test of it against the runner-up, unadjusted, does not reject.
    rng = random.Random(seed)
    out = {}
    for n in sizes:
        out[n] = [0, 0, 0]                      # best out, lone, untested
        for _ in range(replays):
            tally = _independent(rng, means, n)
            r = bed._rank_systems(tally, rng, list("abc"),
                                  bed._Options(resamples=resamples))
            best = max(means)
            out[n][0] += not all(t for t, m in zip(r.top, means)
                                 if m == best)
            if sum(r.top) == 1:
                s = r.top.index(True)
                runner = max((k for k in range(3) if k != s),
                             key=lambda k: r.means[k])
                pairs = [(x[s], x[runner]) for x, c in tally.items()
                         for _ in range(c)]
                out[n][1] += 1
                out[n][2] += not oracle.mcnemar_p(pairs)[2] < 0.05
            for s in range(3):                  # a rank set of one: its
                lo, hi = r.joint_rank_cis[s]    # neighbours tested apart
                if lo == hi:
                    for k in range(3):
                        if k != s and r.means[k] != r.means[s]:
                            pairs = [(x[s], x[k]) for x, c in tally.items()
                                     for _ in range(c)]
                            assert oracle.mcnemar_p(pairs)[2] < 0.05
    return out


@pytest.mark.parametrize("means,replays,resamples", [
    ([0.5] * 3, 30, 60), ([0.3, 0.5, 0.9], 12, 60),
    pytest.param([0.5] * 3, 400, 400, marks=pytest.mark.slow),
    pytest.param([0.6, 0.6, 0.6], 400, 400, marks=pytest.mark.slow),
    pytest.param([0.3, 0.5, 0.8], 300, 400, marks=pytest.mark.slow)])
def test_rank_at_10_to_30_items_keeps_the_best_and_a_lone_top_is_tested(
        means, replays, resamples):
    # Issue 44: at 10 items the joint bootstrap alone left one of three
    # equal (independent 0/1) systems out of the top group in 8.0% of 400
    # replays, and named a lone top 6 times where McNemar's exact test
    # against the runner-up did not reject.  With the exact pairwise
    # tests joined to it: at most 5% (measured 0.3%, 2.5%, 1.0% at 10, 20
    # and 30 items), and a lone top (or any rank set of one) only beside
    # an exact test that rejects.
    found = _small_n_rank_replays(means, (10, 20, 30), replays, resamples,
                                  len(means) + replays)
    for n, (out, lone, untested) in found.items():
        assert untested == 0
        if len(set(means)) == 1:
            assert out / replays <= 0.05 + 2 * math.sqrt(0.05 * 0.95
                                                         / replays)
        else:
            assert out / replays <= 0.05
    if len(set(means)) > 1:             # the lone tops were there to test
        assert sum(lone for _, lone, _ in found.values()) > 0


def _runs(tmp_path, means, n=200):
    paths = []
    for k, p in enumerate(means):
        path = tmp_path / f"s{k}.jsonl"
        path.write_text("".join(
            json.dumps({"id": i, "acc": int(random.Random(i * 10 + k)
                                            .random() < p)}) + "\n"
            for i in range(n)))
        paths.append(str(path))
    return paths


def test_ranks_agree_with_the_top_group_and_ties_share_a_place(capsys,
                                                                tmp_path):
    # 10 items (lm-eval's winogrande logs: 80%, 30%, 0%): McNemar's exact
    # test keeps the second in the top group (p = 0.0625), where the
    # bootstrap's own rank intervals read 1 (1-1) and 2 (2-2.5): fractional
    # and excluding the first place the top group gives it.  Now ranks are
    # places (ties share the best, 1 1 3), the intervals' ends whole, and
    # each top-group member's interval reaches 1 (the best's, 2).
    columns = ([1] * 8 + [0] * 2, [1] * 3 + [0] * 7, [0] * 10)
    paths = []
    for name, column in zip("abc", columns):
        path = tmp_path / f"{name}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "acc": x}) + "\n"
                                for i, x in enumerate(column)))
        paths.append(str(path))
    for marginal in (["--marginal-ranks"], []):
        assert bed.main(["rank", *paths, "--json", "--resamples", "400",
                         *marginal]) == 0
        systems = json.loads(capsys.readouterr().out)["systems"]
        assert [s["top_group"] for s in systems] == [True, True, False]
        assert [s["rank"] for s in systems] == [1, 2, 3]
        (a_lo, a_hi), (b_lo, _), _ = (s["rank_ci"] for s in systems)
        assert a_lo == b_lo == 1 and a_hi >= 2
        assert all(x == int(x) for s in systems for x in s["rank_ci"])
    tied = bed._rank_systems(bed.collections.Counter(
        {(1, 1, 0): 6, (0, 0, 0): 4}), random.Random(1), list("abc"),
        bed._Options(resamples=200))
    assert tied.ranks == [1, 1, 3]


def test_rank_cli_text_json_and_pairs(capsys, tmp_path):
    paths = _runs(tmp_path, [0.5, 0.55, 0.8])
    status = bed.main(["rank", *paths, "--names", "x,y,z", "--json",
                       "--pairs", "--resamples", "300"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert [s["name"] for s in report["systems"]] == ["x", "y", "z"]
    assert [s["top_group"] for s in report["systems"]] == [False, False,
                                                          True]
    assert report["systems"][2]["rank"] == 1
    assert [(p["a"], p["b"]) for p in report["pairs"]] == [
        ("x", "y"), ("x", "z"), ("y", "z")]
    ps = [p["p"] for p in report["pairs"]]
    assert [p["p_holm"] for p in report["pairs"]] == pytest.approx(
        bed._holm(ps), rel=1e-12)
    status = bed.main(["rank", *paths, "--resamples", "300"])
    out = capsys.readouterr().out
    # systems named by what tells their paths apart, as compare names them:
    # here the files' names without the words they share (s2 of s2.jsonl)
    assert status == 0 and out.splitlines()[2].startswith(
        bed._run_names(paths)[2] + " ") and ".jsonl" not in out.splitlines()[2]
    assert "stands alone" in out


def test_rank_adjust_bh_adjusts_the_pairs_not_the_rank_sets(capsys,
                                                            tmp_path):
    # --adjust bh: the pairs' p-values BH-adjusted (said in the table and
    # the JSON); the rank sets and the top group keep Holm's, as the
    # report says, since a false discovery rate makes no sets that hold
    # at once.
    paths = _runs(tmp_path, [0.5, 0.6, 0.8], n=100)
    argv = ["rank", *paths, "--names", "x,y,z", "--pairs",
            "--resamples", "60"]
    reports = {}
    for adjust in ("holm", "bh"):
        assert bed.main(argv + ["--json", "--adjust", adjust]) == 0
        reports[adjust] = json.loads(capsys.readouterr().out)
    assert reports["bh"]["systems"] == reports["holm"]["systems"]
    pairs = reports["bh"]["pairs"]
    ps = [p["p"] for p in pairs]
    assert [p["p_adjusted"] for p in pairs] == pytest.approx(bed._bh(ps),
                                                             rel=1e-12)
    assert [p["p_holm"] for p in pairs] == pytest.approx(bed._holm(ps),
                                                         rel=1e-12)
    assert {p["adjust"] for p in pairs} == {"bh"}
    assert [p["verdict"] != "no detectable difference" for p in pairs] == [
        p < 0.05 for p in bed._bh(ps)]
    assert bed.main(argv + ["--adjust", "bh"]) == 0
    out = capsys.readouterr().out
    assert "paired differences, BH-adjusted (Benjamini-Hochberg) across " \
        "these 3:" in out and "p (BH)" in out
    assert "the rank sets and the top group keep Holm's adjustment" in out
    assert bed.main(argv) == 0
    assert "keep Holm's" not in capsys.readouterr().out


def test_rank_a_wide_file(capsys, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("item,m1,m2,m3\n" + "".join(
        f"{i},{i % 2},{i % 3 == 0:d},{i % 5 != 0:d}\n" for i in range(100)))
    status = bed.main(["rank", str(path), "--systems", "m1,m2,m3",
                       "--resamples", "200", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0
    assert [s["mean"] for s in report["systems"]] == [0.5, 0.34, 0.8]


def test_rank_baseline_against_compare(capsys, tmp_path):
    # rank --baseline gives, for each candidate, compare's paired numbers;
    # compare with several candidates Holm-adjusts across all of them.
    paths = _runs(tmp_path, [0.5, 0.55, 0.8])
    status = bed.main(["rank", *paths, "--names", "x,y,z", "--baseline",
                       "x", "--json", "--resamples", "300"])
    ranked = json.loads(capsys.readouterr().out)
    status = bed.main(["compare", *paths, "--json", "--resamples", "300"])
    compared = json.loads(capsys.readouterr().out)
    assert status == 0 and compared["baseline"] == paths[0]
    entries = [c["metrics"][0] for c in compared["comparisons"]]
    assert [c["candidate"] for c in compared["comparisons"]] == paths[1:]
    for pair, entry in zip(ranked["pairs"], entries):
        assert pair["a"] == "x"
        assert pair["difference"] == entry["observed"]["gap"]
        assert pair["p"] == entry["test"]["p"]
    ps = [e["test"]["p"] for e in entries]
    assert [e["test"]["p_holm"] for e in entries] == pytest.approx(
        bed._holm(ps), rel=1e-12)


def test_compare_several_candidates_text_and_fail_on(capsys, tmp_path):
    paths = _runs(tmp_path, [0.8, 0.8, 0.5])
    status = bed.main(["compare", *paths, "--resamples", "200",
                       "--fail-on", "worse"])
    out, err = capsys.readouterr()
    assert status == 1
    names = bed._run_names(paths)     # what tells them apart
    assert out.startswith(f"2 candidates against the baseline {names[0]}")
    assert f"baseline: {names[0]}   candidate: {names[2]}" in out
    assert f"--fail-on worse: {paths[2]}: acc is worse" in err
    status = bed.main(["compare", *paths, "--plot", str(tmp_path / "p.svg")])
    assert status == 2 and "--plot draws one comparison" in \
        capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["ONE"], "name each system's column with --systems"),
    (["ONE", "TWO", "--systems", "a,b"], "--systems names the columns"),
    (["ONE", "TWO", "--names", "a,b,c"], "--names gives 3 names for 2"),
    (["ONE", "TWO", "--baseline", "q"], "--baseline 'q' is none of"),
    (["ONE", "TWO", "--pairs", "--baseline", "ONE"], "not both"),
])
def test_rank_refuses(capsys, tmp_path, argv, message):
    one, two = _runs(tmp_path, [0.5, 0.6])
    argv = [{"ONE": one, "TWO": two}.get(a, a) for a in argv]
    status = bed.main(["rank", *argv, "--resamples", "100"])
    err = capsys.readouterr().err
    assert status == 2 and message in err


_VALUE = st.one_of(st.none(), st.booleans(), st.integers(-3, 3),
                   st.sampled_from([0.5, 1e300, "1", "x", [1], {"a": 1}]))


@settings(max_examples=20, deadline=None)
@given(runs=st.lists(st.lists(st.tuples(st.integers(0, 5), _VALUE),
                              min_size=1, max_size=6),
                     min_size=2, max_size=3),
       partial=st.booleans())
def test_random_runs_never_a_traceback(tmp_path_factory, runs, partial):
    folder = tmp_path_factory.mktemp("runs")
    paths = []
    for k, rows in enumerate(runs):
        path = folder / f"r{k}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "m": v}) + "\n"
                                for i, v in rows))
        paths.append(str(path))
    import contextlib
    import io
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = bed.main(["rank", *paths, "--resamples", "41"]
                          + ["--allow-partial"] * partial)
    assert status in (0, 2)
    if status == 2:
        assert out.getvalue() == "" and err.getvalue().count("\n") == 1


def test_forest_plot(capsys, tmp_path):
    import xml.etree.ElementTree as ET
    paths = _runs(tmp_path, [0.5, 0.55, 0.8])
    target = tmp_path / "forest.svg"
    status = bed.main(["rank", *paths, "--names", "x,y,z", "--resamples",
                       "300", "--plot", str(target)])
    capsys.readouterr()
    root = ET.parse(target).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    texts = [t.text for t in root.iter(ns + "text")]
    shaded = [r for r in root.iter(ns + "rect") if r.get("fill") == "#e8eef7"
              and r.get("stroke") is None]
    dots = list(root.iter(ns + "circle"))
    assert status == 0 and {"x", "y", "z", "top group"} <= set(texts)
    assert len(dots) == 3 and len(shaded) == 1          # z alone on top
    status = bed.main(["rank", *paths, "--plot", str(tmp_path / "f.png")])
    assert status == 2 and "ending in .svg" in capsys.readouterr().err


def test_three_tied_systems_share_the_ranks_and_the_top():
    tally = bed.collections.Counter({(1, 1, 1): 40, (0, 0, 0): 30,
                                     (1, 0, 0): 10, (0, 1, 0): 10,
                                     (0, 0, 1): 10})
    ranked = bed._rank_systems(tally, random.Random(5), list("abc"),
                               bed._Options(resamples=300))
    assert ranked.means == [bed.Fraction(1, 2)] * 3
    assert ranked.ranks == [1, 1, 1] and ranked.top == [True] * 3
    assert all(lo == 1 and hi == 3 for lo, hi in ranked.rank_cis)


def test_rank_by_subset(capsys, tmp_path):
    paths = []
    rows = []
    for k in range(3):
        data = [{"id": i, "subject": "ab"[i % 2],
                 "acc": int(random.Random(i * 13 + k).random()
                            < 0.6 + (0.2 if k == 2 and i % 2 else 0))}
                for i in range(300)]
        rows.append(data)
        path = tmp_path / f"s{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        paths.append(str(path))
    status = bed.main(["rank", *paths, "--by", "subject", "--json",
                       "--resamples", "200"])
    report = json.loads(capsys.readouterr().out)
    assert status == 0 and report["by"] == "subject"
    assert [s["subset"] for s in report["subsets"]] == ["a", "b"]
    for subset in report["subsets"]:
        for k, system in enumerate(subset["systems"]):
            picked = [r["acc"] for r in rows[k]
                      if r["subject"] == subset["subset"]]
            assert system["mean"] == sum(picked) / len(picked)
    assert [s["top_group"] for s in report["subsets"][1]["systems"]] == [
        False, False, True]


def test_lower_is_better_means_what_it_means_in_compare(capsys, tmp_path):
    # rank took --lower-is-better as a bare flag and compare as NAME: both
    # forms now work in rank, and a metric named for a latency is taken
    # as lower-is-better, said in the report, as compare does.
    rng = random.Random(4)
    paths = []
    for k, mu in enumerate((100, 120, 101)):
        path = tmp_path / f"r{k}.jsonl"
        path.write_text("".join(json.dumps({"id": i, "latency_ms": round(
            rng.gauss(mu, 10), 1)}) + "\n" for i in range(80)))
        paths.append(str(path))
    tops = []
    for extra in ([], ["--lower-is-better"], ["--lower-is-better",
                                               "latency_ms"]):
        assert bed.main(["rank", *paths, *extra, "--resamples", "200",
                         "--json"]) == 0
        report = json.loads(capsys.readouterr().out)
        tops.append([s["name"] for s in report["systems"] if s["top_group"]])
    assert tops[0] == tops[1] == tops[2]
    names = bed._run_names(paths)                      # the short names
    assert names[0] in tops[0] and names[1] not in tops[0]   # 100 vs 120 ms
    assert bed.main(["rank", *paths, "--higher-is-better", "latency_ms",
                     "--resamples", "200"]) == 0
    assert "(higher is better)" in capsys.readouterr().out
    assert bed.main(["rank", *paths, "--lower-is-better", "acc"]) == 2
    assert "rank ranks on 'latency_ms'" in capsys.readouterr().err


@pytest.mark.parametrize("size", [
    pytest.param(3, marks=pytest.mark.slow), pytest.param(5, marks=pytest.mark.slow), pytest.param(10, marks=pytest.mark.slow)])
def test_joint_rank_sets_hold_all_at_once(size):
    # Each system's marginal rank interval covers its own rank about 95% of
    # the time but all of them at once only 65-85% (issue 24); the joint
    # sets (Mogstad et al. 2024) hold for every system at once in >= 95%
    # of replays, within Monte Carlo error.  Systems a little apart.
    rng = random.Random(size)
    truth = [0.55 + 0.03 * k for k in range(size)]
    replays, joint, marginal = (30 if size == 3 else 60), 0, 0
    for _ in range(replays):
        tally = collections.Counter(
            tuple(int(rng.random() < p) for p in truth) for _ in range(300))
        r = bed._rank_systems(tally, rng, list(range(size)),
                              bed._Options(resamples=200))
        ranks = [size - k for k in range(size)]        # the truth's ranks
        joint += all(s.lo <= t <= s.hi for s, t in zip(r.joint_rank_cis,
                                                      ranks))
        marginal += all(lo <= t <= hi for (lo, hi), t in zip(r.rank_cis,
                                                            ranks))
    se = math.sqrt(0.05 * 0.95 / replays)
    assert joint / replays >= 0.95 - 2 * se
    assert joint >= marginal


def _continuous_tally(rng, truth, n, shared=0.6):
    """n items scored by each system: its mean, a shared item effect and
    noise, rounded to 1e-6 (continuous: nearly every value distinct)."""
    tally = collections.Counter()
    for _ in range(n):
        u = rng.gauss(0, 1)
        tally[tuple(round(m + shared * u + rng.gauss(0, 1), 6)
                      for m in truth)] += 1
    return tally


@pytest.mark.slow
def test_continuous_ranks_by_the_normal_law_agree_with_resampling():
    # rank of a continuous metric took 285 s at 3 x 10^5 items resampling
    # every item (issue 23); from 100 items it draws the means' joint
    # normal law instead.  Against 4,000 joint resamples of the same data:
    # the critical value within 5%, the same top group but where a gap to
    # the best lies between the two critical values, and rank sets within
    # one rank at either end.
    rng = random.Random(4)
    truth = [0.0, 0.1, 0.15, 0.3]
    for _ in range(2):
        tally = _continuous_tally(rng, truth, 400)
        fast = bed._rank_systems(tally, random.Random(1), list("abcd"),
                                 bed._Options(resamples=4000))
        slow = bed._rank_systems(tally, random.Random(1), list("abcd"),
                                 bed._Options(resamples=4000,
                                              method="resample"))
        assert fast.method == "saddlepoint" and slow.method == "resample"
        assert abs(fast.critical / slow.critical - 1) < 0.05
        best = max(fast.means)
        for m, a, b in zip(fast.means, fast.top, slow.top):
            between = (min(fast.critical, slow.critical) < best - m
                       <= max(fast.critical, slow.critical))
            assert a == b or between
        for got, want in zip(fast.joint_rank_cis, slow.joint_rank_cis):
            assert abs(got[0] - want[0]) <= 1 and abs(got[1] - want[1]) <= 1


@pytest.mark.parametrize("size", [3, pytest.param(5, marks=pytest.mark.slow)])
def test_continuous_joint_rank_sets_and_top_group_are_calibrated(size):
    # By the normal law: every true rank inside its joint set at once in
    # >= 95% of replays, and the true best in the top group in >= 95%.
    rng = random.Random(size + 20)
    truth = [0.12 * k for k in range(size)]
    ranks = [size - k for k in range(size)]
    replays, joint, best = (25 if size == 3 else 50), 0, 0
    for _ in range(replays):
        r = bed._rank_systems(_continuous_tally(rng, truth, 150), rng,
                              list(range(size)), bed._Options(resamples=400))
        assert r.method == "saddlepoint"
        joint += all(s.lo <= t <= s.hi for s, t in zip(r.joint_rank_cis,
                                                      ranks))
        best += r.top[-1]
    se = math.sqrt(0.05 * 0.95 / replays)
    assert joint / replays >= 0.95 - 2 * se
    assert best / replays >= 0.95 - 2 * se


def test_rank_markdown_keeps_read_lines_and_tables_apart(capsys):
    # The read: lines ran into the header as one paragraph, and the pairs'
    # table followed its sentence with no blank line, which markdown reads
    # as a paragraph, not a table.
    import os
    top = os.path.join(os.path.dirname(__file__), os.pardir, "datasets",
                       "examples")
    runs = [os.path.join(top, f"{name}.jsonl") for name in ("base", "cand")]
    assert bed.main(["rank", *runs, "--metric", "latency", "--pairs",
                     "--format", "markdown", "--resamples", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1] == "" and lines[2].startswith("- read: latency")
    at = next(k for k, line in enumerate(lines)
              if line.startswith("the paired difference"))
    assert lines[at + 1] == "" and lines[at + 2].startswith("| pair")


@settings(max_examples=20, deadline=None)
@given(values=st.lists(st.sampled_from([0.0, 1.0, -1.5, 2.0, 1e300, -0.0]),
                       max_size=12))
def test_places_by_sorting_are_places_by_counting(values):
    assert bed._places(values) == oracle.places(values)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2 ** 32), size=st.integers(2, 6),
       rows=st.integers(1, 60), constant=st.booleans())
def test_joint_rank_sets_a_column_at_a_time_are_the_straightforward_sets(
        seed, size, rows, constant):
    # _Columns summed in another order may differ in the last bit; the sets
    # are integers and agree unless a gap sits on c * se to that bit.
    rng = random.Random(seed)
    observed = [rng.choice([0.0, 1.0, 2.0, 2.0]) for _ in range(size)]
    drawn = [[x + rng.gauss(0, 1) for x in observed] for _ in range(rows)]
    if constant:                       # an anchored system: no spread
        for row in drawn:
            row[0] = observed[0]
    got = bed._joint_rank_sets(observed, drawn, 0.95)
    assert [tuple(i) for i in got] == oracle.joint_rank_sets(
        observed, drawn, 0.95)


@pytest.mark.parametrize("n, replays, least", [
    pytest.param(60, 20, 0.8, marks=pytest.mark.slow),
    pytest.param(60, 300, 0.93, marks=pytest.mark.slow),
    pytest.param(150, 300, 0.93, marks=pytest.mark.slow)])
def test_joint_mean_intervals_hold_all_at_once(n, replays, least):
    # --joint-intervals: five systems' means, scores sharing an item
    # effect, all covered at once in about 95% of replays (the 20-replay
    # bound is about 3 standard errors below).  150 items take the
    # joint normal law's draws (method auto), 60 the resamples.
    means = [0.5, 0.52, 0.55, 0.6, 0.61]
    rng = random.Random(n + replays)
    held = 0
    for _ in range(replays):
        tally = bed.collections.Counter()
        for _ in range(n):
            item = rng.gauss(0, 0.1)
            tally[tuple(round(m + item + rng.gauss(0, 0.1), 3)
                        for m in means)] += 1
        r = bed._rank_systems(tally, rng, list("abcde"),
                              bed._Options(resamples=400,
                                           joint_intervals=True))
        held += all(ci.lo <= m <= ci.hi for ci, m in zip(r.cis, means))
    assert held / replays >= least


def candidates(rng, n, gains, base=0.7, corr=0.5):
    """0/1 items of a baseline and candidates, correlated through a shared
    item difficulty; candidate k's true gain is gains[k]."""
    tally = bed.collections.Counter()
    z = bed.NormalDist()
    cuts = [z.inv_cdf(base + g) for g in [0.0] + list(gains)]
    for _ in range(n):
        shared = rng.gauss(0, 1)
        tally[tuple(int(corr * shared + (1 - corr * corr) ** 0.5
                        * rng.gauss(0, 1) < cut) for cut in cuts)] += 1
    return tally


@pytest.mark.parametrize("k, gains, replays, least", [
    pytest.param(5, [0.0] * 5, 20, 0.8, marks=pytest.mark.slow),
    pytest.param(5, [0.0] * 5, 300, 0.94, marks=pytest.mark.slow),
    pytest.param(25, [0.0] * 25, 200, 0.94, marks=pytest.mark.slow),
    pytest.param(5, [0.03, 0.01, 0.01, 0.0, 0.0], 300, 0.94,
                 marks=pytest.mark.slow)])
def test_the_best_candidates_gain_is_covered_whichever_was_picked(
        k, gains, replays, least):
    # Issue 37: the winner of K candidates has its own interval biased
    # toward a gain; the simultaneous intervals cover the winner's true
    # gain in at least 94% of replays (80% of 20, about 3 standard errors
    # below 95%), and every candidate's at once in at least 92.5% (2
    # standard errors of 200 replays below 95%; tests/benchmark.py --part
    # winners measured 94.3-97.3% over 300).
    rng = random.Random(k * 100 + replays)
    covered = together = hybrid = 0
    for _ in range(replays):
        b = bed._best_of(candidates(rng, 300, gains), rng,
                         bed._Options(resamples=400 if replays < 100
                                      else 1000, jobs=1))
        ci = b.joint[b.best]
        covered += ci.lo <= gains[b.best] <= ci.hi
        together += all(c.lo <= g <= c.hi for c, g in zip(b.joint, gains))
        hybrid += b.hybrid[1].lo <= gains[b.best] <= b.hybrid[1].hi
    assert covered / replays >= least
    assert together / replays >= least - 0.015   # every one: a bit less
    assert hybrid / replays >= least             # the hybrid interval too


def _normal_winners(rng, means, cov, replays):
    """Replays of gains drawn from N(means, cov) (cov by rows): the
    winner's hybrid (estimate, Interval) and its true mean, each."""
    k = len(means)
    factor = bed._cholesky([row[:] for row in cov])
    for _ in range(replays):
        e = [rng.gauss(0, 1) for _ in range(k)]
        x = [m + sum(factor[i][j] * e[j] for j in range(k))
             for i, m in enumerate(means)]
        best = max(range(k), key=x.__getitem__)
        yield bed._winner_hybrid(x, cov[best], best), means[best]


@pytest.mark.parametrize("means, replays, least", [
    ([0.0] * 5, 400, 0.93),
    pytest.param([3.0, 1.0, 1.0, 0.0, 0.0], 400, 0.93, marks=pytest.mark.slow),
    pytest.param([0.0] * 25, 2000, 0.94, marks=pytest.mark.slow)])
def test_the_hybrid_covers_and_is_median_unbiased_where_gains_are_normal(
        means, replays, least):
    # Under the normal law it assumes, the hybrid interval covers the
    # winner's mean 95% (at least 1 - alpha) and its estimate falls above
    # the mean half the time (within (1 +- beta) / 2, Andrews, Kitagawa
    # and McCloskey 2024, Proposition 6), however close the candidates.
    k = len(means)
    cov = [[1.0 if i == j else 0.3 for j in range(k)] for i in range(k)]
    found = list(_normal_winners(random.Random(k + replays), means, cov,
                                 replays))
    covered = sum(ci.lo <= m <= ci.hi for (_, ci), m in found) / replays
    above = sum(est >= m for (est, _), m in found) / replays
    spread = 3 * math.sqrt(0.25 / replays)
    assert covered >= least and abs(above - 0.5) <= spread


@settings(max_examples=8, deadline=None)
@given(data=st.data(), k=st.integers(2, 5))
def test_the_hybrid_matches_a_plain_computation(data, k):
    # The selection set from its formula against bisection on "the winner
    # is still the largest"; the truncated law by erf against Simpson.
    rows = [[data.draw(st.floats(-1, 1)) for _ in range(k)]
            for _ in range(k)]
    cov = [[sum(a * b for a, b in zip(r, s)) + (0.1 if r is s else 0.0)
            for s in rows] for r in rows]
    gains = [data.draw(st.floats(-1, 1)) for _ in range(k)]
    best = max(range(k), key=gains.__getitem__)
    assume(all(g < gains[best] - 1e-3 for g in gains[:best]
               + gains[best + 1:]))          # a tie lies on the law's edge
    found = bed._winner_hybrid(gains, cov[best], best)
    est, lo, hi = oracle.winner_hybrid(gains, cov[best], best)
    sd = math.sqrt(cov[best][best])
    assert found is not None
    assert found[0] == pytest.approx(est, abs=1e-6 * sd)
    assert found[1].lo == pytest.approx(lo, abs=1e-6 * sd)
    assert found[1].hi == pytest.approx(hi, abs=1e-6 * sd)


def test_best_of_reads_in_compare_and_json(capsys):
    import os
    ex = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                      "datasets", "examples")
    runs = [os.path.join(ex, f) for f in ("base.jsonl", "cand.jsonl",
                                          "cand2.jsonl", "cand3.jsonl")]
    assert bed.main(["compare", *runs, "--metric", "acc", "--resamples",
                     "200"]) == 0
    out = capsys.readouterr().out
    assert "best of 3 on acc: " in out and "accounting for the choice" in out
    assert bed.main(["compare", *runs, "--metric", "acc", "--resamples",
                     "200", "--json"]) == 0
    found = bed.json.loads(capsys.readouterr().out)["best_of"]
    assert found["metrics"][0]["best"].endswith("cand3.jsonl")
    assert bed.main(["compare", *runs[:3], "--metric", "acc", "--cluster",
                     "passage_id", "--resamples", "200"]) == 0
    assert ("max-t over one joint bootstrap of the 40 clusters of the 240 "
            "items") in capsys.readouterr().out
    assert bed.main(["compare", *runs[:3], "--metric", "acc", "--by",
                     "subject", "--resamples", "200"]) == 0
    assert "the choice is not accounted for with --by" in \
        capsys.readouterr().out


def test_best_of_at_few_items_claims_no_more_than_its_own_interval(
        capsys, tmp_path):
    # 10 items of 0/1 scores (lm-eval's winogrande logs of four models):
    # the normal law behind the choice-accounted intervals gave the best
    # [+41.5, +118.5] pts beside [+17.5, +97.5] on its own: past 100 pts
    # and above its own lower end.  Now both stay in [-1, 1] and reach at
    # least as low as its own; the line names it as the table does, and
    # says when the items every run has are fewer than its own.
    scores = ([0] * 10, [1] * 9 + [0], [1] * 3 + [0] * 7, [1] * 7 + [0] * 3)
    paths = []
    for name, column in zip(("base", "c1", "c2", "c3"), scores):
        rows = [{"id": i, "acc": x} for i, x in enumerate(column)]
        if name in ("base", "c1"):              # an item c2 and c3 lack
            rows.append({"id": 10, "acc": int(name == "c1")})
        path = tmp_path / name / "run.jsonl"
        path.parent.mkdir()
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))
        paths.append(str(path))
    argv = ["compare", *paths, "--metric", "acc", "--allow-partial",
            "--resamples", "400"]
    assert bed.main(argv + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    found = report["best_of"]["metrics"][0]
    own = report["comparisons"][0]["metrics"][0]["ci"]["paired_gap"]
    joint, hybrid = found["simultaneous_ci"][0], found["hybrid"]["ci"]
    assert -1 <= joint[0] <= own[0] and own[1] <= joint[1] <= 1
    assert -1 <= hybrid[0] <= own[0] and hybrid[1] <= 1
    assert bed.main(argv) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.startswith("best of 3 on acc: c1, +90.0 pts as observed on "
                           "the 10 items every run has (+90.9 pts on its "
                           "11 items; 95% CI")


def test_rank_one_promptfoo_file_of_every_provider(capsys):
    # Issue 36: rank on one promptfoo file asked for --systems, and its
    # --allow-partial hint led to "--allow-partial is for several runs".
    # Every provider is a system by default, the metric is promptfoo's
    # pass/fail (success), and --allow-partial leaves out the tests with
    # an API error, saying how many.
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "fixtures", "promptfoo")
    assert bed.main(["rank", os.path.join(fixtures, "results.json"),
                     "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 systems, 14 items, metric success")
    errored = os.path.join(fixtures, "results-errored.json")
    assert bed.main(["rank", errored, "--resamples", "100"]) == 2
    assert "--allow-partial" in capsys.readouterr().err
    assert bed.main(["rank", errored, "--allow-partial", "--resamples",
                     "100"]) == 0
    out = capsys.readouterr().out
    assert "13 items" in out.splitlines()[0]
    assert "1 test with API errors left out (--allow-partial)" in out


def clustered_candidates(rng, clusters, size, gains, spread=0.5):
    """Continuous scores of a baseline and candidates on *clusters*
    clusters of *size* items: each system has its own effect in each
    cluster (SD *spread*), so the gains vary by cluster; candidate k's
    true gain is gains[k].  Returns {cluster: tally}."""
    tally = {}
    for g in range(clusters):
        shared = rng.gauss(0, 1)
        effects = [m + rng.gauss(0, spread) for m in [0.0] + list(gains)]
        part = tally[g] = collections.Counter()
        for _ in range(size):
            item = shared + rng.gauss(0, 1)
            part[tuple(round(item + e + rng.gauss(0, 0.5), 3)
                       for e in effects)] += 1
    return tally


@pytest.mark.parametrize("k, replays, least", [
    pytest.param(5, 16, 0.8, marks=pytest.mark.slow),
    pytest.param(5, 300, 0.92, marks=pytest.mark.slow),
    pytest.param(25, 200, 0.92, marks=pytest.mark.slow)])
def test_the_best_of_clustered_candidates_is_covered(k, replays, least):
    # Gains that vary by cluster: resampling items would take 30 clusters
    # of 10 for 300 independent items; the clusters resampled whole (and
    # their totals' covariance for the hybrid) cover the winner's gain,
    # where the items' intervals fall short.
    rng = random.Random(k * 7 + replays)
    gains = [0.0] * k
    joint = hybrid = naive = 0
    for _ in range(replays):
        tally = clustered_candidates(rng, 30, 10, gains)
        options = bed._Options(resamples=400 if replays > 30 else 200,
                               jobs=1)
        b = bed._best_of(tally, rng, options)
        flat = sum(tally.values(), collections.Counter())
        items = bed._best_of(flat, rng, options)
        assert b.clusters == 30 and items.clusters is None
        joint += b.joint[b.best].lo <= 0 <= b.joint[b.best].hi
        hybrid += b.hybrid[1].lo <= 0 <= b.hybrid[1].hi
        naive += items.joint[items.best].lo <= 0 <= items.joint[items.best].hi
    assert joint / replays >= least and hybrid / replays >= least
    assert naive < joint


def test_rank_says_one_run_given_twice(capsys, tmp_path):
    paths = _runs(tmp_path, [0.5, 0.7], n=30)
    copy = tmp_path / "copy.jsonl"
    copy.write_bytes(open(paths[0], "rb").read())
    # the same path twice: refused in one line, as a phantom system would
    # take a rank and shift the others'
    assert bed.main(["rank", paths[0], paths[1], paths[0]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "s0.jsonl: given twice" in err
    battles = os.path.join(os.path.dirname(__file__), "fixtures",
                           "preferences", "battles.json")
    assert bed.main(["rank", battles, battles]) == 2   # battles twice
    assert capsys.readouterr().err.count("given twice") == 1
    # a byte-identical copy: ranked, and said in one note
    assert bed.main(["rank", paths[0], paths[1], str(copy),
                     "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert out.count("one run given twice?") == 1
    assert "s0 and copy are the same bytes" in out
    # other bytes, the same scores on every item (not all 0 or 1)
    other = tmp_path / "other.jsonl"
    other.write_text("".join(json.dumps({"acc": i / 7, "id": i}) + "\n"
                             for i in range(30)))
    again = tmp_path / "again.jsonl"
    again.write_text("".join(json.dumps({"id": i, "acc": i / 7}) + "\n"
                             for i in range(30)))
    assert bed.main(["rank", str(other), paths[1], str(again),
                     "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "other and again score the same on every item" in out
    # 0/1 runs that agree on every item are common: no note
    assert bed.main(["rank", paths[0], paths[1], "--resamples", "100"]) == 0
    assert "given twice" not in capsys.readouterr().out


def test_rank_names_runs_as_compare_does_in_every_format(capsys, tmp_path):
    # HELM names a run by its whole spec; rank kept it ('mmlu-subject=
    # philosophy,method=multiple_choice_joint,model=a') in its table, JSON,
    # page and plots, where compare says 'model=a': one rule (_run_names)
    # now names them both, and --names still overrides it.
    helm = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures", "helm-runs")
    runs = sorted(os.path.join(helm, d) for d in os.listdir(helm))
    argv = ["rank", *runs, "--metric", "exact_match", "--resamples", "100"]
    assert bed.main(argv + ["--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert sorted(s["name"] for s in report["systems"]) == [
        "model=a", "model=b"]
    assert bed.main(argv) == 0
    table = capsys.readouterr().out.split("\nsystem ")[1].splitlines()
    assert [row.split()[0] for row in table[1:3]] == ["model=b", "model=a"]
    assert bed.main(argv + ["--format", "html"]) == 0
    page = capsys.readouterr().out
    assert ">model=a</text>" in page and "subject=philosophy" not in "".join(
        page.split("<h2>Read</h2>")[0].split("<h2>Plots</h2>")[1:])
    assert bed.main(["compare", *runs, "--metric", "exact_match"]) == 0
    assert capsys.readouterr().out.startswith(
        "baseline: model=a   candidate: model=b")
    assert bed.main(argv + ["--names", "A,B", "--json"]) == 0
    assert sorted(s["name"] for s in json.loads(
        capsys.readouterr().out)["systems"]) == ["A", "B"]


def test_rank_page_keeps_long_names_legible(capsys, tmp_path):
    # Names as long as HELM's made the forest plot 1181 px wide, shown in
    # a 619 px column of the page at 1280 px (names 6.3 px high), and the
    # matrix's turned column names pushed its cells 430 px down.  Now a
    # name wider than the margin is cut in its middle, whole on hover (an
    # SVG <title>), and on a phone the two plots keep their size and
    # scroll (class "named"; measured with headless Chromium).
    import re
    names = [f"bbq:subject=all;method=multiple_choice_joint;model={m}"
             for m in ("openai_gpt-4o-2024-05-13", "lgai_exaone-3.0-7.8b",
                       "upstage_solar-10.7b-v1.0", "meta_llama-3.1-8b")]
    rng = random.Random(3)
    wide = tmp_path / "wide.csv"
    wide.write_text("id," + ",".join(names) + "\n" + "".join(
        f"{i}," + ",".join(str(int(rng.random() < p))
                           for p in (.5, .6, .7, .8)) + "\n"
        for i in range(60)))
    assert bed.main(["rank", str(wide), "--systems", ",".join(names),
                     "--resamples", "100", "--format", "html"]) == 0
    page = capsys.readouterr().out
    forest, matrix = re.findall(r"<svg .*?</svg>", page, re.S)
    for svg in (forest, matrix):
        assert 'class="named"' in svg
        assert sorted(set(re.findall(r"<title>([^<]*)</title>", svg))) == \
            sorted(names)                  # each whole name, on hover
    width = float(re.search(r'width="([\d.]+)"', forest).group(1))
    size = float(re.search(r'text-anchor="end" font-size="([\d.]+)"',
                           forest).group(1))
    assert size * min(1, 619 / width) >= 9.5    # px, at 1280 px wide
    height = float(re.search(r'height="([\d.]+)"', matrix).group(1))
    cell = float(re.search(r'<rect x="[\d.]+" y="[\d.]+" width="([\d.]+)"',
                           matrix.split("</text>", 2)[-1]).group(1))
    assert height - 4 * cell <= 60 + 132 + 10   # the turned names' room
    assert "svg.named{max-width:none}" in page.split("</style>")[0]


def test_rank_by_signal_to_noise(capsys, tmp_path):
    # Heineman et al. (2025): per subset, the spread of the systems' means
    # against one mean's standard error; computed here by hand from the
    # rows. A task where the three systems differ by 35 points a step
    # separates them; one where they share a rate of 0.5 does not.
    paths, rows = [], []
    for k in range(3):
        rng = random.Random(k)
        data = [{"id": i, "subject": "clear" if i < 30 else "noisy",
                 "acc": int(rng.random() < (0.2 + 0.35 * k if i < 30
                                            else 0.5))} for i in range(60)]
        rows.append(data)
        path = tmp_path / f"s{k}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        paths.append(str(path))
    assert bed.main(["rank", *paths, "--by", "subject", "--json",
                     "--resamples", "200"]) == 0
    report = json.loads(capsys.readouterr().out)
    for subset in report["subsets"]:
        picked = [[r["acc"] for r in data if r["subject"] == subset["subset"]]
                  for data in rows]
        means = [sum(x) / len(x) for x in picked]
        se = math.sqrt(statistics.fmean(statistics.variance(x)
                                        for x in picked) / len(picked[0]))
        got = subset["signal_to_noise"]
        assert got["spread"] == pytest.approx(max(means) - min(means))
        assert got["se"] == pytest.approx(se)
        assert got["snr"] == pytest.approx((max(means) - min(means)) / se)
        assert got["snr_needed"] == pytest.approx(subset["critical"] / se)
    assert [s["signal_to_noise"]["separates"] for s in report["subsets"]] \
        == [True, False]
    assert bed.main(["rank", *paths, "--by", "subject", "--resamples",
                     "200"]) == 0
    text = capsys.readouterr().out
    assert "signal and noise per subject (Heineman et al. 2025)" in text
    assert "1 of the 2 values of subject separates the systems at this " \
           "size: clear (" in text
    assert bed.main(["rank", *paths, "--by", "subject", "--resamples",
                     "200", "--format", "html"]) == 0
    page = capsys.readouterr().out
    assert "signal and noise per subject" in page and "SNR needed" in page
    assert bed.main(["rank", *paths, "--resamples", "200"]) == 0
    assert "signal and noise" not in capsys.readouterr().out
    bed.main(["check", *paths])              # check points to it
    assert "--by subject\n      which values of subject can tell the 3 " \
           "systems apart: signal and noise" in capsys.readouterr().out
