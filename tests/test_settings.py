"""Run settings (issue 57): what each reader reads of how a run was made,
what compare, rank and check say where two runs' settings differ, and a
metric computed from other inputs in each run left out, not judged.

The lighteval case is issue 57's gpqa:diamond: one run kept 1 prediction
per item, the other 8 (tests/fixtures/lighteval-gpqa, written in
lighteval's details layout by its make_fixtures.py).
"""
import json
import os
import shutil

import bootstrap_eval_deltas as bed
from test_readers import fail
from test_readers import fixture

ITEMS = fixture("lm-eval-items")
A = "samples_winogrande_2024-12-23T14-45-44.695233.jsonl"
B = "samples_winogrande_2024-12-23T15-04-32.131238.jsonl"
GPQA = fixture("lighteval-gpqa")


def lm_eval_run(folder, name, shots=0, limit=None, keep=None, results=True):
    """Copy a 4-item winogrande samples file into *folder*, with the
    results_<date>.json lm-eval writes beside it (num_fewshot, limit)."""
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name)
    with open(os.path.join(ITEMS, name)) as f:
        lines = f.readlines()
    with open(path, "w") as f:
        f.writelines(lines[:keep])
    if results:
        stamp = bed._task_and_stamp(name)[1]
        with open(os.path.join(folder, f"results_{stamp}.json"), "w") as f:
            json.dump({"configs": {"winogrande": {
                "num_fewshot": shots, "generation_kwargs": {"until": ["\n"]},
                "metadata": {"version": 1.0}}},
                "versions": {"winogrande": 1.0},
                "n-shot": {"winogrande": shots},
                "config": {"model_args": "pretrained=org/m,dtype=bfloat16",
                           "limit": limit}}, f)
    return path


def run(capsys, *argv):
    status = bed.main([*argv, "--resamples", "200"])
    out, err = capsys.readouterr()
    assert status == 0, err
    return out


def test_lm_eval_settings_that_differ_are_said_in_every_format(capsys,
                                                                tmp_path):
    a = lm_eval_run(str(tmp_path / "m"), A, shots=0)
    b = lm_eval_run(str(tmp_path / "m"), B, shots=5)
    assert bed._open_source(a).settings == {
        "num_fewshot": "0", "version": "1",
        "generation_kwargs": '{"until":["\\n"]}', "limit": "all",
        "model_args": "dtype=bfloat16"}        # the model is the system
    out = run(capsys, "compare", a, b)
    head = out.splitlines()
    # the runs had only time stamps to tell them apart: the setting names them
    assert head[0].startswith("baseline: num_fewshot=0   candidate: "
                              "num_fewshot=5   4 items"), out
    assert head[1] == "differs: num_fewshot 0 -> 5"
    report = json.loads(run(capsys, "compare", a, b, "--json"))
    assert report["differs"] == [{"setting": "num_fewshot", "baseline": "0",
                                  "candidate": "5"}]
    md = run(capsys, "compare", a, b, "--format", "markdown")
    assert "\n\ndiffers: num\\_fewshot 0 -&gt; 5\n" in md
    html = run(capsys, "compare", a, b, "--format", "html")
    assert "differs: num_fewshot 0 -&gt; 5" in html


def test_settings_equal_or_unknown_leave_the_output_as_it_was(capsys,
                                                              tmp_path):
    plain = [lm_eval_run(str(tmp_path / "p"), n, results=False)
             for n in (A, B)]
    alike = [lm_eval_run(str(tmp_path / "s"), n, shots=5) for n in (A, B)]
    broken = [lm_eval_run(str(tmp_path / "x"), n) for n in (A, B)]
    with open(broken[1][:-len(B)] + "results_"
              + bed._task_and_stamp(B)[1] + ".json", "w") as f:
        f.write("{not json")                   # unknown, never an error
    assert bed._open_source(broken[1]).settings == {}
    for fmt in ("text", "json", "markdown"):
        outs = {run(capsys, "compare", *pair, "--format", fmt)
                .replace(os.path.dirname(pair[0]), "DIR")
                for pair in (plain, alike, broken)}
        assert len(outs) == 1, outs
        assert "differs" not in outs.pop()


