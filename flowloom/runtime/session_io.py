"""How `Session.run` maps its arguments: fetches (nested structures of graph elements) to a
flat list and back, registered composite types (SparseTensor, IndexedSlices), and fed values
to arrays checked against the fed tensor's dtype and shape. Kept out of the core session."""

import collections

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework.ops import Operation, Tensor, tensor_value_to_numpy
from flowloom.runtime import executor


# -- fetches: nested structures of graph elements -> a flat list, and back -------------------

def _flatten_fetch(fetch, graph, flat):
    """Appends the graph elements of `fetch` to `flat`; returns a function that rebuilds it."""
    if fetch is None:
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a "
                        "string or Tensor. (Can not convert a NoneType into a Tensor or "
                        "Operation.)")
    if isinstance(fetch, (Tensor, Operation, str, bytes)):
        try:
            el = graph.as_graph_element(fetch)
        except TypeError as e:
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be "
                            f"a string or Tensor. ({e})") from None
        except ValueError as e:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. "
                             f"({e})") from None
        except KeyError as e:
            raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. "
                             f"({e.args[0]})") from None
        i = len(flat)
        flat.append(el)
        return lambda vals: vals[i]
    custom = _custom_fetch(fetch)
    if custom is not None:
        parts, combine = custom
        builders = [_flatten_fetch(p, graph, flat) for p in parts]
        return lambda vals: combine([b(vals) for b in builders])
    if hasattr(fetch, "_as_graph_element"):
        return _flatten_fetch(fetch._as_graph_element(), graph, flat)
    if isinstance(fetch, dict):
        keys = list(fetch.keys())
        builders = [_flatten_fetch(fetch[k], graph, flat) for k in keys]
        cls = type(fetch)
        if cls is collections.defaultdict:
            def build_dd(vals):
                d = collections.defaultdict(fetch.default_factory)
                for k, b in zip(keys, builders):
                    d[k] = b(vals)
                return d
            return build_dd
        return lambda vals: cls((k, b(vals)) for k, b in zip(keys, builders))
    if isinstance(fetch, (list, tuple)):
        builders = [_flatten_fetch(f, graph, flat) for f in fetch]
        if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):
            cls = type(fetch)
            return lambda vals: cls(*[b(vals) for b in builders])
        if isinstance(fetch, tuple):
            return lambda vals: tuple(b(vals) for b in builders)
        return lambda vals: [b(vals) for b in builders]
    raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a string "
                    "or Tensor. (Can not convert a " + type(fetch).__name__ +
                    " into a Tensor or Operation.)")


_custom_fetch_fns = []  # (type, fn(fetch) -> (parts, combine))


def register_session_run_conversion_functions(tensor_type, fetch_function, feed_function=None,
                                              feed_function_for_partial_run=None):
    """Lets `Session.run` fetch and feed composite types (SparseTensor, IndexedSlices...)."""
    _custom_fetch_fns.append((tensor_type, fetch_function, feed_function))


def _custom_fetch(fetch):
    for cls, fetch_fn, _ in _custom_fetch_fns:
        if isinstance(fetch, cls):
            parts, combine = fetch_fn(fetch)
            return parts, combine
    return None


def _custom_feed(key, value):
    for cls, _, feed_fn in _custom_fetch_fns:
        if isinstance(key, cls) and feed_fn is not None:
            return feed_fn(key, value)
    return None



# -- fed values ---------------------------------------------------------------------------

def _fetched(value, tensor):
    try:
        return executor.fetch_value(value, tensor._op)
    except MemoryError as e:
        raise errors.ResourceExhaustedError(
            None, tensor._op, f"OOM when copying the fetched value of {tensor.name} (op "
            f"'{tensor._op._name}' of type {tensor._op._type}): {e}") from None


def _feed_array(tensor, value):
    dtype = tensor._dtype.base_dtype
    if dtype is dtypes.variant:
        return value  # an opaque run-time value (a dataset passed to a tf.data function)
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
                        "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
    if isinstance(value, int) and not isinstance(value, bool) and dtype.is_numpy_compatible \
            and dtype is not dtypes.string:
        # As TF: a Python int must survive the conversion (2**40 does not fit an int32).
        try:
            fits = dtype.as_numpy_dtype(value) == value
        except OverflowError:
            fits = False
        if not fits:
            raise TypeError(f"Type of feed value {value} with type {type(value)} is not "
                            f"compatible with Tensor type {dtype.name}. Try explicitly setting "
                            "the type of the feed tensor to a larger type (e.g. int64).")
    if isinstance(value, np.ndarray) and value.dtype == dtype.as_numpy_dtype:
        # A read-only view instead of a copy: no kernel may write into it, and a fetched
        # value that is still this buffer is copied on the way out (executor.fetch_value).
        arr = value.view()
        arr.flags.writeable = False
    else:
        try:
            arr = np.array(tensor_value_to_numpy(value, dtype), copy=True)
        except (TypeError, ValueError) as e:
            arr = np.asarray(value)
            if arr.dtype.kind in "fiub" and dtype.is_numpy_compatible:
                arr = arr.astype(dtype.as_numpy_dtype)
            else:
                raise TypeError(f"Cannot feed value {value!r} to Tensor {tensor.name} of dtype "
                                f"{dtype.name}: {e}") from None
    shape = tensor._shape
    if not shape.is_compatible_with(arr.shape):
        raise ValueError(f"Cannot feed value of shape {arr.shape!r} for Tensor {tensor.name}, "
                         f"which has shape {shape}")
    return arr
