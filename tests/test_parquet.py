"""Input: Parquet, and lighteval's details read through it.

Every file here is written by pyarrow (a test-only dependency: without it
these tests skip) and read back by the module's standard-library reader;
each value read is compared with what pyarrow reads.  The committed
fixtures in tests/fixtures/lighteval-runs/ were written the same way
(make_fixtures.py there).
"""
import glob
import json
import os
import random

import pytest
from hypothesis import HealthCheck
from hypothesis import given
from hypothesis import settings
from hypothesis import strategies as st

import bootstrap_eval_deltas as bed
from test_readers import compare
from test_readers import fail
from test_readers import fixture

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

_FEW = settings(max_examples=10, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])


def read_all(path, columns=None):
    footer = bed._parquet_footer(str(path))
    names = columns or list(dict.fromkeys(
        p.split(".")[0] for p in footer.leaves))
    return bed._parquet_rows(footer, names)


# Columns of every shape lighteval writes: nullable doubles, int64, bool,
# strings, lists nested two deep with nulls at each level, a group of
# numbers (lighteval's metrics), a group holding a list, and a list of
# null type (lighteval's pred_logits).
_DOUBLE = st.none() | st.floats(allow_nan=False, width=64)
_TEXT = st.none() | st.text(max_size=6)
_ROW = st.fixed_dictionaries({
    "x": _DOUBLE,
    "n": st.none() | st.integers(-2 ** 63, 2 ** 63 - 1),
    "b": st.none() | st.booleans(),
    "s": _TEXT,
    "l": st.none() | st.lists(_TEXT, max_size=3),
    "ll": st.none() | st.lists(st.none() | st.lists(
        st.none() | st.integers(-5, 5), max_size=3), max_size=3),
    "metrics": st.none() | st.fixed_dictionaries({
        "acc": _DOUBLE, "em": st.none() | st.booleans(),
        "k": st.none() | st.integers(0, 9)}),
    "specifics": st.none() | st.fixed_dictionaries({
        "golds": st.none() | st.lists(_TEXT, max_size=2)}),
})
_SCHEMA = pa.schema([
    ("x", pa.float64()), ("n", pa.int64()), ("b", pa.bool_()),
    ("s", pa.string()), ("l", pa.list_(pa.string())),
    ("ll", pa.list_(pa.list_(pa.int64()))),
    ("metrics", pa.struct([("acc", pa.float64()), ("em", pa.bool_()),
                           ("k", pa.int64())])),
    ("specifics", pa.struct([("golds", pa.list_(pa.string()))])),
    ("nulls", pa.list_(pa.null())),
])


@_FEW
@given(rows=st.lists(_ROW, max_size=25),
       codec=st.sampled_from(["snappy", "gzip", "none"]),
       version=st.sampled_from(["1.0", "2.0"]),
       dictionary=st.booleans(), page=st.sampled_from([64, 1 << 20]),
       group=st.sampled_from([7, 1000]))
def test_every_value_read_is_pyarrows(tmp_path, rows, codec, version,
                                      dictionary, page, group):
    # Small pages and row groups put a column over several of each.
    for i, row in enumerate(rows):
        row["nulls"] = None if i % 3 == 0 else [None] * (i % 2)
    table = pa.Table.from_pylist(rows, schema=_SCHEMA)
    path = tmp_path / "t.parquet"
    pq.write_table(table, path, compression=codec, data_page_version=version,
                   use_dictionary=dictionary, data_page_size=page,
                   row_group_size=group)
    assert read_all(path) == pq.read_table(path).to_pydict()


def test_float_and_fixed_width_and_required_columns(tmp_path):
    table = pa.table({
        "f": pa.array([1.5, None, -2.25], pa.float32()),
        "i": pa.array([1, -2, 3], pa.int32()),
        "raw": pa.array([b"ab", None, b"\x00"], pa.binary()),
        "fixed": pa.array([b"abc", b"def", None], pa.binary(3)),
        "req": pa.array([1.0, 2.0, 3.0])})
    schema = table.schema.set(4, pa.field("req", pa.float64(), False))
    path = tmp_path / "t.parquet"
    pq.write_table(table.cast(schema), path, use_dictionary=False)
    assert read_all(path) == pq.read_table(path).to_pydict()


