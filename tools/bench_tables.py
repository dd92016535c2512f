#!/usr/bin/env python3
"""Generated benchmark tables: the report, and the blocks in the docs.

    bench_tables.py [--results R] [--timed T] [--out build/report]
        per family of benchmarks, build/report/<family>.md: each result
        (min, median, max, unit, kind, runs), the paper's figure beside
        it where tools/bench_meta.json has one, its bound and decision
        (make report)
    bench_tables.py --figures [--results R] [--timed T] [--commit C]
        the headline rows of R into docs/results/headline.json, the
        rows of T merged by row into docs/results/timed.json, then
        --update-docs (make docs-figures)
    bench_tables.py --update-docs
        rewrite the generated blocks of README.md (headline) and
        docs/benchmarks.md (bounds) from docs/results/*.json and
        tools/bench_meta.json
    bench_tables.py --check-docs
        exit 1, naming the block, if a block is missing or differs

A headline row is a row of bench_meta.json with a "headline" key (its
order in the table, at most MAX_HEADLINE rows), a paper figure and a
result. A deterministic row is decided by the one run in results.json
(tools/bench_check.py); a timed row only by make bench-timed's boots
(timed.json, tools/bench_kinds.py), INCONCLUSIVE "not run" if absent.
"""

import argparse
import datetime
import fnmatch
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.dont_write_bytecode = True  # keep the source tree free of __pycache__
sys.path.insert(0, HERE)
import bench_check  # noqa: E402  (a deterministic row's decision)
import bench_kinds  # noqa: E402  (kinds, the timed decision)
from bench_report import meta_entry  # noqa: E402  (patterns in meta)

MAX_HEADLINE = 12
HEADLINE = ("<!-- headline:begin -->", "<!-- headline:end -->")
BOUNDS = ("<!-- bounds:begin -->", "<!-- bounds:end -->")
# The generated blocks: name -> (document, markers, what it is made of)
BLOCKS = {"headline": ("README.md", HEADLINE, "docs/results/headline.json"),
          "bounds": ("docs/benchmarks.md", BOUNDS,
                     "docs/results/timed.json and tools/bench_meta.json")}

# (family, title, document of its method, name patterns); the first
# family whose pattern matches a result's name takes it.
FAMILIES = (
    ("wake", "Wake-up latency under stress (paper 004)", "bench-wake.md",
     ("wake_*", "migrations_wake_*")),
    ("kernel", "Kernel paths", "bench-kernel.md",
     ("sgi_*", "mailbox_post*", "migrate_*", "frame_create*", "map_max",
      "unmap_max")),
    ("ipc", "IPC and system calls (paper 003, seL4)", "bench-ipc.md",
     ("ipc_*", "null_syscall", "signal_high_prio", "map_*_pages")),
    ("decisions", "Balancer decisions (paper 000, 001, 004)",
     "bench-balancer.md",
     ("get_free_core*", "get_transfer_task*", "lb_*", "fulcrum_rebalance",
      "balancer_round", "balancer_share")),
    ("matmul", "Matrix multiplication (paper 000)", "bench-balancer.md",
     ("matmul_*",)),
    ("workloads", "Workloads under count and alb (paper 001)",
     "bench-balancer.md",
     ("completion_*", "migrations_*", "imbalance_*")),
    ("sim", "The simulator", "bench-sim.md", ("sim_*",)),
    ("storage", "Storage servers (paper 002, Linux)", "bench-storage.md",
     ("disk_read_*", "cache_read_*", "fs_*", "fsring_*", "block_read_*",
      "bonnie_*", "postmark_*", "linux_*")),
    ("trace", "Trace rings", "bench-kernel.md", ("trace_*",)),
)
OTHER = ("other", "Other results", "benchmarks.md", ())


# ------------------------------------------------------------ inputs

def load_json(path, default=None):
    """JSON from path; `default` if the file is absent."""
    if not os.path.exists(path):
        return default
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def write_json(path, doc):
    """Write doc as indented JSON with a final newline."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def family_of(name):
    """The FAMILIES entry whose patterns match `name` (OTHER if none)."""
    for fam in FAMILIES:
        if any(fnmatch.fnmatchcase(name, p) for p in fam[3]):
            return fam
    return OTHER


# ------------------------------------------------------------ formats

def num(value):
    """A figure as text: integers with thousands separators, other
    numbers to 4 significant digits (large ones rounded)."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float) and value.is_integer() and abs(value) >= 1:
        value = int(value)
    if isinstance(value, int) or abs(value) >= 1000:
        return f"{round(value):,}"
    return f"{value:.4g}"


