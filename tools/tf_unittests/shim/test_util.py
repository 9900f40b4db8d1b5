"""`tensorflow.python.framework.test_util` for TF's tests run on flowloom, in graph mode only.

The decorators select what TF 1.15 runs in TF1 graph mode: `run_deprecated_v1`, `run_v1_only`
and the graph half of `run_in_graph_and_eager_modes` run; eager halves are not run;
`run_v2_only`, control-flow-v2 and GPU-only tests skip with a reason starting "excluded:".
The test case, device queries and graph comparison are flowloom's own
(`flowloom.test.test_util`); this module adds only TF's test-selection decorators.
"""

import contextlib
import functools
import inspect
import unittest

from flowloom.framework.graph import device as _device
from flowloom.test import test_util as _flowloom_test_util
from flowloom.test.test_util import (ErrorLoggingSession, TensorFlowTestCase,  # noqa: F401
                                     assert_equal_graph_def, gpu_device_name,
                                     is_gpu_available)

from .importer import Missing


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    if hasattr(_flowloom_test_util, name):
        return getattr(_flowloom_test_util, name)
    return Missing(f"tensorflow.python.framework.test_util.{name}")


def _test_methods(cls):
    return [(n, v) for n, v in list(cls.__dict__.items())
            if n.startswith("test") and callable(v)]


def for_all_test_methods(decorator, *args, **kwargs):
    """Applies `decorator(*args, **kwargs)` to every test method of a class."""
    def all_test_methods_impl(cls):
        for name, value in _test_methods(cls):
            setattr(cls, name, decorator(*args, **kwargs)(value))
        return cls
    return all_test_methods_impl


def _excluded(reason):
    """A decorator (for methods or classes) that skips with `excluded: reason`."""
    def decorator(obj):
        if inspect.isclass(obj):
            for name, value in _test_methods(obj):
                setattr(obj, name, decorator(value))
            return obj

        @functools.wraps(obj)
        def skipped(self, *args, **kwargs):
            raise unittest.SkipTest(f"excluded: {reason}")
        return skipped
    return decorator


def _identity_decorator(*args, **kwargs):
    """`@deco` and `@deco("reason")` both leave the function as it is."""
    if len(args) == 1 and not kwargs and (callable(args[0]) or inspect.isclass(args[0])):
        return args[0]
    return lambda f: f


def deprecated_graph_mode_only(func=None):
    """Graph mode: the test (method or class) runs as it is."""
    return func if func is not None else (lambda f: f)


run_deprecated_v1 = deprecated_graph_mode_only


def run_v1_only(reason, func=None):
    if not isinstance(reason, str):
        raise ValueError("'reason' should be string, got {}".format(type(reason)))
    return func if func is not None else (lambda f: f)


disable_xla = _identity_decorator
disable_all_xla = _identity_decorator
xla_allow_fallback = _identity_decorator
no_xla_auto_jit = _identity_decorator
enable_c_shapes = _identity_decorator
with_c_shapes = _identity_decorator
disable_control_flow_v2 = _identity_decorator
assert_no_new_tensors = _identity_decorator
assert_no_garbage_created = _identity_decorator
use_deterministic_cudnn = _identity_decorator
# TF adds control-flow-v2 copies of each test; graph mode v1 runs the originals only.
with_control_flow_v2 = _identity_decorator
enable_output_all_intermediates = _identity_decorator


def assert_no_new_pyobjects_executing_eagerly(f=None, **kwargs):
    return f if f is not None else (lambda g: g)


def run_v2_only(func=None):
    return _excluded("TF2-only (run_v2_only)")(func) if func is not None else \
        _excluded("TF2-only (run_v2_only)")


enable_control_flow_v2 = _excluded("control flow v2 (enable_control_flow_v2)")
enable_tensor_equality = _excluded("TF2 tensor equality (enable_tensor_equality)")


def run_gpu_only(func=None):
    def decorator(f):
        @functools.wraps(f)
        def decorated(self, *args, **kwargs):
            if not is_gpu_available():
                raise unittest.SkipTest("excluded: GPU-only (run_gpu_only)")
            return f(self, *args, **kwargs)
        return decorated
    return decorator(func) if func is not None else decorator


run_cuda_only = run_gpu_only


def run_in_graph_and_eager_modes(func=None, config=None, use_gpu=True, reset_test=True,
                                 assert_no_eager_garbage=False):
    """Runs the graph half only: the test body inside `self.test_session(use_gpu=...)`."""
    def decorator(f):
        if inspect.isclass(f):
            raise ValueError("`run_in_graph_and_eager_modes` only supports test methods. "
                             "Did you mean to use `run_all_in_graph_and_eager_modes`?")

        @functools.wraps(f)
        def decorated(self, *args, **kwargs):
            with self.test_session(use_gpu=use_gpu, config=config):
                f(self, *args, **kwargs)
        return decorated
    return decorator(func) if func is not None else decorator


def run_all_in_graph_and_eager_modes(cls):
    for name, value in _test_methods(cls):
        setattr(cls, name, run_in_graph_and_eager_modes(value))
    return cls


def also_run_as_tf_function(f):
    return f


def build_as_function_and_v1_graph(func=None):
    return func if func is not None else (lambda f: f)


def skip_if(condition):
    def decorator(f):
        @functools.wraps(f)
        def decorated(self, *args, **kwargs):
            if callable(condition) and condition() or not callable(condition) and condition:
                raise unittest.SkipTest("Test skipped by skip_if")
            return f(self, *args, **kwargs)
        return decorated
    return decorator


def IsGoogleCudaEnabled():  # noqa: N802 - TF's name
    return False


def IsBuiltWithROCm():  # noqa: N802
    return False


def IsMklEnabled():  # noqa: N802
    return False


def GpuSupportsHalfMatMulAndConv():  # noqa: N802
    return False


def is_xla_enabled():
    return False


@contextlib.contextmanager
def device(use_gpu):
    """Pins ops to the GPU when `use_gpu` and one exists, else to the CPU."""
    name = "/device:GPU:0" if use_gpu and is_gpu_available() else "/device:CPU:0"
    with _device(name):
        yield


@contextlib.contextmanager
def use_gpu():
    with device(use_gpu=True):
        yield


@contextlib.contextmanager
def force_cpu():
    with device(use_gpu=False):
        yield


@contextlib.contextmanager
def force_gpu():
    with _device("/device:GPU:0"):
        yield


def get_node_def_from_graph(node_name, graph_def):
    for node_def in graph_def.node:
        if node_def.name == node_name:
            return node_def
    return None