def test_columns_not_asked_for_are_never_decompressed(tmp_path):
    # The predictions' pages are overwritten with noise: the metrics still
    # read, and only asking for the predictions finds the damage.
    table = pa.table({"predictions": [["long answer " * 20]] * 50,
                      "metrics": [{"acc": float(i % 2)} for i in range(50)],
                      "example": [f"q{i}" for i in range(50)]})
    path = tmp_path / "details.parquet"
    pq.write_table(table, path, compression="snappy")
    meta = pq.ParquetFile(path).metadata.row_group(0)
    chunk = next(meta.column(i) for i in range(meta.num_columns)
                 if meta.column(i).path_in_schema.startswith("predictions"))
    data = bytearray(path.read_bytes())
    start = chunk.dictionary_page_offset or chunk.data_page_offset
    for at in range(start + 30, start + chunk.total_compressed_size):
        data[at] = 0x55
    path.write_bytes(bytes(data))
    got = read_all(path, ["metrics", "example"])
    assert got["metrics"] == table.column("metrics").to_pylist()
    with pytest.raises(bed.EvalDeltaError, match="column predictions"):
        read_all(path, ["predictions"])


@pytest.mark.parametrize("codec, name", [("zstd", "ZSTD"), ("lz4", "LZ4"),
                                         ("brotli", "BROTLI")])
def test_codecs_it_lacks_are_refused_naming_column_and_codec(
        capsys, tmp_path, codec, name):
    path = tmp_path / "details_t_2025-01-01T00-00-00.parquet"
    pq.write_table(pa.table({"example": ["a", "b"],
                             "metrics": [{"acc": 1.0}, {"acc": 0.0}]}),
                   path, compression=codec)
    err = fail(capsys, str(path), str(path))
    assert f"column metrics.acc: compressed with {name}, which this " \
        f"reader lacks" in err or f"column example: compressed with {name}" \
        in err


def test_an_encoding_it_lacks_is_refused_naming_it(capsys, tmp_path):
    path = tmp_path / "details.parquet"
    pq.write_table(pa.table({"example": ["a", "b"], "metrics": [
        {"k": 1}, {"k": 2}]}), path, use_dictionary=False,
        column_encoding={"metrics.k": "DELTA_BINARY_PACKED"})
    assert "column metrics.k: encoded with DELTA_BINARY_PACKED, which " \
        "this reader lacks" in fail(capsys, str(path), str(path))


def details(tmp_path, name="details.parquet", **how):
    path = tmp_path / name
    pq.write_table(pa.table({
        "example": [f"q{i}" for i in range(30)],
        "metrics": [{"acc": float(i % 2)} for i in range(30)]}), path, **how)
    return path


def test_corrupt_files_are_one_line(capsys, tmp_path):
    path = details(tmp_path, compression="gzip")
    data = path.read_bytes()
    length = int.from_bytes(data[-8:-4], "little")
    cases = {
        "bad.parquet": (b"PAR0" + data[4:], "not a Parquet file (no PAR1"),
        "cut.parquet": (data[:len(data) // 2], "not a Parquet file"),
        "long.parquet": (data[:-8] + (len(data)).to_bytes(4, "little")
                         + b"PAR1", "more than the file holds"),
        "varint.parquet": (data[:-8 - length] + b"\x15\xff\xff\xff"
                           + (4).to_bytes(4, "little") + b"PAR1",
                           "a varint runs off the end"),
    }
    meta = pq.ParquetFile(path).metadata.row_group(0).column(1)
    start = meta.dictionary_page_offset or meta.data_page_offset
    broken = bytearray(data)
    for at in range(start + 20, start + meta.total_compressed_size):
        broken[at] = 0
    cases["page.parquet"] = (bytes(broken), "column metrics.acc: a GZIP "
                             "page that does not decompress")
    for name, (content, said) in cases.items():
        (tmp_path / name).write_bytes(content)
        assert said in fail(capsys, str(tmp_path / name)), name




@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2 ** 32), where=st.sampled_from(
    ["footer", "pages", "cut", "anywhere"]),
    codec=st.sampled_from(["snappy", "gzip", "none"]),
    version=st.sampled_from(["1.0", "2.0"]))
