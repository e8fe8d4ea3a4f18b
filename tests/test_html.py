"""--format html and --html FILE: one self-contained page per report, the
verdict before the table, every name from a file shown as text."""
import html.parser
import json
import os

import pytest

import bootstrap_eval_deltas as bed
from test_report import _texts_outside

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, os.pardir, "datasets", "examples")
VOID = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"}


class _Page(html.parser.HTMLParser):
    """A strict reading of a page: every element closed in order, the
    text, the inline SVGs, any external reference, and where the verdict
    and the first table start."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.order, self.text = [], [], []
        self.svgs, self.external, self.scripts = 0, [], 0

    def handle_starttag(self, tag, attrs):
        self._saw(tag, attrs)
        if tag not in VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self._saw(tag, attrs)

    def _saw(self, tag, attrs):
        attrs = dict(attrs)
        self.svgs += tag == "svg"
        self.scripts += tag in ("script", "iframe", "object", "embed")
        if attrs.get("id") == "verdict":
            self.order.append("verdict")
        if tag == "table":
            self.order.append("table")
        for name in ("src", "href", "xlink:href", "action"):
            value = attrs.get(name) or ""
            if "://" in value or value.startswith("//"):
                self.external.append(value)
        if tag == "link" or "url(" in (attrs.get("style") or ""):
            self.external.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (self.stack, tag)
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def check(page):
    """Return the _Page reading of an HTML report after checking what
    every page must hold."""
    assert page.startswith("<!DOCTYPE html>")
    reader = _Page()
    reader.feed(page)
    reader.close()
    assert reader.stack == []
    assert reader.svgs >= 1 and reader.scripts == 0
    assert reader.external == []
    assert "http://" not in page.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "@import" not in page
    assert reader.order[0] == "verdict" and "table" in reader.order
    for svg in page.split("<svg")[1:]:       # every label on its canvas
        assert _texts_outside("<svg" + svg.split("</svg>")[0]) == []
    return reader


def page_of(capsys, argv):
    assert bed.main(argv + ["--format", "html"]) == 0
    out, err = capsys.readouterr()
    return out, check(out)


def example(name):
    return os.path.join(EXAMPLES, name)


def test_compare_page_puts_the_verdict_first(capsys):
    out, reader = page_of(capsys, ["compare", example("base.jsonl"),
                                   example("cand.jsonl"), "--resamples",
                                   "200", "--seed", "1"])
    text = "".join(reader.text)
    assert text.index("acc: no detectable difference") < text.index(
        "metric")                                    # the table's header
    assert reader.svgs == 2                          # a plot per metric
    assert "latency (lower is better)" in text and "baseline better" in text
    assert "compare " + example("base.jsonl") in text   # the command


def test_rank_and_plan_pages(capsys):
    out, reader = page_of(capsys, ["rank"] + [example(f"{name}.jsonl")
                                              for name in ("base", "cand",
                                                           "cand2")]
                          + ["--metric", "acc", "--resamples", "200",
                             "--pairs"])
    text = "".join(reader.text)
    assert reader.svgs == 2                  # the forest and the pairs
    tables = out.split("<table>")[1:]        # the systems first, the pairs
    assert [t.split("<th>")[1][:6] for t in tables] == ["system", "pair ("]
    assert text.index("top group, not detectably") < text.index("rank (")
    assert ">cand2<" in out and "cand2.jsonl<" not in out.split("<svg")[1]
    out, reader = page_of(capsys, ["plan", "--acc-a", "0.72", "--acc-b",
                                   "0.76", "--corr", "0.6"])
    assert "1533 items for 80% power" in "".join(reader.text)


def test_judged_page_shows_the_judge_against_the_humans(capsys):
    out, reader = page_of(capsys, ["compare", example("judged-base.jsonl"),
                                   example("judged-cand.jsonl"), "--metric",
                                   "judge", "--human", "human"])
    text = "".join(reader.text)
    assert reader.svgs == 2
    assert "humans alone (200 items)" in text
    assert text.index("Finding: better as judged") < text.index("metric")
    assert "The judge's bias" in text


def test_names_from_a_file_stay_text(capsys, tmp_path):
    bad = "<script>alert(1)</script>"
    path = tmp_path / "wide.csv"
    path.write_text("id,\"" + bad + "\",b&<i>x\n" + "".join(
        f"{i},{i % 2},{int(i % 3 > 0)}\n" for i in range(40)))
    for argv in (["compare", str(path), "--a-col", bad, "--b-col",
                  "b&<i>x"],
                 ["rank", str(path), "--systems", f"{bad},b&<i>x"]):
        out, reader = page_of(capsys, argv + ["--resamples", "100"])
        assert "<script" not in out.lower() and "<i>" not in out
        assert bad in "".join(reader.text)


def test_html_file_beside_another_format(capsys, tmp_path):
    argv = ["plan", "--acc-a", "0.72", "--acc-b", "0.76"]
    assert bed.main(argv) == 0
    plain = capsys.readouterr().out
    target = tmp_path / "plan.html"
    assert bed.main(argv + ["--html", str(target)]) == 0
    out, err = capsys.readouterr()
    assert out == plain and err == f"bootstrap-eval-deltas: wrote {target}\n"
    check(target.read_text())
    assert os.listdir(tmp_path) == ["plan.html"]       # no temporary left
    assert bed.main(argv + ["--html", str(tmp_path / "p.txt")]) == 2
    assert "ending in .html" in capsys.readouterr().err


def test_markdown_plan_is_a_table(capsys):
    assert bed.main(["plan", "--acc-a", "0.72", "--acc-b", "0.76",
                     "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "```" not in out
    assert "| n | exact power | smallest detectable gap |" in out


@pytest.mark.slow
def test_a_million_items_make_a_small_page(capsys, tmp_path):
    import random
    rng = random.Random(5)
    paths = []
    for name, p in (("a.jsonl", 0.7), ("b.jsonl", 0.71)):
        path = tmp_path / name
        with open(path, "w") as f:
            for i in range(10 ** 6):
                f.write(json.dumps({"id": i, "acc": int(rng.random() < p),
                                    "ms": round(rng.gauss(200, 30), 1)})
                        + "\n")
        paths.append(str(path))
    out, reader = page_of(capsys, ["compare", *paths, "--quiet"])
    assert len(out.encode()) < 2 * 10 ** 6


def test_check_page_shows_its_profile_and_commands_as_tables(capsys):
    # check's page: the problems where a verdict stands, each input's
    # fields and the commands as tables (not its text in a <pre> block),
    # the same fields and commands its text report prints.
    argv = ["check", example("base.jsonl"), example("cand.jsonl")]
    assert bed.main(argv + ["--format", "html"]) == 0
    out = capsys.readouterr().out
    reader = _Page()
    reader.feed(out)
    reader.close()
    assert reader.stack == [] and "<pre" not in out
    assert reader.order == ["verdict", "table", "table", "table"]
    assert "<h2>Problems</h2>" in out
    assert "<th>field</th><th>type</th><th>values</th>" in out
    assert "<th>command</th><th>answers</th>" in out
    assert bed.main(argv) == 0
    text = capsys.readouterr().out
    commands = [line.strip() for line in text.split("\n")
                if line.startswith("  ") and " compare " in line]
    body = "".join(reader.text)
    assert commands and all(c in body for c in commands)
    fields = [line.split()[0] for line in text.split("\n")[4:9]]
    assert fields == ["id", "subject", "passage_id", "acc", "latency"]
    assert all(f"<tr><td>{f}</td>" in out for f in fields)


def test_the_tables_caption_names_the_adjustment_used(capsys):
    # The caption said "p (Holm): ..." whatever --adjust was, over a
    # column headed "p (BH)"; it is now the text report's note.
    out, reader = page_of(capsys, ["compare", example("base.jsonl"),
                                   example("cand.jsonl"), "--resamples",
                                   "200", "--adjust", "bh"])
    caption = out.split('<p class="caption">')[1].split("</p>")[0]
    assert caption.startswith("p (BH): each p BH-adjusted (Benjamini-"
                              "Hochberg) across 2 metrics, the verdicts")
    assert "<th>p (BH)</th>" in out and "p (Holm)" not in out
