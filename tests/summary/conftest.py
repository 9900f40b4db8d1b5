import os
import subprocess

import pytest

TF_PYTHON = os.environ.get("FLOWLOOM_TF_PYTHON", "/work/tfvenv/bin/python")


@pytest.fixture(scope="session")
def run_tf():
    """Runs a Python snippet under real TensorFlow (skips when none is installed).

    flowloom's protos and TF's share protobuf names, so TF runs in its own process.
    """
    if not os.path.exists(TF_PYTHON):
        pytest.skip(f"no TensorFlow interpreter at {TF_PYTHON}")

    def run(code, *args):
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3", CUDA_VISIBLE_DEVICES="")
        out = subprocess.run([TF_PYTHON, "-c", code, *args], capture_output=True, text=True,
                             timeout=120, env=env)
        assert out.returncode == 0, out.stderr[-3000:]
        return out.stdout

    return run
