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
from flowloom.ops.random import philox
from flowloom.ops.random.random_ops import _seeded_attrs, philox_state

RandomShuffle = defop("RandomShuffle", inputs=["value: T"], outputs=["output: T"],
                      attrs={"seed": 0, "seed2": 0}, stateful=True)
RandomShuffle.shape(lambda op: op._inputs[0]._shape)


@RandomShuffle.kernel
def _(xp, value, *, seed, seed2, ctx):
    if value.size <= 1 or value.shape[0] <= 1:
        return value
    state = philox_state(ctx, seed, seed2)
    return value[shuffle_permutation(state, value.shape[0])]


def shuffle_permutation(state, n):
    """TF's RandomShuffle order: Fisher-Yates swapping i with i + word % (n - i), one uint32
    word per step from the op's Philox stream (n - 1 words reserved in 4-word blocks)."""
    counter = state.reserve((n - 1 + 3) // 4)
    words = philox.uint32_stream(state.key, counter, n - 1).astype(np.uint64)
    left = np.arange(n, 1, -1, dtype=np.uint64)  # n - i for i = 0 .. n-2
    targets = (np.arange(n - 1, dtype=np.uint64) + words % left).tolist()
    perm = list(range(n))
    for i, j in enumerate(targets):
        perm[i], perm[j] = perm[j], perm[i]
    return np.asarray(perm, np.int64)


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
    out = np.zeros((batch, n), output_dtype.as_numpy_dtype)
    if out.size == 0:
        return out
    state = philox_state(ctx, seed, seed2)
    # TF reserves room for doubles (2 words each) per sample, samples rounded up to 4.
    counter = state.reserve_outputs(batch * ((n + 3) // 4 * 4) * 2)
    return multinomial_draws(state.key, counter, logits, n, out)


def multinomial_draws(key, counter, logits, n, out):
    """TF's CPU sampler, run as one shard (as TF does unless batch * cost is large): each
    row's unnormalised CDF of exp(logit - max) over the finite logits, searched with a
    uniform double (two words from the op's stream) times the total."""
    batch = logits.shape[0]
    words = philox.uint32_stream(key, counter, 2 * n * batch).reshape(batch, n, 2)
    uniforms = philox.uint64_to_double(words[..., 0], words[..., 1])
    finite = np.isfinite(logits)
    for b in range(batch):
        row = logits[b]
        top = row[finite[b]].max() if finite[b].any() else np.finfo(row.dtype).min
        with np.errstate(over="ignore", invalid="ignore"):
            weights = np.exp(row.astype(np.float64) - np.float64(top))
        cdf = np.cumsum(np.where(finite[b], weights, 0.0))
        out[b] = np.searchsorted(cdf, uniforms[b] * cdf[-1], side="right")
    return out


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
