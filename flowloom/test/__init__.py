"""`tf.test`: helpers for testing graphs (gradient checks)."""

from flowloom.test.gradient_checker import compute_gradient, compute_gradient_error  # noqa: F401
