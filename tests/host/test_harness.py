#!/usr/bin/env python3
"""Host test: the test harness on bad input.

A program that does not run must fail its suite at once, in one line
that names the command and carries its stderr: never a wait for the
timeout, never a bare "missing TEST-DONE". The runs below use fake
programs (`false`, `sh -c ...`, `sleep`) through tools/qemu.py's run(),
then real QEMU through tests/harness/run_tests.py (a kernel file that
does not exist; a kernel of zeros that prints nothing), then the rules
of the expect suites, and the dialog suites: typing into a fake console,
their rules and their scripts; the disk suites' spec and image check;
and a real boot killed at its timeout, which must say where its cores
were.

    test_harness.py [substring]    run only tests whose name contains it
"""

import contextlib
import io
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import qemu  # noqa: E402  (tools/qemu.py, put on the path by host_proto)
import run_tests  # noqa: E402
import ext2_image  # noqa: E402  (tests/harness, on the path via run_tests)

RUN_TESTS = os.path.join(ROOT, "tests", "harness", "run_tests.py")
TIMEOUT = 60        # what a run must NOT wait for
FAST_S = 10.0       # a failed start is reported well within this
SILENT_S = 2        # first-output deadline of the silent runs


def run_fake(cmd, first_output=qemu.FIRST_OUTPUT_S):
    """qemu.run() of `cmd` with a log in a temporary directory; returns
    (result, the log's text)."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        log = os.path.join(tmp, "x.log")
        result = qemu.run(cmd, TIMEOUT, log, first_output=first_output)
        with open(log, encoding="utf-8") as f:
            return result, f.read()


def fast_error(result, *needles):
    """Why `result` is not an early one-line error containing every
    needle (None if it is)."""
    if result.elapsed > FAST_S:
        return f"took {result.elapsed:.1f}s (timeout {TIMEOUT}s)"
    if not result.error or "\n" in result.error:
        return f"error {result.error!r}, want one line"
    missing = [n for n in needles if n not in result.error]
    return f"error {result.error!r} lacks {missing}" if missing else None


def test_run_missing_program():
    """A program that does not exist: 'cannot run', at once."""
    result, _ = run_fake(["/nonexistent/fulcrum-no-such-program"])
    return fast_error(result, "cannot run", "fulcrum-no-such-program")


def test_run_exits_at_start():
    """`false`: exits 1 printing nothing."""
    result, _ = run_fake(["false"])
    return fast_error(result, "false exited 1 at start",
                      "(nothing on stderr)")


def test_run_stderr_in_one_line():
    """A program that complains on stderr and exits: its stderr joined
    into the one line, and in the log."""
    result, log = run_fake(["sh", "-c", "echo boom >&2; echo bang >&2; "
                            "exit 1"])
    why = fast_error(result, "sh exited 1 at start: boom | bang")
    if why is None and not ("boom\n" in log and "bang\n" in log):
        why = f"stderr missing from the log: {log!r}"
    return why


def test_run_silent():
    """A program that runs but prints nothing: killed at the first-output
    deadline, not at the timeout."""
    result, _ = run_fake(["sleep", "1000"], first_output=SILENT_S)
    return fast_error(result, f"no output from sleep in {SILENT_S}s",
                      "sleep 1000")


def test_run_output_then_exit():
    """A program that prints, then exits non-zero: no start error, its
    exit code, stdout and stderr apart, both in the log, no wait."""
    result, log = run_fake(["sh", "-c", "echo out; echo err >&2; exit 3"])
    got = (result.error, result.returncode, result.lines, result.stderr)
    if got != (None, 3, ["out"], ["err"]):
        return f"(error, rc, stdout, stderr) = {got}"
    if "out\n" not in log or "err\n" not in log:
        return f"log lacks a stream: {log!r}"
    if result.elapsed > FAST_S:
        return f"took {result.elapsed:.1f}s"
    return None


def harness(*args):
    """Run run_tests.py with a log dir of its own; (exit code, lines)."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        proc = subprocess.run([sys.executable, RUN_TESTS, "--timeout",
                               str(TIMEOUT), "--log-dir", tmp, *args],
                              capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
    return proc.returncode, proc.stdout.splitlines()


