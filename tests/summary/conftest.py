import os
import subprocess

import pytest

from tests import tf_reference

TF_PYTHON = tf_reference.tensorflow_python()


@pytest.fixture(scope="session")
def run_tf():
    """Runs a Python snippet under real TensorFlow (skips when none is installed).

    flowloom's protos and TF's share protobuf names, so TF runs in its own process.
    """
    if TF_PYTHON is None:
        pytest.skip(tf_reference.skip_reason())

    def run(code, *args):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        out = subprocess.run([TF_PYTHON, "-c", code, *args], capture_output=True, text=True,
                             timeout=120, env=env)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout

    return run
