#!/usr/bin/env python3
"""Run the simulator's benchmarks and merge them into results.json.

Called by `make bench` (docs/bench-sim.md, "Balance quality"):

    sim_bench.py --sim build/sim/fulsim --out build/bench [--sets 1000]

  sim_events_per_s        simulated scheduling events per second of host
                          time (fulsim --speed, one sample per run)
  sim_quality_<p>_c<N>    makespan / lower bound per random set of
                          independent CPU-bound tasks (the mean is the
                          figure; max holds the worst set)
  sim_quality_<p>_vs_ps_c<N>  makespan / ideal processor sharing's
                          makespan, per set (the same sets and run)
  sim_lpt_c<N>            the same for LPT (longest processing time first),
  sim_ps_c<N>             ideal processor sharing and list scheduling in
  sim_list_c<N>           release order (yardsticks, sim_out.c)
  sim_quality_lpt_c<N>    LPT again under the quality name (clairvoyant)
  sim_quality_list_c<N>   list scheduling in a random order per set
                          (Graham; non-clairvoyant reference)
  sim_migrations_<p>_c<N> migrations per task, per set

and paper 001's sets as ubench=alb runs them (fulsim --alb: 4 cores,
per-core speed jitter, --runs seeded runs per set, count and alb paired
in each run; <set> one of lz77 crc queens matmul memcpy set1 set2 set3):

  sim_moves_<p>_<set>     moves (migrations) per run, p count or alb
  sim_alb_moves_over_count_<set>  alb's moves minus count's, per run
  sim_imbalance_<p>_<set> per run, the time average of max over cores
                          1..3 of |weight - average| / average
  sim_makespan_<p>_<set>  per run, first placement to last exit, ms

The per-core-count runs go to two host processes at once (the machine
has two cores); fulsim itself is single-threaded, and the paper 001 runs
and then the speed runs are made alone, after them. Writes results.json (merged by name) and prints
the quality table (docs/bench-sim.md).
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bench_report  # noqa: E402

CORES = (4, 16, 64, 256)
ALB_SETS = ("lz77", "crc", "queens", "matmul", "memcpy", "set1", "set2",
            "set3")
POLICIES = ("fulcrum", "mginkgo", "count", "alb", "opzone")
REFS = ("lpt", "ps", "list", "list_random")
# A yardstick's row -> its result names.
REF_NAMES = {"lpt": ("sim_lpt_c{n}", "sim_quality_lpt_c{n}"),
             "ps": ("sim_ps_c{n}",),
             "list": ("sim_list_c{n}",),
             "list_random": ("sim_quality_list_c{n}",)}


def run_json(cmd):
    """Run fulsim, return its JSON output; raise on failure."""
    res = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if res.returncode:
        raise RuntimeError(f"{' '.join(cmd)}: exit {res.returncode}: "
                           f"{res.stderr.strip()}")
    return json.loads(res.stdout)


def quality(sim, sets, seed, cores):
    """The quality rows of one core count."""
    return run_json([sim, "--quality", "--sets", str(sets), "--seed",
                     str(seed), "--core-list", str(cores)])


def speed_results(speed, meta):
    """results.json entries of fulsim --speed's runs."""
    return [bench_report.build_result(
        "sim_events_per_s", "events/s",
        [round(r["events_per_s"]) for r in speed["runs"]], meta)]


def results_of(rows, speed, meta):
    """results.json entries from the quality rows and the speed runs."""
    out = speed_results(speed, meta)
    for row in rows:
        pol, n = row["policy"], row["cores"]
        ratios = [round(x, 4) for x in row["ratio"]]
        if pol in REFS:
            out += [bench_report.build_result(name.format(n=n), "ratio",
                                              ratios, meta)
                    for name in REF_NAMES[pol]]
            continue
        out.append(bench_report.build_result(f"sim_quality_{pol}_c{n}",
                                             "ratio", ratios, meta))
        out.append(bench_report.build_result(
            f"sim_quality_{pol}_vs_ps_c{n}", "ratio",
            [round(x, 4) for x in row["vs_ps"]], meta))
        out.append(bench_report.build_result(
            f"sim_migrations_{pol}_c{n}", "migrations/task",
            [round(x, 4) for x in row["mig_per_task"]], meta))
    for r in out:  # per-set samples stay in the quality JSON, not here
        r.pop("table", None)
    return out


