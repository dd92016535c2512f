#!/usr/bin/env python3
"""Host test: the wake_path TCG plugin (tools/plugin/wake_path.c) loads
in QEMU and counts each vCPU's instructions, window by window, as
docs/bench-wake.md says ("The core's own instructions").

A tiny guest written here (a few dozen hand-encoded AArch64 words in an
ELF, no compiler) runs on 2 vCPUs (the second stays off) under
`-icount shift=0`: the plugin's markers, and calls to four one-nop
functions that stand in for the kernel's places (entry, tick, wake,
switch), in six windows whose samples are known to the instruction.

    loads_and_counts       the plugin loads and reports one segment:
                           the expected samples exactly (8, 11, 11,
                           20: a plugin that counts nothing or per
                           block fails), its fields (nested, multi,
                           late, unblocked, unmatched, the vCPU mask,
                           max_alone, entries_max)
                           and each vCPU's total (vCPU 0's exact, 0 for
                           the one that never ran)
    refuses_bad_argument   a bad argument stops QEMU at start, with the
                           plugin's message
    results_join           wake_path.results() names the plugin's
                           segments after the guest's WAKE-PATH-SEG
                           lines, and fails when the plugin has none

The plugin is built by its Makefile rule (make plugin). A few seconds
(two QEMU starts of about a second each).

    test_wake_plugin.py [substring]    run only tests whose name contains it
"""

import os
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

import qemu  # noqa: E402  (tools/qemu.py, put on the path by host_proto)

sys.path.insert(0, os.path.join(ROOT, "tools", "plugin"))
import wake_path  # noqa: E402  (tools/plugin/wake_path.py)

PLUGIN = os.path.join(ROOT, "build", "plugin", "wake_path.so")
TIMEOUT_S = 30.0
BASE = 0x40200000          # where the ELF is loaded (RAM from 0x40000000)
CODE_OFFSET = 0x78         # after the ELF header and one program header

# AArch64 encodings
NOP = 0xD503201F
RET = 0xD65F03C0
HVC0 = 0xD4000002
B_SELF = 0x14000000
MOVZ_W0_8 = 0x52800100          # w0 = 8
MOVK_W0_8400_16 = 0x72B08000    # w0 |= 0x8400 << 16: PSCI SYSTEM_OFF


def hint(imm):
    """HINT #imm (an unallocated one executes as a NOP)."""
    return 0xD503201F | (imm & 0x7F) << 5


SEG, ARM, MARK = hint(0x7D), hint(0x7E), hint(0x7F)  # the defaults
PLACES = ("ENT", "TICK", "WAKE", "SW")   # the stand-ins: nop; ret

# The windows: between an ARM and a MARK, calls to the stand-ins.
# (calls, expected sample or None): a call is `bl`, then the stand-in's
# nop and ret; a window opens at an ENT's nop.
WINDOWS = (
    # A: the timer interrupt wakes the thread, the switch back to it
    (("ENT", "TICK", "WAKE", "SW"), 2 + 3 * 3),
    # B: then another interrupt wakes a sleeper before the mark: nested,
    # late, the start stays
    (("ENT", "TICK", "WAKE", "SW", "ENT", "TICK", "WAKE"), 2 + 3 * 6),
    # C: two waking interrupts before the switch: multi, the last counts
    (("ENT", "TICK", "WAKE", "ENT", "TICK", "WAKE", "SW"), 2 + 3 * 3),
    # D: a wake call outside a timer interrupt: unmatched, no sample
    (("ENT", "WAKE", "SW"), None),
    # E: no switch, nothing woken (the wait did not block): unblocked
    (("ENT", "TICK"), None),
    # F: woken, back in place without a switch
    (("ENT", "TICK", "WAKE"), 2 + 3 * 2),
)
EXPECT = {"samples": 4, "nested": 1, "multi": 1, "late": 1,
          "unblocked": 1, "unmatched": 1, "cpus": 1, "from_poll": 0,
          "max_alone": 11, "entries_max": 2}


def guest():
    """(ELF bytes, {place: address}, instructions vCPU 0 executes)."""
    main = [SEG]
    calls = []   # (index of the bl in main, place)
    for places, _ in WINDOWS:
        main.append(ARM)
        for p in places:
            calls.append((len(main), p))
            main.append(0)  # the bl, patched below
        main.append(MARK)
    main += [MOVZ_W0_8, MOVK_W0_8400_16, HVC0, B_SELF]
    start = BASE + CODE_OFFSET
    addr = {p: start + 4 * (len(main) + 2 * i) for i, p in enumerate(PLACES)}
    for at, p in calls:
        main[at] = 0x94000000 | ((addr[p] - (start + 4 * at)) // 4
                                 & 0x3FFFFFF)
    words = main + [NOP, RET] * len(PLACES)
    executed = (len(main) - 1) + 2 * len(calls)  # up to the hvc
    code = b"".join(struct.pack("<I", w) for w in words)
    size = CODE_OFFSET + len(code)
    ehdr = struct.pack("<4sBBBBB7xHHIQQQIHHHHHH", b"\x7fELF", 2, 1, 1, 0,
                       0, 2, 183, 1, start, 64, 0, 0, 64, 56, 1, 0, 0, 0)
    phdr = struct.pack("<IIQQQQQQ", 1, 5, 0, BASE, BASE, size, size,
                       0x1000)
    return ehdr + phdr + code, addr, executed


def build_plugin():
    """Build the plugin by its Makefile rule; None or why not."""
    res = subprocess.run(["make", "-C", ROOT, "--no-print-directory",
                          "plugin"], capture_output=True, text=True,
                         check=False)
    if res.returncode != 0 or not os.path.exists(PLUGIN):
        return f"make plugin failed: {(res.stdout + res.stderr).strip()}"
    return None


