"""The ext2 image of the harness's ext2 suites (--ext2-suite).

Before the boot: a tree of files with known contents, made into an
ext2 image by mke2fs (revision 1, 4 KiB blocks, or the block size the
suite's boot argument fsbs= names). After it: `e2fsck -fn`
must find the image clean, and the files the guest wrote (tests/user/tests/
t_fs.c, same patterns) must read back byte for byte through debugfs.
"""
import os
import re
import shutil
import subprocess
import tempfile

IMAGE_MB = 16
# path in the image -> (pattern seed, size): made on the host ...
HOST_FILES = {
    "hello.txt": (1, 1000),
    "big.bin": (2, 300 * 1024),           # indirect blocks
    "sub/deep.txt": (3, 5000),
}
# text for the shell's `cat` (tests/dialog/shell_files.txt)
TEXT_FILES = {"motd.txt": b"hello from an ext2 image, through F, B and D\n"}
# ... and written by the guest when its test passes
GUEST_FILES = {
    "made.bin": (9, 200000),
    "newdir/n.txt": (10, 777),
}
# the file tests/user/fstest leaves behind (tests/user/tests/t_posix.c, posix_files)
POSIX_FILES = {"posix/keep.bin": (11, 123457)}
# the guest tests that write to the image, and the files each leaves for
# debugfs to read back (one writer runs per suite: with F, the file
# server, fs_server is F's client, else fs_ext2_over_b is B's; the POSIX
# suites run fstest; enospc_fill leaves nothing, e2fsck still checks)
GUEST_WRITERS = {"fs_ext2_over_b": GUEST_FILES, "fs_server": GUEST_FILES,
                 "posix_files": POSIX_FILES, "enospc_fill": {}}
SBIN = os.pathsep.join(["/usr/sbin", "/sbin"])


def pattern(seed, size):
    """Byte i of file @seed: (31 i + 7 seed + i / 4096) mod 256, as
    tests/host/test_ext2.c and tests/user/tests/t_fs.c make it."""
    return bytes((i * 31 + seed * 7 + (i >> 12)) & 0xFF for i in range(size))


def _env():
    env = dict(os.environ)
    env["PATH"] = env.get("PATH", "") + os.pathsep + SBIN
    return env


def corruption(args):
    """The damage boot argument fsbad=KIND asks for in a suite's image
    (None: a sound image): "super" (the superblock's magic zeroed) or
    "inode" (/hello.txt's first block number past the disk's end)."""
    for a in (args or "").split(","):
        if a.startswith("fsbad="):
            return a[len("fsbad="):]
    return None


def block_size(args):
    """The image's block size the boot argument fsbs=N asks for (1024,
    2048 or 4096, the default; F ignores the argument)."""
    for a in (args or "").split(","):
        if a.startswith("fsbs="):
            bs = int(a[len("fsbs="):])
            if bs not in (1024, 2048, 4096):
                raise ValueError(f"fsbs={bs}: not 1024, 2048 or 4096")
            return bs
    return 4096


def unchecked(args):
    """Is the image left unchecked after the run: damaged on purpose
    (fsbad=) or written by a server the suite crashes (crash=1)?"""
    return corruption(args) is not None or "crash=1" in (args or "").split(",")


def damage(path, kind):
    """Break the image at @path as corruption() names @kind."""
    if kind == "super":
        with open(path, "r+b") as f:
            f.seek(1024 + 56)  # s_magic, 0xEF53
            f.write(b"\0\0")
    elif kind == "inode":
        subprocess.run(["debugfs", "-w", "-R",
                        "sif /hello.txt block[0] 99999999", path],
                       check=True, env=_env(), capture_output=True)
    else:
        raise ValueError(f"fsbad={kind}: not super or inode")


def prepare(path, corrupt=None, bs=4096):
    """Write a fresh image at @path with HOST_FILES in it, of @bs-byte
    blocks, damaged as @corrupt says (damage())."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with tempfile.TemporaryDirectory() as tree:
        for name, (seed, size) in HOST_FILES.items():
            full = os.path.join(tree, name)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(pattern(seed, size))
        for name, text in TEXT_FILES.items():
            with open(os.path.join(tree, name), "wb") as f:
                f.write(text)
        if os.path.exists(path):
            os.remove(path)
        subprocess.run(["mke2fs", "-q", "-F", "-t", "ext2", "-b", str(bs),
                        "-d", tree, path, f"{IMAGE_MB}M"], check=True,
                       env=_env(), capture_output=True)
    if corrupt:
        damage(path, corrupt)


def problems(path, writers_passed):
    """What is wrong with the image after the run ([] if nothing):
    e2fsck's verdict, and the files of the writers that passed (a run
    in which none did has nothing to check, which is a problem too)."""
    if not writers_passed:
        return [f"none of {', '.join(GUEST_WRITERS)} passed: nothing "
                "written to check"]
    files = {}
    for w in writers_passed:
        files.update({"/" + name: f for name, f in GUEST_WRITERS[w].items()})
    return [p for p in [fsck_problem(path)] if p] + \
        file_problems(path, files)


def file_problems(path, files):
    """The files of @files ({path: (seed, size)}) that do not read back
    from the image at @path (debugfs) as that pattern."""
    out = []
    for name, (seed, size) in sorted(files.items()):
        got = subprocess.run(["debugfs", "-R", f"cat {name}", path],
                             env=_env(), capture_output=True).stdout
        if got != pattern(seed, size):
            out.append(f"{name}: {len(got)} bytes read back, "
                       f"want {size} of pattern {seed}")
    return out


RE_SYNCED = re.compile(r"^POWERLOSS-SYNCED (/\S+) (\d+) (\d+)\s*$")


def synced_files(lines):
    """{path: (seed, size)} of the files a powerloss writer announced as
    fsynced (tests/user/tests/t_powerloss.c)."""
    return {m.group(1): (int(m.group(2)), int(m.group(3)))
            for m in map(RE_SYNCED.match, lines) if m}


def power_loss_problems(path, synced):
    """What is wrong with the image after a power cut ([] if nothing):
    e2fsck -fy must repair it (exit 0, 1 or 2: nothing left uncorrected),
    then e2fsck -fn find it clean, and every file of @synced ({path:
    (seed, size)}) read back byte for byte."""
    fix = subprocess.run(["e2fsck", "-fy", path], env=_env(),
                         capture_output=True, text=True)
    if fix.returncode & ~3:
        tail = " | ".join(fix.stdout.strip().splitlines()[-6:])
        return [f"e2fsck -fy exit {fix.returncode}: {tail}"]
    return [p for p in [fsck_problem(path)] if p] + \
        [f"fsynced {p}" for p in file_problems(path, synced)]


def fsck_problem(path):
    """e2fsck -fn's verdict on the image at @path: None if clean, else
    its exit code and the last lines it printed."""
    fsck = subprocess.run(["e2fsck", "-fn", path], env=_env(),
                          capture_output=True, text=True)
    if fsck.returncode == 0:
        return None
    tail = " | ".join(fsck.stdout.strip().splitlines()[-6:])
    return f"e2fsck -fn exit {fsck.returncode}: {tail}"


def tools_present():
    """Are mke2fs, e2fsck and debugfs on the path (scripts/setup.sh
    installs e2fsprogs)?"""
    env = _env()
    return all(shutil.which(t, path=env["PATH"])
               for t in ("mke2fs", "e2fsck", "debugfs"))
