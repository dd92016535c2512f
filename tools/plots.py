#!/usr/bin/env python3
"""Plots of Fulcrum's benchmark results and traces (matplotlib, Debian's
python3-matplotlib: `scripts/setup.sh plots` installs it).

    plots.py [--results build/bench/results.json] [--trace LOG ...]
             --out DIR [--if-available]

Writes PNG files into DIR (under build/, never committed):

  wake_latency_hist.png   the wake-up latency histogram of each policy
                          (results.json: wake_latency_<policy> samples)
  <name>_util.png         per-core utilization over time, 10 ms bins,
                          migrations marked (a trace: console LOG of
                          `make trace`, read by tools/trace_export.py)
  <name>_runqueue.png     per-core run-queue length (runnable threads,
                          the running one included) over time, same trace

<name> is the traced scenario: the first boot argument on the log's
first line, the QEMU command (ubench=matmul: matmul; demo: demo).
With --if-available, a missing matplotlib is a note, not an error
(`make bench` and `make plots` install it first: scripts/setup.sh
plots). A python3 without it (a pyenv one, say) hands over to Debian's
/usr/bin/python3.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import trace_export as te  # noqa: E402

BIN_S = 0.010  # utilization bins


def load_plt():
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        return plt
    except ImportError:
        return None


def wake_hist(plt, results, out):
    """One histogram per policy of its wake-up latency samples."""
    runs = [r for r in results if r["name"].startswith("wake_latency_")
            and r.get("samples")]
    if not runs:
        return None
    fig, axes = plt.subplots(len(runs), 1, figsize=(8, 2.2 * len(runs)),
                             sharex=True, squeeze=False)
    lo = max(1, min(min(r["samples"]) for r in runs))
    hi = max(max(r["samples"]) for r in runs)
    edges = [lo * (hi / lo) ** (k / 40) for k in range(41)] \
        if hi > lo else [lo, lo + 1]
    for ax, r in zip(axes[:, 0], runs):
        ax.hist(r["samples"], bins=edges, color="tab:blue")
        ax.set_xscale("log")
        ax.set_ylabel("samples")
        ax.set_title(f"{r['name'][len('wake_latency_'):]}: median "
                     f"{r['median']} {r['unit']}, {len(r['samples'])} "
                     "samples", fontsize=9)
    axes[-1, 0].set_xlabel(f"wake-up latency ({runs[0]['unit']}, log)")
    fig.tight_layout()
    path = os.path.join(out, "wake_latency_hist.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def busy_intervals(trace):
    """cpu -> [(t0, t1)] counter ticks a non-idle thread ran; the first
    and the last record's time."""
    recs = trace.records()
    t_end = recs[-1].ts if recs else 0
    out = {c: [] for c in range(trace.header["ncpus"])}
    since = {}
    for r in recs:
        if r.type != te.SWITCH:
            continue
        if r.a and r.cpu in since:
            out[r.cpu].append((since.pop(r.cpu), r.ts))
        if r.b:
            since[r.cpu] = r.ts
        else:
            since.pop(r.cpu, None)
    for c, t0 in since.items():
        out[c].append((t0, t_end))
    return out, (recs[0].ts if recs else 0), t_end


