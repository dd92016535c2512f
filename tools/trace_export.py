#!/usr/bin/env python3
"""Turn a console log with a trace dump into ftrace text and Chrome JSON.

    trace_export.py LOG --out DIR [--check]

LOG is a boot's console output holding one dump of the kernel's trace
rings (kernel/trace.c, docs/tracing.md "The console transport"):

    TRACE-BEGIN v=2 ncpus=N recs=R freq=F recsize=32
    TRACE-DATA <cpu> <index> <n> <base64 of n records> <crc32 hex>
    TRACE-LOST <cpu> <from> <to>   (overwritten before they were printed)
    TRACE-NAME <tid> <name>
    TRACE-RING <cpu> start=S head=H lost=L
    TRACE-END <records printed>

and, optionally, the balancer's decision lines (`LBLOG {json}`). Other
lines may come in between (other cores print too), even inside a user
program's line, which the console may get in pieces: a TRACE- line
found inside another is split off and the pieces are joined. The dump is checked
before anything is written: the version, each data line's CRC-32, that
each ring's data and LOST lines follow each other without a gap up to
its head, that its LOST ranges add up to its lost count, and the total.
A truncated or corrupt dump is rejected with the byte offset (and line)
where it broke.

Writes DIR/trace.txt (ftrace text: `# tracer: nop`, sched_switch,
sched_waking, sched_wakeup, sched_migrate_task lines with the fields of
Linux's format; Perfetto's UI and trace_processor show them as per-CPU
lanes) and DIR/trace.json (Chrome trace events: one process per core,
its running thread as slices, the other records as instant events, each
balancer decision as an instant event carrying its JSON). --check runs
the scheduler consistency checks (check_sched) and fails on a violation.
"""

import argparse
import base64
import json
import os
import re
import struct
import sys
import zlib

VERSION = 2  # FUL_TRACE_VERSION of include/fulcrum/trace.h
# What the versions before this one were, for the error that refuses them.
OLD_VERSIONS = {1: "rings for the first 8 cores only, one header page"}
MAX_CPUS = 64  # FUL_TRACE_CPUS: a ring header for every core the kernel takes
REC = struct.Struct("<QBBHIIIII")  # include/fulcrum/trace.h, 32 bytes

(SWITCH, WAKE, MIG_OUT, MIG_IN, SGI_SEND, MBOX_POST, MBOX_ACCEPT,
 IRQ_ENTRY, IRQ_EXIT, IPC_CALL, IPC_REPLY, THREAD_CREATE,
 THREAD_EXIT) = range(1, 14)
TYPE_NAMES = {SWITCH: "switch", WAKE: "wake", MIG_OUT: "migrate_out",
              MIG_IN: "migrate_in", SGI_SEND: "sgi_send",
              MBOX_POST: "mbox_post", MBOX_ACCEPT: "mbox_accept",
              IRQ_ENTRY: "irq_entry", IRQ_EXIT: "irq_exit",
              IPC_CALL: "ipc_call", IPC_REPLY: "ipc_reply",
              THREAD_CREATE: "thread_create", THREAD_EXIT: "thread_exit"}
# FUL_TR_ST_*: FREE EMBRYO READY RUNNING BLOCKED MIGRATING DEAD INACTIVE
# STARTING -> Linux's prev_state letters (switched out READY: preempted,
# R+; MIGRATING: it runs on elsewhere, R+).
ST_READY, ST_RUNNING = 2, 3
PREV_STATE = {0: "X", 1: "I", 2: "R+", 3: "R+", 4: "S", 5: "R+", 6: "X",
              7: "I", 8: "I"}
ICC_KINDS = {1: "TASK_IN", 2: "TASK_OUT", 3: "TASK_KILL", 4: "CALL_FUNC",
             5: "TASK_IPC"}


class DumpError(Exception):
    """The dump is not usable; says where it broke."""


class Record:
    __slots__ = ("ts", "type", "cpu", "arg", "a", "b", "c", "d", "e",
                 "index")

    def __init__(self, raw, index):
        (self.ts, self.type, self.cpu, self.arg, self.a, self.b, self.c,
         self.d, self.e) = REC.unpack(raw)
        self.index = index


