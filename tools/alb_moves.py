#!/usr/bin/env python3
"""Per-run moves of `ubench=alb,wl_log=1` boots (docs/bench-balancer.md, "Paper
001's workloads under count and alb").

    python3 tools/alb_moves.py BOOT.log [SET]

For each run (set, policy, repetition): every rebalance decision that
moved, with the per-core weights and runnable counts of cores 1.. it
decided on, each move (tid, from, to, weight, why) and the round's end
reason. Then, per policy, the moves by kind: onto a busy or an idle core,
and whether count's rule (the source holds at least two runnable threads
more than the destination) would make it from the same state; and the
runs in which a thread moved twice.
"""
import collections
import json
import re
import sys

RUN = re.compile(r"alb: log (\S+) (\S+) from (\d+)")
REP = re.compile(r"alb: rep (\d+) (\S+)\s+(\S+)\s+completion (\d+) ms "
                 r"\((\d+) permille.*migrations (\d+)")


def parse(path):
    """The runs of a boot log: dicts with set, pol, decisions and, once
    its result line is read, rep, mig, comp."""
    runs, cur = [], None
    with open(path, errors="replace") as f:
        for ln in f:
            m = RUN.search(ln)
            if m:
                cur = {"set": m.group(1), "pol": m.group(2), "d": []}
                runs.append(cur)
                continue
            m = REP.search(ln)
            if m and runs:
                runs[-1].update(rep=int(m.group(1)), mig=int(m.group(6)),
                                comp=int(m.group(4)))
                continue
            i = ln.find("LBLOG ")
            if i >= 0 and cur is not None:
                try:
                    cur["d"].append(json.loads(ln[i + 6:]))
                except ValueError:
                    pass  # a line cut by other output
    return runs


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    only = sys.argv[2] if len(sys.argv) > 2 else None
    kinds = collections.Counter()
    twice = collections.Counter()
    nruns = collections.Counter()
    for r in parse(sys.argv[1]):
        if only and r["set"] != only:
            continue
        print(f"== rep {r.get('rep')} {r['set']} {r['pol']}: "
              f"migrations {r.get('mig')}, completion {r.get('comp')} ms")
        nruns[r["pol"]] += 1
        t0, seen, again = None, set(), False
        for d in r["d"]:
            t0 = d["t"] if t0 is None else t0
            if d["kind"] == "place" or not d["moves"]:
                continue
            nrun = list(d["nrun"])
            for x in d["moves"]:
                busy = "busy" if nrun[x["to"]] else "idle"
                legal = nrun[x["from"]] - nrun[x["to"]] >= 2
                kinds[(r["pol"], busy, legal)] += 1
                again |= x["tid"] in seen
                seen.add(x["tid"])
                nrun[x["from"]] -= 1
                nrun[x["to"]] += 1
            mv = " ".join(f"{x['tid']}:{x['from']}->{x['to']} "
                          f"w{x['weight']} {x['why']}" for x in d["moves"])
            w = d.get("weight") or [0]
            print(f"  {(d['t'] - t0) / 62500:7.0f} ms {d['trigger']:6} "
                  f"weight {w[1:]} nrun {d['nrun'][1:]} | {mv} | "
                  f"{d['reason']}")
        twice[r["pol"]] += again
    for (pol, busy, legal), n in sorted(kinds.items()):
        print(f"{pol}: {n} moves onto {busy} cores, "
              f"{'a move' if legal else 'NOT a move'} count's rule makes")
    for pol, n in sorted(nruns.items()):
        print(f"{pol}: {twice[pol]} of {n} runs moved a thread twice")


if __name__ == "__main__":
    main()
