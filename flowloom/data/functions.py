"""Dataset functions (`map`, `filter`, `flat_map`, ...): traced once into a graph of their own,
then run per element, as TF traces them into a function.

A traced function's graph has one Placeholder per component of the input element, and one per
tensor of the outer graph that the function uses (captured, as TF captures them); calling it
runs the graph in a private session (thread-safe, so `num_parallel_calls` calls run at once).
The dataset op that uses it names it in a `func` attr and takes the captured tensors as its
`other_arguments` input.
"""

import itertools
import os
import threading
import weakref

import numpy as np

from flowloom.data import structure, vectorize
from flowloom.framework import nest
from flowloom.proto import attr_value_pb2

_counter = itertools.count()
# name -> TracedFunction with the FunctionDef it wrote: a library entry of the same name and
# text (a dataset built by a one-shot iterator's factory function) runs the traced function.
_TRACED = weakref.WeakValueDictionary()
# FLOWLOOM_VECTORIZE_MAP=0 runs every map function element by element.
VECTORIZE = os.environ.get("FLOWLOOM_VECTORIZE_MAP", "1") != "0"


def _function_graph_class():
    from flowloom.framework.graph import Graph

    class FunctionGraph(Graph):
        """The graph a dataset function is traced into. A tensor of a graph around it that an
        op here uses is captured, as TF captures it: a Placeholder here stands for it, and the
        dataset op that calls the function takes the outer tensor as an input
        (`other_arguments`) and feeds its value at each call."""

        def __init__(self, outer):
            super().__init__()
            self._outer_graph = outer
            self.captured = []       # tensors of the outer graph, in capture order
            self.placeholders = []   # the Placeholders standing for them here
            self._by_tensor = {}

        def _capture(self, tensor):
            from flowloom.ops.array.array_ops import placeholder

            hit = self._by_tensor.get(id(tensor))
            if hit is not None and hit[0] is tensor:
                return hit[1]
            source = tensor
            if tensor._op._graph is not self._outer_graph:
                outer = self._outer_graph
                if outer._outer_graph is None:
                    return None  # a tensor of an unrelated graph
                source = outer._capture(tensor)
                if source is None:
                    return None
            with self.as_default(), self.control_dependencies(None):
                inner = placeholder(source.dtype.base_dtype, source.get_shape(),
                                    name="captured_" + tensor._op._name.replace("/", "_"))
            self.captured.append(source)
            self.placeholders.append(inner)
            self._by_tensor[id(tensor)] = (tensor, inner)
            return inner

    return FunctionGraph


class _GraphFunction:
    """A dataset function's graph run per element: `_inputs` (the element's components, then
    the captured values), `_outputs`."""

    def __call__(self, element):
        run = self._callable
        if run is None:
            with self._lock:
                if self._callable is None:
                    from flowloom.runtime.session import Session

                    self._session = Session(graph=self.graph)
                    self._callable = self._session.make_callable(self._outputs,
                                                                 feed_list=self._inputs)
                run = self._callable
        values = run(*element)
        return tuple(np.asarray(v) if not _is_dataset_value(v) else v for v in values)


class TracedFunction(_GraphFunction):
    """`fn` traced for elements of `input_spec`.

    Attributes:
      name: the function's name (the `func` attr of the op that calls it).
      output_spec: the structure of what `fn` returns.
      graph: the traced graph.
      captured: the tensors of the graph around it that `fn` uses; the calling op takes them
        as its `other_arguments` and passes their values to every call.
    """

    def __init__(self, fn, input_spec, what):
        from flowloom.framework.graph import get_default_graph
        from flowloom.ops.array.array_ops import placeholder

        self.name = f"__flowloom_{what}_{next(_counter)}"
        self.graph = _function_graph_class()(get_default_graph())
        self._session = None
        self._callable = None
        self._lock = threading.Lock()
        with self.graph.as_default():
            args = []
            for k, spec in enumerate(structure.flatten(input_spec)):
                p = placeholder(spec.dtype, spec.shape, name=f"arg{k}")
                if isinstance(spec, structure.DatasetSpec):
                    from flowloom.data.dataset import Dataset

                    p = Dataset._from_variant(p, spec.element_spec)
                args.append(p)
            self._inputs = [a if not hasattr(a, "_variant") else a._variant for a in args]
            element = structure.pack(input_spec, args)
            if isinstance(element, tuple) and not hasattr(element, "_fields"):
                result = fn(*element)  # TF unpacks tuple elements into arguments
            else:
                result = fn(element)
            self.output_spec, self._outputs = _outputs(result)
        self.captured = list(self.graph.captured)
        num_args = len(self._inputs)
        self._inputs += [p for p in self.graph.placeholders]
        self._vectorized = vectorize.LazyVectorized(lambda: vectorize.vectorize(
            self.graph, self._inputs[:num_args], self._inputs[num_args:], self._outputs))

    def add_to_library(self, graph):
        """Writes this function into the function library of `graph` (the outermost graph
        around it, where TF keeps every dataset function), so that a GraphDef or MetaGraphDef
        of `graph` carries it and runs again where it is imported."""
        from flowloom.graph_function import function_def, runtime

        while getattr(graph, "_outer_graph", None) is not None:
            graph = graph._outer_graph
        fdef = function_def.graph_to_function_def(
            self.graph, self._inputs, self._outputs,
            library_signatures=runtime.signatures(self.graph))
        fdef.signature.name = self.name
        runtime.add_function(graph, fdef)
        self.fdef_bytes = fdef.SerializeToString(deterministic=True)
        _TRACED[self.name] = self

    def attr(self):
        """The `func` AttrValue that names this function."""
        return attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=self.name))

    def bind(self, captured_values):
        """This function with the values of its captured tensors: a `BoundFunction`."""
        captured_values = tuple(captured_values)
        if len(captured_values) != len(self.captured):
            raise ValueError(f"{self.name} captures {len(self.captured)} tensors, "
                             f"{len(captured_values)} values given")
        return BoundFunction(self, captured_values)