def harness_fails(args, prefix, *needles):
    """Why run_tests.py with `args` did not fail with one line starting
    with `prefix` and containing every needle (None if it did)."""
    rc, lines = harness(*args)
    hits = [line for line in lines if line.startswith(prefix)]
    if rc != 1 or lines[-1:] != ["0 passed, 1 failed"]:
        return f"exit {rc}, last line {lines[-1:]}, want 1 and 0 passed, " \
               "1 failed"
    if len(hits) != 1:
        return f"want one line starting {prefix!r}, got {hits}"
    missing = [n for n in needles if n not in hits[0]]
    return f"{hits[0]!r} lacks {missing}" if missing else None


def test_harness_qemu_refuses():
    """QEMU refuses to start (no such kernel file): one FAIL line with
    the command and QEMU's complaint."""
    kernel = "/nonexistent/fulcrum-kernel.elf"
    return harness_fails(["--kernel", kernel, "--suite", "bad:1:test=all"],
                         "FAIL bad/<harness>: ",
                         f"{qemu.QEMU} exited 1 at start: ",
                         "could not load kernel", f"-kernel {kernel}")


def test_harness_kernel_silent():
    """A kernel that does not boot (all zeros): one FAIL line after the
    first-output deadline."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        kernel = os.path.join(tmp, "zeros.bin")
        with open(kernel, "wb") as f:
            f.write(bytes(4096))
        return harness_fails(["--kernel", kernel, "--first-output",
                              str(SILENT_S), "--suite", "mute:1:test=all"],
                             "FAIL mute/<harness>: ",
                             f"no output from the kernel in {SILENT_S}s: ",
                             f"-kernel {kernel}")


def test_harness_host_program_refuses():
    """A host test program that exits at start: named after the file
    without its extension, its stderr in the FAIL line."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        prog = os.path.join(tmp, "test_broken.sh")
        with open(prog, "w", encoding="utf-8") as f:
            f.write("#!/bin/sh\necho 'cannot open fixture' >&2\nexit 2\n")
        os.chmod(prog, 0o755)
        return harness_fails(["--host-bin", prog],
                             "FAIL test_broken/<harness>: ",
                             "test_broken.sh exited 2 at start: "
                             "cannot open fixture")


