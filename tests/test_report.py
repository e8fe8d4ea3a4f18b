"""Report: verdict words, sizing in words, markdown, SVG, JSON settings."""
import html
import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, os.pardir, "bootstrap_eval_deltas.py")
SHIPPED_CSV = os.path.join(HERE, os.pardir, "datasets",
                           "bootstrap-eval-deltas.csv")
HEADER = "item,system_a_correct,system_b_correct\n"


def run(capsys, *argv):
    """compare *argv*, at 400 resamples unless they name a count (the
    suite's CPU; what the reports say does not hang on the count)."""
    extra = [] if "--resamples" in argv else ["--resamples", "400"]
    status = bed.main(["compare", *argv, *extra])
    out, err = capsys.readouterr()
    return status, out, err


def wide(tmp_path, pairs, name="w.csv"):
    path = tmp_path / name
    path.write_text(HEADER + "".join(f"{i},{a},{b}\n"
                                     for i, (a, b) in enumerate(pairs)))
    return str(path)


# Sizing in degenerate cases ##############################################

@pytest.mark.parametrize("pairs, words", [
    ([(1, 1), (0, 0), (1, 1)] * 2, "the runs agree on every item: no "
                                   "discordant item to size a difference "
                                   "from"),
    ([(0.5, 0.7), (0.1, 0.3), (0.4, 0.6)] * 2,
     "every item differs by the same amount: no spread"),
    ([(1, 1), (0, 0), (1, 1)], "no paired exact test can give p below "
                               "0.25 at this size"),
    ([(0.5, 0.7)], "one item: no spread"),
    ([(1, 0), (0, 1)], "no paired exact test can give p below 0.5 at this "
                       "size"),
    ([(1, 0), (0, 1), (0, 1), (0, 1)], "can give p below 0.125"),
])
def test_no_detectable_size_where_there_is_none(capsys, tmp_path, pairs,
                                                words):
    # These once read "detects a difference of about 0 (0.0 pts)", "280.2
    # pts" for two items, and "about 4 items" where p cannot go below 0.125.
    status, out, _ = run(capsys, wide(tmp_path, pairs), "--resamples", "50")
    assert status == 0 and words in out
    assert "detects a difference of about" not in out
    status, out, _ = run(capsys, wide(tmp_path, pairs), "--resamples", "50",
                         "--json")
    entry = json.loads(out)["metrics"][0]
    assert entry["mde"] is None and entry["items_needed"] is None
    assert words.split(":")[0] in entry["sizing_note"]


def test_three_clusters_are_sized_by_t_and_flagged(capsys, tmp_path):
    # The cluster sign flip could not give p below 0.25 at 3 clusters, so
    # nothing was detectable; the cluster t test (2 df) can, and sizes so,
    # and the verdict carries the caution.
    rows = [{"id": i, "c": i % 3, "s": (i * 7 % 10) / 10} for i in range(60)]
    other = [{"id": i, "c": i % 3, "s": (i * 3 % 10 + i % 3) / 10}
             for i in range(60)]
    paths = []
    for name, data in (("a.jsonl", rows), ("b.jsonl", other)):
        (tmp_path / name).write_text("".join(json.dumps(r) + "\n"
                                             for r in data))
        paths.append(str(tmp_path / name))
    status, out, _ = run(capsys, *paths, "--cluster", "c", "--metric", "s",
                         "--resamples", "50")
    assert status == 0
    assert "p = 0.2254 (cluster t)" in out
    assert "by t on the clustered standard error, 2 degrees of freedom" in out
    assert "detects a difference of about 0.51 with 80% power" in out
    assert "(only 3 clusters)" in out.splitlines()[2]     # in the verdict


def test_compare_and_plan_from_size_a_binary_metric_alike(capsys):
    status, out, _ = run(capsys, SHIPPED_CSV)
    assert "detecting +3.6 pts would take about 1890 items" in out
    assert bed.main(["plan", "--from", SHIPPED_CSV]) == 0
    assert "1890 items detect +3.6 pts" in capsys.readouterr().out


