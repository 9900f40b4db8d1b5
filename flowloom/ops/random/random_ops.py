"""Random ops, seeded by TF's graph-seed / op-seed rules."""

import math
import os
import weakref

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value_as_shape
from flowloom.ops.random import philox

DEFAULT_GRAPH_SEED = 87654321
_MAXINT32 = 2**31 - 1
# Graph -> how many ops have taken a default op seed (TF 2.x's rule).
_graph_to_seed_count = weakref.WeakKeyDictionary()


def seed_rules():
    """Which TF release's rule picks the op seed under a graph seed: "2" or "1".

    TF 2.x (compat.v1) counts the random ops that took a default seed in the graph; TF 1.x
    used the number of ops created so far. Set FLOWLOOM_SEED_RULES=1 to follow TF 1.15.
    """
    return "1" if os.environ.get("FLOWLOOM_SEED_RULES", "2").strip().startswith("1") else "2"


def get_seed(op_seed):
    """TF's seed rules: the (graph seed, op seed) pair an op uses.

    No seeds: nondeterministic (None, None). A graph seed only: the op seed is derived from
    the graph, so the same program gives the same values. An op seed only: the graph seed is
    a default. Both are taken modulo 2**31 - 1, and (0, 0) becomes (0, 2**31 - 1).
    """
    graph = get_default_graph()
    graph_seed = graph.seed
    if graph_seed is not None:
        if op_seed is None:
            if seed_rules() == "1":
                op_seed = graph.version
            else:
                op_seed = _graph_to_seed_count.setdefault(graph, 0)
                _graph_to_seed_count[graph] += 1
        seeds = (int(graph_seed) % _MAXINT32, int(op_seed) % _MAXINT32)
    elif op_seed is not None:
        seeds = (DEFAULT_GRAPH_SEED, int(op_seed) % _MAXINT32)
    else:
        seeds = (None, None)
    if seeds == (0, 0):
        return (0, _MAXINT32)
    return seeds


def set_random_seed(seed):
    """Sets the graph-level random seed of the default graph."""
    get_default_graph().seed = seed


def philox_state(ctx, seed, seed2):
    """The op's Philox generator for this session (TF keeps one per kernel instance)."""
    state = ctx.state.get("philox")
    if state is None:
        # Two threads may run the op's first step at once (two queue runners): setdefault
        # keeps the first generator made, so both draw from one stream.
        state = ctx.state.setdefault("philox", philox.PhiloxState(int(seed), int(seed2)))
    return state


def _shape_fn(op):
    return constant_value_as_shape(op._inputs[0])


def _out_size(shape):
    if np.ndim(shape) != 1:
        raise errors.InvalidArgumentError(
            None, None, "shape must be a vector of {int32,int64}, got shape "
            "[" + ",".join(str(d) for d in np.shape(shape)) + "]")
    dims = tuple(np.asarray(shape).reshape(-1).tolist())
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(None, None, f"Shape {list(dims)} has negative dimensions")
    return dims, math.prod(dims)


def _random_op(type_name, sample, takes_words=False):
    od = defop(type_name, inputs=["shape: T"], outputs=["output: dtype"],
               attrs={"seed": 0, "seed2": 0}, stateful=True)
    od.shape(_shape_fn)
    od.no_gradient()

    @od.kernel
    def _(xp, shape, *, dtype, seed, seed2, ctx):
        dims, size = _out_size(shape)
        np_dtype = dtype.as_numpy_dtype
        if np_dtype is None:
            raise NotImplementedError(f"{type_name} for dtype {dtype.name}")
        state = philox_state(ctx, seed, seed2)
        nblocks = philox.small_draw(np_dtype, size) if takes_words else 0
        if nblocks:  # a small draw: its words may have been computed ahead
            counter, words = state.reserve_words(size, nblocks)
            values = sample(state.key, counter, size, np_dtype, words)
        else:
            values = sample(state.key, state.reserve_outputs(size), size, np_dtype)
        return xp.asarray(values.astype(np_dtype, copy=False).reshape(dims))

    if takes_words:
        _.specialize = _specialize_uniform
    return od


