"""Budgets against hostile files (issue 62): what a Parquet file or one
JSON document may decode to, MemoryError named with its file, check
linear in a table's columns, and outputs that never replace an input, a
symlink's target, a non-regular file or a read-only one.

The Parquet files here are written by hand (Thrift's compact protocol,
apache/parquet-format's parquet.thrift) so that they can lie: a few
bytes of RLE claiming a million rows, a dictionary claiming more entries
than its file can hold, a page claiming more bytes than its codec can
inflate to.  No pyarrow is needed.
"""
import gzip
import json
import os
import stat
import struct
import zlib

import pytest

import bootstrap_eval_deltas as bed


def fail(capsys, *argv):
    """Run main; assert one line on stderr, nothing on stdout, exit 2."""
    status = bed.main(list(argv))
    out, err = capsys.readouterr()
    assert status == 2, (status, err)
    assert out == "" and err.count("\n") == 1, err
    assert err.startswith("bootstrap-eval-deltas: error: ")
    return err


# A Thrift compact-protocol writer: just what a Parquet footer and page
# headers take.  A struct is a list of (field id, type, value): type 5 an
# i32, 6 an i64 (zigzag varints), 8 binary, 9 a list (of (type, items)),
# 12 a struct.

def varint(x):
    out = bytearray()
    while x >= 128:
        out.append(x & 127 | 128)
        x >>= 7
    out.append(x)
    return bytes(out)


def zigzag(x):
    return varint((x << 1) ^ (x >> 63))


def value(kind, v):
    if kind in (5, 6):
        return zigzag(v)
    if kind == 8:
        return varint(len(v)) + v
    if kind == 12:
        return thrift(v)
    if kind == 9:
        item, items = v
        head = (bytes([len(items) << 4 | item]) if len(items) < 15
                else bytes([0xF0 | item]) + varint(len(items)))
        return head + b"".join(value(item, x) for x in items)
    raise ValueError(kind)


def thrift(fields):
    out, last = bytearray(), 0
    for field, kind, v in fields:
        out.append((field - last) << 4 | kind)
        out += value(kind, v)
        last = field
    return bytes(out + b"\0")


def plain(values):
    """PLAIN values: byte strings, or floats as doubles."""
    return b"".join(struct.pack("<d", v) if isinstance(v, float)
                    else len(v).to_bytes(4, "little") + v for v in values)


def dictionary_page(entries, count=None, codec=0, size=None):
    """A PLAIN dictionary page: header and body."""
    body = plain(entries)
    stored = gzip.compress(body) if codec == 2 else body
    return thrift([(1, 5, 2), (2, 5, len(body) if size is None else size),
                   (3, 5, len(stored)),
                   (7, 12, [(1, 5, len(entries) if count is None
                             else count), (2, 5, 0)])]) + stored


def index_page(rows):
    """A data page of *rows* dictionary indices, all 0, in one RLE run
    (a required column: no levels)."""
    body = bytes([1]) + varint(rows << 1) + b"\0"
    return thrift([(1, 5, 0), (2, 5, len(body)), (3, 5, len(body)),
                   (5, 12, [(1, 5, rows), (2, 5, 8), (3, 5, 3),
                            (4, 5, 3)])]) + body


def plain_page(values):
    """A data page of PLAIN values (a required column)."""
    body = plain(values)
    return thrift([(1, 5, 0), (2, 5, len(body)), (3, 5, len(body)),
                   (5, 12, [(1, 5, len(values)), (2, 5, 0), (3, 5, 3),
                            (4, 5, 3)])]) + body


