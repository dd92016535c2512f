"""The three kinds of benchmark row, and how a timed row is decided.

A row of tools/bench_meta.json with a bound has a "kind":

  deterministic  measured under -icount (or on the host simulator): one
                 run gives the same figure as any other, and decides the
                 bound (tools/bench_check.py).
  timed          measured in time under multi-threaded TCG: a figure of
                 one boot is one sample of a distribution that the
                 host's load moves. Decided only from MIN_BOOTS or more
                 boots (tools/bench_timed.py) by the distribution-free
                 95 % confidence interval of the median of the per-boot
                 figures: PASS if the interval lies within the bound,
                 FAIL if wholly beyond it, else INCONCLUSIVE.
  reported       no bound.

A timed row's "timed" object says what one boot's figure is:

  {"boots": 20,
   "num": {"boot": B, "result": R},   # R's median in boot B
   "den": {"boot": B2, "result": R2}, # optional: figure = num / den
   "paired": true}                    # optional: the median of the
                                      # per-repetition ratios instead

B names a boot of tools/bench_timed.py's BOOTS. When num and den come
from different boots, the two boots alternate (A, B, A, B, ...) and each
pair gives one figure. The row's bound is {"median_max": x} or
{"median_min": x}: on the median of the per-boot figures.
"""

import math
from fractions import Fraction

KINDS = ("deterministic", "timed", "reported")
MIN_BOOTS = 20
CONFIDENCE = Fraction(95, 100)
SINGLE_BOOT = "single boot, not decided"
TIMED_KEYS = ("median_max", "median_min")
PASS, FAIL, INCONCLUSIVE = "PASS", "FAIL", "INCONCLUSIVE"


# ------------------------------------------------------------------ kinds

def row_kind(entry):
    """The kind of a meta entry: its "kind", else "deterministic" if it
    has a bound (a row not yet classified), else "reported"."""
    entry = entry or {}
    if entry.get("kind"):
        return entry["kind"]
    return "deterministic" if entry.get("bound") else "reported"


def timed_rows(meta):
    """{name: entry} of the timed rows of meta, in meta's order."""
    return {name: entry for name, entry in meta.items()
            if row_kind(entry) == "timed"}


def timed_inputs(meta):
    """The result names whose single-boot figures feed a timed row."""
    names = set()
    for entry in timed_rows(meta).values():
        spec = entry.get("timed") or {}
        for side in ("num", "den"):
            if spec.get(side):
                names.add(spec[side]["result"])
    return names


def result_kind(meta_entry, name, inputs):
    """The kind of a result in results.json: its meta entry's if bounded,
    "timed" if it is one of `inputs` (timed_inputs), else "reported"."""
    kind = row_kind(meta_entry)
    if kind != "reported":
        return kind
    return "timed" if name in inputs else "reported"


def meta_problems(meta, boots):
    """Why the kinds and timed definitions of meta are unusable ([] if
    they are not); `boots` is the set of boot names that exist."""
    out = []
    for name, entry in meta.items():
        entry = entry or {}
        kind = entry.get("kind")
        if kind is not None and kind not in KINDS:
            out.append(f"{name}: unknown kind {kind!r}")
        if kind == "reported" and entry.get("bound"):
            out.append(f"{name}: kind reported but has a bound")
        if kind in ("deterministic", "timed") and not entry.get("bound"):
            out.append(f"{name}: kind {kind} without a bound")
        if kind == "timed":
            out += [f"{name}: {p}" for p in timed_problems(entry, boots)]
    return out


def timed_problems(entry, boots):
    """Why one timed row's bound or definition is unusable ([] if fine)."""
    out = []
    bound = entry.get("bound") or {}
    if len(bound) != 1 or next(iter(bound)) not in TIMED_KEYS:
        out.append(f"bound {bound!r}: want one of {TIMED_KEYS}")
    spec = entry.get("timed") or {}
    if not isinstance(spec.get("boots"), int) or spec["boots"] < MIN_BOOTS:
        out.append(f"boots {spec.get('boots')!r}: want >= {MIN_BOOTS}")
    for side in ("num", "den"):
        part = spec.get(side)
        if part is None and side == "den":
            continue
        if not part or part.get("boot") not in boots or \
                not part.get("result"):
            out.append(f"{side} {part!r}: want a boot of {sorted(boots)} "
                       "and a result")
    if spec.get("paired") and (not spec.get("den") or
                               spec["den"]["boot"] != spec["num"]["boot"]):
        out.append("paired needs num and den from the same boot")
    return out


