#!/usr/bin/env python3
"""Fulcrum's one QEMU command line, and a supervised run of it.

Every boot goes through build_command(): `make run`, `demo`, `debug` and
the device trees of test_fdt (through the command line below), the test
harness (tests/harness/run_tests.py) and the benchmark runner
(tools/bench_report.py). No other file spells the QEMU binary
(tests/host/test_qemu_cmd.py checks that). The module lives in tools/,
next to the other helpers the Makefile runs, because `make run` and
`make bench` use it as much as the tests do.

    qemu.py --kernel K [--cpus N] [--gic 2|3] [--append ARGS] [--mem SIZE]
            [--disk IMG [--disk-legacy]] [--plugin SO[,KEY=VALUE...]]
            [--dumpdtb FILE] [--print] [-- EXTRA QEMU ARGS]
    qemu.py --smoke

The first form execs QEMU (the terminal stays QEMU's: Ctrl-A x quits),
or with --print only prints the command. --smoke creates the machine
once and, if QEMU cannot, says which Debian package is missing
(scripts/setup.sh runs it). --plugin loads a TCG plugin
(tools/plugin/: its arguments after the file, comma-separated; what it
writes goes to QEMU's stderr).

run() boots a command with a timeout and a log file. The kernel prints
to the serial console, which `-nographic` puts on QEMU's stdout; QEMU's
own complaints go to stderr. Both are streamed line by line, in arrival
order, to the log; stdout lines are returned as `lines`, stderr lines as
`stderr`. The kernel powers the machine off when done, so QEMU normally
exits on its own. Otherwise the process group is killed: at the timeout,
when nothing at all was printed within the first-output deadline (a
kernel that does not boot), or shortly after a line starting with
``PANIC`` (a grace period lets the rest of the panic message through).
A QEMU killed at its timeout is asked first, over a QMP socket run()
adds, where each core was (a few samples of every vCPU's PC and
exception level, kernel addresses named with the kernel's symbols):
result.cores, so that a hang in CI says more than "timeout".
"""

import argparse
import json
import os
import re
import shutil
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

QEMU = "qemu-system-aarch64"
QEMU_PACKAGE = "qemu-system-arm"   # the Debian package that provides QEMU
MACHINE = "virt"
# The interrupt controller: GICv2 takes at most GICV2_MAX_CPUS cores,
# so more cores get GICv3 (gic_version); `gic` forces either.
GICV2_MAX_CPUS = 8
MAX_CPUS = 64   # the kernel's limit (kernel/types.h MAX_CPUS)
DEFAULT_MEM = "256M"

PANIC_PREFIX = "PANIC"
PANIC_GRACE_S = 1.0
# Generous: 8 vCPUs under TCG on a 2-core host print their first line
# within seconds, but a loaded host can stretch that a lot.
FIRST_OUTPUT_S = 60.0
POLL_S = 0.05
TERM_GRACE_S = 2.0
SMOKE_TIMEOUT_S = 30.0
ONE_LINE_MAX = 800

# Extra QEMU args for the two usual modes.
MTTCG_ARGS = ["-accel", "tcg,thread=multi"]
ICOUNT_ARGS = ["-icount", "shift=0,sleep=off"]
# With a disk: sleep=on. Under sleep=off the virtual clock jumps to the
# next timer deadline whenever every vCPU waits, and the disk completes
# its requests in host time: a wait with a timeout (the rootserver's
# 20 s for a server to start) could expire before the request it
# depends on was done (seen on a loaded host: F did not start, ETIMEOUT).
# With sleep=on an idle stretch takes its time; the instruction counts
# of the windows (every vCPU's instructions, no idle stretch inside)
# are the same either way (block_read_form<N> identical under both).
ICOUNT_DISK_ARGS = ["-icount", "shift=0,sleep=on"]

# Text in QEMU's stderr -> the Debian package whose file it misses.
MISSING_PACKAGES = (
    # A NIC's boot ROM. `-nic none` removes the only NIC; a caller that
    # adds one needs ipxe-qemu.
    ("failed to find romfile", "ipxe-qemu"),
)


# ---------------------------------------------------------- command line