class Trace:
    """A parsed dump: header, records per core, names, lost, decisions."""

    def __init__(self):
        self.header = {}
        self.rings = {}      # cpu -> list of Record, in index order
        self.ring_info = {}  # cpu -> dict(start, head, lost)
        self.gaps = {}       # cpu -> records in its LOST ranges
        self.names = {}      # tid -> name
        self.decisions = []  # parsed LBLOG json objects

    @property
    def freq(self):
        return self.header["freq"]

    def lost(self):
        return {c: i["lost"] for c, i in sorted(self.ring_info.items())}

    def records(self):
        """Every record of every core, by time (stable per core)."""
        out = [r for c in sorted(self.rings) for r in self.rings[c]]
        out.sort(key=lambda r: r.ts)
        return out


def _kv(fields, where):
    out = {}
    for f in fields:
        k, sep, v = f.partition("=")
        if not sep:
            raise DumpError(f"{where}: expected key=value, got {f!r}")
        try:
            out[k] = int(v)
        except ValueError:
            raise DumpError(f"{where}: {k}={v!r} is not a number") from None
    return out


def parse(text):
    """Parse and check the dump in console text @text; a Trace."""
    t = Trace()
    offset = 0
    began = ended = False
    expect = {}     # cpu -> next index expected
    total = 0
    pending = ""    # the start of a line another line interrupted
    for lineno, line in enumerate(text.splitlines(keepends=True), 1):
        where = f"byte offset {offset} (line {lineno})"
        offset += len(line.encode("utf-8", "replace"))
        s = line.strip("\r\n")
        # A user program's line may be written in pieces, and a kernel
        # line (always one piece) land between them: split it off, and
        # join the pieces around it.
        k = s.find("TRACE-")
        if k > 0:
            pending, s = pending + s[:k], s[k:]
        elif k < 0 and pending:
            s, pending = pending + s, ""
        if s.startswith("LBLOG "):
            try:
                t.decisions.append(json.loads(s[6:]))
            except ValueError:
                pass  # a decision line cut by other output: not ours
            continue
        if not s.startswith("TRACE-"):
            continue
        head, _, rest = s.partition(" ")
        fields = rest.split()
        if head == "TRACE-BEGIN":
            if began:
                raise DumpError(f"{where}: a second TRACE-BEGIN")
            began = True
            t.header = _kv(fields, where)
            v = t.header.get("v")
            if v != VERSION:
                what = OLD_VERSIONS.get(v)
                raise DumpError(
                    f"{where}: trace version {v}"
                    + (f" ({what})" if what else "")
                    + f"; this exporter reads version {VERSION} only: "
                    "record the trace again with this tree's kernel")
            n = t.header.get("ncpus")
            if n is None or not 1 <= n <= MAX_CPUS:
                raise DumpError(f"{where}: ncpus={n}, expected 1..{MAX_CPUS}")
            if t.header.get("recsize") != REC.size:
                raise DumpError(f"{where}: record size "
                                f"{t.header.get('recsize')}, expected "
                                f"{REC.size}")
            continue
        if not began:
            raise DumpError(f"{where}: {head} before TRACE-BEGIN")
        if ended:
            raise DumpError(f"{where}: {head} after TRACE-END")
        if head == "TRACE-NAME":
            if len(fields) != 2:
                raise DumpError(f"{where}: bad TRACE-NAME line")
            t.names[int(fields[0])] = fields[1]
        elif head == "TRACE-DATA":
            total += _data_line(t, fields, where, expect)
        elif head == "TRACE-LOST":
            _lost_line(t, fields, where, expect)
        elif head == "TRACE-RING":
            _ring_line(t, fields, where, expect)
        elif head == "TRACE-END":
            if len(fields) != 1 or int(fields[0]) != total:
                raise DumpError(f"{where}: TRACE-END says {rest!r}, the "
                                f"dump held {total} records")
            missing = [c for c in range(t.header["ncpus"])
                       if c not in t.ring_info]
            if missing:
                raise DumpError(f"{where}: no TRACE-RING line for cores "
                                f"{missing}")
            ended = True
        else:
            raise DumpError(f"{where}: unknown line {head}")
    if not began:
        raise DumpError(f"byte offset {offset}: no TRACE-BEGIN in the log")
    if not ended:
        raise DumpError(f"byte offset {offset}: truncated, no TRACE-END")
    return t


