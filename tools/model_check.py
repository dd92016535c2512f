#!/usr/bin/env python3
"""Model-check the ICC protocol with Spin.

Runs the Promela models of tools/model/ (docs/icc.md, "Model check"):
for each check, `spin -a` in build/model/<check>/ (on a copy of the
model, so trails stay out of the source tree), the host gcc builds the
verifier pan, pan runs. Two kinds of check:

    expect pass   the protocol as it should be: Spin must find no error
                  and explore the whole state space
    expect fail   a known bug put back with -DFINDING2 or -DFINDING5: Spin
                  must find a counterexample, of the expected kind; its
                  trail is replayed and printed (the model's MSC lines)

Prints one line per check (states stored, depth, seconds) and, for the
bug variants, the trail. Exits non-zero if any check does not go the way
it must. Results go to build/model/results.json too.

    tools/model_check.py [--set quick|full] [--only SUBSTRING]

`quick` (make test, about 30 s of CPU) is every model's safety check
at its default bounds, each bug variant's included; `full` (make model)
adds the wider bounds, the check that every run of icc.pml ends (so
that its end-of-run checks see every behaviour) and the liveness of a
retrying reader, which -DFINDING5 breaks (an acceptance cycle).
"""

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass, field

sys.dont_write_bytecode = True

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
MODEL_DIR = os.path.join(ROOT, "tools", "model")
OUT_DIR = os.path.join(ROOT, "build", "model")
MEMLIM_MB = 4096
DEPTH_MAX = 100000
CHECK_TIMEOUT_S = 1800


@dataclass
class Check:
    """One Spin run: a model, its -D defines, how to run it, the outcome
    it must have (`expect`: pass, or fail with a line matching `why`)."""

    name: str
    model: str
    defines: list = field(default_factory=list)
    mode: str = "safety"    # safety | progress (no cycle) | ltl (fair)
    expect: str = "pass"
    why: str = ""           # expect fail: regex over the failure text
    opt: str = "-O0"        # pan: quick to build; -O2 where it pays
    collapse: bool = False  # -DCOLLAPSE: half the memory, a bit slower
    sets: tuple = ("quick", "full")
    what: str = ""


CHECKS = [
    Check("mbox", "mbox.pml",
          what="3 producers x 2 records, take_all and take_only"),
    Check("icc", "icc.pml", collapse=True,
          what="mailbox, wake (inflight + token), migration; 2 cores, "
               "2 wakes, 2 moves, 2 parks"),
    Check("icc-finding2", "icc.pml", ["-DFINDING2"], expect="fail",
          collapse=True,
          why=r"st==T_BLOCKED\)&&token",
          what="finding 2 put back: the state read before the owner"),
    Check("load_seq", "load_seq.pml",
          what="one thread record's writers: THREAD_START, THREAD_SET, "
               "TASK_IN, a reader"),
    Check("load_seq-live", "load_seq.pml", ["-DLIVE"], mode="ltl",
          opt="-O2", sets=("full",),
          what="a retrying reader always gets a copy (weak fairness)"),
    Check("load_seq-finding5", "load_seq.pml", ["-DFINDING5"],
          expect="fail", why=r"seq%2\)==0|seq==\(2\*windows\)|a==b",
          what="finding 5 put back: thread_activate publishes from the "
               "caller's core"),
    Check("load_seq-finding5-live", "load_seq.pml",
          ["-DLIVE", "-DFINDING5"], mode="ltl", expect="fail", opt="-O2",
          why=r"acceptance cycle", sets=("full",),
          what="finding 5: a reader retries forever"),
    Check("icc-wide", "icc.pml", ["-DNWAKE=3", "-DNPARK=3"], opt="-O2",
          collapse=True,
          sets=("full",), what="icc with 3 wakes and 3 parks"),
    Check("icc-ends", "icc.pml", mode="progress", opt="-O2", collapse=True,
          sets=("full",),
          what="icc has no cycle: every run reaches the end checks"),
]


