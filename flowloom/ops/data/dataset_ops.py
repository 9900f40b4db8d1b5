"""tf.data's dataset ops: each builds a `DatasetValue` (ops/data/dataset_values.py) as the
value of its `variant` output, under TF's op type names and attrs.

Functions (`f`, `predicate`) are `func` attrs naming a graph traced by flowloom/data/functions.py;
the kernels look the traced function up in its graph's registry.
"""

import weakref

import numpy as np

from flowloom.framework import common_shapes, errors
from flowloom.framework.op_def import defop
from flowloom.ops.data import dataset_values as dv
from flowloom.ops.data.map_value import MapValue
from flowloom.ops.data.parallel_interleave import ParallelInterleaveValue

# Graph -> {function name: TracedFunction}: the functions dataset ops call.
FUNCTIONS = weakref.WeakKeyDictionary()

_TYPES = {"output_types": None, "output_shapes": None}


def register_function(graph, fn):
    FUNCTIONS.setdefault(graph, {})[fn.name] = fn


def _function(ctx, attr):
    """The dataset function `attr` names: one traced here, else the graph's function library
    (a GraphDef's FunctionDef), read once per graph."""
    if hasattr(attr, "func"):
        attr = attr.func
    name = attr if isinstance(attr, str) else attr.name
    graph = ctx.op._graph
    fn = FUNCTIONS.get(graph, {}).get(name)
    if fn is None:
        from flowloom.data.functions import ImportedFunction, traced_for
        from flowloom.graph_function import runtime

        body = runtime.lookup(graph, name)
        if body is None:
            raise errors.NotFoundError(
                None, ctx.op, f"Function {name} is not defined: neither traced in this "
                "process nor in the graph's function library")
        fn = traced_for(body.fdef) or ImportedFunction(body)
        fn = FUNCTIONS.setdefault(graph, {}).setdefault(name, fn)
    return fn


def _dataset(type_name, inputs, attrs=None, output_types=True):
    """A dataset op type. With `output_types=False` its element types are those of an input
    list (`Toutput_types`), so it has `output_shapes` but no `output_types` attr."""
    types = _TYPES if output_types else {"output_shapes": None}
    op = defop(type_name, inputs=inputs, outputs=["handle: variant"],
               attrs=dict(types, **(attrs or {})), stateful=True)
    op.shape(common_shapes.scalar_shape)
    op.no_gradient()
    return op


def _int(x):
    return int(np.asarray(x))


def _text(x):
    v = np.asarray(x).item()
    return v.decode("utf-8") if isinstance(v, bytes) else str(v)


def _file_dataset(type_name, inputs):
    """A file dataset: its elements are scalar strings, so it has no output_types attrs."""
    op = defop(type_name, inputs=inputs, outputs=["handle: variant"], stateful=True)
    op.shape(common_shapes.scalar_shape)
    op.no_gradient()
    return op


TensorDataset = _dataset("TensorDataset", ["components: list(Toutput_types)"],
                         output_types=False)


@TensorDataset.kernel
def _(xp, *components, output_shapes, **_):
    return dv.TensorsValue(list(components))


TensorSliceDataset = _dataset("TensorSliceDataset", ["components: list(Toutput_types)"],
                              output_types=False)


@TensorSliceDataset.kernel
def _(xp, *components, output_shapes, ctx, **_):
    return dv.SlicesValue(list(components), ctx.op)


RangeDataset = _dataset("RangeDataset", ["start: int64", "stop: int64", "step: int64"])


@RangeDataset.kernel
def _(xp, start, stop, step, *, output_types, output_shapes, ctx):
    return dv.RangeValue(_int(start), _int(stop), _int(step),
                         output_types[0].as_numpy_dtype, ctx.op)


ZipDataset = _dataset("ZipDataset", ["input_datasets: N * variant"], {"N": None})


@ZipDataset.kernel
def _(xp, *inputs, output_types, output_shapes, N):
    return dv.ZipValue(list(inputs))


ConcatenateDataset = _dataset("ConcatenateDataset", ["input_dataset: variant",
                                                     "another_dataset: variant"])