def _data_line(t, fields, where, expect):
    if len(fields) != 5:
        raise DumpError(f"{where}: TRACE-DATA needs 5 fields, has "
                        f"{len(fields)} (truncated line?)")
    try:
        cpu, index, n = int(fields[0]), int(fields[1]), int(fields[2])
        raw = base64.b64decode(fields[3], validate=True)
        crc = int(fields[4], 16)
    except ValueError as e:
        raise DumpError(f"{where}: corrupt TRACE-DATA ({e})") from None
    if cpu >= t.header["ncpus"]:
        raise DumpError(f"{where}: core {cpu} beyond ncpus")
    if len(raw) != n * REC.size or zlib.crc32(raw) != crc:
        raise DumpError(f"{where}: corrupt TRACE-DATA for core {cpu} "
                        f"index {index}: length or CRC-32 mismatch")
    if cpu in expect and expect[cpu] != index:
        raise DumpError(f"{where}: core {cpu} jumps from index "
                        f"{expect[cpu]} to {index} (a line is missing)")
    if cpu in t.ring_info:
        raise DumpError(f"{where}: data for core {cpu} after its "
                        "TRACE-RING line")
    ring = t.rings.setdefault(cpu, [])
    for k in range(n):
        ring.append(Record(raw[k * REC.size:(k + 1) * REC.size], index + k))
    expect[cpu] = index + n
    return n


def _lost_line(t, fields, where, expect):
    try:
        cpu, frm, to = (int(f) for f in fields)
    except ValueError:
        raise DumpError(f"{where}: bad TRACE-LOST line") from None
    if cpu in expect and expect[cpu] != frm:
        raise DumpError(f"{where}: core {cpu} loses from {frm}, but its "
                        f"last line ended at {expect[cpu]}")
    if to < frm or cpu in t.ring_info:
        raise DumpError(f"{where}: bad TRACE-LOST range for core {cpu}")
    t.gaps[cpu] = t.gaps.get(cpu, 0) + to - frm
    expect[cpu] = to


def _ring_line(t, fields, where, expect):
    cpu = int(fields[0])
    info = _kv(fields[1:], where)
    t.rings.setdefault(cpu, [])
    end = expect.get(cpu, info["head"])
    if end != info["head"]:
        raise DumpError(f"{where}: core {cpu}'s lines end at {end}, its "
                        f"ring at {info['head']} (lines missing)")
    if info["lost"] != t.gaps.get(cpu, 0):
        raise DumpError(f"{where}: core {cpu}: lost {info['lost']}, its "
                        f"LOST lines say {t.gaps.get(cpu, 0)}")
    t.ring_info[cpu] = info


# ------------------------------------------------------------ ftrace text

class Names:
    """Thread names: TRACE-NAME, then create records, then t<tid>."""

    def __init__(self, trace):
        self.names = dict(trace.names)
        for r in trace.records():
            if r.type == THREAD_CREATE and r.a not in self.names:
                raw = struct.pack("<III", r.c, r.d, r.e)
                name = raw.split(b"\0")[0].decode("ascii", "replace")
                self.names[r.a] = name or f"t{r.a}"
        self.prio = {}

    def comm(self, tid):
        if tid == 0:
            return "<idle>"
        n = self.names.get(tid, f"t{tid}")
        return "".join(ch if ch.isprintable() and ch != " " else "_"
                       for ch in n)[:15] or "?"


def linux_prio(p):
    """Fulcrum's priority (0..255, higher first) as Linux's (lower first)."""
    return 255 - p


def thread_prios(trace):
    """tid -> priority, from the records that carry it (a thread's
    priority is fixed at its creation); idle threads (tid 0): 0."""
    prio = {0: 0}
    for r in trace.records():
        if r.type == WAKE:
            prio[r.a] = r.d
        elif r.type == THREAD_CREATE:
            prio[r.a] = r.arg
    return prio


