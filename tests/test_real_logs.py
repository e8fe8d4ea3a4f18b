"""Input: the frameworks' real files in ../shared/real-logs/ (not part of the
repository: these tests skip cleanly without it).

Each mean is checked against the figure the framework itself wrote beside
its per-item file (lm-eval's results_*.json, HELM's stats.json, DeepEval's
metricsScores, promptfoo's testPassCount, Inspect's log header, OpenAI
evals' final_report, OpenCompass's results/), read here the plain way;
each refusal is one line saying what the file is.
"""
import glob
import json
import os
import zipfile
from fractions import Fraction

import pytest

import bootstrap_eval_deltas as bed
from test_readers import compare
from test_readers import fail as refused

REAL = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    os.pardir, "shared", "real-logs")
pytestmark = pytest.mark.skipif(not os.path.isdir(REAL),
                                reason="../shared/real-logs/ is not here")


def real(*parts):
    return os.path.join(REAL, *parts)


def load(path):
    with open(path) as f:
        return json.load(f)


def test_lm_eval_run_directory_means_are_its_results_files(capsys):
    a, b = real("lm_eval", "rundir", "gpt-4o"), real(
        "lm_eval", "rundir", "SOLAR-10.7B-Instruct-v1.0")
    report = compare(capsys, a, b, "--task", "winogrande")
    (entry,) = report["metrics"]
    newest = sorted(glob.glob(os.path.join(b, "results_2024-12-23*.json")))
    for side, results in (("a", glob.glob(os.path.join(a, "results_*"))[0]),
                          ("b", newest[-1])):
        figure = load(results)["results"]["winogrande"][
            "exact_match,get-answer"]
        assert entry["observed"][side] == pytest.approx(figure, abs=1e-12)
    assert report["n_items"] == 10
    err = refused(capsys, a, b)
    assert "2 tasks in this lm-eval directory (ko_winogrande, winogrande)" \
        in err


def test_older_lm_eval_filters_from_its_results_file(capsys):
    folder = real("lm_eval", "ko_winogrande", "llama3.1-pro16-Inst")
    (samples,) = glob.glob(os.path.join(folder, "samples_*14-38-02*"))
    report = compare(capsys, samples, samples)
    results = load(glob.glob(os.path.join(folder, "results_*"))[0])
    figures = results["results"]["ko_winogrande"]
    for entry in report["metrics"]:
        for metric in [entry["metric"], *entry.get("aliases", ())]:
            name = metric[len("exact_match["):-1]
            assert entry["observed"]["a"] == figures[f"exact_match,{name}"]
    # the three filters score 0 on every item: one metric, two aliases
    assert [len(e.get("aliases", ())) for e in report["metrics"]] == [2]
    assert report["n_items"] == 10


def test_helm_run_directory_is_its_test_split(capsys):
    run = real("helm", "runs", "mmlu-subject=philosophy,method=multiple_"
               "choice_joint,model=openai_gpt2")
    flipped = real("helm", "synthetic", os.path.basename(run)
                   + ",flipped=seed7")
    report = compare(capsys, run, flipped, "--metric", "exact_match")
    stats = [s["mean"] for s in load(os.path.join(run, "stats.json"))
             if s["name"] == {"name": "exact_match", "split": "test"}]
    assert report["metrics"][0]["observed"]["a"] == pytest.approx(stats[0])
    assert report["n_items"] == 9
    assert report["metrics"][0]["mcnemar"]["b_only"] + report["metrics"][0][
        "mcnemar"]["a_only"] == 4                # the four flipped instances


def test_deepeval_means_are_its_metrics_scores(capsys):
    a = real("deepeval", "Fusion_LLM_Eval", "latest_test_run.4eb1583.json")
    b = real("deepeval", "Fusion_LLM_Eval", "latest_test_run.0ee84ab.json")
    report = compare(capsys, a, b)
    (entry,) = report["metrics"]
    for side, path in (("a", a), ("b", b)):
        (scores,) = [m["scores"] for m in load(path)["testRunData"][
            "metricsScores"] if m["metric"] == entry["metric"]]
        mean = sum(map(Fraction, map(repr, scores))) / len(scores)
        assert entry["observed"][side] == pytest.approx(float(mean))
    assert report["n_items"] == 130


