"""Input: which fields are metrics, odd bytes and values, standard input.

Every reader gets random bytes, JSON values and CSV cells (hypothesis),
in plain files, gzip streams and Inspect archives, and every preference
shape random values: exit 0 with a report, or exit 2 with one line on
stderr, never a traceback.  A stream or member inflating past the limit
is one line too.
"""
import gzip
import io
import json
import os
import unittest.mock
import zipfile

import pytest
from hypothesis import HealthCheck
from hypothesis import example
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed


def run(capsys, *argv):
    """compare *argv*, at 400 resamples unless they name a count (the
    suite's CPU; what the reports say does not hang on the count)."""
    extra = [] if "--resamples" in argv else ["--resamples", "400"]
    status = bed.main(["compare", *argv, *extra])
    out, err = capsys.readouterr()
    return status, out, err


def jsonl(tmp_path, name, rows):
    path = tmp_path / name
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return str(path)


# Which fields are metrics ###############################################

def test_index_label_and_length_fields_are_not_metrics(capsys, tmp_path):
    # An index (sample), a label and a length once became metrics and
    # entered the Holm family; they are read, named, and not compared.
    rows = [{"id": i, "sample": i, "label": i % 2, "prediction": 1,
             "length": 10 + i, "correct": i % 3 == 0} for i in range(30)]
    a = b = jsonl(tmp_path, "a.jsonl", rows)
    status, out, err = run(capsys, a, b, "--json", "--resamples", "50")
    report = json.loads(out)
    assert status == 0 and [e["metric"] for e in report["metrics"]] == [
        "correct"]
    assert any("sample (an index), label (a label), prediction (a label), "
               "length (a length)" in line for line in report["reading"])
    status, out, _ = run(capsys, a, b, "--metric", "length", "--json",
                         "--resamples", "50")
    assert status == 0 and json.loads(out)["metrics"][0]["metric"] == \
        "length"


def test_latency_is_lower_is_better_and_gates(capsys, tmp_path):
    # A slowdown with p = 1e-17 once passed --fail-on worse: nothing said
    # lower is better.  The name says so now, and the report says it did.
    a = jsonl(tmp_path, "a.jsonl", [{"id": i, "latency_ms": 100 + i % 7}
                                    for i in range(60)])
    b = jsonl(tmp_path, "b.jsonl", [{"id": i, "latency_ms": 130 + i % 5}
                                    for i in range(60)])
    status, out, err = run(capsys, a, b, "--fail-on", "worse",
                           "--resamples", "200")
    assert status == 1 and "latency_ms (lower better)" in out
    assert "latency_ms: lower is better, as its name says" in out
    assert "--fail-on worse: latency_ms is worse" in err
    status, out, err = run(capsys, a, b, "--fail-on", "worse",
                           "--higher-is-better", "latency_ms",
                           "--resamples", "200")
    assert status == 0 and "as its name says" not in out
    assert bed._lower_is_better("cost_usd") and bed._lower_is_better("loss")
    assert not bed._lower_is_better("tokens_per_second")
    assert not bed._lower_is_better("exact_match")


def test_missing_values_left_out_with_allow_partial(capsys, tmp_path):
    # A null value is an error naming its line, or with --allow-partial
    # its item is left out and counted (it could not be left out before).
    a = jsonl(tmp_path, "a.jsonl", [{"id": i, "m": None if i == 4 else i % 2}
                                    for i in range(20)])
    b = jsonl(tmp_path, "b.jsonl", [{"id": i, "m": 1} for i in range(20)])
    status, out, err = run(capsys, a, b, "--metric", "m")
    assert status == 2 and f"{a}:5: m: missing value; --allow-partial" in err
    status, out, err = run(capsys, a, b, "--metric", "m", "--allow-partial",
                           "--json", "--resamples", "50")
    report = json.loads(out)
    assert status == 0 and report["n_items"] == 19
    assert f"{a}: 1 record missing a value left out (--allow-partial)" in \
        report["reading"]
    assert report["metrics"][0]["observed"]["a"] == 10 / 19   # odd ids


@pytest.mark.parametrize("word", ["NA", "N/A", "nan", "NaN", "null",
                                  "None", ""])
def test_missing_values_spelled_as_words(capsys, tmp_path, word):
    # Issue 45: NA was refused even with --allow-partial, quoted back as
    # 'na'; a blank cell left out was counted as an id in one run only.
    a = tmp_path / "a.csv"
    a.write_text("id,m\n" + "".join(f"{i},{word if i == 3 else i % 2}\n"
                                    for i in range(12)))
    b = tmp_path / "b.csv"
    b.write_text("id,m\n" + "".join(f"{i},1\n" for i in range(12)))
    status, _, err = run(capsys, str(a), str(b))
    quoted = f" ({word!r})" if word else ""
    assert status == 2 and f"a.csv:5: m: missing value{quoted}; " \
        f"--allow-partial leaves out" in err
    for order in ((a, b), (b, a)):
        status, out, err = run(capsys, *map(str, order), "--allow-partial",
                               "--json", "--resamples", "50")
        report = json.loads(out)
        assert status == 0 and report["n_items"] == 11, err
        assert report["dropped_ids"] == 0
        assert f"{a}: 1 record missing a value left out (--allow-partial)" \
            in report["reading"]
        assert not any("lacks" in line for line in report["reading"])


def test_a_word_that_is_no_number_is_quoted_as_written(capsys, tmp_path):
    a = jsonl(tmp_path, "a.jsonl", [{"id": i, "m": "Yes!" if i else 1}
                                    for i in range(3)])
    status, _, err = run(capsys, a, a, "--metric", "m")
    assert status == 2 and "m: not a number: 'Yes!'" in err


