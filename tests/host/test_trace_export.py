#!/usr/bin/env python3
"""Host test: tools/trace_export.py on dumps made here, the bad ones
included. The sample is shaped as `make trace SCENARIO=demo
TRACE_CLASSES=0x84` prints it (the balancer demo's rebalance moving
thread 4113 from core 1 to core 3, decision 6, its LBLOG lines, the
migration records carrying the decision's id); no recorded trace is
kept in the tree (the in-QEMU tests trace_* record real ones).

    test_trace_export.py [substring]    run only tests whose name contains it
"""

import base64
import json
import os
import re
import struct
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import trace_export as te  # noqa: E402  (tools/, on the path by host_proto)
import trace_run  # noqa: E402

def rec(ts, typ, cpu, arg=0, a=0, b=0, c=0, d=0, e=0):
    return te.REC.pack(ts, typ, cpu, arg, a, b, c, d, e)


def data_line(cpu, index, recs):
    raw = b"".join(recs)
    return (f"TRACE-DATA {cpu} {index} {len(recs)} "
            f"{base64.b64encode(raw).decode()} {zlib.crc32(raw):08x}")


def dump(per_cpu, names=None, lost=None, version=te.VERSION):
    """A dump of @per_cpu (cpu -> list of packed records, from index 0;
    lost: cpu -> records overwritten before them)."""
    lost = lost or {}
    lines = [f"TRACE-BEGIN v={version} ncpus={len(per_cpu)} recs=2048 "
             f"freq=1000000 recsize=32"]
    total = 0
    for cpu, recs in per_cpu.items():
        first = lost.get(cpu, 0)
        if first:
            lines.append(f"TRACE-LOST {cpu} 0 {first}")
        for k in range(0, len(recs), 3):
            lines.append(data_line(cpu, first + k, recs[k:k + 3]))
        total += len(recs)
    for tid, n in (names or {}).items():
        lines.append(f"TRACE-NAME {tid} {n}")
    for cpu, recs in per_cpu.items():
        head = lost.get(cpu, 0) + len(recs)
        lines.append(f"TRACE-RING {cpu} start=0 head={head} "
                     f"lost={lost.get(cpu, 0)}")
    lines.append(f"TRACE-END {total}")
    return "\n".join(lines) + "\n"


LBLOG_MOVE = ('LBLOG {"seq":6,"t":23920846,"policy":"mginkgo",'
              '"kind":"rebalance","trigger":"demand","gate":"heavy_light",'
              '"ncpus":4,"root":0,"include_root":0,"threshold_pct":20,'
              '"load":[10,150,100,50],"nrun":null,"avg":100.00,"hi":120.00,'
              '"lo":80.00,"state":["excluded","heavy","normal","light"],'
              '"moves":[{"tid":4113,"slice":50,"from":1,"to":3,'
              '"from_after":100,"to_after":100}],"reject":null,'
              '"reason":"moved"}')
LBLOG_NONE = ('LBLOG {"seq":7,"t":25494733,"policy":"mginkgo",'
              '"kind":"rebalance","trigger":"demand","gate":"none","ncpus":4,'
              '"root":0,"include_root":0,"threshold_pct":20,'
              '"load":[10,100,100,100],"nrun":null,"avg":100.00,'
              '"hi":120.00,"lo":80.00,"state":["excluded","normal","normal",'
              '"normal"],"moves":[],"reject":null,"reason":"balanced"}')


def sample_text():
    """The demo's move as the kernel dumps it: out on core 1, in on
    core 3, both with decision id seq + 1 = 7, and the LBLOG lines."""
    create = [rec(21357000 + 400000 * i, te.THREAD_CREATE, 0, 0, 4108 + i,
                  1 + i % 3) for i in range(9)]  # threads of the demo
    per_cpu = {0: create, 1: [rec(23921000, te.MIG_OUT, 1, 0, 4113, 3, 7)],
               2: [], 3: [rec(23925000, te.MIG_IN, 3, 0, 4113, 1, 7)]}
    lines = dump(per_cpu, names={4113: "worker"}).splitlines()
    return "\n".join(lines[:1] + [LBLOG_MOVE, LBLOG_NONE] + lines[1:]) + "\n"