def test_promptfoo_means_are_its_pass_counts(capsys):
    path = real("promptfoo", "tds", "promptfoo_results.json")
    report = compare(capsys, path)
    prompts = load(path)["results"]["prompts"]
    (entry,) = report["metrics"]
    for side, prompt in zip("ab", prompts):
        m = prompt["metrics"]
        assert entry["observed"][side] == pytest.approx(
            m["testPassCount"] / (m["testPassCount"] + m["testFailCount"]))
    err = refused(capsys, real("promptfoo", "aidevs3",
                               "promptfoo_results.746a978.json"),
                  real("promptfoo", "aidevs3",
                       "promptfoo_results.b069162.json"))
    assert "b069162.json: no id in common with" in err   # not paired by
    assert "--allow-partial" not in err                   # testIdx


def test_inspect_mean_is_its_header_accuracy(capsys):
    path = real("inspect_ai", "2025-02-11T15-18-04-05-00_popularity_"
                "mj7khqpMM4GBCfVQozKgzB.eval")
    report = compare(capsys, path, path)
    with zipfile.ZipFile(path) as archive:
        header = json.loads(archive.read("header.json"))
    (score,) = header["results"]["scores"]
    assert report["metrics"][0]["observed"]["a"] == pytest.approx(
        score["metrics"]["accuracy"]["value"])
    unscored = real("inspect_ai", "2025-02-11T15-17-00-05-00_popularity_"
                    "dPiJifoWeEQBrfWsAopzWr.eval")
    assert "never scored" in refused(capsys, path, unscored)


def test_openai_evals_mean_is_its_final_report(capsys):
    path = real("openai_evals", "230417220821DPM75QNS_auto_gpt_completion_"
                "fn_test-match.jsonl")
    report = compare(capsys, path, path)
    with open(path) as f:
        (final,) = [json.loads(line)["final_report"] for line in f
                    if "final_report" in line]
    assert report["metrics"][0]["observed"]["a"] == pytest.approx(
        final["accuracy"])


def test_opencompass_means_are_its_results_accuracy(capsys):
    root = real("opencompass")
    report = compare(capsys, *(glob.glob(os.path.join(root, bits, "MMLU",
                                                      "*"))[0]
                               for bits in ("16-bit", "4-bit")))
    for side, bits in (("a", "16-bit"), ("b", "4-bit")):
        (results,) = glob.glob(os.path.join(root, bits, "MMLU", "*",
                                            "results", "*", "*.json"))
        assert 100 * report["metrics"][0]["observed"][side] == \
            pytest.approx(load(results)["accuracy"])
    assert report["n_items"] == 135


def _leaderboard(path):
    import csv
    with open(path, newline="") as f:
        return {row[""] or row.get("name"): row for row in csv.DictReader(f)}


@pytest.mark.parametrize("version", ["AlpacaEval_1_alpaca_eval_gpt4",
                                     "AlpacaEval_2_weighted_alpaca_eval_gpt4_"
                                     "turbo"])
def test_alpaca_eval_win_rates_are_its_leaderboards(capsys, version):
    # The win rate, its standard error, the wins, losses, draws and items,
    # and the discrete win rate, as the leaderboard CSV publishes them.
    here = real("preferences", "alpaca_eval", version)
    (board,) = glob.glob(os.path.join(here, "*leaderboard.csv"))
    published = _leaderboard(board)
    models = sorted(glob.glob(os.path.join(here, "*", "annotations.json")))
    assert len(models) >= 2
    for path in models:
        model = os.path.basename(os.path.dirname(path))
        row = published[model]
        got = compare(capsys, path)["preferences"]
        assert got["b"] == model
        assert got["win_rate"] * 100 == pytest.approx(
            float(row["win_rate"]), abs=1e-9)
        assert got["standard_error"] * 100 == pytest.approx(
            float(row["standard_error"]), abs=1e-9)
        assert (got["wins"], got["losses"], got["ties"], got["n_items"]) == (
            int(row["n_wins"]), int(row["n_wins_base"]),
            int(row["n_draws"]), int(row["n_total"]))
        if row.get("discrete_win_rate"):
            assert got["discrete_win_rate"] * 100 == pytest.approx(
                float(row["discrete_win_rate"]), abs=1e-9)


def test_mt_bench_pairwise_is_fastchats_adjusted_win_rate(capsys):
    # FastChat's display_result_pairwise: errors dropped, a position-
    # inconsistent verdict a tie; recomputed here from the rows.
    path = real("preferences", "fastchat_mt_bench_Stefanstud",
                "gpt-4_pair.jsonl")
    with open(path) as f:
        rows = [json.loads(line) for line in f]
    rows = [r for r in rows if "error" not in (r["g1_winner"],
                                               r["g2_winner"])]
    win = sum(r["g1_winner"] == r["g2_winner"] == "model_2" for r in rows)
    loss = sum(r["g1_winner"] == r["g2_winner"] == "model_1" for r in rows)
    tie = len(rows) - win - loss
    got = compare(capsys, path)["preferences"]
    assert (got["wins"], got["losses"], got["ties"]) == (win, loss, tie) \
        == (20, 18, 35)
    assert Fraction(got["win_rate"]).limit_denominator(1000) == Fraction(
        2 * win + tie, 2 * len(rows))
    assert round(got["win_rate"], 4) == 0.5137


