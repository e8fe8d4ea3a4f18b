"""The run store, history and CI's forms: compare --store, history, --junit,
--format github and the composite action, replayed as CI would run them."""
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import threading
import xml.etree.ElementTree as ET

import pytest

import bootstrap_eval_deltas as bed

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
SCRIPT = os.path.join(TOP, "bootstrap_eval_deltas.py")
ACTION = os.path.join(TOP, ".github", "actions", "compare", "action.yml")


def run_file(folder, name, accuracy, seed, n=200):
    """Write a per-item CSV of a system of *accuracy*: each item's chance
    of a 1 shifted by its own difficulty, so runs of similar systems
    agree on most items (pairing matters), with the noise of a re-run."""
    difficulty = random.Random(0)
    hard = [difficulty.gauss(0, 1.5) for _ in range(n)]
    rng = random.Random(seed)
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        f.write("id,acc\n")
        for i, h in enumerate(hard):
            logit = h + 2.2 * (accuracy - 0.5) / 0.25
            f.write(f"q{i},{int(rng.random() < 1 / (1 + 2.718281828 ** -logit))}\n")
    return path


def main(capsys, argv):
    status = bed.main(argv)
    out, err = capsys.readouterr()
    return status, out, err


def test_a_ci_sequence_trips_only_on_the_regression(tmp_path, capsys,
                                                     monkeypatch):
    # A baseline, three re-runs of the same system (item noise only), then
    # a real regression: the gate trips once, and history shows where.
    monkeypatch.setenv("GITHUB_SHA", "0123456789abcdef")
    monkeypatch.setenv("GITHUB_REF_NAME", "main")
    db = str(tmp_path / "evals.db")
    base = run_file(tmp_path, "run0.csv", 0.70, 1)
    status, out, err = main(capsys, ["compare", base, "--store", db,
                                     "--quiet", "--json"])
    assert status == 0
    assert json.loads(out) == {"store": db, "saved": 1, "accepted": 1,
                               "comparisons": []}
    assert "run0.csv saved as run #1 (run0.csv, 0123456789ab, main" in err
    statuses = []
    for k, accuracy in enumerate((0.70, 0.70, 0.70, 0.58), 1):
        run = run_file(tmp_path, f"run{k}.csv", accuracy, 100 + k)
        status, out, err = main(capsys, [      # the gate is McNemar's:
            "compare", run, "--store", db, "--fail-on", "worse", "--quiet",
            "--label", f"build {k}", "--resamples", "200"])   # not 2,000
        statuses.append(status)
        assert "the baseline is the accepted run #1 (run0.csv" in err
    assert statuses == [0, 0, 0, 1]
    status, out, err = main(capsys, ["history", "--store", db])
    assert status == 0
    rows = [line for line in out.splitlines() if line.startswith("#")]
    assert [r.split()[0] for r in rows] == ["#1*", "#2", "#3", "#4", "#5"]
    assert "(gate)" in rows[-1] and not any("(gate)" in r for r in rows[:-1])
    assert "0123456" in rows[1] and "build 4" in rows[-1]
    assert "4 gated comparisons against the accepted baseline" in out
    assert "at most 0.1 false alarms" in out
    assert re.search(r"drift: newest run #5 against the accepted baseline "
                     r"#1: acc -\d+\.\d pts .*worse", out)
    status, out, err = main(capsys, ["history", "--store", db, "--json"])
    data = json.loads(out)
    assert [r["run"] for r in data["runs"]] == [1, 2, 3, 4, 5]
    assert [r.get("tripped") for r in data["runs"]] == [
        None, False, False, False, True]
    assert data["runs"][1]["commit"] == "0123456789abcdef"
    assert data["runs"][1]["branch"] == "main"
    assert data["accepted"] == 1


