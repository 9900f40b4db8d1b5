"""Random ops, seeded by TF's graph-seed / op-seed rules."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value_as_shape

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1


def get_seed(op_seed):
    """TF1's seed rules: the (graph seed, op seed) pair an op uses.

    No seeds: nondeterministic. A graph seed only: the op seed comes from the graph's op count,
    so the same program gives the same values. An op seed only: the graph seed is a default.
    """
    graph_seed = get_default_graph().seed
    if graph_seed is not None:
        if op_seed is None:
            op_seed = len(get_default_graph()._ops)
        seeds = (graph_seed, op_seed)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, op_seed)
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def set_random_seed(seed):
    """Sets the graph-level random seed of the default graph."""
    get_default_graph().seed = seed


def _generator(ctx, seed, seed2):
    gen = ctx.state.get("generator")
    if gen is None:
        if seed == 0 and seed2 == 0:
            gen = np.random.default_rng()
        else:
            gen = np.random.Generator(np.random.Philox(key=[seed & 0xFFFFFFFFFFFFFFFF,
                                                            seed2 & 0xFFFFFFFFFFFFFFFF]))
        ctx.state["generator"] = gen
    return gen


def _shape_fn(op):
    return constant_value_as_shape(op._inputs[0])


def _random_op(type_name, sample):
    od = defop(type_name, inputs=["shape: T"], outputs=["output: dtype"],
               attrs={"seed": 0, "seed2": 0}, stateful=True)
    od.shape(_shape_fn)
    od.no_gradient()

    @od.kernel
    def _(xp, shape, *, dtype, seed, seed2, ctx):
        gen = _generator(ctx, seed, seed2)
        return sample(gen, tuple(int(d) for d in shape)).astype(dtype.as_numpy_dtype)

    return od


def _truncated(gen, shape):
    out = gen.standard_normal(shape)
    bad = np.abs(out) > 2
    while bad.any():
        out[bad] = gen.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2
    return out


RandomStandardNormal = _random_op("RandomStandardNormal", lambda g, s: g.standard_normal(s))
RandomUniform = _random_op("RandomUniform", lambda g, s: g.random(s))
TruncatedNormal = _random_op("TruncatedNormal", _truncated)


def _seeded_attrs(seed):
    s1, s2 = get_seed(seed)
    return {"seed": s1 or 0, "seed2": s2 or 0}


def random_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a normal distribution."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "random_normal", [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        std_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op("RandomStandardNormal", (shape_t,), dtype=dtype,
                       **_seeded_attrs(seed)).outputs[0]
        return _mul_add(rnd, std_t, mean_t, scope)


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, seed=None, name=None):
    """Samples from a normal distribution cut at two standard deviations."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "truncated_normal", [shape, mean, stddev]) as scope:
        shape_t = _shape_tensor(shape)
        mean_t = convert_to_tensor(mean, dtype=dtype, name="mean")
        std_t = convert_to_tensor(stddev, dtype=dtype, name="stddev")
        rnd = apply_op("TruncatedNormal", (shape_t,), dtype=dtype,
                       **_seeded_attrs(seed)).outputs[0]
        return _mul_add(rnd, std_t, mean_t, scope)


def random_uniform(shape, minval=0, maxval=None, dtype=dtypes.float32, seed=None, name=None):
    """Samples uniformly from [minval, maxval)."""
    dtype = dtypes.as_dtype(dtype)
    if maxval is None:
        if dtype.is_integer:
            raise ValueError(f"Must specify maxval for integer dtype {dtype!r}")
        maxval = 1
    # TF skips the scaling ops for Python 0 and 1 (dropout's mask is the bare op).
    minval_is_zero = isinstance(minval, int) and minval == 0
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    with name_scope(name, "random_uniform", [shape, minval, maxval]) as scope:
        from flowloom.ops.math import math_ops

        shape_t = _shape_tensor(shape)
        if dtype.is_integer:
            raise NotImplementedError("random_uniform for integer dtypes (RandomUniformInt)")
        if not (minval_is_zero and maxval_is_one):
            lo = convert_to_tensor(minval, dtype=dtype, name="min")
            hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        rnd = apply_op("RandomUniform", (shape_t,), dtype=dtype, **_seeded_attrs(seed)).outputs[0]
        if minval_is_zero:
            return rnd if maxval_is_one else math_ops.multiply(rnd, hi)
        return math_ops.add(rnd * (hi - lo), lo, name=scope)


def _mul_add(rnd, std, mean, scope):
    # TF writes `rnd * stddev`, so the product is named "mul".
    from flowloom.ops.math import math_ops

    return math_ops.add(math_ops.multiply(rnd, std, name="mul"), mean, name=scope)


def _shape_tensor(shape):
    from flowloom.framework.ops import Tensor
    from flowloom.ops.array import array_ops

    if isinstance(shape, Tensor):
        return shape
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        return array_ops.stack(shape)
    return convert_to_tensor(list(shape) if not np.isscalar(shape) else [shape],
                             dtype=dtypes.int32, name="shape")
