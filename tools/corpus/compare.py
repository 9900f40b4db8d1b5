"""Reading a program's output: its final printed numbers, its first error, and the comparison.

Pure functions of text, so the harness's judgement can be unit-tested without running anything.
"""

import math
import re

# A number as programs print it: 12, -3.5, 1e-05, 2.3E+4, .5, nan, inf (not digits inside words
# such as "conv2d" or "lab-10").
_NUMBER = re.compile(
    r"(?<![\w.-])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?(?![\w.])|"
    r"(?<![\w-])[-+]?(?:nan|inf)(?!\w)",
    re.IGNORECASE)

# The last line of a Python traceback: "ValueError: ...", "tensorflow.errors.X: ...", "KeyError".
_ERROR_LINE = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure)|"
                         r"[A-Za-z_][\w.]*\.[A-Z]\w*)(?::\s?(.*))?$")


def numbers_in(line):
    """The numbers printed on one line, as floats, in order."""
    out = []
    for tok in _NUMBER.findall(line):
        try:
            out.append(float(tok))
        except ValueError:
            continue
    return out


def final_numbers(stdout, lines=3, ignore=(), mask=()):
    """The numbers on the last `lines` lines of `stdout` that print any.

    Args:
      stdout: the program's standard output.
      lines: how many number-bearing lines, counted from the end, to take.
      ignore: regular expressions; lines matching any are skipped (timings, paths).
      mask: regular expressions removed from each line first (a timestamp inside a loss line).

    Returns:
      (numbers, text): the floats in printing order and the lines they came from, joined by
      " | ".
    """
    pats = [re.compile(p) for p in ignore]
    masks = [re.compile(p) for p in mask]
    picked = []
    for raw in reversed(stdout.splitlines()):
        line = raw.strip()
        for m in masks:
            line = m.sub("", line).strip()
        if not line or any(p.search(line) for p in pats):
            continue
        if numbers_in(line):
            picked.append(line)
            if len(picked) == lines:
                break
    picked.reverse()
    nums = [x for line in picked for x in numbers_in(line)]
    return nums, " | ".join(picked)


def close(a, b, rtol, atol):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= atol + rtol * abs(b)


def compare_numbers(mine, ref, rtol=1e-3, atol=1e-5):
    """Compares flowloom's final numbers with TF's.

    Returns:
      "match" when both print the same count of numbers and each pair is close; "differ" when
      they do not; "none" when TF printed no numbers.
    """
    if not ref:
        return "none"
    if len(mine) != len(ref):
        return "differ"
    return "match" if all(close(a, b, rtol, atol) for a, b in zip(mine, ref)) else "differ"


def first_error(stderr):
    """The exception that ended a run, as (class, message line), or None.

    The last traceback in `stderr` wins: Python prints the one that stopped the program last
    ("During handling of the above exception" chains print the first cause earlier).
    """
    lines = stderr.splitlines()
    found = None
    in_tb = False
    for i, raw in enumerate(lines):
        if raw.startswith("Traceback (most recent call last)"):
            in_tb = True
            continue
        if in_tb and raw and not raw.startswith((" ", "\t")):
            m = _ERROR_LINE.match(raw.strip())
            if m:
                found = (m.group(1).rsplit(".", 1)[-1], (m.group(2) or "").strip())
                in_tb = False
    return found


_ATTR = re.compile(r"module '([\w.]+)' has no attribute '(\w+)'")
_MODULE = re.compile(r"No module named '([\w.]+)'")


def blocker_key(error_class, message):
    """A name for what stopped a program, shared by every program stopped by the same thing.

    Missing names become "missing: tf.x.y"; a missing module "missing module: tensorflow.x";
    anything else keeps the class and the message with its numbers elided, so the same crash
    from different programs (other shapes, other step counts) groups together.
    """
    m = _ATTR.search(message)
    if error_class == "AttributeError" and m:
        mod = re.sub(r"^(flowloom|tensorflow)(\.compat\.v1)?", "tf", m.group(1))
        return "missing: %s.%s" % (mod, m.group(2))
    m = _MODULE.search(message)
    if m:
        return "missing module: %s" % m.group(1)
    if error_class == "ImportError":
        m = re.search(r"cannot import name '(\w+)' from '([\w.]+)'", message)
        if m:
            return "missing: %s.%s" % (re.sub(r"^(flowloom|tensorflow)", "tf", m.group(2)),
                                       m.group(1))
    msg = re.sub(r"(?<![A-Za-z_\d])\d+", "N", message)
    return "%s: %s" % (error_class, msg[:160])
