#!/usr/bin/env python3
"""Host test: the simulator against the emulator (tools/sim_validate.py;
docs/simulator.md "Validation against the emulator").

Boots QEMU under -icount (build/kernel.elf) for paper 000's Table I
(utest=lb_table_i) and the matmul scenario (ubench=matmul, n 128,
mginkgo), runs fulsim on tools/sim/validate/*.json, and compares the
decision logs record by record. Table I must agree in every record.
matmul is compared whole: the records before the first task ends must
agree in every field; from the first record that differs on (the tasks
end at other times: SPLIT_NOTE), every record of either log is listed
with both states, and each of QEMU's decisions there, replayed in
fulsim on QEMU's own loads, must be the same decision (REPLAY_NOTE).
The comparator itself must catch a changed load, a wrong thread, a
missing record and a wrong decision in the replayed part. About 10 s
(most of it the matmul boot).

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


def test_matmul_whole_sequence():
    """matmul: the same up to the first task's end; every later record
    accounted for, QEMU's decisions replayed the same."""
    sc = sv.SCENARIOS["matmul"]
    q, s = qemu_records("matmul")[0], sim_records("matmul")
    ok, report = sv.compare(q, s, sc, SIM)
    if not ok:
        return " | ".join(report)
    if not any(r["moves"] for r in q) or not any(r["moves"] for r in s):
        return "no move in one of the logs: the scenario did not balance"
    print("\n".join(report))
    return None


def test_replay_catches_a_wrong_decision():
    """A QEMU decision after the split that the policy would not make on
    QEMU's own loads must fail, naming the field."""
    sc = sv.SCENARIOS["matmul"]
    q = copy.deepcopy(qemu_records("matmul")[0])
    last = next((r for r in reversed(q) if r["moves"]), None)
    if last is None:
        return "no move in QEMU's matmul log"
    last["moves"][0]["to_after"] += 10
    ok, report = sv.compare(q, sim_records("matmul"), sc, SIM)
    if ok:
        return "a wrong move in the replayed part passed"
    if "replayed: moves" not in " ".join(report):
        return f"not caught by the replay: {report[-1]!r}"
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