def parquet(path, columns, rows, codec=0):
    """Write a Parquet file of lighteval's details: *columns* maps
    'example' and 'metrics.acc' (both required: byte strings and
    doubles) to their pages' bytes; every chunk declares *rows* values."""
    data, chunks = bytearray(b"PAR1"), []
    for name, pages in columns.items():
        start = len(data)
        data += pages
        chunks.append([(2, 6, start), (3, 12, [
            (1, 5, 6 if name == "example" else 5), (2, 9, (5, [0, 3, 8])),
            (3, 9, (8, [p.encode() for p in name.split(".")])),
            (4, 5, codec), (5, 6, rows), (6, 6, len(pages)),
            (7, 6, len(pages)), (9, 6, start)])])
    footer = thrift([
        (1, 5, 1),
        (2, 9, (12, [
            [(4, 8, b"schema"), (5, 5, 2)],
            [(1, 5, 6), (3, 5, 0), (4, 8, b"example"), (6, 5, 0)],
            [(3, 5, 0), (4, 8, b"metrics"), (5, 5, 1)],
            [(1, 5, 5), (3, 5, 0), (4, 8, b"acc")]])),
        (3, 6, rows),
        (4, 9, (12, [[(1, 9, (12, chunks)), (2, 6, len(data)),
                      (3, 6, rows)]]))])
    data += footer + len(footer).to_bytes(4, "little") + b"PAR1"
    path.write_bytes(bytes(data))
    return str(path)


def lying(tmp_path, rows, name="details_lighteval|t|0_2026-01-01.parquet"):
    """A file of a few hundred bytes whose pages claim *rows* rows: one
    example, one score, each repeated by an RLE run."""
    return parquet(tmp_path / name, {
        "example": dictionary_page([b"q"]) + index_page(rows),
        "metrics.acc": dictionary_page([1.0]) + index_page(rows)}, rows)


def test_parquet_claiming_a_million_rows_is_refused_before_decoding(
        capsys, tmp_path):
    # 10^6 rows from 200 bytes took 23 s and 1.2 GB; now one line, and
    # the option that reads it anyway.
    path = lying(tmp_path, 10 ** 6)
    assert os.path.getsize(path) < 400
    err = fail(capsys, "compare", path, path)
    assert (f"{path}: column example: the 2 columns read declare "
            f"2,000,000 values, more than a file of ") in err
    assert "--max-inflate" in err


def test_parquet_within_its_budget_reads_and_the_budget_scales(
        capsys, tmp_path, monkeypatch):
    # The same lie, small: under the floor it reads (one item, repeated);
    # with no floor and 2 values a byte, it is refused, and the
    # --max-inflate said, raising the values a byte in step, reads it.
    path = lying(tmp_path, 500)
    assert bed.main(["compare", path, path, "--quiet"]) == 0
    capsys.readouterr()
    monkeypatch.setattr(bed, "_PARQUET_LEAST", 0)
    monkeypatch.setattr(bed, "_PARQUET_PER_BYTE", 2)
    assert 1000 > 2 * os.path.getsize(path)
    err = fail(capsys, "compare", path, path)
    mb = int(err.rsplit("--max-inflate ", 1)[1].split()[0])
    assert bed.main(["compare", path, path, "--quiet", "--max-inflate",
                     str(mb)]) == 0
    capsys.readouterr()