def util_plot(plt, trace, name, out):
    busy, t0, t1 = busy_intervals(trace)
    step = max(1, int(trace.freq * BIN_S))  # counter ticks per bin
    n = (t1 - t0) // step + 1
    fig, ax = plt.subplots(figsize=(10, 4))
    for c, iv in busy.items():
        bins = [0] * n
        for a, b in iv:  # integers: every step moves a to the next edge
            while a < b:
                k = (a - t0) // step
                edge = t0 + (k + 1) * step
                bins[k] += min(b, edge) - a
                a = edge
        xs = [(t0 + (k + 0.5) * step) / trace.freq for k in range(n)]
        ax.plot(xs, [100 * v / step for v in bins], label=f"cpu{c}",
                linewidth=0.8)
    moves = [r for r in trace.records() if r.type == te.MIG_OUT]
    for r in moves:
        ax.axvline(r.ts / trace.freq, color="grey", alpha=0.3,
                   linewidth=0.5)
    ax.set_xlabel("time (s); grey lines: migrations")
    ax.set_ylabel("utilization (%)")
    ax.set_title(f"{name}: per-core utilization ({BIN_S * 1000:.0f} ms "
                 f"bins), {len(moves)} migrations, lost records "
                 f"{sum(trace.lost().values())}", fontsize=9)
    ax.legend(fontsize=8, loc="upper right")
    fig.tight_layout()
    path = os.path.join(out, f"{name}_util.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def runqueue_series(trace):
    """cpu -> [(t, runnable)]: threads READY or running there."""
    on = {c: set() for c in range(trace.header["ncpus"])}
    series = {c: [] for c in on}
    for r in trace.records():
        c, t = r.cpu, r.ts / trace.freq
        if r.type == te.WAKE and r.a:
            on[c].add(r.a)
        elif r.type == te.SWITCH:
            if r.b:
                on[c].add(r.b)
            if r.a and r.arg not in (te.ST_READY, te.ST_RUNNING):  # left
                on[c].discard(r.a)
        elif r.type == te.MIG_OUT:
            on[c].discard(r.a)
        elif r.type == te.THREAD_EXIT:
            on[c].discard(r.a)
        else:
            continue
        series[c].append((t, len(on[c])))
    return series


def runqueue_plot(plt, trace, name, out):
    series = runqueue_series(trace)
    fig, axes = plt.subplots(len(series), 1, figsize=(10, 1.4 * len(series)),
                             sharex=True, squeeze=False)
    for ax, (c, pts) in zip(axes[:, 0], series.items()):
        if pts:
            ax.step([p[0] for p in pts], [p[1] for p in pts], where="post",
                    linewidth=0.8)
        ax.set_ylabel(f"cpu{c}")
    axes[0, 0].set_title(f"{name}: runnable threads per core", fontsize=9)
    axes[-1, 0].set_xlabel("time (s)")
    fig.tight_layout()
    path = os.path.join(out, f"{name}_runqueue.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def scenario_name(log):
    """The scenario a trace log ran: the first boot argument of the QEMU
    command line its first line shows (ubench=matmul: matmul), else the
    log's folder name."""
    with open(log, errors="replace") as f:
        first = f.readline()
    if "-append " in first:
        arg = first.split("-append ", 1)[1].split()[0].split(",")[0]
        return arg.split("=", 1)[-1] or "trace"
    return os.path.basename(os.path.dirname(os.path.abspath(log)))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results")
    ap.add_argument("--trace", action="append", default=[])
    ap.add_argument("--out", required=True)
    ap.add_argument("--if-available", action="store_true")
    opts = ap.parse_args(argv)
    plt = load_plt()
    system = "/usr/bin/python3"  # Debian's, which python3-matplotlib serves
    if plt is None and os.path.exists(system) and \
            os.path.realpath(sys.executable) != os.path.realpath(system) and \
            not os.environ.get("FUL_PLOTS_REEXEC"):
        os.environ["FUL_PLOTS_REEXEC"] = "1"  # once
        os.execv(system, [system, os.path.abspath(__file__)] +
                 (sys.argv[1:] if argv is None else list(argv)))
    if plt is None:
        msg = ("plots: matplotlib is not installed (Debian "
               "python3-matplotlib; scripts/setup.sh plots)")
        print(msg, file=sys.stderr)
        return 0 if opts.if_available else 1
    os.makedirs(opts.out, exist_ok=True)
    made = []
    if opts.results and os.path.exists(opts.results):
        with open(opts.results) as f:
            results = json.load(f)
        made.append(wake_hist(plt, results, opts.out))
    for log in opts.trace:
        if not os.path.exists(log):
            print(f"plots: no trace {log}", file=sys.stderr)
            continue
        with open(log, encoding="utf-8", errors="replace") as f:
            try:
                trace = te.parse(f.read())
            except te.DumpError as e:
                print(f"plots: {log}: {e}", file=sys.stderr)
                return 1
        name = scenario_name(log)
        made += [util_plot(plt, trace, name, opts.out),
                 runqueue_plot(plt, trace, name, opts.out)]
    made = [m for m in made if m]
    print("plots: " + (", ".join(made) if made else "nothing to plot"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