def test_csv_headers_stripped_and_semicolons_read(capsys, tmp_path):
    spaced = tmp_path / "spaced.csv"
    spaced.write_text("id, model a, model b\n1,1,0\n2,0,1\n3,1,1\n")
    status, out, err = run(capsys, str(spaced), "--a-col", "model a",
                           "--b-col", "model b", "--resamples", "50")
    assert status == 0 and "3 items" in out, err
    semi = tmp_path / "semi.csv"
    semi.write_text("id;a;b\n1;1;0\n2;0;1\n3;1;1\n")
    status, out, err = run(capsys, str(semi), "--a-col", "a", "--b-col",
                           "b", "--resamples", "50")
    assert status == 0 and "columns separated by ';'" in out, err



def test_metric_missing_in_the_first_record_is_not_dropped(capsys, tmp_path):
    # f1 is null in the baseline's first line: the metric set once came
    # from that line alone, and f1 vanished with exit 0.
    base = [{"id": i, "acc": i % 2, "f1": None if i == 0 else i / 10}
            for i in range(10)]
    cand = [{"id": i, "acc": 1, "f1": i / 9} for i in range(10)]
    a, b = jsonl(tmp_path, "a.jsonl", base), jsonl(tmp_path, "b.jsonl", cand)
    status, out, err = run(capsys, a, b, "--resamples", "50")
    assert status == 2 and out == ""
    assert err.startswith(f"bootstrap-eval-deltas: error: {a}:1: f1 is "
                          f"missing here but a number at {b}:1")
    base[0]["f1"] = 0.0
    base[5]["f1"] = None
    a = jsonl(tmp_path, "a.jsonl", base)
    status, out, err = run(capsys, a, b, "--resamples", "50")
    assert status == 2 and err.strip().endswith(
        f"{a}:6: f1: missing value; --allow-partial leaves out the items "
        f"missing one, and counts them")


def test_metric_appearing_after_the_first_record_is_refused(capsys, tmp_path):
    base = [{"id": i, "acc": i % 2} for i in range(10)]
    base[7]["bleu"] = 0.5
    cand = [{"id": i, "acc": 1} for i in range(10)]
    a, b = jsonl(tmp_path, "a.jsonl", base), jsonl(tmp_path, "b.jsonl", cand)
    status, out, err = run(capsys, a, b, "--resamples", "50")
    assert status == 2 and out == ""
    assert f"{a}:8: bleu holds a number here but is missing at {a}:1" in err
    status, out, _ = run(capsys, a, b, "--metric", "acc", "--resamples", "50")
    assert status == 0                    # named metrics: bleu not asked for


def test_the_field_refused_is_the_first_met_on_every_run(capsys, tmp_path):
    # Several late fields at once: the one named is the first in the
    # record, not whichever a set of names (ordered by string hashes,
    # which change from run to run) happens to give first.
    late = [f"m{k}" for k in (7, 3, 9, 1, 5, 8, 2, 6)]
    base = [{"id": i, "acc": i % 2} for i in range(6)]
    base[4].update({name: 0.5 for name in late})
    cand = [{"id": i, "acc": 1} for i in range(6)]
    a, b = jsonl(tmp_path, "a.jsonl", base), jsonl(tmp_path, "b.jsonl", cand)
    status, _, err = run(capsys, a, b, "--resamples", "50")
    assert status == 2
    assert f"{a}:5: m7 holds a number here but is missing at {a}:1" in err


def test_a_field_null_first_and_text_later_is_no_metric(capsys, tmp_path):
    rows = [{"id": i, "acc": i % 2, "error": None if i else "timeout"}
            for i in range(12)]
    rows[0]["error"] = None
    rows[3]["error"] = "timeout"
    a = jsonl(tmp_path, "a.jsonl", rows)
    status, out, _ = run(capsys, a, a, "--json", "--resamples", "50")
    assert status == 0
    assert [e["metric"] for e in json.loads(out)["metrics"]] == ["acc"]


def test_labels_and_ids_are_not_metrics(capsys, tmp_path):
    # lm-eval lines: target "1" is a label, doc_id an id even where id is
    # the join key, and the line's own metrics list says what to compare.
    def rows(shift):
        return [{"id": f"q{i}", "doc_id": i, "target": "1",
                 "metrics": ["acc", "acc_norm"], "acc": (i + shift) % 2,
                 "acc_norm": float((i * shift) % 3 == 0), "prompt_len": 5}
                for i in range(40)]
    a = jsonl(tmp_path, "a.jsonl", rows(0))
    b = jsonl(tmp_path, "b.jsonl", rows(1))
    status, out, _ = run(capsys, a, b, "--json", "--resamples", "50")
    assert status == 0
    assert [e["metric"] for e in json.loads(out)["metrics"]] == ["acc",
                                                                 "acc_norm"]


def test_numeric_strings_in_json_are_labels_not_metrics(capsys, tmp_path):
    rows = [{"id": i, "target": str(i % 2), "acc": i % 2} for i in range(20)]
    a = jsonl(tmp_path, "a.jsonl", rows)
    status, out, _ = run(capsys, a, a, "--json", "--resamples", "50")
    assert [e["metric"] for e in json.loads(out)["metrics"]] == ["acc"]