@dataclass
class Result:
    """What one check found."""

    check: Check
    ok: bool = False
    why: str = ""
    states: int = 0
    depth: int = 0
    err_depth: int = 0
    errors: int = 0
    pan_s: float = 0.0
    cpu_s: float = 0.0
    total_s: float = 0.0
    failure: str = ""
    trail: list = field(default_factory=list)

    def line(self):
        """One line for the log."""
        c = self.check
        verdict = "ok" if self.ok else "FAILED"
        if c.expect == "fail":
            found = (f"counterexample at depth {self.err_depth}: "
                     f"{self.failure}" if self.errors
                     else "no counterexample")
        else:
            found = "no error" if not self.errors else self.failure
        return (f"model {c.name}: {verdict}: {found}; {self.states:,} "
                f"states, depth {self.depth}, {self.pan_s:.1f} s "
                f"({self.total_s:.1f} s with the build, CPU "
                f"{self.cpu_s:.1f} s)"
                + (f" -- {self.why}" if self.why else ""))


def run(cmd, cwd, timeout=CHECK_TIMEOUT_S):
    """Run cmd in cwd; (returncode, stdout + stderr)."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def children_cpu():
    """CPU seconds used by finished child processes so far (the
    figure that does not depend on what else the host runs)."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def tools_missing():
    """The missing tools' names (spin, gcc)."""
    return [t for t in ("spin", "gcc") if shutil.which(t) is None]


def number(pattern, text, cast=int):
    """The first group of pattern in text, cast, or 0."""
    m = re.search(pattern, text)
    return cast(m.group(1)) if m else cast(0)


def pan_command(check):
    """pan's build flags and run arguments for the check's mode."""
    cflags = [check.opt, "-w", f"-DMEMLIM={MEMLIM_MB}"]
    if check.collapse:
        cflags.append("-DCOLLAPSE")
    args = [f"-m{DEPTH_MAX}"]
    if check.mode == "safety":
        cflags.append("-DSAFETY")
    elif check.mode == "progress":
        cflags.append("-DNP")
        args.append("-l")
    else:  # ltl: acceptance cycles under weak fairness
        args += ["-a", "-f"]
    return cflags, args


def replay(check, work):
    """The counterexample: the model's MSC lines and the failed
    assertion, from a guided replay of the trail."""
    trail = os.path.join(work, check.model + ".trail")
    if not os.path.exists(trail):
        return ["(no trail written)"]
    _, out = run(["spin", "-t", "-k", check.model + ".trail"]
                 + check.defines + [check.model], work, timeout=120)
    lines = []
    for raw in out.splitlines():
        s = raw.strip()
        if s.startswith("MSC:"):
            lines.append(s[len("MSC:"):].strip())
        elif s.startswith("spin: text of failed assertion"):
            lines.append(s[len("spin: "):])
        elif "<<<<<START OF CYCLE>>>>>" in s:
            lines.append("-- the cycle, repeated forever, starts here --")
    return lines


