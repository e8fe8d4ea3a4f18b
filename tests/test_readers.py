"""Input: the frameworks' own files, from fixtures in tests/fixtures/.

Each expected figure is computed here the plain way from the fixture's own
JSON (group by item, average the epochs, count), not taken from the tool.
"""
import json
import os
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
    assert any("f1: corpus-level" in line for line in report["reading"])
    a, b = lines(base), lines(cand)
    check_binary(entries(report)["acc"],
                 [(int(x["acc"]), int(y["acc"])) for x, y in zip(a, b)])


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


def test_parquet_says_how_to_convert(capsys, tmp_path):
    path = tmp_path / "details.parquet"
    path.write_bytes(b"PAR1" + bytes(20))
    status = bed.main(["compare", str(path), str(path)])
    err = capsys.readouterr().err
    assert status == 2 and err.count("\n") == 1
    assert "parquet, which the standard library cannot read" in err


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
    assert any("1 tests with API errors left out" in line
               for line in report["reading"])


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
    table, within, between, gap = bed.repeats_from_samples(
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
