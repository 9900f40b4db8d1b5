"""Python functions as graph ops: tf.py_func / tf.numpy_function (PyFunc, PyFuncStateless)
and tf.py_function (EagerPyFunc).

The op carries only a token (`pyfunc_N`); the callable lives in this process's registry,
put there by the call that built the op. Nothing is ever deserialized: a GraphDef that names
a token this process did not register fails when it runs ("callback ... is not found").
"""

import itertools
import threading
import traceback

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import get_default_graph
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import unknown_shape


class FuncRegistry:
    """The callables of this process's py_func ops, by token."""

    def __init__(self):
        self._lock = threading.Lock()
        self._funcs = {}
        self._ids = itertools.count()

    def insert(self, func):
        with self._lock:
            token = f"pyfunc_{next(self._ids)}"
            self._funcs[token] = func
        return token

    def get(self, token):
        return self._funcs.get(token)

    def size(self):
        return len(self._funcs)


_py_funcs = FuncRegistry()

# Python exception classes and the TF error each becomes (as TF's py_func kernel maps them).
_ERROR_OF = ((StopIteration, errors.OutOfRangeError), (IndexError, errors.OutOfRangeError),
             (ValueError, errors.InvalidArgumentError), (TypeError, errors.InvalidArgumentError),
             (MemoryError, errors.ResourceExhaustedError),
             (NotImplementedError, errors.UnimplementedError))


class _EagerValue(np.ndarray):
    """An input of a tf.py_function callable: an array that also answers `.numpy()`."""

    def numpy(self):
        return np.asarray(self)


def _to_output(value, want, token, i, convert):
    if want == dtypes.string:
        arr = np.asarray(value, dtype=object)
        return np.vectorize(lambda v: v.encode("utf-8") if isinstance(v, str) else v,
                            otypes=[object])(arr) if arr.size else arr
    arr = np.asarray(value, dtype=want.as_numpy_dtype if convert else None, order="C")
    if arr.dtype != want.as_numpy_dtype:
        got = dtypes.as_dtype(arr.dtype).name if arr.dtype.kind in "biufc" else str(arr.dtype)
        raise errors.InvalidArgumentError(
            None, None, f"{i}-th value returned by {token} is {got}, but expects {want.name}")
    return arr


def _call(token, inputs, Tout, eager):
    func = _py_funcs.get(token)
    if func is None:
        raise errors.InvalidArgumentError(
            None, None, f"ValueError: callback {token} is not found (a py_func op runs only "
            f"the Python function registered by the program that built it)")
    args = [x.view(_EagerValue) if eager and isinstance(x, np.ndarray) else x for x in inputs]
    try:
        result = func(*args)
    except Exception as e:  # noqa: BLE001 - becomes the TF error class TF gives it
        cls = next((c for t, c in _ERROR_OF if isinstance(e, t)), errors.UnknownError)
        raise cls(None, None, f"{type(e).__name__}: {e}\nTraceback (most recent call last):\n"
                  + "".join(traceback.format_tb(e.__traceback__))) from e
    if not Tout:
        return []
    if isinstance(result, (tuple, list)):
        results = list(result)
    else:
        results = [result]
    if len(results) != len(Tout):
        raise errors.InvalidArgumentError(
            None, None, f"{token} returns {len(results)} values, but expects to see "
            f"{len(Tout)} values.")
    return [_to_output(r, dtypes.as_dtype(t), token, i, convert=eager)
            for i, (r, t) in enumerate(zip(results, Tout))]


def _define(op_type, stateful, eager):
    attrs = {"token": "", "Tin": [], "Tout": []}
    if eager:
        attrs["is_async"] = False
    od = defop(op_type, inputs=["input: list(Tin)"], outputs=["output: list(Tout)"],
               attrs=attrs, stateful=stateful)
    od.shape(lambda op: [unknown_shape() for _ in op._attrs["Tout"]])

    @od.kernel
    def _(xp, *inputs, token, Tout):
        return _call(token, inputs, Tout, eager)

    return od


PyFunc = _define("PyFunc", stateful=True, eager=False)
PyFuncStateless = _define("PyFuncStateless", stateful=False, eager=False)
EagerPyFunc = _define("EagerPyFunc", stateful=True, eager=True)
PyFunc.no_gradient()
PyFuncStateless.no_gradient()


def _internal_py_func(func, inp, Tout, stateful, eager, name):
    single = not isinstance(Tout, (list, tuple))
    tout = [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    token = _py_funcs.insert(func)
    # The graph keeps the callables its ops name alive for as long as it lives.
    get_default_graph().__dict__.setdefault("_py_funcs_used_in_graph", []).append(func)
    inputs = [convert_to_tensor(x) for x in inp]
    op_type = "EagerPyFunc" if eager else ("PyFunc" if stateful else "PyFuncStateless")
    op = apply_op(op_type, (inputs,), name=name, token=token,
                  Tin=[t.dtype.base_dtype for t in inputs], Tout=tout)
    if not tout:
        return op
    return op.outputs[0] if single else list(op.outputs)


def py_func(func, inp, Tout, stateful=True, name=None):
    """Wraps the Python function `func` (numpy arrays in, numpy arrays out) as an op.

    Args:
      func: called with one numpy array per tensor of `inp`; returns an array, or a list of
        arrays matching `Tout` (the dtypes must match exactly).
      inp: the input tensors.
      Tout: a dtype (one output, a tensor is returned) or a list of dtypes (a list returned).
      stateful: False lets the graph treat calls as pure (PyFuncStateless).
      name: an optional name.

    Returns:
      The output tensor(s); their shapes are unknown (set them with `set_shape`).

    The callable stays in this process: the op records only its token.
    """
    return _internal_py_func(func, inp, Tout, stateful, False, name)


def numpy_function(func, inp, Tout, name=None):
    """`py_func` with stateful=True (TF's name for it from 1.14 on)."""
    return _internal_py_func(func, inp, Tout, True, False, name)


def py_function(func, inp, Tout, name=None):
    """Wraps `func` as an op (EagerPyFunc); its arguments are arrays that also have
    `.numpy()`, and its results are converted to `Tout`. Not differentiable here."""
    return _internal_py_func(func, inp, Tout, True, True, name)
