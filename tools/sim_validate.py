#!/usr/bin/env python3
"""The simulator against the emulator (docs/simulator.md, "Validation
against the emulator").

A scenario is run twice: in QEMU under -icount (tools/qemu.py), where the
rootserver prints the balancer's decisions as `LBLOG {json}` lines, and
in fulsim on a workload file that describes the same threads
(tools/sim/validate/*.json). The two decision logs are then compared
record by record, every field of every record, except the fields that
differ by design (BY_DESIGN below says which and why).

    sim_validate.py --kernel build/kernel.elf --sim build/sim/fulsim \\
                    [--scenario table1|matmul] [--log-dir DIR]

Exit status 0 if the logs agree, 1 if not (the first difference is
printed: record, field, both values), 2 on a run that failed.

Scenarios:
  table1  paper 000's Table I (utest=lb_table_i): six threads placed by
          mginkgo from core 0, work3 ends, two rebalances on demand.
          Same sequence expected, record by record.
  matmul  paper 000's matrix experiment (ubench=matmul, n = 128, mginkgo,
          timer rounds every 100 ms, 24 tasks placed 10/7/7 on cores
          1..3). The task length is measured in the same boot (one task
          alone on core 0: ns = instructions under -icount) and written
          into the workload. The whole sequence is compared: the records
          up to the first task's end must agree field by field; from the
          first record that differs on, each record of either log is
          accounted for (SPLIT_NOTE): its loads differ because the tasks
          ended at other times (fulsim --icount gives the busy vCPUs equal
          shares of QEMU's one clock and leaves out the kernel's own
          instructions), and each of QEMU's decisions there is replayed in
          fulsim on QEMU's own loads and must come out the same, every
          field (REPLAY_NOTE).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import qemu  # noqa: E402

# Fields that differ by design, and why (printed with every comparison).
BY_DESIGN = {
    "seq": "the rootserver's log also holds the decisions made before "
           "the scenario (and the rootserver's own); records are compared "
           "in order from the scenario's first",
    "t": "QEMU's record time is the generic counter (62.5 MHz) since "
         "boot, the simulator's is ns since the workload's start",
    "tid": "the kernel's thread ids (slot and generation) against the "
           "workload's indices + 1: mapped one to one at first sight, "
           "every later use must agree with the mapping",
}
ROOT_LOAD_NOTE = ("load[root]: in QEMU the rootserver's core holds the "
                  "balancer's own thread (slice 10) while it decides; the "
                  "simulator runs the policy outside the model. The root "
                  "core is excluded from every decision (sum, min, max).")
SPLIT_NOTE = ("from here on the loads differ: the tasks end at other "
              "times in the two runs. fulsim --icount gives each busy vCPU "
              "an equal share of QEMU's one -icount clock and counts only "
              "the tasks' instructions; QEMU's round robin of the vCPUs "
              "(per-vCPU budgets up to the next timer deadline, in a fixed "
              "order) and the kernel's own instructions (ticks, switches, "
              "the balancer on core 0) are not modelled, so which core "
              "drains first, and when, differs.")
REPLAY_NOTE = ("each of QEMU's decisions from there on was replayed in "
               "fulsim on the loads QEMU recorded (load / slice threads "
               "per core, one timer round) and agreed in every field but "
               "seq, t, load[root] and the moved thread's tid (the replay's "
               "threads are fresh; the policy takes the lowest tid of the "
               "source's equal slices in both)")


class Scenario:
    def __init__(self, name, cpus, append, workload, sim_args,
                 timeout=300, root_load_by_design=False, calibrate=None,
                 collapse=False, replay=False):
        self.name, self.cpus, self.append = name, cpus, append
        self.workload, self.sim_args = workload, sim_args
        self.timeout = timeout
        self.root_load_by_design = root_load_by_design
        self.calibrate = calibrate        # regex: task length in us
        self.collapse = collapse          # repeated timer rounds
        self.replay = replay    # differing tail: replay QEMU's records


SCENARIOS = {
    "table1": Scenario(
        "table1", 4, "utest=lb_table_i",
        os.path.join(ROOT, "tools", "sim", "validate", "table1.json"),
        ["--policy", "mginkgo", "--triggers", "none"]),
    "matmul": Scenario(
        "matmul", 4, "ubench=matmul,mm_n=128,mm_mode=mginkgo,mm_repeat=1",
        os.path.join(ROOT, "tools", "sim", "validate", "matmul.json"),
        ["--policy", "mginkgo", "--triggers", "timer", "--icount"],
        timeout=600, root_load_by_design=True,
        calibrate=r"matmul: task n \d+ alone: (\d+) us",
        collapse=True, replay=True),
}


def lblog_records(lines):
    """The decision records of `LBLOG {json}` console lines."""
    out = []
    for ln in lines:
        i = ln.find("LBLOG ")
        if i >= 0:
            out.append(json.loads(ln[i + 6:]))
    return out


def run_qemu(kernel, sc, log_dir):
    """Boot the scenario under -icount: (records, console lines)."""
    cmd = qemu.build_command(kernel, sc.cpus, append=sc.append,
                             extra_args=qemu.ICOUNT_ARGS)
    log = os.path.join(log_dir, f"validate-{sc.name}.log")
    res = qemu.run(cmd, sc.timeout, log)
    if res.error or res.timed_out:
        raise RuntimeError(f"{sc.name}: QEMU run failed ({res.error or 'timeout'}); "
                           f"log {log}")
    return lblog_records(res.lines), res.lines


def workload_for(sc, lines):
    """The scenario's workload text, with the measured task length."""
    with open(sc.workload, encoding="utf-8") as f:
        doc = json.load(f)
    if sc.calibrate:
        m = [re.search(sc.calibrate, ln) for ln in lines]
        m = [x for x in m if x]
        if not m:
            raise RuntimeError(f"{sc.name}: no calibration line in the log")
        us = int(m[0].group(1))
        for t in doc["threads"]:
            t["phases"] = [{"run": us}]
    return json.dumps(doc)