def alb_results(doc, meta):
    """results.json entries from fulsim --alb's rows."""
    rows = {(r["set"], r["policy"]): r for r in doc["rows"]}
    out = []
    for st in ALB_SETS:
        for pol in ("count", "alb"):
            r = rows[(st, pol)]
            out += [bench_report.build_result(f"sim_moves_{pol}_{st}",
                                              "moves", r["moves"], meta),
                    bench_report.build_result(f"sim_imbalance_{pol}_{st}",
                                              "ratio", r["imbalance"], meta),
                    bench_report.build_result(f"sim_makespan_{pol}_{st}",
                                              "ms", r["completion_ms"], meta)]
        diff = [a - c for a, c in zip(rows[(st, "alb")]["moves"],
                                      rows[(st, "count")]["moves"])]
        out.append(bench_report.build_result(
            f"sim_alb_moves_over_count_{st}", "moves", diff, meta))
    for r in out:
        r.pop("table", None)
    return out


def alb_table(doc):
    """The docs table of fulsim --alb: means over the runs, count / alb."""
    rows = {(r["set"], r["policy"]): r for r in doc["rows"]}
    lines = [f"{doc['runs']} runs per set, jitter {doc['jitter']}, "
             f"epoch {doc['jitter_ms']} ms; means, count / alb:",
             "| set | moves | alb - count (95 % interval) | imbalance | "
             "makespan ms | alb / count |", "|---|---:|---:|---:|---:|---:|"]

    def mean(x):
        return sum(x) / len(x)
    for st in ALB_SETS:
        c, a = rows[(st, "count")], rows[(st, "alb")]
        mc, ma = mean(c["completion_ms"]), mean(a["completion_ms"])
        d = [x - y for x, y in zip(a["moves"], c["moves"])]
        md = mean(d)
        half = 1.96 * (sum((x - md) ** 2 for x in d) /
                       max(len(d) - 1, 1) / len(d)) ** 0.5
        lines.append(
            f"| {st} | {mean(c['moves']):.2f} / {mean(a['moves']):.2f} | "
            f"{md:.3f} [{md - half:.3f}, {md + half:.3f}] | "
            f"{mean(c['imbalance']):.4f} / {mean(a['imbalance']):.4f} | "
            f"{mc:.1f} / {ma:.1f} | {ma / mc:.4f} |")
    return lines


def table(rows):
    """The docs table: mean / worst ratio, mean ratio to processor
    sharing and migrations per task."""
    lines = ["| policy | cores | mean | worst | vs PS | migrations/task |",
             "|---|---:|---:|---:|---:|---:|"]
    for row in sorted(rows, key=lambda r: (POLICIES + REFS).index(
            r["policy"]) * 1000 + r["cores"]):
        x = row["ratio"]
        mig, vs_ps = row.get("mig_per_task"), row.get("vs_ps")
        lines.append(f"| {row['policy']} | {row['cores']} | "
                     f"{sum(x) / len(x):.3f} | {max(x):.3f} | "
                     + (f"{sum(vs_ps) / len(vs_ps):.4f} | " if vs_ps
                        else "- | ")
                     + (f"{sum(mig) / len(mig):.3f} |" if mig else "- |"))
    return lines


def main(argv=None):
    """Run, merge, print."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default="build/sim/fulsim")
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--sets", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runs", type=int, default=10000,
                    help="seeded runs per paper 001 set (fulsim --alb)")
    ap.add_argument("--jitter", type=float, default=0.05,
                    help="per-core speed jitter of those runs")
    opts = ap.parse_args(argv)
    meta = bench_report.load_json(opts.meta, {})
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        docs = list(pool.map(lambda n: quality(opts.sim, opts.sets,
                                               opts.seed, n),
                             sorted(CORES, reverse=True)))
    rows = [r for d in docs for r in d["rows"]]
    alb = run_json([opts.sim, "--alb", "--runs", str(opts.runs), "--seed",
                    str(opts.seed), "--jitter", str(opts.jitter)])
    speed = run_json([opts.sim, "--speed", "--repeat", str(opts.repeat)])
    os.makedirs(opts.out, exist_ok=True)
    with open(os.path.join(opts.out, "sim_quality.json"), "w",
              encoding="utf-8") as f:
        json.dump({"sets": opts.sets, "seed": opts.seed, "rows": rows,
                   "speed": speed}, f)
    with open(os.path.join(opts.out, "sim_alb.json"), "w",
              encoding="utf-8") as f:
        json.dump(alb, f)
    new = results_of(rows, speed, meta) + alb_results(alb, meta)
    old = bench_report.load_json(os.path.join(opts.out, "results.json"), [])
    merged = bench_report.merge_results(old, new)
    with open(os.path.join(opts.out, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump(merged, f, indent=2)
        f.write("\n")
    print("\n".join(table(rows)))
    print("\n".join(alb_table(alb)))
    ev = [r["events_per_s"] for r in speed["runs"]]
    print(f"sim_events_per_s: median {sorted(ev)[(len(ev) - 1) // 2]:.0f} "
          f"({speed['workload']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
