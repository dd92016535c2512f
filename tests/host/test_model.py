#!/usr/bin/env python3
"""Host test: the Spin models of the ICC protocol (docs/icc.md, "Model
check").

One test per check of tools/model_check.py's quick set, each named
model_<check>: the protocol as it should be must pass (no error, the
whole state space explored), and each bug put back (-DFINDING2,
-DFINDING5) must give a counterexample of the expected kind, whose
trail is printed.
About 30 s of CPU in all; `make model` runs the full set. Without Spin
(scripts/setup.sh installs it) every test is reported as skipped.

    test_model.py [substring]    run only tests whose name contains it
"""

import os
import sys

sys.dont_write_bytecode = True  # before our imports: no __pycache__
import host_proto  # noqa: E402

import model_check  # noqa: E402  (tools/model_check.py, on the path)

OUT = os.path.join(model_check.OUT_DIR, "host-test")


def make_test(check):
    """The test of one check: its result line (and trail) on stdout,
    None if it went as it must, else why not."""
    def test():
        res = model_check.run_check(check, OUT)
        print(res.line(), flush=True)
        for line in res.trail:
            print(f"    {line}")
        return None if res.ok else (res.why or "not as expected")
    return test


def main(argv):
    """Run the quick set, or report it skipped without Spin."""
    checks = model_check.selected("quick")
    missing = model_check.tools_missing()
    if missing:
        for check in checks:
            print(f"TEST-SKIP model_{check.name} :: {', '.join(missing)} "
                  "not installed (scripts/setup.sh installs it)")
        print("TEST-DONE 0 0", flush=True)
        return 0
    tests = [(f"model_{c.name}", make_test(c)) for c in checks]
    return host_proto.run_tests(tests, argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