def limit_text(key, limit):
    """One bound key as text: `median <= 100`, `mean / `b`'s <= 1.0`,
    `median of the per-run ratios to `b`'s <= 1.02`."""
    stat, _, side = key.rpartition("_")
    rel = "<=" if side == "max" else ">="
    if not stat.endswith("_ratio"):
        return f"{stat} {rel} {num(limit)}"
    stat = stat[: -len("_ratio")]
    value, others = limit
    others = others if isinstance(others, list) else [others]
    names = " and ".join(f"`{o}`'s" for o in others)
    if stat == "paired":
        return f"median of the per-run ratios to {names} {rel} {value}"
    return f"{stat} / {names} {rel} {value}"


def bound_text(entry):
    """A meta entry's bound as text ("-" if it has none)."""
    bound = (entry or {}).get("bound")
    if not bound:
        return "-"
    text = "; ".join(limit_text(k, v) for k, v in bound.items())
    if bench_kinds.row_kind(entry) == "timed":
        text += f" ({entry['timed']['boots']} boots)"
    return text


def paper_short_unit(paper):
    """The paper's unit without its parenthesis: `cycles`, `us`."""
    return (paper.get("unit") or "").split(" (")[0].split(";")[0].strip()


def paper_text(paper):
    """The paper's figure as text (`58 cycles`, `18 us (14,256
    cycles)`); where the paper gives no single figure, the table or
    figure to read (`see 004 Figure 7`); "-" without a paper."""
    if not paper:
        return "-"
    value = paper.get("average", paper.get("figure"))
    if value is None:
        return f"see {paper.get('source', '?').split(':')[0]}"
    text = f"{num(value)} {paper_short_unit(paper)}".strip()
    if paper.get("compare_average") is not None:
        text += f" ({num(paper['compare_average'])} cycles)"
    return text


def peer_text(peer):
    """A peer's figures (seL4 on the same QEMU): `seL4 UP 245, SMP
    327`; "" without a peer."""
    if not peer:
        return ""
    parts = [f"{k.split('_')[1]} {num(v)}" for k, v in peer.items()
             if k.startswith("seL4_")]
    return "seL4 " + ", ".join(parts) if parts else ""


def cell(text):
    """Text made safe for a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def table(head, rows):
    """A Markdown table: a header row, its rule, one line per row."""
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(cell(c) for c in row) + " |"
              for row in rows]
    return lines


# ---------------------------------------------------------- decisions

def timed_decision(name, bound, row):
    """The decision text of a timed row from its timed.json record
    (None: not run), against the current bound."""
    if row is None:
        return f"INCONCLUSIVE: not run (make bench-timed ROWS={name})"
    decision, why = bench_kinds.decide(bound, row.get("ci"), row["n"])
    # the commit stays in the JSON: the docs name no commit
    return (f"{decision}: median {num(row['median'])}, 95 % interval "
            f"{interval_text(row.get('ci'))}, n={row['n']}, "
            f"{str(row.get('date', '?'))[:10]} ({why})")


def interval_text(ci):
    """[lo, hi] with num(), or `none` when there is no interval."""
    return "none" if ci is None else f"[{num(ci[0])}, {num(ci[1])}]"


def deterministic_decision(name, entry, by_name):
    """PASS, FAIL or UNREACHABLE with bench_check's reason, from the
    one run in results.json (`by_name`)."""
    decisions, lines = bench_check.check_deterministic(
        name, entry["bound"], by_name)
    if entry.get("unreachable"):
        decisions, lines = bench_check.mark_unreachable(
            name, entry["unreachable"], decisions, lines)
        lines = lines[:len(decisions)]
    worst = next((d for d in (bench_check.FAIL, bench_check.UNREACHABLE)
                  if d in decisions), bench_check.PASS)
    return f"{worst}: " + "; ".join(reason(name, one) for line in lines
                                    for one in line.split("\n"))


def reason(name, line):
    """A bench_check line without its verdict word and the row's own
    name: `median 16 <= 20`, `linux_read_4k is missing ...`."""
    text = " ".join(line.split()[1:])
    return text[len(name):].lstrip(": ") if text.startswith(name + " ") \
        or text.startswith(name + ":") else text


def decision(name, entry, by_name, timed_rows):
    """The decision text of one row ("-" for a row without a bound)."""
    if not (entry or {}).get("bound"):
        return "-"
    if bench_kinds.row_kind(entry) == "timed":
        return timed_decision(name, entry["bound"], timed_rows.get(name))
    return deterministic_decision(name, entry, by_name)


# ------------------------------------------------------------- report

def kind_text(result, entry):
    """The result's kind; a timed figure of one boot says so."""
    kind = result.get("kind") or bench_kinds.row_kind(entry)
    if kind == "timed" and result.get("note"):
        kind += " (single boot)"
    return kind


