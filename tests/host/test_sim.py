#!/usr/bin/env python3
"""Host test: the simulator (tools/sim, build/sim/fulsim).

Bad input exits 2 naming the field and its line; a quick run of every
policy on a mixed workload and on a generated 256-core set finishes every
thread, never beats the lower bound, conserves the work, is
deterministic, and logs every decision; nice sets a core's shares; the
speed jitter stays in its range and follows its seed; the paper 001 runs
(--alb) are complete and deterministic. A few seconds in all.

    test_sim.py [substring]    run only tests whose name contains it
"""

import json
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402
from host_proto import ROOT  # noqa: E402

SIM = os.path.join(ROOT, "build", "sim", "fulsim")
MIXED = os.path.join(ROOT, "tools", "sim", "examples", "mixed.json")
POLICIES = ("fulcrum", "mginkgo", "count", "alb", "opzone")


def run(*args):
    """fulsim with @args: (exit status, stdout, stderr)."""
    res = subprocess.run([SIM, *args], capture_output=True, text=True,
                         timeout=120, check=False)
    return res.returncode, res.stdout, res.stderr


def run_text(text, *args):
    """fulsim on a workload file holding @text."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        f.write(text)
        path = f.name
    try:
        return (path,) + run(*args, path)
    finally:
        os.unlink(path)


def expect_bad(text, *needles):
    """Exit 2 and every needle (str.format'ed with the path) in stderr."""
    path, rc, _, err = run_text(text)
    if rc != 2:
        return f"exit {rc}, expected 2 (stderr: {err.strip()!r})"
    for n in needles:
        if n.format(path=path) not in err:
            return f"{n.format(path=path)!r} not in {err.strip()!r}"
    return None


GOOD_THREAD = '{"phases": [{"run": 1000}]}'


def test_not_json():
    """A syntax error: line and column, and that it is not JSON."""
    text = '{"cores": 4,\n "threads": [\n  {"phases": [{"run": 1000}]\n ]}\n'
    return expect_bad(text, "{path}:4:2:", "not valid JSON")


def test_not_json_trailing_comma():
    """A trailing comma is not JSON either."""
    text = '{"cores": 4, "threads": [' + GOOD_THREAD + ',\n]}'
    return expect_bad(text, "{path}:2:", "not valid JSON")


def test_negative_duration():
    """A negative run: the field and its line."""
    text = ('{"cores": 4,\n "threads": [\n  {"phases": [{"run": 1000},\n'
            '   {"sleep": -5}]}]}\n')
    return expect_bad(text, "{path}:4: threads[0].phases[1].sleep:",
                      "must be > 0")


def test_zero_duration():
    """A zero call: the field and its line."""
    text = ('{"cores": 4,\n "threads": [\n  ' + GOOD_THREAD + ',\n'
            '  {"phases": [{"call": 0}]}]}\n')
    return expect_bad(text, "{path}:4: threads[1].phases[0].call:",
                      "must be > 0")


def test_too_many_cores():
    """More cores than the limit (256)."""
    text = '{\n "cores": 300,\n "threads": [' + GOOD_THREAD + ']}'
    return expect_bad(text, "{path}:2: cores:", "out of range 1..256")


def test_too_many_threads():
    """More threads than the limit (10,000), over two groups."""
    text = ('{"cores": 4, "threads": [\n'
            ' {"count": 6000, "phases": [{"run": 1}]},\n'
            ' {"count": 5000, "phases": [{"run": 1}]}]}')
    return expect_bad(text, "{path}:3: threads[1].count:", "at most 10000")


def test_bad_fields():
    """A misspelt field, a string for a number, a call to no server."""
    for text, needle in (
            ('{"cores": 4, "threads": [\n {"phase": []}]}',
             "{path}:2: threads[0].phase: unknown field"),
            ('{"cores": "4", "threads": [' + GOOD_THREAD + ']}',
             "{path}:1: cores: expected an integer"),
            ('{"cores": 4, "threads": [\n {"phases": [{"call": 5,\n'
             ' "to": "db"}]}]}',
             "{path}:3: threads[0].phases[0].to: no server named")):
        why = expect_bad(text, needle)
        if why:
            return why
    return None


def test_bad_replay_fields():
    """The keys that replay an emulator scenario: root_cpu and a
    thread's cpu within the cores, demand_us ascending times."""
    for text, needle in (
            ('{"cores": 4, "root_cpu": 4, "threads": [' + GOOD_THREAD + ']}',
             "{path}:1: root_cpu: 4 is out of range 0..3"),
            ('{"cores": 4, "threads": [\n {"cpu": -1, "phases": '
             '[{"run": 5}]}]}',
             "{path}:2: threads[0].cpu: -1 is out of range 0..3"),
            ('{"cores": 4, "demand_us": [10,\n 10], "threads": [' +
             GOOD_THREAD + ']}',
             "{path}:2: demand_us[1]: times must ascend"),
            ('{"cores": 4, "demand_us": 10, "threads": [' +
             GOOD_THREAD + ']}',
             "{path}:1: demand_us: expected an array")):
        why = expect_bad(text, needle)
        if why:
            return why
    return None


def test_icount_shares_the_clock():
    """--icount: busy cores share one clock, so CPU-bound work that keeps
    at least one core busy ends at its total (3 x 100 ms on 2 or 3
    cores: 300 ms), while without it the cores run side by side."""
    for placement, plain in (([0, 1, 2], 100.0), ([0, 0, 1], 200.0)):
        th = ",".join('{"cpu": %d, "phases": [{"run": 100000}]}' % c
                      for c in placement)
        text = '{"cores": 3, "threads": [%s]}' % th
        for extra, want in ((["--icount"], 300.0), ([], plain)):
            _, rc, out, err = run_text(text, "--policy", "mginkgo",
                                       "--triggers", "none", *extra)
            if rc:
                return f"exit {rc}: {err.strip()}"
            got = json.loads(out)["makespan_ms"]
            if abs(got - want) > 0.01 * want:
                return f"{placement} {extra}: makespan {got} ms, expected {want}"
    return None


def test_bad_command_line():
    """--cores and --tasks beyond the limits, an unknown policy: exit 2
    naming the option."""
    for args, needle in ((("--gen", "uniform", "--cores", "257", "--tasks",
                           "10"), "--cores"),
                         (("--gen", "uniform", "--cores", "4", "--tasks",
                           "10001"), "--tasks"),
                         (("--policy", "nope", "--gen", "uniform", "--cores",
                           "4", "--tasks", "4"), "--policy")):
        rc, _, err = run(*args)
        if rc != 2 or needle not in err:
            return f"{args}: exit {rc}, stderr {err.strip()!r}"
    return None


def check_run(doc, work_ms):
    """What every run must satisfy; None or why not."""
    if doc["unfinished"]:
        return f"{doc['policy']}: {doc['unfinished']} threads unfinished"
    if doc["makespan_ms"] < doc["lower_bound_ms"] - 1e-6:
        return f"{doc['policy']}: makespan below the lower bound"
    busy = sum(sum(c) for c in doc["util"]) * doc["sample_ms"]
    if abs(busy - work_ms) > 0.01 * work_ms:
        return f"{doc['policy']}: busy {busy:.1f} ms != work {work_ms:.1f} ms"
    if len(doc["decisions"]) != doc["placements"] + doc["rounds"]:
        return f"{doc['policy']}: {len(doc['decisions'])} decisions logged"
    return None


def test_mixed_every_policy():
    """The example workload (a server, calls, sleeps, late releases,
    nice values) under each policy: finished, conserved, logged."""
    for pol in POLICIES:
        rc, out, err = run("--policy", pol, MIXED)
        if rc:
            return f"{pol}: exit {rc}: {err.strip()}"
        doc = json.loads(out)
        # clients 12 x 20 x (3 + 0.5 served), batch 6 x 150, late 4 x 80,
        # remote 2 x 10 x 1 (ms)
        why = check_run(doc, 12 * 20 * 3.5 + 6 * 150 + 4 * 80 + 2 * 10)
        if why:
            return why
    return None


def test_generated_256_deterministic():
    """A heavy-tailed set of 2,000 tasks on 256 cores: finished, not below
    the bound, the same output twice (host timing aside)."""
    args = ("--gen", "heavy", "--cores", "256", "--tasks", "2000",
            "--seed", "9", "--sample-ms", "0")
    docs = []
    for _ in range(2):
        rc, out, err = run(*args)
        if rc:
            return f"exit {rc}: {err.strip()}"
        doc = json.loads(out)
        for key in ("cpu_s", "events_per_s"):
            doc.pop(key)
        docs.append(doc)
    if docs[0] != docs[1]:
        return "two runs differ"
    d = docs[0]
    if d["unfinished"] or d["makespan_ms"] < d["lower_bound_ms"]:
        return f"unfinished {d['unfinished']}, makespan {d['makespan_ms']}"
    return None


def test_core_255_is_a_core():
    """On 256 cores the log names core 255 (not "no core": LB_NO_CPU is
    0xffff there), every per-core array has 256 entries, and a move's
    "from" is null only for a placement."""
    rc, out, err = run("--gen", "uniform", "--cores", "256", "--tasks",
                       "300", "--seed", "4", "--sample-ms", "0")
    if rc:
        return f"exit {rc}: {err.strip()}"
    decisions = json.loads(out)["decisions"]
    seen = set()
    for d in decisions:
        if len(d["load"]) != 256 or len(d["state"]) != 256:
            return f"decision {d['seq']}: {len(d['load'])} cores logged"
        for m in d["moves"]:
            seen.add(m["to"])
            if (m["from"] is None) != (d["kind"] == "place"):
                return f"decision {d['seq']}: from {m['from']}"
    if 255 not in seen or max(seen) != 255:
        return f"destinations up to {max(seen)}, 255 {'' if 255 in seen else 'not '}seen"
    return None


def test_quality_smoke():
    """--quality on two sets: a row per policy and per yardstick (LPT,
    processor sharing, list scheduling in release and in random order),
    ratios >= 1, and each policy's makespan over processor sharing's
    equal to the quotient of the two ratios to the lower bound."""
    rc, out, err = run("--quality", "--sets", "2", "--core-list", "4,16")
    if rc:
        return f"exit {rc}: {err.strip()}"
    rows = json.loads(out)["rows"]
    if len(rows) != 2 * (len(POLICIES) + 4):
        return f"{len(rows)} rows"
    ps = {r["cores"]: r["ratio"] for r in rows if r["policy"] == "ps"}
    for r in rows:
        if len(r["ratio"]) != 2 or min(r["ratio"]) < 1.0:
            return f"{r['policy']} c{r['cores']}: ratios {r['ratio']}"
        if r["policy"] not in POLICIES:
            continue
        for x, y, z in zip(r["vs_ps"], r["ratio"], ps[r["cores"]]):
            if abs(x - y / z) > 1e-4:
                return f"{r['policy']} c{r['cores']}: vs_ps {x} != {y} / {z}"
    return None


def test_opzone_reads_tick_figures():
    """The load area as the kernel publishes it: idle cores idle from
    the start, and a busy core's util_now the figure at its last 1 ms
    tick (opzone reads that word). One thread busy on core 1 from 0, a
    second placed at 50.5 ms: opzone sees core 1 at 50.0 %, the others
    at 0 (an exact roll to now would say 50.5 %; an unpublished core
    used to read as busy since 0)."""
    text = ('{"cores": 4, "threads": ['
            '{"name": "a", "cpu": 1, "phases": [{"run": 200000}]},'
            '{"name": "b", "start_us": 50500, "phases": [{"run": 1000}]}]}')
    _, rc, out, err = run_text(text, "--policy", "opzone")
    if rc:
        return f"exit {rc}: {err.strip()}"
    places = [d for d in json.loads(out)["decisions"]
              if d["kind"] == "place" and d["t"] == 50500000]
    if len(places) != 1:
        return f"{len(places)} placements at 50.5 ms, expected 1"
    if places[0]["util"] != [0.0, 50.0, 0.0, 0.0]:
        return f"util {places[0]['util']}, expected [0, 50.0, 0, 0]"
    return None


def test_nice_sets_the_share():
    """Slices scale with the weight as the kernel's (nice 0: 10 ticks,
    nice 5: 3): a nice-0 thread sharing a core with a nice-5 one gets
    10 ms in every 13, so its 100 ms run ends near 127 ms, and its sleep
    of 1 s after it ends the run near 1,127 ms (equal slices: ~1,190)."""
    text = ('{"cores": 2, "threads": ['
            '{"name": "a", "cpu": 0, "phases": [{"run": 100000}, '
            '{"sleep": 1000000}]},'
            '{"name": "b", "cpu": 0, "nice": 5, "phases": [{"run": 100000}]}]}')
    _, rc, out, err = run_text(text, "--policy", "count", "--triggers",
                               "none")
    if rc:
        return f"exit {rc}: {err.strip()}"
    got = json.loads(out)["makespan_ms"]
    if not 1120 <= got <= 1135:
        return f"makespan {got} ms, expected 1,120-1,135"
    return None


def test_jitter_speeds():
    """--jitter X: a core runs at 1 +- X, so a 1 s thread alone on its
    core ends within 1 s / (1 + X) .. 1 s / (1 - X); the same seed gives
    the same run, another seed another, and X = 0 exactly 1 s."""
    text = ('{"cores": 2, "threads": ['
            '{"cpu": 0, "phases": [{"run": 1000000}]},'
            '{"cpu": 1, "phases": [{"run": 1000000}]}]}')
    spans = []
    for jit, seed in (("0", "1"), ("0.2", "1"), ("0.2", "1"), ("0.2", "2")):
        _, rc, out, err = run_text(text, "--policy", "count", "--triggers",
                                   "none", "--jitter", jit, "--jitter-seed",
                                   seed)
        if rc:
            return f"exit {rc}: {err.strip()}"
        spans.append(json.loads(out)["makespan_ms"])
    if spans[0] != 1000.0:
        return f"no jitter: makespan {spans[0]} ms"
    if not 1000 / 1.2 <= spans[1] <= 1000 / 0.8 or spans[1] == 1000.0:
        return f"jitter 0.2: makespan {spans[1]} ms"
    if spans[1] != spans[2] or spans[1] == spans[3]:
        return f"seeds 1, 1, 2: makespans {spans[1:]}"
    return None


def test_alb_smoke():
    """--alb: a row per set and policy, a figure per run, the same output
    twice; every run at least one thread's work and the moves whole."""
    outs = []
    for _ in range(2):
        rc, out, err = run("--alb", "--runs", "3")
        if rc:
            return f"exit {rc}: {err.strip()}"
        outs.append(out)
    if outs[0] != outs[1]:
        return "two runs differ"
    rows = json.loads(outs[0])["rows"]
    if len(rows) != 16:
        return f"{len(rows)} rows, expected 8 sets x 2 policies"
    for r in rows:
        if (len(r["completion_ms"]) != 3 or min(r["completion_ms"]) < 400
                or min(r["imbalance"]) < 0 or max(r["imbalance"]) > 2
                or any(m != int(m) or m < 0 for m in r["moves"])):
            return f"{r['set']} {r['policy']}: {r}"
    return None


TESTS = [
    ("not_json", test_not_json),
    ("not_json_trailing_comma", test_not_json_trailing_comma),
    ("negative_duration", test_negative_duration),
    ("zero_duration", test_zero_duration),
    ("too_many_cores", test_too_many_cores),
    ("too_many_threads", test_too_many_threads),
    ("bad_fields", test_bad_fields),
    ("bad_replay_fields", test_bad_replay_fields),
    ("icount_shares_the_clock", test_icount_shares_the_clock),
    ("bad_command_line", test_bad_command_line),
    ("mixed_every_policy", test_mixed_every_policy),
    ("generated_256_deterministic", test_generated_256_deterministic),
    ("core_255_is_a_core", test_core_255_is_a_core),
    ("quality_smoke", test_quality_smoke),
    ("opzone_reads_tick_figures", test_opzone_reads_tick_figures),
    ("nice_sets_the_share", test_nice_sets_the_share),
    ("jitter_speeds", test_jitter_speeds),
    ("alb_smoke", test_alb_smoke),
]

if __name__ == "__main__":
    sys.exit(host_proto.run_tests(TESTS, sys.argv))
