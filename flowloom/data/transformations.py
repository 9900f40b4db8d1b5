"""tf.data.experimental's transformations (`dataset.apply(scan(...))`) and functions of a
dataset (`get_single_element`, `cardinality`), as TF 1.15 builds them.

    ds = tf.data.Dataset.range(10).apply(
        tf.data.experimental.scan(tf.constant(0, tf.int64), lambda s, x: (s + x, s)))
    ds = ds.apply(tf.data.experimental.group_by_window(
        key_func=lambda x: x % 2, reduce_func=lambda key, w: w.batch(2), window_size=2))
"""

import numpy as np

from flowloom.data import structure
from flowloom.data.dataset import Dataset, _spec_of, _types
from flowloom.data.functions import TracedFunction
from flowloom.framework import dtypes, nest
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.data import dataset_ops, experimental_ops  # noqa: F401 - registers ops
from flowloom.ops.data.experimental_values import INFINITE, UNKNOWN

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def trace(fn, input_spec, what):
    """`fn` traced for arguments of `input_spec`, registered with the default graph and
    written to its function library (as Dataset's own functions are)."""
    traced = TracedFunction(fn, input_spec, what)
    graph = get_default_graph()
    dataset_ops.register_function(graph, traced)
    traced.add_to_library(graph)
    return traced


def _scalar_spec(dtype):
    return structure.TensorSpec(dtype, [])


def _is_scalar(spec, dtype):
    flat = structure.flatten(spec)
    return len(flat) == 1 and isinstance(flat[0], structure.TensorSpec) and \
        flat[0].dtype == dtype and flat[0].shape.is_compatible_with([])


def scan(initial_state, scan_func):
    """`dataset.apply(scan(initial_state, scan_func))`: `scan_func(state, element)` returns
    `(new_state, output_element)`; the dataset of the output elements (op ScanDataset).

    Args:
      initial_state: a nested structure of tensors, the state before the first element.
      scan_func: maps (state, element) to (new state of the same structure and dtypes,
        output element).

    Raises:
      TypeError: `scan_func` does not return a pair, or its new state differs in structure
        or dtypes from `initial_state`.
    """
    def apply(dataset):
        state_spec, state = _spec_of(initial_state)

        def wrapped(state, element):
            out = scan_func(state, element)
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError("The scan function must return a pair comprising the new "
                                "state and the output value.")
            return tuple(out)

        # As TF: trace, and trace again with the shapes relaxed while the new state's
        # shapes are not those of the state it got.
        spec = state_spec
        while True:
            fn = trace(wrapped, (spec, dataset.element_spec), "scan")
            new_spec, out_spec = fn.output_spec
            try:
                nest.assert_same_structure(spec, new_spec, check_types=False)
            except (ValueError, TypeError) as e:
                raise TypeError(f"The element structure of the new state does not match the "
                                f"initial state: {e}") from None
            old_flat, new_flat = structure.flatten(spec), structure.flatten(new_spec)
            for a, b in zip(old_flat, new_flat):
                if a.dtype != b.dtype:
                    raise TypeError(f"The element types for the new state must match the "
                                    f"initial state. Expected {structure.types(spec)}; got "
                                    f"{structure.types(new_spec)}.")
            relaxed = structure.most_specific_common(spec, new_spec)
            if all(a.shape.as_list() == r.shape.as_list() if a.shape.ndims is not None
                   else r.shape.ndims is None
                   for a, r in zip(old_flat, structure.flatten(relaxed))):
                break
            spec = relaxed
        return dataset._apply("ScanDataset", (dataset._variant, state, fn.captured), out_spec,
                              f=fn.attr(), Tstate=[t.dtype.base_dtype for t in state],
                              Targuments=_types(fn), preserve_cardinality=True)
    return apply