def report_row(name, result, meta, by_name, timed_rows):
    """One line of a family's table; `result` is None when a bounded
    row of meta is missing from the results."""
    entry = meta_entry(meta, name)
    paper = entry.get("paper") or (result or {}).get("paper")
    beside = paper_text(paper)
    if entry.get("peer"):
        beside = peer_text(entry["peer"]) if beside == "-" else \
            f"{beside}; {peer_text(entry['peer'])}"
    r = result or {}
    return [f"`{name}`", num(r.get("min")), num(r.get("median")),
            num(r.get("max")), r.get("unit", entry.get("unit", "-")),
            kind_text(r, entry) if result else bench_kinds.row_kind(entry),
            num(r.get("runs")), beside, bound_text(entry),
            decision(name, entry, by_name, timed_rows)]


def family_rows(results, meta):
    """{family: [names]} in results' order, then the bounded rows of
    meta that no result carries (each in its family)."""
    out = {}
    for r in results:
        out.setdefault(family_of(r["name"])[0], []).append(r["name"])
    have = {r["name"] for r in results}
    for name, entry in meta.items():
        if (entry or {}).get("bound") and name not in have:
            out.setdefault(family_of(name)[0], []).append(name)
    return out


REPORT_HEAD = ["result", "min", "median", "max", "unit", "kind", "runs",
               "paper (or peer)", "bound", "decision"]


def family_page(fam, names, results, meta, timed):
    """The Markdown page of one family."""
    by_name = {r["name"]: r for r in results}
    timed_rows = (timed or {}).get("rows", {})
    rows = [report_row(n, by_name.get(n), meta, by_name, timed_rows)
            for n in names]
    return ([f"# {fam[1]}", "",
             f"Generated by tools/bench_tables.py (make report); the "
             f"method is in docs/{fam[2]}. Timed rows are decided by "
             f"make bench-timed (timed.json), not by the one boot here.",
             ""] + table(REPORT_HEAD, rows))


def decision_counts(names, results, meta, timed):
    """How many of the named rows are PASS, FAIL, INCONCLUSIVE and
    UNREACHABLE (as text, in that order)."""
    by_name = {r["name"]: r for r in results}
    timed_rows = (timed or {}).get("rows", {})
    words = [decision(n, meta_entry(meta, n), by_name,
                      timed_rows).split(":")[0] for n in names]
    return [str(words.count(w)) for w in
            ("PASS", "FAIL", "INCONCLUSIVE", "UNREACHABLE")]


