"""Golden outputs: the text and markdown of one compare, one rank and one
plan, as they print, so that a change of wording is a reviewed change.

    GOLDEN_WRITE=1 python3 -m pytest tests/test_golden.py   # after review

rewrites tests/golden/ from the current module.
"""
import os

import pytest

import bootstrap_eval_deltas as bed

TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir)
GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden")
EX = "datasets/examples/"
CASES = {
    "compare": ["compare", EX + "base.jsonl", EX + "cand.jsonl",
                "--resamples", "500"],
    "compare-verbose": ["compare", EX + "base.jsonl", EX + "cand.jsonl",
                        "--resamples", "500", "--verbose"],
    "rank": ["rank", EX + "base.jsonl", EX + "cand.jsonl", EX + "cand2.jsonl",
             EX + "cand3.jsonl", "--names", "A,B,C,D", "--metric", "acc",
             "--resamples", "500"],
    "plan": ["plan", "--acc-a", "0.72", "--acc-b", "0.76", "--corr", "0.6"],
}


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_golden_output(capsys, monkeypatch, name, fmt):
    monkeypatch.chdir(TOP)
    assert bed.main(CASES[name] + ["--format", fmt]) == 0
    out = capsys.readouterr().out
    path = os.path.join(GOLDEN, f"{name}.{'md' if fmt == 'markdown' else 'txt'}")
    if os.environ.get("GOLDEN_WRITE"):
        with open(path, "w") as f:
            f.write(out)
    with open(path) as f:
        assert out == f.read(), f"{path} differs: review, then GOLDEN_WRITE=1"
