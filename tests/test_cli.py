"""The command line, called in-process: golden run, JSON, bad input."""
import io
import json
import math
import os
import random
import types

import pytest

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(os.path.abspath(__file__))
SHIPPED_CSV = os.path.join(HERE, os.pardir, "datasets",
                           "bootstrap-eval-deltas.csv")
ARTICLE = """\
n=500, true accuracies A=0.72 B=0.76, true gap=+4.0 pts
observed: A=0.712 [0.672, 0.750]   B=0.748 [0.712, 0.786]
observed gap: +3.6 pts
  paired bootstrap 95% CI:   [-1.4, +8.4] pts
  unpaired bootstrap 95% CI: [-1.8, +9.0] pts
  discordant pairs: B-only correct=85, A-only correct=67; McNemar exact p=0.1677
"""
SMALL = ["--n-items", "60", "--resamples", "80", "--replays", "3"]


def run(capsys, *argv):
    status = bed.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.mark.parametrize("replays, figures", [
    # the first 10 replays in the suite (the replay loop is checked
    # against the straightforward one in test_resampling.py and
    # test_simulation.py; 20 ms each); 30, 60, 250 and the article's 1000
    # with -m slow
    (10, "covers the true gap 100.0% of the time (all 10 replays: at least "
         "70.0% at 95%, the rule of three);\n"
         "CI excludes zero (a 'significant' +gap) 20.0% of the time "
         "(Monte Carlo s.e. 12.6%)"),
    pytest.param(30, "covers the true gap 100.0% of the time (all 30 "
                 "replays: at least 90.0% at 95%, the rule of three);\n"
                 "CI excludes zero (a 'significant' +gap) 40.0% of the time "
                 "(Monte Carlo s.e. 8.9%)", marks=pytest.mark.slow),
    pytest.param(60, "covers the true gap 98.3% of the time (Monte Carlo "
                 "s.e. 1.7%);\nCI excludes zero (a 'significant' +gap) 33.3% "
                 "of the time (Monte Carlo s.e. 6.1%)",
                 marks=pytest.mark.slow),
    pytest.param(250, "covers the true gap 95.2% of the time (Monte Carlo "
                 "s.e. 1.4%);\nCI excludes zero (a 'significant' +gap) 35.2% "
                 "of the time (Monte Carlo s.e. 3.0%)",
                 marks=pytest.mark.slow),
    pytest.param(1000, "covers the true gap 95.6% of the time (Monte Carlo "
                 "s.e. 0.6%);\nCI excludes zero (a 'significant' +gap) 35.7% "
                 "of the time (Monte Carlo s.e. 1.5%)",
                 marks=pytest.mark.slow)])
def test_golden_default_run(capsys, tmp_path, replays, figures):
    # The article's six lines, its CSV's bytes and the replays' figures.
    # One process: the suite's other worker has the second core, and the
    # helper's numbers are the same (test_resampling.py checks them).
    out_csv = tmp_path / "items.csv"
    status, out, err = run(capsys, "--out", str(out_csv), "--jobs", "1",
                           "--replays", str(replays), "--quiet")
    assert status == 0 and err == ""      # no progress lines, even piped
    assert out.startswith(ARTICLE)
    assert out[len(ARTICLE):] == (
        f"over {replays} replays: paired CI {figures}\n"
        f"wrote {out_csv} (500 items)\n")
    with open(SHIPPED_CSV, "rb") as f:
        assert out_csv.read_bytes() == f.read()


def test_rerun_leaves_csv_byte_identical(capsys, tmp_path):
    target = tmp_path / "d.csv"
    run(capsys, *SMALL, "--replays", "0", "--out", str(target))
    first = target.read_bytes()
    run(capsys, *SMALL, "--replays", "0", "--out", str(target))
    assert target.read_bytes() == first
    assert [p.name for p in tmp_path.iterdir()] == ["d.csv"]


def test_compare_shipped_csv_gives_article_counts(capsys):
    status, out, _ = run(capsys, "compare", SHIPPED_CSV, "--verbose")
    lines = out.splitlines()
    assert status == 0
    assert lines[0].endswith("500 items")
    assert lines[2].split()[:3] == ["correct", "binary", "71.2%"]
    assert "74.8%" in lines[2] and " +3.6 pts " in lines[2]
    assert lines[2].split()[-4:] == ["0.1677", "no", "detectable",
                                     "difference"]
    assert ("discordant pairs: the candidate is better on 85 items, the "
            "baseline on 67; McNemar exact p=0.1677") in out
    # One sizing method in compare and plan --from: exact McNemar power.
    assert "detecting +3.6 pts would take about 1890 items" in out


def test_compare_json_shape(capsys):
    status, out, _ = run(capsys, "compare", SHIPPED_CSV, "--json",
                         "--resamples", "100", "--seed", "4")
    report = json.loads(out)
    assert status == 0
    assert {k: report[k] for k in ("n_items", "seed", "resamples",
                                   "baseline", "candidate", "dropped_ids")} == {
        "n_items": 500, "seed": 4, "resamples": 100,
        "baseline": "system_a_correct", "candidate": "system_b_correct",
        "dropped_ids": 0}
    (entry,) = report["metrics"]
    assert entry["metric"] == "correct"
    assert (entry["type"], entry["direction"], entry["interval"]) == (
        "binary", "higher", "percentile")
    assert entry["observed"] == {"a": 0.712, "b": 0.748, "gap": 0.036}
    assert set(entry["ci"]) == {"a", "b", "paired_gap", "unpaired_gap"}
    assert entry["mcnemar"]["a_only"] == 67
    assert round(entry["mcnemar"]["p_exact"], 4) == 0.1677
    assert entry["test"]["name"] == "McNemar exact"
    assert entry["test"]["p"] == entry["test"]["p_holm"]
    assert 0 < entry["mid_p"] < entry["mcnemar"]["p_exact"]
    assert entry["verdict"] == "no detectable difference"
    assert entry["items_needed"] > 500 and entry["notes"] == []


