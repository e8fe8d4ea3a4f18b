"""The shape of the module: sections that say what they hold, no section
reaching into another's private names, every definition documented, the
top level of the repository as the user asked for it.
"""
import ast
import doctest
import functools
import inspect
import os
import re

import bootstrap_eval_deltas as bed

with open(bed.__file__) as f:
    SOURCE = f.read()
TREE = ast.parse(SOURCE)
BANNER = re.compile(r"^## (.+?) #+$", re.M)
SHARED = ("Constants", "The article", "Shared helpers", "Fast paths")
SPEED_ONLY = {"gc", "mmap", "multiprocessing", "pickle", "signal"}


def sections():
    """Return [(first line, section name)]; 'X: Y' is a part of X."""
    return [(SOURCE[:m.start()].count("\n") + 1, m.group(1).split(":")[0])
            for m in BANNER.finditer(SOURCE)]


def section_of(line, found):
    """Return the section a line is in ('' above the first banner)."""
    return ([""] + [name for start, name in found if start <= line])[-1]


@functools.lru_cache(maxsize=None)
def walked():
    """Each top-level statement with every node under it, the module's
    tree walked once for the tests here."""
    return tuple((node, tuple(ast.walk(node))) for node in TREE.body)


@functools.lru_cache(maxsize=None)
def nodes():
    """Every node of the module's tree."""
    return (TREE,) + tuple(sub for _, subs in walked() for sub in subs)


def defined(node):
    if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.Assign):
        return [t.id for t in node.targets if isinstance(t, ast.Name)]
    return []


DOORS = re.compile(r"^# Doors \(called from other sections\): (.*?)\.$",
                   re.M | re.S)


def doors_of_each_section():
    """Return {section: set of names its Doors paragraph lists}."""
    found, out = sections(), {}
    for m in DOORS.finditer(SOURCE):
        names = m.group(1).replace("#", " ").replace(",", " ").split()
        line = SOURCE[:m.start()].count("\n") + 1
        out.setdefault(section_of(line, found), set()).update(names)
    return out


def test_sections_meet_only_at_their_doors():
    # Every name but the library's is private; a section's private names
    # that other sections call are its doors, listed under its banner.
    # Helpers several sections need live in Shared helpers (or are tuning
    # numbers in Constants); the article's and Fast paths' names may be
    # used anywhere, and Fast paths alone may reach in, since it holds
    # second bodies of other sections' functions.
    found, doors = sections(), doors_of_each_section()
    home = {name: section_of(node.lineno, found)
            for node in TREE.body if hasattr(node, "lineno")
            for name in defined(node)}
    reaches, used = set(), set()
    for node, subs in walked():
        if not hasattr(node, "lineno"):
            continue
        here = section_of(node.lineno, found)
        for sub in subs:
            if isinstance(sub, ast.Name) and sub.id.startswith("_"):
                there = home.get(sub.id)
                if (there and there != here and there not in SHARED
                        and here != "Fast paths"):
                    used.add(sub.id)
                    if sub.id not in doors.get(there, ()):
                        reaches.add(f"{here} uses {there}'s {sub.id}")
    assert sorted(reaches) == []
    listed = {(name, section) for section, names in doors.items()
              for name in names}
    stale = sorted(f"{section} lists {name}" for name, section in listed
                   if home.get(name) != section or name not in used)
    assert stale == []


def test_every_public_name_is_in_all():
    # The public surface is __all__ (and the article's constants, which a
    # reader edits); everything else has a leading underscore.
    found = sections()
    public = {name for node in TREE.body if hasattr(node, "lineno")
              for name in defined(node) if not name.startswith("_")}
    constants = {name for node in TREE.body if hasattr(node, "lineno")
                 for name in defined(node) if name.isupper()
                 and section_of(node.lineno, found) == "Constants"}
    assert public - constants == set(bed.__all__)
    assert len(set(bed.__all__)) == len(bed.__all__)


def test_only_fast_paths_imports_processes_forks_or_sets_globals():
    # Speed tricks stay behind one door: no other section imports the
    # process, shared-memory or collector modules, forks, or sets a global.
    found = sections()
    fast = [start for start, name in found if name == "Fast paths"]
    assert fast, "no Fast paths section"
    outside = []
    for node, subs in walked():
        if not hasattr(node, "lineno") or node.lineno >= fast[0]:
            continue
        for sub in subs:
            if isinstance(sub, (ast.Import, ast.ImportFrom)):
                names = {a.name.split(".")[0] for a in sub.names}
                names.add((getattr(sub, "module", None) or "").split(".")[0])
                if names & SPEED_ONLY:
                    outside.append(f"line {sub.lineno} imports "
                                   f"{sorted(names & SPEED_ONLY)}")
            elif isinstance(sub, ast.Global):
                outside.append(f"line {sub.lineno} sets globals {sub.names}")
            elif (isinstance(sub, ast.Attribute) and sub.attr == "fork"
                    and isinstance(sub.value, ast.Name)
                    and sub.value.id == "os"):
                outside.append(f"line {sub.lineno} forks")
            elif isinstance(sub, ast.Name) and sub.id in SPEED_ONLY:
                outside.append(f"line {sub.lineno} uses {sub.id}")
    assert outside == []


