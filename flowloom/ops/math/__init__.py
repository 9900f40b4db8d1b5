"""Math ops: elementwise arithmetic, unary functions, reductions, matmul, scans, segments, clipping."""
