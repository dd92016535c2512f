#!/usr/bin/env python3
"""The simulator against the emulator (issue 16 item 4; docs/design.md,
"Simulator validation").

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
          into the workload. fulsim --icount models QEMU's one clock
          shared by the busy vCPUs as equal shares; QEMU's round robin
          gives them unequal, phase-dependent shares, so only the part
          before the first task ends is expected to agree (see
          MATMUL_NOTE).
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
MATMUL_NOTE = ("QEMU -icount runs the vCPUs round robin on one clock and "
               "gives busy vCPUs unequal shares that depend on timer "
               "phases (with balancing off, core 2 finished its 7 tasks "
               "at 1.38 s, core 3 its 7 identical ones at 2.26 s); the "
               "simulator's --icount gives equal shares. Which core "
               "empties first, and so every decision after the first "
               "task ends, follows those shares.")


class Scenario:
    def __init__(self, name, cpus, append, workload, sim_args,
                 timeout=300, root_load_by_design=False, calibrate=None,
                 collapse=False, prefix_until_change=False):
        self.name, self.cpus, self.append = name, cpus, append
        self.workload, self.sim_args = workload, sim_args
        self.timeout = timeout
        self.root_load_by_design = root_load_by_design
        self.calibrate = calibrate        # regex: task length in us
        self.collapse = collapse          # repeated timer rounds
        self.prefix_until_change = prefix_until_change


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
        collapse=True, prefix_until_change=True),
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


def compare(qrecs, srecs, sc):
    """Compare the logs: (ok, lines of a report)."""
    report = [f"{sc.name}: {len(qrecs)} records from QEMU, "
              f"{len(srecs)} from the simulator"]
    if sc.collapse:
        qrecs, srecs = collapse(qrecs, sc), collapse(srecs, sc)
        report.append(f"  after collapsing repeated rounds: {len(qrecs)} / "
                      f"{len(srecs)} (the number of rounds between two "
                      "changes depends on the clock)")
    n = len(qrecs)
    if sc.prefix_until_change:  # up to the first change of the loads
        base = comparable(qrecs[0], sc)["load"] if qrecs else None
        n = next((i for i, r in enumerate(qrecs)
                  if comparable(r, sc)["load"] != base), len(qrecs))
        report.append(f"  compared: the first {n} records (before the first "
                      f"task ends); after that: {MATMUL_NOTE}")
    tids = TidMap()
    for i in range(n):
        if i >= len(srecs):
            report.append(f"  record {i}: only in QEMU")
            return False, report
        why = record_diff(qrecs[i], srecs[i], sc, tids)
        if why:
            report.append(f"  record {i} (QEMU seq {qrecs[i]['seq']}, "
                          f"simulator seq {srecs[i]['seq']}): {why}")
            return False, report
    if not sc.prefix_until_change and len(srecs) != n:
        report.append(f"  record {n}: only in the simulator")
        return False, report
    report.append(f"  {n} records agree in every field but: " +
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
    return compare(qrecs, srecs, sc)


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
