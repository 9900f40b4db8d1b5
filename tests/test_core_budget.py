"""The core stays small enough to read in an afternoon (STYLE.md, point 9).

Graph, Operation, Tensor, the op registry, apply_op, Session and the executor together stay
under a line budget; op families, file formats and control flow live outside it.
"""

import os

ROOT = os.path.join(os.path.dirname(__file__), "..", "flowloom")
CORE = ["framework/graph.py", "framework/ops.py", "framework/op_def.py", "framework/apply_op.py",
        "runtime/session.py", "runtime/executor.py"]
BUDGET = 2500


def test_core_is_under_its_line_budget():
    sizes = {}
    for path in CORE:
        with open(os.path.join(ROOT, path)) as f:
            sizes[path] = sum(1 for _ in f)
    assert sum(sizes.values()) <= BUDGET, f"core is {sum(sizes.values())} lines: {sizes}"
