"""plan: bivariate normal cells, exact McNemar power, items needed."""
import json
import os
import math
import random

import pytest

import bootstrap_eval_deltas as bed
import designs
import oracle


@pytest.mark.parametrize("h, k, rho", [
    (0.5828, 0.7063, 0.36), (0.0, 0.0, 0.5), (-1.2, 0.3, 0.9),
    (1.5, -0.4, 0.99), (0.3, 0.3, 0.0), (-2.5, -2.0, 0.7)])
def test_bivariate_normal_against_direct_integration(h, k, rho):
    assert bed._bivariate_normal_cdf(h, k, rho) == pytest.approx(
        oracle.bivariate_normal_cdf(h, k, rho), abs=1e-9)


@pytest.mark.slow                # against scipy: python3 -m pytest -m slow
def test_bivariate_normal_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for h, k, rho in [(0.58, 0.71, 0.36), (-1.0, 2.0, 0.8), (0.1, 0.2, 0.95)]:
        theirs = stats.multivariate_normal(
            mean=[0, 0], cov=[[1, rho], [rho, 1]]).cdf([h, k])
        assert bed._bivariate_normal_cdf(h, k, rho) == pytest.approx(
            theirs, abs=1e-7)


def test_cells_match_the_simulators_items():
    # 100,000 items of the article's simulator: each cell's share has a
    # standard error near 0.0013; allow four of them.
    design = bed._copula_design(0.72, 0.76, 0.6)
    items = bed.simulate(random.Random(8), 100000)
    for cell, chance in (((1, 0), design.p10), ((0, 1), design.p01)):
        share = items.count(cell) / len(items)
        se = math.sqrt(chance * (1 - chance) / len(items))
        assert abs(share - chance) < 4 * se


def test_power_of_the_simulators_items():
    # McNemar on items from simulate() itself, not the cell counts.
    design = bed._copula_design(0.72, 0.76, 0.6)
    rng = random.Random(6)
    hits = sum(bed.mcnemar_exact(bed.simulate(rng, 500)).p_exact <= 0.05
               for _ in range(150))
    power = bed._mcnemar_power(500, design)
    assert abs(hits / 150 - power) < 4 * math.sqrt(power * (1 - power) / 150)


@pytest.mark.parametrize("n, seed", [(250, 1), (500, 2), (1000, 3),
                                     (2000, 4)])
def test_exact_power_matches_simulated_power(n, seed):
    design = bed._copula_design(0.72, 0.76, 0.6)
    replays = 400
    hits, _ = bed._simulated_power(random.Random(seed), n, replays=replays)
    power = bed._mcnemar_power(n, design)
    se = math.sqrt(power * (1 - power) / replays)
    assert abs(hits / replays - power) < 4 * se


@pytest.mark.parametrize("n, p10, p01", [(8, 0.1, 0.3), (12, 0.2, 0.25),
                                         (10, 0.05, 0.4)])
def test_power_against_every_outcome(n, p10, p01):
    design = bed._Design(0.5, 0.5 + p01 - p10, p10, p01)
    assert bed._mcnemar_power(n, design) == pytest.approx(
        oracle.mcnemar_power(n, p10, p01, bed.Fraction(1, 20)), abs=1e-12)


def test_items_needed_is_the_first_n_reaching_the_target():
    design = bed._copula_design(0.72, 0.76, 0.6)
    n = bed._items_for_power(design)
    assert bed._mcnemar_power(n, design) >= 0.8
    assert bed._mcnemar_power(n - 1, design) < 0.8
    assert bed._connor_items(design) == 1488 and n == 1533


def test_connor_by_hand():
    design = bed._discordance_design(0.5, 0.6, 0.3)      # p10 0.1, p01 0.2
    z = bed.NormalDist().inv_cdf
    expected = ((z(0.975) * math.sqrt(0.3) + z(0.8) * math.sqrt(0.3 - 0.01))
                ** 2 / 0.01)
    assert bed._connor_items(design) == math.ceil(expected)


def test_detectable_gap_reaches_power_and_no_less():
    make = lambda b: bed._copula_design(0.72, b, 0.6)   # noqa: E731
    gap = bed._detectable_gap(500, make, 0.72)
    assert bed._mcnemar_power(500, make(0.72 + gap)) >= 0.8
    assert bed._mcnemar_power(500, make(0.72 + gap - 2e-5)) < 0.8


