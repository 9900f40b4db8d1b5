"""tf.data.experimental's random and directed sources: `RandomDataset`,
`sample_from_datasets` and `choose_from_datasets`, built as TF 1.15 builds them (so a
seeded program yields TF's order).

    ds = tf.data.experimental.sample_from_datasets([a, b], weights=[0.8, 0.2], seed=1)
"""

from flowloom.data import structure
from flowloom.data.dataset import Dataset
from flowloom.framework import dtypes, nest
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.data import experimental_ops  # noqa: F401 - registers the ops
from flowloom.ops.random import stateless_ops  # noqa: F401 - registers StatelessMultinomial

_MAXINT32 = 2 ** 31 - 1


def dataset_seeds(seed):
    """The (seed, seed2) int64 tensors of a random dataset op, as TF 1.15's tf.data makes
    them: the graph/op seed pair, where seed2 becomes 2**31 - 1 when both are 0 (so that
    explicit zeros do not mean "nondeterministic")."""
    import flowloom as tf
    from flowloom.ops.random.random_ops import get_seed

    seed, seed2 = get_seed(seed)
    if seed is None:
        seed_t = tf.constant(0, dtype=tf.int64, name="seed")
    else:
        seed_t = convert_to_tensor(seed, dtype=dtypes.int64, name="seed")
    if seed2 is None:
        return seed_t, tf.constant(0, dtype=tf.int64, name="seed2")
    with name_scope("seed2") as scope:
        seed2_t = convert_to_tensor(seed2, dtype=dtypes.int64)
        return seed_t, tf.where(tf.logical_and(tf.equal(seed_t, 0), tf.equal(seed2_t, 0)),
                                tf.constant(_MAXINT32, dtype=tf.int64), seed2_t, name=scope)


class RandomDataset(Dataset):
    """A dataset of pseudo-random int64 scalars (uint32 values, TF's Philox stream for the
    seed), forever (op RandomDataset).

    Args:
      seed: op seed (with the graph seed, TF's seed rules); None: nondeterministic.
    """

    def __init__(self, seed=None):
        seed, seed2 = dataset_seeds(seed)
        spec = structure.TensorSpec(dtypes.int64, [])
        variant = apply_op("RandomDataset", (seed, seed2), **structure.op_attrs(spec)).outputs[0]
        super().__init__(variant, spec)


def _common_spec(datasets):
    spec = datasets[0].element_spec
    for d in datasets[1:]:
        try:
            nest.assert_same_structure(spec, d.element_spec, check_types=False)
        except (ValueError, TypeError):
            raise TypeError(f"Datasets must have the same structure: {datasets[0].output_types}"
                            f" and {d.output_types}") from None
        if structure.types(spec) != structure.types(d.element_spec):
            raise TypeError(f"Datasets must have the same type: {datasets[0].output_types} "
                            f"and {d.output_types}")
        spec = structure.most_specific_common(spec, d.element_spec)
    return spec


def _directed_interleave(selector, datasets):
    spec = _common_spec(datasets)
    variant = apply_op("DirectedInterleaveDataset",
                       (selector._variant, [d._variant for d in datasets]), N=len(datasets),
                       **structure.op_attrs(spec)).outputs[0]
    return Dataset(variant, spec)


def _map_no_parallelism(dataset, fn_body, what):
    fn = dataset._trace(fn_body, what)
    return dataset._apply("MapDataset", (dataset._variant, fn.captured), fn.output_spec,
                          f=fn.attr(), Targuments=[t.dtype.base_dtype for t in fn.captured],
                          use_inter_op_parallelism=False)


def sample_from_datasets(datasets, weights=None, seed=None):
    """Elements drawn at random from `datasets`, input i with probability `weights[i]`
    (uniform when None; a dataset of weight vectors changes them per element), until the
    last input ends.

    Args:
      datasets: a non-empty list of datasets of one structure.
      weights: a list or tensor of `len(datasets)` floats, or a dataset of such vectors.
      seed: op seed of the draws.

    Raises:
      TypeError: `weights` is not a float vector of length `len(datasets)`.
    """
    import flowloom as tf

    num = len(datasets)
    if not num:
        raise ValueError("`datasets` must be a non-empty list of datasets.")
    if not isinstance(weights, Dataset):
        if weights is None:
            logits = [[1.0] * num]
        else:
            weights = convert_to_tensor(weights, name="weights")
            if weights.dtype not in (dtypes.float32, dtypes.float64):
                raise TypeError("`weights` must be convertible to a tensor of `tf.float32` or "
                                "`tf.float64` elements.")
            if not weights.get_shape().is_compatible_with([num]):
                raise TypeError("`weights` must be a vector of length `len(datasets)`.")
            logits = tf.expand_dims(tf.log(weights, name="logits"), 0)

        def select_dataset_constant_logits(seed):
            return tf.squeeze(_stateless_multinomial(logits, seed), axis=[0, 1])

        selector = _map_no_parallelism(RandomDataset(seed).batch(2),
                                       select_dataset_constant_logits,
                                       "select_dataset_constant_logits")
    else:
        spec = structure.flatten(weights.element_spec)
        if len(spec) != 1 or spec[0].dtype not in (dtypes.float32, dtypes.float64) or \
                not spec[0].shape.is_compatible_with([num]):
            raise TypeError("`weights` must be a dataset of vectors of length "
                            "`len(datasets)`, of `tf.float32` or `tf.float64` elements.")

        def normalize(probs):
            return tf.expand_dims(tf.log(probs / tf.reduce_sum(probs)), 0)

        def select_dataset_varying_logits(logits, seed):
            return tf.squeeze(_stateless_multinomial(logits, seed), axis=[0, 1])

        pairs = Dataset.zip((weights.map(normalize), RandomDataset(seed).batch(2)))
        selector = _map_no_parallelism(pairs, select_dataset_varying_logits,
                                       "select_dataset_varying_logits")
    return _directed_interleave(selector, list(datasets))


def _stateless_multinomial(logits, seed):
    logits = convert_to_tensor(logits, name="logits")
    return apply_op("StatelessMultinomial",
                    (logits, convert_to_tensor(1, dtype=dtypes.int32), seed),
                    T=logits.dtype.base_dtype, Tseed=dtypes.int64,
                    output_dtype=dtypes.int64).outputs[0]


def choose_from_datasets(datasets, choice_dataset):
    """The element of `datasets[i]` for each `i` of `choice_dataset` (scalar int64s); an
    exhausted input's turns are skipped.

    Raises:
      TypeError: `choice_dataset` is not a dataset of scalar int64s.
    """
    flat = structure.flatten(choice_dataset.element_spec) \
        if isinstance(choice_dataset, Dataset) else []
    if len(flat) != 1 or flat[0].dtype != dtypes.int64 or \
            not flat[0].shape.is_compatible_with([]):
        raise TypeError("`choice_dataset` must be a dataset of scalar `tf.int64` tensors.")
    return _directed_interleave(choice_dataset, list(datasets))

