#!/usr/bin/env python3
"""`make soak`: boot one test suite many times, a few at a time, and
count the runs that failed.

    soak.py --kernel K --suite NAME:CPUS:ARGS [-n 100] [-j 2]
            [--timeout 300] [--log-dir build/soak]

Each run is tests/harness/run_tests.py with that one suite and a log
directory of its own (LOG_DIR/NNN); a run fails if the harness exits
non-zero. Prints one line per failed run (its FAIL lines) and closes
with `soak NAME: R runs, F failed`. Exits non-zero if any run failed.
A rare failure of a suite that `make test` boots once shows up here.
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RUNNER = os.path.join(HERE, "..", "tests", "harness", "run_tests.py")


def one_run(opts, i):
    """Boot the suite once; (index, ok, FAIL lines, seconds)."""
    log_dir = os.path.join(opts.log_dir, f"{i:03d}")
    cmd = [sys.executable, RUNNER, "--kernel", opts.kernel,
           "--suite", opts.suite, "--timeout", str(opts.timeout),
           "--log-dir", log_dir]
    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True)
    fails = [ln for ln in res.stdout.splitlines() if ln.startswith("FAIL")]
    return i, res.returncode == 0, fails, time.monotonic() - t0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--suite", required=True)
    ap.add_argument("-n", type=int, default=100)
    ap.add_argument("-j", type=int, default=2)
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--log-dir", default="build/soak")
    opts = ap.parse_args(argv)
    name = opts.suite.split(":", 1)[0]
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