def boot(tmp, plugin_argv):
    """Run the tiny guest with the plugin; the RunResult."""
    elf, _, _ = guest()
    path = os.path.join(tmp, "tiny.elf")
    with open(path, "wb") as f:
        f.write(elf)
    cmd = qemu.build_command(path, 2, extra_args=qemu.ICOUNT_ARGS,
                             plugin=PLUGIN, plugin_argv=plugin_argv)
    return qemu.run(cmd, TIMEOUT_S, os.path.join(tmp, "qemu.log"),
                    first_output=TIMEOUT_S)


def test_loads_and_counts():
    """The plugin's samples and fields are the expected ones."""
    why = build_plugin()
    if why:
        return why
    _, addr, executed = guest()
    argv = [f"entry={addr['ENT']:#x}", f"tick={addr['TICK']:#x}",
            f"wake={addr['WAKE']:#x}", f"switch={addr['SW']:#x}"]
    with tempfile.TemporaryDirectory(prefix="fulcrum-plugin-") as tmp:
        res = boot(tmp, argv)
    if res.timed_out or res.returncode != 0:
        return (f"QEMU did not end cleanly (rc {res.returncode}): "
                f"{qemu.one_line(res.stderr)}")
    segs, total = wake_path.parse(res.stderr)
    if total is None:
        return f"no WAKE-PATH-TOTAL: the plugin did not run: " \
               f"{qemu.one_line(res.stderr)}"
    if list(segs) != [0]:
        return f"segments {sorted(segs)}, want [0]: {total}"
    got = segs[0]
    want = sorted(s for _, s in WINDOWS if s is not None)
    pct = [want[p * (len(want) - 1) // 100] for p in range(101)]
    if got.get("pct") != pct:
        return f"percentiles {got.get('pct')}, want {pct} (samples {want})"
    wrong = {k: (got.get(k), v) for k, v in EXPECT.items()
             if got.get(k) != v}
    if got.get("mean") != sum(want) // len(want):
        wrong["mean"] = (got.get("mean"), sum(want) // len(want))
    if wrong:
        return f"fields (got, want): {wrong}"
    if not total.endswith(f"insns {executed} 0"):
        return f"{total!r}: want vCPU 0 {executed}, vCPU 1 0"
    return None


def test_dump_longest():
    """dump=1 names the longest window instruction by instruction, and
    counts as without it."""
    why = build_plugin()
    if why:
        return why
    _, addr, _ = guest()
    argv = [f"entry={addr['ENT']:#x}", f"tick={addr['TICK']:#x}",
            f"wake={addr['WAKE']:#x}", f"switch={addr['SW']:#x}", "dump=1"]
    with tempfile.TemporaryDirectory(prefix="fulcrum-plugin-") as tmp:
        res = boot(tmp, argv)
    segs, _ = wake_path.parse(res.stderr)
    got = wake_path.longest(res.stderr).get(0)
    want = max(s for _, s in WINDOWS if s is not None)
    if not got or got["sample"] != want or got["insns"] != want:
        return f"longest {got and {k: got[k] for k in ('sample', 'insns')}}" \
               f", want sample and insns {want}: " \
               f"{qemu.one_line(res.stderr)}"
    mask = (1 << wake_path.ADDR_BITS) - 1
    if got["at"][0][0] != addr["ENT"] & mask:
        return f"first address {got['at'][0][0]:#x}, want ENT's"
    if any(gap for _, gap in got["at"]):
        return "a gap on one vCPU's own run"
    if segs.get(0, {}).get("max") != want or \
            segs[0].get("samples") != EXPECT["samples"]:
        return f"fields changed under dump=1: {segs.get(0)}"
    return None


def test_refuses_bad_argument():
    """QEMU stops at start when the plugin refuses its arguments."""
    why = build_plugin()
    if why:
        return why
    with tempfile.TemporaryDirectory(prefix="fulcrum-plugin-") as tmp:
        res = boot(tmp, ["entry=nowhere"])
    text = " ".join(res.stderr)
    if res.returncode in (0, None) or "wake_path: bad argument" not in text:
        return (f"rc {res.returncode}, stderr {qemu.one_line(res.stderr)}: "
                "want a failed start with the plugin's message")
    return None


def test_results_join():
    """Segments are named by the guest's lines; a missing one fails."""
    guest_lines = ["WAKE-PATH-SEG 0 wake_path_off",
                   "WAKE-PATH-SEG 1 wake_path_count"]
    pct = " ".join(["7"] * 101)
    plugin = ["WAKE-PATH 0 samples 3", "WAKE-PATH 0 mean 7",
              f"WAKE-PATH-PCT 0 {pct}", "WAKE-PATH 1 samples 2",
              f"WAKE-PATH-PCT 1 {pct}", "WAKE-PATH-TOTAL segs 2"]
    benches, stats = wake_path.results(guest_lines, plugin)
    if sorted(benches) != ["wake_path_count", "wake_path_off"]:
        return f"names {sorted(benches)}"
    if stats["wake_path_off"] != {"samples_taken": 3, "mean": 7}:
        return f"fields {stats['wake_path_off']}"
    for lines in (plugin[:3] + plugin[-1:], []):
        try:
            wake_path.results(guest_lines, lines)
        except wake_path.PluginError:
            continue
        return f"no error for plugin output {lines}"
    return None


TESTS = [("wake_plugin_loads_and_counts", test_loads_and_counts),
         ("wake_plugin_dump_longest", test_dump_longest),
         ("wake_plugin_refuses_bad_argument", test_refuses_bad_argument),
         ("wake_plugin_results_join", test_results_join)]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
