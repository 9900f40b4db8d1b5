"""Real TensorBoard reads flowloom's event files (optional extra `flowloom[board]`).

Runs when `tensorboard` is importable here, or when FLOWLOOM_TENSORBOARD_PYTHON names an
interpreter that has it; otherwise skipped. TensorBoard is started on 127.0.0.1 on a free
port with the slow-but-pure-Python event loader, its HTTP data API is read, and it is
stopped.
"""

import importlib.util
import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

import numpy as np
import pytest

import flowloom as tf


def _tensorboard_python():
    explicit = os.environ.get("FLOWLOOM_TENSORBOARD_PYTHON")
    if explicit:
        return explicit
    if importlib.util.find_spec("tensorboard") is not None:
        return sys.executable
    pytest.skip("tensorboard is not installed (pip install flowloom[board])")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_logs(logdir):
    with tf.device("/cpu:0"):
        x = tf.placeholder(tf.float32, [None], name="x")
        with tf.name_scope("model"), tf.name_scope("dense"):
            y = tf.multiply(x, 2.0, name="Mul")
    with tf.name_scope("stats"):
        tf.summary.scalar("loss", tf.reduce_sum(x))
        tf.summary.histogram("values", y)
    tf.summary.image("pic", tf.reshape(x[:12], [1, 2, 2, 3]), max_outputs=1)
    merged = tf.summary.merge_all()
    with tf.Session() as sess:
        writer = tf.summary.FileWriter(logdir, sess.graph)
        for step in range(4):
            values = np.linspace(0, 1, 12, dtype=np.float32) * (step + 1)
            writer.add_summary(sess.run(merged, {x: values}), global_step=step)
    writer.close()


def _get(port, path, **query):
    url = f"http://127.0.0.1:{port}{path}"
    if query:
        url += "?" + urllib.parse.urlencode(query)
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.read()


def _wait_for(port, proc, path, ready, timeout=60, **query):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.poll() is not None:
            raise AssertionError("TensorBoard exited: " + proc.stdout.read().decode()[-2000:])
        try:
            data = json.loads(_get(port, path, **query))
            if ready(data):
                return data
        except (urllib.error.URLError, ConnectionError, json.JSONDecodeError):
            pass
        time.sleep(0.5)
    raise AssertionError(f"TensorBoard did not serve {path} in time")


def test_tensorboard_shows_flowloom_scalars_histograms_images_and_graph(tmp_path):
    python = _tensorboard_python()
    run_dir = tmp_path / "run1"
    _write_logs(str(run_dir))
    port = _free_port()
    proc = subprocess.Popen(
        [python, "-m", "tensorboard.main", "--logdir", str(tmp_path), "--host", "127.0.0.1",
         "--port", str(port), "--load_fast", os.environ.get("FLOWLOOM_TENSORBOARD_LOAD_FAST", "false"), "--reload_interval", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        tags = _wait_for(port, proc, "/data/plugin/scalars/tags",
                         lambda d: "stats/loss" in d.get("run1", {}))
        assert "run1" in tags
        scalars = json.loads(_get(port, "/data/plugin/scalars/scalars", run="run1",
                                  tag="stats/loss"))
        assert [s[1] for s in scalars] == [0, 1, 2, 3]
        np.testing.assert_allclose([s[2] for s in scalars], [6.0, 12.0, 18.0, 24.0], rtol=1e-6)

        histos = _wait_for(port, proc, "/data/plugin/histograms/histograms",
                           lambda d: len(d) == 4, run="run1", tag="stats/values")
        _, step, buckets = histos[-1]
        assert step == 3
        assert sum(b[2] for b in buckets) == pytest.approx(12)
        assert min(b[0] for b in buckets) <= 0 and max(b[1] for b in buckets) >= 8 * 0.999

        images = _wait_for(port, proc, "/data/plugin/images/images", lambda d: len(d) == 4,
                           run="run1", tag="pic/image", sample=0)
        assert images[-1]["step"] == 3
        png = _get(port, "/data/plugin/images/individualImage?" + images[-1]["query"])
        assert png.startswith(b"\x89PNG\r\n\x1a\n")

        graph = _get(port, "/data/plugin/graphs/graph", run="run1").decode()
        # The graph tab groups by name scope and shows devices and output shapes.
        assert 'name: "model/dense/Mul"' in graph and 'device: "/device:CPU:0"' in graph
        assert "_output_shapes" in graph
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
