#!/usr/bin/env python3
"""`make bench-linux`: paper 002's benchmarks on Linux, the monolithic
peer, on the same QEMU as Fulcrum (issue 14, item 4).

Debian's arm64 kernel package and busybox-static are fetched with
`apt-get download` (scripts/setup.sh linux; nothing is built but the
benchmark programs), unpacked, and an initramfs is made of busybox, the
kernel's virtio-mmio, virtio-blk and ext4 modules, and the very same
benchmark sources Fulcrum runs (user/postmark, user/bonnie), compiled a
second time as static Linux programs with Debian's cross gcc and glibc,
plus the driver tools/linux/lbdriver.c. Each boot mounts a fresh ext2
image of the test harness (tests/harness/ext2_image.py) on virtio-blk,
runs one measurement, syncs and powers off; e2fsck -fn must find the
image clean afterwards. Results are merged into build/bench/results.json
(linux_read_4k under icount on one core; linux_postmark_c<C>,
linux_postmark_default_c<C>, linux_bonnie_c<C>_p<K> under multi-threaded
TCG on C = 1..3 cores).
"""

import argparse
import glob
import gzip
import io
import os
import shutil
import stat
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))
sys.dont_write_bytecode = True

import bench_report  # noqa: E402
import ext2_image  # noqa: E402
import qemu  # noqa: E402

CROSS = "aarch64-linux-gnu-gcc"
MODULES = ["virtio_mmio", "virtio_blk", "crc16", "mbcache", "jbd2",
           "crc32c_generic", "ext4"]
