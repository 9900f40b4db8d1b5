"""How `Session.run` maps its arguments: fetches (nested structures of graph elements) to a
flat list and back, registered composite types (SparseTensor, IndexedSlices), and fed values
to arrays checked against the fed tensor's dtype and shape. Kept out of the core session."""

import collections

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import errors
from flowloom.framework import lazy_registry
from flowloom.framework import variant
from flowloom.framework.ops import Operation, Tensor, tensor_value_to_numpy
from flowloom.runtime import executor
from flowloom.runtime.devices import DeviceAttributes as _DeviceAttributes  # noqa: F401 - TF's


# -- fetches: nested structures of graph elements -> a flat list, and back -------------------

def _flatten_fetch(fetch, graph, flat):
    """Appends the graph elements of `fetch` to `flat`; returns a function that rebuilds it."""
    if fetch is None:
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch)}, must be a "
                        "string or Tensor. (Can not convert a NoneType into a Tensor or "
                        "Operation.)")
    if isinstance(fetch, bytes):
        fetch = fetch.decode("utf-8")
    if isinstance(fetch, (Tensor, Operation, str)):
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
    if type(fetch) is list or type(fetch) is tuple:
        # (a plain list or tuple is a structure before any registered type, as in TF's
        # fetch mapper: no conversion lookup for it)
        builders = [_flatten_fetch(f, graph, flat) for f in fetch]
        if type(fetch) is tuple:
            return lambda vals: tuple(b(vals) for b in builders)
        return lambda vals: [b(vals) for b in builders]
    custom = _custom_fetch(fetch)
    if custom is not None:
        parts, combine = custom
        builders = [_flatten_fetch(p, graph, flat) for p in parts]
        return lambda vals: combine([b(vals) for b in builders])
    if hasattr(fetch, "_as_graph_element"):
        return _flatten_fetch(fetch._as_graph_element(), graph, flat)
    attrs_fields = getattr(type(fetch), "__attrs_attrs__", None)
    if attrs_fields is not None:  # an `attr.s` class: its fields, rebuilt as the same class
        builders = [_flatten_fetch(getattr(fetch, a.name), graph, flat) for a in attrs_fields]
        cls = type(fetch)
        return lambda vals: cls(*[b(vals) for b in builders])
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


# (type, fn(fetch) -> (parts, combine), feed fn). Registrations are indexed
# (flowloom/framework/lazy_registry.py): a fetched SparseTensor finds its conversion even
# before the module that registers it is imported.
_custom_fetch_fns = []


def register_session_run_conversion_functions(tensor_type, fetch_function, feed_function=None,
                                              feed_function_for_partial_run=None):
    """Lets `Session.run` fetch and feed composite types (SparseTensor, IndexedSlices...)."""
    for registered, _, _ in _custom_fetch_fns:
        if issubclass(registered, tensor_type):
            raise ValueError(f"{tensor_type} has already been registered so ignore it.")
    lazy_registry.note_types("fetch_type", tensor_type)
    _custom_fetch_fns.append((tensor_type, fetch_function, feed_function))


def _find_conversion(value, want_feed):
    for retry in (False, True):
        for cls, fetch_fn, feed_fn in _custom_fetch_fns:
            if isinstance(value, cls) and (feed_fn is not None or not want_feed):
                return fetch_fn, feed_fn
        if retry or not lazy_registry.load_type("fetch_type", type(value)):
            return None


def _custom_fetch(fetch):
    found = _find_conversion(fetch, False)
    return found[0](fetch) if found else None


def _custom_feed(key, value):
    if isinstance(key, (str, bytes)):
        return None
    found = _find_conversion(key, True)
    return found[1](key, value) if found else None


# -- fed values ---------------------------------------------------------------------------

