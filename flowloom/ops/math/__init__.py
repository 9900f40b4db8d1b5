"""Math ops: elementwise arithmetic, unary functions, reductions, matmul, scans, segments, clipping."""

# math_ops is the family's root: the modules split off it import from it, and it imports them
# at its end, so any module of the family loads through it (first use may import any of them).
from flowloom.ops.math import math_ops  # noqa: E402,F401