def test_a_metric_in_one_run_only_is_refused(capsys, tmp_path):
    a = jsonl(tmp_path, "a.jsonl", [{"id": i, "acc": 1, "f1": 0.5}
                                    for i in range(10)])
    b = jsonl(tmp_path, "b.jsonl", [{"id": i, "acc": 0} for i in range(10)])
    status, _, err = run(capsys, a, b)
    assert status == 2
    assert f"{b}:1: f1 is missing here but a number at {a}:1" in err


def test_csv_column_empty_in_the_first_row_is_not_dropped(capsys, tmp_path):
    (tmp_path / "a.csv").write_text("id,acc,f1\n1,1,\n2,0,0.5\n3,1,0.25\n")
    (tmp_path / "b.csv").write_text("id,acc,f1\n1,1,0.5\n2,1,0.5\n3,0,0.5\n")
    a, b = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    status, _, err = run(capsys, a, b)
    assert status == 2 and f"{b}:2: f1 is" not in err
    assert f"{a}:2: f1 is missing here but a number at {b}:2" in err


# Values and places #######################################################

def test_underscores_are_text_not_digits(capsys, tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("item,system_a_correct,system_b_correct\n1,1_0,1\n")
    status, _, err = run(capsys, str(path))
    assert status == 2 and ":2: system_a_correct: not a number: '1_0'" in err


def test_missing_cluster_field_says_which_and_lists_fields(capsys, tmp_path):
    rows = [{"id": i, "acc": i % 2} for i in range(10)]
    a = jsonl(tmp_path, "a.jsonl", rows)
    status, _, err = run(capsys, a, a, "--cluster", "passage")
    assert status == 2
    assert err.strip().endswith(f"{a}:1: no cluster field 'passage' in this "
                                f"record; its fields are id, acc")
    status, _, err = run(capsys, a, a, "--id", "qid")
    assert status == 2 and "no id field 'qid' in this record" in err


def test_huge_values_do_not_overflow(capsys, tmp_path):
    path = tmp_path / "big.csv"
    path.write_text("item,system_a_correct,system_b_correct\n" + "".join(
        f"{i},{(i % 7) * 1e300},{(i % 5) * 1.5e300}\n" for i in range(30)))
    status, out, err = run(capsys, str(path), "--resamples", "50")
    assert status == 0 and err == ""
    assert "e+300" in out


def test_tiny_alpha_in_compare(capsys, tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("item,system_a_correct,system_b_correct\n" + "".join(
        f"{i},{i % 2},{i % 3 == 0:d}\n" for i in range(40)))
    status, out, err = run(capsys, str(path), "--alpha", "1e-16",
                           "--resamples", "50")
    assert status == 0 and err == ""
    assert "that takes 55 items at least" in out


def test_standard_input_as_a_run(capsys, tmp_path, monkeypatch):
    rows = [{"id": i, "m": i % 2} for i in range(30)]
    b = jsonl(tmp_path, "b.jsonl", rows)
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    monkeypatch.setattr(bed.sys, "stdin",
                        io.TextIOWrapper(io.BytesIO(data)))
    status, out, _ = run(capsys, "-", b, "--resamples", "50")
    assert status == 0 and out.startswith("baseline: -   candidate: ")


# Fuzz: never a traceback #################################################

def _outcome(capsys, path, other=None, extra=()):
    argv = ["compare", path] + ([other] if other else []) + [
        "--resamples", "41", *extra]
    try:
        status = bed.main(argv)
    except SystemExit as stop:                       # argparse only
        status = stop.code
    out, err = capsys.readouterr()
    assert status in (0, 2), (status, err)
    if status == 2:
        assert out == "" and err.count("\n") == 1
        assert err.startswith("bootstrap-eval-deltas: error: ")
    else:
        assert out and err == ""


_FUZZ = settings(max_examples=12, deadline=None,
                 suppress_health_check=[HealthCheck.function_scoped_fixture])


@_FUZZ
@given(data=st.binary(max_size=200),
       name=st.sampled_from(["x.csv", "x.jsonl", "x.json", "x.tsv", "x",
                             "x.eval", "x.parquet"]),
       prefix=st.sampled_from([b"", b"PK\x03\x04", b"PAR1", b"{\n",
                               b'{"doc_id": 1, "filter": "a"}\n',
                               b'{"spec": {}}\n', b'[{"instance_id": 1, '
                               b'"stats": []}]']))
def test_random_bytes(capsys, tmp_path, data, name, prefix):
    path = tmp_path / name
    path.write_bytes(prefix + data)
    _outcome(capsys, str(path))
    _outcome(capsys, str(path), str(path))


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-10 ** 20, 10 ** 20)
    | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6)


@_FUZZ
@given(rows=st.lists(st.fixed_dictionaries(
    {"id": st.integers(0, 6) | st.text(max_size=2)},
    optional={"m": _JSON, "s": _JSON, "c": _JSON}), min_size=1, max_size=8),
    cluster=st.booleans())
def test_random_json_values(capsys, tmp_path, rows, cluster):
    path = tmp_path / "r.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    extra = ["--cluster", "c"] if cluster else []
    _outcome(capsys, str(path), str(path), extra)
    array = tmp_path / "r.json"
    array.write_text(json.dumps(rows))
    _outcome(capsys, str(array), str(path), extra)


_CELL = st.sampled_from(["0", "1", "0.5", "", "x", "nan", "1e999", "-0",
                         "1_0", " 2 ", "true", "1e155", '"', "\t", "0.1"])