def test_harness_host_program_args():
    """A host test program given with arguments (one shell-quoted
    --host-bin string) gets them, words split as the shell would; its
    tests count in the closing line."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        prog = os.path.join(tmp, "test_args.sh")
        with open(prog, "w", encoding="utf-8") as f:
            f.write('#!/bin/sh\nfor a; do echo "TEST-PASS $a"; done\n'
                    'echo "TEST-DONE $# 0"\n')
        os.chmod(prog, 0o755)
        rc, lines = harness("--host-bin", f"{prog} one 'two words'")
    want = ["PASS test_args/one", "PASS test_args/two words"]
    if rc != 0 or lines[-1:] != ["2 passed, 0 failed"]:
        return f"exit {rc}, last line {lines[-1:]}, want 0 and 2 passed"
    missing = [w for w in want if w not in lines]
    return f"no lines {missing}" if missing else None


def expect_case(lines, rc=0, **state):
    """expect_problems() of suite x (EXPECT 'ready,b c') on a fabricated
    run printing `lines` and exiting `rc`."""
    suite = run_tests.parse_expect_spec("x:2:demo,a=1:ready,b c", "k")
    result = qemu.RunResult(lines=list(lines), returncode=rc, **state)
    return run_tests.expect_problems(suite, result, TIMEOUT)


def test_expect_suite_rules():
    """Expect suites: every text in some line, no PANIC, no DEMO-FAIL
    line, exit 0 by itself; otherwise a reason."""
    good = ["boot", "x ready", "a b c"]
    cases = {
        "pass": (expect_case(good), False),
        "text missing": (expect_case(good[:2]), True),
        "DEMO-FAIL": (expect_case(good + ["DEMO-FAIL lb: no move"]), True),
        "PANIC": (expect_case(good, rc=None, panic="PANIC cpu1: x"), True),
        "exit 1": (expect_case(good, rc=1), True),
        "timeout": (expect_case(good, rc=None, timed_out=True), True),
        "no start": (expect_case([], rc=1, error="qemu exited 1"), True),
    }
    wrong = {name: problems for name, (problems, fail) in cases.items()
             if bool(problems) != fail}
    return f"wrong verdicts: {wrong}" if wrong else None


def test_expect_spec_parse():
    """--expect-suite NAME:CPUS:ARGS:EXPECT; ARGS may hold ':'."""
    suite = run_tests.parse_expect_spec("e:2:a=b:c,d:x", "k")
    got = (suite.name, suite.cpus, suite.args, suite.expect_lines)
    if got != ("e", 2, "a=b:c,d", "x"):
        return f"parsed {got}"
    for bad in ("e:2:demo:", "e:2:demo:a,,b", "e"):
        try:
            run_tests.parse_expect_spec(bad, "k")
            return f"accepted {bad!r}"
        except run_tests.argparse.ArgumentTypeError:
            pass
    return None


def test_echo_lines():
    """--echo PREFIX: the suite's lines starting with PREFIX are printed
    (the TORTURE result line of `make torture`), no others."""
    result = qemu.RunResult(lines=["  TORTURE in the middle\n",
                                   "TORTURE cpus=2 requests=5\r\n",
                                   "TEST-PASS icc_torture\n"])
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        run_tests.echo_lines(result, ["TORTURE"])
    got = out.getvalue()
    return None if got == "TORTURE cpus=2 requests=5\n" else f"printed {got!r}"


# A fake console for the dialog tests: says it is ready, then echoes
# each carriage-return-terminated line it reads as "$ LINE"; "quit" ends
# it with exit 0. It reads nothing before it has printed "ready".
FAKE_CONSOLE = r"""
import sys
print("boot\nready >", flush=True)
line = b""
while True:
    c = sys.stdin.buffer.read(1)
    if not c:
        sys.exit(3)
    if c != b"\r":
        line += c
        continue
    print("$ " + line.decode(), flush=True)
    if line == b"quit":
        sys.exit(0)
    line = b""
"""


def test_dialog_typing():
    """qemu.run(dialog=...): after the ready line each line is typed,
    the next one once the previous one's echo is out; the program gets
    them in order and exits by itself."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        result = qemu.run([sys.executable, "-c", FAKE_CONSOLE], TIMEOUT,
                          os.path.join(tmp, "x.log"),
                          dialog=["ready >", "a", "b c", "quit"])
    want = ["boot", "ready >", "$ a", "$ b c", "$ quit"]
    if result.lines != want or result.returncode != 0:
        return f"lines {result.lines}, exit {result.returncode}"
    return None


def dialog_case(lines, rc=0, **state):
    """dialog_problems() of a suite expecting 'one', then 'two', on a
    fabricated run printing `lines` and exiting `rc`."""
    suite = run_tests.Suite(name="d", cmd=[], dialog=["r", "x"],
                            expect_seq=["one", "two"])
    result = qemu.RunResult(lines=list(lines), returncode=rc, **state)
    return run_tests.dialog_problems(suite, result, TIMEOUT)


def test_dialog_suite_rules():
    """Dialog suites: the expected texts in order, no PANIC, exit 0 by
    itself; otherwise a reason."""
    good = ["r", "$ x", "one", "two"]
    cases = {
        "pass": (dialog_case(good), False),
        "same line twice": (dialog_case(["one two"]), True),
        "out of order": (dialog_case(["two", "one"]), True),
        "missing": (dialog_case(good[:3]), True),
        "PANIC": (dialog_case(good, rc=None, panic="PANIC cpu0: x"), True),
        "exit 1": (dialog_case(good, rc=1), True),
        "timeout": (dialog_case(good, rc=None, timed_out=True), True),
    }
    wrong = {name: problems for name, (problems, fail) in cases.items()
             if bool(problems) != fail}
    return f"wrong verdicts: {wrong}" if wrong else None


