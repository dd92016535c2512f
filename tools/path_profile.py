#!/usr/bin/env python3
"""Per-function instruction profile of one kernel path, by single-stepping.

Boots the kernel under -icount with QEMU's gdb stub, stops at a chosen
system call (exception entry of an `svc` whose x8 is the call number and
whose x1 matches a mask), skips the first N such calls (warm-up), then
single-steps the core until it is back at EL0 (a pc below the kernel's
half) and prints, per function, how many instructions ran there, in
the order the path first entered each.

    tools/path_profile.py --kernel build/kernel.elf --append ubench=same \\
        --sysno 5 --x1-mask 0x3ff --x1-value 0 --skip 40

The profile is the path of one call: vector entry to the eret that
resumes a user thread (the receiver's, when the call switches to it).
It is a measurement tool, not a test: it needs gdb-multiarch.
"""
import argparse
import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import qemu  # noqa: E402  (the one QEMU command line)

GDB_SCRIPT = r'''
import gdb
KERNEL_HALF = 0xffff000000000000
gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("target remote :%(port)d")
gdb.execute(%(brk)r)
gdb.execute("continue")  # the first hit; then skip the next ones
if %(skip)d > 0:
    gdb.execute("continue %(skip)d")
pcs = []
while True:
    pc = int(gdb.parse_and_eval("$pc")) & 0xffffffffffffffff
    if pc < KERNEL_HALF:
        break
    pcs.append(pc)
    if len(pcs) > %(limit)d:
        print("PROFILE-OVERFLOW")
        break
    gdb.execute("stepi", to_string=True)
with open("%(out)s", "w") as f:
    for pc in pcs:
        f.write("%%x\n" %% pc)
gdb.execute("kill")
'''


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def symbolize(kernel, pcs):
    """Map each pc to its function with nm's sorted symbol table."""
    out = subprocess.run(["aarch64-linux-gnu-nm", "-n", kernel],
                         capture_output=True, text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] in "tTwW":
            syms.append((int(parts[0], 16), parts[2]))
    import bisect
    addrs = [a for a, _ in syms]
    names = []
    for pc in pcs:
        i = bisect.bisect_right(addrs, pc) - 1
        names.append(syms[i][1] if i >= 0 else "?")
    return names


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--append", default="ubench=same")
    ap.add_argument("--sysno", type=int, default=5)
    ap.add_argument("--x1-mask", type=lambda s: int(s, 0), default=0x3ff)
    ap.add_argument("--x1-value", type=lambda s: int(s, 0), default=0)
    ap.add_argument("--skip", type=int, default=40)
    ap.add_argument("--limit", type=int, default=20000)
    ap.add_argument("--at", metavar="FUNC",
                    help="start at FUNC instead (with --vcpu: only on that "
                         "core, gdb thread vcpu + 1), e.g. the receiving "
                         "side of a cross-core call")
    ap.add_argument("--vcpu", type=int)
    ap.add_argument("--trace", action="store_true",
                    help="also print every pc with its function")
    args = ap.parse_args()

    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pcs")
        script = os.path.join(tmp, "prof.py")
        with open(script, "w") as f:
            if args.at:
                brk = "break %s" % args.at
                if args.vcpu is not None:
                    brk += " thread %d" % (args.vcpu + 1)
            else:
                brk = ("break sync_entry if $x8 == %d && ($x1 & %d) == %d"
                       % (args.sysno, args.x1_mask, args.x1_value))
            f.write(GDB_SCRIPT % dict(port=port, brk=brk, sysno=args.sysno,
                                      mask=args.x1_mask,
                                      value=args.x1_value,
                                      skip=args.skip, limit=args.limit,
                                      out=out))
        cmd = qemu.build_command(args.kernel, args.cpus, args.append,
                                 qemu.ICOUNT_ARGS +
                                 ["-gdb", "tcp::%d" % port, "-S"])
        vm = subprocess.Popen(cmd, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL,
                              stdin=subprocess.DEVNULL)
        try:
            g = subprocess.run(["gdb-multiarch", "-batch", "-nx", "-x",
                                script, args.kernel], capture_output=True,
                               text=True, timeout=900)
        finally:
            vm.kill()
            vm.wait()
        if not os.path.exists(out):
            sys.stderr.write(g.stdout[-2000:] + g.stderr[-2000:])
            sys.exit("path_profile: gdb did not reach the call")
        pcs = [int(x, 16) for x in open(out).read().split()]
    names = symbolize(args.kernel, pcs)
    order, count = [], {}
    for n in names:
        if n not in count:
            order.append(n)
            count[n] = 0
        count[n] += 1
    if args.trace:
        for pc, n in zip(pcs, names):
            print("%x %s" % (pc, n))
    for n in order:
        print("%6d  %s" % (count[n], n))
    print("%6d  total (kernel instructions, entry to eret)" % len(pcs))


if __name__ == "__main__":
    main()