@_FUZZ
@given(cells=st.lists(st.tuples(_CELL, _CELL), min_size=0, max_size=12))
def test_random_csv_cells(capsys, tmp_path, cells):
    path = tmp_path / "w.csv"
    path.write_text("item,system_a_correct,system_b_correct\n" + "".join(
        f"{i},{a},{b}\n" for i, (a, b) in enumerate(cells)))
    _outcome(capsys, str(path))
    _outcome(capsys, str(path), extra=["--metric-type", "correct=binary"])


@_FUZZ
@given(values=st.lists(st.tuples(_JSON, _JSON, _JSON), min_size=1,
                       max_size=5),
       shape=st.sampled_from(["inspect", "lm-eval", "helm", "openai-evals",
                              "document", "promptfoo", "deepeval",
                              "opencompass"]))
def test_random_values_in_each_frameworks_shape(capsys, tmp_path, values,
                                                shape):
    if shape == "inspect":
        doc = {"eval": {}, "samples": [
            {"id": i, "epoch": e, "scores": {"s": {"value": v}}}
            for i, (v, e, _) in enumerate(values)]}
        text, name = json.dumps(doc, indent=1), "log.json"
    elif shape == "lm-eval":
        text = "".join(json.dumps({"doc_id": d, "filter": f, "metrics": ["m"],
                                   "m": v}) + "\n" for v, d, f in values)
        name = "samples_t.jsonl"
    elif shape == "helm":
        text = json.dumps([{"instance_id": i, "stats": s, "x": v}
                           for i, (v, s, _) in enumerate(values)])
        name = "per_instance_stats.json"
    elif shape == "openai-evals":
        text = json.dumps({"spec": {}}) + "\n" + "".join(
            json.dumps({"sample_id": i, "type": t, "data": d}) + "\n"
            for d, i, t in values)
        name = "record.jsonl"
    elif shape == "promptfoo":
        text = json.dumps({"results": {"results": [
            {"testIdx": t, "provider": p, "success": v, "namedScores": v,
             "failureReason": t} for v, t, p in values]}}, indent=1)
        name = "results.json"
    elif shape == "deepeval":
        text = json.dumps({"testCases": [
            {"name": n, "metricsData": m} for m, n, _ in values]}, indent=1)
        name = "test_run.json"
    elif shape == "opencompass":
        text = json.dumps({"details": [
            {"example_abbr": a, "correct": c} for c, a, _ in values]},
            indent=1)
        name = "gsm8k.json"
    else:
        text = json.dumps({"meta": 1, "r": [{"id": i, "m": v}
                                            for i, (v, _, _) in
                                            enumerate(values)]}, indent=1)
        name = "doc.json"
    path = tmp_path / name
    path.write_text(text)
    _outcome(capsys, str(path), str(path))
    if shape == "document":
        _outcome(capsys, str(path), str(path), ["--records", "r"])


_PREFERENCE_SHAPES = {
    "annotations.json": lambda v: json.dumps([
        {"instruction": i, "generator_1": "a", "generator_2": g,
         "output_1": "x", "output_2": "y", "preference": p}
        for i, (p, g, _) in enumerate(v)]),
    "arena-hard.jsonl": lambda v: "".join(json.dumps(
        {"question_id": i, "model": m, "games": [{"score": s}, {"score": s}]})
        + "\n" for i, (s, m, _) in enumerate(v)),
    "battles.json": lambda v: json.dumps([
        {"model_a": a, "model_b": "b", "winner": w, "question_id": i}
        for i, (w, a, _) in enumerate(v)]),
    "mt-bench.jsonl": lambda v: "".join(json.dumps(
        {"question_id": i, "model_1": "a", "model_2": m, "g1_winner": w,
         "g2_winner": w, "turn": 1}) + "\n" for i, (w, m, _) in enumerate(v)),
    "human_judgments.jsonl": lambda v: "".join(json.dumps(     # MT-Bench's
        {"question_id": i // 2, "model_a": "a", "model_b": m, "winner": w,
         "judge": "expert_0", "turn": t}) + "\n"
        for i, (w, m, t) in enumerate(v)),
}


@_FUZZ
@given(values=st.lists(st.tuples(_JSON, _JSON, _JSON), min_size=1,
                       max_size=5),
       name=st.sampled_from(sorted(_PREFERENCE_SHAPES)),
       command=st.sampled_from(["compare", "rank"]))
def test_random_values_in_each_preference_shape(capsys, tmp_path, values,
                                                name, command):
    path = tmp_path / name
    path.write_text(_PREFERENCE_SHAPES[name](values))
    try:
        status = bed.main([command, str(path), "--resamples", "41"])
    except SystemExit as stop:
        status = stop.code
    out, err = capsys.readouterr()
    assert status in (0, 2), (status, err)
    assert (err.count("\n") == 1 and not out) if status else out


@_FUZZ
@given(samples=st.lists(st.tuples(_JSON, _JSON), min_size=1, max_size=4),
       header=_JSON, lines=st.lists(_JSON, min_size=1, max_size=4))
def test_random_values_in_archives_and_gzip_streams(capsys, tmp_path,
                                                    samples, header, lines):
    eval_log = tmp_path / "log.eval"
    with zipfile.ZipFile(eval_log, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps(header))
        for i, (value, epoch) in enumerate(samples):
            archive.writestr(f"samples/{i}_epoch_1.json", json.dumps(
                {"id": i, "epoch": epoch, "scores": {"s": {"value": value}}}))
    _outcome(capsys, str(eval_log), str(eval_log))
    stream = tmp_path / "r.jsonl.gz"
    stream.write_bytes(gzip.compress("".join(
        json.dumps({"id": i, "m": v}) + "\n"
        for i, v in enumerate(lines)).encode()))
    _outcome(capsys, str(stream), str(stream))
    _outcome(capsys, str(stream)[:-3] + ".gz", str(stream))   # none there