def disk_args(image, legacy=False):
    """QEMU arguments attaching raw `image` as a virtio-blk device on
    virtio-mmio (the one that D, user/servers/disk, drives): the modern
    transport (version 2), or the legacy one (version 1, QEMU's own
    default for virtio-mmio) with `legacy`."""
    return ["-drive", f"file={image},if=none,format=raw,id=d0",
            "-device", "virtio-blk-device,drive=d0",
            "-global",
            f"virtio-mmio.force-legacy={'true' if legacy else 'false'}"]


def gic_version(cpus, gic=None):
    """The GIC version for `cpus` cores: `gic` (2 or 3) if given, else 2
    up to GICV2_MAX_CPUS cores and 3 above. ValueError for a version
    that cannot hold the cores."""
    if gic is None or gic == 0:
        return 2 if cpus <= GICV2_MAX_CPUS else 3
    if gic not in (2, 3):
        raise ValueError(f"gic={gic}: 2 or 3")
    if gic == 2 and cpus > GICV2_MAX_CPUS:
        raise ValueError(f"{cpus} cores: GICv2 takes at most "
                         f"{GICV2_MAX_CPUS}")
    return gic


def plugin_args(plugin, args=()):
    """QEMU arguments loading TCG plugin `plugin` (a shared object) with
    `args` ("key=value" strings), its output (qemu_plugin_outs) on
    QEMU's log, stderr: `-d plugin` turns that log on. QEMU 7.2 takes
    plugin API version 1 (tools/plugin/wake_path.c)."""
    return ["-plugin", ",".join([os.path.abspath(plugin)] + list(args)),
            "-d", "plugin"]


def build_command(kernel, cpus, append="", extra_args=(), mem=DEFAULT_MEM,
                  dumpdtb=None, nic_none=True, disk=None, disk_legacy=False,
                  gic=None, plugin=None, plugin_argv=()):
    """Return the QEMU argv that boots `kernel` on `cpus` cores.

    `-nic none`: Fulcrum has no network driver, and `-M virt` would
    otherwise create a virtio NIC, whose boot ROM (Debian package
    ipxe-qemu) QEMU refuses to start without. A caller that needs a
    device adds it through `extra_args`. `dumpdtb` makes QEMU write the
    machine's device tree to that file and exit. `nic_none=False` is for
    tests only: it shows that they can see the default NIC. `disk`
    attaches a raw image (disk_args). `gic` picks the interrupt
    controller (gic_version: by default v2 up to 8 cores, v3 above).
    `plugin` loads a TCG plugin with `plugin_argv` (plugin_args).
    """
    machine = (f"{MACHINE},gic-version={gic_version(cpus, gic)}" +
               (f",dumpdtb={dumpdtb}" if dumpdtb else ""))
    cmd = [
        QEMU,
        "-M", machine,
        "-cpu", "cortex-a53",
        "-smp", str(cpus),
        "-m", mem,
        "-nographic",
        "-no-reboot",
    ]
    if nic_none:
        cmd += ["-nic", "none"]
    cmd += ["-kernel", kernel, "-append", append]
    if disk:
        cmd += disk_args(disk, disk_legacy)
    if plugin:
        cmd += plugin_args(plugin, plugin_argv)
    return cmd + list(extra_args)


# ------------------------------------------------------------ diagnostics

def one_line(lines):
    """Join stderr lines into one line for a failure report."""
    text = " | ".join(s.strip() for s in lines if s.strip())
    if not text:
        return "(nothing on stderr)"
    if len(text) > ONE_LINE_MAX:
        text = text[:ONE_LINE_MAX] + "..."
    return text


def install_hint(package):
    """How to install a missing Debian package."""
    return (f"Debian package {package} is missing: "
            f"apt-get install --no-install-recommends {package}")


def package_hint(cmd, stderr_lines):
    """` (hint)` naming the package QEMU's stderr says is missing, or ''."""
    text = "\n".join(stderr_lines)
    for needle, package in MISSING_PACKAGES:
        if needle in text:
            return f" ({install_hint(package)}{_nic_note(cmd, package)})"
    return ""


def _nic_note(cmd, package):
    """Why a NIC's boot ROM was wanted at all."""
    if package != "ipxe-qemu":
        return ""
    if "none" in [b for a, b in zip(cmd, cmd[1:]) if a == "-nic"]:
        return ("; should not happen: the command has -nic none, so an "
                "extra argument added a NIC")
    return "; or add -nic none: Fulcrum has no network driver"