def _secs(ts, freq):
    return f"{ts // freq}.{(ts % freq) * 1000000 // freq:06d}"


def ftrace_lines(trace):
    """The ftrace text lines of @trace's scheduler records."""
    names = Names(trace)
    prio = thread_prios(trace)
    out = []
    for r in trace.records():
        when = _secs(r.ts, trace.freq)
        if r.type == SWITCH:
            cur, text = r.a, (
                f"sched_switch: prev_comm={names.comm(r.a)} prev_pid={r.a} "
                f"prev_prio={linux_prio(prio.get(r.a, 0))} "
                f"prev_state={PREV_STATE.get(r.arg, 'R') if r.a else 'R'} ==> "
                f"next_comm={names.comm(r.b)} next_pid={r.b} "
                f"next_prio={linux_prio(prio.get(r.b, 0))}")
            out.append(_line(names, cur, r.cpu, when, text))
        elif r.type == WAKE:
            fields = (f"comm={names.comm(r.a)} pid={r.a} "
                      f"prio={linux_prio(r.d)} target_cpu={r.b:03d}")
            out.append(_line(names, r.c, r.cpu, when,
                             "sched_waking: " + fields))
            out.append(_line(names, r.c, r.cpu, when,
                             "sched_wakeup: " + fields))
        elif r.type == MIG_OUT:
            out.append(_line(names, r.a, r.cpu, when,
                             f"sched_migrate_task: comm={names.comm(r.a)} "
                             f"pid={r.a} prio={linux_prio(prio.get(r.a, 0))}"
                             f" orig_cpu={r.cpu} dest_cpu={r.b}"))
    return out


def _line(names, tid, cpu, when, text):
    task = f"{names.comm(tid)}-{tid}"
    return f"{task:>22} [{cpu:03d}] d..3. {when}: {text}"


def write_ftrace(trace, path):
    lines = ftrace_lines(trace)
    lost = " ".join(f"cpu{c}={n}" for c, n in trace.lost().items())
    with open(path, "w") as f:
        f.write("# tracer: nop\n#\n")
        f.write(f"# entries-in-buffer/entries-written: {len(lines)}/"
                f"{len(lines)}   #P:{trace.header['ncpus']}\n")
        f.write(f"# Fulcrum trace rings, records lost in the rings: "
                f"{lost}\n#\n")
        f.write("#                              _-----=> irqs-off\n")
        f.write("#           TASK-PID     CPU#  ||||   TIMESTAMP  FUNCTION\n")
        f.write("#              | |         |   ||||      |         |\n")
        for ln in lines:
            f.write(ln + "\n")


# ------------------------------------------------------------ Chrome JSON

def chrome_events(trace):
    """Chrome trace events: one process per core (pid = core)."""
    names = Names(trace)
    us = 1e6 / trace.freq
    ev = []
    ncpus = trace.header["ncpus"]
    for c in range(ncpus):
        ev.append({"ph": "M", "name": "process_name", "pid": c,
                   "args": {"name": f"cpu{c}"}})
        ev.append({"ph": "M", "name": "thread_name", "pid": c, "tid": 0,
                   "args": {"name": "running"}})
        ev.append({"ph": "M", "name": "thread_name", "pid": c, "tid": 1,
                   "args": {"name": "events"}})
    running = {}  # cpu -> (tid, since)
    moved = {}    # decision id -> cpu of its first MIG_OUT
    for r in trace.records():
        ts = r.ts * us
        if r.type == SWITCH:
            prev = running.get(r.cpu)
            if prev and prev[0] == r.a and prev[0] != 0:
                ev.append({"ph": "X", "pid": r.cpu, "tid": 0,
                           "name": names.comm(r.a), "ts": prev[1],
                           "dur": max(ts - prev[1], 0.001),
                           "args": {"tid": r.a}})
            running[r.cpu] = (r.b, ts)
            continue
        args = {"a": r.a, "b": r.b, "c": r.c, "arg": r.arg}
        if r.type in (MIG_OUT, MIG_IN):
            args = {"tid": r.a, "thread": names.comm(r.a),
                    ("to" if r.type == MIG_OUT else "from"): r.b,
                    "decision": r.c - 1 if r.c else None}
            if r.type == MIG_OUT and r.c:
                moved.setdefault(r.c - 1, r.cpu)
        elif r.type in (MBOX_POST, MBOX_ACCEPT):
            args = {"kind": ICC_KINDS.get(r.arg, r.arg), "tid": r.a}
            if r.type == MBOX_POST:
                args["to"] = r.b
        elif r.type == WAKE:
            args = {"tid": r.a, "thread": names.comm(r.a), "waker": r.c}
        ev.append({"ph": "i", "s": "t", "pid": r.cpu, "tid": 1,
                   "name": TYPE_NAMES.get(r.type, str(r.type)), "ts": ts,
                   "args": args})
    for d in trace.decisions:
        seq = d.get("seq")
        cpu = moved.get(seq, 0)
        ev.append({"ph": "i", "s": "p", "pid": cpu, "tid": 1,
                   "name": f"decision {seq} {d.get('reason', '')}",
                   "ts": d.get("t", 0) * us, "args": d})
    return ev


