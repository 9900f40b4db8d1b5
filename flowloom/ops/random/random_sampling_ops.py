"""Random ops that sample from their input: RandomShuffle and Multinomial (TF's seed rules)."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape
from flowloom.framework.tensor_util import constant_value
from flowloom.ops.random.random_ops import _generator, _seeded_attrs

RandomShuffle = defop("RandomShuffle", inputs=["value: T"], outputs=["output: T"],
                      attrs={"seed": 0, "seed2": 0}, stateful=True)
RandomShuffle.shape(lambda op: op._inputs[0]._shape)


@RandomShuffle.kernel
def _(xp, value, *, seed, seed2, ctx):
    if value.ndim == 0 or value.shape[0] <= 1:
        return value
    return value[_generator(ctx, seed, seed2).permutation(value.shape[0])]


RandomShuffle.no_gradient()


def random_shuffle(value, seed=None, name=None):
    """Shuffles `value` along its first dimension (op `RandomShuffle`)."""
    return apply_op("RandomShuffle", (value,), name=name, **_seeded_attrs(seed)).outputs[0]


Multinomial = defop("Multinomial", inputs=["logits: T", "num_samples: int32"],
                    outputs=["output: output_dtype"],
                    attrs={"seed": 0, "seed2": 0, "output_dtype": dtypes.int64},
                    stateful=True)


@Multinomial.shape
def _(op):
    logits = op._inputs[0]._shape
    if logits.ndims is not None and logits.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {logits.ndims}")
    n = constant_value(op._inputs[1])
    batch = logits.as_list()[0] if logits.ndims else None
    return TensorShape([batch, None if n is None else int(n)])


@Multinomial.kernel
def _(xp, logits, num_samples, *, seed, seed2, output_dtype, ctx):
    n = int(num_samples)
    if n < 0:
        raise errors.InvalidArgumentError(None, None,
                                          f"num_samples should be nonnegative, got {n}")
    batch, classes = logits.shape
    if classes == 0 and n:
        raise errors.InvalidArgumentError(None, None,
                                          "num_classes should be positive, got 0")
    gen = _generator(ctx, seed, seed2)
    # Gumbel-max over the logits: argmax(logits + Gumbel noise) is a categorical draw.
    logits64 = logits.astype(np.float64)
    logits64 = np.where(np.isneginf(logits64), -np.inf, logits64)
    noise = -np.log(-np.log(gen.random((batch, n, classes))))
    draws = np.argmax(logits64[:, None, :] + noise, axis=-1)
    return draws.astype(output_dtype.as_numpy_dtype)


Multinomial.no_gradient()


def multinomial(logits, num_samples, seed=None, name=None, output_dtype=None):
    """Draws `num_samples` class indices per row of `logits` (unnormalised log-probabilities).

    Args:
      logits: [batch, num_classes] tensor.
      num_samples: samples per row.
      seed: op seed.
      output_dtype: int32 or int64 (default).

    Returns:
      [batch, num_samples] tensor of class indices.
    """
    with name_scope(name, "multinomial", [logits]):
        logits = convert_to_tensor(logits, name="logits")
        return apply_op("Multinomial", (logits, num_samples),
                        output_dtype=dtypes.as_dtype(output_dtype or dtypes.int64),
                        **_seeded_attrs(seed)).outputs[0]


def categorical(logits, num_samples, dtype=None, seed=None, name=None):
    """`tf.random.categorical`: the same draws as `multinomial`."""
    with name_scope(name, "categorical", [logits]):
        logits = convert_to_tensor(logits, name="logits")
        return apply_op("Multinomial", (logits, num_samples),
                        output_dtype=dtypes.as_dtype(dtype or dtypes.int64),
                        **_seeded_attrs(seed)).outputs[0]