PROGRAMS = {"postmark": "user/postmark/main.c",
            "bonnie": "user/bonnie/main.c",
            "lbdriver": "tools/linux/lbdriver.c"}

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in %(modules)s; do insmod /lib/modules/$m.ko || echo "LINUX: insmod $m failed"; done
for a in $(cat /proc/cmdline); do case $a in lb=*) LB=${a#lb=};; lbc=*) LBC=${a#lbc=};; esac; done
i=0; while [ ! -b /dev/vda ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
mkdir -p /mnt /tmp
if mount -t ext2 /dev/vda /mnt; then
    /bin/lbdriver $LB $LBC
    umount /mnt
else
    echo "LINUX: cannot mount /dev/vda"
fi
sync
poweroff -f
"""


def find_debs(deb_dir):
    """The unpacked kernel (vmlinuz, modules dir) and busybox binary."""
    vmlinuz = sorted(glob.glob(os.path.join(deb_dir, "root", "boot",
                                            "vmlinuz-*-arm64")))
    mods = sorted(glob.glob(os.path.join(deb_dir, "root", "lib", "modules",
                                         "*-arm64")))
    busybox = os.path.join(deb_dir, "root", "bin", "busybox")
    if not vmlinuz or not mods or not os.path.exists(busybox):
        sys.exit(f"linux_bench: no unpacked kernel and busybox under "
                 f"{deb_dir} (run scripts/setup.sh linux)")
    return vmlinuz[-1], mods[-1], busybox


def cross_compile(work):
    """The benchmark programs as static Linux binaries in @work/bin."""
    bindir = os.path.join(work, "bin")
    os.makedirs(bindir, exist_ok=True)
    for name, src in PROGRAMS.items():
        std = ["-std=c11", "-D_POSIX_C_SOURCE=200809L"] if \
            src.startswith("user/") else []
        subprocess.run([CROSS, "-static", "-O2", *std, "-Wall", "-Wextra",
                        "-Werror", "-o", os.path.join(bindir, name),
                        os.path.join(ROOT, src)], check=True)
    return bindir


def cpio_newc(entries):
    """A gzip'd newc cpio archive of (path, mode, data) entries."""
    out = io.BytesIO()
    for ino, (path, mode, data) in enumerate(entries + [("TRAILER!!!", 0,
                                                         b"")], 1):
        name = path.encode() + b"\0"
        hdr = "070701" + "".join(f"{v:08x}" for v in (
            ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(name), 0))
        out.write(hdr.encode() + name)
        out.write(b"\0" * (-(110 + len(name)) % 4))
        out.write(data)
        out.write(b"\0" * (-len(data) % 4))
    return gzip.compress(out.getvalue())


def make_initramfs(work, mods_dir, busybox, bindir):
    """Write @work/initramfs.cpio.gz and return its path."""
    d, f = stat.S_IFDIR | 0o755, stat.S_IFREG | 0o755
    entries = [(p, d, b"") for p in ("bin", "dev", "proc", "sys", "mnt",
                                      "tmp", "lib", "lib/modules")]
    entries.append(("init", f, (INIT % {"modules": " ".join(MODULES)})
                    .encode()))
    with open(busybox, "rb") as fh:
        entries.append(("bin/busybox", f, fh.read()))
    for name in PROGRAMS:
        with open(os.path.join(bindir, name), "rb") as fh:
            entries.append((f"bin/{name}", f, fh.read()))
    for m in MODULES:
        found = glob.glob(os.path.join(mods_dir, "kernel", "**", m + ".ko"),
                          recursive=True)
        if not found:
            sys.exit(f"linux_bench: module {m}.ko not in {mods_dir}")
        with open(found[0], "rb") as fh:
            entries.append((f"lib/modules/{m}.ko", stat.S_IFREG | 0o644,
                            fh.read()))
    path = os.path.join(work, "initramfs.cpio.gz")
    with open(path, "wb") as fh:
        fh.write(cpio_newc(entries))
    return path


def boot(opts, vmlinuz, initrd, what, cpus, icount):
    """Boot Linux once for measurement @what on @cpus cores: its
    {name: (unit, samples)}; the image must be clean afterwards."""
    img = os.path.join(opts.work, "ext2.img")
    ext2_image.prepare(img)
    extra = ["-initrd", initrd] + (qemu.ICOUNT_ARGS if icount else
                                   qemu.MTTCG_ARGS) + qemu.disk_args(img)
    append = f"console=ttyAMA0 quiet rdinit=/init lb={what} lbc={cpus}"
    log = os.path.join(opts.work, f"{what}_c{cpus}.log")
    print(f"bench-linux: {what} on {cpus} core(s), log {log}", flush=True)
    res = qemu.run(qemu.build_command(vmlinuz, cpus, append, extra,
                                      mem="512M"), opts.timeout, log)
    if res.error or res.timed_out:
        sys.exit(f"bench-linux: {what} c{cpus}: "
                 f"{res.error or 'timeout'} (log {log})")
    benches = bench_report.parse_log(res.lines)
    fsck = subprocess.run(["e2fsck", "-fn", img], env=ext2_image._env(),
                          capture_output=True, text=True)
    if fsck.returncode:
        sys.exit(f"bench-linux: e2fsck -fn after {what} c{cpus}: exit "
                 f"{fsck.returncode}")
    return benches


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--debs", required=True,
                    help="folder with the unpacked packages (root/)")
    ap.add_argument("--work", required=True, help="build folder")
    ap.add_argument("--out", required=True, help="build/bench")
    ap.add_argument("--meta", default=os.path.join(HERE, "bench_meta.json"))
    ap.add_argument("--cpus", default="1,2,3")
    ap.add_argument("--timeout", type=float, default=3000)
    opts = ap.parse_args(argv)
    os.makedirs(opts.work, exist_ok=True)
    vmlinuz, mods, busybox = find_debs(opts.debs)
    initrd = make_initramfs(opts.work, mods, busybox,
                            cross_compile(opts.work))
    benches = dict(boot(opts, vmlinuz, initrd, "read", 1, True))
    for c in [int(x) for x in opts.cpus.split(",")]:
        for what in ("postmark", "bonnie"):
            benches.update(boot(opts, vmlinuz, initrd, what, c, False))
    meta = bench_report.load_json(opts.meta, {})
    results = [bench_report.build_result(n, u, s, meta)
               for n, (u, s) in benches.items()]
    old = bench_report.load_json(os.path.join(opts.out, "results.json"), [])
    merged = bench_report.merge_results(old, results)
    os.makedirs(opts.out, exist_ok=True)
    report = bench_report.format_report(merged, meta)
    bench_report.write_outputs(opts.out, merged, report)
    print("\n".join(bench_report.format_report(results, meta)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
