"""GPU devices, with a stand-in for CuPy (this machine has no GPU; bench/gpu_check.py runs
the real thing): listing, naming, placement and Send/Recv pairs between host and GPU."""

import sys
import types

import numpy as np
import pytest

import flowloom as tf

LOCAL = "/job:localhost/replica:0/task:0"


class _FakeDeviceContext:
    def __init__(self, i):
        self.i = i

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _fake_cupy(count):
    """A module that answers like CuPy with `count` devices and computes with NumPy."""
    mod = types.ModuleType("cupy")
    mod.__getattr__ = lambda name: getattr(np, name)
    mod.asarray = lambda a, dtype=None: np.array(a, dtype=dtype, copy=True)
    runtime = types.SimpleNamespace(getDeviceCount=lambda: count,
                                    memGetInfo=lambda: (2 << 30, 4 << 30))
    mod.cuda = types.SimpleNamespace(runtime=runtime, Device=_FakeDeviceContext)
    return mod


@pytest.fixture
def fake_gpus(monkeypatch):
    monkeypatch.delenv("FLOWLOOM_NO_GPU", raising=False)
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy(2))


def test_gpus_are_listed_after_cpus(fake_gpus):
    with tf.Session() as sess:
        devs = sess.list_devices()
    assert [d.name for d in devs] == [f"{LOCAL}/device:CPU:0", f"{LOCAL}/device:GPU:0",
                                      f"{LOCAL}/device:GPU:1"]
    assert devs[1].device_type == "GPU" and devs[1].memory_limit_bytes == 4 << 30


def test_device_count_and_visible_list_limit_gpus(fake_gpus):
    config = tf.ConfigProto(device_count={"GPU": 1})
    with tf.Session(config=config) as sess:
        assert [d.device_type for d in sess.list_devices()] == ["CPU", "GPU"]
    config = tf.ConfigProto(device_count={"GPU": 0})
    with tf.Session(config=config) as sess:
        assert [d.device_type for d in sess.list_devices()] == ["CPU"]
    config = tf.ConfigProto()
    config.gpu_options.visible_device_list = "1"
    with tf.Session(config=config) as sess:
        gpus = [d for d in sess._devices if d.device_type == "GPU"]
    assert [(d.name[-5:], d.cuda_id) for d in gpus] == [("GPU:0", 1)]


def test_tower_on_gpu_with_variables_on_cpu(fake_gpus):
    with tf.device("/cpu:0"):
        w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
        x = tf.placeholder(tf.float32, [2, 3], name="x")
    with tf.device("/gpu:0"):
        y = tf.nn.relu(tf.matmul(x, w) - 4.0, name="y")
    with tf.device("/cpu:0"):
        total = tf.reduce_sum(y, name="total")
    with tf.Session() as sess:
        sess.run(w.initializer)
        md = tf.RunMetadata()
        xv = np.ones([2, 3], np.float32)
        got = sess.run([total, y], {x: xv}, options=tf.RunOptions(output_partition_graphs=True),
                       run_metadata=md)
    want = np.maximum(xv @ np.arange(6, dtype=np.float32).reshape(3, 2) - 4.0, 0)
    np.testing.assert_allclose(got[1], want)
    assert got[0] == want.sum()
    pairs = sorted((n.input[0], n.attr["recv_device"].s.decode()[-5:])
                   for g in md.partition_graphs for n in g.node if n.op == "_Send")
    # The fed x and w's read go to the GPU once each; y comes back once (for the sum and
    # the fetch alike: one pair per tensor and destination).
    assert pairs == [("_arg_x_0_0", "GPU:0"), ("w/read", "GPU:0"), ("y", "CPU:0")]


def test_string_ops_stay_on_the_host(fake_gpus):
    with tf.device("/gpu:0"):
        s = tf.constant("abc", name="s")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="Could not satisfy explicit device specification "
                                 "'/device:GPU:0' because no supported kernel for GPU"):
            sess.run(s)
    with tf.Session(config=tf.ConfigProto(allow_soft_placement=True)) as sess:
        assert sess.run(s) == b"abc"
        assert sess._placer.placement[s.op].device_type == "CPU"


def test_variable_on_gpu_is_assigned_and_read_there(fake_gpus, monkeypatch):
    with tf.device("/gpu:0"):
        v = tf.Variable(np.ones(3, np.float32), name="v")
        inc = tf.assign_add(v, np.full(3, 2.0, np.float32))
    with tf.Session() as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(inc), [3.0, 3.0, 3.0])
        assert sess._placer.placement[v.op].name.endswith("GPU:0")
