"""The suites a run boots: Suite (one program to run), the parsers of
each kind's command-line spec (NAME:CPUS:ARGS[:EXTRA]), the suite file's
rows (tests/suites.txt, read by suites.py) turned into Suites, and the
options that name them. Used by run_tests.py, which re-exports these
names for the host tests."""

import argparse
import os
import re
import shlex
import sys
from dataclasses import dataclass

import qemu  # noqa: E402  (tools/qemu.py, on the path run_tests.py sets)
import suites as suites_file  # noqa: E402  (the suite file's reader)
from disk_check import disk_prepare  # noqa: E402


@dataclass
class Suite:
    """One program to run: a host binary or a QEMU boot."""

    name: str
    cmd: list
    cpus: int = 0            # 0 for host binaries
    args: str = ""
    expect_panic: str = None  # panic suites: comma-separated texts the
                              # PANIC line must all contain
    expect_lines: str = None  # expect suites: comma-separated texts that
                              # must each appear in some output line
    dialog: list = None       # dialog suites: ready text, lines to type
    expect_seq: list = None   # dialog suites: texts to find, in order
    disk: str = None          # disk suites: the image attached
    ext2: bool = False        # ext2 suites: the image is ext2 (ext2_image)
    trace_dir: str = None     # trace suites: where trace.txt goes
    cut_at: int = None        # power-loss suites: SIGKILL at this fsync


def parse_suite_spec(spec, kernel):
    """Turn NAME:CPUS:ARGS into a QEMU Suite (ARGS may contain ':').
    CPUS is a core count, or a count and a GIC version: 4g3 is 4 cores
    on GICv3 (the default is qemu.gic_version's: v2 up to 8 cores)."""
    parts = spec.split(":", 2)
    m = re.fullmatch(r"(\d+)(?:g([23]))?", parts[1]) if len(parts) >= 2 \
        else None
    if len(parts) < 2 or not parts[0] or not m:
        raise argparse.ArgumentTypeError(f"bad --suite {spec!r}, "
                                         "want NAME:CPUS[gV]:ARGS")
    name, cpus = parts[0], int(m.group(1))
    gic = int(m.group(2)) if m.group(2) else None
    args = parts[2] if len(parts) == 3 else ""
    try:
        cmd = qemu.build_command(kernel, cpus, args, qemu.MTTCG_ARGS,
                                 gic=gic)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"--suite {spec!r}: {exc}")
    return Suite(name=name, cmd=cmd, cpus=cpus, args=args)


def split_expect_spec(spec, kernel, option):
    """NAME:CPUS:ARGS:EXPECT -> (Suite, EXPECT). EXPECT is a
    comma-separated list of non-empty texts without ':'."""
    head, sep, expect = spec.rpartition(":")
    if not sep or not all(expect.split(",")):
        raise argparse.ArgumentTypeError(f"bad {option} {spec!r}, "
                                         "want NAME:CPUS:ARGS:EXPECT")
    return parse_suite_spec(head, kernel), expect


def parse_panic_spec(spec, kernel):
    """A Suite whose kernel must print a PANIC line containing each text
    of EXPECT."""
    suite, suite.expect_panic = split_expect_spec(spec, kernel,
                                                  "--panic-suite")
    return suite


def parse_expect_spec(spec, kernel):
    """A Suite whose boot must print, for each text of EXPECT, a line
    containing it."""
    suite, suite.expect_lines = split_expect_spec(spec, kernel,
                                                  "--expect-suite")
    return suite


def parse_dialog_spec(spec, kernel):
    """NAME:CPUS:ARGS:FILE -> a Suite that types the script FILE into the
    console. FILE lines: `ready TEXT` (first: wait for a line containing
    TEXT), `type LINE` (type LINE and Enter, after the echo of the line
    before), `expect TEXT` (a later line must contain TEXT, in order);
    blank lines and `#` comments are skipped."""
    head, sep, path = spec.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"bad --dialog-suite {spec!r}, "
                                         "want NAME:CPUS:ARGS:FILE")
    suite = parse_suite_spec(head, kernel)
    ready, typed, expect = None, [], []
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except OSError as exc:
        raise argparse.ArgumentTypeError(f"--dialog-suite: {exc}")
    for n, line in enumerate(lines, 1):
        word, _, rest = line.strip().partition(" ")
        if not word or word.startswith("#"):
            continue
        if word == "ready" and ready is None and rest:
            ready = rest
        elif word == "type" and rest:
            typed.append(rest)
        elif word == "expect" and rest:
            expect.append(rest)
        else:
            raise argparse.ArgumentTypeError(f"{path}:{n}: bad line "
                                             f"{line!r}")
    if ready is None or not typed:
        raise argparse.ArgumentTypeError(f"{path}: needs a ready line "
                                         "and a type line")
    suite.dialog, suite.expect_seq = [ready] + typed, expect
    return suite


