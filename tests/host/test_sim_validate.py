#!/usr/bin/env python3
"""Host test: the simulator against the emulator (tools/sim_validate.py;
issue 16 item 4, docs/design.md "Simulator validation").

Boots QEMU under -icount (build/kernel.elf) for paper 000's Table I
(utest=lb_table_i) and the matmul scenario (ubench=matmul, n 128,
mginkgo), runs fulsim on tools/sim/validate/*.json, and compares the
decision logs record by record. Table I must agree in every record;
matmul in the records before the first task ends (the rest follows
QEMU's unequal round-robin shares of the -icount clock: MATMUL_NOTE).
The comparator itself must catch a changed load, a wrong thread and a
missing record. About 10 s (most of it the matmul boot).

    test_sim_validate.py [substring]
"""

import copy
import os
import sys

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402
import sim_validate as sv  # noqa: E402  (tools/, on the path)

KERNEL = os.path.join(ROOT, "build", "kernel.elf")
SIM = os.path.join(ROOT, "build", "sim", "fulsim")
LOG_DIR = os.path.join(ROOT, "build", "test-logs")

_qemu = {}


def qemu_records(name):
    """QEMU's records and console of scenario @name (one boot each)."""
    if name not in _qemu:
        _qemu[name] = sv.run_qemu(KERNEL, sv.SCENARIOS[name], LOG_DIR)
    return _qemu[name]


def sim_records(name):
    sc = sv.SCENARIOS[name]
    return sv.run_sim(SIM, sc, sv.workload_for(sc, qemu_records(name)[1]))


def test_table1_same_sequence():
    """Table I: the same 8 decisions (6 placements, a move, balanced)."""
    sc = sv.SCENARIOS["table1"]
    q, s = qemu_records("table1")[0], sim_records("table1")
    ok, report = sv.compare(q, s, sc)
    if not ok:
        return " | ".join(report)
    if len(q) != 8 or sum(len(r["moves"]) for r in q if
                          r["kind"] == "rebalance") != 1:
        return f"expected 8 records with one move, got {len(q)}"
    return None


def test_matmul_until_first_end():
    """matmul: the rounds before the first task ends agree."""
    sc = sv.SCENARIOS["matmul"]
    q, s = qemu_records("matmul")[0], sim_records("matmul")
    ok, report = sv.compare(q, s, sc)
    if not ok:
        return " | ".join(report)
    if not any(r["moves"] for r in q) or not any(r["moves"] for r in s):
        return "no move in one of the logs: the scenario did not balance"
    return None


def _expect_fail(q, s, needle):
    ok, report = sv.compare(q, s, sv.SCENARIOS["table1"])
    if ok:
        return f"a log with {needle} passed"
    if needle not in report[-1]:
        return f"{needle!r} not in {report[-1]!r}"
    return None


def test_comparator_catches_a_load():
    q = qemu_records("table1")[0]
    s = copy.deepcopy(sim_records("table1"))
    s[6]["load"][2] += 10
    return _expect_fail(q, s, "load")


def test_comparator_catches_a_thread():
    """The move names another thread than the one placed as it."""
    q = qemu_records("table1")[0]
    s = copy.deepcopy(sim_records("table1"))
    s[6]["moves"][0]["tid"] = s[1]["moves"][0]["tid"]
    return _expect_fail(q, s, "tid")


def test_comparator_catches_a_missing_record():
    q = qemu_records("table1")[0]
    return _expect_fail(q, sim_records("table1")[:-1], "only in QEMU")


TESTS = [(n, f) for n, f in globals().items() if n.startswith("test_")]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