def group_by_window(key_func, reduce_func, window_size=None, window_size_func=None):
    """`dataset.apply(group_by_window(key_func, reduce_func, window_size))`: elements grouped
    by `key_func(element)` (a scalar int64) into windows of `window_size` (or
    `window_size_func(key)`) elements, each window turned into a dataset by
    `reduce_func(key, window_dataset)`, whose elements are the output (op
    GroupByWindowDataset). Windows left at the end come out in ascending key order.

    Raises:
      ValueError: both or neither of `window_size` and `window_size_func` are given, or a
        function returns the wrong kind of value.
    """
    if (window_size is None) == (window_size_func is None):
        raise ValueError("Either the `window_size` argument or the `window_size_func` "
                         "argument must be specified.")
    if window_size is not None:
        def window_size_func(unused_key):
            return convert_to_tensor(window_size, dtype=dtypes.int64)

    def apply(dataset):
        def key_wrapper(*args):
            return convert_to_tensor(key_func(*args), dtype=dtypes.int64)

        key_fn = trace(key_wrapper, dataset.element_spec, "group_by_window_key_func")
        if not _is_scalar(key_fn.output_spec, dtypes.int64):
            raise ValueError(f"`key_func` must return a single tf.int64 tensor. Got type="
                             f"{structure.types(key_fn.output_spec)} and shape="
                             f"{structure.shapes(key_fn.output_spec)}")
        key_spec = _scalar_spec(dtypes.int64)
        reduce_fn = trace(reduce_func, (key_spec, structure.DatasetSpec(dataset.element_spec)),
                          "group_by_window_reduce_func")
        out = structure.flatten(reduce_fn.output_spec)
        if len(out) != 1 or not isinstance(out[0], structure.DatasetSpec):
            raise TypeError("`reduce_func` must return a `Dataset` object.")
        size_fn = trace(lambda key: convert_to_tensor(window_size_func(key),
                                                      dtype=dtypes.int64),
                        key_spec, "group_by_window_window_size_func")
        if not _is_scalar(size_fn.output_spec, dtypes.int64):
            raise ValueError("`window_size_func` must return a single tf.int64 scalar tensor.")
        return dataset._apply(
            "GroupByWindowDataset", (dataset._variant, key_fn.captured, reduce_fn.captured,
                                     size_fn.captured), out[0].element_spec,
            key_func=key_fn.attr(), reduce_func=reduce_fn.attr(),
            window_size_func=size_fn.attr(), Tkey_func_other_arguments=_types(key_fn),
            Treduce_func_other_arguments=_types(reduce_fn),
            Twindow_size_func_other_arguments=_types(size_fn))
    return apply


def bucket_by_sequence_length(element_length_func, bucket_boundaries, bucket_batch_sizes,
                              padded_shapes=None, padding_values=None,
                              pad_to_bucket_boundary=False, no_padding=False,
                              drop_remainder=False):
    """`dataset.apply(bucket_by_sequence_length(...))`: elements put in buckets by length
    (`element_length_func(element)`, bucket i holding lengths in [boundaries[i-1],
    boundaries[i])), each bucket batched `bucket_batch_sizes[i]` at a time, padded to the
    longest in the batch (`pad_to_bucket_boundary`: to the bucket's boundary - 1; `no_padding`:
    plain batches). Built on group_by_window, as in TF.

    Raises:
      ValueError: `len(bucket_batch_sizes) != len(bucket_boundaries) + 1`.
    """
    with name_scope("bucket_by_seq_length"):
        if len(bucket_batch_sizes) != len(bucket_boundaries) + 1:
            raise ValueError("len(bucket_batch_sizes) must equal len(bucket_boundaries) + 1")
        batch_sizes = convert_to_tensor(list(bucket_batch_sizes), dtype=dtypes.int64)

    def element_to_bucket_id(*args):
        import flowloom as tf

        seq_length = element_length_func(*args)
        boundaries = list(bucket_boundaries)
        buckets_min = [np.iinfo(np.int32).min] + boundaries
        buckets_max = boundaries + [np.iinfo(np.int32).max]
        conditions = tf.logical_and(tf.less_equal(buckets_min, seq_length),
                                    tf.less(seq_length, buckets_max))
        return tf.reduce_min(tf.where(conditions))

    def window_size_fn(bucket_id):
        return batch_sizes[bucket_id]

    def make_padded_shapes(shapes, none_filler=None):
        import flowloom as tf

        padded = []
        for shape in nest.flatten(shapes):
            dims = shape.as_list() if shape.ndims is not None else None
            if dims is None:
                raise ValueError("bucket_by_sequence_length needs elements of known rank to "
                                 "pad them")
            if none_filler is not None and None in dims:
                padded.append(tf.stack([tf.cast(none_filler, tf.int64) if d is None
                                        else tf.constant(d, tf.int64) for d in dims]))
            else:
                padded.append([-1 if d is None else d for d in dims])
        return nest.pack_sequence_as(shapes, padded)

    def batching_fn(bucket_id, grouped_dataset):
        import flowloom as tf

        batch_size = window_size_fn(bucket_id)
        if no_padding:
            return grouped_dataset.batch(batch_size, drop_remainder=drop_remainder)
        none_filler = None
        if pad_to_bucket_boundary:
            check = tf.assert_less(
                bucket_id, tf.constant(len(bucket_batch_sizes) - 1, dtype=tf.int64),
                message="When pad_to_bucket_boundary=True, elements must have length < "
                "max(bucket_boundaries).")
            with tf.control_dependencies([check]):
                boundaries = tf.constant(list(bucket_boundaries), dtype=tf.int64)
                none_filler = boundaries[bucket_id] - 1
        shapes = make_padded_shapes(
            padded_shapes if padded_shapes is not None else grouped_dataset.output_shapes,
            none_filler=none_filler)
        return grouped_dataset.padded_batch(batch_size, shapes, padding_values,
                                            drop_remainder=drop_remainder)

    def apply(dataset):
        if padded_shapes is not None:
            nest.assert_same_structure(dataset.output_shapes, padded_shapes)
        return dataset.apply(group_by_window(element_to_bucket_id, batching_fn,
                                             window_size_func=window_size_fn))
    return apply