def expect_error(text, *words):
    try:
        te.parse(text)
    except te.DumpError as e:
        msg = str(e)
        missing = [w for w in words if w not in msg]
        return f"error {msg!r} lacks {missing}" if missing else None
    return "accepted"


def test_sample_parses():
    """The real dump: every record, no loss, the move and its decision."""
    t = te.parse(sample_text())
    n = sum(len(v) for v in t.rings.values())
    end = int(re.search(r"TRACE-END (\d+)", sample_text()).group(1))
    if n != end or n == 0:
        return f"{n} records, TRACE-END says {end}"
    if sum(t.lost().values()):
        return f"lost {t.lost()}"
    moved = [d for d in t.decisions if d["reason"] == "moved"]
    if not moved:
        return "no moved decision in the sample"
    d = moved[0]
    m = d["moves"][0]
    outs = [r for r in t.records() if r.type == te.MIG_OUT and
            r.c == d["seq"] + 1]
    ins = [r for r in t.records() if r.type == te.MIG_IN and
           r.c == d["seq"] + 1]
    if len(outs) != 1 or len(ins) != 1:
        return f"decision {d['seq']}: {len(outs)} outs, {len(ins)} ins"
    o, i = outs[0], ins[0]
    if (o.a, o.cpu, o.b) != (m["tid"], m["from"], m["to"]) or \
            (i.a, i.cpu, i.b) != (m["tid"], m["to"], m["from"]):
        return f"records {o.a} {o.cpu}->{o.b}, {i.cpu}<-{i.b} vs {m}"
    if i.ts < o.ts:
        return "migration in before out"
    return None


def test_sample_exports():
    """ftrace text and Chrome JSON of the sample."""
    t = te.parse(sample_text())
    with tempfile.TemporaryDirectory() as d:
        te.write_ftrace(t, os.path.join(d, "trace.txt"))
        te.write_chrome(t, os.path.join(d, "trace.json"))
        with open(os.path.join(d, "trace.txt")) as f:
            txt = f.read().splitlines()
        with open(os.path.join(d, "trace.json")) as f:
            js = json.load(f)
    if txt[0] != "# tracer: nop":
        return f"first line {txt[0]!r}"
    mig = [ln for ln in txt if "sched_migrate_task:" in ln]
    outs = [r for r in t.records() if r.type == te.MIG_OUT]
    if len(mig) != len(outs) or not mig:
        return f"{len(mig)} sched_migrate_task lines, {len(outs)} records"
    pat = re.compile(r"^\s*\S+-\d+ +\[\d{3}\] \S{5} \d+\.\d{6}: "
                     r"sched_migrate_task: comm=\S+ pid=\d+ prio=\d+ "
                     r"orig_cpu=\d+ dest_cpu=\d+$")
    bad = [ln for ln in mig if not pat.match(ln)]
    if bad:
        return f"not ftrace: {bad[0]!r}"
    ev = js["traceEvents"]
    procs = {e["pid"] for e in ev if e.get("name") == "process_name"}
    if procs != set(range(t.header["ncpus"])):
        return f"processes {procs}"
    dec = [e for e in ev if e["name"].startswith("decision")]
    if len(dec) != len(t.decisions) or "moves" not in dec[0]["args"]:
        return f"{len(dec)} decision events of {len(t.decisions)}"
    if js["otherData"]["lost"] != {f"cpu{c}": 0 for c in range(4)}:
        return f"lost {js['otherData']['lost']}"
    return None