def cannot_run(cmd, exc):
    """One line for a program that could not be executed at all."""
    msg = f"cannot run {cmd[0]}: {exc.strerror or exc}"
    if cmd[0] == QEMU and isinstance(exc, FileNotFoundError):
        msg += f" ({install_hint(QEMU_PACKAGE)})"
    return msg


def exited_at_start(cmd, rc, stderr_lines):
    """One line for a program that exited before printing anything."""
    return (f"{os.path.basename(cmd[0])} exited {rc} at start: "
            f"{one_line(stderr_lines)}{package_hint(cmd, stderr_lines)} "
            f"[command: {shlex.join(cmd)}]")


def silent(cmd, seconds):
    """One line for a program that printed nothing before the deadline."""
    what = "the kernel" if cmd[0] == QEMU else os.path.basename(cmd[0])
    return f"no output from {what} in {seconds:g}s: {shlex.join(cmd)}"


# ------------------------------------------------------------------- run

@dataclass
class RunResult:
    """Outcome of one run: output lines and how the run ended."""

    lines: list = field(default_factory=list)    # stdout (the console)
    stderr: list = field(default_factory=list)   # QEMU's own messages
    output: list = field(default_factory=list)   # both, arrival order
    returncode: int = None       # None if we had to kill it
    timed_out: bool = False
    panic: str = None            # first PANIC line, if any
    error: str = None            # did not run: one line saying why
    elapsed: float = 0.0
    log_path: str = None
    cores: str = None            # where the cores were at the timeout
    killed_on: str = None        # run(kill_on=): the line it was cut at

    def tail(self, n=30):
        """Return the last n output lines (stdout and stderr)."""
        return self.output[-n:]


class _Sink:
    """The log and the result, written by the two reader threads."""

    def __init__(self, log, result):
        self.log, self.result = log, result
        self.lock = threading.Lock()
        self.cond = threading.Condition(self.lock)
        self.panic_at = None

    def add(self, line, is_stderr):
        """Record one line of stdout or stderr."""
        with self.lock:
            self.log.write(line + "\n")
            self.log.flush()
            self.result.output.append(line)
            if is_stderr:
                self.result.stderr.append(line)
                return
            self.result.lines.append(line)
            self.cond.notify_all()
            if self.result.panic is None and line.startswith(PANIC_PREFIX):
                self.result.panic = line
                self.panic_at = time.monotonic()

    def wait_for(self, pred, start, deadline):
        """Wait until a stdout line at index >= `start` satisfies `pred`;
        return the index after it, or None at `deadline`."""
        with self.lock:
            while True:
                lines = self.result.lines
                for i in range(start, len(lines)):
                    if pred(lines[i]):
                        return i + 1
                start = len(lines)
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(min(left, POLL_S))

    def note(self, text):
        """Write a harness remark into the log."""
        with self.lock:
            self.log.write(f"# harness: {text}\n")
            self.log.flush()


def _read(stream, sink, is_stderr):
    """Copy one of the child's streams into the sink (thread body)."""
    for raw in stream:
        sink.add(raw.decode("utf-8", errors="replace").rstrip("\r\n"),
                 is_stderr)


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


def _cut(proc, sink, kill_on, deadline):
    """kill_on thread: SIGKILL the child's group at the count-th stdout
    line matching the pattern (waits on output; gives up at `deadline`,
    where the run's own timeout ends it)."""
    pattern, count = kill_on
    at = 0
    for _ in range(count):
        at = sink.wait_for(pattern.search, at, deadline)
        if at is None:
            return
    sink.result.killed_on = sink.result.lines[at - 1]
    sink.note(f"killed (SIGKILL) at: {sink.result.killed_on}")
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _type(proc, sink, dialog, deadline):
    """Dialog thread: wait for a line containing dialog[0] (the program
    is ready for input), then type each of dialog[1:] followed by a
    carriage return, the next one only once the console has echoed the
    previous one (a line ending with it). Waits on output, never on a
    clock; gives up at `deadline` (the run's own timeout then ends it)."""
    ready, *commands = dialog
    at = sink.wait_for(lambda line: ready in line, 0, deadline)
    for cmd in commands:
        if at is None:
            return
        sink.note(f"typing {cmd!r}")
        try:
            proc.stdin.write(cmd.encode() + b"\r")
            proc.stdin.flush()
        except OSError:
            return
        at = sink.wait_for(lambda line, c=cmd: line.endswith(c), at,
                           deadline)