def take_while(predicate):
    """`dataset.apply(take_while(predicate))`: the elements up to the first for which
    `predicate` is False (op TakeWhileDataset).

    Raises:
      ValueError: `predicate` does not return a scalar bool.
    """
    def apply(dataset):
        fn = dataset._trace(predicate, "take_while")
        if not _is_scalar(fn.output_spec, dtypes.bool_):
            raise ValueError("`predicate` must return a scalar boolean tensor.")
        return dataset._apply("TakeWhileDataset", (dataset._variant, fn.captured),
                              dataset.element_spec, predicate=fn.attr(),
                              Targuments=_types(fn))
    return apply


def unique():
    """`dataset.apply(unique())`: each element once, the first time it comes (op
    UniqueDataset); elements are single int32, int64 or string tensors.

    Raises:
      TypeError: the elements are of another kind.
    """
    def apply(dataset):
        flat = structure.flatten(dataset.element_spec)
        if len(flat) != 1 or flat[0].dtype not in (dtypes.int32, dtypes.int64, dtypes.string):
            raise TypeError("`tf.data.experimental.unique()` only supports inputs with a "
                            "single `tf.int32`, `tf.int64`, or `tf.string` component.")
        return dataset._apply("UniqueDataset", (dataset._variant,), dataset.element_spec)
    return apply


def enumerate_dataset(start=0):
    """`dataset.apply(enumerate_dataset(start))`: `(index, element)` pairs, the index
    counting from `start` (`dataset.enumerate(start)`)."""
    return lambda dataset: dataset.enumerate(start)


def Counter(start=0, step=1, dtype=dtypes.int64):  # noqa: N802 - TF's name
    """A dataset counting from `start` by `step`, forever (a scan over a repeated tensor,
    as TF builds it)."""
    with name_scope("counter"):
        start = convert_to_tensor(start, dtype=dtype, name="start")
        step = convert_to_tensor(step, dtype=dtype, name="step")
        return Dataset.from_tensors(0).repeat(None).apply(
            scan(start, lambda state, _: (state + step, state)))


def get_single_element(dataset):
    """The one element of `dataset`, as tensors (op DatasetToSingleElement); at run time an
    InvalidArgumentError if the dataset is empty or has more than one element.

    Raises:
      TypeError: `dataset` is not a Dataset.
    """
    if not isinstance(dataset, Dataset):
        raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
    if any(isinstance(s, structure.DatasetSpec) for s in structure.flatten(dataset.element_spec)):
        raise NotImplementedError("get_single_element of a dataset of datasets is not in "
                                  "flowloom")
    flat = apply_op("DatasetToSingleElement", (dataset._variant,),
                    **structure.op_attrs(dataset.element_spec)).outputs
    return structure.pack(dataset.element_spec, flat)


