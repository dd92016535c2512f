"""Run Fulcrum under QEMU (or any program) with a timeout and a log file.

The kernel prints to the serial console, which `-nographic` puts on
QEMU's stdout. Output is streamed line by line to a log file and also
returned to the caller. The kernel powers the machine off when done, so
QEMU normally exits on its own; otherwise the whole process group is
killed at the timeout. A line starting with ``PANIC`` ends the run early
(after a short grace period so the rest of the panic message is flushed).
"""

import os
import shlex
import signal
import subprocess
import threading
import time
from dataclasses import dataclass, field

QEMU = "qemu-system-aarch64"
PANIC_PREFIX = "PANIC"
PANIC_GRACE_S = 1.0
POLL_S = 0.05
TERM_GRACE_S = 2.0

# Extra QEMU args for the two usual modes.
MTTCG_ARGS = ["-accel", "tcg,thread=multi"]
ICOUNT_ARGS = ["-icount", "shift=0,sleep=off"]


@dataclass
class RunResult:
    """Outcome of one run: output lines and how the run ended."""

    lines: list = field(default_factory=list)
    returncode: int = None       # None if we had to kill it (timeout)
    timed_out: bool = False
    panic: str = None            # first PANIC line, if any
    error: str = None            # could not start the program
    elapsed: float = 0.0
    log_path: str = None

    def tail(self, n=30):
        """Return the last n output lines."""
        return self.lines[-n:]


def build_command(kernel, cpus, append="", extra_args=()):
    """Return the QEMU argv for booting `kernel` on `cpus` cores."""
    cmd = [
        QEMU,
        "-M", "virt,gic-version=2",
        "-cpu", "cortex-a53",
        "-smp", str(cpus),
        "-m", "256M",
        "-nographic",
        "-no-reboot",
        "-kernel", kernel,
        "-append", append,
    ]
    return cmd + list(extra_args)


def _kill_group(proc):
    """Terminate the process group of `proc`, escalating to SIGKILL."""
    for sig, grace in ((signal.SIGTERM, TERM_GRACE_S), (signal.SIGKILL, None)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue
    proc.wait()


def _reap_stragglers(proc):
    """Kill leftover members of an exited child's process group."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _reader(proc, log, result, panic_at):
    """Copy the child's output into the log and result.lines (thread body)."""
    for raw in proc.stdout:
        line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
        log.write(line + "\n")
        log.flush()
        result.lines.append(line)
        if result.panic is None and line.startswith(PANIC_PREFIX):
            result.panic = line
            panic_at.append(time.monotonic())


def run(cmd, timeout, log_path, stop_on_panic=True):
    """Run `cmd`, stream its output to `log_path`, return a RunResult.

    stdin is /dev/null, stderr is merged into stdout. On timeout (or
    PANIC_GRACE_S after a PANIC line) the process group is killed.
    """
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    result = RunResult(log_path=log_path)
    start = time.monotonic()
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("# " + shlex.join(cmd) + "\n")
        log.flush()
        proc = _start(cmd, log, result)
        if proc is not None:
            _supervise(proc, log, result, start + timeout, stop_on_panic)
            if result.timed_out:
                log.write(f"# harness: timeout after {timeout}s, killed\n")
    result.elapsed = time.monotonic() - start
    return result


def _start(cmd, log, result):
    """Start `cmd` in its own session; on failure set result.error."""
    try:
        return subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
    except OSError as exc:
        result.error = f"cannot run {cmd[0]}: {exc.strerror or exc}"
        log.write(f"# harness: {result.error}\n")
        return None


def _supervise(proc, log, result, deadline, stop_on_panic):
    """Collect output until the child exits or must be killed."""
    panic_at = []
    reader = threading.Thread(target=_reader,
                              args=(proc, log, result, panic_at),
                              daemon=True)
    reader.start()
    killed = _wait(proc, deadline, panic_at, stop_on_panic)
    if killed:
        result.timed_out = killed == "timeout"
        _kill_group(proc)
    else:
        result.returncode = proc.returncode
        _reap_stragglers(proc)
    reader.join(timeout=5)


def _wait(proc, deadline, panic_at, stop_on_panic):
    """Poll until exit; return None, "timeout" or "panic" if we must kill."""
    while proc.poll() is None:
        now = time.monotonic()
        if now >= deadline:
            return "timeout"
        if stop_on_panic and panic_at and now >= panic_at[0] + PANIC_GRACE_S:
            return "panic"
        time.sleep(POLL_S)
    return None


def run_qemu(kernel, cpus, append, timeout, log_path, extra_args=()):
    """Boot `kernel` in QEMU and return the RunResult."""
    return run(build_command(kernel, cpus, append, extra_args),
               timeout, log_path)