def test_random_bytes_in_footer_and_pages(capsys, tmp_path, seed, where,
                                          codec, version):
    # Whatever the damage: a report, or one line and exit 2, never a
    # traceback or a hang.
    data = bytearray(details(tmp_path, compression=codec,
                             data_page_version=version).read_bytes())
    rng = random.Random(seed)
    length = int.from_bytes(data[-8:-4], "little")
    span = {"footer": (len(data) - 8 - length, len(data) - 8),
            "pages": (4, len(data) - 8 - length),
            "anywhere": (0, len(data))}.get(where)
    if span is None:
        data = data[:rng.randrange(len(data))]
    else:
        for _ in range(rng.randint(1, 6)):
            data[rng.randrange(*span)] = rng.randrange(256)
    path = tmp_path / "fuzzed.parquet"
    path.write_bytes(bytes(data))
    status = bed.main(["compare", str(path), str(path), "--resamples", "50"])
    out, err = capsys.readouterr()
    assert status in (0, 2), err
    if status == 2:
        assert out == "" and err.count("\n") == 1
        assert err.startswith("bootstrap-eval-deltas: error: ")


# lighteval ##################################################################

RUNS = fixture("lighteval-runs")


def results_of(run):
    (path,) = glob.glob(os.path.join(RUNS, run, "results", "*", "*", "*.json"))
    with open(path) as f:
        return next(v for k, v in json.load(f)["results"].items()
                    if k != "all")


def details_of(run):
    (path,) = glob.glob(os.path.join(RUNS, run, "details", "*", "*", "*",
                                     "*.parquet"))
    return path


@pytest.mark.parametrize("pair", [("model-a", "model-b"),
                                  ("older-base", "older-cand")])
def test_compare_gives_each_runs_results_json_means(capsys, pair):
    report = compare(capsys, *(os.path.join(RUNS, run) for run in pair))
    assert report["metrics"]
    for entry in report["metrics"]:
        for side, run in zip("ab", pair):
            for name in [entry["metric"], *entry.get("aliases", ())]:
                assert entry["observed"][side] == pytest.approx(
                    results_of(run)[name], abs=1e-12), name
    # The judge's score, null on some rows, is not compared unless named;
    # a metric equal to another on every item is one, its alias (issue 57).
    names = {name for e in report["metrics"]
             for name in [e["metric"], *e.get("aliases", ())]}
    assert names == ({"acc", "em", "tokens"} if pair[0] == "model-a"
                     else {"acc", "pass@1:4_samples"})


def test_rank_gives_each_runs_results_json_mean(capsys):
    runs = ["model-a", "model-b", "model-c"]
    status = bed.main(["rank", *(os.path.join(RUNS, r) for r in runs),
                       "--metric", "acc", "--json", "--resamples", "100"])
    out, err = capsys.readouterr()
    assert status == 0, err
    got = {s["name"]: s["mean"] for s in json.loads(out)["systems"]}
    assert got == pytest.approx({r: results_of(r)["acc"] for r in runs},
                                abs=1e-12)


def test_fixtures_read_as_pyarrow_reads_them():
    for run in ("model-a", "model-b", "model-c", "older-base"):
        path = details_of(run)
        assert read_all(path) == pq.read_table(path).to_pydict(), run


