"""Fuzz: mutants of the project's own fixtures, in every format the readers
take, run through main() in-process.

Whatever a file holds, a run ends in a normal answer (0, or 1 where check
refuses a file) or in ONE line on stderr and exit 2: never a traceback, a
defect's status (70) or a crash while printing, and no control or bidi
character from a file reaches the terminal raw.  The mutants are byte
flips, truncations and insertions anywhere, and, where the format is JSON
or a zip of JSON, field names and values holding escapes (ESC, BEL, NUL,
U+202E, U+2028, lone surrogates), JSON nested 100,000 deep, and archive
members with corrupt deflate data, the encryption flag or a compression
method Python has not.  The default run takes a few mutants of each
format; ``-m slow`` takes many more (the campaign in issue 62's note).
"""
import contextlib
import gzip
import io
import json
import os
import random
import re
import zipfile

import pytest

import bootstrap_eval_deltas as bed

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def _fixture(*parts):
    with open(os.path.join(HERE, "fixtures", *parts), "rb") as f:
        return f.read()


def _shipped(*parts):
    with open(os.path.join(ROOT, "datasets", *parts), "rb") as f:
        return f.read()


def _lines(data, n):
    """The first *n* lines of a line-based file (small seeds run fast)."""
    return b"".join(data.splitlines(keepends=True)[:n])


def _eval_log(name):
    """An Inspect .eval log (a zip of header.json and samples/*.json) of
    a fixture's .json log, as make_eval_log in test_readers writes it."""
    log = json.loads(_fixture("inspect", name))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("header.json", json.dumps({"eval": log["eval"]}))
        for s in log["samples"][:6]:
            archive.writestr(f"samples/{s['id']}_epoch_{s['epoch']}.json",
                             json.dumps(s))
    return buffer.getvalue()


def _seeds():
    """Return {format: (file name, bytes)}: one small file of each format
    the readers take, from the fixtures."""
    lighteval = ("lighteval-runs", "model-a", "details", "org", "model-a",
                 "2025-06-01T10-00-00.000001",
                 "details_lighteval|arc:easy|0_2025-06-01T10-00-00.000001"
                 ".parquet")
    eee = ("every-eval-ever", "ai2_arc", "ollama", "qwen2.5-0.5b",
           "75e7b3c4-5d2f-4526-aef0-9ccd88690f5a.jsonl")
    return {
        "csv": ("run.csv", _lines(_shipped("bootstrap-eval-deltas.csv"), 30)),
        "jsonl": ("run.jsonl", _lines(_shipped("examples", "base.jsonl"), 20)),
        "json": ("run.json", b"[" + b",".join(_lines(_shipped(
            "examples", "base.jsonl"), 20).splitlines()) + b"]"),
        "json-document": ("doc.json", _fixture("document", "base.json")),
        "jsonl.gz": ("run.jsonl.gz", gzip.compress(
            _lines(_shipped("examples", "base.jsonl"), 20), mtime=0)),
        "lm-eval": ("samples_boolq_2024-05-01T10-00-00.jsonl",
                    _fixture("lm-eval", "samples_boolq_base.jsonl")),
        "inspect": ("log.json", _fixture("inspect", "base.json")),
        "eval": ("log.eval", _eval_log("base.json")),
        "parquet": ("details.parquet", _fixture(*lighteval)),
        "helm": ("per_instance_stats.json",
                 _fixture("helm-items", "mmlu-anatomy-c",
                          "per_instance_stats.json")),
        "promptfoo": ("eval.json", _fixture("promptfoo", "eval-a.json")),
        "openai-evals": ("evals.jsonl",
                         _lines(_fixture("openai-evals", "base.jsonl"), 20)),
        "every-eval-ever": ("eee.jsonl", _lines(_fixture(*eee), 8)),
        "battles": ("battles.csv",
                    _lines(_fixture("preferences", "battles.csv"), 30)),
        "mt-bench": ("gpt-4_pair.jsonl",
                     _lines(_fixture("preferences", "mt-bench-pair.jsonl"),
                            24)),
        "deepeval": ("test_run.json",
                     _fixture("deepeval", "base", "test_run_20240601.json")),
        "opencompass": ("gsm8k.json",
                        _fixture("opencompass", "base", "gsm8k.json")),
    }