def run(cmd, timeout, log_path, stop_on_panic=True,
        first_output=FIRST_OUTPUT_S, dialog=None, kill_on=None):
    """Run `cmd`, stream its output to `log_path`, return a RunResult.

    stdin is /dev/null, or with `dialog` (a ready text, then lines to
    type) a pipe that _type writes the lines into. The run ends as soon as the child exits, or it
    is killed: at `timeout` (result.timed_out), after `first_output`
    seconds without a stdout line, or PANIC_GRACE_S after a PANIC line.
    With `kill_on` (a compiled pattern and a count), the child is killed
    with SIGKILL, no warning, as soon as that many stdout lines match
    (result.killed_on: the last of them): a power cut at a point the
    guest names.
    result.error is one line when the program did not run: it could not
    be started, it exited non-zero before printing anything (with its
    stderr), or it stayed silent.
    """
    os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
    result = RunResult(log_path=log_path)
    start = time.monotonic()
    hang = _Hang(cmd) if cmd[0] == QEMU else None
    with open(log_path, "w", encoding="utf-8") as log:
        log.write("# " + shlex.join(cmd) + "\n")
        log.flush()
        sink = _Sink(log, result)
        proc = _start(hang.cmd if hang else cmd, sink, result,
                      dialog is not None)
        if proc is not None:
            limits = (start + timeout, start + first_output)
            if dialog:
                threading.Thread(target=_type, daemon=True,
                                 args=(proc, sink, dialog,
                                       start + timeout)).start()
            if kill_on:
                threading.Thread(target=_cut, daemon=True,
                                 args=(proc, sink, kill_on,
                                       start + timeout)).start()
            ended = _supervise(proc, sink, limits, stop_on_panic, hang)
            if ended is None:
                result.returncode = proc.returncode
            _judge(cmd, result, ended, (timeout, first_output), sink)
    if hang:
        hang.close()
    result.elapsed = time.monotonic() - start
    return result


def _start(cmd, sink, result, stdin_pipe=False):
    """Start `cmd` in its own session; on failure set result.error."""
    try:
        return subprocess.Popen(cmd, stdin=subprocess.PIPE if stdin_pipe
                                else subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                start_new_session=True)
    except OSError as exc:
        result.error = cannot_run(cmd, exc)
        sink.note(result.error)
        return None


def _supervise(proc, sink, limits, stop_on_panic, hang=None):
    """Collect output until the child exits or must be killed; return
    None if it exited, else why it was killed. At a timeout, `hang` (a
    QEMU's) says where its cores were first."""
    readers = [threading.Thread(target=_read, args=(stream, sink, err),
                                daemon=True)
               for stream, err in ((proc.stdout, False), (proc.stderr, True))]
    for reader in readers:
        reader.start()
    killed = _wait(proc, sink, limits, stop_on_panic)
    if killed == "timeout" and hang:
        sink.result.cores = hang.where()
        if sink.result.cores:
            sink.note(f"cores at the timeout: {sink.result.cores}")
    if killed:
        _kill_group(proc)
    else:
        _reap_stragglers(proc)
    for reader in readers:
        reader.join(timeout=5)
    return killed


def _wait(proc, sink, limits, stop_on_panic):
    """Poll until exit; return None, "timeout", "silent" or "panic" if
    the child must be killed. Returns as soon as the child has exited."""
    deadline, first_deadline = limits
    while proc.poll() is None:
        now = time.monotonic()
        if now >= deadline:
            return "timeout"
        if now >= first_deadline and not sink.result.lines:
            return "silent"
        if (stop_on_panic and sink.panic_at is not None
                and now >= sink.panic_at + PANIC_GRACE_S):
            return "panic"
        time.sleep(POLL_S)
    return None


def _judge(cmd, result, ended, limits, sink):
    """Set timed_out and error from how the run ended."""
    timeout, first_output = limits
    if ended == "timeout":
        result.timed_out = True
        sink.note(f"timeout after {timeout:g}s, killed")
    elif ended == "silent":
        result.error = silent(cmd, first_output)
        sink.note(result.error)
    elif ended is None and result.returncode != 0 and not result.lines:
        result.error = exited_at_start(cmd, result.returncode, result.stderr)
        sink.note(result.error)


# ------------------------------------------------------- a hung guest