def test_plan_from_identical_runs_says_why(capsys, tmp_path):
    path = wide(tmp_path, [(i % 2, i % 2) for i in range(30)])
    assert bed.main(["plan", "--from", path]) == 0
    out = capsys.readouterr().out
    assert "None" not in out and "the runs agree on every item" in out


# Verdict words ###########################################################

def test_lower_is_better_binary_says_who_is_better(capsys, tmp_path):
    # An error flag: A errs on 341 items B gets right, B on 281.  It read
    # "B-only correct=281 (fixed), A-only correct=341 (broke)": backwards.
    pairs = [(1, 0)] * 341 + [(0, 1)] * 281 + [(0, 0)] * 400
    path = tmp_path / "err.csv"
    path.write_text("item,err_a,err_b\n" + "".join(
        f"{i},{a},{b}\n" for i, (a, b) in enumerate(pairs)))
    status, out, _ = run(capsys, str(path), "--a-col", "err_a", "--b-col",
                         "err_b", "--metric", "err", "--lower-is-better",
                         "err", "--resamples", "50", "--verbose")
    assert status == 0
    assert ("discordant pairs: the candidate is better on 341 items, the "
            "baseline on 281") in out


def test_no_false_disagreement_when_confidence_is_not_one_minus_alpha(
        capsys):
    # A 90% interval that excludes 0 with p = 0.1677 against alpha 0.05
    # is no disagreement: they answer different questions.
    status, out, _ = run(capsys, SHIPPED_CSV, "--confidence", "0.6",
                         "--resamples", "200")
    assert status == 0 and "edge of what" not in out


def test_a_0_1_interval_and_its_test_cannot_part():
    # 120 items, 11 discordant: Newcombe's interval [+0.3, +11.3] pts
    # leaves out 0, McNemar's exact p = 0.0654 does not reach 0.05; the
    # headline read so, with a note that the verdict follows the test.
    # Now the headline is the interval McNemar's test inverts, which takes
    # in 0 exactly where p >= 0.05, and Newcombe's stays beside it.
    rest = [1] * 60 + [0] * 49
    c = bed.compare([1, 1] + [0] * 9 + rest, [0, 0] + [1] * 9 + rest)
    assert c.ci[0] < 0 < c.ci[1] and c.p > 0.05
    assert c.verdict == "no detectable difference"
    assert c.result.score_ci.lo > 0
    assert not any("leaves out 0" in note for note in c.judgement.notes)
    text = bed._format_compare(c.run, c.options._replace(verbose=True))
    assert "Newcombe score CI [+0.3, +11.3] pts" in text
    # ... and says why the verbose line's intervals part from the verdict
    assert ("The mid-p, Newcombe's and the bootstrap's reject a gap of 0 "
            "where McNemar's exact test does not: approximations, which at 11 discordant pairs can err; the "
            "verdict follows the exact test.") in text
    c = bed.compare([1] * 30 + [0] * 30, [0] * 25 + [1] * 35)   # agreeing
    text = bed._format_compare(c.run, c.options._replace(verbose=True))
    assert "approximations" not in text


def test_holm_says_the_interval_is_not_adjusted(capsys, tmp_path):
    # m1: 10 items won by B, 2 by A (p = 0.0386), 0.116 after Holm over 3
    # metrics: its interval, the unadjusted test's, leaves out 0 beside
    # "no detectable difference", and the note says why.
    rng = random.Random(5)
    rows = {"a": ["id,m1,m2,m3"], "b": ["id,m1,m2,m3"]}
    for i in range(100):
        x = y = int(rng.random() < 0.7)
        if i < 12:
            x, y = (0, 1) if i < 10 else (1, 0)
        rows["a"].append(f"{i},{x},{rng.randrange(2)},{rng.randrange(2)}")
        rows["b"].append(f"{i},{y},{rng.randrange(2)},{rng.randrange(2)}")
    paths = []
    for side, lines in rows.items():
        paths.append(tmp_path / f"{side}.csv")
        paths[-1].write_text("\n".join(lines) + "\n")
    status, out, _ = run(capsys, *map(str, paths), "--resamples", "50")
    line = next(x for x in out.splitlines() if x.startswith("m1 "))
    assert status == 0 and "[+0.3, +16.1]" in line
    assert line.endswith("no detectable difference")
    assert ("m1: significant before the Holm adjustment across 3 metrics (p "
            "= 0.03857), not after; the paired CI is not adjusted, so it "
            "leaves out 0 as the test did before") in out


