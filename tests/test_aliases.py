"""Metrics equal on every item (HELM's exact_match family, lm-eval's acc
and acc_norm where they agree) are one row and one test; and best-of
reads every metric, not only the first."""
import json
import os

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, os.pardir, "datasets", "examples")


def test_best_of_joins_every_metric_not_only_the_first(capsys):
    # The runs were opened once for every metric: the second metric read
    # no records and was said not to join ('no id in common').
    runs = [os.path.join(EXAMPLES, f) for f in ("base.jsonl", "cand.jsonl",
                                                "cand2.jsonl")]
    assert bed.main(["compare", *runs, "--metric", "acc", "--metric",
                     "latency", "--resamples", "200"]) == 0
    out = capsys.readouterr().out
    assert "best of 2 on acc: " in out and "best of 2 on latency: " in out
    assert "do not join" not in out
