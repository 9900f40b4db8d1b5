"""`tf.data.Dataset`: input pipelines as graph ops (TensorSliceDataset, MapDataset, ...).

    dataset = tf.data.TFRecordDataset(files).map(parse, num_parallel_calls=4)
    dataset = dataset.shuffle(1000).batch(32).repeat().prefetch(1)
    images, labels = dataset.make_one_shot_iterator().get_next()

Each method adds the dataset op to the default graph at once (as TF1 does) and returns a new
Dataset; iterators (flowloom/data/iterator.py) pull its elements inside Session.run.
"""

import numpy as np

from flowloom.data import structure
from flowloom.data.functions import GeneratorFunction, TracedFunction
from flowloom.data.options import Options
from flowloom.framework import dtypes, nest
from flowloom.framework.apply_op import apply_op
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, as_shape
from flowloom.ops.data import dataset_ops, iterator_ops  # noqa: F401 - registers the ops

AUTOTUNE = -1


def _i64(x, name):
    return convert_to_tensor(x, dtype=dtypes.int64, name=name)


def _spec_of(value):
    """(spec, flat tensors) for a nested structure of tensors/arrays/Python values."""
    if isinstance(value, list):
        value = tuple(value) if any(isinstance(v, (Tensor, np.ndarray)) for v in value) \
            else value
    if isinstance(value, list):
        value = convert_to_tensor(value)
    value = _inner_lists_to_tensors(value)
    flat = [v if isinstance(v, Tensor) else convert_to_tensor(v, name="component")
            for v in nest.flatten(value)]
    spec = structure.pack(value, [structure.TensorSpec(t.dtype.base_dtype, t.get_shape())
                                  for t in flat])
    return spec, flat


def _inner_lists_to_tensors(value):
    """Lists inside a dict or tuple are values, not structure (TF's tf.data nest rule):
    `{"x": [1.0, 2.0]}` is one tensor of two elements."""
    def element(v):
        return convert_to_tensor(v) if isinstance(v, list) else _inner_lists_to_tensors(v)

    if isinstance(value, dict) and not hasattr(value, "default_factory"):
        return type(value)((k, element(v)) for k, v in value.items())
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return tuple(element(v) for v in value)
    return value