def test_switch_and_wake_lines():
    """sched_switch / sched_waking / sched_wakeup in Linux's format."""
    recs = {0: [rec(1000, te.WAKE, 0, a=7, b=0, c=0, d=100),
                rec(2000, te.SWITCH, 0, arg=3, a=0, b=7),
                rec(3000, te.SWITCH, 0, arg=4, a=7, b=0)]}
    t = te.parse(dump(recs, names={7: "worker"}))
    lines = te.ftrace_lines(t)
    want = [
        "<idle>-0 [000] d..3. 0.001000: sched_waking: comm=worker pid=7 "
        "prio=155 target_cpu=000",
        "<idle>-0 [000] d..3. 0.001000: sched_wakeup: comm=worker pid=7 "
        "prio=155 target_cpu=000",
        "<idle>-0 [000] d..3. 0.002000: sched_switch: prev_comm=<idle> "
        "prev_pid=0 prev_prio=255 prev_state=R ==> next_comm=worker "
        "next_pid=7 next_prio=155",
        "worker-7 [000] d..3. 0.003000: sched_switch: prev_comm=worker "
        "prev_pid=7 prev_prio=155 prev_state=S ==> next_comm=<idle> "
        "next_pid=0 next_prio=255"]
    got = [ln.strip() for ln in lines]
    return None if got == want else f"got {got}"


def test_rejects_corrupt_line():
    """A changed byte in a data line: the CRC, with its offset."""
    text = sample_text()
    lines = text.splitlines(keepends=True)
    k = next(i for i, ln in enumerate(lines) if ln.startswith("TRACE-DATA"))
    f = lines[k].split(" ")
    f[4] = ("B" if f[4][0] != "B" else "C") + f[4][1:]
    lines[k] = " ".join(f)
    offset = sum(len(ln) for ln in lines[:k])
    return expect_error("".join(lines), "CRC", f"byte offset {offset}",
                        f"line {k + 1}")


def test_rejects_truncated():
    """A dump cut short: no TRACE-END."""
    text = sample_text()
    cut = text[:text.index("TRACE-RING")]
    return expect_error(cut, "truncated", f"byte offset {len(cut)}")


def test_rejects_missing_line():
    """A data line missing: the jump in indexes."""
    lines = sample_text().splitlines(keepends=True)
    data = [i for i, ln in enumerate(lines) if ln.startswith("TRACE-DATA 0 ")]
    del lines[data[1]]
    return expect_error("".join(lines), "jumps from index")


def test_rejects_other_version():
    """A dump of an older kernel (version 1: 8 cores) and of a newer one."""
    err = expect_error(dump({0: [rec(1, te.WAKE, 0)]}, version=1),
                       "trace version 1", "first 8 cores",
                       f"reads version {te.VERSION} only", "byte offset 0")
    return err or expect_error(dump({0: [rec(1, te.WAKE, 0)]},
                                    version=te.VERSION + 1),
                               f"version {te.VERSION + 1}", "record the trace")


def test_sixty_four_cores():
    """A dump of 64 cores, each with its own records (cores 8-63 too),
    passes the checks; ncpus beyond the kernel's limit is refused."""
    per_cpu = {c: [rec(10 + c, te.SWITCH, c, a=0, b=100 + c),
                   rec(1000 + c, te.SWITCH, c, arg=4, a=100 + c, b=0)]
               for c in range(64)}
    t = te.parse(dump(per_cpu))
    if sorted(t.rings) != list(range(64)) or \
            any(len(t.rings[c]) != 2 for c in range(64)):
        return f"rings {sorted(t.rings)}"
    if te.check_sched(t):
        return f"flagged: {te.check_sched(t)[:2]}"
    lanes = {int(ln.split("[")[1][:3]) for ln in te.ftrace_lines(t)}
    if lanes != set(range(64)):
        return f"ftrace lanes {sorted(lanes)}"
    text = dump(per_cpu).replace("ncpus=64", "ncpus=65", 1)
    return expect_error(text, "ncpus=65", "1..64")