def test_simulate_json_shape(capsys, tmp_path):
    status, out, _ = run(capsys, *SMALL, "--json", "--out",
                         str(tmp_path / "x.csv"))
    report = json.loads(out)
    assert status == 0
    assert report["true"] == {"a": 0.72, "b": 0.76, "gap": 0.04}
    assert report["coverage"]["replays"] == 3
    assert set(report) >= {"n_items", "seed", "resamples", "observed", "ci",
                           "mcnemar", "coverage"}


def test_no_csv_and_replays_zero(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, *SMALL, "--replays", "0", "--no-csv")
    assert status == 0 and list(tmp_path.iterdir()) == []
    assert "coverage loop skipped" in out and "not written" in out


@pytest.mark.parametrize("argv, message", [
    (["--acc-a", "1.2"], "--acc-a: must be in (0, 1), not 1.2"),
    (["--acc-b", "0"], "--acc-b: must be in (0, 1), not 0"),
    (["--corr", "1"], "--corr: must be in [0, 1), not 1"),
    (["--corr", "-0.1"], "--corr: must be in [0, 1), not -0.1"),
    (["--n-items", "0"], "--n-items: must be in [1, inf), not 0"),
    (["--resamples", "0"], "--resamples: must be in [1, inf), not 0"),
    (["--replays", "-1"], "--replays: must be in [0, inf), not -1"),
    (["--acc-a", "nan"], "--acc-a: must be in (0, 1), not nan"),
    (["--seed", "x"], "--seed: invalid int value: 'x'"),
])
def test_bad_arguments_exit_2_and_touch_nothing(capsys, tmp_path, argv,
                                                message):
    out_csv = tmp_path / "never.csv"
    with pytest.raises(SystemExit) as stop:
        bed.main(argv + ["--out", str(out_csv)])
    assert stop.value.code == 2
    assert message in capsys.readouterr().err
    assert not out_csv.exists()


def test_out_is_a_directory(capsys, tmp_path):
    status, out, err = run(capsys, *SMALL, "--out", str(tmp_path))
    assert status == 2 and out == ""
    assert err.strip().endswith("is a directory, not a file to write")


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


HEADER = "item,system_a_correct,system_b_correct\n"


@pytest.mark.parametrize("content, message", [
    ("", ": empty file"),
    (HEADER, ": no records"),
    ("item,a,b\n1,0,1\n", ":2: no column 'system_a_correct' or "
                          "'system_b_correct', so one run's results, not a "
                          "file holding both systems (the columns are item, "
                          "a, b): compare it with another run's, compare "
                          "{path} OTHER, or name the two systems' columns "
                          "with --a-col and --b-col"),
    (HEADER + "1,0,1\n2,x,1\n", ":3: system_a_correct: not a number: 'x'"),
    (HEADER + "1,0,\n", ":2: system_b_correct: missing value; "
                       "--allow-partial leaves out the items missing one, "
                       "and counts them"),
    (HEADER + "1,0,1\n2,nan,1\n", ":3: system_a_correct: missing value "
                                  "('nan'); --allow-partial leaves out the "
                                  "items missing one, and counts them"),
    (HEADER + "1,0,1\n2,1\n", ":3: 2 fields, the header has 3"),
    (HEADER.encode() + b"1,0,1\n2,\xff,1\n", ":3: not UTF-8 text "
                                             "(byte 0xff)"),
])
def test_bad_csv_exit_2_with_file_and_line(capsys, tmp_path, content,
                                           message):
    path = write(tmp_path, "bad.csv", content)
    status, out, err = run(capsys, "compare", path)
    assert status == 2 and out == ""
    assert err == ("bootstrap-eval-deltas: error: "
                   f"{path}{message.format(path=path)}\n")


def test_repeated_ids_in_a_wide_file_are_found(capsys, tmp_path):
    # A wide file with an id column (item, id, ...) once counted its
    # repeated rows as items ("400 items"); it is checked as two runs are,
    # by the ids' hashes, and the repeat is named with its two lines.
    path = write(tmp_path, "rep.csv", HEADER + "1,0,1\n2,1,1\n1,1,0\n")
    for extra in ([], ["--id", "item"]):
        status, out, err = run(capsys, "compare", path, *extra)
        assert status == 2 and out == ""
        assert err.strip().endswith(f"{path}:4: item '1' repeated (first "
                                    f"at {path}:2)")
    # Without an id column the rows are the items, as before.
    path = write(tmp_path, "noid.csv", "system_a_correct,system_b_correct\n"
                 "0,1\n1,1\n1,0\n")
    status, out, _ = run(capsys, "compare", path, "--resamples", "50")
    assert status == 0 and "3 items" in out


def test_declared_binary_metric_with_other_values(capsys, tmp_path):
    path = write(tmp_path, "two.csv", HEADER + "1,0,1\n2,2,1\n")
    status, _, err = run(capsys, "compare", path, "--resamples", "50",
                         "--metric-type", "correct=binary")
    assert status == 2
    assert err.strip().endswith(f"{path}:3: system_a_correct is declared "
                                "binary but is 2")