def cardinality(dataset):
    """The number of elements of `dataset` as a scalar int64 tensor: a count,
    INFINITE_CARDINALITY (-1) or UNKNOWN_CARDINALITY (-2) (op DatasetCardinality)."""
    return apply_op("DatasetCardinality", (dataset._variant,)).outputs[0]


class Reducer:
    """What `group_by_reducer` does per key: `init_func(key)` makes the state,
    `reduce_func(state, element)` folds an element into it, `finalize_func(state)` makes the
    output element."""

    def __init__(self, init_func, reduce_func, finalize_func):
        self._init_func, self._reduce_func = init_func, reduce_func
        self._finalize_func = finalize_func

    @property
    def init_func(self):
        return self._init_func

    @property
    def reduce_func(self):
        return self._reduce_func

    @property
    def finalize_func(self):
        return self._finalize_func


def group_by_reducer(key_func, reducer):
    """`dataset.apply(group_by_reducer(key_func, reducer))`: one output element per key
    (`key_func(element)`, a scalar int64), `reducer`'s fold of that key's elements, in
    ascending key order once the input ends (op ExperimentalGroupByReducerDataset).

    Raises:
      ValueError: `key_func` does not return a scalar int64.
      TypeError: `reduce_func`'s new state differs in structure or dtypes from the state.
    """
    def apply(dataset):
        key_fn = trace(lambda *args: convert_to_tensor(key_func(*args), dtype=dtypes.int64),
                       dataset.element_spec, "group_by_reducer_key_func")
        if not _is_scalar(key_fn.output_spec, dtypes.int64):
            raise ValueError(f"`key_func` must return a single tf.int64 tensor. Got type="
                             f"{structure.types(key_fn.output_spec)} and shape="
                             f"{structure.shapes(key_fn.output_spec)}")
        init_fn = trace(reducer.init_func, _scalar_spec(dtypes.int64),
                        "group_by_reducer_init_func")
        spec = init_fn.output_spec
        while True:  # as scan: traced again with the state's shapes relaxed
            reduce_fn = trace(lambda state, element: reducer.reduce_func(state, element),
                              (spec, dataset.element_spec), "group_by_reducer_reduce_func")
            new_spec = reduce_fn.output_spec
            try:
                nest.assert_same_structure(spec, new_spec, check_types=False)
            except (ValueError, TypeError) as e:
                raise TypeError(f"The element structure of the new state does not match the "
                                f"initial state: {e}") from None
            if structure.types(spec) != structure.types(new_spec):
                raise TypeError(f"The element types for the new state must match the initial "
                                f"state. Expected {structure.types(spec)}; got "
                                f"{structure.types(new_spec)}.")
            relaxed = structure.most_specific_common(spec, new_spec)
            if [str(s.shape) for s in structure.flatten(relaxed)] == \
                    [str(s.shape) for s in structure.flatten(spec)]:
                break
            spec = relaxed
        finalize_fn = trace(reducer.finalize_func, spec, "group_by_reducer_finalize_func")
        fns = {"key_func": key_fn, "init_func": init_fn, "reduce_func": reduce_fn,
               "finalize_func": finalize_fn}
        return dataset._apply(
            "ExperimentalGroupByReducerDataset",
            (dataset._variant,) + tuple(fn.captured for fn in fns.values()),
            finalize_fn.output_spec, **{k: fn.attr() for k, fn in fns.items()},
            **{f"T{k}_other_arguments": _types(fn) for k, fn in fns.items()})
    return apply


def get_structure(dataset_or_iterator):
    """The element structure (nested TensorSpecs) of a dataset or iterator.

    Raises:
      TypeError: the argument is neither.
    """
    from flowloom.data.iterator import Iterator

    if not isinstance(dataset_or_iterator, (Dataset, Iterator)):
        raise TypeError(f"`dataset_or_iterator` must be a Dataset or Iterator object, but got "
                        f"{type(dataset_or_iterator)}.")
    return dataset_or_iterator.element_spec


def to_variant(dataset):
    """The dataset's variant tensor (the output of its last dataset op)."""
    return dataset._variant


def from_variant(variant, structure):
    """A Dataset over `variant` (a dataset's variant tensor) with elements of `structure`
    (nested TensorSpecs, as `get_structure` gives)."""
    return Dataset._from_variant(variant, structure)