def test_lost_accounting():
    """LOST ranges add up to the ring's lost count, or it is rejected."""
    recs = {0: [rec(5, te.WAKE, 0, a=3)], 1: [rec(6, te.WAKE, 1, a=4)]}
    t = te.parse(dump(recs, lost={1: 40}))
    if t.lost() != {0: 0, 1: 40} or t.rings[1][0].index != 40:
        return f"lost {t.lost()}"
    bad = dump(recs, lost={1: 40}).replace("lost=40", "lost=39")
    return expect_error(bad, "lost 39", "say 40")


def test_split_user_line():
    """A kernel line inside a user line: both are read."""
    text = sample_text()
    lines = text.splitlines(keepends=True)
    k = next(i for i, ln in enumerate(lines[:-1]) if
             ln.startswith("LBLOG") and lines[i + 1].startswith("TRACE-"))
    ln = lines[k]
    lines[k:k + 2] = [ln[:40] + lines[k + 1], ln[40:]]
    t = te.parse("".join(lines))
    ref = te.parse(text)
    if len(t.decisions) != len(ref.decisions):
        return f"{len(t.decisions)} decisions of {len(ref.decisions)}"
    return None if t.records()[0].ts == ref.records()[0].ts else "records"


def test_check_finds_violations():
    """The scheduler checks: a wrong prev, two cores, an unmatched move."""
    ok = {0: [rec(1, te.SWITCH, 0, a=0, b=5), rec(5, te.SWITCH, 0, a=5, b=0),
              rec(6, te.MIG_OUT, 0, a=5, b=1)],
          1: [rec(7, te.MIG_IN, 1, a=5, b=0), rec(8, te.SWITCH, 1, a=0, b=5)]}
    if te.check_sched(te.parse(dump(ok))):
        return f"clean trace flagged: {te.check_sched(te.parse(dump(ok)))}"
    wrong_prev = {0: [rec(1, te.SWITCH, 0, a=0, b=5),
                      rec(2, te.SWITCH, 0, a=6, b=0)]}
    two_cores = {0: [rec(1, te.SWITCH, 0, a=0, b=5)],
                 1: [rec(2, te.SWITCH, 1, a=0, b=5)]}
    no_out = {0: [rec(1, te.MIG_IN, 0, a=5, b=1)]}
    for name, case in (("wrong prev", wrong_prev), ("two cores", two_cores),
                       ("no out", no_out)):
        if not te.check_sched(te.parse(dump(case))):
            return f"{name} not found"
    return None


def ftrace_of(per_cpu, lost=None):
    """The trace.txt lines of a dump of @per_cpu."""
    t = te.parse(dump(per_cpu, lost=lost))
    with tempfile.TemporaryDirectory() as d:
        te.write_ftrace(t, os.path.join(d, "trace.txt"))
        with open(os.path.join(d, "trace.txt")) as f:
            return f.read().splitlines()


def test_ftrace_check():
    """The trace.txt checker: a clean move passes; a wrong prev, a thread
    on two cores, a move without its sched_migrate_task, lost records
    are each found."""
    ok = {0: [rec(1, te.SWITCH, 0, a=0, b=5), rec(5, te.SWITCH, 0, arg=5,
                                                   a=5, b=0),
              rec(6, te.MIG_OUT, 0, a=5, b=1)],
          1: [rec(7, te.MIG_IN, 1, a=5, b=0), rec(8, te.SWITCH, 1, a=0, b=5),
              rec(9, te.SWITCH, 1, arg=4, a=5, b=0)]}
    problems, sw, mig = te.check_ftrace(ftrace_of(ok))
    if problems or (sw, mig) != (4, 1):
        return f"clean trace: {problems}, {sw} switches, {mig} migrations"
    cases = {
        "wrong prev": ({0: [rec(1, te.SWITCH, 0, a=0, b=5),
                            rec(2, te.SWITCH, 0, a=6, b=0)]}, None,
                       "but 5 was switched in"),
        "two cores": ({0: [rec(1, te.SWITCH, 0, a=0, b=5)],
                       1: [rec(2, te.SWITCH, 1, a=0, b=5)]}, None,
                      "while it runs on cpu0"),
        "no migration": ({0: [rec(1, te.SWITCH, 0, a=0, b=5),
                              rec(2, te.SWITCH, 0, a=5, b=0)],
                          1: [rec(3, te.SWITCH, 1, a=0, b=5)]}, None,
                         "no sched_migrate_task"),
        "lost": ({0: [rec(1, te.SWITCH, 0, a=0, b=5)]}, {0: 9},
                 "records lost"),
    }
    for name, (case, lost, words) in cases.items():
        found, _, _ = te.check_ftrace(ftrace_of(case, lost))
        if not any(words in p for p in found):
            return f"{name}: not found ({found})"
    return None


