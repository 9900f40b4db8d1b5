"""Candidate samplers (uniform, log-uniform, all) and ComputeAccidentalHits, drawing TF's
numbers: each run takes the op's Philox stream at its counter and moves the counter on by
2048 * num_sampled words, as TF's kernel reserves them; candidates come one after another
(uint32 words in SingleSampleAdapter order), unique ones by rejection."""

import math

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.tensor_shape import TensorShape
from flowloom.ops.random import philox
from flowloom.ops.random.random_ops import _seeded_attrs, philox_state

_SAMPLER_ATTRS = {"num_true": 1, "num_sampled": 1, "unique": True, "range_max": 1,
                  "seed": 0, "seed2": 0}


def _sampler_shape(op):
    true = op._inputs[0]._shape
    batch = true[0] if true.ndims is not None else None
    n = op._attrs["num_sampled"]
    return [TensorShape([n]), TensorShape([batch, op._attrs["num_true"]]), TensorShape([n])]


def _log_uniform_draw(words, range_max):
    """LogUniformSampler::Sample on pairs of words: floor(exp(u * log1p(range))) - 1."""
    u = philox.uint64_to_double(words[0::2], words[1::2])
    value = np.exp(u * math.log1p(range_max)).astype(np.int64) - 1
    return value % range_max, 2


def _log_uniform_probability(values, range_max):
    v = values.astype(np.float64)
    return (np.log((v + 2.0) / (v + 1.0)) / math.log1p(range_max)).astype(np.float32)


def _uniform_draws(words, range_max):
    """SimplePhilox::Uniform64: 64-bit words (lo, hi), rejection below 2**64 mod n."""
    n = int(range_max)
    pairs = (words[0::2].astype(np.uint64) | (words[1::2].astype(np.uint64) << np.uint64(32)))
    if n & (n - 1) == 0:
        return (pairs & np.uint64(n - 1)).astype(np.int64), None
    rem = np.uint64(((2**64 - 1) % n) + 1)
    keep = pairs >= rem
    return (pairs % np.uint64(n)).astype(np.int64), keep


def _sample(state, num_sampled, unique, range_max, kind):
    """(candidates, num_tries) as TF's RangeSampler picks them."""
    counter = state.reserve((2048 * num_sampled + 3) // 4)
    need = num_sampled
    chunk = max(64, 4 * num_sampled)
    while True:
        words = philox.uint32_stream(state.key, counter, 2 * chunk)
        if kind == "log_uniform":
            values, _ = _log_uniform_draw(words, range_max)
            keep = None
        else:
            values, keep = _uniform_draws(words, range_max)
        # Each try is one 64-bit draw; uniform rejections are not tries of the sampler's
        # loop but extra draws inside one Sample call.
        if keep is not None:
            values = values[keep]
        if not unique:
            if values.size >= need:
                return values[:need], need
        else:
            _, first = np.unique(values, return_index=True)
            if first.size >= need:
                first.sort()
                picked = first[:need]
                return values[picked], int(picked[-1]) + 1
        chunk *= 4


def _candidate_sampler(op_type, kind):
    od = defop(op_type, inputs=["true_classes: int64"],
               outputs=["sampled_candidates: int64", "true_expected_count: float32",
                        "sampled_expected_count: float32"],
               attrs=dict(_SAMPLER_ATTRS), stateful=True)
    od.shape(_sampler_shape)

    @od.kernel
    def _(xp, true_classes, *, num_true, num_sampled, unique, range_max, seed, seed2, ctx):
        if true_classes.ndim != 2:
            raise errors.InvalidArgumentError(None, None, "true_classes must be a matrix")
        if true_classes.shape[1] != num_true:
            raise errors.InvalidArgumentError(
                None, None, f"true_classes must have num_true columns, expected: "
                f"{true_classes.shape[1]} was: {num_true}")
        if unique and num_sampled > range_max:
            raise errors.InvalidArgumentError(None, None, "Sampler's range is too small.")
        state = philox_state(ctx, seed, seed2)
        sampled, tries = _sample(state, num_sampled, unique, range_max, kind)
        if kind == "log_uniform":
            p_sampled = _log_uniform_probability(sampled, range_max)
            p_true = _log_uniform_probability(true_classes, range_max)
        else:
            p_sampled = np.full(sampled.shape, 1.0 / range_max, np.float32)
            p_true = np.full(true_classes.shape, 1.0 / range_max, np.float32)
        return sampled, _expected(p_true, num_sampled, tries), _expected(p_sampled, num_sampled,
                                                                        tries)

    od.no_gradient()
    return od


def _expected(p, batch_size, num_tries):
    p = np.asarray(p, np.float32)
    if num_tries == batch_size:
        return p * np.float32(batch_size)
    with np.errstate(divide="ignore"):
        return (-np.expm1(np.float32(num_tries) * np.log1p(-p))).astype(np.float32)


LogUniformCandidateSampler = _candidate_sampler("LogUniformCandidateSampler", "log_uniform")
UniformCandidateSampler = _candidate_sampler("UniformCandidateSampler", "uniform")

AllCandidateSampler = defop(
    "AllCandidateSampler", inputs=["true_classes: int64"],
    outputs=["sampled_candidates: int64", "true_expected_count: float32",
             "sampled_expected_count: float32"],
    attrs={"num_true": 1, "num_sampled": 1, "unique": True, "seed": 0, "seed2": 0},
    stateful=True)
AllCandidateSampler.shape(_sampler_shape)


@AllCandidateSampler.kernel
def _(xp, true_classes, *, num_true, num_sampled, unique, seed, seed2):
    return (np.arange(num_sampled, dtype=np.int64), np.ones(true_classes.shape, np.float32),
            np.ones((num_sampled,), np.float32))


AllCandidateSampler.no_gradient()


def _sampler(op_type, true_classes, num_true, num_sampled, unique, name, seed, **attrs):
    from flowloom.framework.ops import convert_to_tensor

    true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64, name="true_classes")
    return tuple(apply_op(op_type, (true_classes,), name=name, num_true=int(num_true),
                          num_sampled=int(num_sampled), unique=bool(unique),
                          **attrs, **_seeded_attrs(seed)).outputs)