@pytest.mark.parametrize("parts, said", [
    (("lighteval", "details_gsm8k_test|0_2025-11-05T14-43-47.148527.parquet"),
     "a git-lfs pointer"),
    (("inspect_ai", "data_with_llm_scoring.json"),
     "an Inspect log header with no samples"),
    (("inspect_ai", "2025-05-12T20-28-13-04-00_no-samples.json"),
     "no samples in this Inspect log (status cancelled)"),
    (("promptfoo", "measure-ai-drift", "promptfoo-results.1630742.json"),
     "all 16 results are API errors"),
    (("lm_eval", "rundir", "gpt-4o", "results_2024-12-23T14-29-31.806745.json"),
     "lm-eval's results file: aggregates only"),
    (("lighteval", "open-r1_olmo", "results", "EleutherAI", "pythia-14m",
      "results_2025-05-02T21-28-09.714048.json"),
     "lighteval's results file: aggregates only; the per-item results are "
     "the details/"),
])
def test_real_files_refused_in_one_line(capsys, parts, said):
    path = real(*parts)
    assert said in refused(capsys, path, path)


@pytest.mark.parametrize("solar", [0, 1])
def test_rank_of_ten_winogrande_items_names_no_lone_top(capsys, solar):
    # Issue 44: rank of gpt-4o, EXAONE and SOLAR on lm-eval's 10 winogrande
    # items said SOLAR "stands alone" at rank 1 (1-1), beside McNemar's
    # exact p = 0.125 (0.0625 with SOLAR's other file) against gpt-4o.
    import bootstrap_eval_deltas as bed
    folder = real("lm_eval", "winogrande")
    runs = [sorted(glob.glob(os.path.join(folder, name, "samples_*")))[k]
            for name, k in (("EXAONE-3.0-7.8B-Instruct", 0),
                            ("SOLAR-10.7B-Instruct-v1.0", solar),
                            ("gpt-4o", 0))]
    names = ["EXAONE", "SOLAR", "gpt-4o"]
    argv = ["rank", *runs, "--names", ",".join(names), "--resamples", "500"]
    assert bed.main(argv) == 0
    text = capsys.readouterr().out
    assert "stands alone" not in text and "SOLAR   " in text
    assert bed.main(argv + ["--json", "--pairs"]) == 0
    report = json.loads(capsys.readouterr().out)
    systems = {s["name"]: s for s in report["systems"]}
    assert systems["SOLAR"]["top_group"] and systems["gpt-4o"]["top_group"]
    assert systems["SOLAR"]["rank_set_joint"] == [1, 2]
    (pair,) = [p for p in report["pairs"] if {p["a"], p["b"]} == {
        "SOLAR", "gpt-4o"}]
    assert pair["p"] > 0.05


def test_every_eval_ever_mean_is_its_aggregate(capsys):
    folder = real("every_eval_ever", "hellaswag-pythia-1b-v0")
    samples = os.path.join(folder, "None_samples.jsonl")
    report = compare(capsys, samples, samples)
    (entry,) = report["metrics"]
    (aggregate,) = glob.glob(os.path.join(folder, "*.json"))
    figures = {r["score_details"]["score"]
               for r in load(aggregate)["evaluation_results"]}
    assert figures == {entry["observed"]["a"]} == {0.3}
    assert report["n_items"] == 10
    # the aggregate (schema 0.1.0, naming no instance file) is refused as
    # one, naming the samples file beside it
    assert bed.main(["compare", aggregate, samples]) == 2
    err = capsys.readouterr().err
    assert "aggregates only" in err and "None_samples.jsonl" in err


def test_lighteval_means_are_its_results_file(capsys):
    # 60 rows, the 30 aime24 problems twice: lighteval writes a row per
    # metric group (math_pass@1:32_samples in one, extractive_match in the
    # other, each null in the other's rows), so an item is a problem.
    run = real("lighteval", "open-r1_olmo")
    report = compare(capsys, run, run)
    (results,) = glob.glob(os.path.join(run, "results", "*", "*", "*.json"))
    figures = load(results)["results"]["lighteval|aime24|0"]
    assert report["n_items"] == 30
    # both 0 on every item: one metric, the other its alias (issue 57)
    assert {m for e in report["metrics"]
            for m in [e["metric"], *e.get("aliases", ())]} == {
        "extractive_match", "math_pass@1:32_samples"}
    assert len(report["metrics"]) == 1
    for entry in report["metrics"]:
        for metric in [entry["metric"], *entry["aliases"]]:
            assert entry["observed"]["a"] == figures[metric] == 0.0