@ConcatenateDataset.kernel
def _(xp, first, second, *, output_types, output_shapes):
    return dv.ConcatenateValue(first, second)


_FN_ATTRS = {"f": None, "Targuments": [], "use_inter_op_parallelism": True,
             "preserve_cardinality": False}
_CAPTURED = "other_arguments: list(Targuments)"  # the values of the tensors `f` captured
MapDataset = _dataset("MapDataset", ["input_dataset: variant", _CAPTURED], _FN_ATTRS)


@MapDataset.kernel
def _(xp, dataset, *captured, output_types, output_shapes, f, Targuments,
      use_inter_op_parallelism, preserve_cardinality, ctx):
    return MapValue(dataset, _function(ctx, f).bind(captured))


ParallelMapDataset = _dataset("ParallelMapDataset", ["input_dataset: variant", _CAPTURED,
                                                     "num_parallel_calls: int32"],
                              dict(_FN_ATTRS, sloppy=False))


@ParallelMapDataset.kernel
def _(xp, dataset, *rest, output_types, output_shapes, f, Targuments,
      use_inter_op_parallelism, preserve_cardinality, sloppy, ctx):
    *captured, num_parallel_calls = rest
    n = _int(num_parallel_calls)
    if n <= 0 and n != -1:
        raise errors.InvalidArgumentError(None, ctx.op, "num_parallel_calls must be greater "
                                          "than zero.")
    return MapValue(dataset, _function(ctx, f).bind(captured), n)


FilterDataset = _dataset("FilterDataset", ["input_dataset: variant", _CAPTURED],
                         {"predicate": None, "Targuments": []})


@FilterDataset.kernel
def _(xp, dataset, *captured, output_types, output_shapes, predicate, Targuments, ctx):
    return dv.FilterValue(dataset, _function(ctx, predicate).bind(captured), ctx.op)


FlatMapDataset = _dataset("FlatMapDataset", ["input_dataset: variant", _CAPTURED],
                          {"f": None, "Targuments": []})


@FlatMapDataset.kernel
def _(xp, dataset, *captured, output_types, output_shapes, f, Targuments, ctx):
    return dv.FlatMapValue(dataset, _function(ctx, f).bind(captured), ctx.op)


InterleaveDataset = _dataset("InterleaveDataset", ["input_dataset: variant", _CAPTURED,
                                                   "cycle_length: int64",
                                                   "block_length: int64"],
                             {"f": None, "Targuments": []})


@InterleaveDataset.kernel
def _(xp, dataset, *rest, output_types, output_shapes, f, Targuments, ctx):
    *captured, cycle_length, block_length = rest
    return dv.InterleaveValue(dataset, _function(ctx, f).bind(captured), _int(cycle_length),
                              _int(block_length), ctx.op)


BatchDatasetV2 = _dataset("BatchDatasetV2", ["input_dataset: variant", "batch_size: int64",
                                             "drop_remainder: bool"],
                          {"parallel_copy": False})


@BatchDatasetV2.kernel
def _(xp, dataset, batch_size, drop_remainder, *, output_types, output_shapes, parallel_copy,
      ctx):
    return dv.BatchValue(dataset, _int(batch_size), bool(drop_remainder), ctx.op)


PaddedBatchDatasetV2 = _dataset(
    "PaddedBatchDatasetV2", ["input_dataset: variant", "batch_size: int64",
                             "padded_shapes: N * int64", "padding_values: list(Toutput_types)",
                             "drop_remainder: bool"], {"N": None, "parallel_copy": False},
    output_types=False)


@PaddedBatchDatasetV2.kernel
def _(xp, dataset, batch_size, *rest, output_shapes, N, parallel_copy, ctx, **_):
    shapes = [tuple(int(d) for d in np.asarray(s).reshape(-1)) for s in rest[:N]]
    values = [np.asarray(v)[()] for v in rest[N:2 * N]]
    return dv.BatchValue(dataset, _int(batch_size), bool(rest[2 * N]), ctx.op, shapes, values)


ShuffleDataset = _dataset("ShuffleDataset", ["input_dataset: variant", "buffer_size: int64",
                                             "seed: int64", "seed2: int64"],
                          {"reshuffle_each_iteration": True})