def test_the_module_map_names_every_section_in_order():
    doc = bed.__doc__[bed.__doc__.index("Sections, in order"):]
    banners = [m.group(1) for m in BANNER.finditer(SOURCE)]
    at, previous = [], None
    for name in banners:
        part_of = name.split(":")[0]
        if ":" in name and part_of == previous:
            previous = part_of           # a part of the section just named
            continue
        at.append(doc.find("\n    " + name))
        assert at[-1] >= 0, f"the module map does not name {name!r}"
        previous = part_of
    assert at == sorted(at)


def test_every_top_level_definition_has_a_docstring():
    bare = [n.name for n in TREE.body
            if isinstance(n, (ast.FunctionDef, ast.ClassDef))
            and not ast.get_docstring(n)]
    assert bare == []


def test_all_lists_only_the_documented_library():
    with open(os.path.join(os.path.dirname(bed.__file__), "README.md")) as f:
        readme = f.read()
    for name in bed.__all__:
        assert callable(getattr(bed, name))
        assert f"`{name}" in readme or f"bed.{name}(" in readme, name


def test_the_repository_top_level_is_as_asked():
    top = os.path.dirname(os.path.abspath(bed.__file__))
    if not os.path.isdir(os.path.join(top, ".git")):
        return                              # an installed copy
    names = {n for n in os.listdir(top) if not n.startswith(".")}
    allowed = {"bootstrap_eval_deltas.py", "datasets", "tests", "README.md",
               "pyproject.toml", "__pycache__", "build", "dist"}
    extra = {n for n in names - allowed if not n.endswith(".egg-info")}
    assert extra == set()


def test_every_public_name_and_result_field_has_a_docstring():
    # What __all__ offers a notebook is documented, down to the fields a
    # result carries: Comparison's and Standings' properties included.
    for name in bed.__all__:
        assert getattr(bed, name).__doc__, name
    for record in (bed.Comparison, bed.Standings):
        public = [n for n in vars(record) if not n.startswith("_")]
        assert public, record
        for field in public:
            assert inspect.getdoc(getattr(record, field)), (record.__name__,
                                                              field)


def test_the_readme_is_a_short_guide():
    with open(os.path.join(os.path.dirname(bed.__file__), "README.md")) as f:
        lines = f.read().splitlines()
    assert len(lines) <= 600
    assert "## In five minutes" in lines[:60]


def test_no_internal_function_takes_more_than_eight_parameters():
    # Options travel whole, as one _Options record settled at the door;
    # only the public functions may take keyword-only options (as scipy's
    # do), since a notebook calls them by name.
    long = []
    for node in nodes():
        if isinstance(node, ast.FunctionDef):
            a = node.args
            count = (len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
                     + bool(a.vararg) + bool(a.kwarg))
            if count > 8 and node.name not in bed.__all__:
                long.append(f"{node.name} ({count})")
    assert long == []


def test_the_modules_examples_print_what_they_say():
    # The docstrings' examples, as `python3 -m doctest` runs them; here
    # rather than by --doctest-modules, which rewrote the module's asserts
    # (4 s of CPU a run) to collect them.
    import doctest

    class Finder(doctest.DocTestFinder):
        # A docstring's line is looked for only where it holds an example
        # to report: the search scans the module's 26,000 lines for each
        # class, 0.5 s for the 80% of docstrings that have none.
        def _find_lineno(self, obj, source_lines):
            if ">>>" not in (getattr(obj, "__doc__", None) or ""):
                return None
            return super()._find_lineno(obj, source_lines)

    finder = Finder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    failed = []
    for test in finder.find(bed, "bootstrap_eval_deltas",
                            globs=vars(bed).copy()):
        if runner.run(test, out=lambda text: None).failed:
            failed.append(test.name)
    assert runner.tries > 150 and failed == []


def test_no_top_level_name_is_defined_twice():
    # One namespace of a thousand names: a second definition, sections
    # apart, silently replaces the first (a 32-bit crc32 _digest in check's
    # section once replaced the join's 64-bit identity digest).
    seen, twice = {}, []
    for node in TREE.body:
        for name in defined(node):
            if name in seen:
                twice.append(f"{name}: lines {seen[name]} and {node.lineno}")
            seen.setdefault(name, node.lineno)
    assert not twice, twice


def test_the_identity_digest_is_64_bits_wide():
    # Input promises item identity checked to 2^-64 of a collision.
    assert len(bed._digest("Sarah was a surgeon")) == 8
    assert bed._digest({"a": 1, "b": [2]}) == bed._digest({"b": [2], "a": 1})