def run_sim(sim, sc, text):
    """fulsim on workload @text: its decision records."""
    with tempfile.NamedTemporaryFile("w", suffix=".json",
                                     delete=False) as f:
        f.write(text)
        path = f.name
    try:
        res = subprocess.run([sim, *sc.sim_args, "--sample-ms", "0", path],
                             capture_output=True, text=True, timeout=300,
                             check=False)
    finally:
        os.unlink(path)
    if res.returncode:
        raise RuntimeError(f"fulsim: exit {res.returncode}: {res.stderr.strip()}")
    return json.loads(res.stdout)["decisions"]


class TidMap:
    """A one-to-one mapping of QEMU tids to simulator tids."""

    def __init__(self):
        self.q2s, self.s2q = {}, {}

    def same(self, q, s):
        if q is None or s is None:
            return q is s
        if q in self.q2s or s in self.s2q:
            return self.q2s.get(q) == s and self.s2q.get(s) == q
        self.q2s[q], self.s2q[s] = s, q
        return True


def comparable(rec, sc):
    """@rec without the by-design fields (tids are compared apart)."""
    r = {k: v for k, v in rec.items() if k not in ("seq", "t")}
    if sc.root_load_by_design and isinstance(r.get("root"), int):
        r["load"] = list(r["load"])
        r["load"][r["root"]] = None
        for k in ("avg", "hi", "lo"):  # derived from the eligible cores only
            r[k] = rec[k]
    return r


