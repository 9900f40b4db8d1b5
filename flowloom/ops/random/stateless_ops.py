"""Stateless random ops: the values are a function of the `seed` input alone (TF's
StatelessMultinomial; tf.data.experimental.sample_from_datasets draws with it)."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.random import philox
from flowloom.ops.random.random_sampling_ops import multinomial_draws

# TF scrambles the two seeds through one Philox block under this fixed key.
_SCRAMBLE_KEY = (0x3EC8F720, 0x02461E29)


def stateless_key(seed, op=None):
    """(key, counter) of TF's generator for a stateless op's `seed` (a shape-[2] tensor)."""
    seed = np.asarray(seed)
    if seed.shape != (2,):
        raise errors.InvalidArgumentError(
            None, op, f"seed must have shape [2], not {list(seed.shape)}")
    seed0, seed1 = (int(v) & ((1 << 64) - 1) for v in seed)
    mix = [int(w) for w in philox.blocks(_SCRAMBLE_KEY, seed0 | (seed1 << 64), 1)[0]]
    return (mix[0], mix[1]), (mix[2] | (mix[3] << 32)) << 64


StatelessMultinomial = defop(
    "StatelessMultinomial", inputs=["logits: T", "num_samples: int32", "seed: Tseed"],
    outputs=["output: output_dtype"],
    attrs={"T": None, "Tseed": dtypes.int64, "output_dtype": dtypes.int64})
StatelessMultinomial.no_gradient()


@StatelessMultinomial.shape
def _(op):
    logits = op._inputs[0]._shape
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.ndims} for "
                         f"'{op._name}' (op: 'StatelessMultinomial')")
    n = constant_value(op._inputs[1])
    return TensorShape([logits.as_list()[0] if logits.ndims else None,
                        None if n is None else int(n)])


@StatelessMultinomial.kernel
def _(xp, logits, num_samples, seed, *, T, Tseed, output_dtype, ctx):
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(None, ctx.op,
                                          f"num_samples should be nonnegative, got {n}")
    if logits.ndim != 2:
        raise errors.InvalidArgumentError(None, ctx.op, "logits should be a matrix, got "
                                          f"shape {list(logits.shape)}")
    batch, classes = logits.shape
    if classes == 0 and n:
        raise errors.InvalidArgumentError(None, ctx.op, "num_classes should be positive, got 0")
    out = np.zeros((batch, n), output_dtype.as_numpy_dtype)
    if out.size == 0:
        return out
    key, counter = stateless_key(seed, ctx.op)
    return multinomial_draws(key, counter, logits, n, out)
