#!/usr/bin/env python3
"""Host test: the suite file (tests/suites.txt) and its reader
(tests/harness/suites.py), without booting anything.

Every suite of the file builds into the harness's Suite, the kernel's
self-tests (test=) boot only the test kernel, bad lines are refused
with FILE:LINE, --only and the variables select as `make soak` and
`make test CPUS=N` need, and a suite booted on a kernel without
self-tests fails instead of passing with zero tests.

    test_suites.py [substring]    run only tests whose name contains it
"""

import os
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import qemu  # noqa: E402  (tools/qemu.py, put on the path by host_proto)
import run_tests  # noqa: E402
import suites  # noqa: E402  (tests/harness/suites.py)

SUITES = os.path.join(ROOT, "tests", "suites.txt")
VARS = ["MANY=16", "TORTURE_DELAY=2000", "TORTURE_OPS_SHORT=20000"]
IMAGES = {"default": "K.elf", "test": "KT.elf", "irqstat": "KI.elf"}


def harness_suites(*more):
    """run_tests.build_suites over the real file with fake kernels."""
    argv = ["--suite-file", SUITES, "--kernel", IMAGES["default"],
            "--kernel-test", IMAGES["test"], "--kernel-irqstat",
            IMAGES["irqstat"], "--log-dir", "logs", *more]
    for v in VARS:
        argv += ["--var", v]
    opts = run_tests.parse_args(argv)
    return run_tests.build_suites(opts), opts.same_lines


def kernel_of(suite):
    """The kernel image in a suite's QEMU command."""
    return suite.cmd[suite.cmd.index("-kernel") + 1]


def test_file_builds():
    """Every suite of both sections builds (dialog scripts read, specs
    parsed), [test] and [long] hold suites, same-lines names suites of
    [test]."""
    test, same = harness_suites("--section", "test")
    long, _ = harness_suites("--section", "long")
    if len(test) < 50 or not long:
        return f"{len(test)} suites in [test], {len(long)} in [long]"
    names = {s.name for s in test}
    for spec in same:
        missing = set(spec.partition(":")[2].split(",")) - names
        if missing:
            return f"same-lines {spec}: no suites {missing} in [test]"
    return None


def test_selftests_boot_the_test_kernel():
    """A suite with test= boots the test kernel, every other one not."""
    everything, _ = harness_suites()
    wrong = [f"{s.name} on {kernel_of(s)}" for s in everything
             if any(a.startswith("test=") for a in s.args.split(","))
             != (kernel_of(s) == IMAGES["test"])]
    return f"wrong kernel: {wrong}" if wrong else None


def read_text(text):
    """suites.read of @text in a file of its own."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-suites-") as tmp:
        path = os.path.join(tmp, "s.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return suites.read(path)


def test_bad_lines_refused():
    """Each bad line fails with FILE:LINE and a reason."""
    bad = {
        "unknown kind": "[t]\nwhat x 1 a=1\n",
        "test= outside kernel": "[t]\nprotocol x 1 test=all\n",
        "kernel without test=": "[t]\nkernel x 1 utest=all\n",
        "missing EXPECT": "[t]\npanic x 4 panic_on=2\n",
        "extra EXTRA": "[t]\nprotocol x 1 utest=all more\n",
        "before a section": "protocol x 1 utest=all\n",
        "twice": "[t]\nprotocol x 1 utest=a\n[u]\nprotocol x 2 utest=b\n",
        "same-lines arity": "[t]\nsame-lines P\n",
    }
    wrong = []
    for name, text in bad.items():
        try:
            read_text("# comment\n\n" + text)
            wrong.append(f"{name}: accepted")
        except suites.SuiteFileError as exc:
            if "s.txt:" not in str(exc):
                wrong.append(f"{name}: {exc} names no line")
    return "; ".join(wrong) or None


def test_good_lines():
    """Comments, `-` for no arguments, EXTRA, a 4g3 core count."""
    rows = read_text("[t]  # the first\n"
                     "dialog  d  4  -  tests/dialog/shell.txt  # c\n"
                     "kernel  k  4g3  test=all\n"
                     "same-lines  P  d,k\n")
    got = [(r.section, r.kind, r.name, r.cores, r.args, r.extra)
           for r in rows]
    want = [("t", "dialog", "d", "4", "", "tests/dialog/shell.txt"),
            ("t", "kernel", "k", "4g3", "test=all", ""),
            ("t", "same-lines", "P", "", "", "d,k")]
    return None if got == want else f"read {got}"


def test_variables_and_only():
    """{NAME} from --var in names, cores and args; --only by the name
    after replacement (make soak SOAK=smp32 with CPUS=32); same-lines
    only with all its suites; an unknown name or variable refused."""
    rows = read_text("[t]\nkernel smp{N} {N} test=all,x={X}\n"
                     "protocol u1 1 utest=all\nprotocol u2 2 utest=all\n"
                     "same-lines P u1,u2\n")
    picked = suites.select(rows, (), ["smp32"], {"N": "32"})
    if [r.spec({"N": "32", "X": "1"}) for r in picked] != \
            ["smp32:32:test=all,x=1"]:
        return f"picked {picked}"
    if [r.kind for r in suites.select(rows, ["t"], ["u1", "u2"])] != \
            ["protocol", "protocol", "same-lines"]:
        return "same-lines not kept with both its suites"
    if len(suites.select(rows, ["t"], ["u1"])) != 1:
        return "same-lines kept without one of its suites"
    for call in (lambda: suites.select(rows, (), ["nope"]),
                 lambda: picked[0].spec({"N": "32"})):
        try:
            call()
            return "accepted an unknown name or variable"
        except suites.SuiteFileError:
            pass
    return None


def test_kernel_without_selftests_fails():
    """A kernel suite booted on build/kernel.elf: its one line, then
    power-off, counts as a failure of the suite, never a pass."""
    result = qemu.RunResult(lines=[
        "Fulcrum: 4 cores, 256 MiB RAM, args 'test=all'",
        "kernel: test=all needs build/kernel-test.elf (this kernel has "
        "no self-tests)"], returncode=0)
    proto = run_tests.parse_protocol(result.lines)
    problems = run_tests.harness_problems(result, proto, 300)
    if "no tests reported" not in problems:
        return f"problems {problems}"
    return None


TESTS = [
    ("file_builds", test_file_builds),
    ("selftests_boot_the_test_kernel", test_selftests_boot_the_test_kernel),
    ("bad_lines_refused", test_bad_lines_refused),
    ("good_lines", test_good_lines),
    ("variables_and_only", test_variables_and_only),
    ("kernel_without_selftests_fails", test_kernel_without_selftests_fails),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