def test_a_limited_run_is_refused_saying_so(capsys, tmp_path):
    full = lm_eval_run(str(tmp_path / "full"), A)
    short = lm_eval_run(str(tmp_path / "short"), B, limit=2.0, keep=2)
    err = fail(capsys, full, short)
    assert (f"{short}: a run limited to 2 items (limit all -> 2), so it "
            f"lacks 2 doc_id values that {full} has") in err
    assert "--allow-partial" in err
    out = run(capsys, "compare", full, short, "--allow-partial")
    assert "differs: limit all -> 2" in out
    status = bed.main(["rank", full, short, str(tmp_path / "full"),
                       "--metric", "acc"])
    err = capsys.readouterr().err
    assert status == 2 and "a run limited to 2 items" in err, err


def test_rank_and_check_say_what_differs(capsys, tmp_path):
    runs = [os.path.dirname(lm_eval_run(str(tmp_path / name), file,
                                        shots=shots))
            for name, file, shots in (("a", A, 0), ("b", B, 5), ("c", A, 5))]
    out = run(capsys, "rank", *runs, "--metric", "acc")
    assert out.splitlines()[1] == "differs: num_fewshot 0 (a), 5 (b, c)"
    report = json.loads(run(capsys, "rank", *runs, "--metric", "acc",
                            "--json"))
    assert report["differs"] == [{"setting": "num_fewshot", "systems": {
        "a": "0", "b": "5", "c": "5"}}]
    alone = [lm_eval_run(str(tmp_path / "one"), file, shots=shots)
             for file, shots in ((A, 0), (B, 5))]     # time stamps only
    out = run(capsys, "rank", *alone, "--metric", "acc")
    assert "\nnum_fewshot=0 " in out and "\nnum_fewshot=5 " in out, out
    bed.main(["check", *runs[:2]])
    out = capsys.readouterr().out
    assert ": differs: num_fewshot 0 -> 5" in out, out


def gpqa(name):
    return os.path.join(GPQA, name)


def test_a_metric_computed_from_other_predictions_is_not_judged(capsys):
    one, eight = gpqa("one-prediction"), gpqa("eight-predictions")
    report = json.loads(run(capsys, "compare", one, eight, "--json"))
    assert [m["metric"] for m in report["metrics"]] == [
        "gpqa_pass@1:1_samples"]              # the one like-for-like metric
    assert report["metrics"][0]["verdict"] == "no detectable difference"
    assert report["metrics"][0]["test"]["p"] > 0.5
    assert ("gpqa_pass@1:4_samples: computed from 1 and 4 predictions per "
            "item in the two runs: not the same metric, so not judged, left "
            "out (--same-metric-anyway judges it)") in report["reading"]
    assert any(line.startswith("gpqa_pass@1:8_samples: computed from 1 and "
                               "8 predictions per item")
               for line in report["reading"])
    assert {"setting": "predictions per item", "baseline": "1",
            "candidate": "8"} in report["differs"]
    text = run(capsys, "compare", one, eight)
    assert "read: gpqa_pass@1:4_samples: computed from 1 and 4" in text
    assert "\ngpqa_pass@1:4_samples " not in text      # no row of it
    # as before: judged anyway, a 'better' of p ~ 1e-28 on a metric that
    # holds at most 0.25 an item in the first run
    anyway = json.loads(run(capsys, "compare", one, eight, "--json",
                            "--same-metric-anyway"))
    p = {m["metric"]: m["test"]["p"] for m in anyway["metrics"]}
    assert p["gpqa_pass@1:4_samples"] < 1e-20 and p[
        "gpqa_pass@1:8_samples"] < 1e-20
    err = fail(capsys, one, eight, "--metric", "gpqa_pass@1:4_samples")
    assert "no metric computed as in" in err and (
        "gpqa_pass@1:4_samples from 1 and 4 predictions per item") in err
    assert "--same-metric-anyway" in err


def test_the_family_says_the_metrics_left_out_of_one_candidate(capsys,
                                                                tmp_path):
    again = str(tmp_path / "again")
    shutil.copytree(gpqa("eight-predictions"), again)
    out = run(capsys, "compare", gpqa("eight-predictions"),
              gpqa("one-prediction"), again)
    assert "Holm-adjusted across 2 candidates' 4 metrics (1, 3)" in out