ADDR2LINE = "aarch64-linux-gnu-addr2line"  # binutils-aarch64-linux-gnu
QMP_TIMEOUT_S = 5.0
CORE_SAMPLES = 3
CORE_SAMPLE_GAP_S = 0.2
RE_CPU = re.compile(r"^CPU#(\d+)", re.M)
RE_PC = re.compile(r"\bPC=([0-9a-f]+)")
RE_LR = re.compile(r"\bX30=([0-9a-f]+)")
RE_EL = re.compile(r"PSTATE=[0-9a-f]+ \S+ EL(\d)")


class _Hang:
    """A QEMU run's QMP socket, and the question "where are the cores?"
    asked over it."""

    def __init__(self, cmd):
        self.dir = tempfile.mkdtemp(prefix="fulqmp")
        self.sock = os.path.join(self.dir, "qmp")
        self.cmd = list(cmd) + ["-qmp", f"unix:{self.sock},server=on,wait=off"]
        self.kernel = (cmd[cmd.index("-kernel") + 1]
                       if "-kernel" in cmd[:-1] else None)

    def close(self):
        """Remove the socket's directory (QEMU has exited)."""
        shutil.rmtree(self.dir, ignore_errors=True)

    def _hmp(self, command):
        """The text of one human monitor command over QMP."""
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(QMP_TIMEOUT_S)
            s.connect(self.sock)
            f = s.makefile("rwb")
            f.readline()  # the greeting
            reply = None
            for req in ({"execute": "qmp_capabilities"},
                        {"execute": "human-monitor-command",
                         "arguments": {"command-line": command}}):
                f.write((json.dumps(req) + "\n").encode())
                f.flush()
                while True:  # skip events
                    reply = json.loads(f.readline())
                    if "return" in reply or "error" in reply:
                        break
            return reply.get("return", "")

    def where(self):
        """One line: each sample's cores, "cpuN ELx place", the samples
        that repeat the one before left out; None if QEMU does not
        answer."""
        samples = []
        try:
            for i in range(CORE_SAMPLES):
                if i:
                    time.sleep(CORE_SAMPLE_GAP_S)
                samples.append(cores_of(self._hmp("info registers -a")))
        except (OSError, ValueError):
            if not samples:
                return None
        names = symbolize(self.kernel, {a for smp in samples
                                        for c in smp for a in c[2:]
                                        if c[1] >= 1})
        lines = []
        for smp in samples:
            text = ", ".join(_core_text(c, names) for c in smp)
            if not lines or lines[-1] != text:
                lines.append(text)
        return " | ".join(lines)


def cores_of(text):
    """[(cpu, el, pc, lr)] from `info registers -a`."""
    cores = []
    parts = RE_CPU.split(text)
    for num, body in zip(parts[1::2], parts[2::2]):
        pc, lr, el = RE_PC.search(body), RE_LR.search(body), RE_EL.search(body)
        if pc:
            cores.append((int(num), int(el.group(1)) if el else -1,
                          int(pc.group(1), 16),
                          int(lr.group(1), 16) if lr else 0))
    return cores


