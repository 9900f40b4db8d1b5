"""The CIFAR-10-style example (flowloom/examples/queue_towers.py): trains from queues in two
towers under MonitoredTrainingSession, is killed, resumes from its latest checkpoint, and its
evaluation (moving-average shadow variables restored) beats chance by far."""

import os
import re
import signal
import subprocess
import sys
import time

from flowloom.examples import queue_towers
from flowloom.examples.cifar10_format import RECORD_BYTES, write_cifar10_binaries

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _cmd(data, train, *extra):
    return [sys.executable, "-m", "flowloom.examples.queue_towers", "--data_dir", data,
            "--train_dir", train, "--batch_size", "16", "--save_every", "10",
            "--log_every", "5", *extra]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    return env


def test_cifar10_format_files(tmp_path):
    where, n_train, n_test = write_cifar10_binaries(str(tmp_path))
    sizes = [os.path.getsize(os.path.join(where, f"data_batch_{i}.bin")) for i in range(1, 6)]
    assert sum(sizes) == n_train * RECORD_BYTES
    assert os.path.getsize(os.path.join(where, "test_batch.bin")) == n_test * RECORD_BYTES


def test_train_killed_resumes_then_evaluates(tmp_path, capsys):
    data, train = str(tmp_path / "data"), str(tmp_path / "train")
    write_cifar10_binaries(data)
    from flowloom.train.checkpoint_management import latest_checkpoint

    proc = subprocess.Popen(_cmd(data, train, "--max_steps", "1000"), cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        deadline = time.time() + 120
        while time.time() < deadline:
            latest = latest_checkpoint(train) if os.path.isdir(train) else None
            if latest and not latest.endswith("-0"):
                break
            time.sleep(0.2)
        else:
            raise AssertionError("no checkpoint after 120 s")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    killed_at = int(latest_checkpoint(train).rsplit("-", 1)[1])
    assert killed_at >= 10
    # The restart and the evaluation run in this process (one interpreter start less each).
    assert queue_towers.main(_cmd(data, train, "--max_steps", str(killed_at + 15))[3:]) == 0
    out = capsys.readouterr().out
    steps = [int(s) for s in re.findall(r"^step (\d+),", out, re.M)]
    assert steps and steps[0] > killed_at  # resumed from the checkpoint, not from step 0
    assert latest_checkpoint(train).endswith(f"-{killed_at + 15}")
    assert queue_towers.main(_cmd(data, train, "--eval")[3:]) == 0
    out = capsys.readouterr().out
    precision = float(re.search(r"precision @ 1 = ([0-9.]+)", out).group(1))
    # chance is 0.1 (0.016 standard deviation over the 359 test digits); how far training got
    # before the kill depends on the machine's load
    assert precision > 0.2
