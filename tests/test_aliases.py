"""Metrics equal on every item (HELM's exact_match family, lm-eval's acc
and acc_norm where they agree) are one row and one test; and best-of
reads every metric, not only the first."""
import json
import os

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, os.pardir, "datasets", "examples")


def test_best_of_joins_every_metric_not_only_the_first(capsys):
    # The runs were opened once for every metric: the second metric read
    # no records and was said not to join ('no id in common').
    runs = [os.path.join(EXAMPLES, f) for f in ("base.jsonl", "cand.jsonl",
                                                "cand2.jsonl")]
    assert bed.main(["compare", *runs, "--metric", "acc", "--metric",
                     "latency", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "best of 2 on acc: " in out and "best of 2 on latency: " in out
    assert "do not join" not in out


HELM_METRICS = ("exact_match", "exact_match@5", "quasi_exact_match",
                "quasi_exact_match@5", "prefix_exact_match",
                "prefix_exact_match@5")


def helm_run(root, model, scores, differ=()):
    """Write a HELM run directory (per_instance_stats.json, run_spec.json)
    of one model: each item's HELM_METRICS all *scores*[i], but for the
    metrics in *differ*, which hold the opposite on item 0."""
    name = f"mmlu-subject=philosophy,method=multiple_choice_joint,model={model}"
    folder = root / name
    folder.mkdir()
    instances = [{"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
        {"name": {"name": "num_prompt_tokens", "split": "test"}, "count": 1,
         "sum": 300 + i, "mean": 300.0 + i}] + [
        {"name": {"name": m, "split": "test"}, "count": 1,
         "mean": float(1 - s if m in differ and i == 0 else s)}
        for m in HELM_METRICS]} for i, s in enumerate(scores)]
    (folder / "per_instance_stats.json").write_text(json.dumps(instances))
    (folder / "run_spec.json").write_text(json.dumps(
        {"name": name.replace("-", ":", 1), "scenario_spec": {
            "class_name": "x", "args": {"subject": "philosophy"}}}))
    return str(folder)


def three_models(root, differ=()):
    """Three HELM runs of 50 items: b worse than a on 8 items (McNemar's
    p = 2/2^8 = 0.0078), c better on 7 (p = 2/2^7 = 0.0156)."""
    a = [1 - i % 2 for i in range(50)]
    b = [0 if i < 16 else x for i, x in enumerate(a)]
    c = [1 if i < 14 else x for i, x in enumerate(a)]
    return [helm_run(root, "a", a, differ), helm_run(root, "b", b, differ),
            helm_run(root, "c", c, differ)]


def run_json(capsys, *argv):
    assert bed.main(["compare", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_helm_metrics_equal_on_every_item_are_one_test(capsys, tmp_path):
    # Issue 57: 2 candidates x 6 identical metrics made Holm's family 12,
    # p = 0.0078 and 0.0156 both became 0.094, "no detectable difference";
    # --metric exact_match gave worse and better.
    runs = three_models(tmp_path)
    assert bed.main(["compare", *runs, "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    name = ("exact_match (= exact_match@5, quasi_exact_match, ... on every "
            "item)")
    assert out.count(f"\n{name}  binary") == 2          # one row each
    assert "across 2 candidates x 1 distinct metric (6 named)" in out
    assert ("read: exact_match, exact_match@5, quasi_exact_match, "
            "quasi_exact_match@5, prefix_exact_match and "
            "prefix_exact_match@5: the same value on every item in every "
            "run: one metric, one row and one test, as exact_match") in out
    assert f"best of 2 on {name}: model=c" in out
    assert "do not join" not in out and out.count("best of 2") == 1
    merged = run_json(capsys, *runs, "--resamples", "200")
    alone = run_json(capsys, *runs, "--resamples", "200", "--metric",
                     "exact_match")
    assert merged["holm"] == "2 candidates x 1 distinct metric (6 named)"
    for got, want in zip(merged["comparisons"], alone["comparisons"]):
        (entry,), (one,) = got["metrics"], want["metrics"]
        assert entry["aliases"] == list(HELM_METRICS[1:])
        assert "aliases" not in one
        assert entry["test"] == one["test"]        # p, Holm's p
        assert entry["verdict"] == one["verdict"]
    tests = [c["metrics"][0]["test"] for c in merged["comparisons"]]
    assert [t["p"] for t in tests] == [2 / 2 ** 8, 2 / 2 ** 7]
    assert [t["p_holm"] for t in tests] == [2 / 2 ** 7, 2 / 2 ** 7]
    assert [c["metrics"][0]["verdict"] for c in merged["comparisons"]] == [
        "worse", "better"]
    assert merged["best_of"]["metrics"][0]["aliases"] == list(
        HELM_METRICS[1:])


def test_metrics_apart_on_one_item_stay_apart(capsys, tmp_path):
    # The @5 forms differ on item 0 of every run: two distinct metrics,
    # three names each; the table shows all of a short class.
    runs = three_models(tmp_path, differ=[m for m in HELM_METRICS if "@5" in m])
    report = run_json(capsys, *runs[:2], "--resamples", "200")
    assert [(e["metric"], e["aliases"]) for e in report["metrics"]] == [
        ("exact_match", ["quasi_exact_match", "prefix_exact_match"]),
        ("exact_match@5", ["quasi_exact_match@5", "prefix_exact_match@5"])]
    assert bed.main(["compare", *runs[:2], "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert ("| exact\\_match@5 (= quasi\\_exact\\_match@5, "
            "prefix\\_exact\\_match@5 on every item) | binary |") in out
    assert "across 2 distinct metrics (6 named)" in out


def test_tallies_alike_but_items_apart_are_two_metrics():
    # The same counts of (a, b) pairs, on other items: not one metric.
    col = bed._Columns
    one = col(bed.array("d", [1, 0, 1, 0]), bed.array("d", [1, 1, 0, 0]))
    two = col(bed.array("d", [0, 1, 0, 1]), bed.array("d", [0, 0, 1, 1]))
    assert one.counter() == two.counter()
    nan = col(bed.array("d", [1, 0, float("nan")]),
              bed.array("d", [1, 1, float("nan")]))
    metrics = [bed._Metric(n, n, n) for n in "abcdef"]
    tallies = [one, two, one, nan, nan, one]
    assert bed._equal_columns(metrics, tallies) == {"a": ("c", "f")}
    lower = [metrics[0], metrics[1]._replace(direction="lower")]
    assert bed._equal_columns(lower, [one, one]) == {}


def lm_eval_run(folder, day, accs, norm_apart=()):
    path = folder / f"samples_hellaswag_2024-01-0{day}T00-00-00.jsonl"
    path.write_text("".join(json.dumps(
        {"doc_id": i, "filter": "none", "metrics": ["acc", "acc_norm"],
         "acc": float(x), "acc_norm": float(1 - x if i in norm_apart else x)})
        + "\n" for i, x in enumerate(accs)))
    return str(path)


def test_lm_eval_acc_and_acc_norm_agreeing_are_one_row(capsys, tmp_path):
    base = [1 - i % 2 for i in range(40)]
    cand = [1 if i < 16 else x for i, x in enumerate(base)]
    a, b = lm_eval_run(tmp_path, 1, base), lm_eval_run(tmp_path, 2, cand)
    assert bed.main(["compare", a, b]) == 0
    out = capsys.readouterr().out
    assert "\nacc (= acc_norm on every item)  binary  50.0%" in out
    assert "p (Holm)" not in out              # one test: nothing to adjust
    assert "acc (= acc_norm on every item): the candidate is better" in out
    report = run_json(capsys, a, b, "--metric", "acc_norm", "--metric",
                      "acc")                  # named: the first names it
    assert [(e["metric"], e["aliases"]) for e in report["metrics"]] == [
        ("acc_norm", ["acc"])]
    assert bed.main(["rank", a, b, "--json"]) == 0
    ranked = json.loads(capsys.readouterr().out)
    assert (ranked["metric"], ranked["aliases"]) == ("acc", ["acc_norm"])
    assert ("acc and acc_norm: the same value on every item in every run: "
            "one metric, ranked as acc") in ranked["reading"]
    # apart on one item of one run: two metrics, as before
    c = lm_eval_run(tmp_path, 3, cand, norm_apart={39})
    report = run_json(capsys, a, c)
    assert [(e["metric"], "aliases" in e) for e in report["metrics"]] == [
        ("acc", False), ("acc_norm", False)]
    assert bed.main(["rank", a, c]) == 2
    assert ("rank ranks on one metric; name it with --metric (the runs have "
            "acc, acc_norm)") in capsys.readouterr().err


def test_rank_names_each_distinct_metric_with_its_aliases(capsys, tmp_path):
    runs = three_models(tmp_path, differ=[m for m in HELM_METRICS if "@5" in m])
    assert bed.main(["rank", *runs]) == 2
    assert ("(the runs have exact_match (= quasi_exact_match, "
            "prefix_exact_match on every item), exact_match@5 (= "
            "quasi_exact_match@5, prefix_exact_match@5 on every item))"
            ) in capsys.readouterr().err
    alike = tmp_path / "alike"
    alike.mkdir()
    assert bed.main(["rank", *three_models(alike)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("3 systems, 50 items, metric exact_match (= "
                          "exact_match@5, quasi_exact_match, ... on every "
                          "item) (higher is better)")


def test_rank_names_the_aliases_in_each_subsets_block_too(capsys, tmp_path):
    # rank --by named 'exact_match (= em5 on every item)' over all the
    # items and plain 'exact_match' in each subject's block.
    runs = []
    for name, rate in (("a", 3), ("b", 2)):
        rows = [f"{i},s{i % 2},{int(i % rate == 0)}" for i in range(24)]
        (tmp_path / f"{name}.csv").write_text(
            "id,subject,exact_match,em5\n"
            + "".join(f"{row},{row.rsplit(',', 1)[1]}\n" for row in rows))
        runs.append(str(tmp_path / f"{name}.csv"))
    assert bed.main(["rank", *runs, "--by", "subject", "--resamples",
                     "200", "--quiet"]) == 0
    heads = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith("2 systems, ")]
    assert len(heads) == 3                   # all the items, then s0, s1
    assert all("metric exact_match (= em5 on every item) (higher is "
               "better)" in line for line in heads), heads


def subject_runs(root):
    """Two runs of 60 items in 3 subjects: em and qem equal on every item,
    f apart, and swap: em with items 0 and 3 (one subject) exchanged, so
    its counts in each subject are em's but its items are not."""
    paths = []
    for name, rate in (("a", 3), ("b", 2)):
        em = [int(i % rate == 0 or i % 7 == 1) for i in range(60)]
        f = [int(i % 5 < 2 + (name == "b")) for i in range(60)]
        swap = [em[{0: 3, 3: 0}.get(i, i)] for i in range(60)]
        (root / f"{name}.csv").write_text("id,subject,em,qem,f,swap\n" + "".join(
            f"{i},s{i % 3},{em[i]},{em[i]},{f[i]},{swap[i]}\n" for i in range(60)))
        paths.append(str(root / f"{name}.csv"))
    return paths


def test_compare_by_counts_equal_metrics_once_overall_and_per_subset(
        capsys, tmp_path):
    # compare --by read counts per subset, not columns, so em and qem were
    # two rows and two tests overall and in each subject: Holm's family
    # 3 subsets x 4 metrics, not 3 x 3.
    runs = subject_runs(tmp_path)
    argv = [*runs, "--by", "subject", "--resamples", "50"]
    assert bed.main(["compare", *argv]) == 0
    out = capsys.readouterr().out
    name = "em (= qem on every item)"
    assert out.count(f"\n{name}  binary") == 1 and "\nqem " not in out
    assert ("read: em and qem: the same value on every item in both runs: "
            "one metric, one row and one test, as em") in out
    assert "across 3 distinct metrics (4 named)" in out
    assert "3 subsets x 3 distinct metrics (4 named)" in out
    assert [line[len(name):].split()[0] for line in out.splitlines()
            if line.startswith(f"{name}  s")] == ["s0", "s1", "s2"]
    merged = run_json(capsys, *argv)
    alone = run_json(capsys, *argv, "--metric", "em", "--metric", "f",
                     "--metric", "swap")
    assert [e["metric"] for e in merged["metrics"]] == ["em", "f", "swap"]
    for got, want in ((merged["metrics"], alone["metrics"]),
                      (merged["subsets"], alone["subsets"])):
        assert [e["test"] for e in got] == [e["test"] for e in want]
        assert [e.get("aliases") for e in got] == [
            ["qem"] if e["metric"] == "em" else None for e in want]
    assert len(merged["subsets"]) == 9
    assert run_json(capsys, *argv, "--same-metric-anyway") == merged
    macro = run_json(capsys, *argv, "--macro")
    assert [(e["metric"], e.get("aliases")) for e in macro["metrics"]] == [
        ("em", ["qem"]), ("f", None), ("swap", None)]