def write_chrome(trace, path):
    doc = {"traceEvents": chrome_events(trace), "displayTimeUnit": "ns",
           "otherData": {"lost": {f"cpu{c}": n
                                  for c, n in trace.lost().items()},
                         "counter_freq": trace.freq}}
    with open(path, "w") as f:
        json.dump(doc, f)


# ------------------------------------------------------- scheduler checks

def check_sched(trace):
    """Problems found in the switch and migration records (empty: none):
    on each core, a switch's prev is the previous switch's next; each
    migration-in has its migration-out before it; no thread runs on two
    cores at once. Where a core's ring lost records, its checks start
    again from its next switch."""
    problems = []
    last_next = {}
    out_pending = {}  # tid -> count of migrations out not yet in
    running_on = {}   # tid -> cpu it runs on (idle threads: tid 0)
    last_index = {}   # cpu -> index of its last record seen
    for r in trace.records():
        if last_index.get(r.cpu, r.index - 1) != r.index - 1:
            # records lost here: who ran on this core is unknown
            last_next.pop(r.cpu, None)
            for tid in [t for t, c in running_on.items() if c == r.cpu]:
                del running_on[tid]
        last_index[r.cpu] = r.index
        if r.type == SWITCH:
            want = last_next.get(r.cpu)
            if want is not None and want != r.a:
                problems.append(f"cpu{r.cpu} ts {r.ts}: switch from {r.a},"
                                f" but {want} was switched in")
            last_next[r.cpu] = r.b
            if r.a and running_on.get(r.a) == r.cpu:
                del running_on[r.a]
            if r.b:
                other = running_on.get(r.b)
                if other is not None and other != r.cpu:
                    problems.append(f"cpu{r.cpu} ts {r.ts}: {r.b} switched "
                                    f"in while running on cpu{other}")
                running_on[r.b] = r.cpu
        elif r.type == MIG_OUT:
            out_pending[r.a] = out_pending.get(r.a, 0) + 1
        elif r.type == MIG_IN:
            if out_pending.get(r.a, 0) == 0:
                if not any(trace.ring_info[c]["lost"]
                           for c in trace.ring_info):
                    problems.append(f"cpu{r.cpu} ts {r.ts}: {r.a} migrated"
                                    " in without a migration out")
            else:
                out_pending[r.a] -= 1
    return problems


# ------------------------------------------------- the trace.txt checker

FTRACE_LINE = re.compile(r"^\s*(\S+)-(\d+)\s+\[(\d+)\]\s+\S+\s+"
                         r"(\d+)\.(\d+): (\w+): (.*)$")
FTRACE_LOST = re.compile(r"^# Fulcrum trace rings, records lost in the "
                         r"rings: (.*)$")


