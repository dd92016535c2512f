#!/usr/bin/env python3
"""Host test: tools/bench_tables.py, the generated benchmark tables
(make report) and the generated blocks of README.md and
docs/benchmarks.md, on a tiny fake results/meta/timed set; then the
check of the tree's own docs, which fails on a block that is missing
or stale.

    test_bench_tables.py [substring]    run only tests whose name contains it
"""

import copy
import json
import os
import shutil
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import bench_kinds  # noqa: E402  (tools/, put on the path by host_proto)
import bench_tables  # noqa: E402

PAPER = {"source": "003 Table II", "unit": "cycles (i.MX6Q, 792 MHz)",
         "average": 58}
META = {
    "sgi_fake": {"unit": "instructions", "kind": "deterministic",
                 "bound": {"median_max": 10}, "paper": PAPER,
                 "headline": 2},
    "sgi_fake_ratio": {"kind": "deterministic",
                       "bound": {"median_ratio_max": [1.5, "sgi_fake"]}},
    "block_read_fake": {"kind": "deterministic",
                        "bound": {"median_ratio_max": [3.0,
                                                       "linux_read_fake"]}},
    "completion_fake_over": {
        "unit": "ratio", "kind": "timed", "bound": {"median_max": 1.02},
        "timed": {"boots": 20, "num": {"boot": "alb", "result": "x"},
                  "den": {"boot": "alb", "result": "y"}, "paired": True}},
    "trace_fake_lost": {
        "kind": "timed", "bound": {"median_max": 0},
        "timed": {"boots": 20,
                  "num": {"boot": "matmul_trace", "result": "z"}}},
    "ipc_fake_reported": {"unit": "percent", "headline": 1,
                          "paper": {"source": "003 Tables IV/V",
                                    "unit": "percent (19 / 18 us)",
                                    "average": 103}},
}
TIMED = {"rows": {"completion_fake_over": {
    "bound": {"median_max": 1.02}, "n": 20, "median": 1.0,
    "ci": [0.98, 1.01], "commit": "c0ffee" * 6, "dirty": False,
    "date": "2026-12-01T00:00:00Z"}}}


def result(name, median, unit="instructions", kind="deterministic"):
    """A results.json entry with one sample."""
    return {"name": name, "unit": unit, "runs": 1, "min": median,
            "median": median, "max": median, "mean": median,
            "samples": [median], "kind": kind}


RESULTS = [result("sgi_fake", 5), result("sgi_fake_ratio", 6),
           result("block_read_fake", 3),
           result("ipc_fake_reported", 120, "percent", "reported"),
           dict(result("completion_fake_over", 0.97, "ratio", "timed"),
                note=bench_kinds.SINGLE_BOOT)]


def report_lines(family):
    """The fake set's report page of `family`, as lines."""
    with tempfile.TemporaryDirectory() as out:
        bench_tables.write_report(out, RESULTS, META, TIMED, "fake")
        with open(os.path.join(out, f"{family}.md"), encoding="utf-8") as f:
            return f.read().splitlines()


def line_of(lines, name):
    """The table line of row `name` (None if absent)."""
    return next((x for x in lines if x.startswith(f"| `{name}` ")), None)


def test_report_deterministic_rows():
    """A bounded row passes with its figure, the paper's figure stands
    beside it, and a ratio bound over another row is decided."""
    lines = report_lines("kernel")
    row = line_of(lines, "sgi_fake")
    if not row or "PASS: median 5 <= 10" not in row or "58 cycles" not in row:
        return f"sgi_fake: {row!r}"
    row = line_of(lines, "sgi_fake_ratio")
    if not row or "PASS" not in row or "= 1.20 <= 1.5" not in row:
        return f"sgi_fake_ratio: {row!r}"
    return None


def test_report_missing_peer():
    """A ratio bound whose peer is missing fails and names the peer
    and the target that makes it."""
    row = line_of(report_lines("storage"), "block_read_fake")
    if not row or "FAIL" not in row or "linux_read_fake is missing" not in \
            row or "make bench-linux" not in row:
        return f"block_read_fake: {row!r}"
    return None


def test_report_timed_rows():
    """A timed row's one boot is marked single boot and decided from
    timed.json with its interval; a timed row not run, and missing from
    the results, is INCONCLUSIVE and says how to run it."""
    row = line_of(report_lines("workloads"), "completion_fake_over")
    if not row or "timed (single boot)" not in row or \
            "PASS: median 1, 95 % interval [0.98, 1.01], n=20" not in row:
        return f"completion_fake_over: {row!r}"
    row = line_of(report_lines("trace"), "trace_fake_lost")
    if not row or "INCONCLUSIVE: not run (make bench-timed " \
            "ROWS=trace_fake_lost)" not in row:
        return f"trace_fake_lost: {row!r}"
    return None