def _moves_differ(qm, sm, tids, where):
    if len(qm) != len(sm):
        return f"{where}: {len(qm)} moves in QEMU, {len(sm)} in the simulator"
    for j, (a, b) in enumerate(zip(qm, sm)):
        for k in sorted(set(a) | set(b)):
            if k == "tid":
                if not tids.same(a.get(k), b.get(k)):
                    return (f"{where}[{j}].tid: QEMU {a.get(k)} is not the "
                            f"simulator's {b.get(k)} (mapped to "
                            f"{tids.q2s.get(a.get(k))})")
            elif a.get(k) != b.get(k):
                return f"{where}[{j}].{k}: QEMU {a.get(k)!r}, simulator {b.get(k)!r}"
    return None


def record_diff(q, s, sc, tids):
    """The first field in which records @q and @s differ, or None."""
    a, b = comparable(q, sc), comparable(s, sc)
    for k in sorted(set(a) | set(b)):
        if k == "moves":
            why = _moves_differ(a.get(k) or [], b.get(k) or [], tids, "moves")
        elif k == "reject":
            ra, rb = a.get(k), b.get(k)
            if (ra is None) != (rb is None):
                why = f"reject: QEMU {ra!r}, simulator {rb!r}"
            else:
                why = ra and _moves_differ([ra], [rb], tids, "reject")
        else:
            why = (None if a.get(k) == b.get(k) else
                   f"{k}: QEMU {a.get(k)!r}, simulator {b.get(k)!r}")
        if why:
            return why
    return None


def collapse(recs, sc):
    """Runs of identical no-move timer rounds as one record: how many
    rounds see the same state depends on the clock (by design)."""
    out = []
    for r in recs:
        if (out and not r["moves"] and not out[-1]["moves"] and
                r["kind"] == "rebalance" and
                comparable(r, sc) == comparable(out[-1], sc)):
            continue
        out.append(r)
    return out


def replay_workload(rec, slice_ms):
    """A workload of QEMU record @rec's state: on each eligible core,
    load / slice threads of @slice_ms, running long past one round."""
    threads = []
    for c, load in enumerate(rec["load"]):
        if c == rec["root"] or not load:
            continue
        if load % slice_ms:
            raise RuntimeError(f"replay: load {load} of core {c} is not "
                               f"a multiple of the slice {slice_ms}")
        threads.append({"name": f"c{c}", "count": load // slice_ms,
                        "cpu": c, "slice_ms": slice_ms,
                        "phases": [{"run": 10_000_000}]})
    return json.dumps({"cores": len(rec["load"]), "root_cpu": rec["root"],
                       "threads": threads})


def replay(sim, sc, rec, slice_ms):
    """fulsim's first timer round on QEMU record @rec's loads: the
    difference from @rec, or None if the decision is the same."""
    out = run_sim(sim, sc, replay_workload(rec, slice_ms))
    mine = next((r for r in out if r["kind"] == "rebalance"), None)
    if mine is None:
        return "the replay made no round"
    a, b = comparable(rec, sc), comparable(mine, sc)
    for x in (a, b):  # the replay's threads are fresh
        x["moves"] = [dict(m, tid=None) for m in x.get("moves") or []]
        if x.get("reject"):
            x["reject"] = dict(x["reject"], tid=None)
    for k in sorted(set(a) | set(b)):
        if a.get(k) != b.get(k):
            return f"{k}: QEMU {a.get(k)!r}, replay {b.get(k)!r}"
    return None


def _loads(rec, sc):
    """Loads of the eligible cores as a string (the root core left out)."""
    return "/".join(str(x) for c, x in enumerate(rec["load"])
                    if not (sc.root_load_by_design and c == rec["root"]))


