"""Input: what the files hold (check), and the grouped --help.

check reads the shipped examples, the fixtures and (where ../shared is
here) the frameworks' real files; every command it suggests is run as
printed, in-process, with few resamples, and must end in 0 or 1.
"""
import itertools
import json
import os
import re
import shlex
import shutil

import pytest

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, os.pardir)
REAL = os.path.join(ROOT, os.pardir, "shared", "real-logs")


def at(*parts):
    return os.path.relpath(os.path.join(ROOT, *parts))


def check(capsys, *argv):
    status = bed.main(["check", *argv, "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    named = {p for p in argv if os.path.exists(p)}   # 1: one of them refused
    assert status == any(e["refused"] and e["path"] in named
                         for e in report["inputs"]), err
    return report


def run_suggested(capsys, argv):
    """Run one suggested command in-process with few resamples; return its
    status (a traceback fails the test)."""
    extra = ["--resamples", "200", "--quiet"] if argv[0] != "plan" else []
    status = bed.main(list(argv) + extra)
    capsys.readouterr()
    return status


def walk(capsys, paths, seen=None):
    """check *paths*, then run every command it suggests; return the
    report.  'different tasks' names two tasks, not one twice, nor a
    file's name (issue 57: samples_<task>_<date>.json)."""
    report = check(capsys, *paths)
    for entry in report["inputs"]:
        assert entry["refused"] or (entry["format"] and entry["records"]), \
            entry
    for problem in report["problems"]:
        for x, y in re.findall(r"different tasks \(([^,]+), ([^)]+)\)",
                               problem):
            assert x != y and not re.search(r"\d{4}-\d\d-\d\dT|\.json",
                                            x + y), problem
    for argv in report["commands"]:
        if seen is not None:
            if tuple(argv) in seen:
                continue
            seen.add(tuple(argv))
        assert run_suggested(capsys, argv) in (0, 1), argv
    return report


# A handful of representative inputs in the default run: two runs with a
# cluster and a subset field, judged runs with human labels, folders of
# several runs per system, samples per item (pass@k), a wide file, one
# of gold labels and two systems' predictions (F1), a preference file with
# its human verdicts, a file of several systems, an lm-eval folder of two
# models.
REPRESENTATIVE = [
    (["datasets/examples/base.jsonl", "datasets/examples/cand.jsonl"],
     ["--cluster", "--by", "plan"]),
    (["datasets/examples/judged-base.jsonl",
      "datasets/examples/judged-cand.jsonl"], ["--human"]),
    (["datasets/examples/runs"], ["--runs"]),
    (["datasets/examples/code-base.jsonl", "datasets/examples/code-cand.jsonl"],
     ["--stat"]),
    (["datasets/bootstrap-eval-deltas.csv"], ["compare"]),
    (["datasets/examples/preds.csv"], ["f1(gold,pred_a,pred_b)"]),
    (["datasets/examples/prefs-judge.json", "datasets/examples/prefs-human.json"],
     ["--human"]),
    (["tests/fixtures/promptfoo/results.json"], ["compare"]),
    (["tests/fixtures/lm-eval-rundir"], ["compare"]),
]


@pytest.mark.parametrize("paths, flags", REPRESENTATIVE)
def test_check_suggests_commands_that_run(capsys, paths, flags):
    report = walk(capsys, [at(p) for p in paths])
    words = {word for argv in report["commands"] for word in argv}
    for flag in flags:
        assert flag in words, (flag, report["commands"])
    assert len(report["answers"]) == len(report["commands"])


def test_check_suggests_only_what_the_files_call_for(capsys):
    # base.jsonl and cand.jsonl have no human labels, no repeated runs
    report = check(capsys, at("datasets/examples/base.jsonl"),
                   at("datasets/examples/cand.jsonl"))
    words = {word for argv in report["commands"] for word in argv}
    assert not words & {"--human", "--runs", "--stat", "rank"}
    fields = {f["name"]: f for f in report["inputs"][0]["fields"]}
    assert fields["passage_id"]["roles"] == ["cluster"]
    assert fields["subject"]["roles"] == ["subset"]
    assert fields["acc"]["type"] == "0/1" and fields["acc"]["missing"] == 0
    assert fields["latency"]["roles"] == ["metric", "lower is better"]
    assert report["inputs"][0]["items"] == 240
    # one run alone: nothing to compare it with
    report = check(capsys, at("datasets/examples/base.jsonl"))
    assert report["commands"] == []


def test_check_profile_counts_by_hand(capsys, tmp_path):
    # 4 records, 3 ids: the missing value, min, max and mean by hand
    path = tmp_path / "run.jsonl"
    path.write_text('{"id": "a", "acc": 1, "t": 2.5, "human": 1}\n'
                    '{"id": "b", "acc": 0, "t": 0.5}\n'
                    '{"id": "c", "acc": 1, "t": 1.0, "human": null}\n'
                    '{"id": "c", "acc": 1, "t": 4.0}\n')
    report = check(capsys, str(path))
    (entry,) = report["inputs"]
    assert (entry["records"], entry["items"], entry["id_field"]) == (
        4, 3, "id")
    fields = {f["name"]: f for f in entry["fields"]}
    assert (fields["t"]["min"], fields["t"]["max"], fields["t"]["mean"]) == (
        0.5, 4.0, 2.0)
    assert (fields["human"]["count"], fields["human"]["missing"]) == (1, 3)
    assert fields["human"]["roles"] == ["human labels"]
    assert any("4 records for 3 ids" in p for p in report["problems"])


def test_check_text_commands_are_quoted_argv(capsys):
    paths = [at("datasets/examples/code-base.jsonl"),
             at("datasets/examples/code-cand.jsonl")]
    data = check(capsys, *paths)
    assert bed.main(["check", *paths]) == 0
    out = capsys.readouterr().out
    printed = [shlex.split(line)[1:] for line in out.splitlines()
               if line.startswith("  bootstrap-eval-deltas ")]
    assert printed == data["commands"]     # pass@8(passed) quoted, parsed
    assert "pass@8(passed)" in printed[0]
    assert bed.main(["check", *paths, "--format", "markdown"]) == 0
    assert "```\nbootstrap-eval-deltas compare" in capsys.readouterr().out


def test_check_sees_different_items_and_identical_runs(capsys, tmp_path):
    a, b, c = (tmp_path / name for name in ("a.jsonl", "b.jsonl",
                                             "c.jsonl"))
    a.write_text("".join(f'{{"doc_id": {i}, "doc": {{"q": "en {i}"}}, '
                         f'"acc": {i % 2}}}\n' for i in range(40)))
    b.write_text("".join(f'{{"doc_id": {i}, "doc": {{"q": "ko {i}"}}, '
                         f'"acc": {i % 3 % 2}}}\n' for i in range(40)))
    c.write_bytes(a.read_bytes())
    report = check(capsys, str(a), str(b), str(c))
    problems = "\n".join(report["problems"])
    # named as compare and rank name them (_run_names): a, b and c
    assert "a and b: the same ids hold different items: id 0's " \
        "doc differs (40 of 40 shared ids)" in problems
    assert "a and c: byte-identical files" in problems
    assert all(b.name not in " ".join(argv) for argv in report["commands"])


def test_check_reports_refusals_and_exits_2_only_without_the_path(capsys):
    # a file it was given and refuses is exit 1 (an empty file was 0); a
    # folder's entries it refuses (a results table beside samples) are not
    status = bed.main(["check", at("tests/fixtures/inspect/header-only.json"),
                       at("tests/fixtures/simple-evals/mmlu_gpt-4o.json"),
                       "--json"])
    report = json.loads(capsys.readouterr().out)
    assert status == 1
    assert all(entry["refused"] for entry in report["inputs"])
    assert report["commands"] == []
    report = check(capsys, at("tests/fixtures/inspect"))      # exit 0
    assert any(entry["refused"] for entry in report["inputs"])
    assert bed.main(["check", "no/such/file.jsonl"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no/such/file.jsonl: cannot read" in err


def shipped():
    """Every folder of the shipped examples and fixtures, and every pair
    of files (and of folders) side by side in one."""
    for top in ("datasets", os.path.join("tests", "fixtures")):
        for folder, folders, files in os.walk(os.path.join(ROOT, top)):
            folders.sort()
            yield [folder]
            for group in (sorted(files), folders):
                for x, y in itertools.combinations(group, 2):
                    yield [os.path.join(folder, x), os.path.join(folder, y)]


def test_check_sees_a_deepeval_projects_hidden_run(capsys, tmp_path):
    # deepeval writes .deepeval/.latest_test_run.json in the project and
    # test_run_<date>.json in DEEPEVAL_RESULTS_FOLDER: check once read the
    # dated file alone (the hidden folder skipped, unsaid), as compare did
    # not.  Now the project is one run: the newest, the other said.
    with open(at("tests", "fixtures", "deepeval", "cand",
                 "test_run_20240602.json")) as f:
        latest = json.load(f)
    for results in ("", "eval-results"):
        project = tmp_path / (results or "project")
        (project / ".deepeval").mkdir(parents=True)
        (project / ".deepeval" / ".latest_test_run.json").write_text(
            json.dumps({"testRunData": latest}))
        (project / results).mkdir(exist_ok=True)
        shutil.copy(at("tests", "fixtures", "deepeval", "base",
                       "test_run_20240601.json"), project / results)
        entry, = check(capsys, str(project))["inputs"]
        assert (entry["path"], entry["notes"][0]) == (
            str(project), ".deepeval/.latest_test_run.json, the newest of "
                          "2 runs")


@pytest.mark.slow
def test_check_walks_every_shipped_example(capsys):
    seen, checked = set(), 0
    for paths in shipped():
        walk(capsys, [os.path.relpath(p) for p in paths], seen)
        checked += 1
    assert checked > 300 and len(seen) > 80


@pytest.mark.skipif(not os.path.isdir(REAL),
                    reason="../shared/real-logs/ is not here")
@pytest.mark.parametrize("folder", [
    "lm_eval/winogrande", "helm", "promptfoo", "inspect_ai", "deepeval",
    "opencompass", "preferences/fastchat_mt_bench_Stefanstud", "lm_eval",
    "lighteval", "every_eval_ever"])
def test_check_real_log_folders(capsys, folder):
    report = walk(capsys, [os.path.join(REAL, folder)])
    assert all(entry["format"] or entry["refused"]
               for entry in report["inputs"])


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir(REAL),
                    reason="../shared/real-logs/ is not here")
def test_check_walks_every_real_log_folder_and_pair(capsys):
    # every folder, every file alone, and every pair side by side in one
    # folder: each command suggested runs (exit 0 or 1, not 2)
    seen = set()
    for folder, folders, files in os.walk(REAL):
        folders.sort()
        walk(capsys, [folder], seen)
        for name in sorted(files):
            walk(capsys, [os.path.join(folder, name)], seen)
        for group in (sorted(files), folders):
            for x, y in itertools.combinations(group, 2):
                walk(capsys, [os.path.join(folder, x),
                              os.path.join(folder, y)], seen)


def test_winogrande_and_ko_winogrande_are_different_items(capsys):
    if not os.path.isdir(REAL):
        pytest.skip("../shared/real-logs/ is not here")
    report = check(capsys, os.path.join(REAL, "lm_eval", "winogrande",
                                        "gpt-4o"),
                   os.path.join(REAL, "lm_eval", "ko_winogrande",
                                "Llama-3.1-8B-Instruct"))
    assert any("the same ids hold different items: id 0's doc_hash differs "
               "(10 of 10 shared ids); different tasks (winogrande, "
               "ko_winogrande)" in p for p in report["problems"])
    assert report["commands"] == []


def subcommands():
    parser = bed._build_parser()
    (commands,) = [a for a in parser._actions
                   if isinstance(a, type(parser._subparsers._group_actions[0]))]
    return commands.choices


@pytest.mark.parametrize("name", ["simulate", "compare", "rank", "plan",
                                  "check"])
def test_help_groups_hold_every_option_once(name):
    command = subcommands()[name]
    groups = [g for g in command._action_groups if g._group_actions]
    for action in command._actions:
        holding = [g.title for g in groups if action in g._group_actions]
        if action.dest == "help":
            assert holding == ["options"]
        else:
            assert len(holding) == 1 and holding != ["options"], (
                action.option_strings or action.dest, holding)
    if name == "compare":
        assert len(groups) >= 6        # five named groups at least, and -h
        text = command.format_help()
        for word in ("peek", "judge", "seed", "repeat", "epoch"):
            assert word in text, word


def test_check_a_file_given_twice_is_said_and_not_compared(capsys):
    base = at("datasets/examples/base.jsonl")
    report = check(capsys, base, base)
    assert report["problems"] == [f"{base} and {base}: the same file"]
    assert report["commands"] == []


def test_check_reads_csv_text_as_numbers_where_compare_does(capsys, tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("item,system_a_correct,system_b_correct,note,tier\n"
                    "1,0,1,x,a\n2,1,1,,a\n3,1,0,y,b\n4,0,0,z,b\n")
    (entry,) = check(capsys, str(path))["inputs"]
    fields = {f["name"]: f for f in entry["fields"]}
    assert fields["system_a_correct"]["type"] == "0/1"
    assert fields["item"]["type"] == "number" and fields["item"]["max"] == 4
    assert fields["note"]["type"] == "text" and fields["note"]["missing"] == 1
    assert fields["tier"]["roles"] == ["subset"]


def test_check_sees_a_wide_file_of_judge_and_human_scores(capsys, tmp_path):
    # prompt_id, judge_a, judge_b, human_a, human_b (human on 1 row in 10):
    # a file holding two systems, so check suggests compare and plan with
    # --a-col, --b-col and --human, and both run; with one input it says
    # nothing of shared ids.
    from test_judged import judge_table
    path = judge_table(tmp_path)
    cols = ["--a-col", "judge_a", "--b-col", "judge_b", "--human",
            "human_a,human_b"]
    report = walk(capsys, [path])
    assert report["commands"] == [["compare", path, *cols],
                                  ["plan", "--from", path, *cols]]
    assert "30 and 30 of 300 items" in report["answers"][0]
    assert bed.main(["check", path]) == 0
    out = capsys.readouterr().out
    assert "ids:" not in out and "commands: none" not in out
    base = at("datasets/examples/base.jsonl")
    assert bed.main(["check", path, base]) == 0
    assert "ids: no two inputs share ids" in capsys.readouterr().out
    # two metrics with no stem in common are not two systems
    other = tmp_path / "run.csv"
    other.write_text("id,acc,f1,human_acc,human_f1\n" + "".join(
        f"{i},{i % 2},{i % 3 / 2},{'' if i % 5 else 1},{'' if i % 5 else 0}\n"
        for i in range(40)))
    assert check(capsys, str(other))["commands"] == []


def test_check_takes_one_of_folders_holding_copies(capsys, tmp_path):
    rows = ["".join(f'{{"doc_id": {i}, "doc": {{"q": "{i}"}}, "acc": '
                    f'{(i * k) % 7 % 2}}}\n' for i in range(20))
            for k in (1, 2, 5)]
    name = "samples_wg_2024-12-23T14-29-31.806745.jsonl"
    for folder, text in (("x/gpt", rows[0]), ("y/gpt", rows[0]),
                         ("y/solar", rows[1]), ("y/exaone", rows[2])):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / name).write_text(text)
    paths = [str(tmp_path / f) for f in ("x/gpt", "y/gpt", "y/solar",
                                         "y/exaone")]
    report = check(capsys, *paths)
    assert any("x/gpt and y/gpt: byte-identical files (" + name + " in "
               "each): copies of one run" in p for p in report["problems"])
    rank = [argv for argv in report["commands"] if argv[0] == "rank"]
    assert rank and paths[1] not in rank[0] and paths[0] in rank[0]
    assert all(paths[1] not in argv for argv in report["commands"])


def test_a_refused_run_folder_beside_folders_is_looked_into(capsys,
                                                            tmp_path):
    # A folder lighteval's layout names a run (a details file at its top)
    # whose file is a git-lfs pointer: check refused the whole folder and
    # never read the runs in its subfolders, exiting 0.  Now the pointer is
    # refused alone and the subfolder read; a named folder refused whole
    # exits 1, as a named file does.
    (pointer,) = os.listdir(os.path.join(HERE, "fixtures", "lighteval"))
    with open(os.path.join(HERE, "fixtures", "lighteval", pointer),
              "rb") as f:
        text = f.read()
    (tmp_path / "logs" / "other").mkdir(parents=True)
    (tmp_path / "logs" / pointer).write_bytes(text)
    (tmp_path / "logs" / "other" / "run.jsonl").write_text("".join(
        json.dumps({"id": i, "acc": i % 2}) + "\n" for i in range(5)))
    report = check(capsys, str(tmp_path / "logs"))
    found = {os.path.relpath(e["path"], tmp_path): e["refused"]
             for e in report["inputs"]}
    assert "git-lfs pointer" in found[os.path.join("logs", pointer)]
    assert found[os.path.join("logs", "other", "run.jsonl")] is None
    (tmp_path / "alone").mkdir()
    (tmp_path / "alone" / pointer).write_bytes(text)
    report = check(capsys, str(tmp_path / "alone"))
    assert [e["refused"] is not None for e in report["inputs"]] == [True]


def test_check_says_what_keeps_two_runs_apart(capsys, tmp_path):
    # Three things check passed over with "problems: none seen": two runs
    # that share no id, a metric one run lacks on an item (compare stops
    # there; check suggested nothing), and an empty folder (0 inputs).
    def write(name, rows):
        path = tmp_path / name
        path.write_text("id,score\n" + "".join(f"{i},{x}\n" for i, x in rows))
        return str(path)
    a = write("a.csv", [(f"q{i}", i % 2) for i in range(12)])
    apart = write("apart.csv", [(f"r{i}", 1) for i in range(12)])
    gap = write("gap.csv", [(f"q{i}", "" if i == 3 else 1)
                            for i in range(12)])
    report = check(capsys, a, apart)
    assert any("share no ids (id)" in x for x in report["problems"])
    report = check(capsys, a, gap)
    assert any(x.startswith("gap: score is missing on 1 of 12 records, "
                            "where a has it on each")
               for x in report["problems"])
    argv = report["commands"][0]
    assert argv[:1] == ["compare"] and "--allow-partial" in argv \
        and argv[argv.index("--metric") + 1] == "score"
    assert run_suggested(capsys, argv) == 0
    (tmp_path / "empty").mkdir()
    report = check(capsys, str(tmp_path / "empty"))
    assert [e["refused"] for e in report["inputs"]] == ["an empty folder"]


def test_check_joins_no_run_that_leaves_one_item(capsys, tmp_path):
    # Five Inspect logs of a folder were suggested as one compare that
    # shared a single item: a run joins a group only where the items every
    # member has stay two or more, and from the third on half of them.
    def write(name, ids, k):
        path = tmp_path / name
        path.write_text("".join(json.dumps({"id": i, "acc": (i + k) % 2})
                                + "\n" for i in ids))
        return str(path)
    a, b = write("a.jsonl", range(20), 0), write("b.jsonl", range(20), 1)
    c = write("c.jsonl", [0, 100, 101], 0)
    d = write("d.jsonl", range(8), 1)
    report = check(capsys, a, b, c, d)
    groups = [argv[1:argv.index("--allow-partial")] if "--allow-partial"
              in argv else argv[1:] for argv in report["commands"]
              if argv[0] == "compare"]
    assert [a, b] in groups and not any(c in g for g in groups)
    assert not any(d in g and len(g) > 2 for g in groups)


def test_check_shows_a_preference_files_verdicts_not_the_readers_insides(
        capsys):
    # check listed place, games and fields: the reader's own bookkeeping.
    # Now a verdict's item, question, systems and share, then its labels.
    report = check(capsys, at("tests", "fixtures", "preferences",
                              "battles.json"))
    names = [f["name"] for f in report["inputs"][0]["fields"]]
    assert names[:5] == ["item", "question", "a", "b", "share"]
    assert not {"place", "games", "fields"} & set(names)


def test_check_compares_the_two_promptfoo_providers_apart_in_one_way():
    # promptfoo's nicheIQ log: 'model | prompt' columns; check offered the
    # first two, a different model with a different prompt.  Now a pair
    # changing one part alone, of those the one sharing the most rows.
    systems = ("gpt-4o | rubric v2", "mini | rubric v1", "gpt-4o | rubric v1",
               "mini | rubric v2")
    p = bed._Profile("r.json", systems=systems, presence={
        (True, True, True, True): 4, (True, True, False, False): 2})
    argv = bed._systems_commands(p, [])[-1][0]
    a, b = argv[argv.index("--a-col") + 1], argv[argv.index("--b-col") + 1]
    assert (a, b) == ("gpt-4o | rubric v2", "gpt-4o | rubric v1")
    p = p._replace(presence={(True, False, False, True): 5,
                             (True, True, True, True): 1})
    argv = bed._systems_commands(p, [])[-1][0]
    assert argv[argv.index("--b-col") + 1] == "mini | rubric v2"


# Issue 57, check on folders: several systems' runs in one folder are
# compared (the model each file names tells them apart); one system's runs
# are the newest of them.

def eee_file(path, model, scores, task="arc_easy"):
    path.write_text("".join(json.dumps({
        "schema_version": "0.2.1", "evaluation_id": f"{task}/{model}",
        "model_id": model, "evaluation_name": task,
        "sample_id": f"{task}_{i:03d}", "sample_hash": f"h{task}{i}",
        "interaction_type": "single_turn",
        "evaluation": {"score": s, "is_correct": bool(s)}}) + "\n"
        for i, s in enumerate(scores)))


def test_check_compares_a_folder_of_two_models_every_eval_ever_files(
        capsys, tmp_path):
    eee_file(tmp_path / "a.jsonl", "org/small", [i % 2 for i in range(12)])
    eee_file(tmp_path / "b.jsonl", "org/large", [i % 3 > 0 for i in range(12)])
    report = walk(capsys, [str(tmp_path)])
    assert [e["path"] for e in report["inputs"]] == [
        str(tmp_path / "b.jsonl"), str(tmp_path / "a.jsonl")]
    assert ["compare", str(tmp_path / "b.jsonl"),
            str(tmp_path / "a.jsonl")] in report["commands"]
    assert "newest" not in json.dumps(report)
    # the same model's two runs: the newest of them, as before
    eee_file(tmp_path / "b.jsonl", "org/small", [1] * 12)
    report = check(capsys, str(tmp_path))
    (entry,) = report["inputs"]
    assert any("the newest of 2 runs" in n for n in entry["notes"])


def test_task_names_the_task_alone_in_a_folder_of_models(capsys, tmp_path):
    # The model was folded into the task's name, so --task arc_easy found
    # no task in a folder of two models' runs: now it takes each model's
    # run of it, apart, and check compares them.
    for model in ("org/small", "org/large"):
        for task in ("arc_easy", "hellaswag"):
            eee_file(tmp_path / f"{model[4:]}-{task}.jsonl", model,
                     [(i + len(model)) % 3 > 0 for i in range(12)], task)
    report = check(capsys, str(tmp_path), "--task", "arc_easy")
    assert [e["path"] for e in report["inputs"]] == [
        str(tmp_path / "large-arc_easy.jsonl"),
        str(tmp_path / "small-arc_easy.jsonl")]
    assert bed.main(["compare", str(tmp_path), "--task", "arc_easy"]) == 2
    assert "task 'arc_easy' run by 2 models in this every-eval-ever " \
        "directory (org/large/arc_easy, org/small/arc_easy): name one " \
        "model's run" in capsys.readouterr()[1]
    assert bed.main(["compare", str(tmp_path), "--task", "nothing"]) == 2
    assert "its tasks are arc_easy, hellaswag" in capsys.readouterr()[1]
    entry, = check(capsys, str(tmp_path), "--task",
                   "org/small/hellaswag")["inputs"]      # as it was named
    assert (entry["path"], entry["refused"]) == (str(tmp_path), None)


def test_check_compares_a_lighteval_details_folder_of_two_models(
        capsys, tmp_path):
    # lighteval --output-dir out: details/<org>/<model>/<date>/ beside
    # results/<org>/<model>/, one output folder for both models
    import shutil
    for model in ("model-a", "model-b"):
        for part in ("details", "results"):
            shutil.copytree(os.path.join(HERE, "fixtures", "lighteval-runs",
                                         model, part), tmp_path / part,
                            dirs_exist_ok=True)
    report = walk(capsys, [str(tmp_path / "details")])
    assert len(report["inputs"]) == 2
    (compare,) = [c for c in report["commands"] if c[0] == "compare"]
    assert [os.path.basename(os.path.dirname(os.path.dirname(p)))
            for p in compare[1:3]] == ["model-a", "model-b"]


def test_check_names_tasks_of_lm_eval_samples_written_as_json(
        capsys, tmp_path):
    for model, stamp, shift in (("m1", "2024-06-17T12-20-26.826621", 0),
                                ("m2", "2024-06-18T09-01-02", 1)):
        (tmp_path / model).mkdir()
        (tmp_path / model / f"samples_bias_classification_{stamp}.json"
         ).write_text("".join(json.dumps({
             "doc_id": i, "doc": {"q": f"q{i}"}, "target": "a",
             "filter": "none", "metrics": ["acc"],
             "acc": (i + shift) % 3 > 0}) + "\n" for i in range(12)))
    report = walk(capsys, [str(tmp_path / "m1"), str(tmp_path / "m2")])
    assert [e["task"] for e in report["inputs"]] == [
        "bias_classification"] * 2
    assert not any("different tasks" in p for p in report["problems"])
    assert report["commands"][0][0] == "compare"


def inspect_log(path, model, scores):
    samples = [{"id": i, "epoch": 1, "input": f"q{i}", "target": "a",
                **({"scores": {"match": {"value": "C" if s else "I"}}}
                   if s is not None else {})}
               for i, s in enumerate(scores)]
    path.write_text(json.dumps({
        "version": 2, "status": "success",
        "eval": {"task": "demo", "model": model}, "samples": samples}))


def test_check_suggests_allow_partial_for_a_log_it_answers(capsys, tmp_path):
    # one sample of b.json never scored: compare refuses it, --allow-partial
    # compares the other 11, and check suggests that
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    inspect_log(a, "m1", [i % 2 for i in range(12)])
    inspect_log(b, "m2", [None] + [i % 3 > 0 for i in range(1, 12)])
    assert bed.main(["compare", str(a), str(b)]) == 2
    assert "never scored" in capsys.readouterr().err
    report = walk(capsys, [str(a), str(b)])
    assert report["commands"][0] == ["compare", str(a), str(b),
                                     "--allow-partial"]
    assert any(p.startswith("b: sample 0 epoch 1: never scored")
               and "--allow-partial" in p for p in report["problems"])


def test_runs_of_different_benchmarks_are_named_not_sent_to_allow_partial(
        capsys, tmp_path):
    a, b = tmp_path / "mmlu.jsonl", tmp_path / "hellaswag.jsonl"
    eee_file(a, "m", [i % 2 for i in range(10)], task="mmlu")
    eee_file(b, "m", [i % 3 > 0 for i in range(10)], task="hellaswag")
    for extra in ([], ["--allow-partial"]):
        assert bed.main(["compare", str(a), str(b), *extra]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--allow-partial" not in err
        assert err.endswith(f"{b}: no sample_id in common with {a}: runs of "
                            f"different benchmarks (mmlu, hellaswag)\n")
    report = check(capsys, str(a), str(b))
    assert report["commands"] == []
    assert "mmlu and hellaswag share no ids (sample_id): runs " \
        "of different benchmarks (mmlu, hellaswag)" in report["problems"]


def lm_eval_f1_run(folder, stamp, shift, entities):
    # lm-eval writes a corpus metric's per-item value as [gold, pred]
    folder.mkdir()
    with open(folder / f"samples_masakhaner_yor_{stamp}.jsonl", "w") as f:
        for i in range(12):
            gold = ["PER: Ade", f"LOC: Ibadan{i % 4}"]
            pred = gold if (i + shift) % 3 else gold[:1]
            if not entities:                  # one class label an item
                gold, pred = gold[1], pred[-1]
            f.write(json.dumps({
                "doc_id": i, "doc": {"text": f"t{i}"}, "target": "x",
                "filter": "none", "metrics": ["f1"], "doc_hash": f"h{i}",
                "f1": [gold, pred]}) + "\n")


@pytest.mark.parametrize("entities", [False, True])
def test_check_says_compared_what_compare_compares(capsys, tmp_path,
                                                   entities):
    a, b = tmp_path / "a", tmp_path / "b"
    lm_eval_f1_run(a, "2024-06-17T12-20-26", 0, entities)
    lm_eval_f1_run(b, "2024-06-18T12-20-26", 1, entities)
    report = walk(capsys, [str(a), str(b)])
    compared = [e["metrics"] for e in report["inputs"]]
    status = bed.main(["compare", str(a), str(b), "--json", "--resamples",
                       "200"])
    out, err = capsys.readouterr()
    if entities:            # lists of entities are no class labels
        assert status == 2 and "nothing to compare: f1: left out" in err
        assert compared == [[], []] and report["commands"] == []
        assert any("f1: left out" in n for n in report["inputs"][0]["notes"])
    else:
        assert status == 0
        assert [m["metric"] for m in json.loads(out)["metrics"]] == ["f1"]
        assert compared == [["f1"], ["f1"]]
        assert report["commands"] == [["compare", str(a), str(b)]]


@pytest.mark.parametrize("n, said", [(5, True), (6, False)])
def test_check_says_when_a_suggestion_compares_too_few_items(
        capsys, tmp_path, n, said):
    # 2 / 2^5 > 0.05 >= 2 / 2^6: below 6 items no exact paired test can
    # reach p < 0.05 (bed._least_units)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("".join(f'{{"id": {i}, "acc": 0}}\n' for i in range(n)))
    b.write_text("".join(f'{{"id": {i}, "acc": 1}}\n' for i in range(n)))
    report = walk(capsys, [str(a), str(b)])
    words = (f"only {n} items in common: no paired exact test can give p "
             f"below {2 / 2 ** n:g} at this size, so nothing is detectable "
             f"at alpha 0.05; that takes 6 items at least")
    for argv, what in zip(report["commands"], report["answers"]):
        assert (words in str(what)) == (said and argv[0] != "plan"), what
    # the compare it suggests agrees: all n pairs one way, p = 2 / 2^n
    assert bed.main(["compare", str(a), str(b), "--json"]) == 0
    (metric,) = json.loads(capsys.readouterr().out)["metrics"]
    assert metric["test"]["p"] == 2 / 2 ** n
    assert (metric["verdict"] == "no detectable difference") == said


def test_check_compares_an_inspect_log_folder_of_two_models(capsys, tmp_path):
    # inspect eval --model m1,m2 writes <date>_<task>_<id>.json of each
    # into one log folder: the model in each log's header tells them apart
    inspect_log(tmp_path / "2025-01-01T10-00-00+00-00_demo_aaa.json", "m1",
                [i % 2 for i in range(12)])
    inspect_log(tmp_path / "2025-01-01T10-05-00+00-00_demo_bbb.json", "m2",
                [i % 3 > 0 for i in range(12)])
    report = walk(capsys, [str(tmp_path)])
    assert len(report["inputs"]) == 2 and report["commands"][0][0] == \
        "compare"
    assert "newest" not in json.dumps(report)
    inspect_log(tmp_path / "2025-01-01T10-05-00+00-00_demo_bbb.json", "m1",
                [1] * 12)                           # one model's two runs
    (entry,) = check(capsys, str(tmp_path))["inputs"]
    assert any("the newest of 2 runs" in n for n in entry["notes"])


def test_check_compares_an_lm_eval_folder_of_two_models_samples(
        capsys, tmp_path):
    # two models' samples_<task>_<date>.jsonl in one folder: the model is
    # in each run's results_<date>.json, not in the samples file's name
    for model, stamp, shift in (("org/m1", "2024-06-17T12-20-26.1", 0),
                                ("org/m2", "2024-06-18T12-20-26.2", 1)):
        (tmp_path / f"samples_boolq_{stamp}.jsonl").write_text("".join(
            json.dumps({"doc_id": i, "doc": {"q": f"q{i}"}, "target": 1,
                        "filter": "none", "metrics": ["acc"],
                        "acc": (i + shift) % 3 > 0}) + "\n"
            for i in range(12)))
        (tmp_path / f"results_{stamp}.json").write_text(json.dumps(
            {"results": {}, "config": {"model_args": f"pretrained={model}"},
             "model_name": model}))
    report = walk(capsys, [str(tmp_path)])
    assert [e["task"] for e in report["inputs"]] == ["boolq", "boolq"]
    assert report["commands"][0][0] == "compare"
    assert not any("different tasks" in p for p in report["problems"])
