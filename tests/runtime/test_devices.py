"""Devices, placement, soft placement, log_device_placement, colocation."""

import numpy as np
import pytest

import flowloom as tf

LOCAL = "/job:localhost/replica:0/task:0"


def _config(cpus=2, **kwargs):
    return tf.ConfigProto(device_count={"CPU": cpus}, **kwargs)


def test_device_count_gives_n_cpu_devices():
    with tf.Session(config=_config(3)) as sess:
        devs = sess.list_devices()
    assert [d.name for d in devs] == [f"{LOCAL}/device:CPU:{i}" for i in range(3)]
    assert {d.device_type for d in devs} == {"CPU"}
    assert all(d.memory_limit_bytes == 268435456 for d in devs)
    with tf.Session() as sess:
        assert [d.name for d in sess.list_devices()] == [f"{LOCAL}/device:CPU:0"]


def test_missing_device_raises_naming_op_and_device():
    one = tf.constant(1.0)
    with tf.device("/cpu:3"):
        b = tf.add(one, one, name="b")
    with tf.Session(config=_config(1)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(b)
    assert info.value.message.startswith(
        "Cannot assign a device for operation b: {{node b}} was explicitly assigned to "
        f"/device:CPU:3 but available devices are [ {LOCAL}/device:CPU:0 ]. Make sure the "
        "device specification refers to a valid device.")


def test_gpu_without_gpu_is_an_error_unless_soft_placement(monkeypatch):
    monkeypatch.setenv("FLOWLOOM_NO_GPU", "1")
    with tf.device("/gpu:0"):
        a = tf.constant(2.0, name="a") * 3.0
    with tf.Session(config=_config(1)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="The requested device appears to be a GPU, but CUDA is not "
                                 "enabled."):
            sess.run(a)
    with tf.Session(config=_config(1, allow_soft_placement=True)) as sess:
        assert sess.run(a) == 6.0


def test_soft_placement_keeps_other_jobs_an_error():
    with tf.device("/job:worker/cpu:0"):
        z = tf.constant(1.0, name="z")
    with tf.Session(config=_config(2, allow_soft_placement=True)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="operation z"):
            sess.run(z)


def test_log_device_placement_prints_as_tf(capsys):
    with tf.device("/cpu:1"):
        v = tf.Variable(np.ones(3, np.float32), name="v")
        w = tf.multiply(v, 3.0, name="mul")
    with tf.Session(config=_config(2, log_device_placement=True)) as sess:
        sess.run(v.initializer)
        np.testing.assert_array_equal(sess.run(w), [3, 3, 3])
    err = capsys.readouterr().err.splitlines()
    expected = {f"{n}: ({t}): {LOCAL}/device:CPU:1" for n, t in [
        ("v", "VariableV2"), ("v/Assign", "Assign"), ("v/read", "Identity"), ("mul", "Mul"),
        ("v/initial_value", "Const"), ("mul/y", "Const")]}
    assert set(err) == expected  # each op once: the graph is placed once


def test_assign_from_other_scope_stays_with_variable():
    with tf.device("/cpu:1"):
        v = tf.Variable(1.0, name="v")
    with tf.device("/cpu:0"):
        a = tf.assign_add(v, 1.0, name="a")
    assert a.op.device == "/device:CPU:1"
    assert a.op.inputs[1].op.device == "/device:CPU:0"
    with tf.Session(config=_config(2)) as sess:
        sess.run(v.initializer)
        md = tf.RunMetadata()
        assert sess.run(a, options=tf.RunOptions(output_partition_graphs=True),
                        run_metadata=md) == 2.0
    sends = [n for g in md.partition_graphs for n in g.node if n.op == "_Send"]
    # The value to add travels to the variable; the fetched result travels to the client.
    assert [n.input[0] for n in sends] == ["a/value", "a"]


def test_colocation_group_follows_its_explicit_member():
    with tf.device("/cpu:1"):
        v = tf.Variable(1.0, name="v")
    with tf.colocate_with(v.op):
        r = tf.identity(v, name="r")
    with tf.Session(config=_config(2)) as sess:
        sess.run(v.initializer)
        md = tf.RunMetadata()
        sess.run(r, options=tf.RunOptions(output_partition_graphs=True), run_metadata=md)
    devices = {n.name: n.device for g in md.partition_graphs for n in g.node}
    assert devices["r"] == f"{LOCAL}/device:CPU:1"


def test_stateful_ops_keep_their_device_as_the_graph_grows():
    v = tf.Variable(5.0, name="v")
    with tf.Session(config=_config(2)) as sess:
        sess.run(v.initializer)
        placed = dict(sess._placer.placement)
        with tf.device("/cpu:1"):
            d = tf.multiply(v, 2.0, name="d")
        assert sess.run(d) == 10.0
        for op, dev in placed.items():
            assert sess._placer.placement[op] is dev
        assert sess._placer.placement[d.op].name.endswith("CPU:1")


def test_multi_device_results_equal_single_device():
    rng = np.random.RandomState(0)
    x_val = rng.standard_normal([16, 32]).astype(np.float32)

    def build():
        x = tf.placeholder(tf.float32, [16, 32])
        w = tf.Variable(rng.standard_normal([32, 32]).astype(np.float32), name="w")
        outs = []
        for i in range(2):
            with tf.device(f"/cpu:{i}"):
                outs.append(tf.reduce_sum(tf.tanh(tf.matmul(x, w) * float(i + 1))))
        with tf.device("/cpu:0"):
            total = tf.add_n(outs)
        return x, w, total, outs

    results = []
    for cpus in (2, 1):
        tf.reset_default_graph()
        rng = np.random.RandomState(0)
        x, w, total, outs = build()
        with tf.Session(config=_config(cpus, allow_soft_placement=True)) as sess:
            sess.run(w.initializer)
            results.append(sess.run([total] + outs, {x: x_val}))
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)