def run_check(check, out_dir=OUT_DIR):
    """Build and run one check; a Result (ok: the expected outcome)."""
    res = Result(check)
    t0, cpu0 = time.monotonic(), children_cpu()
    work = os.path.join(out_dir, check.name)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    shutil.copy(os.path.join(MODEL_DIR, check.model), work)
    rc, out = run(["spin", "-a"] + check.defines + [check.model], work)
    if rc != 0 or not os.path.exists(os.path.join(work, "pan.c")):
        res.why = "spin -a: " + " ".join(out.split())[:300]
        return res
    cflags, args = pan_command(check)
    rc, out = run(["gcc"] + cflags + ["-o", "pan", "pan.c"], work)
    if rc != 0:
        res.why = "gcc pan.c: " + " ".join(out.split())[:300]
        return res
    rc, out = run(["./pan"] + args, work)
    res.total_s = time.monotonic() - t0
    res.cpu_s = children_cpu() - cpu0
    with open(os.path.join(work, "pan.out"), "w", encoding="utf-8") as f:
        f.write(out)
    res.states = number(r"(\d+) states, stored", out)
    res.depth = number(r"depth reached (\d+)", out)
    res.errors = number(r"errors: (\d+)", out)
    res.pan_s = number(r"pan: elapsed time ([\d.e+]+) seconds", out, float)
    m = re.search(r"^pan:\d+: (.*?)(?: \(at depth (\d+)\))?$", out, re.M)
    res.failure = m.group(1) if m else ""
    res.err_depth = int(m.group(2)) if m and m.group(2) else 0
    if "errors:" not in out:
        res.why = "pan did not finish: " + " ".join(out.split())[-300:]
        return res
    if check.expect == "pass":
        incomplete = [w for w in ("max search depth too small",
                                  "out of memory", "Search not completed")
                      if w in out]
        if res.errors:
            res.trail = replay(check, work)
            res.why = "Spin found an error in the protocol as it should be"
        elif incomplete:
            res.why = "incomplete search: " + ", ".join(incomplete)
        else:
            res.ok = True
        return res
    if not res.errors:
        res.why = "Spin found no counterexample: the model cannot see the bug"
        return res
    res.trail = replay(check, work)
    for line in res.trail:   # the assertion as written, names not numbers
        if line.startswith("text of failed assertion: "):
            res.failure = "assertion " + line.split(": ", 1)[1]
    text = " ".join([res.failure] + res.trail)
    if not re.search(check.why, text):
        res.why = f"the counterexample is not the expected one ({check.why})"
        return res
    res.ok = True
    return res


def selected(set_name, only=""):
    """The checks of a set whose name contains `only`."""
    return [c for c in CHECKS if set_name in c.sets and only in c.name]


def save(results, out_dir=OUT_DIR):
    """results.json: the figures per check (for the README)."""
    os.makedirs(out_dir, exist_ok=True)
    data = [{"name": r.check.name, "model": r.check.model,
             "defines": r.check.defines, "mode": r.check.mode,
             "expect": r.check.expect, "ok": r.ok, "states": r.states,
             "depth": r.depth, "err_depth": r.err_depth,
             "pan_s": r.pan_s,
             "cpu_s": round(r.cpu_s, 2),
             "total_s": round(r.total_s, 2), "failure": r.failure}
            for r in results]
    with open(os.path.join(out_dir, "results.json"), "w",
              encoding="utf-8") as f:
        json.dump(data, f, indent=1)


def main(argv=None):
    """Run the selected checks, print them, exit non-zero on a surprise."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--set", choices=("quick", "full"), default="full")
    ap.add_argument("--only", default="",
                    help="only the checks whose name contains this")
    ap.add_argument("--out", default=OUT_DIR)
    opts = ap.parse_args(argv)
    missing = tools_missing()
    if missing:
        sys.exit(f"model_check: {', '.join(missing)} not found; "
                 "scripts/setup.sh installs it (Debian: apt-get install "
                 "spin gcc)")
    checks = selected(opts.set, opts.only)
    if not checks:
        sys.exit(f"model_check: no check matches {opts.only!r}")
    results, t0 = [], time.monotonic()
    for check in checks:
        print(f"== {check.name}: {check.what} ({check.model} "
              f"{' '.join(check.defines)}, {check.mode}, must "
              f"{check.expect})", flush=True)
        res = run_check(check, opts.out)
        results.append(res)
        print(res.line(), flush=True)
        for line in res.trail:
            print(f"    {line}")
    save(results, opts.out)
    bad = [r.check.name for r in results if not r.ok]
    cpu = sum(r.cpu_s for r in results)
    print(f"model: {len(results) - len(bad)} of {len(results)} checks "
          f"as expected, {time.monotonic() - t0:.0f} s (CPU {cpu:.0f} s)"
          + (f"; FAILED: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