def test_dialog_spec_parse():
    """--dialog-suite NAME:CPUS:ARGS:FILE and the script's lines."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        def spec(text):
            path = os.path.join(tmp, "s.txt")
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            return run_tests.parse_dialog_spec(f"d:2:a=b:{path}", "k")
        suite = spec("# c\nready R  x\n\ntype set t 25\nexpect t   25\n")
        got = (suite.name, suite.cpus, suite.args, suite.dialog,
               suite.expect_seq)
        if got != ("d", 2, "a=b", ["R  x", "set t 25"], ["t   25"]):
            return f"parsed {got}"
        for bad in ("type x\n", "ready r\n", "ready r\ntype x\nsay y\n",
                    "ready r\ntype\n"):
            try:
                spec(bad)
                return f"accepted {bad!r}"
            except run_tests.argparse.ArgumentTypeError:
                pass
    return None


def test_disk_image_check():
    """A disk suite's image check: H everywhere but the blocks written
    by the tests that passed, which hold P; a block off by one byte, or
    a run where no writing test passed, fails."""
    passed = run_tests.Protocol(tests=[("PASS", "disk_io", None),
                                       ("FAIL", "cache_writeback", "x")])
    written = run_tests.disk_written(passed)
    if written != run_tests.DISK_WRITERS["disk_io"]:
        return f"written {sorted(written)[:4]}..."
    with tempfile.TemporaryDirectory(prefix="fulcrum-disk-") as tmp:
        img = os.path.join(tmp, "d.img")
        run_tests.disk_prepare(img)
        if not run_tests.disk_image_problems(img, written):
            return "a fresh image passed for blocks never written"
        with open(img, "r+b") as f:
            for b in sorted(written):
                f.seek(b * run_tests.DISK_BLOCK)
                f.write(run_tests.disk_pattern(b, True))
        if run_tests.disk_image_problems(img, written):
            return "the expected image failed"
        if not run_tests.disk_image_problems(img, set()):
            return "no writer passed, yet the check passed"
        with open(img, "r+b") as f:
            f.seek(5 * run_tests.DISK_BLOCK + 7)
            f.write(b"\x00")
        if not run_tests.disk_image_problems(img, written):
            return "one wrong byte in an unwritten block passed"
    return None


def test_disk_spec_parse():
    """--disk-suite NAME:CPUS:ARGS:modern|legacy attaches NAME.img."""
    suite = run_tests.parse_disk_spec("d:2:utest=disk,disk:legacy", "k",
                                      "/logs")
    cmd = " ".join(suite.cmd)
    if (suite.name, suite.cpus, suite.args) != ("d", 2, "utest=disk,disk") \
            or suite.disk != "/logs/d.img" \
            or "file=/logs/d.img" not in cmd \
            or "virtio-mmio.force-legacy=true" not in cmd \
            or "-nic none" not in cmd:
        return f"parsed {suite}"
    for bad in ("d:2:x:fast", "d:2:x", "d"):
        try:
            run_tests.parse_disk_spec(bad, "k", "/logs")
            return f"accepted {bad!r}"
        except run_tests.argparse.ArgumentTypeError:
            pass
    return None


def test_ext2_image_check():
    """An ext2 suite's image check: a fresh mke2fs image is clean but
    lacks the guest's files (fails); with them written by debugfs it
    passes; one wrong byte, or a writer that did not pass, fails."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-ext2-") as tmp:
        img = os.path.join(tmp, "e.img")
        ext2_image.prepare(img)
        if not ext2_image.problems(img, ["fs_server"]):
            return "a fresh image passed without the guest's files"
        env = ext2_image._env()
        def put(seed_delta):
            for name, (seed, size) in ext2_image.GUEST_FILES.items():
                src = os.path.join(tmp, "f")
                data = bytearray(ext2_image.pattern(seed, size))
                data[-1] ^= seed_delta
                with open(src, "wb") as f:
                    f.write(data)
                cmds = [f"rm /{name}", f"write {src} /{name}"]
                if "/" in name:
                    cmds.insert(0, f"mkdir /{os.path.dirname(name)}")
                for c in cmds:
                    subprocess.run(["debugfs", "-w", "-R", c, img], env=env,
                                   capture_output=True)
        put(0)
        got = ext2_image.problems(img, ["fs_server"])
        if got:
            return f"the expected image failed: {got}"
        if not ext2_image.problems(img, []):
            return "passed although the writer did not"
        put(1)
        if not ext2_image.problems(img, ["fs_server"]):
            return "a wrong last byte passed"
    return None