def symbolize(kernel, addrs):
    """{addr: "function (file:line)"} from the kernel's symbols ({} if
    there are none or no addr2line)."""
    tool = shutil.which(ADDR2LINE)
    addrs = sorted(addrs)
    if not (kernel and tool and addrs):
        return {}
    try:
        out = subprocess.run([tool, "-f", "-s", "-e", kernel] +
                             [hex(a) for a in addrs], capture_output=True,
                             text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return {}
    rows = out.splitlines()
    return {a: f"{rows[2 * i]} ({rows[2 * i + 1]})"
            for i, a in enumerate(addrs)
            if 2 * i + 1 < len(rows) and rows[2 * i] != "??"}


def _core_text(core, names):
    """"cpuN ELx where" for one core of a sample."""
    cpu, el, pc, lr = core
    where = names.get(pc, hex(pc))
    if el >= 1 and lr in names:
        where += f" <- {names[lr]}"
    return f"cpu{cpu} EL{el} {where}"


def run_qemu(kernel, cpus, append, timeout, log_path, extra_args=(),
             gic=None, plugin=None, plugin_argv=()):
    """Boot `kernel` in QEMU (with TCG plugin `plugin` if given) and
    return the RunResult."""
    return run(build_command(kernel, cpus, append, extra_args, gic=gic,
                             plugin=plugin, plugin_argv=plugin_argv),
               timeout, log_path)


# -------------------------------------------------------------------- CLI

def exec_qemu(cmd):
    """Replace this process by QEMU, which keeps the terminal (make run is
    interactive). Returns an exit code only if QEMU cannot be run."""
    sys.stdout.flush()
    try:
        os.execvp(cmd[0], cmd)
    except OSError as exc:
        print(f"qemu.py: {cannot_run(cmd, exc)}", file=sys.stderr)
        return 127


def smoke():
    """Create the machine once (QEMU dumps the device tree of a stub
    kernel and exits). On failure print why, naming the missing Debian
    package when that is the cause; return the exit code."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-qemu-") as tmp:
        stub = os.path.join(tmp, "stub-kernel.bin")
        with open(stub, "wb") as f:
            f.write(bytes(4096))
        dtb = os.path.join(tmp, "virt.dtb")
        cmd = build_command(stub, 1, dumpdtb=dtb)
        problem = _smoke_problem(cmd, dtb)
    if problem:
        print(f"qemu.py: QEMU cannot create Fulcrum's machine: {problem}",
              file=sys.stderr)
        return 1
    return 0


def _smoke_problem(cmd, dtb):
    """Run the smoke command; return None or one line saying what failed."""
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              timeout=SMOKE_TIMEOUT_S, check=False)
    except OSError as exc:
        return cannot_run(cmd, exc)
    except subprocess.TimeoutExpired:
        return f"no exit in {SMOKE_TIMEOUT_S:g}s: {shlex.join(cmd)}"
    stderr = proc.stderr.decode("utf-8", errors="replace").splitlines()
    if proc.returncode != 0:
        return exited_at_start(cmd, proc.returncode, stderr)
    if not os.path.exists(dtb):
        return f"exited 0 without writing {dtb}: {shlex.join(cmd)}"
    return None


def parse_args(argv):
    """Parse our options (those before `--`)."""
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        usage="%(prog)s --kernel K [--cpus N] [--gic 2|3] [--append ARGS] "
              "[--mem SIZE] [--plugin SO[,KEY=VALUE...]] "
              "[--dumpdtb FILE] [--print] [-- EXTRA QEMU ARGS] | --smoke")
    ap.add_argument("--kernel", help="kernel image to boot")
    ap.add_argument("--cpus", type=int, default=4, help="cores (default 4)")
    ap.add_argument("--gic", type=int, default=0, choices=(0, 2, 3),
                    help="GIC version (default 0: 2 up to 8 cores, 3 above)")
    ap.add_argument("--append", default="", help="kernel command line")
    ap.add_argument("--mem", default=DEFAULT_MEM,
                    help=f"RAM size (default {DEFAULT_MEM})")
    ap.add_argument("--disk", metavar="IMG",
                    help="attach raw image IMG as a virtio-blk disk")
    ap.add_argument("--disk-legacy", action="store_true",
                    help="the disk on the legacy virtio-mmio transport")
    ap.add_argument("--plugin", metavar="SO[,KEY=VALUE...]",
                    help="load a TCG plugin with its arguments (its "
                         "output on stderr: -d plugin)")
    ap.add_argument("--dumpdtb", metavar="FILE",
                    help="write the machine's device tree to FILE and exit")
    ap.add_argument("--print", action="store_true",
                    help="print the command instead of running it")
    ap.add_argument("--smoke", action="store_true",
                    help="check that QEMU can create the machine")
    opts = ap.parse_args(argv)
    if not opts.smoke and not opts.kernel:
        ap.error("--kernel is required (or --smoke)")
    return opts


def main(argv=None):
    """Run QEMU with Fulcrum's command line; see the module docstring."""
    argv = sys.argv[1:] if argv is None else list(argv)
    extra = []
    if "--" in argv:
        cut = argv.index("--")
        argv, extra = argv[:cut], argv[cut + 1:]
    opts = parse_args(argv)
    if opts.smoke:
        return smoke()
    plugin, *plugin_argv = opts.plugin.split(",") if opts.plugin else [None]
    cmd = build_command(opts.kernel, opts.cpus, opts.append, extra,
                        mem=opts.mem, dumpdtb=opts.dumpdtb, disk=opts.disk,
                        disk_legacy=opts.disk_legacy, gic=opts.gic,
                        plugin=plugin, plugin_argv=plugin_argv)
    if opts.print:
        print(shlex.join(cmd))
        return 0
    return exec_qemu(cmd)


if __name__ == "__main__":
    sys.exit(main())