def test_real_rows_read_where_the_bytes_hold_them(tmp_path, monkeypatch):
    # Rows whose bytes are there (each example its own text) read at any
    # size: the budget is relative to the file, not a count of rows.
    monkeypatch.setattr(bed, "_PARQUET_LEAST", 0)
    rows = 2000
    texts = [f"question {i}".encode() for i in range(rows)]
    path = parquet(tmp_path / "real.parquet", {
        "example": plain_page(texts),
        "metrics.acc": plain_page([1.0, 0.0] * (rows // 2))}, rows)
    got = bed._parquet_rows(bed._parquet_footer(path), ["example", "metrics"])
    assert got["example"] == [t.decode() for t in texts]
    assert got["metrics"] == [{"acc": 1.0}, {"acc": 0.0}] * (rows // 2)


def test_a_dictionary_or_a_page_that_claims_too_much_is_refused(
        capsys, tmp_path):
    # A dictionary page claiming 10^7 entries in a file of one row, and a
    # GZIP page claiming 200 MB from 30 bytes: refused before inflating.
    one = index_page(1)
    big = parquet(tmp_path / "dictionary.parquet", {
        "example": dictionary_page([b"q"], count=10 ** 7) + one,
        "metrics.acc": dictionary_page([1.0]) + one}, 1)
    err = fail(capsys, "compare", big, big, "--from-format", "lighteval")
    assert "column example: its chunks and a dictionary page declare " \
        "10,000,002 values, more than a file of" in err
    bomb = parquet(tmp_path / "page.parquet", {
        "example": dictionary_page([b"q"], codec=2, size=200 << 20) + one,
        "metrics.acc": dictionary_page([1.0], codec=2) + one}, 1, codec=2)
    err = fail(capsys, "compare", bomb, bomb, "--from-format", "lighteval")
    assert "column example: a page whose header says 209,715,200 bytes " \
        "uncompressed, more than its" in err and "of GZIP can hold" in err


# One JSON document ###########################################################

def test_a_json_array_is_read_a_batch_at_a_time(tmp_path, monkeypatch):
    # Records are parsed some at a time (a window of characters), never
    # the document whole; what the file says, and the errors, are those
    # of parsing it whole: cuts inside strings and nested objects ('},'
    # in a string, a list of objects) are no record's end.
    monkeypatch.setattr(bed, "_JSON_WINDOW", 40)
    monkeypatch.setattr(bed, "_BATCH", 3)
    records = [{"id": f"q{i}", "acc": i % 2, "note": "},{" * (i % 3),
                "list": [{"a": 1}, {"b": 2}][:i % 3]} for i in range(20)]
    parsed = []
    monkeypatch.setattr(bed.json, "loads", lambda *a, **k: parsed.append(1))
    for indent in (None, 2):
        path = tmp_path / "array.json"
        path.write_text(json.dumps(records, indent=indent))
        got = list(bed._json_array_rows(str(path), bed._lines(str(path))))
        assert [n for numbers, _ in got for n in numbers] == list(
            range(1, 21))
        assert [r for _, batch in got for r in batch] == records
        assert {len(batch) for _, batch in got} == {3, 2}
    assert parsed == []           # the whole-document parse never ran
    monkeypatch.undo()
    for text, said in (('[{"a": 1}, 7, {"b": 2}]', "record 2: expected a "
                        "JSON object"),
                       ('[{"a": 1}, {"b": 2},]', "malformed JSON"),
                       ('[{"a": 1}] [', "a second value begins here"),
                       ('{"a": [1]}', "expected a JSON array of objects")):
        path.write_text(text)
        with pytest.raises(bed.EvalDeltaError, match=said):
            list(bed._json_array_rows(str(path), bed._lines(str(path))))


def test_a_long_one_line_array_is_not_parsed_to_recognise_it(
        tmp_path, monkeypatch):
    # Recognising the format read a one-line file's first line whole and
    # parsed it, looking for an object: the whole array, once more.
    path = tmp_path / "array.json"
    path.write_text(json.dumps([{"id": f"q{i}", "acc": i % 2}
                                for i in range(5000)]))
    assert path.stat().st_size > bed._HEAD_SIZE

    def whole(*args):
        raise AssertionError("the first line was read whole")
    monkeypatch.setattr(bed, "_first_line", whole)
    run = bed._read_run(str(path))
    assert len(run.records) == 5000 and run.records[-1]["id"] == "q4999"


def test_memory_error_while_reading_is_one_line_naming_the_file(
        capsys, tmp_path, monkeypatch):
    # Where memory runs out anyway (a document parsed whole, a reader's
    # own lists), the file is named in one line, exit 2: no traceback.
    path = tmp_path / "base.jsonl"
    path.write_text('{"id": "q1", "acc": 1}\n{"id": "q2", "acc": 0}\n')

    def exhausted(*args, **kwargs):
        raise MemoryError
    monkeypatch.setattr(bed, "_json_rows", exhausted)
    err = fail(capsys, "compare", str(path), str(path))
    assert f"{path}: too large to read in the memory" in err
    monkeypatch.setattr(bed, "_Head", exhausted)       # check: refused
    assert bed.main(["check", str(path)]) == 1
    out, err = capsys.readouterr()
    assert f"{path}: too large to read in the memory" in out and err == ""


# check, linear in the columns ###############################################

class Name(str):
    """A field name that counts its comparisons: a header searched per
    field compares each name with every one before it."""
    compared = 0

    def __eq__(self, other):
        Name.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def test_check_compares_each_field_name_a_few_times_not_every_other(
        tmp_path):
    # 30 rows and 30,000 columns took 25 s (a search of the header per
    # field, of a tuple per metric); a few comparisons per field now.
    n = 500
    fields = [Name("id")] + [Name(f"m{j}") for j in range(n)]
    rows = [[f"q{i}"] + [str((i + j) % 2) for j in range(n)]
            for i in range(3)]
    path = str(tmp_path / "wide.csv")
    source = bed._Source(path=path, kind="csv", fields=fields,
                         first=dict(zip(fields, rows[0])), first_number=2,
                         batches=iter([([2, 3, 4], rows)]),
                         where=bed._line_place(path))
    Name.compared = 0
    profile = bed._profile_source(path, source, "table", "", bed._Options())
    assert len(profile.metrics) == n and profile.id_field == "id"
    assert Name.compared < 20 * n, Name.compared


# Outputs ####################################################################

def runs(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("id,acc\nq1,1\nq2,0\nq3,1\n")
    b.write_text("id,acc\nq1,1\nq2,1\nq3,1\n")
    return a, b


def refused(capsys, path, said, *argv):
    """Assert that main refuses in one line naming *said*, and leaves
    *path* as it was (its bytes, or where its link points)."""
    before = (os.readlink(path) if os.path.islink(path)
              else path.read_bytes() if path.is_file() else None)
    assert said in fail(capsys, *argv)
    assert before == (os.readlink(path) if os.path.islink(path)
                      else path.read_bytes() if path.is_file() else None)
    assert not [p for p in os.listdir(path.parent) if p.startswith(".tmp-")]


def test_an_output_never_replaces_an_input_of_its_run(capsys, tmp_path):
    # By name, by another name of the same file (a hard link), and a file
    # found in a folder given as a run (checked when the page is written).
    a, b = runs(tmp_path)
    page = tmp_path / "in.html"
    page.write_bytes(a.read_bytes())
    refused(capsys, page, f"--html {page}: an input of this run;",
            "compare", str(page), str(b), "--from-format", "table",
            "--html", str(page))
    os.link(a, tmp_path / "same.svg")
    refused(capsys, tmp_path / "same.svg", f"an input of this run (as {a})",
            "compare", str(a), str(b), "--plot", str(tmp_path / "same.svg"))
    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "results.html").write_bytes(a.read_bytes())
    status = bed.main(["compare", str(folder), str(b), "--html",
                       str(folder / "results.html")])
    out, err = capsys.readouterr()
    assert status == 2 and "an input of this run" in err
    assert (folder / "results.html").read_bytes() == a.read_bytes()


def test_an_output_never_replaces_a_link_a_fifo_or_a_read_only_file(
        capsys, tmp_path):
    a, b = runs(tmp_path)
    target = tmp_path / "kept.html"
    target.write_text("kept")
    os.symlink(target, tmp_path / "link.html")
    refused(capsys, tmp_path / "link.html", "a symbolic link, not a regular "
            "file", "compare", str(a), str(b), "--html",
            str(tmp_path / "link.html"))
    assert target.read_text() == "kept"
    if hasattr(os, "mkfifo"):
        os.mkfifo(tmp_path / "fifo.svg")
        refused(capsys, tmp_path / "fifo.svg", "a FIFO, not a regular file",
                "compare", str(a), str(b), "--plot", str(tmp_path / "fifo.svg"))
    locked = tmp_path / "locked.html"
    locked.write_text("kept")
    locked.chmod(0o444)
    refused(capsys, locked, "a read-only file", "compare", str(a), str(b),
            "--html", str(locked))
    locked.chmod(0o444)
    refused(capsys, locked, "--out ", "simulate", "--n-items", "20",
            "--replays", "2", "--resamples", "50", "--out", str(locked))
    # a writable page of an earlier run is replaced, as before
    page = tmp_path / "page.html"
    page.write_text("old")
    assert bed.main(["compare", str(a), str(b), "--html", str(page)]) == 0
    capsys.readouterr()
    assert page.read_text().startswith("<!DOCTYPE html>")