# Mutations ###############################################################

# Text a hostile file may hold, as JSON escapes (inside a JSON string) and
# as raw bytes (anywhere else).
_ESCAPES = ("\\u001b[31m", "\\u0007", "\\u0000", "\\u0001", "\\u202e",
            "\\u2028", "\\u0085", "\\u007f", "\\ud800", "\\udc80", "\\u200f")
_RAW = (b"\x1b[31m", b"\x07", b"\x00", b"\x01", b"\xe2\x80\xae",
        b"\xe2\x80\xa8", b"\xc2\x85", b"\x7f", b"\xed\xa0\x80", b"\xff",
        b"\n", b"\r", b",", b'"', b"{", b"]")
_DEEP = 100_000


def _flip(rng, data):
    data = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 8))):
        at = rng.randrange(len(data))
        data[at] = rng.randrange(256) if rng.random() < 0.5 else (
            data[at] ^ 1 << rng.randrange(8))
    return bytes(data)


def _truncate(rng, data):
    return data[:rng.randrange(len(data))]


def _insert(rng, data):
    at = rng.randrange(len(data) + 1)
    return data[:at] + rng.choice(_RAW) + data[at:]


def _strings(data):
    """Return the (start, end) of each JSON string's body in *data*."""
    return [m.span(1) for m in re.finditer(rb'"((?:[^"\\\n]|\\.){1,40})"',
                                           data)]


def _hostile_name(rng, data):
    """Put an escape into a JSON string (a field name or a value): where
    none is, raw bytes into the first line (a CSV header)."""
    spans = _strings(data)
    if not spans:
        end = data.find(b"\n") if b"\n" in data else len(data)
        at = rng.randrange(end + 1)
        return data[:at] + rng.choice(_RAW[:9]) + data[at:]
    start, end = rng.choice(spans)
    at = rng.randrange(start, end + 1)
    while data[start:at].endswith(b"\\"):
        at -= 1
    return data[:at] + rng.choice(_ESCAPES).encode() + data[at:]


def _deep(rng, data):
    """Replace a JSON value with one nested _DEEP deep."""
    values = [m.end() for m in re.finditer(rb'":\s*', data)]
    if not values:
        return data + b"[" * _DEEP + b"]" * _DEEP
    at = rng.choice(values)
    end = re.compile(rb'[^,}\]\n]*').match(data, at).end()
    return data[:at] + b"[" * _DEEP + b"]" * _DEEP + data[end:]


_BYTES = (_flip, _flip, _truncate, _insert)
_JSONS = (_hostile_name, _hostile_name, _deep)


def _members(data):
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return [(info, archive.read(info)) for info in archive.infolist()]