def check_ftrace(lines):
    """Check a trace.txt (its lines) on its own, as a reader of the ftrace
    text would: on each core, a sched_switch's prev_pid is the previous
    one's next_pid; a thread that comes to run on another core than
    before was moved there by a sched_migrate_task from that core (each
    migration-in has its migration-out); no thread is switched in on a
    core while it runs on another. Needs a trace without lost records.
    Returns (problems, counts of switch and migration lines)."""
    problems, switches, migrations = [], 0, 0
    current = {}     # cpu -> pid switched in last
    running_on = {}  # pid -> cpu it runs on
    where_is = {}    # pid -> its core: where it last ran or was moved to
    for n, line in enumerate(lines, 1):
        m = FTRACE_LOST.match(line)
        if m:
            lost = {k: int(v) for k, v in
                    (f.split("=") for f in m.group(1).split())}
            if any(lost.values()):
                problems.append(f"line {n}: records lost in the rings "
                                f"({lost}): the checks need them all")
            continue
        m = FTRACE_LINE.match(line)
        if not m:
            continue
        cpu, event = int(m.group(3)), m.group(6)
        f = dict(re.findall(r"(\w+)=(\S+)", m.group(7)))
        where = f"line {n} (cpu{cpu})"
        if event == "sched_switch":
            switches += 1
            prev, nxt = int(f["prev_pid"]), int(f["next_pid"])
            if cpu in current and current[cpu] != prev:
                problems.append(f"{where}: switch from {prev}, but "
                                f"{current[cpu]} was switched in")
            current[cpu] = nxt
            if prev and running_on.get(prev) == cpu:
                del running_on[prev]
            if not nxt:
                continue
            if nxt in running_on and running_on[nxt] != cpu:
                problems.append(f"{where}: {nxt} switched in while it runs "
                                f"on cpu{running_on[nxt]}")
            before = where_is.get(nxt)
            if before is not None and before != cpu:
                problems.append(f"{where}: {nxt} runs here, but it was on "
                                f"cpu{before} and no sched_migrate_task "
                                "moved it")
            running_on[nxt] = cpu
            where_is[nxt] = cpu
        elif event == "sched_migrate_task":
            migrations += 1
            pid, orig = int(f["pid"]), int(f["orig_cpu"])
            if where_is.get(pid, orig) != orig:
                problems.append(f"{where}: {pid} moved from cpu{orig}, but "
                                f"it was on cpu{where_is[pid]}")
            where_is[pid] = int(f["dest_cpu"])
    return problems, switches, migrations


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--out", required=True)
    ap.add_argument("--check", action="store_true")
    opts = ap.parse_args(argv)
    try:
        with open(opts.log, encoding="utf-8", errors="replace") as f:
            trace = parse(f.read())
    except (OSError, DumpError) as e:
        print(f"trace_export: {opts.log}: {e}", file=sys.stderr)
        return 1
    os.makedirs(opts.out, exist_ok=True)
    write_ftrace(trace, os.path.join(opts.out, "trace.txt"))
    write_chrome(trace, os.path.join(opts.out, "trace.json"))
    n = sum(len(v) for v in trace.rings.values())
    lost = trace.lost()
    print(f"trace_export: {n} records from {len(trace.rings)} cores, lost "
          f"in the rings: {sum(lost.values())} "
          f"({', '.join(f'cpu{c} {k}' for c, k in lost.items())}); "
          f"{len(trace.decisions)} decisions -> {opts.out}/trace.txt, "
          "trace.json")
    if opts.check:
        problems = check_sched(trace)
        for p in problems[:20]:
            print(f"trace_export: check: {p}", file=sys.stderr)
        if problems:
            print(f"trace_export: {len(problems)} scheduler check failures",
                  file=sys.stderr)
            return 1
        with open(os.path.join(opts.out, "trace.txt")) as f:
            problems, sw, mig = check_ftrace(f.read().splitlines())
        if any(lost.values()):
            print("trace_export: trace.txt not checked (records lost)")
        elif problems:
            for p in problems[:20]:
                print(f"trace_export: trace.txt: {p}", file=sys.stderr)
            return 1
        else:
            print(f"trace_export: trace.txt checked: {sw} switches, {mig} "
                  "migrations")
        print("trace_export: scheduler checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