def _fetched(value, tensor):
    if tensor._dtype is dtypes.variant and variant.is_variant_array(value):
        # As TF: a variant tensor's elements have no NumPy form to return.
        raise errors.InternalError(None, tensor._op,
                                   "Tensorflow type 21 not convertible to numpy dtype.")
    if tensor._dtype is dtypes.string_ref and hasattr(value, "fetched_handle"):
        return value.fetched_handle()  # a resource's Ref(string) handle: [container, name]
    if tensor._dtype is dtypes.resource:
        # A `resource` tensor's value is the handle itself, not the variable it names (a
        # function body returns it to the loop that feeds it back, as TF passes handles).
        return value
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
    if dtype is dtypes.resource and type(value) is executor.Ref:
        return value  # a variable's handle, as a `resource` fetch gave it
    if isinstance(value, Tensor):
        raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
                        "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
    if isinstance(value, int) and not isinstance(value, bool) and dtype.is_numpy_compatible:
        # As TF: a Python int must survive the conversion (2**40 does not fit an int32; as a
        # string it becomes str(value), which is not the int).
        try:
            fits = dtype is not dtypes.string and dtype.as_numpy_dtype(value) == value
        except OverflowError:
            fits = False
        if not fits:
            raise TypeError(f"Type of feed value {value} with type {type(value)} is not "
                            f"compatible with Tensor type {dtype.name}. Try explicitly setting "
                            "the type of the feed tensor to a larger type (e.g. int64).")
    if isinstance(value, np.ndarray) and value.dtype == dtype.as_numpy_dtype and \
            dtype is not dtypes.string:  # a string array's str elements become bytes below
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


# -- Session arguments -----------------------------------------------------------------------

def check_session_args(target, config):
    """TF's checks of `Session(target, graph, config)` arguments.

    Raises:
      TypeError: a target that is not a string, or a config that is not a ConfigProto.
      NotFoundError: a target no session kind serves (flowloom: "", grpc:// and inproc://).
    """
    if not isinstance(target, (str, bytes)):
        raise TypeError(f"target must be a string, but got {type(target)}")
    if config is not None:
        from flowloom.proto import config_pb2  # only for a given config: it loads protobuf

        if not isinstance(config, config_pb2.ConfigProto):
            raise TypeError(f"config must be a tf.ConfigProto, but got {type(config)}")
    target = target.decode() if isinstance(target, bytes) else target
    if target and "://" not in target:
        raise errors.NotFoundError(
            None, None, "No session factory registered for the given session options: "
            f"{{target: \"{target}\" config: {config or ''}}} Registered factories are "
            "{DIRECT_SESSION, GRPC_SESSION}.")


def interactive_config(config):
    """InteractiveSession's config: as TF, it places only the pruned graph it runs."""
    from flowloom.proto import config_pb2

    out = config_pb2.ConfigProto()
    if config is not None:
        out.CopyFrom(config)
    out.graph_options.place_pruned_graph = True
    return out


def callable_from_options(session, callable_options):
    """`Session._make_callable_from_options`: fetches, feeds and targets by name, run with
    the options' `run_options`; the callable takes the feed values in order (and
    `run_metadata=`) and returns the list of fetched values."""
    if callable_options.tensor_connection:
        raise NotImplementedError("CallableOptions.tensor_connection is not implemented in "
                                  "flowloom")
    graph = session.graph
    feeds = tuple(session._feed_tensor(name, graph) for name in callable_options.feed)
    fetches = [graph.as_graph_element(name, allow_operation=False)
               for name in callable_options.fetch]
    targets = [graph.as_graph_element(name, allow_tensor=False)
               for name in callable_options.target]
    options = callable_options.run_options if callable_options.HasField("run_options") \
        else None

    def call(*args, run_metadata=None):
        if len(args) != len(feeds):
            raise errors.InvalidArgumentError(
                None, None, f"Expected {len(feeds)} feed values, got {len(args)}")
        if run_metadata is not None:
            run_metadata.Clear()
        vals = [_feed_array(t, v) for t, v in zip(feeds, args)]
        return session._run_flat(feeds, vals, fetches, targets, options, run_metadata)

    return call