@ShuffleDataset.kernel
def _(xp, dataset, buffer_size, seed, seed2, *, output_types, output_shapes,
      reshuffle_each_iteration, ctx):
    return dv.ShuffleValue(dataset, _int(buffer_size), _int(seed), _int(seed2),
                           reshuffle_each_iteration, ctx.op)


ShuffleAndRepeatDataset = _dataset("ShuffleAndRepeatDataset", [
    "input_dataset: variant", "buffer_size: int64", "seed: int64", "seed2: int64",
    "count: int64"])


@ShuffleAndRepeatDataset.kernel
def _(xp, dataset, buffer_size, seed, seed2, count, *, output_types, output_shapes, ctx):
    # one generator for every pass: the buffer carries elements of up to 3 passes at once
    return dv.ShuffleValue(dataset, _int(buffer_size), _int(seed), _int(seed2), False,
                           ctx.op, count=_int(count))


RepeatDataset = _dataset("RepeatDataset", ["input_dataset: variant", "count: int64"])


@RepeatDataset.kernel
def _(xp, dataset, count, *, output_types, output_shapes):
    from flowloom.ops.random.random_ops import seed_rules

    if isinstance(dataset, dv.ShuffleValue) and seed_rules() == "1":
        # TF 1.15's default tf.data optimizations fuse them; TF 2.x's do not
        fused = dataset.fused_with_repeat(_int(count))
        if fused is not None:
            return fused
    return dv.RepeatValue(dataset, _int(count))


TakeDataset = _dataset("TakeDataset", ["input_dataset: variant", "count: int64"])


@TakeDataset.kernel
def _(xp, dataset, count, *, output_types, output_shapes):
    return dv.TakeValue(dataset, _int(count))


SkipDataset = _dataset("SkipDataset", ["input_dataset: variant", "count: int64"])


@SkipDataset.kernel
def _(xp, dataset, count, *, output_types, output_shapes):
    return dv.SkipValue(dataset, _int(count))


CacheDataset = _dataset("CacheDataset", ["input_dataset: variant", "filename: string"])


@CacheDataset.kernel
def _(xp, dataset, filename, *, output_types, output_shapes, ctx):
    name = np.asarray(filename).item()
    if isinstance(name, bytes):
        name = name.decode("utf-8")
    if name:
        from flowloom.ops.data.cache_file import CacheFileValue

        return CacheFileValue(dataset, name, len(output_types), ctx.op)
    # Memory cache: the first full pass of an iterator is replayed by its later passes
    # (`ds.cache().repeat()`).
    return dv.CacheValue(dataset)


PrefetchDataset = _dataset("PrefetchDataset", ["input_dataset: variant",
                                               "buffer_size: int64"],
                           {"slack_period": 0, "legacy_autotune": True})


@PrefetchDataset.kernel
def _(xp, dataset, buffer_size, *, output_types, output_shapes, slack_period, **_):
    return dv.PrefetchValue(dataset, _int(buffer_size))


# TF 1.15 wraps the dataset of every iterator it makes in these two (static graph
# optimizations, the autotuning model); flowloom runs the dataset as it is.
OptimizeDataset = _dataset("OptimizeDataset", ["input_dataset: variant", "optimizations: string"],
                           {"optimization_configs": []})


@OptimizeDataset.kernel
def _(xp, dataset, optimizations, **_):
    return dataset


ModelDataset = _dataset("ModelDataset", ["input_dataset: variant"],
                        {"algorithm": 0, "cpu_budget": 0})


@ModelDataset.kernel
def _(xp, dataset, **_):
    return dataset


UnbatchDataset = _dataset("UnbatchDataset", ["input_dataset: variant"])


@UnbatchDataset.kernel
def _(xp, dataset, *, output_types, output_shapes, ctx):
    return dv.UnbatchValue(dataset, ctx.op)


WindowDataset = _dataset("WindowDataset", ["input_dataset: variant", "size: int64",
                                           "shift: int64", "stride: int64",
                                           "drop_remainder: bool"])


