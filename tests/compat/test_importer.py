"""The `tensorflow` import mapping in-process (flowloom.install_as_tensorflow)."""

import importlib
import subprocess
import sys

import pytest

import flowloom
from flowloom.compat import importer, module_map


@pytest.fixture
def as_tensorflow():
    if "tensorflow" in sys.modules and sys.modules["tensorflow"] is not flowloom:
        pytest.skip("the real TensorFlow is imported in this process")
    flowloom.install_as_tensorflow()
    yield
    importer.uninstall()


def test_tensorflow_is_flowloom(as_tensorflow):
    import tensorflow as tf
    import tensorflow.compat.v1 as tf_v1

    assert tf is flowloom and tf_v1 is flowloom
    assert importlib.import_module("tensorflow.nn") is flowloom.nn
    assert importlib.import_module("tensorflow.contrib.rnn") is flowloom.contrib.rnn
    assert flowloom.__spec__.name == "flowloom"  # the flowloom module keeps its own spec


def test_internal_paths(as_tensorflow):
    from tensorflow.core.framework import graph_pb2
    from tensorflow.python.framework import dtypes, ops
    from tensorflow.python.ops import array_ops, math_ops, nn_ops
    from tensorflow.python.platform import tf_logging
    from tensorflow.python.util import nest

    assert ops.reset_default_graph is flowloom.reset_default_graph
    assert ops.Graph is flowloom.Graph and dtypes.float32 is flowloom.float32
    assert array_ops.placeholder is flowloom.placeholder
    assert math_ops.reduce_sum is flowloom.reduce_sum and nn_ops.relu is flowloom.nn.relu
    assert graph_pb2.GraphDef is flowloom.GraphDef
    assert tf_logging.info is flowloom.logging.info
    assert nest.flatten([1, [2]]) == [1, 2]
    assert "placeholder" in dir(array_ops)


def test_every_mapped_module_imports(as_tensorflow):
    # Views whose flowloom namespace another engineer has not built yet still import; what
    # they lack fails at attribute access.
    for name in list(module_map.MODULES) + list(module_map.VIEWS):
        assert importlib.import_module(name).__name__


def test_missing_module_names_itself(as_tensorflow):
    with pytest.raises(ModuleNotFoundError, match="tensorflow.python.no_such_thing"):
        importlib.import_module("tensorflow.python.no_such_thing")
    with pytest.raises(ImportError, match="TF2 API"):
        importlib.import_module("tensorflow.compat.v2")
    with pytest.raises(NotImplementedError):
        importlib.import_module("tensorflow.keras")
    from tensorflow.python.ops import array_ops
    with pytest.raises(AttributeError, match="array_ops' has no attribute 'not_a_tf_name'"):
        array_ops.not_a_tf_name


def test_refuses_when_real_tensorflow_is_imported():
    code = ("import sys, types; sys.modules['tensorflow'] = types.ModuleType('tensorflow');"
            "import flowloom\ntry:\n flowloom.install_as_tensorflow()\n"
            "except RuntimeError as e:\n print('refused', 'before the first' in str(e))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.stdout.strip() == "refused True", out.stderr


def test_run_help_and_usage():
    from flowloom.cli.main import main

    assert main(["run", "--help"]) == 0
    assert main(["run"]) == 2


def test_version_reads_tf_115_under_the_alias():
    """TF1 scripts compare tensorflow.__version__; plain flowloom keeps its own version."""
    assert flowloom.__version__ == flowloom.version.FLOWLOOM_VERSION
    assert flowloom.VERSION == flowloom.version.VERSION == "1.15.5"
    if "tensorflow" in sys.modules and sys.modules["tensorflow"] is not flowloom:
        pytest.skip("the real TensorFlow is imported in this process")
    flowloom.install_as_tensorflow()
    try:
        import tensorflow as tf

        assert tf.__version__ == "1.15.5" and tf.version.VERSION == "1.15.5"
        assert tuple(int(p) for p in tf.__version__.split(".")) >= (1, 4)
    finally:
        importer.uninstall()
    assert flowloom.__version__ == flowloom.version.FLOWLOOM_VERSION