# Compressed files that inflate past the limit ###########################

def _bomb_archive(tmp_path, big):
    """An Inspect .eval whose second sample inflates to *big* bytes."""
    path = tmp_path / "bomb.eval"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": {}}))
        for i, pad in ((0, ""), (1, " " * big)):
            archive.writestr(f"samples/{i}_epoch_1.json", json.dumps(
                {"id": i, "epoch": 1, "scores": {"s": {"value": 1}}}) + pad)
    return str(path)


def test_an_archive_member_inflating_past_the_limit_is_one_line(
        capsys, tmp_path):
    path = _bomb_archive(tmp_path, 3 << 20)
    assert os.path.getsize(path) < 20_000
    status, out, err = run(capsys, path, path, "--max-inflate", "2")
    assert status == 2 and not out and err.count("\n") == 1
    assert (f"{path}: its member samples/1_epoch_1.json inflates past 2 MB"
            in err and "--max-inflate 8 reads it" in err)
    status, out, err = run(capsys, path, path, "--max-inflate", "4")
    assert status == 0 and "2 items" in out


def test_a_gzip_stream_inflating_past_the_limit_is_one_line(capsys,
                                                            tmp_path):
    path = tmp_path / "r.jsonl.gz"
    rows = [{"id": i, "acc": i % 2, "pad": " " * (1 << 20)} for i in range(3)]
    path.write_bytes(gzip.compress("".join(
        json.dumps(r) + "\n" for r in rows).encode()))
    status, out, err = run(capsys, str(path), str(path), "--max-inflate", "2")
    assert status == 2 and not out and err.count("\n") == 1
    assert f"{path}: its gzip stream inflates past 2 MB" in err
    assert run(capsys, str(path), str(path))[0] == 0      # the default


def test_json_numbers_read_at_c_level_equal_the_checked_path(tmp_path):
    # Ints and floats (not bools), -0.0 made 0.0, refused as before when
    # not finite (1e999 parses as inf).
    path = tmp_path / "r.jsonl"
    rows = [{"id": i, "s": v} for i, v in enumerate([0.5, 2, -0.0, 1e300, 7])]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    source = bed._open_source(str(path))
    column = bed._Column(source, "s")
    records = [dict(r) for r in rows]
    fast = column.numbers(list(range(1, 6)), records)
    assert fast == [0.5, 2.0, 0.0, 1e300, 7.0]
    assert str(fast[2]) == "0.0"
    assert column._plain_numbers([1.0, True]) is None
    assert column._plain_numbers([1.0, float("inf")]) is None
    assert column._plain_numbers([10 ** 400]) is None