def attach_disk(suite, kernel, log_dir, legacy=False, ext2=False):
    """Boot @suite with the image LOG_DIR/NAME.img (an ext2 one made by
    ext2_image if @ext2, else the pattern of disk_prepare), on the
    legacy virtio-mmio transport if @legacy."""
    suite.disk = os.path.join(log_dir, f"{suite.name}.img")
    suite.ext2 = ext2
    suite.cmd = qemu.build_command(kernel, suite.cpus, suite.args,
                                   qemu.MTTCG_ARGS, disk=suite.disk,
                                   disk_legacy=legacy)
    return suite


def parse_disk_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS:MODE -> a protocol Suite booted with a fresh disk
    image LOG_DIR/NAME.img on the modern (MODE modern) or legacy (MODE
    legacy) virtio-mmio transport."""
    head, sep, mode = spec.rpartition(":")
    if not sep or mode not in ("modern", "legacy"):
        raise argparse.ArgumentTypeError(f"bad --disk-suite {spec!r}, "
                                         "want NAME:CPUS:ARGS:modern|legacy")
    return attach_disk(parse_suite_spec(head, kernel), kernel, log_dir,
                       legacy=mode == "legacy")


def parse_ext2_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS -> a protocol Suite booted with a fresh ext2 image
    LOG_DIR/NAME.img (tests/harness/ext2_image.py) on the modern
    transport, checked by e2fsck and debugfs after the run."""
    return attach_disk(parse_suite_spec(spec, kernel), kernel, log_dir,
                       ext2=True)


def parse_ext2_dialog_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS:FILE -> a dialog suite (parse_dialog_spec) booted
    with a fresh ext2 image (ext2_image.prepare), for the shell's file
    commands; the image is not checked afterwards (nothing writes it)."""
    return attach_disk(parse_dialog_spec(spec, kernel), kernel, log_dir,
                       ext2=True)


def parse_power_loss_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS:N -> an ext2 suite cut (SIGKILL) at the guest's
    N-th fsync (tests/user/tests/t_powerloss.c), then repaired and checked."""
    head, sep, n = spec.rpartition(":")
    if not sep or not n.isdigit() or int(n) < 1:
        raise argparse.ArgumentTypeError(f"bad --powerloss-suite {spec!r}"
                                         ", want NAME:CPUS:ARGS:N")
    suite = parse_ext2_spec(head, kernel, log_dir)
    suite.cut_at = int(n)
    return suite


def parse_trace_spec(spec, kernel, log_dir):
    """NAME:CPUS:ARGS -> a Suite whose boot's trace dump is checked
    (ARGS must turn the rings on: trace=...)."""
    suite = parse_suite_spec(spec, kernel)
    if not re.search(r"(^|,)trace=", suite.args):
        raise argparse.ArgumentTypeError(f"--trace-suite {spec!r}: ARGS "
                                         "need trace=CLASSES")
    suite.trace_dir = os.path.join(log_dir, f"{suite.name}-trace")
    return suite


def host_suite(spec):
    """A host test program (a binary or an executable script) with the
    arguments that follow it in @spec (shell words), named after its
    file without the extension."""
    path, *args = shlex.split(spec)
    name = os.path.splitext(os.path.basename(path))[0]
    return Suite(name=name, cmd=[os.path.abspath(path)] + args)


# Each command-line option of a suite kind, and that kind (suites.KINDS)
OPTION_KINDS = [("suite", "protocol"), ("panic_suite", "panic"),
                ("expect_suite", "expect"), ("dialog_suite", "dialog"),
                ("disk_suite", "disk"), ("ext2_suite", "ext2"),
                ("ext2_dialog_suite", "ext2-dialog"),
                ("trace_suite", "trace"), ("powerloss_suite", "powerloss")]


def kind_parsers(log_dir):
    """For each kind of suites.KINDS, its parser: (SPEC, KERNEL) -> Suite
    (argparse.ArgumentTypeError if SPEC is bad)."""
    return {
        "protocol": parse_suite_spec, "kernel": parse_suite_spec,
        "irqstat": parse_suite_spec, "panic": parse_panic_spec,
        "expect": parse_expect_spec, "dialog": parse_dialog_spec,
        "disk": lambda spec, k: parse_disk_spec(spec, k, log_dir),
        "ext2": lambda spec, k: parse_ext2_spec(spec, k, log_dir),
        "ext2-dialog": lambda spec, k: parse_ext2_dialog_spec(spec, k,
                                                              log_dir),
        "trace": lambda spec, k: parse_trace_spec(spec, k, log_dir),
        "powerloss": lambda spec, k: parse_power_loss_spec(spec, k,
                                                           log_dir),
    }