def test_one_item_is_singular(capsys, tmp_path):
    status, out, _ = run(capsys, wide(tmp_path, [(0.5, 0.7)]),
                         "--resamples", "50")
    assert "   1 item" in out.splitlines()[0] and "1 items" not in out


# Markdown, SVG, JSON #####################################################

def test_markdown_escapes_names(capsys, tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("item,a|b *x* <b>,y\n" + "".join(
        f"{i},{i % 2},{(i + 1) % 2}\n" for i in range(30)))
    status, out, _ = run(capsys, str(path), "--a-col", "a|b *x* <b>",
                         "--b-col", "y", "--metric", "a|b *x* <b>",
                         "--format", "markdown", "--resamples", "50")
    table = out.splitlines()[2:5]
    assert status == 0
    assert all(line.count("|") - line.count("\\|") == 9 for line in table)
    assert "a\\|b \\*x\\* &lt;b&gt;" in out and "<b>" not in out


def test_plot_of_identical_runs_stays_in_its_frame(capsys, tmp_path):
    target = tmp_path / "same.svg"
    status, _, _ = run(capsys, wide(tmp_path, [(1, 1), (0, 0)] * 10),
                       "--resamples", "100", "--plot", str(target))
    root = ET.parse(target).getroot()
    ns = "{http://www.w3.org/2000/svg}"
    bars = [r for r in root.iter(ns + "rect") if r.get("fill") == "#9cb9dd"]
    assert status == 0 and bars
    for bar in bars:
        x, width = float(bar.get("x")), float(bar.get("width"))
        assert bed._LEFT <= x and x + width <= bed._W - bed._RIGHT
    lines = [float(l.get("x1")) for l in root.iter(ns + "line")
             if l.get("stroke") in ("#c0392b", "#555")
             and l.get("y1") != l.get("y2")]
    assert all(bed._LEFT < x < bed._W - bed._RIGHT for x in lines)
    texts = [t.text for t in root.iter(ns + "text")]
    assert "95% CI" in texts and "zero" in texts           # the legend


def test_plot_must_be_svg(capsys, tmp_path):
    status, out, err = run(capsys, SHIPPED_CSV, "--plot",
                           str(tmp_path / "x.png"))
    assert status == 2 and out == "" and "ending in .svg" in err
    assert list(tmp_path.iterdir()) == []


def test_json_carries_its_settings(capsys):
    status, out, _ = run(capsys, SHIPPED_CSV, "--json", "--resamples", "100",
                         "--confidence", "0.9", "--alpha", "0.01",
                         "--margin", "0.05")
    report = json.loads(out)
    assert {k: report[k] for k in ("confidence", "alpha", "power",
                                   "interval")} == {
        "confidence": 0.9, "alpha": 0.01, "power": 0.8,
        "interval": "percentile"}
    entry = report["metrics"][0]
    assert entry["margin"] == 0.05
    assert entry["margin_interval"] == "Fay-Lumbard interval"
    assert entry["margin_ci"] == entry["ci"]["paired_gap"]   # one interval
    assert entry["sizing"] == "McNemar exact"


def test_closed_stdout_ends_quietly():
    child = subprocess.Popen([sys.executable, SCRIPT, "compare", SHIPPED_CSV,
                              "--resamples", "50"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    child.stdout.close()                     # as `| head -0` would
    err = child.stderr.read()
    child.wait(timeout=60)
    assert err == b"" and child.returncode == 141


def test_the_words_print_the_power_used():
    # judge(power=0.95) sized at 95% but the words said "with 80% power"
    # (the constant was printed, not the value used).
    c = bed.compare([1, 0, 1, 1, 0] * 40, [1, 1, 1, 0, 1] * 40)
    for power, said in ((0.95, "with 95% power"), (0.8, "with 80% power")):
        (j,) = bed._judge([c.result], power=power)
        run = c.run._replace(names=("a", "b"), judgements=[j])
        assert said in bed._format_compare(run, c.options)
        assert bed._compare_json(run, c.options)["power"] == power


def test_every_command_prints_through_one_table_of_formats(capsys):
    # simulate and plan had no --format; every command now takes text,
    # markdown, json and html from _OUTPUT_FORMATS, and --json is --format
    # json.  A report with no markdown (or page) of its own is its text in
    # a code block (or on a page).
    assert list(bed._OUTPUT_FORMATS) == ["text", "github", "markdown",
                                         "json", "html"]
    for argv in (["plan"], ["simulate", "--replays", "3", "--n-items", "60",
                            "--resamples", "50", "--no-csv", "--quiet"]):
        outs = {}
        for fmt in bed._OUTPUT_FORMATS:
            assert bed.main(argv + ["--format", fmt]) == 0
            outs[fmt] = capsys.readouterr().out
        if argv[0] == "simulate":
            assert outs["markdown"] == "```\n" + outs["text"].rstrip(
                "\n") + "\n```\n"
            assert html.escape(outs["text"].rstrip("\n")) in outs["html"]
        else:                            # plan's markdown: a table
            assert "| n | exact power |" in outs["markdown"]
        assert outs["html"].startswith("<!DOCTYPE html>")
        assert outs["github"] == outs["text"]    # commands: compare's only
        assert bed.main(argv + ["--json"]) == 0
        assert json.loads(capsys.readouterr().out) == json.loads(outs["json"])


def test_markdown_read_lines_are_a_list(capsys):
    # In markdown the read: lines once ran into the header as one
    # paragraph; each is a list item now.
    fixtures = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                            "fixtures", "promptfoo")
    assert bed.main(["compare", os.path.join(fixtures, "eval-a.json"),
                     os.path.join(fixtures, "eval-a-rerun.json"),
                     "--format", "markdown", "--resamples", "100"]) == 0
    lines = capsys.readouterr().out.splitlines()
    end = lines.index("", 2)
    assert lines[1] == "" and end > 2
    assert all(line.startswith("- read: ") for line in lines[2:end])


def _texts_outside(svg):
    """The <text> elements of an SVG that run outside its canvas, from
    its own geometry (the tool's width estimate of each label)."""
    import re
    width = float(re.search(r'width="([\d.]+)"', svg).group(1))
    height = float(re.search(r'height="([\d.]+)"', svg).group(1))
    shift = re.search(r'<g transform="translate\(([\d.]+) 0\)">', svg)
    dx = float(shift.group(1)) if shift else 0.0
    out = []
    for attrs, text in re.findall(r"<text ([^>]*)>([^<]*)</text>", svg):
        if "rotate" in attrs or not text:
            continue
        x = float(re.search(r'\bx="([-\d.]+)"', attrs).group(1)) + dx
        y = float(re.search(r'\by="([-\d.]+)"', attrs).group(1))
        size = float(re.search(r'font-size="([\d.]+)"', attrs).group(1))
        w = bed._text_width(html.unescape(text), size)
        anchor = re.search(r'text-anchor="(\w+)"', attrs)
        left = {"end": x - w, "middle": x - w / 2}.get(
            anchor and anchor.group(1), x)
        if left < 0 or left + w > width or not 0 < y <= height:
            out.append(text)
    return out


def test_plots_keep_their_text_on_the_canvas(capsys, tmp_path):
    # rank --plot once cut long names to "instruct-q4" (a fixed 70 px
    # margin), and its legend ran over the axis and past the right edge.
    names = ["llama-3.1-8b-instruct-q4", "mistral-7b-instruct-v0.2-awq", "a"]
    rng = random.Random(2)
    wide = tmp_path / "wide.csv"
    wide.write_text("id," + ",".join(names) + "\n" + "".join(
        f"{i}," + ",".join(str(int(rng.random() < p)) for p in (.6, .7, .5))
        + "\n" for i in range(100)))
    plots = []
    for argv in (["rank", str(wide), "--systems", ",".join(names)],
                 ["compare", str(wide), "--a-col", names[0], "--b-col",
                  names[1]],
                 ["plan", "--acc-a", "0.72", "--acc-b", "0.76"]):
        path = tmp_path / f"{argv[0]}.svg"
        extra = [] if argv[0] == "plan" else ["--resamples", "200"]
        assert bed.main(argv + extra + ["--plot", str(path)]) == 0
        capsys.readouterr()
        plots.append(path.read_text())
    for svg in plots:
        assert _texts_outside(svg) == []


def test_a_value_prints_the_same_with_and_without_clusters(capsys, tmp_path):
    # 57 of 80 right is 0.7125: it printed 0.712 unclustered and 0.713
    # with --cluster (a float there, a Fraction here); the gap likewise.
    rows = [[{"id": i, "c": i // 10, "acc": int(i < k)} for i in range(80)]
            for k in (57, 60)]
    paths = []
    for name, data in zip(("a.jsonl", "b.jsonl"), rows):
        path = tmp_path / name
        path.write_text("".join(json.dumps(r) + "\n" for r in data))
        paths.append(str(path))
    cells = []
    for extra in ([], ["--cluster", "c"]):
        assert bed.main(["compare", *paths, "--metric", "acc",
                         "--resamples", "200", *extra]) == 0
        row = next(line for line in capsys.readouterr().out.splitlines()
                   if line.startswith("acc "))
        cells.append([row.split()[k] for k in (2, 8)])  # A, the gap
    assert cells[0] == cells[1] == ["71.2%", "+3.8"]


# compare's columns: one list for every form ##############################

def test_each_compare_column_reaches_every_form_it_names(capsys,
                                                         monkeypatch):
    # _rows, _subset_rows and _compare_entries once built compare's rows
    # apart, and a statistic added to two of them reached the JSON's
    # subsets but not the text's.  Each column of _COMPARE_COLUMNS names
    # the tables and JSON entries it shows in: its cell must be in each
    # (overall and subset rows) and its keys in none other.
    # a column in both forms shows in the same rows of each; the type
    # alone is left out of the subset table (the overall row says it)
    assert [c.head for c in bed._COMPARE_COLUMNS if c.head and c.json
            and c.rows != c.entries] == ["type"]
    built = []
    real = bed._metric_rows

    def spy(run, options, subsets=False):
        built.append((run, options))
        return real(run, options, subsets)
    monkeypatch.setattr(bed, "_metric_rows", spy)
    ex = os.path.join(HERE, os.pardir, "datasets", "examples", "")
    texts, filled = [], set()
    for argv in ([ex + "cand.jsonl", "--by", "subject", "--equivalence",
                  "acc=0.15"], [ex + "cand3.jsonl", "--metric", "acc",
                                "--sequential", "--bayes"]):
        status, text, _ = run(capsys, ex + "base.jsonl", *argv,
                              "--resamples", "100")
        assert status == 0
        compared, options = built[-1]
        data = bed._compare_json(compared, options)
        for subsets in (False, True) if options.by else (False,):
            where = "subset" if subsets else "overall"
            base, rows = real(compared, options, subsets)
            entries = data["subsets" if subsets else "metrics"]
            assert rows and len(entries) == len(rows)
            shown = [c for c in bed._COMPARE_COLUMNS if c.head
                     and where in c.rows and (c.when is None
                                              or c.when(base))]
            heads = [c.head(base) if callable(c.head) else c.head
                     for c in shown]
            header = re.search("^" + "  +".join(map(re.escape, heads))
                               + "$", text, re.M)
            assert header, (where, heads)
            for c in bed._COMPARE_COLUMNS:
                if c.head and where not in c.rows:
                    head = c.head(base) if callable(c.head) else c.head
                    assert f"  {head}  " not in f"  {header[0]}  ", head
            for x, entry in zip(rows, entries):
                cells = [c.cell(x) for c in shown]
                assert re.search("^" + "  +".join(map(re.escape, cells))
                                 + "$", text, re.M), cells
                for c in bed._COMPARE_COLUMNS:
                    for key, value in (c.json and c.json(x) or {}).items():
                        if where not in c.entries:
                            assert key not in entry, (where, key)
                        elif isinstance(value, dict):
                            assert {k: entry[key][k] for k in value} == value
                        else:
                            assert entry[key] == value, key
                        filled.add(key)
        texts.append(text)
    # every column was exercised, but those needing other input (aliases:
    # two metrics equal on every item; judge_corrected: --human)
    keys = {key for c in bed._COMPARE_COLUMNS if c.json for key in (
        c.json(rows[0]) or {})}
    assert "anytime-valid" in texts[1] and "type" in texts[0]
    assert filled >= keys and {"bayes", "sequential", "equivalence",
                               "churn", "subset"} <= filled


def _runs_at_the_resampling_limit(tmp_path):
    """Write two runs whose x moves by 1 or more on every item (its
    sign-flip p the least 200 resamples give) and whose y is noise, with a
    subject of two values; return their paths as strings."""
    rng = random.Random(1)
    paths = [tmp_path / "a.csv", tmp_path / "b.csv"]
    rows = [[], []]
    for i in range(60):
        x = rng.random()
        rows[0].append(f"{i},s{i % 2},{x:.4f},{rng.random():.4f}")
        rows[1].append(f"{i},s{i % 2},{x + 1 + rng.random():.4f},"
                       f"{rng.random():.4f}")
    for path, lines in zip(paths, rows):
        path.write_text("id,subject,x,y\n" + "\n".join(lines) + "\n")
    return [str(path) for path in paths]


AT_THE_LIMIT = ["--metric", "x", "--metric", "y", "--method", "resample",
                "--resamples", "200", "--quiet"]


def test_an_adjusted_p_from_a_p_at_the_resampling_limit_is_a_bound(
        capsys, tmp_path):
    # x's sign-flip p is the least 200 resamples give, so a bound ("<= ");
    # its adjusted p, built from it, is one too, in the overall rows as in
    # the subset rows (the overall rows printed it bare).
    assert bed.main(["compare", *_runs_at_the_resampling_limit(tmp_path),
                     *AT_THE_LIMIT, "--by", "subject"]) == 0
    table = [line for line in capsys.readouterr().out.splitlines()
             if line.startswith("x ")]
    assert len(table) == 3                  # overall, then two subsets
    for line in table:
        assert line.count("<= ") == 2, line       # p and p (Holm)


def test_the_verdicts_adjusted_p_is_a_bound_where_the_table_says_one(
        capsys, tmp_path):
    # The sentence under the table says the adjusted p as the table does:
    # "p <= 0.004975 ..., <= 0.00995 after Holm", not a bare 0.00995.
    assert bed.main(["compare", *_runs_at_the_resampling_limit(tmp_path),
                     *AT_THE_LIMIT]) == 0
    out = capsys.readouterr().out
    said = [line for line in out.splitlines() if "after Holm" in line]
    assert said and all(re.search(r"<= [0-9.e-]+ after Holm", line)
                        for line in said), out