def test_an_optional_fields_absent_values_read_as_one_by_one(tmp_path):
    # An optional field (a human label) absent from most records is NaN,
    # remembered from the start: the values _number gives one by one, and
    # other spellings of a missing number still go through it.
    path = tmp_path / "r.jsonl"
    rows = [{"id": 0, "h": 1}, {"id": 1}, {"id": 2, "h": None},
            {"id": 3, "h": "NA"}, {"id": 4, "h": 0.5}, {"id": 5}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    column = bed._Column(bed._open_source(str(path)), "h", optional=True)
    plain = bed._Column(bed._open_source(str(path)), "h", optional=True)
    plain.known.clear()                 # nothing remembered: one by one
    raw = list(map(column.get, rows))
    got = column.numbers_of(list(range(1, 7)), raw)
    want = [plain._number(k, v) for k, v in enumerate(raw, 1)]
    assert [x if x == x else "nan" for x in got] == [
        x if x == x else "nan" for x in want] == [
        1.0, "nan", "nan", "nan", 0.5, "nan"]
    with pytest.raises(bed.EvalDeltaError, match=r"r.jsonl:2: h: missing value"):
        bed._Column(bed._open_source(str(path)), "h").numbers_of(
            [1, 2], [1, bed._MISSING])


def test_jsonl_chunks_parsed_whole_only_when_each_line_is_one_object():
    ok = ['{"id": 1, "s": [1, 2]}\n', '{"id": 2, "s": "x["}\r\n',
          '{"id": 3, "t": "}{"}']
    assert bed._joined_objects(ok[:1] + ok[2:]) == [
        {"id": 1, "s": [1, 2]}, {"id": 3, "t": "}{"}]
    assert bed._joined_objects(ok) is None     # a [ in a string: per line
    # an object spanning two lines, and two objects on one line, would
    # parse as an array of three: refused, so the line reader names them
    spanning = ['{"a": [{"b": 1}\n', '{"c": 2}]}\n', '{"d": 1}, {"e": 2}\n']
    assert bed._joined_objects(spanning) is None
    assert bed._joined_objects(['{"a": 1}\n', '\n']) is None
    assert bed._joined_objects(['[1]\n']) is None
    (nan,) = bed._joined_objects(['{"a": NaN}\n'])   # as Python writes it
    assert nan["a"] != nan["a"]
    # With no bracket in the chunk no array is open to span lines, and the
    # per-line counts are skipped (0.25 s of each 10^6-line file): flat
    # objects parse whole, as each line would alone.
    flat = ['{"id": "q%d", "score": 0.%d}\n' % (k, k) for k in range(50)]
    assert bed._joined_objects(flat) == [json.loads(line) for line in flat]
    assert bed._joined_objects(flat[:3] + ['}{"a": 1}\n']) is None


def test_a_spanning_object_is_an_error_at_its_line(capsys, tmp_path):
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": 1, "m": 1}\n{"id": 2, "m": [{"b": 1}\n'
                    '{"c": 2}]}\n{"id": 3, "m": 0}, {"id": 4, "m": 1}\n')
    assert bed.main(["compare", str(path), str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:2:" in err and err.count("\n") == 1


def test_integer_ids_read_as_their_text(tmp_path):
    # JSON integer ids (lm-eval's doc_id) take a C-level path: the same
    # labels as the item-by-item one, which bools and mixtures still take.
    path = tmp_path / "r.jsonl"
    path.write_text('{"id": 1}\n')
    column = bed._Column(bed._open_source(str(path)), "id", role="id")
    records = [{"id": v} for v in (0, 7, -3, 10 ** 20)]
    assert column.labels([1, 2, 3, 4], records) == ["0", "7", "-3",
                                                     str(10 ** 20)]
    mixed = [{"id": v} for v in (1, " a ", True, 2.5)]
    assert column.labels([1, 2, 3, 4], mixed) == ["1", "a", "True", "2.5"]


_ABSENT = object()     # a field the generated record leaves out


@pytest.mark.skipif(not bed._can_fork(), reason="needs fork")
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(runs=st.lists(st.lists(st.fixed_dictionaries({
    "id": st.integers(0, 4) | st.sampled_from(["a", " b"]),
    "m": st.sampled_from([0, 1, 0.5, _ABSENT]) | _JSON,
    "s": st.sampled_from([0, 1, _ABSENT]) | _JSON,
    "c": st.sampled_from("xy") | st.just(_ABSENT) | _JSON}).map(
        lambda row: {k: v for k, v in row.items() if v is not _ABSENT}),
    min_size=1, max_size=8, unique_by=lambda row: str(row["id"])),
    min_size=2, max_size=2),
    extra=st.sampled_from([[], ["--metric", "m"], ["--allow-partial"],
                           ["--metric", "m", "--cluster", "c"],
                           ["--stat", "f1(m,s)"], ["--stat", "ratio(m,s)"],
                           ["--stat", "pass@1(m)", "--allow-partial"]]))
@example(runs=[[{"id": 0, "m": 0, "s": 0}], [{"id": 0, "s": 0}]],
         extra=["--stat", "f1(m,s)"])          # a field the candidate lacks
@example(runs=[[{"id": 0, "m": 1}, {"id": 1, "m": 0}],
               [{"id": 0, "m": 1}, {"id": 1}]], extra=["--metric", "m"])
def test_a_helper_process_changes_nothing_in_any_outcome(capsys, tmp_path,
                                                         runs, extra):
    # Whatever two runs hold, the candidate parsed by a helper process
    # (any file counts as large here) gives the same report or the same
    # one-line error as one process does.
    paths = [jsonl(tmp_path, f"run{k}.jsonl", rows)
             for k, rows in enumerate(runs)]
    outcomes = []
    with unittest.mock.patch.object(bed, "_PREFETCH_BYTES", 0):
        for jobs in ("1", "2"):
            status = bed.main(["compare", *paths, "--resamples", "41",
                               "--jobs", jobs, *extra])
            outcomes.append((status, *capsys.readouterr()))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][0] in (0, 2)


def test_missing_values_left_out_are_counted_with_a_helper(capsys, tmp_path,
                                                           monkeypatch):
    # A candidate large enough for the helper process is read here when
    # --allow-partial leaves records out, so that they are counted.
    monkeypatch.setattr(bed, "_PREFETCH_BYTES", 1)
    a = jsonl(tmp_path, "a.jsonl", [{"id": i, "m": i % 2} for i in range(40)])
    b = jsonl(tmp_path, "b.jsonl", [{"id": i, "m": None if i % 10 == 3
                                     else 1} for i in range(40)])
    reports = []
    for jobs in ("1", "2"):
        status, out, err = run(capsys, a, b, "--metric", "m",
                               "--allow-partial", "--json", "--jobs", jobs,
                               "--resamples", "50")
        assert status == 0, err
        reports.append(json.loads(out))
    assert reports[0] == reports[1]
    assert f"{b}: 4 records missing a value left out (--allow-partial)" in \
        reports[1]["reading"] and reports[1]["n_items"] == 36


# One join, walked two ways ##############################################

@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(a_ids=st.lists(st.integers(0, 12), unique=True, max_size=10),
       b_ids=st.lists(st.integers(0, 12), unique=True, max_size=10),
       partial=st.booleans(), seed=st.integers(0, 99))
def test_the_streaming_join_and_the_many_run_join_agree(tmp_path, a_ids,
                                                        b_ids, partial,
                                                        seed):
    # compare streams the candidate past the held baseline; rank holds all
    # runs.  On the same two runs they keep the same items with the same
    # values, count the same ids left out, and refuse in the same words.
    import random
    rng = random.Random(seed)
    rows = [[{"id": f"q{i}", "s": rng.randint(0, 1)} for i in ids]
            for ids in (a_ids, b_ids)]
    tag = f"{seed}-{len(a_ids)}-{len(b_ids)}-{int(partial)}"
    paths = [jsonl(tmp_path, f"{side}{tag}.jsonl", r)
             for side, r in zip("ab", rows)]

    def outcome(read):
        try:
            return read()
        except bed.EvalDeltaError as exc:
            return str(exc)
    metric = bed._Metric("s", "s", "s")
    if not a_ids or not b_ids:
        return                          # an empty run is refused as such
    streamed = outcome(lambda: bed._read_tallies(
        *map(bed._open_source, paths), [metric],
        bed._Options(allow_partial=partial)))
    held = outcome(lambda: bed._read_joint(
        list(map(bed._open_source, paths)), metric, allow_partial=partial))
    if isinstance(streamed, str) or isinstance(held, str):
        assert streamed == held.replace("ranks the ids", "compares the ids")
        return
    (tallies, dropped), (joint, also) = streamed, held
    assert dict(tallies[0]) == dict(joint)
    assert dropped == also
    assert dropped.lacking == also.lacking


# The baseline's ids, held compactly ######################################

_ID_TEXT = st.text(alphabet="ab\né1", max_size=3)


@settings(max_examples=33, deadline=None)
@given(batches=st.lists(st.lists(_ID_TEXT, max_size=5), max_size=5),
       starts=st.lists(st.integers(-2, 30), min_size=2, max_size=6),
       other=st.lists(_ID_TEXT, max_size=4))
def test_the_id_list_reads_as_the_list_it_holds(batches, starts, other):
    # Each batch is one newline-joined str unless an id holds a newline;
    # slices, iteration and same() give what the plain list gives.
    ids, plain = bed._IdList(), []
    for batch in batches:
        ids.extend(batch)
        plain += batch
    assert len(ids) == len(plain) and list(ids) == plain
    for start, stop in zip(starts, starts[1:]):
        assert ids[start:stop] == plain[start:stop]
    again, cut = bed._IdList(), len(other)   # the same ids, cut elsewhere
    again.extend(plain[:cut])
    again.extend(plain[cut:])
    assert ids.matches(again) and again.matches(ids)
    changed = bed._IdList()
    changed.extend(plain[:cut] + other + plain[cut + len(other):])
    assert ids.matches(changed) == (list(changed) == plain)
    if len(set(plain)) == len(plain):     # a run's ids never repeat
        where, places = dict(zip(plain, range(len(plain)))), ids.positions()
        for item in plain + other + ["\n".join(plain)]:
            assert places.get(item) == where.get(item)
        assert places.where(plain + other) == list(map(where.get,
                                                       plain + other))
    for start in range(len(plain) + 2):
        for items in (plain[start:start + len(other)], other,
                      plain[start:start + len(batches[0])] if batches
                      else []):
            assert ids.same(start, items) == (
                plain[start:start + len(items)] == items)


@pytest.mark.parametrize("order", ["same", "reversed"])
def test_ids_holding_newlines_join_item_by_item(tmp_path, order):
    # A batch whose ids hold newlines is kept as a list; the join must
    # still pair each item with its own, in either candidate order.
    ids = ["a\nb", "a", "b", "c\nd", "d\nc", "c"]      # ids are stripped
    rows = [[{"id": i, "s": k % 2} for k, i in enumerate(ids)],
            [{"id": i, "s": int(k < 3)} for k, i in enumerate(ids)]]
    if order == "reversed":
        rows[1] = rows[1][::-1]
    paths = [jsonl(tmp_path, f"{side}.jsonl", r)
             for side, r in zip("ab", rows)]
    (tally,), dropped = bed._read_tallies(*map(bed._open_source, paths),
                                          [bed._Metric("s", "s", "s")])
    assert dict(tally) == {(0.0, 1.0): 2, (1.0, 1.0): 1, (0.0, 0.0): 1,
                           (1.0, 0.0): 2}
    assert dropped == 0


def test_record_numbers_past_four_bytes_widen_the_seen_array(tmp_path):
    # The candidate's line of each baseline item is kept in 4 bytes; a
    # record number past 2^32 must widen the array, not overflow it, and
    # a repeat there is still named at its own place.
    rows = [{"id": f"q{i}", "s": i % 2} for i in range(4)]
    paths = [jsonl(tmp_path, f"{side}.jsonl", rows) for side in "ab"]
    far = 1 << 33
    for tail in ([], [rows[1]]):
        cand = bed._open_source(paths[1])
        records = [record for _, batch in cand.batches for record in batch]
        records += tail
        cand = cand._replace(batches=iter([(
            list(range(far, far + len(records))), records)]))

        def read():
            return bed._read_tallies(bed._open_source(paths[0]), cand,
                                     [bed._Metric("s", "s", "s")])
        if not tail:
            (tally,), _ = read()
            assert dict(tally) == {(0.0, 0.0): 2, (1.0, 1.0): 2}
            continue
        with pytest.raises(bed.EvalDeltaError) as caught:
            read()
        assert f"{paths[1]}:{far + 4}: id 'q1' repeated (first at " \
            f"{paths[1]}:{far + 1})" in str(caught.value)


@settings(max_examples=13, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 12), runs=st.integers(2, 4), seed=st.integers(0, 99),
       by=st.booleans(), batch=st.sampled_from([2, 3, 4096]))
