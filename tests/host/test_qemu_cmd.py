#!/usr/bin/env python3
"""Host test: Fulcrum has one QEMU command line, and it has no NIC.

tools/qemu.py is the only file that builds a QEMU command line: every
other file that spelled one drifted (the `-M virt` default NIC broke
every boot on machines without ipxe-qemu). Checked here:

    single_definition    no tracked file but tools/qemu.py names a QEMU
                         binary (`git ls-files`; outside a git checkout,
                         the tree without build/ and .git)
    scan_sees_spelling   the scan flags a file that does (it can fail)
    nic_none             the shared command line says -nic none
    no_network_device    QEMU itself, on the shared command line stopped
                         (-S), answers over QMP: `info network` empty,
                         no PCI network controller, no virtio-net
    detector_sees_nic    the same check on the command WITHOUT -nic none
                         sees the default NIC, either as QEMU refusing to
                         start for want of the NIC's boot ROM (no
                         ipxe-qemu) or as QEMU reporting it

    test_qemu_cmd.py [substring]    run only tests whose name contains it
"""

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import qemu  # noqa: E402  (tools/qemu.py, put on the path by host_proto)

MODULE = "tools/qemu.py"
THIS = "tests/host/test_qemu_cmd.py"   # names what it allows, builds nothing
PATTERN = re.compile(rb"qemu-system[-\w.]*")   # a QEMU binary or package
# Names allowed outside the module, per file, and why.
ALLOWED = {
    # The Debian package, checked with dpkg and installed by name.
    "scripts/setup.sh": {b"qemu-system-arm"},
}
SKIP_DIRS = {"build", ".git"}
PROBE_TIMEOUT_S = 30.0
# QEMU's complaint when the default NIC's boot ROM (ipxe-qemu) is absent.
ROMFILE_ERROR = "failed to find romfile"
PCI_CLASS_NETWORK = 0x02


# ---------------------------------------------------------- the scan

def tracked_files(root):
    """Paths (relative to root) of the tracked files, or of every file
    outside build/ and .git when root is not a git checkout."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "-z"],
                             capture_output=True, check=True).stdout
        return [p for p in out.decode().split("\0") if p]
    except (OSError, subprocess.CalledProcessError):
        return walked_files(root)


def walked_files(root):
    """Every file under root, skipping build/ and .git."""
    found = []
    for here, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        rel = os.path.relpath(here, root)
        found += [os.path.normpath(os.path.join(rel, f)) for f in files]
    return found


def spellings(root, paths):
    """{path: sorted names} of the files that name a QEMU binary where
    they should not."""
    bad = {}
    for path in paths:
        if path in (MODULE, THIS):
            continue
        try:
            with open(os.path.join(root, path), "rb") as f:
                names = set(PATTERN.findall(f.read()))
        except (FileNotFoundError, IsADirectoryError):
            continue  # deleted in the working tree, or a submodule
        names -= ALLOWED.get(path, set())
        if names:
            bad[path] = sorted(n.decode(errors="replace") for n in names)
    return bad


def test_single_definition():
    """No file but the module builds a QEMU command line."""
    bad = spellings(ROOT, tracked_files(ROOT))
    if bad:
        return (f"only {MODULE} may name the QEMU binary (use its "
                f"build_command() or its command line): {bad}")
    return None


def test_scan_sees_spelling():
    """The scan finds a spelling outside the module, not inside it or
    under build/, in a tree that is not a git checkout."""
    name = b"qemu-system-aarch64"
    with tempfile.TemporaryDirectory(prefix="fulcrum-scan-") as tmp:
        for path in ("run.sh", MODULE, "build/x.mk"):
            os.makedirs(os.path.dirname(os.path.join(tmp, path)),
                        exist_ok=True)
            with open(os.path.join(tmp, path), "wb") as f:
                f.write(b"exec " + name + b" -M virt\n")
        bad = spellings(tmp, walked_files(tmp))
    if bad != {"run.sh": [name.decode()]}:
        return f"scan of a fake tree found {bad}, want only run.sh"
    return None


def test_nic_none():
    """The shared command line removes the default NIC."""
    cmd = qemu.build_command("k", 1)
    if ("-nic", "none") not in zip(cmd, cmd[1:]):
        return f"no -nic none in {cmd}"
    return None


def test_gic_choice():
    """GICv2 up to 8 cores, GICv3 above; GIC=3 forces v3 on few cores;
    GICv2 is refused above 8 cores."""
    def machine(cpus, gic=None):
        cmd = qemu.build_command("k", cpus, gic=gic)
        return cmd[cmd.index("-M") + 1]
    want = {(1, None): "virt,gic-version=2", (8, None): "virt,gic-version=2",
            (9, None): "virt,gic-version=3", (32, None): "virt,gic-version=3",
            (4, 3): "virt,gic-version=3", (4, 2): "virt,gic-version=2"}
    for (cpus, gic), m in want.items():
        if machine(cpus, gic) != m:
            return f"{cpus} cores, gic {gic}: {machine(cpus, gic)}, want {m}"
    try:
        qemu.build_command("k", 16, gic=2)
    except ValueError:
        return None
    return "GICv2 with 16 cores was accepted"


# ------------------------------------------------------ asking QEMU

def qmp_probe(cmd):
    """Start `cmd` stopped (-S) with a QMP socket, ask about network
    devices, quit. Return (answers, stderr); answers is None when QEMU
    exited before it could answer."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-qmp-") as tmp:
        path = os.path.join(tmp, "qmp.sock")
        full = cmd + ["-S", "-qmp", f"unix:{path},server=on,wait=off"]
        proc = subprocess.Popen(full, stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE,
                                start_new_session=True)
        try:
            sock = connect(path, proc, time.monotonic() + PROBE_TIMEOUT_S)
            answers = ask(sock) if sock else None
        except ConnectionError:
            # The socket exists before the machine: QEMU listened, then
            # failed to create the machine and exited (see its stderr).
            answers = None
        finally:
            stderr = finish(proc)
    return answers, stderr