class Dataset(structure.HasElementSpec):
    """A sequence of elements, each a nested structure of tensors.

    Attributes:
      output_types, output_shapes, output_classes: the element structure, as TF1 reports it.
    """

    _options = None  # what with_options set, carried to the datasets made from this one

    def __init__(self, variant, element_spec):
        self._variant = variant
        self.element_spec = element_spec

    @classmethod
    def _from_variant(cls, variant, element_spec):
        return cls(variant, element_spec)

    def _apply(self, op_type, inputs, spec, **attrs):
        variant = apply_op(op_type, inputs, **structure.op_attrs(spec), **attrs).outputs[0]
        out = Dataset(variant, spec)
        out._options = self._options
        return out

    def __iter__(self):
        raise RuntimeError("dataset.__iter__() is only supported when eager execution is "
                           "enabled.")

    # -- sources -----------------------------------------------------------------------------
    @staticmethod
    def from_tensors(tensors):
        """A dataset of one element: `tensors`."""
        spec, flat = _spec_of(tensors)
        variant = apply_op("TensorDataset", (flat,),
                           output_shapes=structure.op_attrs(spec)["output_shapes"]).outputs[0]
        return Dataset(variant, spec)

    @staticmethod
    def from_tensor_slices(tensors):
        """A dataset of the slices of `tensors` along their first dimension."""
        spec, flat = _spec_of(tensors)
        for t in flat:
            if t.get_shape().ndims == 0:
                raise ValueError(f"Unbatching a tensor is only supported for rank >= 1: {t}")
        sliced = nest.map_structure(
            lambda s: structure.TensorSpec(s.dtype, s.shape[1:] if s.shape.ndims else None),
            spec)
        variant = apply_op("TensorSliceDataset", (flat,),
                           output_shapes=structure.op_attrs(sliced)["output_shapes"]).outputs[0]
        return Dataset(variant, sliced)


    @staticmethod
    def range(*args, output_type=dtypes.int64):
        """`range(stop)`, `range(start, stop[, step])`: a dataset of integers."""
        if len(args) == 1:
            start, stop, step = 0, args[0], 1
        elif len(args) == 2:
            (start, stop), step = args, 1
        elif len(args) == 3:
            start, stop, step = args
        else:
            raise ValueError(f"Invalid arguments to range: {args}")
        spec = structure.TensorSpec(output_type, [])
        inputs = (_i64(start, "start"), _i64(stop, "stop"), _i64(step, "step"))
        variant = apply_op("RangeDataset", inputs, **structure.op_attrs(spec)).outputs[0]
        return Dataset(variant, spec)

    @staticmethod
    def zip(datasets):
        """A dataset of tuples (or dicts) of the elements of `datasets`, in step."""
        flat = nest.flatten(datasets)
        for d in flat:
            if not isinstance(d, Dataset):
                raise TypeError(f"The argument to `Dataset.zip()` must be a (nested) structure "
                                f"of `Dataset` objects: {d!r}")
        spec = nest.pack_sequence_as(datasets, [d.element_spec for d in flat])
        variant = apply_op("ZipDataset", ([d._variant for d in flat],), N=len(flat),
                           **structure.op_attrs(spec)).outputs[0]
        return Dataset(variant, spec)

    @staticmethod
    def from_generator(generator, output_types, output_shapes=None, args=None):
        """A dataset of the values `generator(*args)` yields, converted to `output_types`."""
        if not callable(generator):
            raise TypeError("`generator` must be callable.")
        spec = structure.from_types_and_shapes(output_types, output_shapes)
        fn = GeneratorFunction(generator, tuple(args or ()), spec)
        from flowloom.framework.graph import get_default_graph

        dataset_ops.register_function(get_default_graph(), fn)
        variant = apply_op("GeneratorDataset", (), generator=fn.attr(),
                           **structure.op_attrs(spec)).outputs[0]
        return Dataset(variant, spec)

    @staticmethod
    def list_files(file_pattern, shuffle=None, seed=None):
        """A dataset of the file names matching `file_pattern` (a glob, or a list of them),
        shuffled unless `shuffle=False`. As TF 1.15 builds it: the files are matched when the
        iterator starts (a MatchingFiles op, so files made after the graph count), each
        pattern's matches in turn, and an Assert names the patterns that matched nothing."""
        import flowloom as tf
        from flowloom.framework.tensor_util import constant_value

        with tf.name_scope("list_files"):
            pattern = tf.convert_to_tensor(file_pattern, dtype=tf.string, name="file_pattern")
            matching = tf.io.matching_files(pattern)
            condition = tf.greater(tf.shape(matching)[0], 0, name="match_not_empty")
            # TF joins the patterns in the graph (ReduceJoin); a constant pattern is joined here.
            static = constant_value(pattern)
            patterns = None if static is None else np.asarray(static, dtype=object).ravel()
            message = "No files matched pattern: " + (
                ", ".join(p.decode() if isinstance(p, bytes) else str(p) for p in patterns) if patterns is not None else "?")
            assert_not_empty = tf.Assert(condition, [message], summarize=1,
                                         name="assert_not_empty")
            with tf.control_dependencies([assert_not_empty]):
                matching = tf.identity(matching)
            ds = Dataset.from_tensor_slices(matching)
            if shuffle is None or shuffle:
                buffer_size = tf.maximum(tf.shape(matching, out_type=tf.int64)[0], 1)
                ds = ds.shuffle(buffer_size, seed=seed)
            return ds

    # -- transformations ---------------------------------------------------------------------
    def map(self, map_func, num_parallel_calls=None):
        """Applies `map_func` to each element (traced once; `num_parallel_calls` run at once)."""
        fn = self._trace(map_func, "map")
        if num_parallel_calls is None:
            return self._apply("MapDataset", (self._variant, fn.captured), fn.output_spec,
                               f=fn.attr(), Targuments=_types(fn))
        n = convert_to_tensor(num_parallel_calls, dtype=dtypes.int32, name="num_parallel_calls")
        return self._apply("ParallelMapDataset", (self._variant, fn.captured, n),
                           fn.output_spec, f=fn.attr(), Targuments=_types(fn))

    def flat_map(self, map_func):
        """Maps each element to a dataset and concatenates those datasets."""
        fn = self._trace(map_func, "flat_map")
        return self._apply("FlatMapDataset", (self._variant, fn.captured),
                           _inner(fn, "flat_map"), f=fn.attr(), Targuments=_types(fn))

    def interleave(self, map_func, cycle_length=AUTOTUNE, block_length=1,
                   num_parallel_calls=None):
        """Maps each element to a dataset and interleaves `cycle_length` of them,
        `block_length` elements at a time."""
        fn = self._trace(map_func, "interleave")
        return self._apply("InterleaveDataset", (self._variant, fn.captured,
                                                 _i64(cycle_length, "cycle_length"),
                                                 _i64(block_length, "block_length")),
                           _inner(fn, "interleave"), f=fn.attr(), Targuments=_types(fn))

    def filter(self, predicate):
        """The elements for which `predicate` returns True."""
        fn = self._trace(predicate, "filter")
        out = structure.flatten(fn.output_spec)
        if len(out) != 1 or out[0].dtype != dtypes.bool_ or out[0].shape.ndims not in (0, None):
            raise ValueError("`predicate` return type must be convertible to a scalar boolean "
                             f"tensor. Was {fn.output_spec}.")
        return self._apply("FilterDataset", (self._variant, fn.captured), self.element_spec,
                           predicate=fn.attr(), Targuments=_types(fn))

    def batch(self, batch_size, drop_remainder=False):
        """Combines consecutive elements into batches (stacked along a new first axis)."""
        size = _i64(batch_size, "batch_size")
        spec = _batched(self.element_spec, _static_size(size) if drop_remainder else None)
        return self._apply("BatchDatasetV2", (self._variant, size, convert_to_tensor(
            drop_remainder, dtype=dtypes.bool_, name="drop_remainder")), spec)

    def padded_batch(self, batch_size, padded_shapes, padding_values=None,
                     drop_remainder=False):
        """Batches elements, padding each component to `padded_shapes` (-1/None: the longest
        in the batch) with `padding_values` (default 0 or b"")."""
        flat_specs = structure.flatten(self.element_spec)
        flat_shapes = nest.flatten_up_to(self.element_spec, padded_shapes) \
            if nest.is_nested(self.element_spec) else [padded_shapes]
        shapes = [_padded_shape(s) for s in flat_shapes]
        if padding_values is None:
            flat_values = [b"" if s.dtype == dtypes.string else 0 for s in flat_specs]
        else:
            flat_values = nest.flatten_up_to(self.element_spec, padding_values) \
                if nest.is_nested(self.element_spec) else [padding_values]
        shape_tensors = [t if t is not None else convert_to_tensor(
            [-1 if d is None else d for d in s.as_list()], dtype=dtypes.int64,
            name="padded_shapes") for s, t in zip(shapes, _shape_tensors(flat_shapes))]
        value_tensors = [convert_to_tensor(v, dtype=s.dtype, name="padding_values")
                         for v, s in zip(flat_values, flat_specs)]
        lead = _static_size(batch_size) if drop_remainder else None
        spec = structure.pack(self.element_spec, [
            structure.TensorSpec(s.dtype, TensorShape([lead]).concatenate(p))
            for s, p in zip(flat_specs, shapes)])
        variant = apply_op("PaddedBatchDatasetV2", (
            self._variant, _i64(batch_size, "batch_size"), shape_tensors, value_tensors,
            convert_to_tensor(drop_remainder, dtype=dtypes.bool_, name="drop_remainder")),
            output_shapes=structure.op_attrs(spec)["output_shapes"], N=len(shapes)).outputs[0]
        return Dataset(variant, spec)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None):
        """Shuffles with a buffer of `buffer_size` elements (reshuffled each pass)."""
        from flowloom.ops.random.random_ops import get_seed

        size = _i64(buffer_size, "buffer_size")  # made before the seeds, as TF makes it
        seed1, seed2 = get_seed(seed)
        if seed1 is None:
            seed1, seed2 = 0, 0
        return self._apply("ShuffleDataset", (self._variant, size,
                                              _i64(seed1, "seed"), _i64(seed2, "seed2")),
                           self.element_spec,
                           reshuffle_each_iteration=True if reshuffle_each_iteration is None
                           else bool(reshuffle_each_iteration))

    def repeat(self, count=None):
        """Repeats the dataset `count` times (None or -1: forever)."""
        return self._apply("RepeatDataset", (self._variant, _i64(-1 if count is None else count,
                                                                 "count")), self.element_spec)

    def take(self, count):
        """The first `count` elements (-1: all)."""
        return self._apply("TakeDataset", (self._variant, _i64(count, "count")),
                           self.element_spec)

    def skip(self, count):
        """All but the first `count` elements (-1: none)."""
        return self._apply("SkipDataset", (self._variant, _i64(count, "count")),
                           self.element_spec)

    def concatenate(self, dataset):
        """This dataset's elements, then `dataset`'s."""
        try:
            nest.assert_same_structure(self.element_spec, dataset.element_spec,
                                       check_types=False)
        except (ValueError, TypeError) as e:
            raise TypeError(f"Two datasets to concatenate have different structures: {e}") \
                from None
        if [s.dtype for s in structure.flatten(self.element_spec)] != \
                [s.dtype for s in structure.flatten(dataset.element_spec)]:
            raise TypeError(f"Two datasets to concatenate have different types "
                            f"{self.output_types} and {dataset.output_types}")
        spec = structure.most_specific_common(self.element_spec, dataset.element_spec)
        return self._apply("ConcatenateDataset", (self._variant, dataset._variant), spec)

    def cache(self, filename=""):
        """Caches the elements: in memory (`filename` empty: the first pass computes them,
        later passes replay them) or in a file (the first complete pass writes a tensor bundle
        at `filename` in TF's layout; from then on every pass, in this or a later program,
        reads it instead of the input).

        Args:
          filename: a string path prefix, or "" for memory.

        Returns:
          A `Dataset`.

        Raises:
          AlreadyExistsError (at run time): another iterator is writing the same file.
        """
        return self._apply("CacheDataset", (self._variant, convert_to_tensor(
            filename, dtype=dtypes.string, name="filename")), self.element_spec)

    def prefetch(self, buffer_size):
        """Computes up to `buffer_size` elements ahead, on a background thread."""
        return self._apply("PrefetchDataset", (self._variant, _i64(buffer_size, "buffer_size")),
                           self.element_spec)

    def unbatch(self):
        """Splits each element into its slices along the first dimension."""
        spec = nest.map_structure(
            lambda s: structure.TensorSpec(s.dtype, s.shape[1:] if s.shape.ndims else None),
            self.element_spec)
        return self._apply("UnbatchDataset", (self._variant,), spec)

    def window(self, size, shift=None, stride=1, drop_remainder=False):
        """A dataset of windows, each a (structure of) dataset(s) of `size` elements."""
        spec = nest.map_structure(lambda s: structure.DatasetSpec(s), self.element_spec)
        return self._apply("WindowDataset", (
            self._variant, _i64(size, "size"), _i64(size if shift is None else shift, "shift"),
            _i64(stride, "stride"), convert_to_tensor(drop_remainder, dtype=dtypes.bool_,
                                                      name="drop_remainder")), spec)

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        out = transformation_func(self)
        if not isinstance(out, Dataset):
            raise TypeError("`transformation_func` must return a Dataset.")
        return out

    def with_options(self, options):
        """This dataset with `options` (a `tf.data.Options`) merged into its options; no op
        is added (as in TF 1.15).

        Raises:
          ValueError: an option set here and in `options` to different values.
        """
        if not isinstance(options, Options):
            raise TypeError(f"`options` must be a `tf.data.Options`, got {options!r}")
        out = Dataset(self._variant, self.element_spec)
        out._options = self.options().merge(options)
        return out

    def options(self):
        """The options of this dataset (`tf.data.Options`)."""
        return self._options if self._options is not None else Options()

    def enumerate(self, start=0):
        """`(index, element)` pairs, the index an int64 counting from `start`."""
        return Dataset.zip((Dataset.range(start, np.iinfo(np.int64).max), self))

    # -- iterators ---------------------------------------------------------------------------
    def make_one_shot_iterator(self):
        """An iterator that initializes itself on first use."""
        from flowloom.data.iterator import Iterator

        return Iterator._one_shot(self)

    def make_initializable_iterator(self, shared_name=None):
        """An iterator whose `initializer` must be run first (e.g. with fed placeholders)."""
        from flowloom.data.iterator import Iterator

        it = Iterator.from_structure(self.output_types, self.output_shapes,
                                     shared_name=shared_name)
        it._initializer = it.make_initializer(self)
        return it

    def _trace(self, fn, what):
        fn_obj = TracedFunction(fn, self.element_spec, what)
        from flowloom.framework.graph import get_default_graph

        dataset_ops.register_function(get_default_graph(), fn_obj)
        fn_obj.add_to_library(get_default_graph())
        return fn_obj