def test_lighteval_real_file_reads_as_pyarrow_reads_it():
    pq = pytest.importorskip("pyarrow.parquet")
    import bootstrap_eval_deltas as bed
    (path,) = glob.glob(real("lighteval", "open-r1_olmo", "details", "*",
                             "*", "*", "*.parquet"))
    footer = bed._parquet_footer(path)
    names = ["example", "metrics", "gold", "specifics", "padded",
             "pred_logits"]         # lists of int64, of null type
    assert bed._parquet_rows(footer, names) == pq.read_table(
        path, columns=names).to_pydict()


def test_winogrande_and_ko_winogrande_are_different_items(capsys):
    # Issue 45: both number their docs 0-9; the docs' hashes differ.
    en = real("lm_eval", "winogrande", "EXAONE-3.0-7.8B-Instruct",
              "samples_winogrande_2024-12-23T14-45-44.695233.jsonl")
    ko = real("lm_eval", "ko_winogrande", "Llama-3.1-8B-Instruct",
              "samples_ko_winogrande_2024-11-19T15-07-36.131394.jsonl")
    err = refused(capsys, en, ko)
    assert ("(tasks winogrande and ko_winogrande): doc_id '0' differs in "
            "doc_hash, and 10 of the 10 shared ids differ") in err
    other = real("lm_eval", "winogrande", "gpt-4o",
                 "samples_winogrande_2024-12-23T14-29-31.806745.jsonl")
    assert compare(capsys, en, other)["n_items"] == 10
    assert bed.main(["compare", en, en, "--resamples", "50"]) == 0
    assert "a run compared with itself" in capsys.readouterr().out


def test_lm_eval_compare_lines_fit_120_columns(capsys):
    # Issue 45: full paths as system names made lines of 264-348 columns.
    folder = real("lm_eval", "winogrande")
    a, = glob.glob(os.path.join(folder, "EXAONE-3.0-7.8B-Instruct", "*"))
    b, = glob.glob(os.path.join(folder, "gpt-4o", "*"))
    assert bed.main(["compare", a, b, "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("baseline: EXAONE-3.0-7.8B-Instruct   candidate: "
                          "gpt-4o   10 items")
    assert max(map(len, out.splitlines())) <= 120
    c, d = sorted(glob.glob(os.path.join(folder, "SOLAR-10.7B-Instruct-v1.0",
                                         "*")))
    assert bed.main(["compare", c, d, "--resamples", "50"]) == 0
    assert capsys.readouterr().out.startswith(
        "baseline: 2024-12-23T14-36-36.300029   candidate: "
        "2024-12-23T15-04-32.131238")


@pytest.mark.parametrize("version", ["AlpacaEval_1_alpaca_eval_gpt4"])
def test_alpaca_eval_leaderboard_csv_is_refused(capsys, version):
    (board,) = glob.glob(real("preferences", "alpaca_eval", version,
                              "*leaderboard.csv"))
    assert "a leaderboard: a row per model" in refused(capsys, board)


def test_real_runs_settings_are_read_and_their_differences_said(capsys):
    # Inspect's arc_easy logs: limit 3 and limit 5 (issue 57): the shorter
    # run is refused as limited, not as lacking ids; the workbench's
    # promptfoo runs at a9adcf0 changed the prompt
    qwen, sonnet = (real("inspect_ai", f"data_arc_{m}.json")
                    for m in ("qwen", "sonnet"))
    err = refused(capsys, qwen, sonnet)
    assert f"{qwen}: a run limited to 3 items (limit 3 -> 5), so it lacks 2" \
        in err
    runs = [real("promptfoo", "prompt-eval-workbench",
                 f"promptfoo-results.{c}.json") for c in ("19256d8", "a9adcf0")]
    report = compare(capsys, *runs)
    assert [d["setting"] for d in report["differs"]] == ["prompt"]
    settings = bed._open_source(real("helm", "runs", "mmlu-subject=philosophy,"
                                      "method=multiple_choice_joint,model="
                                      "openai_gpt2")).settings
    assert settings["max_train_instances"] == "5" and settings["limit"] == "10"