def test_items_are_named_by_their_text_and_checked_by_their_gold(capsys,
                                                                   tmp_path):
    source = bed._open_source(details_of("older-base"))
    records = [r for _, batch in source.batches for r in batch]
    table = pq.read_table(details_of("older-base")).to_pylist()
    assert len(records) == len({r["example"] for r in table}) == 20
    assert source.identity == ("item_hash",)
    assert "each is named by a hash of its example's text" in " ".join(
        source.notes)
    # The newer layout's doc.id names its items.
    newer = bed._open_source(details_of("model-a"))
    assert [r["id"] for _, b in newer.batches for r in b] == [
        str(i) for i in range(40)]
    # One example twice with two golds: two items one text cannot name.
    path = tmp_path / "details_t_2025-01-01T00-00-00.parquet"
    pq.write_table(pa.table({"example": ["q", "q"], "gold": [["1"], ["2"]],
                             "metrics": [{"acc": 1.0}, {"acc": 0.0}]}), path)
    assert "row 2: the example of row 1 again, with a different gold" in \
        fail(capsys, str(path), str(path))


def encode_hybrid(runs, width):
    """The RLE / bit-packed hybrid, written the plain way: each run
    ('rle', value, n) or ('packed', values), values a multiple of 8."""
    out = bytearray()

    def varint(x):
        while x >= 128:
            out.append(x & 127 | 128)
            x >>= 7
        out.append(x)
    for run in runs:
        if run[0] == "rle":
            varint(run[2] << 1)
            out += run[1].to_bytes((width + 7) // 8, "little")
        else:
            varint(len(run[1]) // 8 << 1 | 1)
            bits = sum(v << (i * width) for i, v in enumerate(run[1]))
            out += bits.to_bytes(len(run[1]) * width // 8, "little")
    return bytes(out)


@settings(max_examples=20, deadline=None)
@given(width=st.integers(1, 24), data=st.data())
def test_levels_and_indices_decode_as_encoded(width, data):
    # Bit-packed runs far longer than writers make (they stop at 504
    # values) decode as written, in linear time.
    values = st.integers(0, (1 << width) - 1)
    runs = data.draw(st.lists(
        st.tuples(st.just("rle"), values, st.integers(1, 700))
        | st.tuples(st.just("packed"), st.lists(values, min_size=1,
                                                max_size=1500).map(
            lambda v: v + v[:1] * (-len(v) % 8))), min_size=1, max_size=4))
    want = [v for run in runs for v in (
        [run[1]] * run[2] if run[0] == "rle" else run[1])]
    data = encode_hybrid(runs, width)
    assert bed._hybrid(data, 0, len(data), width, len(want), "") == want


def test_a_folder_of_tasks_reads_one_or_all_as_subsets(capsys, tmp_path):
    # details/<model>/<date>/ holding two tasks: one named with --task, or
    # both with --by task; a results file that is not JSON is not quoted.
    runs = []
    for run in ("model-a", "model-b"):
        source = details_of(run)
        folder = tmp_path / run / os.path.basename(os.path.dirname(source))
        folder.mkdir(parents=True)
        name = os.path.basename(source)
        for task in ("arc:easy", "arc:hard"):
            (folder / name.replace("arc:easy", task)).write_bytes(
                open(source, "rb").read())
        stamp = bed._details_task(name)[1]
        (folder / f"results_{stamp}.json").write_text("{not json")
        runs.append(str(tmp_path / run))
    assert "2 tasks in this lighteval directory" in fail(capsys, *runs)
    one = compare(capsys, *runs, "--task", "lighteval|arc:hard|0")
    both = compare(capsys, *runs, "--by", "task")
    assert one["n_items"] == 40 and both["n_items"] == 80
    assert bed.main(["compare", *runs, "--task", "lighteval|arc:easy|0",
                     "--resamples", "50"]) == 0
    assert "is not readable JSON, so not quoted" in capsys.readouterr().out