def _zipped(members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for info, body in members:
            archive.writestr(info.filename, body)
    return buffer.getvalue()


def _member_text(rng, data):
    """Mutate the JSON of one member of a zip and zip it again."""
    members = _members(data)
    k = rng.randrange(len(members))
    info, body = members[k]
    members[k] = info, rng.choice(_JSONS + _BYTES)(rng, body)
    return _zipped(members)


def _headers(data):
    """Return the offsets of the zip's local and central headers."""
    return ([m.start() for m in re.finditer(rb"PK\x03\x04", data)],
            [m.start() for m in re.finditer(rb"PK\x01\x02", data)])


def _member_flag(rng, data):
    """Flag a member encrypted, or give it a compression method Python
    lacks (99 AES, 1 shrink, 12 bzip2 here read, 14 LZMA, 93 zstd), in
    both its local and its central header."""
    local, central = _headers(data)
    k = rng.randrange(min(len(local), len(central)))
    data = bytearray(data)
    if rng.random() < 0.4:
        for at in (local[k] + 6, central[k] + 8):
            data[at] |= 1
    else:
        method = rng.choice((99, 1, 6, 14, 93, 98)).to_bytes(2, "little")
        data[local[k] + 8:local[k] + 10] = method
        data[central[k] + 10:central[k] + 12] = method
    return bytes(data)


def _member_body(rng, data):
    """Flip bytes in a member's compressed data (a zlib.error on inflating;
    the CRC no longer matches either)."""
    local, _ = _headers(data)
    k = rng.randrange(len(local))
    at = local[k]
    name_len = int.from_bytes(data[at + 26:at + 28], "little")
    extra_len = int.from_bytes(data[at + 28:at + 30], "little")
    size = int.from_bytes(data[at + 18:at + 22], "little")
    start = at + 30 + name_len + extra_len
    if size < 2:
        return _flip(rng, data)
    body = bytearray(data)
    for _ in range(rng.choice((1, 3))):
        body[start + rng.randrange(size)] ^= 1 << rng.randrange(8)
    return bytes(body)


def _gzip_text(rng, data):
    """Mutate the text inside a gzip stream, or the stream itself."""
    if rng.random() < 0.5:
        return _flip(rng, data)
    return gzip.compress(rng.choice(_JSONS + _BYTES)(
        rng, gzip.decompress(data)), mtime=0)


def _mutations(format):
    if format == "eval":
        return (_member_text, _member_text, _member_flag, _member_body,
                _flip, _truncate)
    if format == "jsonl.gz":
        return (_gzip_text,)
    if format in ("parquet",):
        return _BYTES + (_hostile_name,)
    if format in ("csv", "battles"):
        return _BYTES + (_hostile_name, _hostile_name)
    return _BYTES + _JSONS


def mutants(seed, per_format, formats=None):
    """Yield (format, name, mutation, bytes, original bytes): per_format
    mutants of each seed file, drawn from random.Random(seed)."""
    rng = random.Random(seed)
    for format, (name, data) in _seeds().items():
        if formats and format not in formats:
            continue
        for _ in range(per_format):
            mutate = rng.choice(_mutations(format))
            yield format, name, mutate.__name__, mutate(rng, data), data


# Running #################################################################

# Every character a terminal or an XML parser should not be handed raw
# (newline and tab are a report's own).
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f"
                     "\u2028-\u202e\u2066-\u2069\ud800-\udfff]")


def run(argv):
    """Run main(argv) as a terminal would see it: standard output encoded
    strictly as UTF-8, stderr with backslashes as Python's own.  Return
    (status, out, err); an exception that escapes main() propagates."""
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="")
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", newline="",
                           errors="backslashreplace")
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = bed.main(argv)
        except SystemExit as stop:
            status = stop.code
        out.flush()
        err.flush()
    return (status, out.buffer.getvalue().decode("utf-8"),
            err.buffer.getvalue().decode("utf-8"))


def commands(format, path, original):
    """The runs each mutant gets: check it, and compare it with its seed
    (a file of battles or pairwise verdicts alone)."""
    extra = ["--records", "results.items"] if format == "json-document" else []
    if format in ("battles", "mt-bench"):
        return ["check", path], [("rank" if format == "battles" else
                                  "compare"), path, "--resamples", "99"]
    return (["check", path, *extra],
            ["compare", original, path, "--resamples", "99", *extra])


def problems(status, out, err):
    """Return what is wrong with one outcome ('' if nothing)."""
    if status not in (0, 1, 2):
        return f"exit {status}: {err!r}"
    if "Traceback" in err:
        return f"a traceback: {err!r}"
    if status == 2 and (out or err.count("\n") != 1):
        return f"exit 2 with {err.count(chr(10))} lines: {err!r}"
    for name, text in (("stdout", out), ("stderr", err)):
        bad = _UNSAFE.search(text)
        if bad:
            return f"{bad.group()!r} raw on {name}: {text[:300]!r}"
    return ""


def _write(folder, name, data):
    path = os.path.join(folder, name)
    with open(path, "wb") as f:
        f.write(data)
    return path


