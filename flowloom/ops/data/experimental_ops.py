"""tf.data.experimental's dataset ops, under TF 1.15's op type names and attrs: ScanDataset,
GroupByWindowDataset, DirectedInterleaveDataset, TakeWhileDataset, UniqueDataset,
RandomDataset, DatasetCardinality and DatasetToSingleElement (their run-time values:
ops/data/experimental_values.py)."""

import numpy as np

from flowloom.framework import common_shapes, errors, tensor_shape
from flowloom.framework.op_def import defop
from flowloom.ops.data import experimental_values as ev
from flowloom.ops.data.dataset_ops import _CAPTURED, _dataset, _function, _int

ScanDataset = _dataset("ScanDataset", ["input_dataset: variant", "initial_state: list(Tstate)",
                                       _CAPTURED],
                       {"f": None, "Tstate": None, "Targuments": [],
                        "preserve_cardinality": False})


@ScanDataset.kernel
def _(xp, dataset, *rest, output_types, output_shapes, f, Tstate, Targuments,
      preserve_cardinality, ctx):
    n = len(Tstate)
    state = [np.asarray(v) for v in rest[:n]]
    return ev.ScanValue(dataset, state, _function(ctx, f).bind(rest[n:]), ctx.op)


GroupByWindowDataset = _dataset("GroupByWindowDataset", [
    "input_dataset: variant", "key_func_other_arguments: list(Tkey_func_other_arguments)",
    "reduce_func_other_arguments: list(Treduce_func_other_arguments)",
    "window_size_func_other_arguments: list(Twindow_size_func_other_arguments)"],
    {"key_func": None, "reduce_func": None, "window_size_func": None,
     "Tkey_func_other_arguments": [], "Treduce_func_other_arguments": [],
     "Twindow_size_func_other_arguments": []})


@GroupByWindowDataset.kernel
def _(xp, dataset, *rest, key_func, reduce_func, window_size_func, Tkey_func_other_arguments,
      Treduce_func_other_arguments, Twindow_size_func_other_arguments, ctx, **_):
    a, b = len(Tkey_func_other_arguments), len(Treduce_func_other_arguments)
    return ev.GroupByWindowValue(dataset, _function(ctx, key_func).bind(rest[:a]),
                                 _function(ctx, reduce_func).bind(rest[a:a + b]),
                                 _function(ctx, window_size_func).bind(rest[a + b:]), ctx.op)


DirectedInterleaveDataset = _dataset("DirectedInterleaveDataset", [
    "selector_input_dataset: variant", "data_input_datasets: N * variant"], {"N": None})


@DirectedInterleaveDataset.kernel
def _(xp, selector, *inputs, output_types, output_shapes, N, ctx):
    return ev.DirectedInterleaveValue(selector, list(inputs), ctx.op)


TakeWhileDataset = _dataset("TakeWhileDataset", ["input_dataset: variant", _CAPTURED],
                            {"predicate": None, "Targuments": []})


@TakeWhileDataset.kernel
def _(xp, dataset, *captured, output_types, output_shapes, predicate, Targuments, ctx):
    return ev.TakeWhileValue(dataset, _function(ctx, predicate).bind(captured), ctx.op)


UniqueDataset = _dataset("UniqueDataset", ["input_dataset: variant"])


@UniqueDataset.kernel
def _(xp, dataset, *, output_types, output_shapes, ctx):
    return ev.UniqueValue(dataset)


RandomDataset = _dataset("RandomDataset", ["seed: int64", "seed2: int64"])


@RandomDataset.kernel
def _(xp, seed, seed2, *, output_types, output_shapes):
    return ev.RandomValue(_int(seed), _int(seed2))


DatasetCardinality = defop("DatasetCardinality", inputs=["input_dataset: variant"],
                           outputs=["cardinality: int64"])
DatasetCardinality.shape(common_shapes.scalar_shape)
DatasetCardinality.no_gradient()


@DatasetCardinality.kernel
def _(xp, dataset):
    return np.array(ev.cardinality(dataset), np.int64)


DatasetToSingleElement = defop("DatasetToSingleElement", inputs=["dataset: variant"],
                               outputs=["components: list(output_types)"],
                               attrs={"output_types": None, "output_shapes": None},
                               stateful=True)
DatasetToSingleElement.no_gradient()


@DatasetToSingleElement.shape
def _(op):
    return [tensor_shape.as_shape(s) for s in op._attrs["output_shapes"]]


@DatasetToSingleElement.kernel
def _(xp, dataset, *, output_types, output_shapes, ctx):
    elements = dataset.iterate()
    try:
        first = next(elements, None)
        if first is None:
            raise errors.InvalidArgumentError(None, ctx.op, "Dataset was empty.")
        if next(elements, None) is not None:
            raise errors.InvalidArgumentError(None, ctx.op,
                                              "Dataset had more than one element.")
    finally:
        elements.close()
    return list(first)


_REDUCER_FUNCTIONS = ("key_func", "init_func", "reduce_func", "finalize_func")
ExperimentalGroupByReducerDataset = _dataset(
    "ExperimentalGroupByReducerDataset", ["input_dataset: variant"] + [
        f"{f}_other_arguments: list(T{f}_other_arguments)" for f in _REDUCER_FUNCTIONS],
    dict({f: None for f in _REDUCER_FUNCTIONS},
         **{f"T{f}_other_arguments": [] for f in _REDUCER_FUNCTIONS}))


@ExperimentalGroupByReducerDataset.kernel
def _(xp, dataset, *rest, output_types, output_shapes, key_func, init_func, reduce_func,
      finalize_func, Tkey_func_other_arguments, Tinit_func_other_arguments,  # noqa: N803
      Treduce_func_other_arguments, Tfinalize_func_other_arguments, ctx):
    fns, pos = [], 0
    for f, types in ((key_func, Tkey_func_other_arguments), (init_func, Tinit_func_other_arguments),
                     (reduce_func, Treduce_func_other_arguments),
                     (finalize_func, Tfinalize_func_other_arguments)):
        fns.append(_function(ctx, f).bind(rest[pos:pos + len(types)]))
        pos += len(types)
    return ev.GroupByReducerValue(dataset, *fns, ctx.op)