def account_tail(qrecs, srecs, start, sc, sim, slice_ms):
    """Records @start.. of both logs, each accounted for: (ok, lines)."""
    lines = [f"  from record {start} on: {SPLIT_NOTE}"]
    ok = True
    for i in range(start, max(len(qrecs), len(srecs))):
        q = qrecs[i] if i < len(qrecs) else None
        s = srecs[i] if i < len(srecs) else None
        qs = (f"QEMU loads {_loads(q, sc)}, {q['reason']}, "
              f"{len(q['moves'])} move(s)") if q else "QEMU: none (its run ended)"
        ss = (f"simulator loads {_loads(s, sc)}, {s['reason']}, "
              f"{len(s['moves'])} move(s)") if s else \
            "simulator: none (its run ended)"
        why = replay(sim, sc, q, slice_ms) if q else None
        if why:
            ok = False
        lines.append(f"  record {i}: {qs}; {ss}"
                     + (f"; QEMU's decision replayed: {why}" if why else
                        "; QEMU's decision replayed: same" if q else ""))
    if ok:
        lines.append(f"  {REPLAY_NOTE}")
    return ok, lines


def compare(qrecs, srecs, sc, sim=None, slice_ms=10):
    """Compare the logs: (ok, lines of a report). With sc.replay, the
    records from the first difference on are accounted for (fulsim @sim
    replays each of QEMU's), provided none differs before the first
    task's end."""
    report = [f"{sc.name}: {len(qrecs)} records from QEMU, "
              f"{len(srecs)} from the simulator"]
    if sc.collapse:
        qrecs, srecs = collapse(qrecs, sc), collapse(srecs, sc)
        report.append(f"  after collapsing repeated rounds: {len(qrecs)} / "
                      f"{len(srecs)} (the number of rounds between two "
                      "changes depends on the clock)")
    n = len(qrecs)
    if sc.replay:  # the records before the first task's end must agree
        base = comparable(qrecs[0], sc)["load"] if qrecs else None
        n = next((i for i, r in enumerate(qrecs)
                  if comparable(r, sc)["load"] != base), len(qrecs))
    tids = TidMap()
    i = 0
    while i < max(len(qrecs), len(srecs)):
        if i >= len(srecs) or i >= len(qrecs):
            why = "only in QEMU" if i >= len(srecs) else "only in the simulator"
        else:
            why = record_diff(qrecs[i], srecs[i], sc, tids)
        if why and sc.replay and i >= n:
            report.append(f"  records 0..{i - 1} (collapsed) agree in "
                          "every field but the by-design ones; the first "
                          f"task ends after record {n - 1}")
            ok, lines = account_tail(qrecs, srecs, i, sc, sim, slice_ms)
            return ok, report + lines
        if why:
            report.append(f"  record {i}" + (
                f" (QEMU seq {qrecs[i]['seq']}, simulator seq "
                f"{srecs[i]['seq']})" if i < min(len(qrecs), len(srecs))
                else "") + f": {why}")
            return False, report
        i += 1
    report.append(f"  {i} records agree in every field but: " +
                  "; ".join(f"{k} ({v})" for k, v in BY_DESIGN.items()))
    if sc.root_load_by_design:
        report.append("  and " + ROOT_LOAD_NOTE)
    return True, report


def validate(kernel, sim, name, log_dir):
    """Run scenario @name both ways: (ok, report lines)."""
    sc = SCENARIOS[name]
    qrecs, lines = run_qemu(kernel, sc, log_dir)
    if not qrecs:
        raise RuntimeError(f"{name}: no LBLOG line from QEMU")
    srecs = run_sim(sim, sc, workload_for(sc, lines))
    return compare(qrecs, srecs, sc, sim)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--kernel", default=os.path.join(ROOT, "build", "kernel.elf"))
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "sim", "fulsim"))
    ap.add_argument("--scenario", action="append", choices=sorted(SCENARIOS))
    ap.add_argument("--log-dir", default=os.path.join(ROOT, "build", "validate"))
    o = ap.parse_args()
    ok = True
    for name in o.scenario or sorted(SCENARIOS):
        try:
            good, report = validate(o.kernel, o.sim, name, o.log_dir)
        except RuntimeError as e:
            print(f"sim_validate: {e}")
            return 2
        print("\n".join(report))
        ok &= good
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