@WindowDataset.kernel
def _(xp, dataset, size, shift, stride, drop_remainder, *, output_types, output_shapes, ctx):
    return dv.WindowValue(dataset, _int(size), _int(shift), _int(stride),
                          bool(drop_remainder), len(output_types), ctx.op)


TFRecordDataset = _file_dataset("TFRecordDataset", ["filenames: string",
                                                    "compression_type: string",
                                                    "buffer_size: int64"])


@TFRecordDataset.kernel
def _(xp, filenames, compression_type, buffer_size, *, ctx):
    return dv.TFRecordValue(filenames, _text(compression_type), ctx.op)


TextLineDataset = _file_dataset("TextLineDataset", ["filenames: string",
                                                    "compression_type: string",
                                                    "buffer_size: int64"])


@TextLineDataset.kernel
def _(xp, filenames, compression_type, buffer_size, *, ctx):
    return dv.TextLineValue(filenames, _text(compression_type), ctx.op)


FixedLengthRecordDatasetV2 = _file_dataset(
    "FixedLengthRecordDatasetV2", ["filenames: string", "header_bytes: int64",
                                   "record_bytes: int64", "footer_bytes: int64",
                                   "buffer_size: int64", "compression_type: string"])


@FixedLengthRecordDatasetV2.kernel
def _(xp, filenames, header_bytes, record_bytes, footer_bytes, buffer_size, compression_type, *,
      ctx):
    return dv.FixedLengthValue(filenames, _int(header_bytes), _int(record_bytes),
                               _int(footer_bytes), _text(compression_type), ctx.op)


# Dataset.from_generator: the generator is a Python callable held by the graph's registry
# under `generator_name` (never read from a file).
GeneratorDataset = _dataset("GeneratorDataset", [], {"generator": None})


@GeneratorDataset.kernel
def _(xp, *, output_types, output_shapes, generator, ctx):
    fn = _function(ctx, generator)
    return dv.GeneratorValue(fn.make_generator, fn.convert)


MapAndBatchDataset = _dataset("MapAndBatchDataset", [
    "input_dataset: variant", _CAPTURED, "batch_size: int64", "num_parallel_calls: int64",
    "drop_remainder: bool"], {"f": None, "Targuments": [], "preserve_cardinality": False})


@MapAndBatchDataset.kernel
def _(xp, dataset, *rest, output_types, output_shapes, f, Targuments, preserve_cardinality,
      ctx):
    # tf.data.experimental.map_and_batch: the map's results batched as they come
    *captured, batch_size, num_parallel_calls, drop_remainder = rest
    n = _int(num_parallel_calls)
    if n <= 0 and n != -1:
        raise errors.InvalidArgumentError(None, ctx.op, "num_parallel_calls must be greater "
                                          "than zero.")
    mapped = MapValue(dataset, _function(ctx, f).bind(captured), n)
    return dv.BatchValue(mapped, _int(batch_size), bool(drop_remainder), ctx.op)


ParallelInterleaveDataset = _dataset("ParallelInterleaveDataset", [
    "input_dataset: variant", _CAPTURED, "cycle_length: int64", "block_length: int64",
    "sloppy: bool", "buffer_output_elements: int64", "prefetch_input_elements: int64"],
    {"f": None, "Targuments": []})


@ParallelInterleaveDataset.kernel
def _(xp, dataset, *rest, output_types, output_shapes, f, Targuments, ctx):
    # tf.data.experimental.parallel_interleave: TF's deterministic order (what `sloppy`
    # allows too), the inner datasets read one at a time (ops/data/parallel_interleave.py)
    *captured, cycle_length, block_length, _sloppy, buffer_output, prefetch_input = rest
    for what, v, least in (("cycle_length", cycle_length, 1), ("block_length", block_length, 1),
                           ("buffer_output_elements", buffer_output, 1),
                           ("prefetch_input_elements", prefetch_input, 0)):
        if _int(v) < least:
            raise errors.InvalidArgumentError(
                None, ctx.op, f"`{what}` must be {'> 0' if least else '>= 0'}")
    return ParallelInterleaveValue(dataset, _function(ctx, f).bind(captured),
                                   _int(cycle_length), _int(block_length),
                                   _int(prefetch_input), ctx.op)
