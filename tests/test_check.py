"""Input: what the files hold (check), and the grouped --help.

check reads the shipped examples, the fixtures and (where ../shared is
here) the frameworks' real files; every command it suggests is run as
printed, in-process, with few resamples, and must end in 0 or 1.
"""
import itertools
import json
import os
import shlex

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
    report."""
    report = check(capsys, *paths)
    for entry in report["inputs"]:
        assert entry["refused"] or (entry["format"] and entry["records"]), \
            entry
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
    "opencompass", "preferences/fastchat_mt_bench_Stefanstud"])
def test_check_real_log_folders(capsys, folder):
    report = walk(capsys, [os.path.join(REAL, folder)])
    assert all(entry["format"] or entry["refused"]
               for entry in report["inputs"])


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir(REAL),
                    reason="../shared/real-logs/ is not here")
def test_check_walks_every_real_log_folder_and_pair(capsys):
    seen = set()
    for folder, folders, files in os.walk(REAL):
        folders.sort()
        walk(capsys, [folder], seen)
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