def _campaign(tmp_path, monkeypatch, seed, per_format):
    monkeypatch.delenv("BOOTSTRAP_EVAL_DELTAS_TRACEBACK", raising=False)
    failures = []
    for k, (format, name, how, data, original) in enumerate(
            mutants(seed, per_format)):
        folder = tmp_path / str(k)
        (folder / "seed").mkdir(parents=True)
        path = _write(folder, name, data)
        base = _write(folder / "seed", name, original)
        for argv in commands(format, path, base):
            try:
                said = problems(*run(argv))
            except Exception as exc:             # noqa: BLE001 (reported)
                said = f"{type(exc).__name__}: {exc}"
            if said:
                failures.append(f"{format} {how} {argv[0]}: {said[:400]}")
    assert not failures, "\n".join(failures)


# Each finding of issue 62 that this file covers, on its own ##############

def _eval_of(members, tmp_path, name="log.eval"):
    """Write an Inspect .eval log of {member name: text}."""
    path = tmp_path / name
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, text in members.items():
            archive.writestr(member, text)
    return str(path)


def _sample(i, value=1):
    return json.dumps({"id": i, "epoch": 1,
                       "scores": {"match": {"value": value}}})


def _one_line(status, out, err):
    assert status == 2 and not out and err.count("\n") == 1, (status, err)
    assert "Traceback" not in err
    return err


def _patched(path, change):
    """Apply change(bytearray, local header offsets, central ones) to the
    zip at *path*: the same edit in each header of the second member."""
    data = bytearray(open(path, "rb").read())
    local, central = _headers(bytes(data))
    change(data, local[1], central[1])
    open(path, "wb").write(bytes(data))
    return path


@pytest.fixture
def eval_log(tmp_path):
    return _eval_of({"header.json": json.dumps({"eval": {"task": "t"}}),
                     "samples/1_epoch_1.json": _sample(1),
                     "samples/2_epoch_1.json": _sample(2, 0)}, tmp_path)


def test_eval_member_with_corrupt_deflate_data_is_one_line(eval_log):
    # zlib.error escaped the reader: 14 of 430 mutants in the campaign.
    def corrupt(data, local, _):
        start = local + 30 + int.from_bytes(data[local + 26:local + 28],
                                            "little")
        data[start:start + 4] = b"\xff\xff\xff\xff"
    _patched(eval_log, corrupt)
    err = _one_line(*run(["compare", eval_log, eval_log]))
    assert f"{eval_log}: its member samples/1_epoch_1.json is corrupt: " in err


def test_eval_member_flagged_encrypted_is_one_line(eval_log):
    # RuntimeError ('password required for extraction') escaped.
    def encrypt(data, local, central):
        data[local + 6] |= 1
        data[central + 8] |= 1
    _patched(eval_log, encrypt)
    err = _one_line(*run(["compare", eval_log, eval_log]))
    assert (f"{eval_log}: its member samples/1_epoch_1.json is encrypted"
            in err)


@pytest.mark.parametrize("method, name", [(99, "AES encryption"),
                                          (1, "shrink"), (77, "")])
def test_eval_member_in_a_method_python_lacks_is_not_blamed_on_zstd(
        eval_log, method, name):
    def compress(data, local, central):
        data[local + 8:local + 10] = method.to_bytes(2, "little")
        data[central + 10:central + 12] = method.to_bytes(2, "little")
    _patched(eval_log, compress)
    err = _one_line(*run(["compare", eval_log, eval_log]))
    assert "zstd" not in err.replace("deflate or zstd", "")
    assert (f"{eval_log}: its member samples/1_epoch_1.json is compressed "
            f"with method {method}" + (f" ({name})" if name else "")
            + ", which Python's zipfile cannot read") in err


def test_eval_member_nested_too_deep_says_so_as_a_json_file_does(
        tmp_path, eval_log):
    # RecursionError escaped, where a .json of the same depth gets words.
    deep = '{"id": 1, "epoch": 1, "scores": ' + "[" * 100_000 \
        + "]" * 100_000 + "}"
    path = _eval_of({"samples/1_epoch_1.json": deep}, tmp_path, "deep.eval")
    err = _one_line(*run(["compare", path, eval_log]))
    assert (f"{path}: samples/1_epoch_1.json: JSON nested too deep to read"
            in err)
    plain = tmp_path / "deep.json"
    plain.write_text(deep)
    assert "JSON nested too deep to read" in _one_line(
        *run(["compare", str(plain), eval_log]))