def write_report(out, results, meta, timed, sources):
    """build/report/<family>.md per family and index.md; returns the
    paths written."""
    os.makedirs(out, exist_ok=True)
    groups = family_rows(results, meta)
    written, index = [], []
    for fam in FAMILIES + (OTHER,):
        names = groups.get(fam[0])
        if not names:
            continue
        path = os.path.join(out, f"{fam[0]}.md")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(family_page(fam, names, results, meta,
                                          timed)) + "\n")
        written.append(path)
        index.append([f"[{fam[1]}]({fam[0]}.md)", str(len(names))] +
                     decision_counts(names, results, meta, timed))
    page = ["# Benchmark results", "", f"From {sources}.", ""] + \
        table(["family", "rows", "PASS", "FAIL", "INCONCLUSIVE",
               "UNREACHABLE"], index)
    path = os.path.join(out, "index.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(page) + "\n")
    return written + [path]


# ----------------------------------------------------------- headline

def headline_names(meta):
    """The meta rows with a "headline" key, in its order."""
    rows = [(e["headline"], n) for n, e in meta.items()
            if isinstance(e, dict) and e.get("headline") is not None]
    return [n for _, n in sorted(rows)]


def headline_doc(results, meta, commit, date):
    """docs/results/headline.json's content from a results.json."""
    by_name = {r["name"]: r for r in results}
    rows = []
    for name in headline_names(meta):
        entry, res = meta[name], by_name.get(name)
        if res is None:
            continue
        rows.append({"name": name, "order": entry["headline"],
                     "source": entry["paper"]["source"],
                     "paper": paper_text(entry["paper"]),
                     "min": res["min"], "median": res["median"],
                     "max": res["max"], "unit": res["unit"],
                     "kind": res.get("kind"), "runs": res["runs"]})
    return {"command": "make bench", "commit": commit, "date": date,
            "rows": rows}


def headline_block(doc):
    """The README's table of headline rows and its closing line."""
    rows = [[f"`{r['name']}`: paper {r['source']}", r["paper"],
             num(r["median"]), r["unit"], r["kind"]]
            for r in doc["rows"]]
    lines = table(["figure", "paper", "Fulcrum (median)", "unit", "kind"],
                  rows)
    return lines + ["", f"Figures from `{doc['command']}` on "
                    f"{doc['date'][:10]} (its commit: "
                    "docs/results/headline.json); method and units in "
                    "docs/benchmarks.md."]


# -------------------------------------------------------------- bounds

def bounds_block(meta, timed):
    """Every bounded row of meta: name, kind, bound, and a timed row's
    decision from `timed` (timed.json's content, or None)."""
    timed_rows = (timed or {}).get("rows", {})
    rows = []
    for name, entry in meta.items():
        if not (entry or {}).get("bound"):
            continue
        kind = bench_kinds.row_kind(entry)
        text = "-"
        if kind == "timed":
            text = timed_decision(name, entry["bound"], timed_rows.get(name))
        if entry.get("unreachable"):
            kind += ", marked unreachable"
        rows.append([f"`{name}`", kind, bound_text(entry), text])
    return table(["row", "kind", "bound", "decision (timed rows)"], rows)


def merge_timed(old, new):
    """timed.json contents merged by row (new rows replace old); the
    top-level stamp is the newest row's."""
    rows = dict((old or {}).get("rows", {}))
    rows.update((new or {}).get("rows", {}))
    newest = max(rows.values(), key=lambda r: r.get("date", ""),
                 default={})
    return {"commit": newest.get("commit"), "dirty": newest.get("dirty"),
            "date": newest.get("date"), "rows": rows}


# --------------------------------------------------------- the blocks

def fresh_blocks(root, meta):
    """{block name: its lines} made from docs/results/*.json under root
    (a block whose input is absent is made from nothing)."""
    results = os.path.join(root, "docs", "results")
    head = load_json(os.path.join(results, "headline.json"),
                     {"command": "make bench", "commit": "none",
                      "date": "none", "rows": []})
    timed = load_json(os.path.join(results, "timed.json"))
    return {"headline": headline_block(head),
            "bounds": bounds_block(meta, timed)}


def split_block(text, markers):
    """(before, block lines, after) of a document's text, or None if
    the two marker lines are not both there, once each, in order."""
    lines = text.split("\n")
    begin, end = markers
    if lines.count(begin) != 1 or lines.count(end) != 1:
        return None
    i, j = lines.index(begin), lines.index(end)
    if j < i:
        return None
    return lines[:i + 1], lines[i + 1:j], lines[j:]


def block_problem(root, name, fresh):
    """Why the block `name` of its document is not `fresh` (None if it
    is the same)."""
    doc, markers, made_of = BLOCKS[name]
    path = os.path.join(root, doc)
    if not os.path.exists(path):
        return f"{doc}: missing"
    with open(path, encoding="utf-8") as f:
        parts = split_block(f.read(), markers)
    if parts is None:
        return (f"{doc}: no {name} block (the lines {markers[0]} and "
                f"{markers[1]})")
    if parts[1] != fresh:
        differ = sorted(set(parts[1]) ^ set(fresh)) or ["(order)"]
        return (f"{doc}: the {name} block differs from {made_of} "
                f"({len(differ)} lines, e.g. {differ[0][:70]!r}); "
                "run tools/bench_tables.py --update-docs")
    return None


def update_block(root, name, fresh):
    """Rewrite the block `name` of its document; False if its markers
    are missing (the document is left as it is)."""
    doc, markers, _ = BLOCKS[name]
    path = os.path.join(root, doc)
    if not os.path.exists(path):
        return False
    with open(path, encoding="utf-8") as f:
        parts = split_block(f.read(), markers)
    if parts is None:
        return False
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(parts[0] + fresh + parts[2]))
    return True


