"""Conversion of Python values, numpy arrays and Tensor-likes to Tensors (`convert_to_tensor`).

TF's rules: registered conversion functions first (Variables, IndexedSlices, lists holding
tensors), then a `Const` of the value, its dtype inferred as TF infers it (int -> int32,
float -> float32). Which functions apply is worked out once per Python type.
"""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework import lazy_registry

_conversion_functions = []  # (priority, type, fn), by priority
_functions_for_type = {}  # Python type -> the (fn,) of _conversion_functions that take it
_types_loaded = set()  # types whose registering modules lazy_registry has been asked for
_array_ops = None


def register_tensor_conversion_function(base_type, conversion_func, priority=100):
    """Registers `conversion_func(value, dtype=None, name=None, as_ref=False)` for a type."""
    lazy_registry.note_types("tensor_conversion", base_type)
    _conversion_functions.append((priority, base_type, conversion_func))
    _conversion_functions.sort(key=lambda e: e[0])
    _functions_for_type.clear()


def _functions_for(cls):
    fns = tuple(fn for _, base_type, fn in _conversion_functions if issubclass(cls, base_type))
    if len(_functions_for_type) < 4096:
        _functions_for_type[cls] = fns
    return fns


def convert_to_tensor(value, dtype=None, name=None, preferred_dtype=None, as_ref=False,
                      dtype_hint=None):
    """Converts `value` (Tensor, Variable, numpy array, Python value) to a Tensor."""
    if isinstance(value, Tensor):
        if dtype is not None:
            dtype = dtypes.as_dtype(dtype)
            if not dtype.is_compatible_with(value._dtype):
                raise ValueError(
                    f"Tensor conversion requested dtype {dtype.name} for Tensor with dtype "
                    f"{value._dtype.name}: {value!s}")
        return value
    if dtype is not None and type(dtype) is not dtypes.DType:
        dtype = dtypes.as_dtype(dtype)
    cls = type(value)
    fns = _functions_for_type.get(cls)
    if fns is None:
        fns = _functions_for(cls)
    for fn in fns:
        ret = fn(value, dtype=dtype, name=name, as_ref=as_ref)
        if ret is not NotImplemented:
            return ret
    if cls not in _types_loaded:
        if len(_types_loaded) < 4096:
            _types_loaded.add(cls)  # once asked, its modules are loaded
        if lazy_registry.load_type("tensor_conversion", cls):  # its module registers one
            return convert_to_tensor(value, dtype, name, preferred_dtype, as_ref, dtype_hint)
    global _array_ops
    if _array_ops is None:
        from flowloom.ops.array import array_ops as _array_ops
    preferred_dtype = preferred_dtype or dtype_hint
    if dtype is None and preferred_dtype is not None and _fits(value, preferred_dtype):
        try:
            return _array_ops.constant(value, dtype=preferred_dtype, name=name or "Const")
        except (TypeError, ValueError):
            pass
    return _array_ops.constant(value, dtype=dtype, name=name or "Const")


def _fits(value, dtype):
    """False for Python integers outside a preferred integer dtype: the preference is then
    dropped (tf.fill([2**50], 1.0) gets int64 dims, as in TF 2.x) where an explicit dtype
    would wrap them."""
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_integer or isinstance(value, np.ndarray):
        return True
    if isinstance(value, int) and not isinstance(value, bool):
        info = np.iinfo(dtype.as_numpy_dtype)
        return info.min <= value <= info.max
    if isinstance(value, (list, tuple)) and len(value) <= 4096 and all(
            isinstance(v, int) and not isinstance(v, bool) for v in value):
        info = np.iinfo(dtype.as_numpy_dtype)
        return all(info.min <= v <= info.max for v in value)
    return True


def convert_n_to_tensor(values, dtype=None, name=None, preferred_dtype=None):
    return [convert_to_tensor(v, dtype=dtype, preferred_dtype=preferred_dtype) for v in values]


def convert_to_tensor_or_indexed_slices(value, dtype=None, name=None):
    if hasattr(value, "indices") and hasattr(value, "values") and hasattr(value, "dense_shape"):
        return value
    return convert_to_tensor(value, dtype=dtype, name=name)