def test_eval_member_not_utf8_names_the_byte(tmp_path, eval_log):
    path = _eval_of({"samples/1_epoch_1.json": b'{"id": "\xff"}'}, tmp_path,
                    "latin.eval")
    err = _one_line(*run(["compare", path, eval_log]))
    assert (f"{path}: samples/1_epoch_1.json: not UTF-8 text (byte 0xff at "
            f"offset 8)") in err


def test_a_gzip_stream_corrupt_after_a_bad_byte_is_one_line(tmp_path):
    # _not_utf8 read the stream again to name the line and met the
    # corrupt end there, in the middle of an error message.
    good = gzip.compress(b'{"id": 1, "m": 1}\n' + b'{"id": 2, "m": "\xff"}'
                         + b"x" * 100_000, mtime=0)
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(good[:len(good) // 2])
    err = _one_line(*run(["compare", str(path), str(path)]))
    assert f"{path}:" in err and "not UTF-8 text" in err


def test_a_csv_line_the_csv_module_refuses_is_one_line(tmp_path,
                                                       monkeypatch):
    # Python 3.10's csv module raises csv.Error ('line contains NUL') on a
    # NUL byte, which 3.11 reads: a traceback on 3.10, as it would be on
    # any csv.Error.  Here the reader raises it on the second line.
    table = tmp_path / "t.csv"
    table.write_text("id,acc\n1,1\n2,0\n")
    real = bed.csv.reader

    class Refusing:
        def __init__(self, *args, **kwargs):
            self.rows = real(*args, **kwargs)

        def __iter__(self):
            return self

        def __next__(self):
            row = next(self.rows)
            if self.rows.line_num == 2:
                raise bed.csv.Error("line contains NUL")
            return row

        @property
        def line_num(self):
            return self.rows.line_num
    monkeypatch.setattr(bed.csv, "reader", Refusing)
    err = _one_line(*run(["compare", str(table), str(table)]))
    assert f"{table}:2: not a readable CSV line (line contains NUL)" in err


# Text from files shown safely ############################################

# A character of each kind no output may show raw, and the escape shown.
_HOSTILE = {"\x1b": "\\x1b", "\x07": "\\x07", "\x01": "\\x01",
            "\x00": "\\x00", "\x7f": "\\x7f", "\x85": "\\x85",
            "\u202e": "\\u202e", "\u2066": "\\u2066", "\u2028": "\\u2028",
            "\r": "\\r", "\ud800": "\\ud800"}


def _hostile_runs(tmp_path):
    """Two JSONL runs whose metric, subsets, an id and file names hold
    every _HOSTILE character (but NUL and the surrogate in file names)."""
    name = "".join(_HOSTILE)
    paths = []
    for k, who in enumerate(("base", "cand")):
        rows = [{"id": f"q{i}" + (name if i == 3 else ""),
                 "subject": f"s{i % 2}{name}",
                 f"acc{name}": int((i * 7 + k * 3) % 5 < 3)}
                for i in range(24)]
        file = who + name.replace("\x00", "").replace("\ud800", "") + ".jsonl"
        paths.append(_write(tmp_path, file, "".join(
            json.dumps(row) + "\n" for row in rows).encode()))
    return paths


def _safe(text):
    bad = _UNSAFE.search(text)
    assert bad is None, (bad.group(), text[max(0, bad.start() - 80):
                                            bad.end() + 80])
    return text


def test_names_from_files_are_shown_escaped_in_every_output(tmp_path):
    # A lone surrogate in a field name (legal JSON) crashed check and
    # compare with UnicodeEncodeError; ESC, BEL, U+202E, U+2028 reached
    # the terminal raw, and an SVG holding them is no XML.
    import xml.etree.ElementTree as ElementTree
    base, cand = _hostile_runs(tmp_path)
    escaped = "".join(_HOSTILE.values())
    plot = str(tmp_path / "p.svg")
    page = str(tmp_path / "p.html")
    for argv in (["check", base, cand],
                 ["compare", base, cand, "--by", "subject", "--plot", plot,
                  "--html", page, "--resamples", "99"],
                 ["compare", base, cand, "--format", "markdown",
                  "--resamples", "99"]):
        status, out, err = run(argv)
        assert status == 0, err
        assert f"acc{escaped}" in _safe(out)
        _safe(err)
    assert f"s0{escaped}" in out or f"s0{escaped}" in open(page).read()
    for path in (plot, page):
        with open(path, encoding="utf-8") as f:
            _safe(f.read())
    ElementTree.parse(plot)                 # well-formed XML
    status, out, err = run(["compare", base, cand, "--format", "html",
                            "--resamples", "99"])
    assert status == 0 and f"acc{escaped}" in _safe(out)
    # Tables stay aligned: a name takes the columns of its escapes.
    status, out, err = run(["check", base])
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("field "))
    row = next(line for line in lines if line.startswith("acc"))
    assert row.index(" 0/1 ") + 1 == header.index(" type ") + 1
    # An error line names a field escaped.
    status, out, err = run(["compare", base, cand, "--metric", "acc"])
    assert status == 2 and f"acc{escaped}" in _safe(err)
    assert err.count("\n") == 1


# A defect is not a verdict ###############################################

def test_an_escaping_exception_is_a_defect_in_one_line_and_exit_70(
        tmp_path, monkeypatch):
    # A traceback exited 1, the status of --fail-on holding and of check
    # refusing a file: in CI a crash read as a verdict.
    monkeypatch.delenv("BOOTSTRAP_EVAL_DELTAS_TRACEBACK", raising=False)
    runs = _write(tmp_path, "r.jsonl", _lines(_shipped("examples",
                                                       "base.jsonl"), 5))

    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug\nacross lines")
    monkeypatch.setattr(bed, "_check", broken)
    status, out, err = run(["check", runs])
    assert status == 70 and not out and err.count("\n") == 1
    assert err.startswith("bootstrap-eval-deltas: internal error, a defect "
                          "in the tool and not a verdict on the input: "
                          "ZeroDivisionError: a bug\\nacross lines (running ")
    assert f"check {runs})" in err and "please report it" in err
    assert "BOOTSTRAP_EVAL_DELTAS_TRACEBACK=1" in err
    monkeypatch.setenv("BOOTSTRAP_EVAL_DELTAS_TRACEBACK", "1")
    with pytest.raises(ZeroDivisionError):          # for debugging
        run(["check", runs])


def test_a_bootstrap_round_where_a_system_never_wins_does_not_overflow(
        tmp_path):
    # The campaign's one statistics crash: ten battles (the first lines of
    # preferences/battles.csv) whose resampled rounds let Newton's method
    # run a rating off to where exp() overflows (OverflowError, exit 1).
    battles = tmp_path / "battles.csv"
    battles.write_text(
        "model_a,model_b,winner\n" + "".join(
            f"{a},{b},{w}\n" for a, b, w in (
                ("delta-1b", "beta-13b", "beta-13b"),
                ("beta-13b", "delta-1b", "beta-13b"),
                ("alpha-7b", "beta-13b", "beta-13b"),
                ("gamma-2b", "beta-13b", "gamma-2b"),
                ("gamma-2b", "delta-1b", "delta-1b"),
                ("alpha-7b", "gamma-2b", "alpha-7b"),
                ("alpha-7b", "beta-13b", "tie"),
                ("alpha-7b", "gamma-2b", "gamma-2b"),
                ("delta-1b", "alpha-7b", "delta-1b"),
                ("alpha-7b", "delta-1b", "alpha-7b"))))
    status, out, err = run(["rank", str(battles), "--resamples", "99"])
    assert status == 0, err
    assert "rounds (53%) have no finite rating" in out


# The fuzz campaign, small and large #####################################

def test_mutants_of_each_format_end_in_an_answer_or_one_line(tmp_path,
                                                             monkeypatch):
    _campaign(tmp_path, monkeypatch, seed=62, per_format=3)


@pytest.mark.slow
def test_many_mutants_of_each_format_end_in_an_answer_or_one_line(
        tmp_path, monkeypatch):
    _campaign(tmp_path, monkeypatch, seed=2026, per_format=100)
