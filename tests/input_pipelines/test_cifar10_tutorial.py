"""TF's CIFAR-10 tutorial, unchanged, on flowloom (tools/cifar10_tutorial/run.py). Needs the
tutorial's files (tools/cifar10_tutorial/manifest.json) in FLOWLOOM_CIFAR10_TUTORIAL."""

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TUTORIAL = os.environ.get("FLOWLOOM_CIFAR10_TUTORIAL")


@pytest.mark.skipif(not TUTORIAL, reason="set FLOWLOOM_CIFAR10_TUTORIAL to the directory "
                    "holding the CIFAR-10 tutorial's files (tools/cifar10_tutorial/manifest.json)")
def test_cifar10_tutorial_trains_then_evaluates(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cifar10_tutorial",
                                                        "run.py"), "--steps", "30",
                           "--work", str(tmp_path)], capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["cifar10_train.py"]["returncode"] == 0
    assert summary["cifar10_eval.py"]["precision_at_1"] > 0.2  # chance: 0.1


@pytest.mark.skipif(not TUTORIAL or not os.path.isdir(os.path.join(TUTORIAL or "", "multi_tower")),
                    reason="set FLOWLOOM_CIFAR10_TUTORIAL to the directory holding the CIFAR-10 "
                    "tutorial's files, the multi_tower set in its multi_tower/ subdirectory")
def test_cifar10_multi_gpu_tutorial_trains_in_towers_then_evaluates(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cifar10_tutorial",
                                                        "run.py"), "--set", "multi_tower",
                           "--steps", "30", "--work", str(tmp_path)], capture_output=True,
                          text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    summary = json.loads(proc.stdout.strip().splitlines()[-1])
    assert summary["cifar10_multi_gpu_train.py"]["returncode"] == 0
    assert summary["cifar10_eval.py"]["precision_at_1"] > 0.2  # chance: 0.1


@pytest.mark.skipif(not TUTORIAL or not os.path.isdir(os.path.join(TUTORIAL or "", "multi_tower")),
                    reason="needs the multi_tower set in FLOWLOOM_CIFAR10_TUTORIAL/multi_tower")
def test_cifar10_multi_gpu_tutorial_as_fetched_stops_where_tf_stops(tmp_path):
    proc = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "cifar10_tutorial",
                                                        "run.py"), "--set", "multi_tower",
                           "--unchanged", "--steps", "2", "--work", str(tmp_path)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 1
    assert ("ValueError: Variable conv1/weights/ExponentialMovingAverage/ does not exist, or "
            "was not created with tf.get_variable()") in proc.stderr