def test_bounds_block():
    """Every bounded row once, with its kind and bound; a timed row's
    decision with interval, n and date (no commit: the docs name none),
    or not run; no reported row."""
    lines = bench_tables.bounds_block(META, TIMED)
    rows = [x for x in lines[2:]]
    if len(rows) != 5 or line_of(lines, "ipc_fake_reported"):
        return f"{len(rows)} rows: {lines!r}"
    want = {"sgi_fake_ratio": "median / `sgi_fake`'s <= 1.5",
            "completion_fake_over": "n=20, 2026-12-01",
            "trace_fake_lost": "INCONCLUSIVE: not run"}
    for name, text in want.items():
        row = line_of(lines, name)
        if not row or text not in row:
            return f"{name}: {row!r} lacks {text!r}"
    if any("c0ffee" in x for x in lines):
        return "a commit in the bounds block"
    if "| timed |" not in line_of(lines, "trace_fake_lost"):
        return "the timed row's kind is not shown"
    return None


def test_bounds_block_redecides():
    """A timed row is decided against the bound in meta now, not the
    one of its boots: a tighter bound makes the same interval
    INCONCLUSIVE."""
    meta = copy.deepcopy(META)
    meta["completion_fake_over"]["bound"] = {"median_max": 1.0}
    row = line_of(bench_tables.bounds_block(meta, TIMED),
                  "completion_fake_over")
    if "INCONCLUSIVE" not in row or "median <= 1 (20 boots)" not in row:
        return row
    return None


def test_headline():
    """Headline rows in their order, with the paper's figure beside
    Fulcrum's median, and a closing line naming command and date (the
    commit stays in the JSON: the docs name none)."""
    doc = bench_tables.headline_doc(RESULTS, META, "abcdef0123456789",
                                    "2026-12-07T21:11:58Z")
    names = [r["name"] for r in doc["rows"]]
    if names != ["ipc_fake_reported", "sgi_fake"]:
        return f"order {names}"
    block = bench_tables.headline_block(doc)
    row = next((x for x in block if x.startswith("| `sgi_fake`: paper "
                                                 "003 Table II |")), None)
    if not row or "| 58 cycles | 5 |" not in row:
        return f"row {row!r}"
    if "`make bench` on 2026-12-07" not in block[-1] or \
            "abcdef" in "\n".join(block):
        return f"closing line {block[-1]!r}"
    return None


def test_merge_timed():
    """Two timed.json merged by row: each row keeps its own commit and
    date, the later file's row wins, the stamp is the newest row's."""
    a = {"rows": {"x": {"commit": "a", "date": "2026-01-02"},
                  "y": {"commit": "a", "date": "2026-01-02"}}}
    b = {"rows": {"y": {"commit": "b", "date": "2026-01-01"},
                  "z": {"commit": "b", "date": "2026-01-01"}}}
    m = bench_tables.merge_timed(a, b)
    got = {k: v["commit"] for k, v in m["rows"].items()}
    if got != {"x": "a", "y": "b", "z": "b"} or m["commit"] != "a":
        return f"{got} stamp {m['commit']}"
    return None


def fake_tree(tmp, readme_markers=True):
    """A source tree with README.md, docs/benchmarks.md (empty blocks)
    and docs/results/*.json from the fake set."""
    os.makedirs(os.path.join(tmp, "docs", "results"))
    with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as f:
        f.write("# x\n" + ("\n".join(bench_tables.HEADLINE) + "\n"
                           if readme_markers else "") + "end\n")
    with open(os.path.join(tmp, "docs", "benchmarks.md"), "w",
              encoding="utf-8") as f:
        f.write("# b\n" + "\n".join(bench_tables.BOUNDS) + "\nend\n")
    bench_tables.write_json(
        os.path.join(tmp, "docs", "results", "headline.json"),
        bench_tables.headline_doc(RESULTS, META, "abc", "2026-12-07"))
    bench_tables.write_json(
        os.path.join(tmp, "docs", "results", "timed.json"), TIMED)