def log_uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max,
                                  seed=None, name=None):
    """Samples `num_sampled` classes from [0, range_max) with P(k) ∝ log((k+2)/(k+1)) (Zipf-like
    for classes sorted by decreasing frequency).

    Returns:
      (sampled_candidates [num_sampled] int64, true_expected_count [batch, num_true],
       sampled_expected_count [num_sampled]) — the expected counts are float32.
    """
    return _sampler("LogUniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                    name, seed, range_max=int(range_max))


def uniform_candidate_sampler(true_classes, num_true, num_sampled, unique, range_max, seed=None,
                              name=None):
    """Samples `num_sampled` classes uniformly from [0, range_max); see
    log_uniform_candidate_sampler for the outputs."""
    return _sampler("UniformCandidateSampler", true_classes, num_true, num_sampled, unique,
                    name, seed, range_max=int(range_max))


def all_candidate_sampler(true_classes, num_true, num_sampled, unique, seed=None, name=None):
    """Every class of [0, num_sampled), each with expected count 1."""
    return _sampler("AllCandidateSampler", true_classes, num_true, num_sampled, unique, name,
                    seed)


ComputeAccidentalHits = defop(
    "ComputeAccidentalHits", inputs=["true_classes: int64", "sampled_candidates: int64"],
    outputs=["indices: int32", "ids: int64", "weights: float32"],
    attrs={"num_true": 1, "seed": 0, "seed2": 0})
ComputeAccidentalHits.shape(lambda op: [TensorShape([None])] * 3)


@ComputeAccidentalHits.kernel
def _(xp, true_classes, sampled, *, num_true):
    if true_classes.ndim != 2 or true_classes.shape[1] != num_true:
        raise errors.InvalidArgumentError(
            None, None, "true_candidates must be a batch_size * num_true matrix")
    if sampled.ndim != 1:
        raise errors.InvalidArgumentError(
            None, None, "sampled_candidates must be a vector, which is typically an output "
            "from CandidateSampler")
    position = {int(c): i for i, c in enumerate(sampled.tolist())}  # the last one wins
    indices, ids = [], []
    for i, row in enumerate(true_classes.tolist()):
        for c in row:
            if c in position:
                indices.append(i)
                ids.append(position[c])
    return (np.asarray(indices, np.int32), np.asarray(ids, np.int64),
            np.full(len(ids), -np.finfo(np.float32).max, np.float32))


ComputeAccidentalHits.no_gradient()


def compute_accidental_hits(true_classes, sampled_candidates, num_true, seed=None, name=None):
    """Where a sampled candidate equals one of a row's true classes: (indices, ids, weights
    = -FLT_MAX), to be added to the sampled logits."""
    from flowloom.framework.ops import convert_to_tensor

    true_classes = convert_to_tensor(true_classes, dtype=dtypes.int64)
    return tuple(apply_op("ComputeAccidentalHits", (true_classes, sampled_candidates),
                          name=name, num_true=int(num_true), **_seeded_attrs(seed)).outputs)