def _types(fn):
    """The Targuments attr: the dtypes of the tensors `fn` captured."""
    return [t.dtype.base_dtype for t in fn.captured]


def _inner(fn, what):
    flat = structure.flatten(fn.output_spec)
    if len(flat) != 1 or not isinstance(flat[0], structure.DatasetSpec):
        raise TypeError(f"`map_func` must return a `Dataset` object (in {what}).")
    return flat[0].element_spec


def _static_size(size):
    """A batch size's value (a number, or a tensor's where it is a constant), else None."""
    from flowloom.framework.tensor_util import constant_value

    value = constant_value(size) if isinstance(size, Tensor) else size
    return None if value is None else int(value)


def _padded_shape(shape):
    """The static shape a padded_batch shape gives: a shape, a list of dims (-1 or None
    for "the longest"), or an int64 vector tensor (its value where it is a constant)."""
    from flowloom.framework.tensor_util import constant_value_as_shape

    if isinstance(shape, Tensor):
        return constant_value_as_shape(shape)
    if isinstance(shape, (list, tuple)):
        shape = [None if d is not None and not isinstance(d, Tensor) and int(d) == -1 else d
                 for d in shape]
    return as_shape(shape)


def _shape_tensors(flat_shapes):
    """The padded_shapes given as tensors (None for the others)."""
    out = []
    for s in flat_shapes:
        out.append(convert_to_tensor(s, dtype=dtypes.int64, name="padded_shapes")
                   if isinstance(s, Tensor) else None)
    return out