def test_a_run_is_saved_once_and_accept_moves_the_baseline(tmp_path,
                                                            capsys):
    db = str(tmp_path / "evals.db")
    a = run_file(tmp_path, "a.csv", 0.7, 1, n=60)
    b = run_file(tmp_path, "b.csv", 0.7, 2, n=60)
    c = run_file(tmp_path, "c.csv", 0.7, 3, n=60)
    assert main(capsys, ["compare", a, "--store", db])[0] == 0
    # the same bytes again (a deterministic eval on a docs-only commit):
    # compared with itself, the gate passes, nothing new is saved
    status, out, err = main(capsys, ["compare", a, "--store", db,
                                     "--fail-on", "worse"])
    assert status == 0 and "the same bytes as the accepted baseline" in err
    status, out, err = main(capsys, ["compare", b, "--store", db,
                                     "--accept", "--label", "b\nline"])
    assert status == 0 and "is now the accepted baseline" in err
    status, out, err = main(capsys, ["compare", b, "--store", db])
    assert status == 0 and "the same bytes as the accepted baseline" in err
    status, out, err = main(capsys, ["compare", a, c, "--store", db])
    assert status == 0
    assert f"{a} was saved before as run #1" in err
    assert "c.csv saved as run #3" in err
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (3,)
        assert con.execute("SELECT label FROM runs WHERE id = 2"
                           ).fetchone() == ("b line",)
        assert con.execute("SELECT count(*) FROM comparisons").fetchone() \
            == (2,)                     # b against a, c against a
    # history: a row per comparison; the drift of the newest run: the newest run (c, compared with a) against the
    # accepted baseline b, compared afresh
    status, out, err = main(capsys, ["history", "--store", db, "--json"])
    data = json.loads(out)
    assert data["accepted"] == 2
    assert data["drift"] and data["drift"][0].startswith(
        "drift: newest run #3 against the accepted baseline #2: acc")
    direct = json.loads(main(capsys, ["compare", b, c, "--json"])[1])
    gap = direct["metrics"][0]["observed"]["gap"]
    assert f"{gap * 100:+.1f} pts" in data["drift"][0]


def test_two_writers_saving_at_once_lose_nothing(tmp_path):
    # Two connections (as two CI jobs have) saving and recording at once:
    # SQLite's locks, WAL and the busy timeout make the later one wait.
    db = str(tmp_path / "evals.db")
    runs = [run_file(tmp_path, f"r{k}.csv", 0.7, k, n=40) for k in range(30)]
    bed._Store(db).__exit__()
    failed = []

    def writer(paths):
        try:
            with bed._Store(db) as store:
                for path in paths:
                    stored, _ = store.save(path, "t")
                    store.record(stored.id, 1, {"metrics": []}, None, [],
                                 ["compare"])
        except Exception as exc:       # noqa: BLE001 -- said below
            failed.append(exc)
    threads = [threading.Thread(target=writer, args=(half,))
               for half in (runs[:15], runs[15:])]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (30,)
        assert con.execute("SELECT count(*) FROM comparisons").fetchone() \
            == (30,)


