#!/usr/bin/env python3
"""`make soak`: boot one test suite many times, a few at a time, and
count the runs that failed.

    soak.py --name NAME [-n 100] [-j 2] [--log-dir build/soak]
            -- HARNESS_ARGS...

HARNESS_ARGS are the options of tests/harness/run_tests.py that name
the suite file and the kernels (the Makefile's SUITE_ARGS) and the
timeout; the suite NAME of that file (any kind) is checked first
(run_tests.py --list). Each run is run_tests.py with those options,
--only NAME and a log directory of its own (LOG_DIR/NNN); a run fails
if the harness exits non-zero. Prints one line per failed run (its FAIL
lines) and closes with `soak NAME: R runs, F failed`. Exits non-zero if
any run failed. A rare failure of a suite that `make test` boots once
shows up here.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "tests", "harness", "run_tests.py")


def harness(opts, *more):
    """The run_tests.py command for suite NAME, with @more options."""
    return [sys.executable, RUNNER, *opts.harness, "--only", opts.name,
            *more]


def one_run(opts, i):
    """Boot the suite once; (index, ok, FAIL lines, seconds)."""
    log_dir = os.path.join(opts.log_dir, f"{i:03d}")
    cmd = harness(opts, "--log-dir", log_dir)
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True)
    fails = [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL")]
    return i, res.returncode == 0, fails, time.monotonic() - t0


def main(argv=None):
    """Check the suite, run it -n times, -j at a time; 1 if any failed."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--name", required=True)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--log-dir", default="build/soak")
    ap.add_argument("harness", nargs="*", metavar="HARNESS_ARGS")
    opts = ap.parse_args(argv)
    name = opts.name
    if subprocess.run(harness(opts, "--list"), stdout=subprocess.DEVNULL
                      ).returncode:
        return 2  # run_tests.py said why: no such suite, a bad option
    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=opts.j) as ex:
        runs = [ex.submit(one_run, opts, i) for i in range(opts.n)]
        for fut in concurrent.futures.as_completed(runs):
            i, ok, fails, secs = fut.result()
            if not ok:
                failed += 1
                why = "; ".join(fails) or "no FAIL line (see the log)"
                print(f"soak {name} run {i:03d} failed in {secs:.0f}s: {why}"
                      f" (log {opts.log_dir}/{i:03d})", flush=True)
    print(f"soak {name}: {opts.n} runs, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