def tensor_value_to_numpy(value, dtype):
    """Converts a Python/numpy value to an array of `dtype` (a DType), TF's way."""
    npt = dtype.as_numpy_dtype
    if not isinstance(value, np.ndarray) and hasattr(value, "__array__"):
        value = np.asarray(value)  # TF calls a value's __array__() without a dtype
    if dtype.base_dtype is dtypes.string:
        arr = np.asarray(value, dtype=object)
        if arr is value or (isinstance(value, np.ndarray) and np.shares_memory(arr, value)):
            arr = arr.copy()  # the caller's array keeps its str elements
        flat = arr.reshape(-1)
        for i, v in enumerate(flat):
            if isinstance(v, str):
                flat[i] = v.encode("utf-8")
            elif not isinstance(v, bytes):
                raise TypeError(f"Expected string, got {v!r} of type '{type(v).__name__}' instead.")
        return arr
    if isinstance(value, np.ndarray) and value.dtype == npt:
        return value
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind in "biufc" and \
            dtype.is_numpy_compatible:
        # A NumPy value is cast as NumPy casts (float -> uint8 truncates), as TF's
        # make_tensor_proto does; only Python values are checked for compatibility.
        return np.asarray(value).astype(npt)
    arr = np.asarray(value)
    if arr.dtype.kind == "O" and not dtype.is_integer and _holds_dimension(arr):
        # As TF: only an integer dtype takes a Dimension (tf.constant([d], tf.float32) fails).
        from flowloom.framework.tensor_shape import Dimension

        bad = next(v for v in arr.reshape(-1) if isinstance(v, Dimension))
        raise TypeError(f"Expected {dtype.name}, got {bad!r} of type 'Dimension' instead.")
    arr = _dimensions_to_ints(arr)
    if arr.size == 0 and arr.dtype.kind == "f" and not isinstance(value, np.ndarray):
        return arr.astype(npt)  # `[]` (NumPy: float64) is an empty tensor of any dtype, as in TF
    if arr.dtype.kind in "OUS":
        raise TypeError(f"Expected {dtype.name}, got {value!r} of type '{type(value).__name__}' "
                        "instead.")
    if (dtype.is_integer or dtype.is_bool) and arr.dtype.kind in "fc":
        # As TF: a Python float is no integer, even a whole one (4.0); name the first.
        bad = next((v for v in _leaves(value) if isinstance(v, (float, complex))), value)
        raise TypeError(f"Expected {dtype.name}, got {bad!r} of type "
                        f"'{type(bad).__name__}' instead.")
    if dtype.is_bool and arr.dtype.kind != "b":
        raise TypeError(f"Expected bool, got {value!r} of type '{type(value).__name__}' instead.")
    # Integers out of the dtype's range wrap, as in TF 1.15 and 2.x (NumPy's integer cast):
    # tf.constant(-1, tf.uint8) is 255.
    return arr.astype(npt)


def _leaves(value):
    """The scalars of a nested list/tuple, in order."""
    if isinstance(value, (list, tuple)):
        for v in value:
            yield from _leaves(v)
    else:
        yield value


def _dimensions_to_ints(arr):
    """An object array of known Dimensions and ints as ints (TF1 code builds shapes from
    Dimensions: `[-1, x.shape[1] * x.shape[2]]`); any other array unchanged."""
    if arr.dtype.kind == "O" and arr.size and all(_is_int_like(v) for v in arr.reshape(-1)):
        return np.array([int(v) for v in arr.reshape(-1)]).reshape(arr.shape)
    return arr


def _holds_dimension(arr):
    from flowloom.framework.tensor_shape import Dimension

    return any(isinstance(v, Dimension) for v in arr.reshape(-1))


def _is_int_like(v):
    from flowloom.framework.tensor_shape import Dimension

    if isinstance(v, Dimension):
        return v.value is not None
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def _dense_dims(value):
    """The shape a nested list claims by its first elements (TF's _GetDenseDimensions)."""
    dims = []
    while isinstance(value, (list, tuple)):
        dims.append(len(value))
        if not value:
            break
        value = value[0]
    return dims


def _regular_dims(value):
    """The dimensions up to where a ragged nested list stops being regular."""
    dims, level = [], [value]
    while all(isinstance(v, (list, tuple)) for v in level) and \
            len({len(v) for v in level}) == 1:
        dims.append(len(level[0]))
        level = [x for v in level for x in v]
        if not level:
            break
    return dims


def infer_dtype(value):
    """TF's dtype for a Python value: int → int32, float → float32, str → string."""
    if isinstance(value, np.ndarray) or isinstance(value, np.generic):
        return dtypes.as_dtype(value.dtype)
    try:
        arr = np.asarray(value)
        if arr.dtype.kind == "O" and _holds_dimension(arr):
            # As TF: a Dimension has no dtype of its own; only a requested (or preferred)
            # integer dtype converts it (tf.constant([d], tf.int32), reshape's shape).
            raise TypeError(f"Failed to convert object of type {type(value)} to Tensor. "
                            f"Contents: {value}. Consider casting elements to a supported "
                            "type.")
    except ValueError:
        if isinstance(value, (list, tuple)):
            raise ValueError(f"Argument must be a dense tensor: {value} - got shape "
                             f"{_regular_dims(value)}, but wanted {_dense_dims(value)}.") from None
        raise
    kind = arr.dtype.kind
    if kind == "b":
        return dtypes.bool_
    if kind in "iu":
        if arr.size and (arr.max() > 2**31 - 1 or arr.min() < -2**31):
            return dtypes.int64
        return dtypes.int32
    if kind == "f":
        return dtypes.float32
    if kind == "c":
        return dtypes.complex128
    if kind in "USO":
        return dtypes.string
    raise TypeError(f"Cannot infer a TensorFlow dtype for {value!r}")


# Last: ops.py imports this module's names at its end, and this module needs ops.Tensor;
# either module may be imported first.
from flowloom.framework.ops import Tensor  # noqa: E402
