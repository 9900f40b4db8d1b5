"""`tf.test`: TestCase, test main, gradient checks and the device queries tests make."""

import importlib as _importlib
import os as _os

from flowloom.test.benchmark import Benchmark
from flowloom.test.gradient_checker import compute_gradient, compute_gradient_error

# absltest and unittest.mock are imported on first use, not with flowloom: a program that
# never tests should not carry them (nor fork them into every child process).
_LAZY = {"TestCase": ("flowloom.test.test_util", "TensorFlowTestCase"),
         "mock": ("unittest.mock", None)}
_LAZY.update({n: ("flowloom.test.test_util", n) for n in (
    "assert_equal_graph_def", "get_temp_dir", "gpu_device_name", "is_built_with_cuda",
    "is_built_with_gpu_support", "is_built_with_rocm", "is_gpu_available")})


def __getattr__(name):
    if name not in _LAZY:
        raise AttributeError(f"module 'flowloom.test' has no attribute '{name}'")
    module, attr = _LAZY[name]
    value = _importlib.import_module(module)
    value = getattr(value, attr) if attr else value
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def main(argv=None):
    """Runs the tests of `__main__` (absltest's runner, as TF's), then exits."""
    from absl.testing import absltest  # noqa: PLC0415

    if argv is None:
        return absltest.main()
    return absltest.main(argv=argv)


def test_src_dir_path(relative_path):
    """The path of `relative_path` in the source tree of the test: under a Bazel-style
    $TEST_SRCDIR as TF (`$TEST_SRCDIR/org_tensorflow/tensorflow/relative_path`), else inside
    the flowloom package."""
    srcdir = _os.environ.get("TEST_SRCDIR")
    if srcdir:
        return _os.path.join(srcdir, "org_tensorflow", "tensorflow", relative_path)
    return _os.path.join(_os.path.dirname(_os.path.dirname(__file__)), relative_path)


def benchmark_config():
    """A `ConfigProto` for benchmarks (TF turns its graph optimizer off; flowloom has none)."""
    from flowloom.proto import config_pb2  # noqa: PLC0415

    return config_pb2.ConfigProto()


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """TF's local cluster for tests: (workers, ps_servers), servers in this process
    (flowloom/distributed/inprocess.py)."""
    from flowloom.test import test_util  # noqa: PLC0415

    return test_util.create_local_cluster(num_workers, num_ps, protocol, worker_config,
                                          ps_config)

