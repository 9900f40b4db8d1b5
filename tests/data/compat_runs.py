"""The runs of tests/data/compat_scripts/ that record_compat_scripts.py records under TF 1.15
and tests/compat/test_run_scripts.py repeats under `flowloom run`, and how their output is
compared: stdout whole; from stderr only what a program shows of itself (tf.logging lines
other than TF's deprecation notices, unittest's verdicts, the last line of a traceback)."""

import re

RUNS = {
    "app_flags_defaults": ("app_flags.py", []),
    "app_flags_parsed": ("app_flags.py", ["--name=run1", "--steps=15", "--learning_rate=0.5",
                                          "--nodebug", "--verbose", "--layers=8,4,2",
                                          "--mode=eval", "--old_style=new", "extra",
                                          "--unknown_flag=3"]),
    "app_flags_implicit_parse": ("app_flags.py", ["--implicit", "--steps=9"]),
    "app_flags_bad_enum": ("app_flags.py", ["--mode=predict"]),
    "logging_levels": ("logging_levels.py", []),
    "test_case": ("testcase_checks.py", []),
    "internal_imports": ("internal_imports.py", ["3", "--x"]),
    "internal_imports_failing": ("internal_imports.py", ["--fail"]),
    "mnist_reader": ("mnist_reader.py", []),
    "checkpoint_tool": ("checkpoint_tool.py", []),
}

_LOG_LINE = re.compile(r"^(DEBUG|INFO|WARNING|ERROR|CRITICAL):tensorflow:")
_UNITTEST = re.compile(r"^(Ran \d+ tests?|OK|FAILED \(.*\)|(FAIL|ERROR): \w+)")
_EXCEPTION = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit)\b")


def normalize_stderr(text):
    """The lines of `text` (a program's stderr) that the comparison keeps."""
    keep = []
    for line in text.splitlines():
        if _LOG_LINE.match(line) and not line.split(":", 2)[2].startswith("From "):
            # TF 1.15 and 2.x word shape errors differently; the pattern searched for is kept.
            keep.append(line.split("' within '")[0])
        elif _UNITTEST.match(line):
            keep.append(re.sub(r" \(__main__\.[\w.]+\)$", "", line.split(" in ")[0]))
        elif _EXCEPTION.match(line):
            keep.append(line)
    return keep
