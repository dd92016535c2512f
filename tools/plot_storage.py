#!/usr/bin/env python3
"""Plots of paper 002's Figures 9-12 from build/bench/results.json
(issue 14), written as PNG files beside it, never committed:

  storage_bonnie.png   Figures 9-10: Bonnie-like time per process count,
                       Fulcrum's forms 1, 3, 4, 7, 11 and Linux on 1-3 cores
  storage_ratio.png    Figures 11-12: time relative to one core for the
                       PostMark-like (paper parameters) and the Bonnie-like
                       benchmark at 5 processes: Fulcrum form N over form 1
                       (forms 4: two cores, 11: three), Linux C cores over 1

Needs matplotlib (Debian's python3-matplotlib: run with /usr/bin/python3).
Series with no results are left out; with none at all, nothing is drawn.
"""
import argparse
import json
import os
import sys


def load(path):
    with open(path, encoding="utf-8") as f:
        return {r["name"]: r["median"] for r in json.load(f)}


def bonnie_plot(plt, res, out):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    drawn = False
    series = [(f"Fulcrum form {f}", [f"bonnie_form{f}_p{k}" for k in range(1, 8)])
              for f in (1, 3, 4, 7, 11)]
    series += [(f"Linux {c} core{'s' if c > 1 else ''}",
                [f"linux_bonnie_c{c}_p{k}" for k in range(1, 8)])
               for c in (1, 2, 3)]
    for label, names in series:
        pts = [(k, res[n] / 1e6) for k, n in enumerate(names, 1) if n in res]
        if pts:
            ax.plot(*zip(*pts), marker="o", label=label,
                    linestyle="--" if label.startswith("Linux") else "-")
            drawn = True
    ax.set_xlabel("processes (each 4,000 random 4 KiB reads, 10 % rewritten)")
    ax.set_ylabel("seconds (median, multi-threaded TCG)")
    ax.set_title("Bonnie-like (paper 002 Figures 9-10)")
    ax.legend(fontsize=8)
    if drawn:
        fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return drawn


def ratio_plot(plt, res, out):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    groups = [
        ("PostMark, Fulcrum", ["postmark_form1", "postmark_form4", "postmark_form11"]),
        ("PostMark, Linux", ["linux_postmark_c1", "linux_postmark_c2", "linux_postmark_c3"]),
        ("Bonnie p5, Fulcrum", ["bonnie_form1_p5", "bonnie_form4_p5", "bonnie_form11_p5"]),
        ("Bonnie p5, Linux", ["linux_bonnie_c1_p5", "linux_bonnie_c2_p5", "linux_bonnie_c3_p5"]),
    ]
    drawn = False
    for label, names in groups:
        if names[0] not in res:
            continue
        pts = [(c, res[n] / res[names[0]]) for c, n in enumerate(names, 1)
               if n in res]
        ax.plot(*zip(*pts), marker="o", label=label,
                linestyle="--" if "Linux" in label else "-")
        drawn = True
    ax.axhline(1.0, color="grey", linewidth=0.5)
    ax.set_xticks([1, 2, 3])
    ax.set_xlabel("cores (Fulcrum: forms 1, 4, 11)")
    ax.set_ylabel("time / time on one core")
    ax.set_title("Ratio to one core (paper 002 Figures 11-12)")
    ax.legend(fontsize=8)
    if drawn:
        fig.savefig(out, dpi=110, bbox_inches="tight")
    plt.close(fig)
    return drawn


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", default="build/bench/results.json")
    opts = ap.parse_args(argv)
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_storage: no matplotlib (python3-matplotlib): no plots")
        return 0
    res = load(opts.results)
    outdir = os.path.dirname(os.path.abspath(opts.results))
    for name, fn in (("storage_bonnie.png", bonnie_plot),
                     ("storage_ratio.png", ratio_plot)):
        path = os.path.join(outdir, name)
        print(f"plot_storage: {path}" if fn(plt, res, path)
              else f"plot_storage: {name}: no results to plot")
    return 0


if __name__ == "__main__":
    sys.exit(main())