def test_wide_records_are_built_by_keyword():
    # A record of eight fields or more built by position breaks silently
    # when a field is added or moved (_MetricResult was built with 14-22
    # positional arguments at eight sites); by keyword, such a change is
    # an error at the site, or no change at all.
    fields = {node.name: sum(isinstance(s, ast.AnnAssign) for s in node.body)
              for node in TREE.body if isinstance(node, ast.ClassDef)
              and any(getattr(b, "id", "") == "NamedTuple"
                      for b in node.bases)}
    wide = {name for name, count in fields.items() if count >= 8}
    assert {"_MetricResult", "_Compared", "_Profile", "_Judgement"} <= wide
    # ... in the code and in its docstrings' examples, which readers copy
    parser = doctest.DocTestParser()
    examples = [ast.parse(e.source) for node in nodes() if isinstance(
        node, (ast.Module, ast.FunctionDef, ast.ClassDef))
        for e in parser.get_examples(ast.get_docstring(node) or "")]
    assert len(examples) > 100
    positional = [f"{node.func.id} (line {node.lineno})"
                  for node in nodes() + tuple(
                      n for tree in examples for n in ast.walk(tree))
                  if isinstance(node, ast.Call)
                  and getattr(node.func, "id", "") in wide
                  and len(node.args) > 2]
    assert positional == []


def test_the_default_levels_are_named_once():
    # alpha, confidence, power, resamples and seed default to _ALPHA,
    # CONFIDENCE, _POWER, RESAMPLES and SEED in every signature, _Options
    # field and option row: changing one default is one line in Constants
    # (29 signatures once said 0.05).
    names = {"alpha", "confidence", "power", "resamples", "seed"}
    literal = []
    for node in nodes():
        if isinstance(node, ast.arguments):
            given = node.posonlyargs + node.args
            pairs = list(zip(given[len(given) - len(node.defaults):],
                             node.defaults))
            pairs += [(a, d) for a, d in zip(node.kwonlyargs,
                                             node.kw_defaults) if d]
            literal += [f"{a.arg} (line {d.lineno})" for a, d in pairs
                        if a.arg in names and isinstance(d, ast.Constant)
                        and d.value is not None]    # None: not given
        elif (isinstance(node, ast.AnnAssign) and node.value is not None
              and getattr(node.target, "id", "") in names
              and isinstance(node.value, ast.Constant)):
            literal.append(f"field {node.target.id} (line {node.lineno})")
        elif (isinstance(node, ast.Call)
              and (getattr(node.func, "attr", "") == "add_argument"
                   or getattr(node.func, "id", "") == "_opt")
              and node.args and isinstance(node.args[0], ast.Constant)
              and node.args[0].value in {"--" + n for n in names}):
            literal += [f"{node.args[0].value} (line {node.lineno})"
                        for k in node.keywords if k.arg == "default"
                        and isinstance(k.value, ast.Constant)]
    assert literal == []
    assert (bed._ALPHA, bed.CONFIDENCE, bed._POWER, bed.RESAMPLES,
            bed.SEED) == (0.05, 0.95, 0.8, 2000, 2026)


def test_options_are_declared_in_the_table_only():
    # Every option is a row of _OPTIONS (issue 61: 137 add_argument calls
    # declared 31 flags two to four times); the parsers are made from it.
    named = [node.args[0].value for node in nodes()
             if isinstance(node, ast.Call)
             and getattr(node.func, "attr", "") == "add_argument"
             and node.args and isinstance(node.args[0], ast.Constant)]
    assert named == ["--version"]


STATISTICS = {"Resampling", "Saddlepoint", "Exact tests",
              "Comparing two systems", "Ranking", "Pairwise preferences",
              "Judge-corrected comparison", "Anytime-valid comparison",
              "Simulation", "Corpus statistics", "Power"}
EXACT_TAILS = {"_acceleration", "_binomial_head", "_mcnemar_p",
               "_mcnemar_tails", "_percentile_positions", "_upper_z"}
REPORT_MAY_CALL = {}        # (caller, callee): why; none today


def test_report_only_formats():
    # Statistics are computed where a comparison, rank or plan is run and
    # reach Report on its records (a churn on the _MetricResult, the
    # half-widths on the Plan, ...); Report and the Run store's reports
    # only format them.  So none of their functions calls (or hands on) a
    # function of a statistics section or Shared helpers' exact tails; a
    # record's class named in isinstance is no call.  (On issue 61's main
    # it found 20 calls in 14 functions: _churn, _plan_parts, ...)
    found = sections()
    home = {node.name: (section_of(node.lineno, found), node)
            for node in TREE.body
            if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    calls = set()
    for node, subs in walked():
        if section_of(getattr(node, "lineno", 0), found) not in (
                "Report", "Run store"):
            continue
        for sub in subs:
            if not isinstance(sub, ast.Call) or getattr(
                    sub.func, "id", "") == "isinstance":
                continue
            for x in [sub.func, *sub.args, *(k.value for k in sub.keywords)]:
                there, d = home.get(getattr(x, "id", None), ("", None))
                if (there in STATISTICS or getattr(d, "name", "") in
                        EXACT_TAILS and there == "Shared helpers") and (
                        x is sub.func or isinstance(d, ast.FunctionDef)):
                    calls.add((node.name, x.id))
    assert sorted(calls - set(REPORT_MAY_CALL)) == []