def test_check_docs_fake_tree():
    """--update-docs makes both blocks fresh, text around them kept; a
    changed bound or a changed timed decision makes --check-docs name
    the bounds block; a missing block is named too."""
    tmp = tempfile.mkdtemp()
    try:
        fake_tree(tmp)
        if bench_tables.update_docs(tmp, META) or \
                bench_tables.check_docs(tmp, META):
            return "fresh blocks reported stale"
        with open(os.path.join(tmp, "README.md"), encoding="utf-8") as f:
            text = f.read()
        if not text.startswith("# x\n") or not text.endswith("end\n") or \
                "58 cycles" not in text:
            return f"README.md after --update-docs: {text!r}"
        meta = copy.deepcopy(META)
        meta["sgi_fake"]["bound"] = {"median_max": 11}
        problems = bench_tables.check_docs(tmp, meta)
        if len(problems) != 1 or "docs/benchmarks.md: the bounds block" \
                not in problems[0]:
            return f"changed bound: {problems}"
        timed = copy.deepcopy(TIMED)
        timed["rows"]["completion_fake_over"]["ci"] = [0.99, 1.03]
        bench_tables.write_json(
            os.path.join(tmp, "docs", "results", "timed.json"), timed)
        if not bench_tables.check_docs(tmp, META):
            return "a changed timed decision left the block fresh"
    finally:
        shutil.rmtree(tmp)
    tmp = tempfile.mkdtemp()
    try:
        fake_tree(tmp, readme_markers=False)
        problems = bench_tables.check_docs(tmp, META)
        if not any(p.startswith("README.md: no headline block")
                   for p in problems):
            return f"missing markers: {problems}"
    finally:
        shutil.rmtree(tmp)
    return None


def tree_meta():
    """The tree's tools/bench_meta.json."""
    with open(os.path.join(ROOT, "tools", "bench_meta.json"),
              encoding="utf-8") as f:
        return json.load(f)


def test_tree_headline_rows():
    """The tree's headline rows: at most 12, distinct orders, each with
    a paper figure, and docs/results/headline.json holds each of them
    with a commit and a date."""
    meta = tree_meta()
    names = bench_tables.headline_names(meta)
    orders = [meta[n]["headline"] for n in names]
    if not names or len(names) > bench_tables.MAX_HEADLINE or \
            len(set(orders)) != len(orders):
        return f"headline rows {names} orders {orders}"
    for n in names:
        if bench_tables.paper_text(meta[n].get("paper")) in ("-", "") or \
                "see " in bench_tables.paper_text(meta[n]["paper"]):
            return f"{n}: no paper figure"
    doc = bench_tables.load_json(
        os.path.join(ROOT, "docs", "results", "headline.json"), {})
    if [r["name"] for r in doc.get("rows", [])] != names or \
            not doc.get("commit") or not doc.get("date"):
        return "docs/results/headline.json does not hold the headline " \
            "rows with a commit and date (make docs-figures)"
    return None


def test_tree_families():
    """Every bounded row of the tree's meta belongs to a family with a
    document of its method."""
    for name, entry in tree_meta().items():
        if (entry or {}).get("bound"):
            fam = bench_tables.family_of(name)
            if fam is bench_tables.OTHER:
                return f"{name}: no family in FAMILIES"
            if not os.path.exists(os.path.join(ROOT, "docs", fam[2])):
                return f"{name}: docs/{fam[2]} does not exist"
    return None


def tree_problem(block):
    """--check-docs' problem with the tree's `block` (None if fresh)."""
    fresh = bench_tables.fresh_blocks(ROOT, tree_meta())
    return bench_tables.block_problem(ROOT, block, fresh[block])


def test_tree_bounds_block():
    """docs/benchmarks.md's bounds block is present and is what
    bench_meta.json and docs/results/timed.json give now, one line per
    bounded row (it cannot pass empty)."""
    problem = tree_problem("bounds")
    if problem:
        return problem
    bounded = [n for n, e in tree_meta().items() if (e or {}).get("bound")]
    fresh = bench_tables.fresh_blocks(ROOT, tree_meta())["bounds"]
    if len(fresh) != len(bounded) + 2:
        return f"{len(fresh) - 2} lines for {len(bounded)} bounded rows"
    return None


def test_tree_readme_headline():
    """README.md's headline block is present and is what
    docs/results/headline.json gives now (fails with "README.md: no
    headline block" until README.md has the two marker lines)."""
    return tree_problem("headline")


TESTS = [
    ("report_deterministic_rows", test_report_deterministic_rows),
    ("report_missing_peer", test_report_missing_peer),
    ("report_timed_rows", test_report_timed_rows),
    ("bounds_block", test_bounds_block),
    ("bounds_block_redecides", test_bounds_block_redecides),
    ("headline", test_headline),
    ("merge_timed", test_merge_timed),
    ("check_docs_fake_tree", test_check_docs_fake_tree),
    ("tree_headline_rows", test_tree_headline_rows),
    ("tree_families", test_tree_families),
    ("tree_bounds_block", test_tree_bounds_block),
    ("tree_readme_headline", test_tree_readme_headline),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
