#!/usr/bin/env python3
"""tests/user/fstest (the POSIX file-semantics suite Fulcrum runs over F, B
and D) built with the host's cc and libc and run on the host's file
system: every expectation in it is what Linux does, so the suite cannot
encode a Fulcrum-only behaviour. Same source, no #ifdef."""

import os
import resource
import subprocess
import sys
import tempfile

from host_proto import ROOT, run_tests

SRC = os.path.join(ROOT, "tests", "user", "fstest", "main.c")


def _build(tmp):
    exe = os.path.join(tmp, "fstest")
    subprocess.run(["cc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2",
                    "-Wall", "-Wextra", "-Werror", "-o", exe, SRC],
                   check=True, capture_output=True, text=True)
    return exe


def _run(exe, *args):
    def limit():  # EMFILE must come within the test's 2000 opens
        resource.setrlimit(resource.RLIMIT_NOFILE, (64, 64))
    return subprocess.run([exe, *args], capture_output=True, text=True,
                          timeout=120, preexec_fn=limit)


def test_fstest_on_host_linux():
    """Every check of fstest passes on the host (exit 0, no FAIL)."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-fstest-") as tmp:
        r = _run(_build(tmp), os.path.join(tmp, "t"))
        fails = [l for l in r.stdout.splitlines() if "FSTEST FAIL" in l]
        if r.returncode or fails or "FSTEST done 17 0" not in r.stdout:
            return f"exit {r.returncode}: {fails or r.stdout[-200:]}"
    return None


def test_fstest_bad_pointer_on_host():
    """On Linux a read() into an unmapped buffer is EFAULT (Fulcrum
    kills the process instead: t_posix.c's posix_bad_pointer)."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-fstest-") as tmp:
        d = os.path.join(tmp, "b")
        os.mkdir(d)
        with open(os.path.join(d, "f"), "w") as f:
            f.write("0123456789")
        r = _run(_build(tmp), d, "badptr")
        if r.returncode or "FSTEST ok badptr" not in r.stdout:
            return f"exit {r.returncode}: {r.stdout[-200:]}"
    return None


if __name__ == "__main__":
    sys.exit(run_tests([(n, f) for n, f in sorted(globals().items())
                        if n.startswith("test_")], sys.argv))