def test_missing_file(capsys, tmp_path):
    status, _, err = run(capsys, "compare", str(tmp_path / "nope.csv"))
    assert status == 2
    assert "nope.csv: cannot read: No such file or directory" in err


def test_bom_and_crlf_just_work(capsys, tmp_path):
    body = HEADER + "1,1,0\n2,0,1\n3,1,1\n"
    path = write(tmp_path, "w.csv",
                 b"\xef\xbb\xbf" + body.replace("\n", "\r\n").encode())
    status, out, _ = run(capsys, "compare", path, "--resamples", "50")
    assert status == 0 and "3 items" in out.splitlines()[0]


def test_version_and_help(capsys):
    with pytest.raises(SystemExit) as stop:
        bed.main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == (
        f"bootstrap-eval-deltas {bed.__version__}")
    for command in ("simulate", "compare"):
        with pytest.raises(SystemExit):
            bed.main([command, "--help"])
        text = capsys.readouterr().out
        assert "--resamples" in text and "--seed" in text


def test_intervals_calibration_text_and_json(capsys, tmp_path):
    status, out, _ = run(capsys, *SMALL, "--no-csv", "--intervals",
                         "percentile,score")
    lines = out.splitlines()
    assert status == 0
    assert lines[6].startswith("calibration over 3 replays (true gap +4.0")
    assert [l.split()[0] for l in lines[8:10]] == ["percentile", "score"]
    assert "McNemar exact" in out and "coverage loop skipped" not in out
    status, out, _ = run(capsys, *SMALL, "--no-csv", "--json",
                         "--intervals", "bca")
    report = json.loads(out)
    assert set(report["calibration"]["intervals"]) == {"bca"}
    assert "coverage" not in report