class ImportedFunction(_GraphFunction):
    """A dataset function read from a graph's function library (a FunctionDef of an imported
    GraphDef: a graph, nothing that executes code): its arguments are the element's
    components, then the values the calling op passes as `other_arguments`."""

    def __init__(self, body):
        self.name = body.name
        self.graph, self._inputs, self._outputs, _ = body.body()
        self._session = None
        self._callable = None
        self._lock = threading.Lock()
        self._vectorized = None

    def bind(self, captured_values):
        captured_values = tuple(captured_values)
        num_args = len(self._inputs) - len(captured_values)
        if num_args < 0:
            raise ValueError(f"{self.name} takes {len(self._inputs)} arguments, "
                             f"{len(captured_values)} captured values given")
        with self._lock:
            if self._vectorized is None:
                self._vectorized = vectorize.LazyVectorized(lambda: vectorize.vectorize(
                    self.graph, self._inputs[:num_args], self._inputs[num_args:],
                    self._outputs))
        return BoundFunction(self, captured_values)


class BoundFunction:
    """A traced function with its captured values: `bound(element)` runs it on one element;
    `bound.batched()` is a callable of a list of elements running them at once
    (flowloom/data/vectorize.py), or None where the function is not batch-safe."""

    __slots__ = ("fn", "captured")

    def __init__(self, fn, captured):
        self.fn, self.captured = fn, captured

    def __call__(self, element):
        if self.captured:
            element = tuple(element) + self.captured
        return self.fn(element)

    def batched(self):
        if not VECTORIZE:
            return None
        runner = self.fn._vectorized.get()
        if runner is None:
            return None
        captured = self.captured
        return lambda chunk: runner(chunk, captured)


def _is_dataset_value(v):
    from flowloom.ops.data.dataset_values import DatasetValue

    return isinstance(v, DatasetValue)


def _outputs(result):
    """(output spec, flat output tensors) of a traced function's return value."""
    from flowloom.data.dataset import Dataset
    from flowloom.framework.ops import Tensor, convert_to_tensor

    from flowloom.data.dataset import _inner_lists_to_tensors

    if isinstance(result, list):
        result = tuple(result)  # TF treats a returned list as a tuple of components
    result = _inner_lists_to_tensors(result)  # and a list inside as one tensor

    from flowloom.framework.graph import get_default_graph

    graph = get_default_graph()

    def leaf(x):
        if isinstance(x, Dataset):
            return x
        if isinstance(x, Tensor) and x._op._graph is not graph and hasattr(graph, "_capture"):
            inner = graph._capture(x)  # an outer tensor returned as it is: captured, as TF
            if inner is not None:
                from flowloom.ops.array.array_ops import identity

                return identity(inner)
        return x if isinstance(x, Tensor) else convert_to_tensor(x)

    result = nest.map_structure(leaf, result)
    specs = nest.map_structure(
        lambda x: structure.DatasetSpec(x.element_spec) if isinstance(x, Dataset)
        else structure.TensorSpec(x.dtype.base_dtype, x.get_shape()), result)
    flat = [x._variant if isinstance(x, Dataset) else x for x in nest.flatten(result)]
    return specs, flat


class GeneratorFunction:
    """`Dataset.from_generator`'s callable, converted per element to the declared structure."""

    def __init__(self, generator, args, spec):
        self.name = f"__flowloom_generator_{next(_counter)}"
        self.generator = generator
        self.args = args
        self.spec = spec

    def attr(self):
        return attr_value_pb2.AttrValue(func=attr_value_pb2.NameAttrList(name=self.name))

    def make_generator(self):
        return iter(self.generator(*self.args))

    def convert(self, value):
        flat_specs = structure.flatten(self.spec)
        try:
            flat = nest.flatten_up_to(self.spec, value) if nest.is_nested(self.spec) \
                else [value]
        except (TypeError, ValueError) as e:
            raise TypeError(f"`generator` yielded an element that did not match the expected "
                            f"structure: {value!r}") from e
        out = []
        for v, spec in zip(flat, flat_specs):
            dtype = object if spec.dtype.name == "string" else spec.dtype.as_numpy_dtype
            arr = np.asarray(v, dtype=dtype)
            if not spec.shape.is_compatible_with(arr.shape):
                raise ValueError(f"`generator` yielded an element of shape {arr.shape} where "
                                 f"an element of shape {spec.shape} was expected.")
            out.append(arr)
        return tuple(out)


def traced_for(fdef):
    """The function traced in this process that wrote `fdef` (same name and text), or None."""
    fn = _TRACED.get(fdef.signature.name)
    if fn is not None and fn.fdef_bytes == fdef.SerializeToString(deterministic=True):
        return fn
    return None