def test_ext2_spec_parse():
    """--ext2-suite NAME:CPUS:ARGS attaches NAME.img, an ext2 suite."""
    suite = run_tests.parse_ext2_spec("f:2:utest=fs_,disk,cache=64", "k",
                                      "/logs")
    if not suite.ext2 or suite.disk != "/logs/f.img" or \
            "file=/logs/f.img" not in " ".join(suite.cmd):
        return f"parsed {suite}"
    return None


KERNEL = os.path.join(ROOT, "build", "kernel.elf")
HANG_TIMEOUT_S = 4  # the user suite on 2 cores takes far longer
CANNED_REGS = """CPU#0
 PC=ffff0000402279bc X00=0000000000000000 X01=0000000000000000
X29=000000007ffffc80 X30=0000000000410228  SP=ffff000040f05000
PSTATE=800003c5 N--- EL1h     FPCR=00000000 FPSR=00000000
CPU#1
 PC=0000000000436a90 X00=0000000000000000 X01=0000000000000000
X29=0000000000000000 X30=0000000000436a00  SP=000000000004cc140
PSTATE=60000000 -ZC- EL0t     FPCR=00000000 FPSR=00000000
"""


def test_cores_parse():
    """`info registers -a` read into (cpu, el, pc, lr) per core, and the
    harness's timeout line carrying them."""
    got = qemu.cores_of(CANNED_REGS)
    want = [(0, 1, 0xffff0000402279bc, 0x410228), (1, 0, 0x436a90, 0x436a00)]
    if got != want:
        return f"cores_of: {got}, want {want}"
    result = qemu.RunResult(timed_out=True, cores="cpu0 EL0 0x436a90")
    problems = run_tests.harness_problems(result, run_tests.parse_protocol([]),
                                          5)
    if "timeout after 5s (cores: cpu0 EL0 0x436a90)" not in problems:
        return f"harness_problems: {problems}"
    return None


def test_timeout_says_where_the_cores_were():
    """A real boot killed at its timeout: result.cores names every core
    with its exception level (a few samples), and the kernel's symbols
    name kernel addresses (sched_idle_loop's here)."""
    if not os.path.exists(KERNEL):
        return f"no kernel at {KERNEL} (make kernel)"
    cmd = qemu.build_command(KERNEL, 2, "utest=all,loadcheck",
                             qemu.MTTCG_ARGS)
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        result = qemu.run(cmd, HANG_TIMEOUT_S, os.path.join(tmp, "x.log"))
        with open(os.path.join(tmp, "x.log"), encoding="utf-8") as f:
            log = f.read()
    if not result.timed_out:
        return f"not timed out: rc {result.returncode}, {result.error}"
    if not result.cores or any(f"cpu{c} EL" not in result.cores
                               for c in (0, 1)):
        return f"cores {result.cores!r}, want cpu0 and cpu1"
    if f"cores at the timeout: {result.cores}" not in log:
        return "the log does not say where the cores were"
    if not shutil.which(qemu.ADDR2LINE):
        return None  # names need binutils-aarch64-linux-gnu
    nm = shutil.which(qemu.ADDR2LINE.replace("addr2line", "nm"))
    if not nm:
        return None
    syms = subprocess.run([nm, KERNEL], capture_output=True, text=True,
                          check=False).stdout.split("\n")
    addr = next((int(line.split()[0], 16) for line in syms
                 if line.endswith(" sched_idle_loop")), None)
    names = qemu.symbolize(KERNEL, {addr + 4} if addr else set())
    if not addr or not names.get(addr + 4, "").startswith("sched_idle_loop"):
        return f"sched_idle_loop+4 ({addr}) named {names}"
    return None