def test_runs_in_one_order_join_by_position_as_by_id(tmp_path, n, runs, seed,
                                                     by, batch):
    # rank's join pairs runs listing the same ids in the same order by
    # position, with no dict of ids; a run with its lines shuffled is
    # placed through the first run's dict of positions, and one with an
    # id of its own takes the full join: the tally must not change.
    import random
    rng = random.Random(seed)
    ids = [f"q{i}" for i in rng.sample(range(100), n)]
    tables = [[{"id": i, "s": rng.randint(0, 1), "t": f"t{rng.randint(0, 2)}"}
               for i in ids] for _ in range(runs)]
    tag = f"{seed}-{n}-{runs}-{batch}"
    ordered = [jsonl(tmp_path, f"o{k}-{tag}.jsonl", t)
               for k, t in enumerate(tables)]
    shuffled = ordered[:1] + [jsonl(tmp_path, f"s{k}-{tag}.jsonl",
                                    rng.sample(t, len(t)))
                              for k, t in enumerate(tables[1:], 1)]
    metric = bed._Metric("s", "s", "s")
    old = bed._BATCH
    bed._BATCH = batch                    # batches that line up or not
    try:
        got = [bed._read_joint(list(map(bed._open_source, paths)), metric,
                              by="t" if by else None)
               for paths in (ordered, shuffled)]
    finally:
        bed._BATCH = old
    (fast, none), (slow, also) = got
    assert fast == slow and none == also == 0 and none.lacking == {}
    # an id in one run only sends the join the dict-and-set way
    extra = jsonl(tmp_path, f"x-{tag}.jsonl", rng.sample(tables[-1], n)
                  + [{"id": "zz", "s": 1, "t": "t0"}])
    bed._BATCH = batch
    try:
        partial, dropped = bed._read_joint(
            list(map(bed._open_source, shuffled[:-1] + [extra])), metric,
            by="t" if by else None, allow_partial=True)
    finally:
        bed._BATCH = old
    assert partial == fast and dropped == 1
    expected = bed.collections.Counter(
        tuple(float(t[k]["s"]) for t in tables) for k in range(n))
    if by:
        assert sum(fast.values(), bed.collections.Counter()) == expected
    else:
        assert fast == expected


