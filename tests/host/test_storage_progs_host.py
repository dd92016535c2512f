#!/usr/bin/env python3
"""user/postmark and user/bonnie, paper 002's benchmark programs, built
with the host's cc and libc from the same source Fulcrum runs (issue 14:
no #ifdef for either system), run on the host: a small run completes and
reports, and impossible parameters give a usage message and status 2."""

import os
import subprocess
import sys
import tempfile

from host_proto import ROOT, run_tests


def _build(tmp, prog):
    exe = os.path.join(tmp, prog)
    subprocess.run(["cc", "-std=c11", "-D_POSIX_C_SOURCE=200809L", "-O2",
                    "-Wall", "-Wextra", "-Werror", "-o", exe,
                    os.path.join(ROOT, "user", prog, "main.c")],
                   check=True, capture_output=True, text=True)
    return exe


def _run(*args):
    return subprocess.run(list(args), capture_output=True, text=True,
                          timeout=120)


def test_postmark_host_run():
    """The paper's parameters: every created file deleted, a result."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-pm-") as tmp:
        exe = _build(tmp, "postmark")
        out = os.path.join(tmp, "res")
        r = _run(exe, "-f", "25", "-t", "25", "-d",
                 os.path.join(tmp, "pm"), "-o", out)
        if r.returncode or "POSTMARK-RESULT" not in r.stdout:
            return f"exit {r.returncode}: {r.stdout[-200:]}"
        res = dict(kv.split("=") for kv in open(out).read().split()[1:])
        if res["created"] != res["deleted"] or int(res["created"]) < 25:
            return f"created {res['created']}, deleted {res['deleted']}"
        if os.listdir(os.path.join(tmp, "pm")):
            return "files left behind"
    return None


def test_postmark_bad_parameters():
    """0 files, a reversed size range, an unknown option: status 2."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-pm-") as tmp:
        exe = _build(tmp, "postmark")
        for args in (["-f", "0"], ["-s", "100", "-S", "10"], ["-x", "1"],
                     ["-b", "0"]):
            r = _run(exe, *args, "-d", os.path.join(tmp, "pm"))
            if r.returncode != 2 or "usage" not in r.stdout:
                return f"{args}: exit {r.returncode}"
    return None


def test_bonnie_host_run():
    """setup then run: every block read back right, ~10 % rewritten."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-bn-") as tmp:
        exe = _build(tmp, "bonnie")
        f = os.path.join(tmp, "f")
        r1, r2 = _run(exe, f, "setup"), _run(exe, f, "run", "4000", "3")
        if r1.returncode or r2.returncode:
            return f"exit {r1.returncode}/{r2.returncode}: {r2.stdout}"
        if os.path.getsize(f) != 128 * 1024:
            return f"size {os.path.getsize(f)}"
        rew = int(r2.stdout.split("rewrites=")[1])
        if not 300 <= rew <= 500:
            return f"{rew} rewrites of 4000"
    return None


def test_bonnie_bad_parameters():
    """No mode, 0 seeks, a size not a multiple of 4 KiB: status 2."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-bn-") as tmp:
        exe = _build(tmp, "bonnie")
        f = os.path.join(tmp, "f")
        for args in ([f], [f, "run", "0"], [f, "setup", "6"], [f, "x"]):
            r = _run(exe, *args)
            if r.returncode != 2 or "usage" not in r.stdout:
                return f"{args}: exit {r.returncode}"
    return None


if __name__ == "__main__":
    sys.exit(run_tests([(n, f) for n, f in sorted(globals().items())
                        if n.startswith("test_")], sys.argv))