# ---------------------------------------------------------------- figures

def ratio(num, den):
    """num / den, with 0 / 0 = 0 (e.g. no migrations under either
    policy) and n / 0 = inf."""
    if den:
        return num / den
    return 0.0 if num == 0 else float("inf")


def median(values):
    """The median of a non-empty list (the mean of the two middle values
    when their number is even)."""
    xs = sorted(values)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def paired_ratio(a, b):
    """Median of a[i] / b[i] (ratio()), or None if the two sample lists
    cannot be paired."""
    if not a or len(a) != len(b):
        return None
    return median([ratio(x, y) for x, y in zip(a, b)])


def figure(spec, num, den=None):
    """One sample of a timed row (its "timed" object `spec`) from the
    results.json-shaped results `num` and `den` of one boot (or one A/B
    pair of boots); None if they cannot give one."""
    if num is None or (spec.get("den") and den is None):
        return None
    if not spec.get("den"):
        return num["median"]
    if spec.get("paired"):
        return paired_ratio(num.get("samples"), den.get("samples"))
    return ratio(num["median"], den["median"])


# -------------------------------------------------------------- intervals

def coverage(n, j):
    """P(j <= B <= n - j) for B ~ binomial(n, 1/2), exactly: the
    probability that the sorted samples' x_(j) and x_(n+1-j) (1-based)
    hold the median of the distribution between them."""
    inside = sum(math.comb(n, i) for i in range(j, n - j + 1))
    return Fraction(inside, 2 ** n)


def median_ci_ranks(n, confidence=CONFIDENCE):
    """1-based ranks (j, k) of the distribution-free confidence interval
    of the median from n samples: the largest j (and so the smallest
    k = n + 1 - j) whose coverage is >= confidence; None when even the
    widest interval, [x_(1), x_(n)], covers less (n < 6 at 95 %)."""
    best = None
    for j in range(1, n // 2 + 1):
        if coverage(n, j) < confidence:
            break
        best = (j, n + 1 - j)
    return best


def median_ci(samples, confidence=CONFIDENCE):
    """[lo, hi] of the median's confidence interval from samples, or None
    when there are too few of them for one (median_ci_ranks)."""
    ranks = median_ci_ranks(len(samples), confidence)
    if ranks is None:
        return None
    xs = sorted(samples)
    return [xs[ranks[0] - 1], xs[ranks[1] - 1]]


def decide(bound, ci, n):
    """(decision, reason) of a timed row's bound from its interval `ci`
    over n boots: PASS if the interval lies within the bound, FAIL if
    wholly beyond it, INCONCLUSIVE if it straddles it, has no interval or
    comes from fewer than MIN_BOOTS boots."""
    (key, limit), = bound.items()
    if n < MIN_BOOTS:
        return INCONCLUSIVE, f"{n} boots < {MIN_BOOTS}"
    if ci is None:
        return INCONCLUSIVE, f"no 95 % interval from {n} boots"
    lo, hi = ci
    within, beyond = ((hi <= limit, lo > limit) if key == "median_max"
                      else (lo >= limit, hi < limit))
    if within:
        return PASS, "interval within the bound"
    if beyond:
        return FAIL, "interval wholly beyond the bound"
    return INCONCLUSIVE, "interval straddles the bound"


def format_ci(ci):
    """The interval as text: [lo, hi], or (-inf, +inf) when none."""
    if ci is None:
        return "(-inf, +inf)"
    return f"[{ci[0]:.4g}, {ci[1]:.4g}]"


def bound_text(bound):
    """{"median_max": 0.6} as `<= 0.6`, {"median_min": 5} as `>= 5`."""
    (key, limit), = bound.items()
    return f"{'<=' if key == 'median_max' else '>='} {limit}"
