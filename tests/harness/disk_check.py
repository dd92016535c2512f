"""The disk suites' image: every block holds the host's pattern H, and
the blocks the guest's writing tests write hold its pattern P (byte i
of block b: H = 31 i + 17 b + 0x5a, P = 7 i + 29 b + 0xa5, mod 256).
Used by run_tests.py (the disk suites) and suite_specs.py (attaching an
image); the host tests reach these through run_tests."""

import os

DISK_BLOCK = 4096
DISK_BLOCKS = 1024            # a 4 MiB image
# Blocks the guest writes with pattern P, per test that does, if it
# passed: tests/user/tests/t_disk.c disk_io; tests/user/tests/t_cache.c
# cache_writeback with the cache suites' cache=64 (tests/suites.txt).
CACHE_SUITE_LINES = 64
DISK_WRITERS = {
    "disk_io": set(range(100, 116)) | set(range(200, 212)),
    "cache_writeback": (set(range(400, 416)) |
                        set(range(800, 800 + CACHE_SUITE_LINES + 1))),
}
_DISK_BASE_H = bytes((31 * i) & 0xFF for i in range(DISK_BLOCK))
_DISK_BASE_P = bytes((7 * i) & 0xFF for i in range(DISK_BLOCK))


def disk_pattern(block, written):
    """Block `block` as the host fills it (H: byte i is 31 i + 17 b +
    0x5a) or as the guest writes it (P: 7 i + 29 b + 0xa5), mod 256."""
    base, add = ((_DISK_BASE_P, 29 * block + 0xA5) if written
                 else (_DISK_BASE_H, 17 * block + 0x5A))
    shift = bytes((x + add) & 0xFF for x in range(256))
    return base.translate(shift)


def disk_prepare(path):
    """Write a fresh image: every block holds H."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "wb") as f:
        for b in range(DISK_BLOCKS):
            f.write(disk_pattern(b, False))


def disk_written(proto):
    """The blocks the tests that passed in `proto` wrote (P)."""
    passed = {name for status, name, _ in proto.tests if status == "PASS"}
    out = set()
    for name, blocks in DISK_WRITERS.items():
        if name in passed:
            out |= blocks
    return out


def disk_image_problems(path, written):
    """What is wrong with the image after the run: [] if the blocks in
    `written` hold P and every other block H; a run in which no writing
    test passed has nothing to check, which is a problem too."""
    if not written:
        return ["no test that writes the disk passed"]
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return [f"cannot read {path}: {exc}"]
    if len(data) != DISK_BLOCKS * DISK_BLOCK:
        return [f"{path}: {len(data)} bytes, want {DISK_BLOCKS * DISK_BLOCK}"]
    bad = [b for b in range(DISK_BLOCKS)
           if data[b * DISK_BLOCK:(b + 1) * DISK_BLOCK]
           != disk_pattern(b, b in written)]
    if not bad:
        return []
    return [f"{len(bad)} blocks differ from the expected pattern, "
            f"first {bad[:8]} ({len(written)} should hold P)"]