@pytest.mark.slow
def test_two_processes_saving_at_once_lose_nothing(tmp_path):
    db = str(tmp_path / "evals.db")
    runs = [run_file(tmp_path, f"r{k}.csv", 0.7, k, n=60) for k in range(30)]
    code = ("import sys, bootstrap_eval_deltas as bed\n"
            "for path in sys.argv[2:]:\n"
            "    assert bed.main(['compare', path, '--store', sys.argv[1],"
            " '--quiet', '--resamples', '50']) in (0, 1)\n")
    env = dict(os.environ, PYTHONPATH=TOP)
    procs = [subprocess.Popen([sys.executable, "-c", code, db, *half],
                              env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
             for half in (runs[:15], runs[15:])]
    errors = [p.communicate(timeout=120)[1] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], errors
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (30,)
        compared = con.execute("SELECT count(*) FROM comparisons").fetchone()
    assert compared[0] >= 28        # all but the one or two baselines


@pytest.mark.parametrize("spoil", ["garbage", "other", "newer", "folder"])
def test_a_file_that_is_no_store_of_ours_is_refused_untouched(
        tmp_path, capsys, spoil):
    db = tmp_path / "evals.db"
    a = run_file(tmp_path, "a.csv", 0.7, 1, n=20)
    if spoil == "garbage":
        db.write_bytes(b"SQLite format 2\x00" + bytes(range(256)) * 8)
    elif spoil == "other":
        with sqlite3.connect(db) as con:
            con.execute("CREATE TABLE t (x)")
    elif spoil == "newer":
        assert main(capsys, ["compare", a, "--store", str(db)])[0] == 0
        with sqlite3.connect(db) as con:
            con.execute("PRAGMA user_version = 99")
        con.close()
    else:
        db.mkdir()
    before = (sorted(os.listdir(db)) if spoil == "folder"
              else db.read_bytes())
    for argv in (["compare", a, "--store", str(db)],
                 ["history", "--store", str(db)]):
        status, out, err = main(capsys, argv)
        assert status == 2 and out == ""
        assert len(err.strip().splitlines()) == 1, err
        assert str(db) in err
        after = sorted(os.listdir(db)) if spoil == "folder" else db.read_bytes()
        assert after == before
    if spoil == "newer":
        assert "newer bootstrap-eval-deltas" in err


def test_history_refuses_a_missing_store_and_an_unknown_metric(tmp_path,
                                                               capsys):
    db = str(tmp_path / "none.db")
    status, out, err = main(capsys, ["history", "--store", db])
    assert status == 2 and "no run store there" in err
    assert not os.path.exists(db)
    a = run_file(tmp_path, "a.csv", 0.7, 1, n=20)
    b = run_file(tmp_path, "b.csv", 0.7, 2, n=20)
    assert main(capsys, ["compare", a, b, "--store", db])[0] == 0
    status, out, err = main(capsys, ["history", "--store", db, "--metric",
                                     "f1"])
    assert status == 2 and "no saved comparison has it (they have acc)" in err


def test_junit_and_github_forms_say_where_the_gate_holds(tmp_path, capsys,
                                                         monkeypatch):
    a = run_file(tmp_path, "a.csv", 0.70, 1)
    worse = run_file(tmp_path, "w.csv", 0.55, 2)
    same = run_file(tmp_path, "s.csv", 0.70, 3)
    summary, outputs = tmp_path / "summary.md", tmp_path / "outputs.txt"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.setenv("GITHUB_OUTPUT", str(outputs))
    junit = str(tmp_path / "out" / "junit.xml")
    os.mkdir(tmp_path / "out")
    status, out, err = main(capsys, [
        "compare", a, worse, same, "--fail-on", "worse", "--junit", junit,
        "--format", "github", "--quiet"])
    assert status == 1
    suites = ET.parse(junit).getroot()
    assert suites.tag == "testsuites" and suites.get("failures") == "1"
    cases = {s.get("name"): [c.find("failure") is not None for c in s]
             for s in suites}
    assert cases == {"a vs w": [True], "a vs s": [False]}
    commands = [line for line in out.splitlines() if line.startswith("::")]
    assert commands[0].startswith("::error title=bootstrap-eval-deltas::"
                                  "w: acc: worse (is worse")
    assert commands[1].startswith("::notice title=bootstrap-eval-deltas::"
                                  "s: acc: ")
    text = summary.read_text()
    assert text.endswith("\n\n<!-- bootstrap-eval-deltas compare -->\n")
    assert "| metric |" in text
    values = dict(line.split("=", 1) for line in
                  outputs.read_text().splitlines())
    assert values["verdict"] == "worse" and values["tripped"] == "true"
    assert values["metric"] == "acc"


def test_markdown_ends_with_the_comment_marker(capsys):
    status, out, err = main(capsys, [
        "compare", os.path.join(TOP, "datasets", "examples", "base.jsonl"),
        os.path.join(TOP, "datasets", "examples", "cand.jsonl"),
        "--format", "markdown", "--resamples", "200"])
    assert status == 0
    assert out.startswith("baseline:")
    assert out.endswith("\n\n<!-- bootstrap-eval-deltas compare -->\n")


def test_the_composite_action_runs_as_the_runner_runs_it(tmp_path):
    # GitHub runs a composite step's script with bash after putting the
    # inputs in its env block; here the same script, the same variables.
    text = open(ACTION).read()
    script = text.split("      run: |\n", 1)[1]
    script = "\n".join(line[8:] for line in script.splitlines())
    env_block = re.findall(r"^        (BED_\w+): \$\{\{ inputs\.([\w-]+) \}\}",
                           text, re.M)
    assert [name for name, _ in env_block] == [
        "BED_CANDIDATE", "BED_BASELINE", "BED_STORE", "BED_FAIL_ON",
        "BED_ARGS"]
    outputs = re.findall(r"value: \$\{\{ steps\.compare\.outputs\.(\w+) \}\}",
                         text)
    a = run_file(tmp_path, "a.csv", 0.70, 1)
    worse = run_file(tmp_path, "w.csv", 0.55, 2)
    inputs = {"candidate": worse, "baseline": a, "store": "",
              "fail-on": "worse", "args": "--metric acc --resamples 200"}
    step_out, summary = tmp_path / "out.txt", tmp_path / "summary.md"
    env = dict(os.environ, GITHUB_ACTION_PATH=os.path.dirname(ACTION),
               GITHUB_OUTPUT=str(step_out), GITHUB_STEP_SUMMARY=str(summary),
               **{name: inputs[key] for name, key in env_block})
    done = subprocess.run(["bash", "-c", script], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr
    assert "::error title=bootstrap-eval-deltas::acc: worse" in done.stdout
    values = dict(line.split("=", 1)
                  for line in step_out.read_text().splitlines())
    assert set(outputs) <= set(values)
    assert values["verdict"] == "worse"
    assert "<!-- bootstrap-eval-deltas compare -->" in summary.read_text()


def test_a_comparison_that_fails_saves_nothing_and_names_the_baseline(
        tmp_path, capsys):
    db = str(tmp_path / "evals.db")
    a = run_file(tmp_path, "a.csv", 0.7, 1, n=40)
    short = tmp_path / "short.csv"
    short.write_text("".join(open(a).readlines()[:11]))
    assert main(capsys, ["compare", a, "--store", db])[0] == 0
    status, out, err = main(capsys, ["compare", str(short), "--store", db])
    assert status == 2
    assert "a.csv (run #1 of " in err and "bed-store-" not in err
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT count(*) FROM runs").fetchone() == (1,)
    # an interval of no width is said so in CI's forms too
    scores = tmp_path / "scores.csv"
    scores.write_text("id,score\n" + "".join(f"q{i},{i / 10}\n"
                                             for i in range(10)))
    status, out, err = main(capsys, ["compare", str(scores), str(scores),
                                     "--format", "github", "--quiet"])
    assert "paired CI no spread" in out and "[0, 0]" not in out


def test_history_compares_the_newest_run_afresh_and_keeps_each_comparison(
        tmp_path, capsys):
    # The accepted baseline never compared itself; two runs compared with
    # each other: history's drift runs the newest against the accepted one
    # as its saved comparison ran (it once read the program's path as a
    # command); a run compared twice keeps both rows.
    db = str(tmp_path / "evals.db")
    r1, r2, r3 = (run_file(tmp_path, f"r{k}.csv", acc, k, n=80)
                  for k, acc in ((1, 0.7), (2, 0.7), (3, 0.5)))
    assert main(capsys, ["compare", r1, "--store", db])[0] == 0
    assert main(capsys, ["compare", r2, r3, "--store", db, "--resamples",
                         "300"])[0] == 0
    status, out, err = main(capsys, ["history", "--store", db, "--json"])
    assert status == 0, err
    data = json.loads(out)
    assert [(r["run"], r.get("baseline")) for r in data["runs"]] == [
        (2, None), (3, 2)]
    assert data["drift"][0].startswith(
        "drift: newest run #3 against the accepted baseline #1: acc")
    assert main(capsys, ["compare", r3, "--store", db])[0] == 0
    data = json.loads(main(capsys, ["history", "--store", db, "--json"])[1])
    assert [(r["run"], r.get("baseline")) for r in data["runs"]] == [
        (2, None), (3, 2), (1, None), (3, 1)]
    assert data["drift"][0] == next(
        line for line in main(capsys, ["history", "--store", db])[1]
        .splitlines() if line.startswith("drift:"))


def test_a_store_given_as_a_run_says_what_shows_it(tmp_path, capsys):
    db = str(tmp_path / "evals.db")
    a = run_file(tmp_path, "a.csv", 0.7, 1, n=20)
    assert main(capsys, ["compare", a, "--store", db])[0] == 0
    status, out, err = main(capsys, ["compare", db, a])
    assert status == 2 and f"history --store {db} shows its runs" in err
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as con:
        con.execute("CREATE TABLE t (x)")
    con.close()
    status, out, err = main(capsys, ["compare", str(other), a])
    assert status == 2 and "an SQLite database, not a run" in err
    report = json.loads(main(capsys, ["check", db, "--json"])[1])
    assert any("history --store" in p for p in report["problems"])
