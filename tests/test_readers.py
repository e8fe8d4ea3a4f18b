"""Input: the frameworks' own files, from fixtures in tests/fixtures/.

Each expected figure is computed here the plain way from the fixture's own
JSON (group by item, average the epochs, count), not taken from the tool.
"""
import json
import os
import random
import shutil
import zipfile
from fractions import Fraction

import bootstrap_eval_deltas as bed
import oracle

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                        "fixtures")


def fixture(*parts):
    return os.path.join(FIXTURES, *parts)


def compare(capsys, *argv):
    status = bed.main(["compare", *argv, "--json", "--resamples", "200"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def entries(report):
    return {e["metric"]: e for e in report["metrics"]}


def lines(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def check_binary(entry, pairs):
    """A binary entry against (a, b) pairs: means and McNemar exactly."""
    n = len(pairs)
    a_only, b_only, p = oracle.mcnemar_p(pairs)
    assert entry["type"] == "binary"
    assert entry["observed"]["a"] == float(Fraction(sum(a for a, _ in pairs),
                                                    n))
    assert entry["observed"]["b"] == float(Fraction(sum(b for _, b in pairs),
                                                    n))
    assert (entry["mcnemar"]["a_only"], entry["mcnemar"]["b_only"]) == (
        a_only, b_only)
    assert entry["mcnemar"]["p_exact"] == float(p)


# lm-evaluation-harness ###################################################

def lm_eval_pairs(metric, filter_name):
    runs = []
    for folder in ("base", "cand"):
        (name,) = os.listdir(fixture("lm-eval", folder))
        runs.append({r["doc_id"]: r[metric]
                     for r in lines(fixture("lm-eval", folder, name))
                     if r["filter"] == filter_name})
    return [(int(runs[0][d]), int(runs[1][d])) for d in sorted(runs[0])]


def test_lm_eval_filters_are_metrics_not_repeated_ids(capsys):
    # One line per document and filter once stopped with "doc_id '0'
    # repeated"; each filter is now its own metric, the runs' directories
    # are read as they are, and the candidate's order does not matter.
    report = compare(capsys, fixture("lm-eval", "base"),
                     fixture("lm-eval", "cand"))
    found = entries(report)
    assert list(found) == ["exact_match[strict-match]",
                           "exact_match[flexible-extract]"]
    for filter_name in ("strict-match", "flexible-extract"):
        check_binary(found[f"exact_match[{filter_name}]"],
                     lm_eval_pairs("exact_match", filter_name))
    assert report["n_items"] == 16
    assert any("filters strict-match, flexible-extract" in line
               for line in report["reading"])


def test_lm_eval_filter_picks_one(capsys):
    report = compare(capsys, fixture("lm-eval", "base"),
                     fixture("lm-eval", "cand"), "--filter", "strict-match")
    (entry,) = report["metrics"]
    assert entry["metric"] == "exact_match"
    check_binary(entry, lm_eval_pairs("exact_match", "strict-match"))
    status = bed.main(["compare", fixture("lm-eval", "base"),
                       fixture("lm-eval", "cand"), "--filter", "regex"])
    err = capsys.readouterr().err
    assert status == 2 and "no filter 'regex'; the filters are " \
        "strict-match, flexible-extract" in err


def test_lm_eval_corpus_level_metrics_are_named_not_averaged(capsys):
    # f1's [gold, pred] pairs are not averaged: the corpus F1 is compared
    # (tests/test_corpus.py checks its value), and the reading says so.
    base = fixture("lm-eval", "samples_boolq_base.jsonl")
    cand = fixture("lm-eval", "samples_boolq_cand.jsonl")
    report = compare(capsys, base, cand)
    assert list(entries(report)) == ["acc", "acc_norm", "f1"]
    assert entries(report)["f1"]["type"] == "corpus"
    assert any("f1: a list per item, which lm-eval aggregates over the "
               "corpus" in line for line in report["reading"])
    a, b = lines(base), lines(cand)
    check_binary(entries(report)["acc"],
                 [(int(x["acc"]), int(y["acc"])) for x, y in zip(a, b)])


def _ifeval_runs(seed=5, n=40):
    """Two systems' ifeval results: per item, which of its 1-4
    instructions each followed (strict) and the prompt-level verdict."""
    rng = random.Random(seed)
    sizes = [rng.randint(1, 4) for _ in range(n)]
    return [[[rng.random() < p for _ in range(k)] for k in sizes]
            for p in (0.6, 0.75)]


def test_lm_eval_instruction_lists_are_pooled_as_lm_eval_does(capsys,
                                                              tmp_path):
    # lm-eval's ifeval writes inst_level_strict_acc as a list of booleans
    # per prompt and aggregates by pooling them (agg_inst_level_acc).  It
    # was refused, blaming an option ("--stat 'inst_level_strict_acc=...'")
    # the user never gave.
    runs, paths = _ifeval_runs(), []
    for name, run in zip(("base", "cand"), runs):
        path = tmp_path / f"samples_ifeval_{name}.jsonl"
        path.write_text("".join(json.dumps(
            {"doc_id": i, "filter": "none", "metrics": [
                "prompt_level_strict_acc", "inst_level_strict_acc"],
             "prompt_level_strict_acc": all(followed),
             "inst_level_strict_acc": followed}) + "\n"
            for i, followed in enumerate(run)))
        paths.append(str(path))
    report = compare(capsys, *paths)
    entry = entries(report)["inst_level_strict_acc"]
    pooled = [sum(map(sum, run)) / sum(map(len, run)) for run in runs]
    assert entry["type"] == "corpus"
    assert [entry["observed"]["a"], entry["observed"]["b"]] == pooled
    check_binary(entries(report)["prompt_level_strict_acc"],
                 [(int(all(a)), int(all(b))) for a, b in zip(*runs)])
    # the same statistic as a ratio of two count columns, seed for seed
    counts = tmp_path / "counts.jsonl"
    counts.write_text("".join(json.dumps(
        {"id": i, "a_num": sum(a), "a_den": len(a), "b_num": sum(b),
         "b_den": len(b)}) + "\n" for i, (a, b) in enumerate(zip(*runs))))
    status = bed.main(["compare", str(counts), "--stat",
                       "inst=ratio(a_num,a_den,b_num,b_den)", "--json",
                       "--resamples", "200"])
    (by_counts,) = json.loads(capsys.readouterr().out)["metrics"]
    assert status == 0
    for key in ("observed", "ci", "se"):
        assert by_counts[key] == entry[key], key
    for key in ("p_holm", "p_adjusted"):                # 1 and 2 tests
        del by_counts["test"][key], entry["test"][key]
    assert by_counts["test"] == entry["test"]


def test_inspect_instruction_counts_are_a_ratio_of_sums(capsys, tmp_path):
    # inspect_evals' ifeval scores a sample {inst_level_strict: followed,
    # num_instructions: given, ...}; its metric sums both over the samples
    # before dividing.  The counts were compared as means per item (1.43
    # instructions followed, not 60%).
    runs, paths = _ifeval_runs(), []
    for name, run in zip(("base", "cand"), runs):
        log = {"eval": {"task": "ifeval", "model": name}, "samples": [
            {"id": f"k{i}", "epoch": 1, "scores": {"instruction_following": {
                "value": {"prompt_level_strict": all(f),
                          "inst_level_strict": sum(f),
                          "num_instructions": len(f)}}}}
            for i, f in enumerate(run)]}
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(log))
        paths.append(str(path))
    report = compare(capsys, *paths)
    found = entries(report)
    assert sorted(found) == ["instruction_following.inst_level_strict",
                             "instruction_following.prompt_level_strict"]
    entry = found["instruction_following.inst_level_strict"]
    assert entry["type"] == "corpus"
    assert [entry["observed"]["a"], entry["observed"]["b"]] == [
        sum(map(sum, run)) / sum(map(len, run)) for run in runs]
    assert any("which Inspect sums over the samples before dividing" in line
               for line in report["reading"])


def test_a_list_metric_of_text_is_left_out_in_words(capsys, tmp_path):
    # lm-eval's bleu writes a [reference, prediction] pair of texts per
    # item and aggregates them by its own corpus rule: the tool cannot, so
    # it says so and compares the other metrics.
    paths = []
    for name in ("base", "cand"):
        path = tmp_path / f"samples_wmt_{name}.jsonl"
        path.write_text("".join(json.dumps(
            {"doc_id": i, "filter": "none", "metrics": ["bleu", "acc"],
             "bleu": ["a cat", "the cat"], "acc": i % 2}) + "\n"
            for i in range(12)))
        paths.append(str(path))
    report = compare(capsys, *paths)
    assert list(entries(report)) == ["acc"]
    (said,) = [line for line in report["reading"] if "bleu: left out" in line]
    assert "aggregates it by its task's own rule" in said


def test_a_directory_of_several_tasks_needs_task(capsys):
    status = bed.main(["compare", fixture("lm-eval"), fixture("lm-eval")])
    err = capsys.readouterr().err
    assert status == 2 and "5 tasks in this lm-eval directory (boolq_base, " \
        "boolq_cand, cola_base, cola_cand, gsm8k)" in err
    assert "pick one with --task NAME" in err


# Inspect #################################################################

def inspect_items(name):
    """Item -> {metric: mean over epochs} the plain way."""
    with open(fixture("inspect", name)) as f:
        samples = json.load(f)["samples"]
    items = {}
    letters = {"C": 1, "P": Fraction(1, 2), "I": 0, "N": 0}
    for s in samples:
        if not s.get("scores"):
            continue
        values = items.setdefault(str(s["id"]), {"match": [], "acc": []})
        values["match"].append(letters[s["scores"]["match"]["value"]])
        values["acc"].append(
            Fraction(repr(s["scores"]["graded"]["value"]["accuracy"])))
    return {item: {k: sum(v) / len(v) for k, v in values.items()}
            for item, values in items.items()}


def test_inspect_json_logs_epochs_letters_and_dict_scores(capsys):
    report = compare(capsys, fixture("inspect", "base.json"),
                     fixture("inspect", "cand.json"))
    base, cand = inspect_items("base.json"), inspect_items("cand.json")
    found = entries(report)
    assert set(found) == {"match", "graded.accuracy", "graded.length"}
    assert report["n_items"] == 12                   # epochs are not items
    for metric, key in (("match", "match"), ("graded.accuracy", "acc")):
        a = sum(v[key] for v in base.values()) / 12
        b = sum(cand[i][key] for i in base) / 12
        assert found[metric]["observed"]["a"] == float(a)
        assert found[metric]["observed"]["b"] == float(b)
    assert any("2 epochs per item, averaged" in line
               for line in report["reading"])


def test_inspect_scorer_picks_one(capsys):
    report = compare(capsys, fixture("inspect", "base.json"),
                     fixture("inspect", "cand.json"), "--scorer", "match")
    assert list(entries(report)) == ["match"]


def test_inspect_errored_sample_is_an_error_unless_partial(capsys):
    base = fixture("inspect", "base.json")
    errored = fixture("inspect", "cand-errored.json")
    status = bed.main(["compare", base, errored])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "sample 's3' epoch 2: errored (" in err
    assert "so it has no score; --allow-partial" in err
    report = compare(capsys, base, errored, "--allow-partial")
    assert any("1 errored samples left out" in line
               for line in report["reading"])
    assert report["n_items"] == 12          # s3 keeps its first epoch


def make_eval_log(folder, name, compression=zipfile.ZIP_DEFLATED):
    """Write an Inspect .eval log (a zip of samples/<id>_epoch_<n>.json)
    from a fixture's .json log."""
    with open(fixture("inspect", name)) as f:
        log = json.load(f)
    path = os.path.join(folder, name.replace(".json", ".eval"))
    with zipfile.ZipFile(path, "w", compression) as archive:
        archive.writestr("header.json", json.dumps({"eval": log["eval"]}))
        for s in log["samples"]:
            archive.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json",
                             json.dumps(s))
    return path


def test_inspect_eval_logs_read_as_their_json(capsys, tmp_path):
    from_json = compare(capsys, fixture("inspect", "base.json"),
                        fixture("inspect", "cand.json"))
    from_eval = compare(capsys, make_eval_log(str(tmp_path), "base.json"),
                        make_eval_log(str(tmp_path), "cand.json"))
    for report in (from_json, from_eval):
        del report["baseline"], report["candidate"], report["reading"]
    assert from_json == from_eval


def test_inspect_zstd_log_says_how_to_read_it(capsys, tmp_path):
    path = make_eval_log(str(tmp_path), "base.json", zipfile.ZIP_STORED)
    data = bytearray(open(path, "rb").read())
    # Mark every member as zstd (method 93): local headers at offset 8,
    # central directory entries at offset 10.
    for signature, offset in ((b"PK\x03\x04", 8), (b"PK\x01\x02", 10)):
        at = data.find(signature)
        while at >= 0:
            data[at + offset:at + offset + 2] = (93).to_bytes(2, "little")
            at = data.find(signature, at + 4)
    open(path, "wb").write(bytes(data))
    status = bed.main(["compare", path, path])
    err = capsys.readouterr().err
    if status == 0:                     # Python 3.14 reads zstd members
        assert bed.sys.version_info >= (3, 14)
    else:
        assert status == 2 and "compressed with zstd" in err
        assert f"inspect log convert {path} --to json" in err


# HELM, OpenAI evals, any JSON document ###################################

def test_helm_per_instance_stats(capsys):
    report = compare(capsys, fixture("helm", "base"), fixture("helm", "cand"),
                     "--metric", "exact_match")
    runs = []
    for folder in ("base", "cand"):
        with open(fixture("helm", folder, "per_instance_stats.json")) as f:
            runs.append({e["instance_id"]: s["mean"] for e in json.load(f)
                         if "perturbation" not in e for s in e["stats"]
                         if s["name"]["name"] == "exact_match"})
    pairs = [(int(runs[0][i]), int(runs[1][i])) for i in runs[0]]
    check_binary(report["metrics"][0], pairs)
    assert report["n_items"] == 15                 # perturbed ones left out


def test_openai_evals_match_events_out_of_order(capsys):
    report = compare(capsys, fixture("openai-evals", "base.jsonl"),
                     fixture("openai-evals", "cand.jsonl"))
    runs = [{e["sample_id"]: int(e["data"]["correct"])
             for e in lines(fixture("openai-evals", name))
             if e.get("type") == "match"}
            for name in ("base.jsonl", "cand.jsonl")]
    check_binary(report["metrics"][0],
                 [(runs[0][i], runs[1][i]) for i in runs[0]])


def test_json_object_names_its_record_lists(capsys):
    # A valid JSON object once read as "malformed JSON".
    status = bed.main(["compare", fixture("document", "base.json"),
                       fixture("document", "cand.json")])
    err = capsys.readouterr().err
    assert status == 2 and "lists of records in it: results.items (18 " \
        "records); name the one to read with --records KEY" in err
    report = compare(capsys, fixture("document", "base.json"),
                     fixture("document", "cand.json"), "--records",
                     "results.items")
    assert report["n_items"] == 18 and report["metrics"][0]["metric"] == \
        "score"


def test_a_parquet_file_cut_short_is_one_line(capsys, tmp_path):
    path = tmp_path / "details.parquet"
    path.write_bytes(b"PAR1" + bytes(20))
    status = bed.main(["compare", str(path), str(path)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "not a Parquet file (no PAR1 magic at its start and end" in err


def test_plan_from_reads_framework_files(capsys):
    status = bed.main(["plan", "--from", fixture("helm", "base"),
                       fixture("helm", "cand"), "--metric", "exact_match"])
    out = capsys.readouterr().out
    assert status == 0 and out.startswith("exact_match (15 pilot items")


def test_format_can_be_named(capsys, tmp_path):
    # A copy without the telling name still reads as what --from-format says.
    for name in ("base.json", "cand.json"):
        shutil.copy(fixture("inspect", name), tmp_path / name)
    report = compare(capsys, str(tmp_path / "base.json"),
                     str(tmp_path / "cand.json"), "--from-format", "inspect")
    assert report["n_items"] == 12


# promptfoo, DeepEval, OpenCompass ########################################

def promptfoo_means(name, measure):
    """Item -> system -> mean of *measure* over repeats, the plain way."""
    with open(fixture("promptfoo", name)) as f:
        results = json.load(f)["results"]["results"]
    items = {}
    for r in results:
        if r.get("failureReason") == 2:
            continue
        key = json.dumps(r["testCase"], sort_keys=True)
        value = (r["success"] if measure == "success"
                 else r["namedScores"][measure])
        items.setdefault(key, {}).setdefault(
            r["provider"]["label"], []).append(Fraction(repr(float(value))))
    return {k: {s: sum(v) / len(v) for s, v in systems.items()}
            for k, systems in items.items()}


def test_promptfoo_both_systems_in_one_file(capsys):
    report = compare(capsys, fixture("promptfoo", "results.json"))
    (entry,) = report["metrics"]
    means = promptfoo_means("results.json", "success")
    n = len(means)
    assert (report["baseline"], report["candidate"]) == ("gpt-4o-mini",
                                                         "claude-3-haiku")
    assert report["n_items"] == n == 14              # repeats are epochs
    assert entry["metric"] == "success"
    assert entry["observed"]["a"] == float(
        sum(m["gpt-4o-mini"] for m in means.values()) / n)
    assert entry["observed"]["b"] == float(
        sum(m["claude-3-haiku"] for m in means.values()) / n)
    report = compare(capsys, fixture("promptfoo", "results.json"),
                     "--metric", "relevance")
    means = promptfoo_means("results.json", "relevance")
    assert report["metrics"][0]["observed"]["b"] == float(
        sum(m["claude-3-haiku"] for m in means.values()) / n)


def test_promptfoo_api_errors_are_not_wrong_answers(capsys):
    path = fixture("promptfoo", "results-errored.json")
    status = bed.main(["compare", path])
    err = capsys.readouterr().err
    assert status == 2 and "an API error, not a wrong answer" in err
    report = compare(capsys, path, "--allow-partial")
    assert report["n_items"] == 13
    assert any("1 test with API errors left out" in line
               for line in report["reading"])


def test_promptfoo_grader_errors_are_not_wrong_answers(capsys, tmp_path):
    # A grader that failed (promptfoo's graderFail: metadata.graderError;
    # a javascript assertion that threw, written as a plain failure) gave
    # no verdict: its cell is missing, said, never a 0 (nicheIQ's 18 of 30).
    with open(fixture("promptfoo", "results.json")) as f:
        doc = json.load(f)
    results = doc["results"]["results"]
    claude = [r for r in results if r["provider"]["label"] ==
              "claude-3-haiku" and r.get("failureReason") != 2]
    tests = [claude[0]["testCase"], claude[-1]["testCase"]]
    ungraded = [r for r in claude if r["testCase"] in tests]
    for r in ungraded:                 # every repeat of two tests
        r["success"] = False
        r["gradingResult"] = {"pass": False, "score": 0} | (
            {"metadata": {"graderError": True}} if r["testCase"] == tests[0]
            else {"componentResults": [
                {"pass": False, "reason": "Custom function threw error: x"}]})
    path = tmp_path / "results.json"
    path.write_text(json.dumps(doc))
    assert bed.main(["compare", str(path)]) == 2
    assert "missing value" in capsys.readouterr().err
    report = compare(capsys, str(path), "--allow-partial")
    assert f"{len(ungraded)} results whose grader errored left out, not " \
        f"counted as failures" in " ".join(report["reading"])
    kept = [r for r in results if r["testCase"] not in tests]
    assert report["n_items"] == 12
    means = {}
    for r in kept:
        if r["provider"]["label"] == "claude-3-haiku":
            means.setdefault(json.dumps(r["testCase"]), []).append(
                Fraction(r["success"]))
    assert report["metrics"][0]["observed"]["b"] == float(
        sum(sum(v) / len(v) for v in means.values()) / len(means))
    for r in results:
        r["gradingResult"] = {"metadata": {"graderError": True}}
        r["success"] = False
    path.write_text(json.dumps(doc))
    assert bed.main(["compare", str(path)]) == 2
    assert "every answer's grader errored" in capsys.readouterr().err


def test_deepeval_test_runs(capsys):
    report = compare(capsys, fixture("deepeval", "base"),
                     fixture("deepeval", "cand"))
    found = entries(report)
    assert list(found) == ["Answer Relevancy", "Faithfulness"]
    runs = []
    for folder in ("base", "cand"):
        (name,) = os.listdir(fixture("deepeval", folder))
        with open(fixture("deepeval", folder, name)) as f:
            runs.append({c["name"]: {m["name"]: m["score"]
                                     for m in c["metricsData"]}
                         for c in json.load(f)["testCases"]})
    pairs = [(int(runs[0][c]["Faithfulness"]),
              int(runs[1][c]["Faithfulness"])) for c in runs[0]]
    check_binary(found["Faithfulness"], pairs)


def test_opencompass_repeats_are_epochs(capsys):
    report = compare(capsys, fixture("opencompass", "base", "gsm8k.json"),
                     fixture("opencompass", "cand", "gsm8k.json"))
    means = []
    for folder in ("base", "cand"):
        with open(fixture("opencompass", folder, "gsm8k.json")) as f:
            details = json.load(f)["details"]
        means.append(sum(Fraction(sum(d["correct"]), len(d["correct"]))
                         for d in details.values()) / len(details))
    (entry,) = report["metrics"]
    assert report["n_items"] == 18
    assert (entry["observed"]["a"], entry["observed"]["b"]) == tuple(
        map(float, means))


def test_openai_model_graded_evals_need_choice_scores(capsys):
    base = fixture("openai-evals", "graded-base.jsonl")
    cand = fixture("openai-evals", "graded-cand.jsonl")
    status = bed.main(["compare", base, cand])
    err = capsys.readouterr().err
    assert status == 2 and "--choice-scores A=1,B=0" in err
    status = bed.main(["compare", base, cand, "--choice-scores", "Y=1,N=0"])
    err = capsys.readouterr().err
    assert status == 2 and ":4: choice 'U' has no score" in err
    report = compare(capsys, base, cand, "--choice-scores", "Y=1,N=0,U=0.5")
    score = {"Y": Fraction(1), "N": Fraction(0), "U": Fraction(1, 2)}
    runs = [[score[e["data"]["choice"]] for e in lines(path)
             if e.get("type") == "metrics"] for path in (base, cand)]
    (entry,) = report["metrics"]
    assert entry["observed"]["a"] == float(sum(runs[0]) / len(runs[0]))
    assert entry["observed"]["b"] == float(sum(runs[1]) / len(runs[1]))


def test_epochs_feed_plan_repeats(capsys):
    # Inspect's two epochs per sample are the repeated samples whose
    # spread plan --repeats needs; the items stay 12.
    status = bed.main(["plan", "--from", fixture("inspect", "base.json"),
                       fixture("inspect", "cand.json"), "--repeats", "2",
                       "--scorer", "match", "--gap", "0.1", "--json"])
    report = json.loads(capsys.readouterr().out)
    (entry,) = report["metrics"]
    letters = {"C": 1.0, "I": 0.0}
    runs = []
    for name in ("base.json", "cand.json"):
        with open(fixture("inspect", name)) as f:
            groups = {}
            for s in json.load(f)["samples"]:
                groups.setdefault(str(s["id"]), []).append(
                    letters[s["scores"]["match"]["value"]])
        runs.append(groups)
    table, within, between, gap = bed._repeats_from_samples(
        runs[0], runs[1], [1, 2], gap=0.1)
    assert status == 0
    assert (entry["within"], entry["between"]) == (within, between)
    assert entry["items_needed_by_repeats"]["2"] == table[2]


def test_promptfoo_jsonl_and_lighteval_jsonl(capsys, tmp_path):
    # promptfoo -o results.jsonl: one result a line, read as results.json.
    with open(fixture("promptfoo", "results.json")) as f:
        results = json.load(f)["results"]["results"]
    path = tmp_path / "results.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    from_lines = compare(capsys, str(path))
    from_json = compare(capsys, fixture("promptfoo", "results.json"))
    assert from_lines["metrics"] == from_json["metrics"]
    # lighteval details converted to JSONL: doc.id and metric.<name>.
    rows = [[{"doc": {"id": str(i)}, "metric": {"acc": (i + s) % 3 != 0}}
             for i in range(20)] for s in (0, 1)]
    paths = []
    for name, data in zip(("a.jsonl", "b.jsonl"), rows):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n"
                                             for r in data))
        paths.append(str(tmp_path / name))
    report = compare(capsys, *paths)
    check_binary(report["metrics"][0],
                 [(int(a["metric"]["acc"]), int(b["metric"]["acc"]))
                  for a, b in zip(*rows)])
    assert report["metrics"][0]["metric"] == "metric.acc"


def test_lm_eval_subsets_from_the_document(capsys, tmp_path):
    # MMLU-like lines keep their document, so --by doc.subject works.
    paths = []
    for k in range(2):
        path = tmp_path / f"samples_mmlu_{k}.jsonl"
        path.write_text("".join(json.dumps(
            {"doc_id": i, "doc": {"subject": "ab"[i % 2], "question": "q"},
             "filter": "none", "metrics": ["acc"],
             "acc": float((i * 3 + k) % 4 != 0)}) + "\n" for i in range(40)))
        paths.append(str(path))
    report = compare(capsys, *paths, "--by", "doc.subject")
    assert [r["subset"] for r in report["subsets"]] == ["a", "b"]
    assert [r["n_items"] for r in report["subsets"]] == [20, 20]


def test_a_directory_of_tasks_as_subsets(capsys, tmp_path):
    # lm-eval writes one samples file per MMLU subject: --by task reads a
    # run's directory whole, each file's task a subset, ids kept apart.
    for run, shift in (("a", 0), ("b", 1)):
        folder = tmp_path / run / "model"
        folder.mkdir(parents=True)
        for task in ("mmlu_anatomy", "mmlu_law", "mmlu_virology"):
            (folder / f"samples_{task}_2024-05-0{1 + shift}T10-00-00.jsonl"
             ).write_text("".join(json.dumps(
                 {"doc_id": i, "filter": "none", "metrics": ["acc"],
                  "acc": float((i + shift * len(task)) % 3 != 0)}) + "\n"
                 for i in range(25)))
    report = compare(capsys, str(tmp_path / "a"), str(tmp_path / "b"),
                     "--by", "task")
    assert report["n_items"] == 75
    assert [r["subset"] for r in report["subsets"]] == [
        "mmlu_anatomy", "mmlu_law", "mmlu_virology"]
    assert any("3 tasks read as one run" in line
               for line in report["reading"])
    status = bed.main(["compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert status == 2 and "read them all as subsets with --by task" in \
        capsys.readouterr().err


# Run directories and files as frameworks write them ######################
# Fixtures in tests/fixtures/*-rundir, -runs, -older, -outputs, -latest
# follow the layouts of the real logs in ../shared/real-logs/ (its README
# names their sources); the figures here are read from them the plain way.

def fail(capsys, *argv):
    """Return the one line a refused compare prints (exit 2, no output)."""
    status = bed.main(["compare", *argv])
    out, err = capsys.readouterr()
    assert status == 2 and out == "" and err.count("\n") == 1, err
    return err


def em_by_doc(path):
    return {str(r["doc_id"]): int(r["exact_match"]) for r in lines(path)}


RUNDIR = fixture("lm-eval-rundir")
NEWER = os.path.join(RUNDIR, "model-a", "samples_winogrande_"
                     "2024-12-23T15-04-32.131238.jsonl")


def test_lm_eval_run_directory_newest_run_of_the_task(capsys):
    # lm-eval keeps every run: the newest of a task is read, and said;
    # --task matches a task by its name (winogrande, not ko_winogrande).
    report = compare(capsys, os.path.join(RUNDIR, "model-a"),
                     os.path.join(RUNDIR, "model-b"), "--task", "winogrande")
    (b_file,) = [f for f in os.listdir(os.path.join(RUNDIR, "model-b"))
                 if f.startswith("samples_")]
    a, b = em_by_doc(NEWER), em_by_doc(os.path.join(RUNDIR, "model-b",
                                                    b_file))
    check_binary(report["metrics"][0], [(a[d], b[d]) for d in sorted(a)])
    assert report["baseline"] == NEWER
    assert any(f"{os.path.basename(NEWER)}, the newest of 2 runs" in line
               for line in report["reading"])


def test_read_lines_name_each_file_once_from_where_the_user_stands(
        capsys, tmp_path, monkeypatch):
    # Model folders typed from the folder that holds them (lm-eval's
    # output_path/<model>/): each read: line names the file read once, and
    # from here, under 120 columns; it said the file, its task, the file
    # again and the folder again (254 columns on the real logs'
    # winogrande/*), and rank left absolute paths absolute.
    solar, gpt = "SOLAR-10.7B-Instruct-v1.0", "gpt-4o"
    shutil.copytree(os.path.join(RUNDIR, "model-a"), tmp_path / solar)
    shutil.copytree(os.path.join(RUNDIR, "model-b"), tmp_path / gpt)
    monkeypatch.chdir(tmp_path)
    chosen = os.path.join(solar, os.path.basename(NEWER))
    for argv in (["compare", gpt, solar], ["rank", gpt, solar],
                 ["rank", str(tmp_path / gpt), str(tmp_path / solar)],
                 ["check", gpt, solar], ["check", "."]):
        tail = ["--task", "winogrande"] * (argv[1] != ".") + [
            "--resamples", "100"] * (argv[0] != "check")
        assert bed.main(argv + tail) == 0, argv
        read = [line for line in capsys.readouterr().out.splitlines()
                if "read: " in line and "newest" in line]
        assert read and all(len(line) < 120 and line.count(
            os.path.basename(NEWER)) == 1 and line.count(solar) <= 1
            and str(tmp_path) not in line for line in read), (argv, read)
        assert argv[0] == "check" or read == [
            f"read: {chosen}, the newest of 2 runs"], read


def test_lm_eval_run_directory_of_two_tasks_asks_which(capsys):
    err = fail(capsys, os.path.join(RUNDIR, "model-a"),
               os.path.join(RUNDIR, "model-b"))
    assert "2 tasks in this lm-eval directory (ko_winogrande, winogrande)" \
        in err and "--task NAME" in err and "--by task" in err
    err = fail(capsys, os.path.join(RUNDIR, "model-a"),
               os.path.join(RUNDIR, "model-b"), "--task", "wino")
    assert "no task 'wino' in this lm-eval directory; its tasks are " \
        "ko_winogrande, winogrande" in err


def test_lm_eval_run_directories_by_task(capsys):
    # --by task reads every task (the results files are not runs); a task
    # only one model ran is named, and --allow-partial compares the rest.
    a, b = os.path.join(RUNDIR, "model-a"), os.path.join(RUNDIR, "model-b")
    err = fail(capsys, a, b, "--by", "task")
    assert "lacks 8 doc_id values" in err and "ko_winogrande/0" in err
    report = compare(capsys, a, b, "--by", "task", "--allow-partial")
    assert report["n_items"] == 8 and report["dropped_ids"] == 8


OLDER = fixture("lm-eval-older",
                "samples_ko_winogrande_2024-11-19T14-38-02.552165.jsonl")


def test_older_lm_eval_names_its_filters_from_the_results_file(capsys):
    # Three lines per document and no 'filter' key: once "doc_id '0'
    # repeated"; the k-th line is the k-th filter of the results file.
    report = compare(capsys, OLDER, OLDER)
    with open(OLDER.replace("samples_ko_winogrande", "results").replace(
            ".jsonl", ".json")) as f:
        names = [x["name"] for x in json.load(f)["configs"][
            "ko_winogrande"]["filter_list"]]
    assert [e["metric"] for e in report["metrics"]] == [
        f"exact_match[{n}]" for n in names]
    rows = lines(OLDER)
    for k, name in enumerate(names):
        values = [int(r["exact_match"]) for r in rows[k::len(names)]]
        entry = entries(report)[f"exact_match[{name}]"]
        assert entry["observed"]["a"] == float(Fraction(sum(values),
                                                        len(values)))
    assert report["n_items"] == 6


def test_older_lm_eval_without_its_results_file_says_why(capsys, tmp_path):
    lone = tmp_path / os.path.basename(OLDER)
    shutil.copy(OLDER, lone)
    err = fail(capsys, str(lone), str(lone))
    assert "doc_id 0 appears 3 times with no 'filter' key: an older " \
        "lm-eval writes a line per filter" in err
    assert "results_2024-11-19T14-38-02.552165.json" in err


HELM = fixture("helm-runs")
HELM_A = os.path.join(HELM, "mmlu-subject=philosophy,method=multiple_"
                      "choice_joint,model=a")
HELM_B = HELM_A.replace("model=a", "model=b")


def helm_test_split(folder, name):
    with open(os.path.join(folder, "per_instance_stats.json")) as f:
        return {e["instance_id"]: int(s["mean"]) for e in json.load(f)
                for s in e["stats"] if s["name"]["name"] == name
                and s["name"]["split"] == "test"}


def test_helm_run_directories_read_the_test_split(capsys):
    # The run directory as HELM writes it (not "4 runs"); its one valid
    # instance is left out, said, and the means are stats.json's test ones.
    report = compare(capsys, HELM_A, HELM_B)
    assert [(e["metric"], e.get("aliases")) for e in report["metrics"]] == [
        ("exact_match", ["quasi_exact_match"])]   # no token counts, times;
    # the two are equal on every item: one metric (issue 57)
    a, b = helm_test_split(HELM_A, "exact_match"), helm_test_split(
        HELM_B, "exact_match")
    check_binary(report["metrics"][0], [(a[i], b[i]) for i in a])
    with open(os.path.join(HELM_A, "stats.json")) as f:
        (test,) = [s["mean"] for s in json.load(f)
                   if s["name"]["split"] == "test"]
    assert report["metrics"][0]["observed"]["a"] == test
    assert report["n_items"] == 9
    assert any("1 valid-split instance left out" in line
               for line in report["reading"])


def test_helm_suite_directory_picks_a_run(capsys):
    err = fail(capsys, HELM, HELM)
    assert "2 tasks in this helm directory" in err
    report = compare(capsys, HELM, HELM, "--task", os.path.basename(HELM_A),
                     "--metric", "exact_match")
    assert report["n_items"] == 9
    assert report["baseline"] == os.path.join(HELM_A,
                                              "per_instance_stats.json")


def test_helm_aggregate_files_point_to_the_per_instance_one(capsys):
    err = fail(capsys, os.path.join(HELM_A, "stats.json"),
               os.path.join(HELM_B, "stats.json"))
    assert "a HELM run's stats.json, not its per-item stats" in err


PROMPTFOO = fixture("promptfoo")


def test_promptfoo_files_pair_tests_not_positions(capsys):
    # Two evals that both number their tests 0-2 share no test: refused,
    # where they were once compared as "3 items" by testIdx.
    err = fail(capsys, os.path.join(PROMPTFOO, "eval-a.json"),
               os.path.join(PROMPTFOO, "eval-b.json"))
    assert "eval-b.json: no id in common with" in err      # not lacks 3,
    assert "--allow-partial" not in err      # since it cannot join them
    # The same tests in another order are paired by their vars.
    # A file of one provider names its pass/fail success (issue 36: it was
    # named after the provider, so two providers' files shared no metric).
    report = compare(capsys, os.path.join(PROMPTFOO, "eval-a.json"),
                     os.path.join(PROMPTFOO, "eval-a-rerun.json"),
                     "--metric", "success")
    runs = []
    for name in ("eval-a.json", "eval-a-rerun.json"):
        with open(os.path.join(PROMPTFOO, name)) as f:
            runs.append({r["testCase"]["vars"]["query"]: int(r["success"])
                         for r in json.load(f)["results"]["results"]})
    check_binary(report["metrics"][0],
                 [(runs[0][q], runs[1][q]) for q in runs[0]])


def test_promptfoo_prompts_over_different_tests(capsys):
    # Each prompt covers its own tests; two systems on different prompts
    # share none, two on one prompt compare the tests they both ran.
    path = os.path.join(PROMPTFOO, "prompts-cover.json")
    err = fail(capsys, path, "--a-col", "gpt-4o | Pain v1", "--b-col",
               "gpt-4o-mini | Pain v1")
    assert "missing value; --allow-partial leaves out" in err
    report = compare(capsys, path, "--a-col", "gpt-4o | Pain v1", "--b-col",
                     "gpt-4o-mini | Pain v1", "--allow-partial")
    with open(path) as f:
        results = json.load(f)["results"]["results"]
    pairs = {}
    for r in results:
        if r["prompt"]["label"] == "Pain v1":
            pairs.setdefault(r["testCase"]["description"], {})[
                r["provider"]["id"]] = int(r["success"])
    check_binary(report["metrics"][0], [(v["gpt-4o"], v["gpt-4o-mini"])
                                        for v in pairs.values()])
    assert any("4 records missing a value left out" in line
               for line in report["reading"])
    err = fail(capsys, path, "--a-col", "gpt-4o | Pain v1", "--b-col",
               "gpt-4o | Ideas v1", "--allow-partial")
    assert "no record has a value of every one of" in err


DEEPEVAL = fixture("deepeval-latest")


def test_deepeval_latest_test_run_and_cases_named_twice(capsys):
    # .deepeval/.latest_test_run.json wraps the run in testRunData; a
    # second evaluate() names three cases again with other metrics: one
    # item each, and the metrics only those have are named, not compared.
    latest = os.path.join(DEEPEVAL, ".deepeval", ".latest_test_run.json")
    older = os.path.join(DEEPEVAL, "temp_test_run_data.json")
    report = compare(capsys, older, DEEPEVAL)
    assert report["candidate"] == latest and report["n_items"] == 8
    (entry,) = report["metrics"]
    assert entry["metric"] == "Correctness [GEval]"
    with open(latest) as f:
        run = json.load(f)["testRunData"]
    (scores,) = [m["scores"] for m in run["metricsScores"]]
    assert entry["observed"]["b"] == float(sum(map(Fraction, map(
        repr, scores))) / len(scores))
    reading = " ".join(report["reading"])
    assert "3 test cases named again" in reading
    assert "Correctness (GEval), as older DeepEval names it" in reading
    assert "Answer Relevancy, Faithfulness: scored on 3 of 8 items" in reading


def test_deepeval_name_given_to_two_inputs_is_refused(capsys, tmp_path):
    latest = os.path.join(DEEPEVAL, ".deepeval", ".latest_test_run.json")
    with open(latest) as f:
        doc = json.load(f)
    doc["testRunData"]["testCases"][-1]["input"] = "another question"
    path = tmp_path / "test_run_x.json"
    path.write_text(json.dumps(doc))
    err = fail(capsys, str(path), str(path))
    assert "the name 'test_case_6' is given to two different inputs" in err


OPENCOMPASS = fixture("opencompass-outputs")


def test_opencompass_outputs_without_details_read_predictions(capsys):
    report = compare(capsys, os.path.join(OPENCOMPASS, "16-bit"),
                     os.path.join(OPENCOMPASS, "4-bit"))
    runs = []
    for bits in ("16-bit", "4-bit"):
        (stamp,) = os.listdir(os.path.join(OPENCOMPASS, bits))
        (model,) = os.listdir(os.path.join(OPENCOMPASS, bits, stamp,
                                           "predictions"))
        folder = os.path.join(OPENCOMPASS, bits, stamp, "{}", model,
                              "lukaemon_mmlu_anatomy.json")
        with open(folder.format("predictions")) as f:
            runs.append({k: int(v["prediction"] == v["gold"])
                         for k, v in json.load(f).items()})
        with open(folder.format("results")) as f:
            accuracy = json.load(f)["accuracy"]
        assert abs(100 * sum(runs[-1].values()) / len(runs[-1])
                   - accuracy) < 1e-9
    check_binary(report["metrics"][0], [(runs[0][k], runs[1][k])
                                        for k in runs[0]])
    assert any("prediction equals the gold label" in line
               for line in report["reading"])
    results = folder.format("results")
    err = fail(capsys, results, results)
    assert "aggregate figures only (accuracy " in err
    assert "predictions/<model>/<dataset>.json" in err


INSPECT = fixture("inspect")


def test_inspect_logs_with_nothing_to_compare_say_why(capsys):
    unscored = os.path.join(INSPECT, "unscored.json")
    err = fail(capsys, unscored, unscored)
    assert "sample 1 epoch 1: never scored (no score and no error): score " \
        f"the log first (inspect score {unscored})" in err
    err = fail(capsys, unscored, unscored, "--allow-partial")
    assert "none of its 3 samples has a score (3 never scored)" in err
    header = os.path.join(INSPECT, "header-only.json")
    err = fail(capsys, header, header)
    assert "an Inspect log header with no samples" in err


def test_inspect_nan_is_unscored_not_malformed(capsys):
    path = os.path.join(INSPECT, "nan-value.json")
    assert "NaN" in open(path).read()            # as Python's json writes
    err = fail(capsys, path, path)
    assert "sample 2 epoch 1: scored NaN" in err
    report = compare(capsys, path, path, "--allow-partial")
    assert report["n_items"] == 2
    assert any("1 NaN-scored samples left out" in line
               for line in report["reading"])


def test_git_lfs_pointer_and_simple_evals_are_named(capsys, tmp_path):
    # A pointer is named, with the command that fetches it: --include takes
    # the path from the top of the git checkout, run there (git -C) from
    # outside it; with no checkout above, the path as given.
    (pointer,) = os.listdir(fixture("lighteval"))
    with open(fixture("lighteval", pointer), "rb") as f:
        text = f.read()
    (tmp_path / "logs" / "run").mkdir(parents=True)
    path = tmp_path / "logs" / "run" / pointer
    path.write_bytes(text)
    err = fail(capsys, str(path), str(path))
    assert "a git-lfs pointer" in err and "not the file itself" in err
    assert f"git lfs pull --include '{path}'" in err     # | quoted
    (tmp_path / "logs" / ".git").mkdir()
    err = fail(capsys, str(path), str(path))
    assert f"git -C {os.path.relpath(tmp_path / 'logs')} lfs pull " \
        f"--include 'run/{pointer}'" in err
    for name, said in (("mmlu_gpt-4o.json", "aggregate figures only"),
                       ("mmlu_gpt-4o_allresults.json",
                        "paired only by position, which is refused")):
        path = fixture("simple-evals", name)
        assert said in fail(capsys, path, path)


def test_every_reader_is_one_row_of_the_registry():
    # Detection goes down the table; every --from-format name is a row.
    names = [r.name for r in bed._READERS]
    assert len(set(names)) == len(names) and names[-1] == "table"
    assert all(r.description and callable(r.recognise) and callable(r.read)
               for r in bed._READERS)


def test_pairwise_preferences_are_read_as_verdicts(capsys):
    # AlpacaEval annotations and MT-Bench pairwise judgments once got
    # "no column 'system_a_correct'": they are verdicts between two
    # systems, read as such (tests/test_preferences.py checks the figures).
    for name, systems in (("annotations.json", ("gpt4_1106_preview",
                                                "model-x")),
                          ("gpt-4_pair.jsonl", ("phi-3", "phi-3-dpo"))):
        source = bed._open_source(fixture("preferences", name))
        assert (source.kind, source.systems) == ("preferences", systems)


def test_a_metric_one_run_lacks_is_named_not_dropped(capsys, tmp_path):
    # Of two HELM runs only one scored f1_score: it is said, not silently
    # left out of the default set.
    def run(name, stats):
        doc = [{"instance_id": f"id{i}", "train_trial_index": 0, "stats": [
            {"name": {"name": n, "split": "test"}, "mean": v(i)}
            for n, v in stats]} for i in range(6)]
        path = tmp_path / name
        path.write_text(json.dumps(doc))
        return str(path)
    a = run("a.json", [("exact_match", lambda i: i % 2),
                       ("f1_score", lambda i: 0.5)])
    b = run("b.json", [("exact_match", lambda i: 1)])
    report = compare(capsys, a, b)
    assert [e["metric"] for e in report["metrics"]] == ["exact_match"]
    assert "not compared by default: f1_score (in one run only); --metric " \
        "NAME compares one" in report["reading"]


def test_lm_eval_runs_one_naming_its_filters_one_not(capsys, tmp_path):
    # Issue 36: an older run whose samples name no filter (and has no
    # results file to name them from) against one with two filters: the
    # error once sent the user to --metric, which no name fitted, and
    # --filter said "the filters are none".  Now the error names the
    # --filter to give, and the unnamed run is read as that filter's, said.
    (tmp_path / "old").mkdir()
    (tmp_path / "new").mkdir()
    old = tmp_path / "old" / "samples_gsm8k_2024-01-01T00-00-00.jsonl"
    new = tmp_path / "new" / "samples_gsm8k_2024-02-01T00-00-00.jsonl"
    old.write_text("".join(json.dumps({
        "doc_id": i, "target": "1", "resps": [], "exact_match": i % 2})
        + "\n" for i in range(8)))
    new.write_text("".join(json.dumps({
        "doc_id": i, "target": "1", "filter": f, "metrics": ["exact_match"],
        "exact_match": (i + k) % 2}) + "\n"
        for k, f in enumerate(("strict-match", "flexible-extract"))
        for i in range(8)))
    assert bed.main(["compare", str(old), str(new)]) == 2
    err = capsys.readouterr().err
    assert "name one with --filter strict-match" in err
    assert bed.main(["compare", str(old), str(new), "--filter",
                     "strict-match", "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "its samples name no filter" in out and "8 items" in out


def test_helm_instance_split_over_records_is_one_item(capsys, tmp_path):
    # Issue 36: some HELM runs write one instance in several records of
    # per_instance_stats.json, each holding other stats; the tool said
    # "id ... repeated" and stopped.  They are one item now, said; the
    # same stat with two values is an error naming the instance.
    def stat(name, mean):
        return {"name": {"name": name, "split": "test"}, "count": 1,
                "sum": mean, "mean": mean}

    def run(folder, flip, clash=False):
        folder.mkdir()
        records = []
        for i in range(6):
            right = float((i + flip) % 2)
            records.append({"instance_id": f"id{i}", "train_trial_index": 0,
                            "stats": [stat("exact_match", right)]})
            records.append({"instance_id": f"id{i}", "train_trial_index": 0,
                            "stats": [stat("num_output_tokens", 3.0),
                                      stat("f1_score", right / 2)]
                            + [stat("exact_match", 1 - right)] * clash})
        (folder / "per_instance_stats.json").write_text(json.dumps(records))
        return str(folder / "per_instance_stats.json")

    a, b = run(tmp_path / "a", 0), run(tmp_path / "b", 1)
    assert bed.main(["compare", a, b, "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "6 items" in out and "6 records continued an instance" in out
    assert "exact_match" in out and "f1_score" in out
    bad = run(tmp_path / "c", 0, clash=True)
    assert bed.main(["compare", bad, b]) == 2
    assert "instance id0 trial 0: exact_match is" in capsys.readouterr().err


def test_lm_eval_multi_label_f1_is_left_out_not_the_run(capsys, tmp_path):
    # Issue 36: lm-eval tasks whose per-item f1 is [gold list, pred list]
    # (multi-label) were refused whole, and their plain exact_match with
    # them.  Found by default, such a pair is left out with a line naming
    # the file and why; asked for with --stat, the error stands.
    paths = []
    for name, shift in (("a", 0), ("b", 1)):
        path = tmp_path / f"samples_task_{name}.jsonl"
        path.write_text("".join(json.dumps({
            "doc_id": i, "target": "x", "filter": "none",
            "metrics": ["f1", "exact_match"],
            "f1": [["l1", "l2"], ["l1"] if (i + shift) % 2 else ["l2"]],
            "exact_match": (i + shift) % 3 == 0}) + "\n" for i in range(20)))
        paths.append(str(path))
    assert bed.main(["compare", *paths, "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    assert "f1: left out: its [gold, pred] pairs are not the class labels" \
        in out and paths[0] in out
    assert "\nexact_match " in out
    assert bed.main(["compare", *paths, "--stat", "f1=f1(f1)"]) == 2
    assert "not a class label" in capsys.readouterr().err


# Every Eval Ever ##########################################################

def eee_samples(model):
    folder = fixture("every-eval-ever", "ai2_arc", *model.split("/"))
    (name,) = [n for n in os.listdir(folder) if n.endswith(".jsonl")]
    return os.path.join(folder, name)


def test_every_eval_ever_two_models_compare_with_no_options(capsys):
    # Issue 48: two models' samples files on one evaluation compare with
    # no options: ids from sample_id, the metric evaluation.score, the
    # model and evaluation named, the aggregate beside each quoted.
    a, b = (eee_samples(m) for m in ("ollama/qwen2.5-0.5b",
                                     "anthropic/claude-sonnet-4-0"))
    report = compare(capsys, a, b)
    (entry,) = report["metrics"]
    assert entry["metric"] == "score"
    runs = [{r["sample_id"]: int(r["evaluation"]["score"]) for r in lines(p)}
            for p in (a, b)]
    check_binary(entry, [(runs[0][k], runs[1][k]) for k in runs[0]])
    assert bed.main(["compare", a, b, "--resamples", "100"]) == 0
    out = capsys.readouterr().out
    for path in (a, b):
        aggregate = path[:-1]                       # <uuid>.json beside it
        with open(aggregate) as f:
            figure = json.load(f)["evaluation_results"][0]["score_details"][
                "score"]
        model = lines(path)[0]["model_id"]
        assert (f"Every Eval Ever: {model} on arc_easy; its aggregate "
                f"{os.path.basename(aggregate)} reports arc_easy "
                f"{figure:.4g}") in out
    # The folder a model's files are in reads as the run.
    assert compare(capsys, os.path.dirname(a), os.path.dirname(b))[
        "metrics"][0]["observed"] == entry["observed"]


def test_every_eval_ever_identity_and_one_model_a_file(capsys, tmp_path):
    a = eee_samples("ollama/qwen2.5-0.5b")
    source = bed._open_source(a)
    assert source.identity == ("sample_hash",)
    records = [r for _, batch in source.batches for r in batch]
    assert [r["sample_hash"] for r in records] == [
        r["sample_hash"] for r in lines(a)]
    # is_correct is compared apart only where it says more than score.
    rows = lines(a)
    rows[0]["evaluation"]["score"] = 0.5
    mixed = tmp_path / "mixed_samples.jsonl"
    mixed.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert bed._open_source(str(mixed)).metrics == ("score", "is_correct")
    rows[3]["model_id"] = "other/model"
    two = tmp_path / "two_samples.jsonl"
    two.write_text("".join(json.dumps(r) + "\n" for r in rows))
    err = fail(capsys, str(two), a)
    assert f"{two}:4: model_id 'other/model' after 'ollama/qwen2.5-0.5b'" \
        in err


def test_every_eval_ever_aggregates_read_their_instance_file_or_name_it(
        capsys, tmp_path, monkeypatch):
    # An aggregate <uuid>.json (eval.schema.json 0.1.0 to 0.3.0) holds no
    # per-item results: given where its instance file is there (its
    # detailed_evaluation_results.file_path, beside it or from the root
    # of a data/ tree), that file is read and said; else it is refused as
    # lm-eval's results file is, naming the file to read instead.
    a, b = (eee_samples(m) for m in ("ollama/qwen2.5-0.5b",
                                     "anthropic/claude-sonnet-4-0"))
    aggregates = [p[:-1] for p in (a, b)]      # 0.2.1, naming the .jsonl
    assert compare(capsys, *aggregates)["metrics"] == compare(
        capsys, a, b)["metrics"]
    assert bed.main(["compare", *aggregates, "--resamples", "50"]) == 0
    assert (f"{os.path.basename(a)}: read for "
            f"{os.path.basename(aggregates[0])}, Every Eval Ever's "
            f"aggregate, which names it") in capsys.readouterr().out
    # 0.3.0: a path from the repository's root, data/...
    uuid = "f3a1c0de-4b2e-4c1a-9f6d-1b7e5a2c8d40"
    folder = tmp_path / "data" / "arc" / "org" / "model"
    folder.mkdir(parents=True)
    named = f"data/arc/org/model/{uuid}_samples.jsonl"
    with open(aggregates[0]) as f:
        doc = json.load(f)
    doc.update(schema_version="0.3.0", detailed_evaluation_results={
        "format": "jsonl", "file_path": named})
    new = folder / f"{uuid}.json"
    new.write_text(json.dumps(doc))
    err = fail(capsys, str(new), a)
    assert err.startswith(f"bootstrap-eval-deltas: error: {new}: Every Eval "
                          f"Ever's aggregate file (schema 0.3.0): aggregates "
                          f"only; the per-item results are the instance "
                          f"file its detailed_evaluation_results names, "
                          f"{named}, which is not there"), err
    shutil.copyfile(a, tmp_path / named)
    monkeypatch.chdir(tmp_path / "data" / "arc")
    assert compare(capsys, str(new), a)["metrics"][0]["observed"] == \
        compare(capsys, a, a)["metrics"][0]["observed"]
    # an aggregate naming itself, or a file that is not a samples file
    doc["detailed_evaluation_results"]["file_path"] = new.name
    new.write_text(json.dumps(doc))
    assert "which is not an Every Eval Ever samples file" in fail(
        capsys, str(new), a)
    # 0.1.0's early form names no file: the samples file beside it of the
    # same model is named (the real logs' None_samples.jsonl)
    old = tmp_path / "old"
    old.mkdir()
    shutil.copyfile(a, old / "None_samples.jsonl")
    del doc["detailed_evaluation_results"]
    doc.update(schema_version="0.1.0",
               detailed_evaluation_results_per_samples=[{"sample_id": "1"}])
    (old / f"{uuid}.json").write_text(json.dumps(doc))
    err = fail(capsys, str(old / f"{uuid}.json"), a)
    assert ("(schema 0.1.0): aggregates only; the per-item results are an "
            "instance-level <uuid>_samples.jsonl, which this one does not "
            "name; beside it, of the same model: None_samples.jsonl") in err
    assert "no framework reader knows" not in err


# Item identity in the join (issue 45) ####################################

def test_ids_holding_other_items_are_refused_for_each_framework(capsys):
    # Two runs of different tasks both number their items 1, 2, 3: the
    # join compares what each id holds (lm-eval's doc_hash, else its doc;
    # Inspect's input and target; HELM's instance text and references)
    # and refuses in one line naming both files, the id, the field and
    # how many ids differ.
    lm = "lm-eval-items"
    cases = [
        (fixture(lm, "samples_winogrande_2024-12-23T14-45-44.695233.jsonl"),
         fixture(lm, "samples_ko_winogrande_2024-11-19T15-07-36.131394.jsonl"),
         "(tasks winogrande and ko_winogrande): doc_id '0' differs in "
         "doc_hash, and 4 of the 4 shared ids differ;"),
        (fixture(lm, "samples_ko_winogrande_2024-11-19T16-30-00.000000.jsonl"),
         fixture(lm, "samples_ko_winogrande_2024-11-19T16-01-11.737538.jsonl"),
         "items: doc_id '2' differs in doc, and 1 of the 4 shared ids "
         "differs;"),
        (fixture("inspect-items", "popularity-a.json"),
         fixture("inspect-items", "arc_easy.json"),
         "(tasks popularity and inspect_evals/arc_easy): id '1' differs in "
         "input, and 3 of the 3 shared ids differ;"),
        (fixture("helm-items", "mmlu-philosophy-a"),
         fixture("helm-items", "mmlu-anatomy-c"),
         "(tasks mmlu:subject=philosophy and mmlu:subject=anatomy): id "
         "'id1/0' differs in input, and 3 of the 3 shared ids differ;"),
    ]
    for a, b, said in cases:
        err = fail(capsys, a, b)
        assert said in err and a in err and b in err, err
        assert "--same-ids-different-items compares them anyway" in err
        assert bed.main(["compare", a, b, "--same-ids-different-items",
                         "--resamples", "50"]) == 0
        out = capsys.readouterr().out
        assert "paired as given (--same-ids-different-items)" in out
    a, b = cases[0][:2]
    assert bed.main(["rank", a, b, a]) == 2
    assert "doc_id '0' differs in doc_hash" in capsys.readouterr().err
    assert bed.main(["plan", "--from", a, b]) == 2
    assert "doc_id '0' differs in doc_hash" in capsys.readouterr().err


def test_same_items_still_pair_and_a_run_against_itself_is_said(capsys,
                                                                 tmp_path):
    # Same content under the same ids compares as before (an Inspect chat
    # input's message ids, drawn afresh each run, are not the item); one
    # file given twice, or two files of the same bytes, get a note.
    lm = fixture("lm-eval-items",
                 "samples_winogrande_2024-12-23T14-45-44.695233.jsonl")
    pairs = [(lm, fixture("lm-eval-items", "samples_winogrande_2024-12-23T"
                                           "15-04-32.131238.jsonl")),
             (fixture("inspect-items", "arc_easy.json"),
              fixture("inspect-items", "arc_easy-rerun.json")),
             (fixture("inspect-items", "popularity-a.json"),
              fixture("inspect-items", "popularity-b.json")),
             (fixture("helm-items", "mmlu-philosophy-a"),
              fixture("helm-items", "mmlu-philosophy-b"))]
    for a, b in pairs:
        assert bed.main(["compare", a, b, "--resamples", "50"]) == 0
        out = capsys.readouterr().out
        assert "the same run" not in out and "compared with itself" \
            not in out
    assert bed.main(["compare", lm, lm, "--resamples", "50"]) == 0
    out = capsys.readouterr().out
    assert out.count("a run compared with itself") == 1
    copy = os.path.join(os.path.dirname(lm), "..", "lm-eval-items",
                        os.path.basename(lm))
    assert bed.main(["compare", lm, copy, "--resamples", "50"]) == 0
    assert "a run compared with itself" in capsys.readouterr().out
    twin = tmp_path / "samples_winogrande_2024-12-24T00-00-00.0.jsonl"
    shutil.copyfile(lm, twin)
    assert bed.main(["compare", lm, str(twin), "--resamples", "50"]) == 0
    assert "the same bytes as the baseline's file: the same run twice?" \
        in capsys.readouterr().out
    rows = [{"id": i, "score": i / 7} for i in range(7)]
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(json.dumps(r) + "\n" for r in rows))
    b.write_text("".join(json.dumps(r) + "\n" for r in rows[::-1]))
    assert bed.main(["compare", str(a), str(b), "--resamples", "50"]) == 0
    assert "every item's scores are the baseline's" in \
        capsys.readouterr().out


def test_every_eval_ever_hashes_that_differ_are_other_items(capsys, tmp_path):
    # Issue 48: sample_hash is the item's identity; a pair of files whose
    # hashes differ for a shared sample_id holds different items.
    a = eee_samples("ollama/qwen2.5-0.5b")
    rows = lines(a)
    rows[1]["sample_hash"] = "0" * 64
    other = tmp_path / "other_samples.jsonl"
    other.write_text("".join(json.dumps(r) + "\n" for r in rows))
    err = fail(capsys, a, str(other))
    assert (f"sample_id {rows[1]['sample_id']!r} differs in sample_hash, "
            f"and 1 of the {len(rows)} shared ids differs") in err
    assert len(err.strip().splitlines()) == 1


def test_runs_scoring_different_metrics_get_no_dead_end(capsys, tmp_path):
    # A loglikelihood run (acc) and a generative run (exact_match) of one
    # task: the error said "name one with --metric", and --metric acc then
    # found no acc in the other run.  Now it says why nothing pairs.
    for name, metric in (("a", "acc"), ("b", "exact_match")):
        (tmp_path / f"samples_wg_{name}.jsonl").write_text("".join(
            json.dumps({"doc_id": i, "filter": "none", "metrics": [metric],
                        metric: float(i % 2)}) + "\n" for i in range(6)))
    status = bed.main(["compare", str(tmp_path / "samples_wg_a.jsonl"),
                       str(tmp_path / "samples_wg_b.jsonl")])
    err = capsys.readouterr().err
    assert status == 2 and "this run has exact_match; they score different " \
        "things, so no item's scores pair up" in err and "--metric" not in err