def run_main(argv):
    """trace_run.main(@argv): (exit code, stderr)."""
    import contextlib
    import io
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = trace_run.main(argv)
    return code, err.getvalue()


def test_trace_run_rejects():
    """make trace: an unknown scenario, ring sizes not a power of two or
    beyond the window, refused with a clear error before any boot (no
    kernel is needed: the path given does not exist)."""
    k = ["--kernel", "/nonexistent/kernel.elf", "--out", "/nonexistent/o"]
    cases = [(["--scenario", "nosuch"], ["no scenario 'nosuch'", "demo",
                                         "matmul"]),
             (["--scenario", "demo", "--kib", "48"],
              ["TRACE_KIB=48 is not a power of two"]),
             (["--scenario", "demo", "--kib", "2"],
              ["TRACE_KIB=2 is not a power of two in 4..16384"]),
             (["--scenario", "demo", "--kib", "8192"],
              ["4 rings of 8192 KiB exceed the trace window"])]
    for argv, words in cases:
        code, err = run_main(k + argv)
        missing = [w for w in words if w not in err]
        if code != 2 or missing:
            return f"{argv}: exit {code}, {err!r} lacks {missing}"
    return None


def test_trace_run_scenario_rings():
    """Each scenario's own rings fit the window the kernel allows (else
    make trace without TRACE_KIB would refuse to boot it), and its boot
    arguments carry them; --kib and --drain override them."""
    for name, sc in trace_run.SCENARIOS.items():
        bad = trace_run.kib_problem(sc.kib, sc.cpus)
        if bad:
            return f"{name}: {bad}"
        args = trace_run.boot_args(sc, "sched").split(",")
        if f"trace_kib={sc.kib}" not in args or \
                ("trace_drain=0" in args) == sc.drain:
            return f"{name}: boot arguments {args}"
    sc = trace_run.SCENARIOS["demo"]
    args = trace_run.boot_args(sc, "all", kib=64, drain=True).split(",")
    if "trace_kib=64" not in args or "trace_drain=0" in args or \
            "trace=all" not in args:
        return f"overridden: {args}"
    return None


TESTS = [
    ("sample_parses", test_sample_parses),
    ("sample_exports", test_sample_exports),
    ("switch_and_wake_lines", test_switch_and_wake_lines),
    ("rejects_corrupt_line", test_rejects_corrupt_line),
    ("rejects_truncated", test_rejects_truncated),
    ("rejects_missing_line", test_rejects_missing_line),
    ("rejects_other_version", test_rejects_other_version),
    ("sixty_four_cores", test_sixty_four_cores),
    ("lost_accounting", test_lost_accounting),
    ("split_user_line", test_split_user_line),
    ("check_finds_violations", test_check_finds_violations),
    ("ftrace_check", test_ftrace_check),
    ("trace_run_rejects", test_trace_run_rejects),
    ("trace_run_scenario_rings", test_trace_run_scenario_rings),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