@settings(max_examples=20, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ids=st.lists(st.sampled_from(["a", "b", "c", "q1", "q10", "q2", "9",
                                     "10", "x y"]), min_size=1, max_size=12),
       batch=st.sampled_from([1, 2, 3, 4096]))
def test_the_first_repeated_baseline_id_is_named_as_a_dict_finds_it(
        tmp_path, ids, batch):
    # Once the baseline's ids stop rising they are checked in a table of
    # positions (_Positions), batch by batch: the repeat named is the first
    # a plain dict meets, with its first line.
    first, expected = {}, None
    for line, item in enumerate(ids, 1):
        if item in first:
            expected = (line, item, first[item])
            break
        first[item] = line
    tag = f"{batch}-{'_'.join(ids).replace(' ', '+')}"
    base = jsonl(tmp_path, f"a{tag}.jsonl", [{"id": i, "s": 1} for i in ids])
    cand = jsonl(tmp_path, f"b{tag}.jsonl",
                 [{"id": i, "s": 0} for i in dict.fromkeys(ids)])
    old = bed._BATCH
    bed._BATCH = batch
    try:
        bed._read_tallies(bed._open_source(base), bed._open_source(cand),
                          [bed._Metric("s", "s", "s")])
    except bed.EvalDeltaError as exc:
        line, item, at = expected
        assert str(exc) == (f"{base}:{line}: id {item!r} repeated (first "
                            f"at {base}:{at})")
    else:
        assert expected is None
    finally:
        bed._BATCH = old


# A leaderboard is not per-item results ##################################

def test_a_leaderboard_csv_is_refused_as_aggregates(capsys, tmp_path):
    # A row per model, a column per benchmark (as the Open LLM Leaderboard
    # exports): the advice was --a-col/--b-col, which would compare
    # aggregates as if models were items.
    board = tmp_path / "leaderboard.csv"
    board.write_text("Model,Average,ARC,MMLU\nm/a,67.3,67.3,69.8\n"
                     "m/b,60.9,59.9,64.1\nm/c,58.0,61.8,56.8\n")
    other = tmp_path / "other.csv"
    other.write_text("model_name,acc\na,0.8\nb,0.7\n")
    for argv in (["compare", str(board)], ["rank", str(board)],
                 ["compare", str(other), str(other)]):
        status = bed.main(argv)
        out, err = capsys.readouterr()
        assert status == 2 and not out and err.count("\n") == 1
        assert "a row per model" in err and "leaderboard's aggregate" in err
        assert "--a-col" not in err
    # Per-item results with a model column are not a leaderboard.
    rows = tmp_path / "long.csv"
    rows.write_text("question_id,model,score\n1,a,0.5\n")
    status = bed.main(["compare", str(rows)])
    assert status == 2 and "a row per model" not in capsys.readouterr().err


def test_alpaca_evals_leaderboard_is_refused_with_the_file_to_give(capsys):
    # Issue 45: AlpacaEval's leaderboard (models as pandas's unnamed index,
    # win_rate, standard_error, n_wins, n_total, ...) was "one run's
    # results" with advice to pass --a-col/--b-col, and following it
    # compared the models as items.
    board = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                         "fixtures", "alpaca-eval-leaderboard",
                         "weighted_alpaca_eval_gpt4_turbo_leaderboard.csv")
    for argv in (["compare", board], ["compare", board, board],
                 ["compare", board, "--a-col", "win_rate", "--b-col",
                  "length_controlled_winrate"], ["rank", board],
                 ["rank", board, "--systems", "win_rate,n_wins"]):
        status = bed.main(argv)
        out, err = capsys.readouterr()
        assert status == 2 and not out and err.count("\n") == 1, argv
        assert (f"{board}: a leaderboard: a row per model and aggregates "
                f"over the items (win_rate, standard_error, n_wins, "
                f"n_wins_base and 6 more)") in err
        assert "results/<model>/<annotator>/annotations.json" in err
        assert "--a-col" not in err
