"""The suite file (tests/suites.txt): every QEMU suite, one per line.

    [SECTION]                       the suites below belong to SECTION
    KIND  NAME  CORES  ARGS  [EXTRA]

Fields are separated by blanks; `-` is an empty ARGS. `#` starts a
comment, blank lines are skipped. CORES is a core count, or a count and
a GIC version (4g3). ARGS, the kernel command line, and EXTRA may name
variables as {NAME}, given with --var NAME=VALUE (run_tests.py); only
the selected suites need theirs. KINDS says which kinds need EXTRA and
which kernel image each boots; the line `same-lines PREFIX SUITE,...`
is the check of run_tests.py --same-lines.

A suite whose ARGS run the kernel's self-tests (test=) must be of kind
`kernel` and every `kernel` suite must: only the test kernel has them.
"""

import re
from dataclasses import dataclass

# kind: (what EXTRA is, None if none; the kernel image it boots)
KINDS = {
    "protocol": (None, "default"),
    "kernel": (None, "test"),
    "irqstat": (None, "irqstat"),
    "panic": ("EXPECT", "default"),
    "expect": ("EXPECT", "default"),
    "dialog": ("FILE", "default"),
    "disk": ("MODE", "default"),
    "ext2": (None, "default"),
    "ext2-dialog": ("FILE", "default"),
    "trace": (None, "default"),
    "powerloss": ("N", "default"),
}
SAME_LINES = "same-lines"
RE_SECTION = re.compile(r"\[([\w-]+)\]")
RE_VAR = re.compile(r"\{(\w+)\}")
RE_SELFTEST = re.compile(r"(^|,)test=")


class SuiteFileError(Exception):
    """A line of the suite file that cannot be read (FILE:LINE: why)."""


@dataclass
class Row:
    """One line of the suite file, variables not yet replaced."""

    section: str
    kind: str
    name: str
    cores: str
    args: str
    extra: str
    where: str               # FILE:LINE, for messages

    @property
    def image(self):
        """The kernel image it boots: default, test or irqstat."""
        return KINDS[self.kind][1]

    def named(self, variables):
        """The name with the variables of @variables replaced (others
        left as {NAME}): smp{MANY} is smp16 with MANY=16."""
        return RE_VAR.sub(lambda m: variables.get(m.group(1), m.group(0)),
                          self.name)

    def spec(self, variables):
        """NAME:CORES:ARGS[:EXTRA], run_tests.py's form, with the
        variables replaced (SuiteFileError if one is not given)."""
        text = f"{self.name}:{self.cores}:{self.args}"
        if self.extra:
            text += f":{self.extra}"

        def value(m):
            if m.group(1) not in variables:
                raise SuiteFileError(f"{self.where}: no --var "
                                     f"{m.group(1)}=VALUE given")
            return variables[m.group(1)]
        return RE_VAR.sub(value, text)


def parse_line(fields, section, where):
    """A Row from the blank-separated fields of one line."""
    kind = fields[0]
    if kind == SAME_LINES:
        if len(fields) != 3:
            raise SuiteFileError(f"{where}: want same-lines PREFIX "
                                 "SUITE,SUITE...")
        return Row(section, kind, fields[1], "", "", fields[2], where)
    if kind not in KINDS:
        raise SuiteFileError(f"{where}: unknown kind {kind!r} (known: "
                             f"{', '.join(KINDS)}, {SAME_LINES})")
    extra = KINDS[kind][0]
    want = 5 if extra else 4
    if len(fields) != want:
        raise SuiteFileError(f"{where}: want {kind} NAME CORES ARGS"
                             + (f" {extra}" if extra else ""))
    args = "" if fields[3] == "-" else fields[3]
    if bool(RE_SELFTEST.search(args)) != (kind == "kernel"):
        raise SuiteFileError(f"{where}: test= (the kernel's self-tests) "
                             "goes with kind kernel, and only there")
    return Row(section, kind, fields[1], fields[2], args,
               fields[4] if extra else "", where)


def read(path):
    """Every Row of the file at @path, in order; SuiteFileError on a bad
    line, a suite before any [SECTION] or a name used twice."""
    rows, names, section = [], set(), None
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        fields = line.split("#", 1)[0].split()
        where = f"{path}:{n}"
        if not fields:
            continue
        if m := RE_SECTION.fullmatch(" ".join(fields)):
            section = m.group(1)
            continue
        if section is None:
            raise SuiteFileError(f"{where}: a suite before any [SECTION]")
        row = parse_line(fields, section, where)
        key = (row.kind == SAME_LINES, row.name)
        if key in names:
            raise SuiteFileError(f"{where}: {row.name} named twice")
        names.add(key)
        rows.append(row)
    return rows


def select(rows, sections=(), names=(), variables=None):
    """The rows of @sections (all if empty) and, if @names is not empty,
    only the suites named there (names with @variables replaced), with
    the same-lines checks whose suites are all selected. SuiteFileError
    for a name not found."""
    picked = [r for r in rows if not sections or r.section in sections]
    if not names:
        return picked
    variables = variables or {}
    missing = set(names) - {r.named(variables) for r in picked
                            if r.kind != SAME_LINES}
    if missing:
        raise SuiteFileError(f"no suite {', '.join(sorted(missing))}"
                             + (f" in [{'], ['.join(sections)}]"
                                if sections else ""))
    return [r for r in picked
            if (set(r.extra.split(",")) <= set(names)
                if r.kind == SAME_LINES else r.named(variables) in names)]