def _bound_attrs(general):
    """The attrs and context a bound random kernel was given (None if it is no partial)."""
    kw = getattr(general, "keywords", None)
    return kw if kw and "ctx" in kw else None


def _specialize_uniform(op, consts, general):
    """A constant shape of a small float32 draw (a scalar per example): the size and the
    blocks are worked out once; each run reserves its counter and converts its words."""
    kw = _bound_attrs(general)
    if kw is None or consts[0] is None:
        return None
    try:
        dims, size = _out_size(consts[0])
    except errors.OpError:
        return None
    np_dtype = kw["dtype"].as_numpy_dtype
    nblocks = philox.small_draw(np_dtype, size) if np_dtype is not None else 0
    if not nblocks:
        return None
    ctx, seed, seed2 = kw["ctx"], kw["seed"], kw["seed2"]

    def draw_uniform(shape):
        state = philox_state(ctx, seed, seed2)
        counter, words = state.reserve_words(size, nblocks)
        return philox.uniform(state.key, counter, size, np_dtype, words).reshape(dims)
    return draw_uniform


RandomStandardNormal = _random_op("RandomStandardNormal", philox.normal)
RandomUniform = _random_op("RandomUniform", philox.uniform, takes_words=True)
TruncatedNormal = _random_op("TruncatedNormal", philox.truncated_normal)

RandomUniformInt = defop("RandomUniformInt", inputs=["shape: T", "minval: Tout", "maxval: Tout"],
                         outputs=["output: Tout"], attrs={"seed": 0, "seed2": 0},
                         stateful=True)


@RandomUniformInt.shape
def _(op):
    for t in op._inputs[1:]:
        if t._shape.ndims not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t._shape.ndims}")
    return _shape_fn(op)


RandomUniformInt.no_gradient()


@RandomUniformInt.kernel
def _(xp, shape, minval, maxval, *, Tout, seed, seed2, ctx):
    for arg, value in (("minval", minval), ("maxval", maxval)):
        if np.ndim(value) != 0:
            raise errors.InvalidArgumentError(
                None, None, f"{arg} must be 0-D, got shape {list(np.shape(value))}")
    dims, size = _out_size(shape)
    lo, hi = int(minval), int(maxval)
    if size and lo >= hi:
        raise errors.InvalidArgumentError(None, None, f"Need minval < maxval, got {lo} >= {hi}")
    state = philox_state(ctx, seed, seed2)
    np_dtype = Tout.as_numpy_dtype
    nblocks = philox.small_draw(np_dtype, size)
    if nblocks:  # a small draw: its words may have been computed ahead
        counter, words = state.reserve_words(size, nblocks)
    else:
        counter, words = state.reserve_outputs(size), None
    if not size:
        return xp.zeros(dims, np_dtype)
    return xp.asarray(philox.uniform_int(state.key, counter, size, lo, hi, np_dtype,
                                         words).reshape(dims))


def _specialize_uniform_int(op, consts, general):
    """Constant shape and bounds of a small int32 draw (a crop's offsets): checked once."""
    kw = _bound_attrs(general)
    if kw is None or any(c is None for c in consts):
        return None
    shape, minval, maxval = consts
    if np.ndim(minval) or np.ndim(maxval):
        return None
    try:
        dims, size = _out_size(shape)
    except errors.OpError:
        return None
    lo, hi = int(minval), int(maxval)
    np_dtype = kw["Tout"].as_numpy_dtype
    nblocks = philox.small_draw(np_dtype, size)
    if not nblocks or lo >= hi:
        return None
    ctx, seed, seed2 = kw["ctx"], kw["seed"], kw["seed2"]

    def draw_uniform_int(shape, minval, maxval):
        state = philox_state(ctx, seed, seed2)
        counter, words = state.reserve_words(size, nblocks)
        return philox.uniform_int(state.key, counter, size, lo, hi, np_dtype,
                                  words).reshape(dims)
    return draw_uniform_int