@pytest.mark.parametrize("argv, message", [
    (["--intervals", "wald"], "expected names from percentile, bca, score"),
])
def test_bad_intervals(capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        bed.main(argv)
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_intervals_need_replays(capsys):
    status, _, err = run(capsys, *SMALL, "--replays", "0", "--intervals",
                         "bca", "--no-csv")
    assert status == 2 and "give --replays of at least 1" in err


@pytest.mark.skipif(os.name != "posix", reason="needs process groups")
def _cpu_seconds(pid):
    """Return the CPU seconds a process has used, from /proc."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs /proc")
def test_ctrl_c_ends_quietly_with_status_130(tmp_path):
    import signal
    import subprocess
    import sys
    import time
    out_csv = tmp_path / "never.csv"
    # The child says when main() is about to run and the test waits for
    # its own CPU work past that, so the interrupt lands inside the run
    # however slowly a loaded machine imports the module.
    # SIGINT is restored to Python's handler: a shell that starts the
    # suite in the background hands its children SIGINT ignored.
    start = ("import signal, sys; "
             "signal.signal(signal.SIGINT, signal.default_int_handler); "
             "sys.path.insert(0, sys.argv[1]); "
             "import bootstrap_eval_deltas as bed; "
             "sys.stderr.write('ready\\n'); sys.stderr.flush(); "
             "sys.exit(bed.main(['--out', sys.argv[2]]))")
    run_ = subprocess.Popen([sys.executable, "-c", start,
                             os.path.join(HERE, os.pardir), str(out_csv)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    assert run_.stderr.readline() == b"ready\n"
    ready = _cpu_seconds(run_.pid)
    while _cpu_seconds(run_.pid) < ready + 0.3:      # in the replay loop
        time.sleep(0.02)                  # (a poll, not a wait for time)
    os.killpg(run_.pid, signal.SIGINT)        # what a terminal's Ctrl-C does
    _, err = run_.communicate(timeout=60)
    assert run_.returncode == 130
    assert err.decode() == ("bootstrap-eval-deltas: interrupted; nothing "
                            "written\n")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("argv, message", [
    (["SHIPPED", "SHIPPED", "--a-col", "x"], "--a-col names a column of one"),
    (["SHIPPED", "--json", "--format", "markdown"],
     "--json is --format json; it cannot go with --format markdown"),
    (["SHIPPED", "SHIPPED", "--metric", "m", "--metric", "m"],
     "--metric m is given twice"),
    (["SHIPPED", "--metric", "a", "--metric", "b"],
     "one wide file holds one metric"),
    (["SHIPPED", "--resamples", "2"], "2 resamples are too few for 0.95 "
                                      "confidence"),
    (["SHIPPED", "--resamples", "100", "--confidence", "0.999"],
     "give --resamples 2001 or more"),
])
def test_compare_refuses_what_it_would_ignore(capsys, argv, message):
    argv = [SHIPPED_CSV if a == "SHIPPED" else a for a in argv]
    status, out, err = run(capsys, "compare", *argv)
    assert status == 2 and out == "" and message in err


@pytest.mark.parametrize("argv, message", [
    (["--margin", "inf"], "must be in (0, inf), not inf"),
    (["--margin", "x=-1"], "expected M or NAME=M"),
    (["--alpha", "0"], "must be in (0, 1), not 0"),
])
def test_compare_range_checks(capsys, argv, message):
    with pytest.raises(SystemExit) as stop:
        bed.main(["compare", SHIPPED_CSV, *argv])
    assert stop.value.code == 2 and message in capsys.readouterr().err


def test_simulate_refuses_out_with_no_csv_and_too_few_resamples(capsys,
                                                                tmp_path):
    status, _, err = run(capsys, *SMALL, "--no-csv", "--out",
                         str(tmp_path / "x.csv"))
    assert status == 2 and "--out names the CSV that --no-csv" in err
    status, _, err = run(capsys, "--resamples", "1", "--no-csv")
    assert status == 2 and "give --resamples 41 or more" in err
    assert list(tmp_path.iterdir()) == []



def test_commands_leave_their_parsed_arguments_as_parsed(capsys):
    # Each command settles its options (format, defaults, parsed --stat)
    # into one _Options record at the door; the namespace argparse
    # returned is not rewritten.
    csv = os.path.join(os.path.dirname(__file__), os.pardir, "datasets",
                       "bootstrap-eval-deltas.csv")
    examples = os.path.join(os.path.dirname(__file__), os.pardir, "datasets",
                            "examples")
    for argv in (["compare", csv, "--resamples", "200", "--json"],
                 ["compare", os.path.join(examples, "tagger-base.jsonl"),
                  os.path.join(examples, "tagger-cand.jsonl"), "--stat",
                  "f1(label,prediction)", "--resamples", "200"],
                 ["plan", "--acc-b", "0.8"],
                 ["rank", csv, "--systems",
                  "system_a_correct,system_b_correct", "--resamples", "200"],
                 ["--differences", "normal", "--replays", "2",
                  "--resamples", "60", "--n-items", "30"]):
        args = bed._build_parser().parse_args(bed._with_default_command(argv))
        before = dict(vars(args))
        assert args.run(bed._options(args)) == 0
        capsys.readouterr()
        assert vars(args) == before, argv


# What the user reads (issue 22) ###########################################

def test_usage_errors_are_one_line_and_name_the_commands(capsys):
    for argv, said in ((["compre", "x"], "no command 'compre'; the commands "
                        "are simulate, compare, plan, rank, check, history "
                        "(did you mean compare?)"),
                       (["compare"], "compare: error: give the baseline's "
                        "run, then the candidate's"),
                       (["compare", "a.csv", "--confidence", "1.5"],
                        "argument --confidence: must be in (0, 1)")):
        with pytest.raises(SystemExit) as end:
            bed.main(argv)
        err = capsys.readouterr().err
        assert end.value.code == 2 and err.count("\n") == 1, err
        assert said in err and err.rstrip().endswith("--help")


def test_plot_into_a_missing_folder_is_an_error_and_a_plot_is_said(
        capsys, tmp_path):
    csv = os.path.join(os.path.dirname(__file__), os.pardir, "datasets",
                       "bootstrap-eval-deltas.csv")
    missing = tmp_path / "no" / "such" / "plot.svg"
    assert bed.main(["compare", csv, "--plot", str(missing)]) == 2
    assert "no folder" in capsys.readouterr().err
    assert not (tmp_path / "no").exists()
    target = tmp_path / "plot.svg"
    assert bed.main(["compare", csv, "--plot", str(target), "--resamples",
                     "200"]) == 0
    assert capsys.readouterr().err == f"bootstrap-eval-deltas: wrote {target}\n"


def test_adjusted_p_beside_the_raw_one_with_its_family(capsys):
    ex = os.path.join(os.path.dirname(__file__), os.pardir, "datasets",
                      "examples")
    assert bed.main(["compare", os.path.join(ex, "base.jsonl"),
                     os.path.join(ex, "cand.jsonl"), os.path.join(
                         ex, "cand3.jsonl"), "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 candidates against the baseline ")
    assert "Holm-adjusted across 2 candidates x 2 metrics" in out
    header = next(line for line in out.splitlines()
                  if line.startswith("metric "))
    assert "  p  " in header and "p (Holm)" in header
    assert "p (Holm): each p adjusted across 2 candidates x 2 metrics" in out


def test_a_value_below_zero_keeps_its_sign():
    # A Newcombe lower end of -1.05e-05 printed "+0.0", a sign that
    # matters to a verdict; a value that is not zero keeps its sign where
    # it rounds to zero, and zero itself takes none.
    assert bed._pts(-1.05e-07) == "-0.0"
    assert bed._pts(0) == "0.0" and bed._pts(1.05e-07) == "+0.0"
    u = bed._units(False, [bed.Interval(-1e-9, 0.5)])
    assert u.span(bed.Interval(-1e-9, 0.5)) == "[-0.00, +0.50]"
    assert u.gap(0) == "0.00"


def test_notes_every_run_has_are_said_once_and_a_wide_rank_names_its_metric(
        capsys):
    here = os.path.dirname(__file__)
    cola = [os.path.join(here, "fixtures", "lm-eval", f"samples_cola_{x}"
                         ".jsonl") for x in ("base", "cand")]
    assert bed.main(["compare", *cola, "--resamples", "200"]) == 0
    read = [l for l in capsys.readouterr().out.splitlines()
            if l.startswith("read:")]
    assert sum("aggregates over the corpus" in l for l in read) == 1
    assert read[0].startswith("read: both runs: mcc: a list per item, which "
                              "lm-eval aggregates over the corpus")
    assert bed.main(["compare", *cola, "--stat", "mcc(mcc)", "--resamples",
                     "200"]) == 0
    assert "unless --metric or --stat" not in capsys.readouterr().out
    csv = os.path.join(here, os.pardir, "datasets",
                       "bootstrap-eval-deltas.csv")
    assert bed.main(["rank", csv, "--systems",
                     "system_a_correct,system_b_correct", "--resamples",
                     "200"]) == 0
    assert capsys.readouterr().out.startswith(
        "2 systems, 500 items, metric correct (higher is better)")


def test_a_p_at_the_resampling_limit_is_a_bound(capsys):
    # 1 / (R + 1) is the least p R resamples can give: a bound, not a value
    ex = os.path.join(os.path.dirname(__file__), os.pardir, "datasets",
                      "examples")
    argv = ["compare", os.path.join(ex, "tagger-base.jsonl"),
            os.path.join(ex, "tagger-cand.jsonl"), "--stat",
            "f1(label,prediction)", "--resamples", "200"]
    assert bed.main(argv) == 0
    out = capsys.readouterr().out
    assert "p <= 0.004975, the least 200 resamples can give" in out
    assert bed.main(argv + ["--json"]) == 0
    test = json.loads(capsys.readouterr().out)["metrics"][0]["test"]
    assert test["at_resampling_limit"] and test["p"] == 1 / 201


def test_long_resampling_shows_progress_and_time_left(monkeypatch):
    # compare --method resample at 10^5 items ran two minutes in silence
    # (issue 22): the loops now report to the progress line the command
    # line installs on a terminal, after _PROGRESS_AFTER seconds.
    clock = iter(range(0, 10 ** 6, 1))            # a second per look
    monkeypatch.setattr(bed, "time", types.SimpleNamespace(
        monotonic=lambda: next(clock)))
    stream = io.StringIO()
    watch = bed._Progress(stream)
    monkeypatch.setattr(bed, "_WATCH", [watch])
    sums = bed._resample_columns(random.Random(1), [[0, 1], [1, 1]], [60, 40],
                                9)
    shown = stream.getvalue()
    assert "resampling: " in shown and "s left" in shown
    assert shown.endswith("\r")              # the line cleared at the end
    monkeypatch.setattr(bed, "_WATCH", [])
    assert bed._resample_columns(random.Random(1), [[0, 1], [1, 1]], [60, 40],
                                9) == sums  # the same numbers either way


@pytest.mark.parametrize("order", ["same", "shuffled"])
def test_baseline_lines_after_a_blank_line_are_named_right(tmp_path, capsys,
                                                          order):
    # The baseline's record numbers are kept as a range while they run on
    # by one; a blank line breaks the run, and the lines named after it
    # (a repeat, a cluster label that differs) must still be the file's.
    base = tmp_path / "base.jsonl"
    base.write_text('{"id": "a", "score": 1, "c": "x"}\n\n'
                    '{"id": "b", "score": 0, "c": "y"}\n'
                    '{"id": "c", "score": 1, "c": "y"}\n')
    rows = ['{"id": "a", "score": 1, "c": "x"}',
            '{"id": "b", "score": 1, "c": "y"}',
            '{"id": "c", "score": 0, "c": "z"}']
    if order == "shuffled":
        rows = rows[::-1]
    cand = tmp_path / "cand.jsonl"
    cand.write_text("\n".join(rows) + "\n")
    status, _, err = run(capsys, "compare", str(base), str(cand),
                         "--cluster", "c")
    line = 1 if order == "shuffled" else 3
    assert status == 2
    assert err.strip().endswith(f"{cand}:{line}: c 'z' differs from 'y' at "
                                f"{base}:4"), err
    base.write_text(base.read_text() + '{"id": "b", "score": 1, "c": "y"}\n')
    status, _, err = run(capsys, "compare", str(base), str(cand))
    assert status == 2
    assert err.strip().endswith(f"{base}:5: id 'b' repeated (first at "
                                f"{base}:3)"), err


@pytest.mark.parametrize("ids, line, first", [
    (["q1", "q2", "q9", "q10", "q2", "q11"], 5, 2),   # (length, text)
    (["0", "1", "2", "3", "1", "5"], 5, 2),           # whole numbers
    (["ab", "b", "c", "ab"], 4, 1),       # text order only: a dict at once
    (["1", "2", "x", "y", "2", "z"], 5, 2),   # numbers, then text: a dict
    (["a", "b", "d", "c", "b", "e"], 5, 2),   # a fall, then the repeat
])
def test_a_repeat_after_rising_ids_is_found(tmp_path, capsys, monkeypatch,
                                            ids, line, first):
    # While the baseline's ids rise no dict of them is kept; batches of two
    # rows put the repeat at the start of a batch that rises by itself.
    monkeypatch.setattr(bed, "_BATCH", 2)
    base, cand = tmp_path / "base.csv", tmp_path / "cand.csv"
    base.write_text("id,score\n" + "".join(f"{i},1\n" for i in ids))
    cand.write_text("id,score\n" + "".join(f"{i},0\n"
                                            for i in dict.fromkeys(ids)))
    status, _, err = run(capsys, "compare", str(base), str(cand),
                         "--jobs", "1")
    assert status == 2
    assert err.strip().endswith(f"{base}:{line + 1}: id {ids[line - 1]!r} "
                                f"repeated (first at {base}:{first + 1})"), \
        err


# The first hour of a new user (issue 36) #####################################

def test_a_mistyped_option_is_refused_with_the_one_meant(capsys, tmp_path,
                                                        monkeypatch):
    # --n-item was taken as --n-items (argparse's abbreviations), exit 0,
    # and rewrote the shipped CSV with 1,000 rows.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "datasets").mkdir()
    with pytest.raises(SystemExit) as stop:
        bed.main(["--n-item", "1000"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and "did you mean --n-items?" in err
    assert list((tmp_path / "datasets").iterdir()) == []
    with pytest.raises(SystemExit):
        bed.main(["compare", SHIPPED_CSV, "--metrc", "acc"])
    assert "did you mean --metric?" in capsys.readouterr().err
    # The right word given to the wrong command named its own word back
    # ("--verbose (did you mean --verbose?)"): say whose option it is.
    with pytest.raises(SystemExit):
        bed.main(["rank", SHIPPED_CSV, "--verbose"])
    assert "(--verbose is an option of compare)" in capsys.readouterr().err
    # check suggested --verbose for --verbos, then refused --verbose: the
    # suggestion comes from the command's own options, else names whose.
    with pytest.raises(SystemExit):
        bed.main(["check", SHIPPED_CSV, "--verbos"])
    assert "(--verbose is an option of compare)" in capsys.readouterr().err
    with pytest.raises(SystemExit):        # not 'compare and plan and rank'
        bed.main(["--alpha", "0.1"])
    assert "(--alpha is an option of compare, plan and rank)" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):        # not 'expected a number': it is
        bed.main(["compare", SHIPPED_CSV, "--resamples", "2.5"])
    assert "--resamples: expected a whole number, not '2.5'" in \
        capsys.readouterr().err
    with pytest.raises(SystemExit):        # argparse takes -5,5 for a flag
        bed.main(["compare", SHIPPED_CSV, "--sequential", "--bounds", "-5,5"])
    assert "expected one argument (a value that starts with '-' goes after " \
        "'=': --bounds=-5,5)" in capsys.readouterr().err
    # A mistyped option and no runs said only "give the baseline's run":
    # the option is named first ("compare --help-all").
    with pytest.raises(SystemExit):
        bed.main(["compare", "--help-all"])
    err = capsys.readouterr().err
    assert "unrecognized arguments: --help-all (did you mean --help?)" in err
    with pytest.raises(SystemExit):
        bed.main(["compare"])
    assert "give the baseline's run" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bed.main(["--versio"])
    assert "did you mean --version?" in capsys.readouterr().err


def test_only_the_articles_setting_writes_the_articles_csv(capsys, tmp_path,
                                                          monkeypatch):
    # Another setting (or an edited N_ITEMS) writes a CSV named for it
    # beside the shipped one, and says so; with no datasets folder (the
    # installed command run anywhere) nothing is written unless --out.
    monkeypatch.chdir(tmp_path)
    quick = ["--replays", "2", "--resamples", "60", "--quiet"]
    assert bed.main(quick) == 0
    out = capsys.readouterr().out
    assert "per-item CSV not written: no datasets folder here" in out
    assert not (tmp_path / "datasets").exists()
    assert bed.main([*quick, "--out", "data/run.csv"]) == 0   # asked for
    assert "wrote data/run.csv (500 items)" in capsys.readouterr().out
    (tmp_path / "datasets").mkdir()
    assert bed.main(["--n-items", "80", *quick]) == 0
    assert ("wrote datasets/bootstrap-eval-deltas-n80.csv (80 items)"
            in capsys.readouterr().out)
    assert bed.main(["--n-items", "80", "--acc-b", "0.8", "--seed", "3",
                     *quick]) == 0
    assert ("bootstrap-eval-deltas-n80-b0.8-seed3.csv"
            in capsys.readouterr().out)
    assert bed.main(quick) == 0
    assert ("wrote datasets/bootstrap-eval-deltas.csv (500 items)"
            in capsys.readouterr().out)
    assert sorted(p.name for p in (tmp_path / "datasets").iterdir()) == [
        "bootstrap-eval-deltas-n80-b0.8-seed3.csv",
        "bootstrap-eval-deltas-n80.csv", "bootstrap-eval-deltas.csv"]


def test_a_wide_files_metric_that_is_no_column_is_refused(capsys):
    status = bed.main(["compare", SHIPPED_CSV, "--metric", "foo"])
    err = capsys.readouterr().err
    assert status == 2 and "--metric 'foo'" in err and "--a-col" in err


def test_untrusted_files_get_one_line_or_are_read(capsys, tmp_path):
    # A CSV field past the csv module's 128 KiB (a model's whole output),
    # a JSONL with NaN where Python's json.dumps writes it, beside the
    # metric compared: read.  A JSON line nested 100,000 deep: one line.
    long = tmp_path / "long.csv"
    long.write_text("id,a,b,output\n" + "".join(
        f"{i},{i % 2},1,{'x' * 200000}\n" for i in range(3)))
    assert bed.main(["compare", str(long), "--a-col", "a", "--b-col", "b",
                     "--resamples", "50"]) == 0
    capsys.readouterr()
    rows = [{"id": i, "acc": i % 2, "latency": math.nan if i == 1 else 3.0}
            for i in range(6)]
    base = tmp_path / "base.jsonl"
    base.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert "NaN" in base.read_text()
    assert bed.main(["compare", str(base), str(base), "--metric", "acc",
                     "--resamples", "50"]) == 0
    capsys.readouterr()
    assert bed.main(["compare", str(base), str(base), "--metric",
                     "latency"]) == 2
    assert f"{base}:2: latency: missing value" in capsys.readouterr().err
    deep = tmp_path / "deep.jsonl"
    deep.write_text('{"id": 1, "m": ' + "[" * 100000 + "]" * 100000 + "}\n")
    assert bed.main(["compare", str(deep), str(base)]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "nested too deep" in err


def test_long_work_says_how_long_when_piped(monkeypatch):
    # --n-items 1000 ran two minutes with no output where stderr was not a
    # terminal: now a line every _PIPED_EVERY seconds, none with --quiet.
    clock = iter(range(0, 10 ** 6, 1))            # a second per look
    monkeypatch.setattr(bed, "time", types.SimpleNamespace(
        monotonic=lambda: next(clock)))
    stream = io.StringIO()
    watch = bed._Progress(stream, lines=True)
    for done in range(30):
        watch("resampling", done, 30)
    lines = stream.getvalue().splitlines(keepends=True)
    assert 2 <= len(lines) <= 3 and all(x.endswith("s left\n")
                                        for x in lines)
    # The replay loops' callback reports to the same progress line.
    stream = io.StringIO()
    monkeypatch.setattr(bed, "_WATCH", [bed._Progress(stream, lines=True)])
    report = bed._progress(40, False)
    for done in range(1, 41):
        report(done)
    said = stream.getvalue()
    assert said.count("\n") in (3, 4) and "\r" not in said
    assert said.startswith("replays: ")
    assert bed._progress(40, True) is None


# Names (issue 45) ########################################################

def test_compare_names_systems_by_what_tells_their_paths_apart(
        capsys, tmp_path, monkeypatch):
    # compare named its systems by their whole paths; now by the folder
    # (or the words of the file name) that tells them apart, or --names;
    # read: lines write files under the current folder from it; JSON keeps
    # the paths whole.
    for model, x in (("model-a", 0), ("model-b", 1)):
        (tmp_path / model).mkdir()
        write(tmp_path / model, "samples_t_2024-01-01T00.jsonl", "".join(
            json.dumps({"id": i, "acc": (i + x) % 2}) + "\n"
            for i in range(6 + x)))
    a, b = (str(tmp_path / m / "samples_t_2024-01-01T00.jsonl")
            for m in ("model-a", "model-b"))
    monkeypatch.chdir(tmp_path)
    status, out, _ = run(capsys, "compare", a, b, "--allow-partial",
                         "--resamples", "50")
    assert status == 0
    assert out.startswith("baseline: model-a   candidate: model-b   6 items")
    assert ("read: model-a/samples_t_2024-01-01T00.jsonl: lacks 1 id "
            "another run has") in out and str(tmp_path) not in out
    status, out, _ = run(capsys, "compare", a, b, "--allow-partial",
                         "--names", "old,new", "--resamples", "50")
    assert out.startswith("baseline: old   candidate: new   6 items")
    status, out, _ = run(capsys, "compare", a, b, "--allow-partial",
                         "--json", "--resamples", "50")
    assert json.loads(out)["candidate"] == b
    status, _, err = run(capsys, "compare", a, b, "--names", "x,y,z")
    assert status == 2 and "--names gives 3 names for 2 systems" in err


def test_a_wide_files_metric_is_its_columns_stem(capsys, tmp_path):
    path = write(tmp_path, "w.csv", "id,judge_a,judge_b\n1,3,4\n2,5,5\n"
                                    "3,2,4\n4,1,3\n")
    status, out, _ = run(capsys, "compare", path, "--a-col", "judge_a",
                         "--b-col", "judge_b", "--resamples", "50")
    assert status == 0 and "\njudge   continuous" in out
    assert "judge_b - judge_a" not in out


def test_usage_errors_name_the_program_as_invoked(capsys, monkeypatch):
    # Issue 45: "see bootstrap-eval-deltas --help" named a command that
    # exists only after pip install; run as a script, the script is named.
    for argv0, prog in (("bootstrap_eval_deltas.py",
                         "python3 bootstrap_eval_deltas.py"),
                        ("/usr/bin/bootstrap-eval-deltas",
                         "bootstrap-eval-deltas")):
        monkeypatch.setattr("sys.argv", [argv0, "comparre"])
        with pytest.raises(SystemExit) as stop:
            bed.main()
        err = capsys.readouterr().err
        assert stop.value.code == 2 and err == (
            f"{prog}: error: no command 'comparre'; the commands are "
            f"simulate, compare, plan, rank, check, history (did you mean "
            f"compare?); see "
            f"{prog} --help\n")
        monkeypatch.setattr("sys.argv", [argv0, "plan", "--acc-a", "2"])
        with pytest.raises(SystemExit):
            bed.main()
        assert capsys.readouterr().err.endswith(
            f"; see {prog} plan --help\n")


# One table of options (issue 61): every flag declared once, the parsers,
# _Options and the library's keyword checks all made from it.

def _subparsers():
    """Return {command: its argparse parser}."""
    action = next(a for a in bed._build_parser()._actions
                  if isinstance(a, bed.argparse._SubParsersAction))
    return dict(action.choices)


def test_every_flag_is_declared_in_one_row_of_the_table():
    flags = [row.flag for row in bed._OPTIONS]
    assert sorted({f for f in flags if flags.count(f) > 1}) == []
    for command, parser in _subparsers().items():
        declared = {a.option_strings[0] if a.option_strings else a.dest
                    for a in parser._actions} - {"-h"}
        assert declared == {row.flag for row in bed._OPTIONS
                            if command in row.commands}, command


def test_every_row_fills_an_options_field_once_per_command():
    fields = set(bed._Options._fields) | {
        f"reading.{name}" for name in bed._Reading._fields}
    assert sorted(r.flag for r in bed._OPTIONS
                  if r.field is not None and r.field not in fields) == []
    for command in bed._COMMANDS:
        filled = [r.field for r in bed._OPTIONS
                  if command in r.commands and r.field is not None]
        assert len(filled) == len(set(filled)), command
        keys = {key for key, *_ in bed._GROUPS[command]}
        assert {r.get(command, "group") for r in bed._OPTIONS
                if command in r.commands} <= keys, command
    # A default is said once, as its field's (None where a row tells an
    # option given from one not; --jobs's is the machine's).
    for command, parser in _subparsers().items():
        for r in bed._OPTIONS:
            if (command in r.commands and r.field in bed._Options._fields
                    and r.flag != "--jobs" and r.flag.startswith("--")):
                default = bed._Options._field_defaults[r.field]
                if r.unset is True or command in r.unset:
                    default = None
                elif r.get(command, "action") == "append":
                    default = list(default) if default is not None else None
                assert parser.get_default(r.dest) == default, (command, r)


def test_the_reading_and_plans_pilot_options_come_from_the_table():
    # _Reading is filled from the rows naming its fields ("reading.task"),
    # as _Options is; plan's options that only --from uses, or that cannot
    # go with it, are a column of the same rows (_Opt.pilot).
    parser = bed._build_parser("bed")
    args = parser.parse_args(
        ["compare", "a", "b", "--by", "task", "--allow-partial", "--records",
         "x.y", "--task", "t", "--filter", "f", "--scorer", "s",
         "--choice-scores", "A=1,B=0", "--max-inflate", "7"])
    assert bed._Options(**bed._settled(args)).reading == bed._Reading(
        records="x.y", task="t", filter="f", scorer="s",
        allow_partial=True, choice_scores={"A": 1, "B": 0},
        all_tasks=True, inflate=7 << 20)
    args = parser.parse_args(["check", "a", "--from-format", "document"])
    assert bed._settled(args)["reading"] == bed._Reading(format="document")
    pilot = {r.flag: r.pilot for r in bed._OPTIONS
             if "plan" in r.commands and r.pilot is not None}
    assert pilot["--task"] and pilot["--human"] and not pilot["--n-items"]
    values = {"--choice-scores": ["A=1"], "--budget": ["5"],
              "--from-format": ["document"],
              "--n-items": ["5"], "--runs": [], "--simulate": []}
    for flag, only in pilot.items():
        argv = ["plan", flag, *values.get(flag, ["0.5"])] + (
            ["--acc-a", "0.7", "--acc-b", "0.8"] if only else
            ["--from", "p.csv", "q.csv"])
        with pytest.raises(bed.EvalDeltaError) as error:
            bed._plan_options(parser.parse_args(argv))
        assert str(error.value) == flag + (
            " goes with --from (pilot data)" if only else
            " does not go with --from: the pilot data set the design")


# Options that cannot go together yet are rows of _APART, refused by one
# function in the row's words: each pair is tested from the table, so a new
# row is tested for free (its flags' values below where "x" will not do).
VALUES = {"--stat": "f1(g,p)", "--margin": "0.1", "--equivalence": "0.1"}
WITH = {"--macro": ["--by", "s"], "--order": ["--sequential"]}


@pytest.fixture(scope="module")
def parser():
    return bed._build_parser()


@pytest.mark.parametrize("command, option, flag, words", [
    pytest.param(command, option, flag, words, id=f"{option} {flag}")
    for command, options, others, words in bed._APART
    for option in options.split() for flag in others.split()])
def test_options_that_cannot_go_together_are_refused_in_their_words(
        parser, command, option, flag, words):
    rows = {row.flag: row for row in bed._OPTIONS if command in row.commands}

    def given(name):
        alone = rows[name].get(command, "action") == "store_true"
        return [name] + [VALUES.get(name, "x")] * (not alone) + WITH.get(
            name, [])
    files = ["a"] if flag in ("--a-col", "--b-col") else ["a", "b"]
    args = parser.parse_args([command, *files, *given(option), *given(flag)])
    with pytest.raises(bed.EvalDeltaError) as error:
        bed._options(args)
    assert str(error.value) == words.format(option=option, flag=flag)


@pytest.mark.parametrize("function, keyword, value, flag", [
    ("compare", "alpha", 1.5, "--alpha"),
    ("compare", "confidence", 0, "--confidence"),
    ("compare", "resamples", 0, "--resamples"),
    ("compare", "jobs", 0, "--jobs"),
    ("compare", "interval", "bcA", "--interval"),
    ("compare", "method", "exact", "--method"),
    ("rank", "alpha", 1.0, "--alpha"),
    ("plan", "power", 1.0, "--power"),
    ("plan", "corr", 1.0, "--corr"),
    ("plan", "n_items", [0], "--n-items")])
def test_the_library_checks_a_keyword_by_its_options_row(
        capsys, function, keyword, value, flag):
    # compare(alpha=1.5) and compare --alpha 1.5 are refused by the one
    # row's type (or choices): the same problem, in each one's words.
    args = {"compare": ([1, 0, 1], [1, 1, 0]),
            "rank": ({"a": [1, 0], "b": [0, 1]},),
            "plan": (0.72, 0.76)}[function]
    with pytest.raises(bed.EvalDeltaError) as refused:
        getattr(bed, function)(*args, **{keyword: value})
    said = str(refused.value)
    assert said.startswith(f"{keyword}={value!r}: ")
    text = ",".join(map(str, value)) if isinstance(value, list) else str(
        value)
    extra = {"compare": [SHIPPED_CSV], "rank": ["a", "b"]}.get(function, [])
    with pytest.raises(SystemExit) as stop:
        bed.main([function, *extra, flag, text])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and f"argument {flag}: " in err
    if bed._option_row(function, keyword).get(function, "choices"):
        assert "give one of" in said and "invalid choice" in err
    else:                         # the type's own words, both ways
        assert said.split(": ", 1)[1].split(", not ")[0] in err