def _batched(spec, size):
    return nest.map_structure(
        lambda s: structure.TensorSpec(s.dtype, TensorShape([size]).concatenate(s.shape)), spec)


# TF 1.15 names: tf.data.Dataset is the v1 class.
DatasetV1 = Dataset
DatasetV2 = Dataset


class _FileDataset(Dataset):
    @staticmethod
    def _filenames(filenames):
        if isinstance(filenames, Dataset):
            raise NotImplementedError("a file dataset whose filenames come from another "
                                      "Dataset is not in flowloom yet; pass a list or tensor")
        t = convert_to_tensor(filenames, dtype=dtypes.string, name="filenames")
        if t.get_shape().ndims not in (None, 0, 1):
            raise ValueError("`filenames` must be a `tf.Tensor` of dtype `tf.string` and rank "
                             "0 or 1")
        return t

    @staticmethod
    def _compression(compression_type):
        return convert_to_tensor(compression_type or "", dtype=dtypes.string,
                                 name="compression_type")

    def _init_records(self, op_type, filenames, compression_type, buffer_size):
        """A dataset of the scalar string records op `op_type` reads from `filenames`."""
        variant = apply_op(op_type, (
            self._filenames(filenames), self._compression(compression_type),
            _i64(256 * 1024 if buffer_size is None else buffer_size, "buffer_size"))).outputs[0]
        Dataset.__init__(self, variant, structure.TensorSpec(dtypes.string, []))


class TFRecordDataset(_FileDataset):
    """The records of TFRecord files (`compression_type`: "", "ZLIB" or "GZIP")."""

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None):
        self._init_records("TFRecordDataset", filenames, compression_type, buffer_size)


class TextLineDataset(_FileDataset):
    """The lines of text files, without their line endings."""

    def __init__(self, filenames, compression_type=None, buffer_size=None):
        self._init_records("TextLineDataset", filenames, compression_type, buffer_size)


class FixedLengthRecordDataset(_FileDataset):
    """Records of `record_bytes` bytes from binary files, after `header_bytes`, before
    `footer_bytes` (the CIFAR-10 binary format is one)."""

    def __init__(self, filenames, record_bytes, header_bytes=None, footer_bytes=None,
                 buffer_size=None, compression_type=None):
        spec = structure.TensorSpec(dtypes.string, [])
        variant = apply_op("FixedLengthRecordDatasetV2", (
            self._filenames(filenames), _i64(header_bytes or 0, "header_bytes"),
            _i64(record_bytes, "record_bytes"), _i64(footer_bytes or 0, "footer_bytes"),
            _i64(buffer_size or 256 * 1024, "buffer_size"),
            self._compression(compression_type))).outputs[0]
        super().__init__(variant, spec)
