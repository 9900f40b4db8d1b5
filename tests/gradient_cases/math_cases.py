"""Gradient-check builders for ops/math/math_ops.py and the helper ops it uses (see __init__)."""

import numpy as np

import flowloom as tf
from flowloom.framework.apply_op import apply_op
from tests.gradient_cases import away_from_zero, dims, distinct, ph


def _op(op_type, *inputs, **attrs):
    return apply_op(op_type, inputs, **attrs).outputs[0]


def _binary(op_type, x_range=(-1, 1), y_range=(-1, 1), broadcast=True):
    def build(rng):
        a, b, c = dims(rng, 3, 2, 4)
        x, xv = ph(rng, (a, b, c), *x_range)
        y, yv = ph(rng, (b, 1) if broadcast else (a, b, c), *y_range)
        return [(x, xv), (y, yv)], _op(op_type, x, y)
    return build


def _unary(op_type, low=-1.0, high=1.0, values=None):
    def build(rng):
        shape = dims(rng, 2)
        x, xv = ph(rng, shape, low, high)
        if values is not None:
            xv = values(rng, shape)
        return [(x, xv)], _op(op_type, x)
    return build


def _add_unknown_shapes(rng):
    x, xv = ph(rng, (2, 3), static=False)
    y, yv = ph(rng, (3,), static=False)
    return [(x, xv), (y, yv)], x + y


def _maximum(op_type):
    def build(rng):
        shape = dims(rng, 2, 2, 4)
        x, xv = ph(rng, shape)
        y, yv = ph(rng, shape)
        yv = xv + away_from_zero(rng, shape, 0.1, 0.5)
        return [(x, xv), (y, yv)], _op(op_type, x, y)
    return build


def _matmul(ta, tb):
    def build(rng):
        m, k, n = dims(rng, 3, 2, 5)
        a, av = ph(rng, (k, m) if ta else (m, k))
        b, bv = ph(rng, (n, k) if tb else (k, n))
        return [(a, av), (b, bv)], tf.matmul(a, b, transpose_a=ta, transpose_b=tb)
    return build


def _batch_matmul(adj_x, adj_y, broadcast):
    def build(rng):
        m, k, n = dims(rng, 3, 2, 4)
        x, xv = ph(rng, (2, k, m) if adj_x else (2, m, k))
        y_shape = (n, k) if adj_y else (k, n)
        y, yv = ph(rng, y_shape if broadcast else (2,) + y_shape)
        return [(x, xv), (y, yv)], _op("BatchMatMulV2", x, y, adj_x=adj_x, adj_y=adj_y)
    return build


def _reduction(op_type, values=None, keepdims=False, unknown=False):
    def build(rng):
        shape = dims(rng, 3, 2, 4)
        x, xv = ph(rng, shape, 0.5, 1.5, static=not unknown)
        if values is not None:
            xv = values(rng, shape)
        axes = sorted(rng.choice(3, size=int(rng.integers(1, 3)), replace=False).tolist())
        y = _op(op_type, x, tf.constant(axes, dtype=tf.int32), keep_dims=keepdims)
        return [(x, xv)], y
    return build


def _reduce_all(op_type):
    def build(rng):
        x, xv = ph(rng, dims(rng, 2), 0.5, 1.5)
        return [(x, xv)], _op(op_type, x, tf.constant([0, 1]), keep_dims=False)
    return build


def _cast(rng):
    x, xv = ph(rng, dims(rng, 2))
    return [(x, xv)], tf.cast(tf.cast(x, tf.float32), tf.float64) * 3.0, 2e-3


def _add_n(rng):
    shape = dims(rng, 2)
    pairs = [ph(rng, shape) for _ in range(3)]
    return pairs, tf.add_n([p[0] for p in pairs])


def _accumulate_n(rng):
    shape = dims(rng, 2)
    pairs = [ph(rng, shape) for _ in range(3)]
    return pairs, tf.accumulate_n([p[0] for p in pairs])


def _grad_helper(op_type, y_low=-0.9, y_high=0.9):
    def build(rng):
        shape = dims(rng, 2)
        y, yv = ph(rng, shape, y_low, y_high)
        dy, dyv = ph(rng, shape)
        return [(y, yv), (dy, dyv)], _op(op_type, y, dy)
    return build


def _scan(op_type, exclusive, reverse):
    def build(rng):
        x, xv = ph(rng, dims(rng, 2, 2, 4), 0.5, 1.5)
        axis = int(rng.integers(0, 2))
        return [(x, xv)], _op(op_type, x, tf.constant(axis), exclusive=exclusive,
                              reverse=reverse)
    return build