def run(capsys, *argv):
    status = bed.main(["plan", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_plan_text_for_the_article(capsys):
    status, out, _ = run(capsys, "--n-items", "500")
    lines = out.splitlines()
    assert status == 0
    assert lines[2] == ("items for 80% power at alpha 0.05, McNemar's exact "
                        "test: 1533 (Connor 1987 approximation: 1488)")
    assert lines[-1].split() == ["500", "0.339", "+7.0", "pts", "4.8", "pts"]


def test_plan_json_and_simulate(capsys):
    status, out, _ = run(capsys, "--json", "--simulate", "--replays", "50",
                         "--n-items", "300", "--acc-b", "0.8")
    report = json.loads(out)
    assert status == 0
    assert set(report) >= {"discordance", "p10", "p01", "items_needed",
                           "items_needed_connor", "unpaired_items_needed",
                           "power_at", "mde_at", "simulated"}
    assert set(report["simulated"]) == {str(report["items_needed"]), "300"}
    assert report["simulated"]["300"]["replays"] == 50


@pytest.mark.parametrize("argv, message", [
    (["--gap", "0.05", "--acc-b", "0.8"], "give --acc-b or --gap"),
    (["--acc-a", "0.9", "--gap", "0.2"], "acc-a + gap must be in (0, 1)"),
    (["--discordance", "0.01", "--acc-b", "0.9"], "is impossible"),
    (["--discordance", "0.3", "--simulate"], "needs --corr"),
])
def test_plan_errors(capsys, argv, message):
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and message in err


def test_plan_corr_and_discordance_exclude_each_other(capsys):
    with pytest.raises(SystemExit) as stop:
        bed.main(["plan", "--corr", "0.5", "--discordance", "0.3"])
    assert stop.value.code == 2
    assert "not allowed with argument" in capsys.readouterr().err


def test_plan_from_pilot_csv(capsys):
    shipped = __file__.replace("tests/test_power.py",
                               "datasets/bootstrap-eval-deltas.csv")
    status, out, _ = run(capsys, "--from", shipped)
    design = bed._discordance_design(0.712, 0.748, 152 / 500)
    needed = bed._items_for_power(design)
    assert status == 0
    assert out.strip() == (
        f"correct (500 pilot items, observed gap +3.6 pts): discordance "
        f"0.3040; {needed} items detect +3.6 pts with 80% power (McNemar "
        f"exact, alpha 0.05)")


def test_plan_gap_per_metric(capsys, tmp_path):
    # Issue 58: plan --from A B --gap 0.03 sized every metric for 0.03,
    # latency in ms included ("91,319,170 items").  A bare gap is a gap of
    # 0/1 scores and sizes the 0/1 metrics only, a line saying so; NAME=G
    # sizes one metric in its units.
    rng = random.Random(58)
    paths = []
    for side, acc, ms in (("a", 0.70, 900), ("b", 0.74, 880)):
        path = tmp_path / f"{side}.jsonl"
        path.write_text("".join(json.dumps(
            {"id": i, "acc": int(rng.random() < acc),
             "latency_ms": round(rng.gauss(ms, 150), 1)}) + "\n"
            for i in range(200)))
        paths.append(str(path))
    status, out, _ = run(capsys, "--from", *paths, "--gap", "0.03",
                         "--json")
    found = {m["metric"]: m for m in json.loads(out)["metrics"]}
    assert status == 0 and found["acc"]["gap"] == 0.03
    latency = found["latency_ms"]
    assert latency["gap"] == latency["observed_gap"]
    assert latency["items_needed"] < 10 ** 4
    assert "sizes acc; latency_ms at the pilot's own gap" in json.loads(
        out)["notes"][0]
    status, out, _ = run(capsys, "--from", *paths, "--gap", "0.03",
                         "--gap", "latency_ms=-50")
    acc, latency = out.splitlines()
    assert "detect +3.0 pts" in acc and "detect -50 with" in latency
    # with repeats, and with folders of runs, a bare gap sizes 0/1 only
    # too, and says so (the two paths kept their own lookups)
    for side in ("ra", "rb"):
        folder = tmp_path / side
        folder.mkdir()
        for k in range(3):
            (folder / f"run{k}.jsonl").write_text("".join(json.dumps(
                {"id": i, "acc": int(rng.random() < 0.7),
                 "latency_ms": round(rng.gauss(900, 150), 1)}) + "\n"
                for i in range(60)))
    status, out, _ = run(capsys, "--from", str(tmp_path / "ra"),
                         str(tmp_path / "rb"), "--runs", "--gap", "0.03")
    assert status == 0 and "sizes acc; latency_ms at the pilot's own" in out
    repeated = tmp_path / "rep.jsonl", tmp_path / "rep2.jsonl"
    for path in repeated:
        path.write_text("".join(json.dumps(
            {"id": i, "acc": int(rng.random() < 0.7),
             "latency_ms": round(rng.gauss(900, 150), 1)}) + "\n"
            for i in range(60) for _ in range(3)))
    status, out, _ = run(capsys, "--from", *map(str, repeated), "--repeats",
                         "3", "--gap", "0.03")
    assert status == 0 and "latency_ms: gap +0.03" not in out
    assert "sizes acc; latency_ms at the pilot's own gap" in out
    for argv, words in ((["--from", *paths, "--gap", "ms=5"],
                         "no metric 'ms'; the metrics are acc, latency_ms"),
                        (["--from", *paths, "--gap", "0.1", "--gap", "0.2"],
                         "name the metric"),
                        (["--gap", "acc=0.1"], "goes with --from")):
        status, out, err = run(capsys, *argv)
        assert status == 2 and out == "" and words in err


def test_pilot_plan_continuous_uses_the_paired_sd():
    a = [0.1, 0.4, 0.35, 0.9, 0.2, 0.5]
    b = [0.2, 0.45, 0.3, 1.0, 0.3, 0.55]
    spread = bed._tally_spread(bed.collections.Counter(zip(a, b)), metric="f1")
    line = bed._pilot_plan(spread, bed._detection(spread, gap=0.05),
                          gap=0.05)
    sd = bed.statistics.stdev([bed.Fraction(repr(y)) - bed.Fraction(repr(x))
                               for x, y in zip(a, b)])
    z = bed.NormalDist().inv_cdf(0.975) + bed.NormalDist().inv_cdf(0.8)
    assert f"about {math.ceil((z * sd / 0.05) ** 2 - 1e-9)} items" in line


def test_pilot_gap_impossible_with_its_discordance():
    spread = bed._tally_spread(bed.collections.Counter(
        {(1, 1): 9, (0, 1): 3}), metric="acc")
    line = bed._pilot_plan(spread, bed._detection(spread, gap=0.5),
                          gap=0.5)
    assert "cannot arise with the discordance 0.2500" in line


def test_repeats_divide_only_the_within_item_variance():
    design = bed._copula_design(0.72, 0.76, 0.6)
    total = design.discordance - (design.p01 - design.p10) ** 2
    table = bed._items_with_repeats(design, 0.15, [1, 2, 4])
    z = bed.NormalDist().inv_cdf(0.975) + bed.NormalDist().inv_cdf(0.8)
    delta = design.p01 - design.p10
    for k in (1, 2, 4):
        assert table[k] == math.ceil((z / delta) ** 2
                                     * (total - 0.15 + 0.15 / k) - 1e-9)
    assert table[1] > table[2] > table[4] > table[None]
    no_within = bed._items_with_repeats(design, 0.0, [1, 8])
    assert no_within[1] == no_within[8] == no_within[None]


def test_repeats_cli(capsys):
    status, out, _ = run(capsys, "--repeats", "4", "--within-var", "0.28",
                         "--n-items", "500")
    assert status == 0 and "repeats per item (Miller 2024)" in out
    assert out.strip().endswith("save less than 5% of the items") or \
        "every repeat shown" in out
    status, _, err = run(capsys, "--repeats", "4")
    assert status == 2 and "--repeats needs --within-var" in err
    status, _, err = run(capsys, "--repeats", "2", "--within-var", "0.9")
    assert status == 2 and "within-item variance must be in [0, 0.3021]" in err


def test_plan_plot_is_valid_svg(capsys, tmp_path):
    import xml.etree.ElementTree as ET
    target = tmp_path / "power.svg"
    status, out, _ = run(capsys, "--n-items", "500", "--plot", str(target))
    root = ET.parse(target).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    assert status == 0 and root.tag == ns + "svg"
    texts = [t.text for t in root.iter(ns + "text")]
    assert "1533 items for 80% power" in texts and "items" in texts
    assert texts[0] == "Power to detect +4.0 pts (A=0.72, B=0.76)"
    assert len(list(root.iter(ns + "path"))) == 1
    assert [p.name for p in tmp_path.iterdir()] == ["power.svg"]


def test_repeats_estimated_by_moments():
    a = {"q1": [0.0, 1.0], "q2": [1.0, 1.0], "q3": [0.0, 0.0]}
    b = {"q1": [1.0, 1.0], "q2": [1.0, 0.0], "q3": [1.0, 0.0]}
    table, within, between, gap = bed._repeats_from_samples(a, b, [1, 2])
    # item differences 0.5, -0.5, 0.5; within-item variances 0.5, 0.5, 0.5
    assert gap == pytest.approx(1 / 6)
    assert within == pytest.approx(0.5)
    noise = 0.25                              # (0.5 / 2) for each item
    assert between == max(0.0, bed.statistics.variance([0.5, -0.5, 0.5])
                          - noise)
    z = bed.NormalDist().inv_cdf(0.975) + bed.NormalDist().inv_cdf(0.8)
    assert table[2] == math.ceil((z / gap) ** 2 * (between + 0.25) - 1e-9)


def test_repeats_need_two_samples_and_the_same_items():
    with pytest.raises(bed.EvalDeltaError, match="fewer than two samples"):
        bed._repeats_from_samples({"q": [1.0]}, {"q": [1.0, 0.0]}, [1])
    with pytest.raises(bed.EvalDeltaError, match="1 items sampled in one"):
        bed._repeats_from_samples({"q": [1.0, 0.0]},
                                 {"q": [1.0, 0.0], "r": [0.0, 1.0]}, [1])


def test_plan_from_repeated_samples_cli(capsys, tmp_path):
    rows_a = [{"id": i, "s": (i + j) % 3 / 2} for i in range(30)
              for j in range(3)]
    rows_b = [{"id": i, "s": (i + j + 1) % 3 / 2 + 0.1} for i in range(30)
              for j in range(3)]
    paths = []
    for name, rows in (("a.jsonl", rows_a), ("b.jsonl", rows_b)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n"
                                             for r in rows))
        paths.append(str(tmp_path / name))
    status, out, _ = run(capsys, "--from", *paths, "--repeats", "4")
    assert status == 0
    assert out.startswith("s: gap +0.1; between-item variance")
    assert "(estimated from the repeated samples)" in out


# The fast power engine against the straightforward sums ##################

from hypothesis import example  # noqa: E402
from hypothesis import given  # noqa: E402
from hypothesis import settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


@settings(max_examples=20, deadline=None)
@given(k=st.integers(0, 400), n=st.integers(0, 400),
       p=st.sampled_from([0.5, 0.3, 0.01, 0.999, 0.125, 0.7]))
def test_binomial_pmf_against_exact_fractions(k, n, p):
    k = min(k, n)
    exact = (bed.Fraction(math.comb(n, k)) * bed.Fraction(p) ** k
             * (1 - bed.Fraction(p)) ** (n - k))
    got = bed._binomial_pmf(k, n, p)
    assert got == pytest.approx(float(exact), rel=1e-12, abs=1e-300)


@settings(max_examples=8, deadline=None)
@given(n=st.integers(1, 9), p10=st.integers(0, 10), p01=st.integers(0, 10),
       alpha=st.sampled_from([0.05, 0.01, 0.0625, 0.1]))
@example(n=5, p10=2, p01=6, alpha=0.0625)      # 2 P(X <= 0) = alpha at m=5
def test_power_against_every_outcome_in_fractions(n, p10, p01, alpha):
    p10, p01 = p10 / 20, p01 / 20
    design = bed._Design(0.5, 0.5, p10, p01)
    assert bed._mcnemar_power(n, design, alpha=alpha) == pytest.approx(
        oracle.mcnemar_power(n, p10, p01, bed._exact(alpha)), abs=1e-12)


@pytest.mark.parametrize("n, p10, p01", [
    (300, 0.13, 0.17), pytest.param(1200, 0.08, 0.12, marks=pytest.mark.slow),
    (500, 0.0, 0.05), pytest.param(2000, 0.0, 0.05, marks=pytest.mark.slow),
    pytest.param(900, 0.3, 0.3, marks=pytest.mark.slow)])
def test_power_against_the_sum_over_every_m(n, p10, p01):
    design = bed._Design(0.5, 0.5, p10, p01)
    assert bed._mcnemar_power(n, design) == pytest.approx(
        oracle.mcnemar_power_by_m(n, p10, p01, bed.Fraction(1, 20)),
        abs=1e-10)


@settings(max_examples=8, deadline=None)
@given(p10=st.integers(0, 15), extra=st.integers(8, 40),
       alpha=st.sampled_from([0.05, 0.01]),
       power=st.sampled_from([0.5, 0.8, 0.9]))
def test_items_for_power_is_the_first_n_stepping_up(p10, extra, alpha, power):
    design = bed._Design(0.5, 0.5, p10 / 100, (p10 + extra) / 100)
    n = bed._items_for_power(design, alpha=alpha, power=power)
    first = next(m for m in range(1, n + 1)
                 if bed._mcnemar_power(m, design, alpha=alpha) >= power)
    assert n == first


def test_plan_with_a_discordance(capsys):
    # It failed for almost every D: the search left the feasible accuracies.
    status, out, err = run(capsys, "--acc-a", "0.72", "--acc-b", "0.76",
                           "--discordance", "0.2", "--n-items", "100,500",
                           "--json")
    report = json.loads(out)
    assert status == 0 and err == ""
    assert (report["p10"], report["p01"]) == (0.08, 0.12)
    design = bed._Design(0.72, 0.76, 0.08, 0.12)
    assert report["power_at"]["100"] == bed._mcnemar_power(100, design)
    assert report["power_at"]["100"] == pytest.approx(
        oracle.mcnemar_power_by_m(100, 0.08, 0.12, bed.Fraction(1, 20)),
        abs=1e-12)
    gap = report["mde_at"]["500"]
    most = bed._most_accuracy(0.72, 0.2)
    assert 0 < gap <= most - 0.72
    make = lambda b: bed._discordance_design(0.72, b, 0.2)   # noqa: E731
    assert bed._mcnemar_power(500, make(0.72 + gap)) >= 0.8
    assert bed._mcnemar_power(500, make(0.72 + gap - 2e-6)) < 0.8


def test_detectable_gap_beyond_reach_at_a_small_discordance():
    make = lambda b: bed._discordance_design(0.72, b, 0.01)  # noqa: E731
    assert bed._detectable_gap(50, make, 0.72,
                              most=bed._most_accuracy(0.72, 0.01)) is None


def test_tiny_alpha_does_not_crash(capsys):
    status, out, err = run(capsys, "--alpha", "1e-16", "--n-items", "500")
    assert status == 0 and err == "" and "items for 80% power" in out


@pytest.mark.parametrize("argv, message", [
    (["--from", "PILOT", "--n-items", "100"], "--n-items does not go with --from"),
    (["--from", "PILOT", "--simulate"], "--simulate does not go with --from"),
    (["--from", "PILOT", "--plot", "p.svg"], "--plot does not go with --from"),
    (["--from", "PILOT", "--acc-a", "0.6"], "--acc-a does not go with --from"),
    (["--from", "PILOT", "--discordance", "0.2"], "--discordance does not go"),
    (["--from", "PILOT", "--within-var", "0.1", "--repeats", "2"],
     "--within-var does not go with --from"),
    (["--metric", "acc"], "--metric goes with --from"),
    (["--cluster", "c"], "--cluster goes with --from"),
    (["--replays", "10"], "--replays goes with --simulate"),
    (["--seed", "3"], "--seed goes with --simulate"),
])
def test_plan_refuses_options_it_would_ignore(capsys, argv, message):
    shipped = __file__.replace("tests/test_power.py",
                               "datasets/bootstrap-eval-deltas.csv")
    argv = [shipped if a == "PILOT" else a for a in argv]
    status, out, err = run(capsys, *argv)
    assert status == 2 and out == "" and message in err


def test_plan_from_json(capsys):
    shipped = __file__.replace("tests/test_power.py",
                               "datasets/bootstrap-eval-deltas.csv")
    status, out, _ = run(capsys, "--from", shipped, "--json")
    (entry,) = json.loads(out)["metrics"]
    assert status == 0
    assert (entry["metric"], entry["items_needed"], entry["method"]) == (
        "correct", 1890, "McNemar exact")
    assert entry["discordance"] == 0.304


def test_plan_from_with_clusters_uses_the_clustered_se(capsys, tmp_path):
    rows_a = [{"id": i, "c": i // 5, "s": (i * 7 % 11) / 10}
              for i in range(100)]
    rows_b = [{"id": i, "c": i // 5, "s": (i * 7 % 11) / 10 + (i // 5) % 3
               / 20} for i in range(100)]
    paths = []
    for name, rows in (("a.jsonl", rows_a), ("b.jsonl", rows_b)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n"
                                             for r in rows))
        paths.append(str(tmp_path / name))
    status, out, _ = run(capsys, "--from", *paths, "--cluster", "c", "--json")
    (entry,) = json.loads(out)["metrics"]
    labels = [r["c"] for r in rows_a]
    diffs = [b["s"] - a["s"] for a, b in zip(rows_a, rows_b)]
    assert status == 0 and entry["clusters"] == 20
    assert entry["se"] == pytest.approx(bed._clustered_se(diffs, labels),
                                        rel=1e-9)


def test_plan_is_quick_at_any_size():
    # Exact power at 10^7 items: a few thousand steps, not 10^7 sums.
    design = bed._copula_design(0.72, 0.76, 0.6)
    assert bed._mcnemar_power(10 ** 7, design) > 0.999
    make = lambda b: bed._copula_design(0.72, b, 0.6)   # noqa: E731
    gap = bed._detectable_gap(10 ** 6, make, 0.72)
    assert bed._mcnemar_power(10 ** 6, make(0.72 + gap)) >= 0.8


# Student's t quantiles ###################################################

@pytest.mark.parametrize("tail", [0.25, 0.1, 0.025, 0.005, 1e-6, 0.4999])
def test_t_quantile_closed_forms_at_one_and_two_df(tail):
    # df = 1 is Cauchy: tan(pi (1/2 - tail)) = 1 / tan(pi tail); df = 2:
    # (1 - 2 tail) / sqrt(2 tail (1 - tail)).
    assert bed._student_t_upper(tail, 1) == pytest.approx(
        1 / math.tan(math.pi * tail), rel=1e-12)
    assert bed._student_t_upper(tail, 2) == pytest.approx(
        (1 - 2 * tail) / math.sqrt(2 * tail * (1 - tail)), rel=1e-12)


def test_t_quantile_published_table():
    # Two-sided 95% critical values, as in any table of Student's t.
    table = {5: 2.571, 10: 2.228, 20: 2.086, 30: 2.042, 60: 2.000,
             120: 1.980, 1000: 1.962}
    for df, value in table.items():
        assert round(bed._student_t_upper(0.025, df), 3) == value


@pytest.mark.slow                # against scipy: python3 -m pytest -m slow
def test_t_quantile_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for df in (3, 7, 19, 49, 199, 999, 1000, 5000, 10 ** 6):
        for tail in (0.25, 0.05, 0.025, 0.005, 1e-6):
            assert bed._student_t_upper(tail, df) == pytest.approx(
                stats.t.isf(tail, df), rel=1e-10)


# -- the cluster t test's power and the sizing behind it -----------------------

@pytest.mark.slow                # against scipy: python3 -m pytest -m slow
def test_t_power_against_scipys_noncentral_t():
    stats = pytest.importorskip("scipy.stats")
    for df in (1, 2, 4.5, 9, 39, 1000, 10 ** 5):
        crit = stats.t.ppf(0.975, df)
        for shift in (0, 0.5, 2, 2.8, 3.5, 6):
            theirs = (stats.nct.sf(crit, df, shift)
                      + stats.nct.cdf(-crit, df, shift))
            assert bed._t_power(shift, df) == pytest.approx(theirs, abs=1e-7)


def test_t_power_is_the_level_at_no_shift_and_the_normal_at_many_df():
    for df in (1, 3, 9.5, 40):
        assert bed._t_power(0, df, alpha=0.1) == pytest.approx(0.1, abs=1e-9)
    normal = bed.NormalDist()
    for shift in (1, 2.8, 4):
        z = normal.inv_cdf(0.975)
        want = normal.cdf(shift - z) + normal.cdf(-shift - z)
        assert bed._t_power(shift, 10 ** 7) == pytest.approx(want, abs=1e-6)


def test_expected_power_is_the_mean_over_the_spreads_chi_square():
    # _t_power(spread_df=k) against the mean of the known-spread power over
    # Monte Carlo draws of the true standard error (estimate * sqrt(k / W),
    # W chi-square with k df).
    rng = random.Random(3)
    for k, shift in ((4, 3.0), (9, 3.5)):
        draws = [bed._t_power(shift * math.sqrt(2 * rng.gammavariate(
            k / 2, 1) / k), k) for _ in range(1500)]
        mean = sum(draws) / len(draws)
        se = math.sqrt(sum((d - mean) ** 2 for d in draws)) / len(draws)
        assert abs(bed._t_power(shift, k, spread_df=k) - mean) < 4 * se


def _detected(tally, rng):
    r = bed._compare_tally(tally, rng, bed._Options(resamples=41),
                           clustered=True)
    return r.p < 0.05


@pytest.mark.parametrize("clusters", [
    pytest.param(6, marks=pytest.mark.slow), pytest.param(10, marks=pytest.mark.slow)])
def test_the_reported_detectable_difference_has_its_power(clusters):
    # The detectable difference an eval of few clusters reports, then a
    # fresh eval of the same design with that true difference: the cluster
    # t test detects it in 80% of replays within Monte Carlo error (the
    # normal sizing gave 62% at 10 clusters, the known-spread t 74%).
    rng = random.Random(clusters)
    replays, hits = (120 if clusters == 6 else 250), 0
    for _ in range(replays):
        pilot = bed._tally_spread(designs.clustered(rng, clusters, 0.0),
                                 clustered=True)
        mde = bed._detection(pilot, gap=0).mde
        hits += _detected(designs.clustered(rng, clusters, mde), rng)
    se = math.sqrt(0.8 * 0.2 / replays)
    assert abs(hits / replays - 0.8) < 3 * se


def test_the_clusters_planned_are_the_fewest_that_reach_the_power():
    # detection()'s clusters needed, against stepping k up from 2: the
    # first k whose expected t power at the shrunken standard error
    # reaches 80%.
    rng = random.Random(5)
    for clusters in (6, 12):
        pilot = bed._tally_spread(designs.clustered(rng, clusters, 0.5),
                                 clustered=True)
        got = bed._detection(pilot, gap=0.5).items_needed
        k = 2
        while bed._t_power(0.5 / (pilot.se * math.sqrt(clusters / k)),
                          pilot.df * (k - 1) / (clusters - 1),
                          spread_df=pilot.df) < 0.8:
            k += 1
        assert got == math.ceil(k * pilot.n_items / clusters - 1e-9)


@pytest.mark.slow
def test_plan_from_a_clustered_pilot_reaches_its_power():
    # A 10-cluster pilot at a true gap of 0.5 plans the clusters to detect
    # 0.5; evals of that many clusters detect it in 80% of replays.
    rng = random.Random(12)
    replays, hits = 300, 0
    for _ in range(replays):
        pilot = bed._tally_spread(designs.clustered(rng, 10, 0.5),
                                 clustered=True)
        items = bed._detection(pilot, gap=0.5).items_needed
        hits += _detected(designs.clustered(rng, items // 6, 0.5), rng)
    se = math.sqrt(0.8 * 0.2 / replays)
    assert abs(hits / replays - 0.8) < 3 * se


def test_plan_from_one_run_or_preferences_says_what_it_needs(capsys,
                                                             tmp_path):
    # plan --from one run told the user to 'compare FILE OTHER', and on a
    # preference file listed the reader's inner columns (item, share,
    # place, games): now each says what plan --from reads.
    one = tmp_path / "one.jsonl"
    one.write_text("".join(json.dumps({"id": i, "acc": i % 2}) + "\n"
                           for i in range(20)))
    assert bed.main(["plan", "--from", str(one)]) == 2
    err = capsys.readouterr().err
    assert f"one run's results: plan --from sizes an eval from a pilot of " \
           f"both systems: plan --from {one} OTHER" in err
    battles = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "fixtures", "preferences", "battles.json")
    assert bed.main(["plan", "--from", battles]) == 2
    err = capsys.readouterr().err
    assert "pairwise preferences" in err and "does not read preferences " \
        "yet" in err and err.count("\n") == 1
