"""`tf.test`: TestCase, test main, gradient checks and the device queries tests make."""

import os as _os
import sys as _sys
from unittest import mock  # noqa: F401 - tf.test.mock

from flowloom.test.benchmark import Benchmark
from flowloom.test.gradient_checker import compute_gradient, compute_gradient_error
from flowloom.test.test_util import (TensorFlowTestCase as TestCase, assert_equal_graph_def,
                                     get_temp_dir, gpu_device_name, is_built_with_cuda,
                                     is_built_with_gpu_support, is_built_with_rocm,
                                     is_gpu_available)


def main(argv=None):
    """Runs the tests of `__main__` (absltest's runner, as TF's), then exits."""
    from absl.testing import absltest  # noqa: PLC0415

    if argv is None:
        return absltest.main()
    return absltest.main(argv=argv)


def test_src_dir_path(relative_path):
    """The path of `relative_path` inside the flowloom package (TF: inside its source tree)."""
    return _os.path.join(_os.path.dirname(_os.path.dirname(__file__)), relative_path)


def benchmark_config():
    """A `ConfigProto` for benchmarks (TF turns its graph optimizer off; flowloom has none)."""
    from flowloom.proto import config_pb2  # noqa: PLC0415

    return config_pb2.ConfigProto()


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """Not available in flowloom: raises NotImplementedError."""
    raise NotImplementedError("tf.test.create_local_cluster")


del _sys