def check_docs(root, meta):
    """The problems of every block ([] if all are fresh)."""
    fresh = fresh_blocks(root, meta)
    return [p for p in (block_problem(root, n, fresh[n]) for n in BLOCKS)
            if p]


def update_docs(root, meta):
    """Rewrite every block; return the names of those whose markers
    are missing."""
    fresh = fresh_blocks(root, meta)
    return [n for n in BLOCKS if not update_block(root, n, fresh[n])]


# ------------------------------------------------------------- driver

def git_head(root):
    """The tree's commit (`unknown` outside git)."""
    out = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"],
                         text=True, capture_output=True).stdout.strip()
    return out or "unknown"


def mtime_utc(path):
    """A file's modification time, UTC, as 2026-12-07T21:11:58Z."""
    stamp = datetime.datetime.fromtimestamp(os.path.getmtime(path),
                                            datetime.timezone.utc)
    return stamp.strftime("%Y-%m-%dT%H:%M:%SZ")


def figures(opts, meta):
    """--figures: headline.json from --results, timed.json merged with
    --timed (if it exists), then the docs' blocks."""
    out = os.path.join(opts.root, "docs", "results")
    results = load_json(opts.results)
    if results is None:
        sys.exit(f"bench_tables: no {opts.results} (make bench)")
    commit = opts.commit or git_head(opts.root)
    date = opts.date or mtime_utc(opts.results)
    write_json(os.path.join(out, "headline.json"),
               headline_doc(results, meta, commit, date))
    old = load_json(os.path.join(out, "timed.json"))
    for path in opts.timed_more + [opts.timed]:
        old = merge_timed(old, load_json(path))
    if old and old.get("rows"):
        write_json(os.path.join(out, "timed.json"), old)
    return update_docs(opts.root, meta)


def parse_args(argv):
    """Parse the command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", default="build/bench/results.json")
    ap.add_argument("--timed", default="build/bench/timed.json")
    ap.add_argument("--timed-more", action="append", default=[],
                    metavar="FILE", help="with --figures: merge this "
                    "timed.json too, before --timed (repeatable)")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--out", default="build/report")
    ap.add_argument("--root", default=ROOT, help="the source tree")
    ap.add_argument("--commit", help="with --figures: the commit of the "
                    "results (default: the tree's HEAD)")
    ap.add_argument("--date", help="with --figures: their date (default: "
                    "the results file's modification time)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--figures", action="store_true")
    mode.add_argument("--update-docs", action="store_true")
    mode.add_argument("--check-docs", action="store_true")
    return ap.parse_args(argv)


def main(argv=None):
    """Write the report, the figures or the blocks, or check them."""
    opts = parse_args(argv)
    meta = load_json(opts.meta, {})
    if opts.check_docs:
        problems = check_docs(opts.root, meta)
        print("\n".join(problems) or "bench_tables: every block is fresh")
        return 1 if problems else 0
    if opts.figures or opts.update_docs:
        missing = figures(opts, meta) if opts.figures else \
            update_docs(opts.root, meta)
        for name in missing:
            doc, markers, _ = BLOCKS[name]
            print(f"bench_tables: {doc}: no {name} block ({markers[0]} "
                  f"... {markers[1]}): not written")
        return 1 if missing else 0
    results = load_json(opts.results)
    if results is None:
        sys.exit(f"bench_tables: no {opts.results} (make bench)")
    timed = load_json(opts.timed)
    sources = f"{opts.results}" + (f" and {opts.timed}" if timed else
                                   " (no timed.json: timed rows not run)")
    paths = write_report(opts.out, results, meta, timed, sources)
    print(f"bench_tables: {len(paths)} pages in {opts.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