RandomUniformInt.kernel_fn.specialize = _specialize_uniform_int


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
    # TF 2.x skips the scaling ops for Python 0 and 1 (dropout's mask is the bare op);
    # TF 1.x always made them (which moves its default op seeds).
    minval_is_zero = isinstance(minval, int) and minval == 0
    maxval_is_one = isinstance(maxval, int) and maxval == 1
    bare = minval_is_zero and maxval_is_one and seed_rules() == "2"
    # Python numbers and an int shape (an initializer's arguments) name no graph: the scope
    # need not look for one among them.
    py_bounds = minval.__class__ in _PY_NUMBERS and maxval.__class__ in _PY_NUMBERS
    int_shape = _is_int_list(shape)
    with name_scope(name, "random_uniform",
                    None if py_bounds and int_shape else [shape, minval, maxval]) as scope:
        shape_t = _shape_tensor(shape, int_shape)
        if not bare or dtype.is_integer:
            if py_bounds and dtype.is_floating:  # (the Consts convert_to_tensor would make)
                from flowloom.ops.array.array_ops import constant

                lo = constant(minval, dtype=dtype, name="min")
                hi = constant(maxval, dtype=dtype, name="max")
            else:
                lo = convert_to_tensor(minval, dtype=dtype, name="min")
                hi = convert_to_tensor(maxval, dtype=dtype, name="max")
        attrs = _seeded_attrs(seed)
        if dtype.is_integer:
            return apply_op("RandomUniformInt", (shape_t, lo, hi), name=scope,
                            **attrs).outputs[0]
        rnd = apply_op("RandomUniform", (shape_t,), dtype=dtype, **attrs)._outputs[0]
        if bare:
            return rnd
        if minval_is_zero and seed_rules() == "2":
            return _math_ops().multiply(rnd, hi)
        # `rnd * (maxval - minval) + minval` as TF writes it: Sub "sub", Mul "mul", Add.
        scaled = apply_op("Mul", (rnd, apply_op("Sub", (hi, lo), name="sub")._outputs[0]),
                          name="mul")._outputs[0]
        return apply_op("Add", (scaled, lo), name=scope)._outputs[0]


def _mul_add(rnd, std, mean, scope):
    # TF writes `rnd * stddev`, so the product is named "mul".
    from flowloom.ops.math import math_ops

    return math_ops.add(math_ops.multiply(rnd, std, name="mul"), mean, name=scope)


def _math_ops():
    global _math_ops_module
    if _math_ops_module is None:  # imported late: math_ops is built on this module's users
        from flowloom.ops.math import math_ops as _math_ops_module
    return _math_ops_module


_math_ops_module = None


_PY_NUMBERS = (int, float)


def _is_int_list(shape):
    """Whether `shape` is a list or tuple of Python ints in int32's range."""
    return type(shape) in (list, tuple) and all(type(d) is int and -_MAXINT32 <= d <= _MAXINT32
                                                for d in shape)


def _shape_tensor(shape, int_list=None):
    """The shape tensor of a random op (`int_list`: `_is_int_list(shape)`, when known)."""
    if isinstance(shape, Tensor):
        return shape
    if _is_int_list(shape) if int_list is None else int_list:
        # Python ints in int32's range (an initializer's shape.as_list()): the int32 Const
        # the general path below would make.
        from flowloom.ops.array.array_ops import constant

        return constant(list(shape), dtype=dtypes.int32, name="shape")
    if isinstance(shape, (list, tuple)) and any(isinstance(d, Tensor) for d in shape):
        from flowloom.ops.array import array_ops

        return array_ops.stack(shape)
    if isinstance(shape, TensorShape):
        # As TF: its own conversion (int32, or int64 for a dimension over int32's range).
        return convert_to_tensor(shape, name="shape")
    # int32, or int64 when a dimension needs it (TF's _ShapeTensor infers the type).
    shape = list(shape) if not np.isscalar(shape) else [shape]
    return convert_to_tensor(shape, dtype=None if shape else dtypes.int32, name="shape")