CASES = {
    "AddV2": [_binary("AddV2"), _add_unknown_shapes],
    "Add": _binary("Add"),
    "Sub": _binary("Sub"),
    "Mul": [_binary("Mul"), _binary("Mul", broadcast=False)],
    "RealDiv": _binary("RealDiv", y_range=(0.5, 1.5)),
    "Div": _binary("Div", y_range=(0.5, 1.5)),
    "DivNoNan": _binary("DivNoNan", y_range=(0.5, 1.5)),
    "FloorDiv": _binary("FloorDiv", x_range=(0.1, 0.4), y_range=(1.0, 1.2)),
    "TruncateDiv": _binary("TruncateDiv", x_range=(0.1, 0.4), y_range=(1.0, 1.2)),
    "FloorMod": _binary("FloorMod", x_range=(2.2, 2.8), y_range=(1.0, 1.05)),
    "Pow": _binary("Pow", x_range=(0.5, 1.5)),
    "Maximum": _maximum("Maximum"),
    "Minimum": _maximum("Minimum"),
    "SquaredDifference": _binary("SquaredDifference"),
    "Atan2": _binary("Atan2", x_range=(0.5, 1.0), y_range=(0.5, 1.0)),
    "Neg": _unary("Neg"),
    "Abs": _unary("Abs", values=away_from_zero),
    "Square": _unary("Square"),
    "Sqrt": _unary("Sqrt", 0.5, 1.5),
    "Rsqrt": _unary("Rsqrt", 0.5, 1.5),
    "Reciprocal": _unary("Reciprocal", 0.5, 1.5),
    "Inv": _unary("Inv", 0.5, 1.5),
    "Exp": _unary("Exp"),
    "Expm1": _unary("Expm1"),
    "Log": _unary("Log", 0.5, 1.5),
    "Log1p": _unary("Log1p", -0.5, 1.0),
    "Sin": _unary("Sin"),
    "Cos": _unary("Cos"),
    "Tan": _unary("Tan"),
    "Asin": _unary("Asin", -0.8, 0.8),
    "Acos": _unary("Acos", -0.8, 0.8),
    "Atan": _unary("Atan"),
    "Sinh": _unary("Sinh"),
    "Cosh": _unary("Cosh"),
    "Tanh": _unary("Tanh"),
    "Sigmoid": _unary("Sigmoid"),
    "Erf": _unary("Erf"),
    "Softplus": _unary("Softplus"),
    "Softsign": _unary("Softsign", values=away_from_zero),
    "Sign": _unary("Sign", values=away_from_zero),
    "Floor": _unary("Floor", 0.1, 0.4),
    "Ceil": _unary("Ceil", 0.1, 0.4),
    "Round": _unary("Round", 0.1, 0.4),
    "Rint": _unary("Rint", 0.1, 0.4),
    "Cast": _cast,
    "MatMul": [_matmul(False, False), _matmul(False, True), _matmul(True, False),
               _matmul(True, True)],
    "BatchMatMulV2": [_batch_matmul(False, False, True), _batch_matmul(True, True, False),
                      _batch_matmul(True, False, True), _batch_matmul(False, True, False)],
    "Sum": [_reduction("Sum"), _reduction("Sum", keepdims=True), _reduce_all("Sum"),
            _reduction("Sum", unknown=True)],
    "Mean": [_reduction("Mean"), _reduce_all("Mean"), _reduction("Mean", unknown=True)],
    "Prod": [_reduction("Prod"), _reduction("Prod", keepdims=True)],
    "EuclideanNorm": [_reduction("EuclideanNorm"), _reduction("EuclideanNorm", keepdims=True)],
    "Max": [_reduction("Max", values=distinct), _reduction("Max", values=distinct,
                                                             keepdims=True)],
    "Min": _reduction("Min", values=distinct, unknown=True),
    "AddN": _add_n,
    "AccumulateNV2": _accumulate_n,
    "TanhGrad": _grad_helper("TanhGrad"),
    "SigmoidGrad": _grad_helper("SigmoidGrad", 0.1, 0.9),
    "SqrtGrad": _grad_helper("SqrtGrad", 0.5, 1.5),
    "RsqrtGrad": _grad_helper("RsqrtGrad", 0.5, 1.5),
    "ReciprocalGrad": _grad_helper("ReciprocalGrad", 0.5, 1.5),
    "SoftplusGrad": _grad_helper("SoftplusGrad"),
    "Cumsum": [_scan("Cumsum", False, False), _scan("Cumsum", True, True)],
    "Cumprod": [_scan("Cumprod", False, False), _scan("Cumprod", True, False),
                _scan("Cumprod", False, True)],
}

del np