def connect(path, proc, deadline):
    """Connect to QEMU's QMP socket; None if QEMU exits first."""
    while proc.poll() is None:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            sock.settimeout(PROBE_TIMEOUT_S)
            return sock
        except (FileNotFoundError, ConnectionRefusedError):
            sock.close()
        if time.monotonic() > deadline:
            raise TimeoutError(f"no QMP socket in {PROBE_TIMEOUT_S:g}s")
        time.sleep(0.02)
    return None


def ask(sock):
    """The answers to `info network`, `info qtree` and query-pci."""
    with sock, sock.makefile("rwb") as conn:
        conn.readline()                       # the QMP greeting
        qmp(conn, "qmp_capabilities")
        answers = {hmp: qmp(conn, "human-monitor-command",
                            {"command-line": hmp})
                   for hmp in ("info network", "info qtree")}
        answers["query-pci"] = qmp(conn, "query-pci")
        try:
            qmp(conn, "quit")
        except ConnectionError:
            pass                              # QEMU left before replying
    return answers


def qmp(conn, command, arguments=None):
    """Execute one QMP command and return its "return" value."""
    msg = {"execute": command}
    if arguments:
        msg["arguments"] = arguments
    conn.write(json.dumps(msg).encode() + b"\n")
    conn.flush()
    while True:
        line = conn.readline()
        if not line:
            raise ConnectionError(f"QMP closed during {command}")
        reply = json.loads(line)
        if "return" in reply:
            return reply["return"]
        if "error" in reply:
            raise RuntimeError(f"QMP {command}: {reply['error']}")
        # anything else is an asynchronous event


def finish(proc):
    """Wait for QEMU to exit (kill it if it does not); its stderr."""
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.stderr.read().decode(errors="replace")


def pci_devices(buses):
    """Every device of query-pci's answer, behind bridges too."""
    for bus in buses:
        for dev in bus.get("devices", []):
            yield dev
            yield from pci_devices([dev.get("pci_bridge", {})])


def network_devices(answers):
    """What in QEMU's answers is a network device (empty: nothing)."""
    found = []
    if answers["info network"].strip():
        found.append("info network: " + answers["info network"].strip())
    found += [f"PCI {d['class_info'].get('desc', 'network controller')}"
              for d in pci_devices(answers["query-pci"])
              if d["class_info"]["class"] >> 8 == PCI_CLASS_NETWORK]
    if "virtio-net" in answers["info qtree"]:
        found.append("virtio-net in info qtree")
    return found


def probe_stub(nic_none):
    """qmp_probe on the shared command line booting a stub kernel."""
    with tempfile.TemporaryDirectory(prefix="fulcrum-stub-") as tmp:
        stub = os.path.join(tmp, "stub-kernel.bin")
        with open(stub, "wb") as f:
            f.write(bytes(4096))
        return qmp_probe(qemu.build_command(stub, 1, nic_none=nic_none))


def test_no_network_device():
    """QEMU started with the shared command line has no network device."""
    answers, stderr = probe_stub(nic_none=True)
    if answers is None:
        return f"QEMU did not start: {qemu.one_line(stderr.splitlines())}"
    if found := network_devices(answers):
        return f"network devices on the shared command line: {found}"
    return None


def test_detector_sees_nic():
    """Without -nic none the check above sees QEMU's default NIC."""
    answers, stderr = probe_stub(nic_none=False)
    if answers is None:
        if ROMFILE_ERROR in stderr:
            return None                 # refused: no boot ROM for the NIC
        return ("QEMU failed for another reason than the NIC's boot ROM: "
                f"{qemu.one_line(stderr.splitlines())}")
    if not network_devices(answers):
        return "no NIC seen on the command line without -nic none"
    return None


TESTS = [
    ("single_definition", test_single_definition),
    ("scan_sees_spelling", test_scan_sees_spelling),
    ("nic_none", test_nic_none),
    ("gic_choice", test_gic_choice),
    ("no_network_device", test_no_network_device),
    ("detector_sees_nic", test_detector_sees_nic),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