def test_run_kill_on():
    """qemu.run(kill_on=): SIGKILL at the N-th matching line, not later
    (the program would print on for a minute), and the spec's parse."""
    prog = ("import sys, time\n"
            "for i in range(600):\n"
            "    print(f'POWERLOSS-SYNCED /f{i} {i} 1', flush=True)\n"
            "    time.sleep(0.1)\n")
    with tempfile.TemporaryDirectory(prefix="fulcrum-harness-") as tmp:
        result = qemu.run([sys.executable, "-c", prog], TIMEOUT,
                          os.path.join(tmp, "x.log"),
                          kill_on=(ext2_image.RE_SYNCED, 3))
    if result.killed_on != "POWERLOSS-SYNCED /f2 2 1":
        return f"killed_on {result.killed_on!r}, want the third line"
    if result.returncode != -9 or result.timed_out or result.error:
        return f"rc {result.returncode}, timed out {result.timed_out}, " \
               f"error {result.error}: want SIGKILL's -9 only"
    if result.elapsed > FAST_S:
        return f"took {result.elapsed:.1f}s"
    if ext2_image.synced_files(result.lines[:3]) != {
            "/f0": (0, 1), "/f1": (1, 1), "/f2": (2, 1)}:
        return f"synced_files of {result.lines[:3]}"
    for bad in ("p:1:utest=x", "p:1:utest=x:0", "p:1:utest=x:n"):
        try:
            run_tests.parse_power_loss_spec(bad, "k.elf", "/tmp")
        except argparse.ArgumentTypeError:
            continue
        return f"{bad!r} accepted"
    suite = run_tests.parse_power_loss_spec("p:2:utest=x,fs:7", "k.elf",
                                            "/tmp")
    if (suite.cut_at, suite.ext2, suite.args) != (7, True, "utest=x,fs"):
        return f"parsed {suite.cut_at}, {suite.ext2}, {suite.args!r}"
    return None


TESTS = [
    ("run_missing_program", test_run_missing_program),
    ("run_kill_on", test_run_kill_on),
    ("run_exits_at_start", test_run_exits_at_start),
    ("run_stderr_in_one_line", test_run_stderr_in_one_line),
    ("run_silent", test_run_silent),
    ("run_output_then_exit", test_run_output_then_exit),
    ("harness_qemu_refuses", test_harness_qemu_refuses),
    ("harness_kernel_silent", test_harness_kernel_silent),
    ("harness_host_program_refuses", test_harness_host_program_refuses),
    ("harness_host_program_args", test_harness_host_program_args),
    ("expect_suite_rules", test_expect_suite_rules),
    ("expect_spec_parse", test_expect_spec_parse),
    ("echo_lines", test_echo_lines),
    ("dialog_typing", test_dialog_typing),
    ("dialog_suite_rules", test_dialog_suite_rules),
    ("dialog_spec_parse", test_dialog_spec_parse),
    ("disk_image_check", test_disk_image_check),
    ("disk_spec_parse", test_disk_spec_parse),
    ("ext2_image_check", test_ext2_image_check),
    ("ext2_spec_parse", test_ext2_spec_parse),
    ("cores_parse", test_cores_parse),
    ("timeout_says_where_the_cores_were",
     test_timeout_says_where_the_cores_were),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