def test_readers_settings_from_their_frameworks_files(tmp_path):
    helm = tmp_path / "helm"
    shutil.copytree(fixture("helm-runs", "mmlu-subject=philosophy,method="
                            "multiple_choice_joint,model=a"), helm)
    (helm / "run_spec.json").write_text(json.dumps({"adapter_spec": {
        "method": "multiple_choice_joint", "max_train_instances": 5,
        "num_outputs": 1, "temperature": 0.0, "max_eval_instances": None,
        "instructions": "The following are multiple choice questions " * 2}}))
    got = bed._open_source(str(helm)).settings
    assert got["max_train_instances"] == "5" and got["limit"] == "all"
    assert got["temperature"] == "0" and got["instructions"].startswith(
        "The following are") and len(got["instructions"]) == 40
    assert bed._open_source(fixture("openai-evals", "base.jsonl")
                            ).settings == {"eval_name": "arith.dev.v0"}
    log = json.load(open(fixture("inspect", "base.json")))
    log["eval"].update(task_version=2, config={"epochs": 3, "limit": 24},
                       scorers=[{"name": "match",
                                 "options": {"location": "end"}}])
    log["plan"] = {"steps": [{"solver": "generate", "params": {}}],
                   "config": {"temperature": 0.5, "max_connections": 9}}
    path = tmp_path / "log.json"
    path.write_text(json.dumps(log))
    assert bed._open_source(str(path)).settings == {
        "task_version": "2", "epochs": "3", "limit": "24",
        "solver": "generate", "generate": '{"temperature":0.5}',
        "match: scorer options": '{"location":"end"}'}


def test_a_scorers_other_options_leave_its_metrics_out(capsys, tmp_path):
    paths = []
    for name, options in (("base", {}), ("cand", {"location": "end"})):
        log = json.load(open(fixture("inspect", f"{name}.json")))
        log["eval"]["scorers"] = [{"name": "match", "options": options}]
        paths.append(str(tmp_path / f"{name}.json"))
        with open(paths[-1], "w") as f:
            json.dump(log, f)
    report = json.loads(run(capsys, "compare", *paths, "--json"))
    assert "match" not in [m["metric"] for m in report["metrics"]]
    assert report["metrics"]                   # graded.* still compared
    assert any(line.startswith('match: computed from scorer options {} and '
                               '{"location":"end"}')
               for line in report["reading"])


def test_an_lm_eval_prompt_that_differs_is_said(capsys, tmp_path):
    # Two runs whose task templates differ (a prompt edited between runs,
    # as in a real lm-eval run folder): differs: names doc_to_text.
    a = lm_eval_run(str(tmp_path / "m"), A)
    b = lm_eval_run(str(tmp_path / "m"), B)
    for path, option in ((a, "{{option1}}"), (b, "{{option2}}")):
        stamp = bed._task_and_stamp(os.path.basename(path))[1]
        results = tmp_path / "m" / f"results_{stamp}.json"
        doc = json.loads(results.read_text())
        doc["configs"]["winogrande"]["doc_to_text"] = f"Pick: 2.{option}"
        results.write_text(json.dumps(doc))
    out = run(capsys, "compare", a, b)
    differs = next(line for line in out.splitlines()
                   if line.startswith("differs:"))
    assert differs == ("differs: doc_to_text Pick: 2.{{option1}} -> Pick: "
                       "2.{{option2}}")
    # a long template names no run, in rank as in compare
    for path, option in ((a, "one"), (b, "two")):
        stamp = bed._task_and_stamp(os.path.basename(path))[1]
        results = tmp_path / "m" / f"results_{stamp}.json"
        doc = json.loads(results.read_text())
        doc["configs"]["winogrande"]["doc_to_text"] = (
            "Which one of the two options fits the blank best? " + option)
        results.write_text(json.dumps(doc))
    out = run(capsys, "rank", a, b, "--json")
    names = [s["name"] for s in json.loads(out)["systems"]]
    assert not any(n.startswith("doc_to_text=") for n in names), names


def test_names_from_settings_never_name_two_systems_alike(tmp_path):
    # Two candidates that each differ from the baseline in epochs 2 -> 1
    # were both called 'epochs=1' (and best-of could not say which won):
    # where settings do not tell every system apart, the paths do.
    import types
    paths = []
    for stamp in ("2025-02-11T15-17-00", "2025-02-11T15-18-04",
                  "2025-05-12T20-28-13"):
        paths.append(str(tmp_path / f"{stamp}.json"))
        open(paths[-1], "w").close()
    runs = [types.SimpleNamespace(names=(paths[0], p),
                                  settings=[("epochs", "2", "1")])
            for p in paths[1:]]
    names = bed._report_names(bed._Options(runs=tuple(paths)), runs)
    systems = [names[0][0]] + [b for _, b in names]
    assert len(set(systems)) == 3 and "epochs=1" not in systems
    one = bed._report_names(bed._Options(runs=tuple(paths[:2])), runs[:1])
    assert one == [("epochs=2", "epochs=1")]      # one pair: as before