def file_rows(opts):
    """The rows of --suite-file that --section and --only select, and
    the --var values (run_tests exits on a bad file or option)."""
    if not opts.suite_file:
        if opts.section or opts.only:
            sys.exit("run_tests: --section and --only need --suite-file")
        return [], {}
    only = [n for o in opts.only for n in o.split(",") if n]
    variables = {}
    for v in opts.var:
        key, sep, value = v.partition("=")
        if not sep or not key:
            sys.exit(f"run_tests: --var {v!r}: want NAME=VALUE")
        variables[key] = value
    try:
        rows = suites_file.read(opts.suite_file)
    except (OSError, suites_file.SuiteFileError) as exc:
        sys.exit(f"run_tests: {exc}")
    try:
        return (suites_file.select(rows, opts.section, only, variables),
                variables)
    except suites_file.SuiteFileError as exc:
        sys.exit(f"run_tests: {opts.suite_file}: {exc}")


def file_suites(opts):
    """The QEMU suites of --suite-file in file order, each booting the
    kernel image of its kind (--kernel, --kernel-test, --kernel-irqstat),
    and its same-lines checks, as --same-lines specs."""
    rows, variables = file_rows(opts)
    images = {"default": opts.kernel, "test": opts.kernel_test,
              "irqstat": opts.kernel_irqstat}
    parsers = kind_parsers(opts.log_dir)
    suites, same = [], []
    for row in rows:
        try:
            spec = row.spec(variables)
        except suites_file.SuiteFileError as exc:
            sys.exit(f"run_tests: {exc}")
        if row.kind == suites_file.SAME_LINES:
            same.append(f"{row.name}:{row.extra}")
            continue
        kernel = images[row.image]
        if not kernel:
            option = "--kernel" + ("" if row.image == "default"
                                   else f"-{row.image}")
            sys.exit(f"run_tests: {row.where}: {row.name} ({row.kind}) "
                     f"needs {option}")
        try:
            suites.append(parsers[row.kind](spec, kernel))
        except argparse.ArgumentTypeError as exc:
            sys.exit(f"run_tests: {row.where}: {exc}")
    return suites, same


def build_suites(opts):
    """Build the ordered suite list: host binaries first, then the
    suites of --suite-file, then those of the other options, by kind."""
    suites = [host_suite(b) for b in opts.host_bin]
    from_file, same = file_suites(opts)
    suites += from_file
    opts.same_lines = same + opts.same_lines
    parsers = kind_parsers(opts.log_dir)
    specs = [(s, parsers[kind]) for option, kind in OPTION_KINDS
             for s in getattr(opts, option)]
    if specs and not opts.kernel:
        sys.exit("run_tests: --suite/--panic-suite/--expect-suite/"
                 "--dialog-suite need --kernel")
    # KERNEL=NAME:CPUS:ARGS: a protocol suite booted with another build
    # of the kernel (the instrumented kernel-irqstat.elf)
    for s in opts.kernel_suite:
        kernel, sep, spec = s.partition("=")
        if not sep or not kernel:
            sys.exit(f"run_tests: --kernel-suite {s!r}: need KERNEL=SPEC")
        specs.append((spec, lambda spec, k, kk=kernel:
                      parse_suite_spec(spec, kk)))
    for spec, parse in specs:
        try:
            suites.append(parse(spec, opts.kernel))
        except argparse.ArgumentTypeError as exc:
            sys.exit(f"run_tests: {exc}")
    return suites


def add_file_options(ap):
    """The options of the suite file and the kernels its kinds boot."""
    ap.add_argument("--kernel-test", metavar="KERNEL",
                    help="the kernel with self-tests, for the suites of "
                    "kind kernel (build/kernel-test.elf)")
    ap.add_argument("--kernel-irqstat", metavar="KERNEL",
                    help="the kernel of the suites of kind irqstat "
                    "(build/kernel-irqstat.elf)")
    ap.add_argument("--suite-file", metavar="FILE",
                    help="boot the suites of FILE (tests/suites.txt), "
                    "in its order, before those of the options below")
    ap.add_argument("--section", action="append", default=[],
                    help="only the suites of this [SECTION] of "
                    "--suite-file (repeatable; default: all)")
    ap.add_argument("--only", action="append", default=[],
                    metavar="NAME,...",
                    help="only these suites of --suite-file (repeatable)")
    ap.add_argument("--var", action="append", default=[],
                    metavar="NAME=VALUE",
                    help="the value of {NAME} in --suite-file")
    ap.add_argument("--list", action="store_true",
                    help="print the suites to run, one per line, and "
                    "exit without running them")
