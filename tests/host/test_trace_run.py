#!/usr/bin/env python3
"""Host test: `make trace` as a newcomer first runs it, with the
Makefile's defaults (SCENARIO=demo; no TRACE_KIB, TRACE_DRAIN or
TRACE_CLASSES given), must lose no record: every ring's lost count 0,
a record from every core, and trace_export's checks of trace.txt run
and passed. One boot of the demo with build/kernel.elf (a few seconds;
make test has built it). The output goes to build/test-logs/make-trace
(TRACE_OUT), kept for a look after a failure.

    test_trace_run.py [substring]
"""

import os
import shutil
import subprocess
import sys

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import trace_export as te  # noqa: E402  (tools/, on the path by host_proto)

OUT = os.path.join(ROOT, "build", "test-logs", "make-trace")
# What the run must not inherit: a parent make's flags and jobserver,
# and the variables a user may have exported that `make trace` reads.
UNSET = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "SCENARIO", "TRACE_CLASSES",
         "TRACE_KIB", "TRACE_DRAIN", "TRACE_OUT")
TIMEOUT_S = 600  # the demo boots in seconds; generous for a loaded host


def _make_trace():
    """Run `make trace TRACE_OUT=OUT` in the tree: the CompletedProcess."""
    env = {k: v for k, v in os.environ.items() if k not in UNSET}
    shutil.rmtree(OUT, ignore_errors=True)  # no log of an earlier run
    return subprocess.run(["make", "-s", "--no-print-directory", "-C", ROOT,
                           "trace", f"TRACE_OUT={OUT}"], env=env,
                          capture_output=True, text=True, timeout=TIMEOUT_S)


def test_make_trace_default_loses_nothing():
    """make trace's default scenario: nothing lost, every core traced,
    trace.txt checked."""
    r = _make_trace()
    said = " | ".join((r.stdout + r.stderr).splitlines()[-6:])
    if r.returncode:
        return f"make trace: exit {r.returncode}: {said}"
    with open(os.path.join(OUT, "console.log"), encoding="utf-8",
              errors="replace") as f:
        trace = te.parse(f.read())
    lost = {c: n for c, n in trace.lost().items() if n}
    if lost:
        return f"records lost {lost} ({OUT}/console.log): {said}"
    empty = [c for c in range(trace.header["ncpus"])
             if not trace.rings.get(c)]
    if empty:
        return f"no records from cores {empty}: {said}"
    if "trace.txt checked" not in r.stdout:
        return f"trace.txt not checked: {said}"
    return None


if __name__ == "__main__":
    sys.exit(host_proto.run_tests(
        [("make_trace_default_loses_nothing",
          test_make_trace_default_loses_nothing)], sys.argv))
