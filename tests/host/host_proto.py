"""The test protocol for host tests written in Python (the C tests have
host_test.h). Each test is a function that returns None to pass or a
one-line reason to fail; an exception fails it too.

    TEST-PASS <name>
    TEST-FAIL <name> :: <reason>
    TEST-DONE <passed> <failed>
"""

import os
import sys

sys.dont_write_bytecode = True  # keep the source tree free of __pycache__

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tools"))
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))


def run_tests(tests, argv):
    """Run (name, function) pairs whose name contains argv[1] (all if
    absent), print the protocol, return the exit code."""
    only = argv[1] if len(argv) > 1 else ""
    passed = failed = 0
    for name, test in tests:
        if only not in name:
            continue
        try:
            why = test()
        except Exception as exc:  # noqa: BLE001 - any error fails the test
            why = f"{type(exc).__name__}: {exc}"
        if why is None:
            print(f"TEST-PASS {name}", flush=True)
            passed += 1
        else:
            why = " ".join(str(why).split())
            print(f"TEST-FAIL {name} :: {why}", flush=True)
            failed += 1
    print(f"TEST-DONE {passed} {failed}", flush=True)
    return 1 if failed else 0
