"""TF's slot_creator module and training_util's global-step read/increment helpers, and the
hooks logging through tf_logging; names and values as TF 1.15 gives them (checked with TF
1.15.5: global_step/AssignAdd, global_step/add, scope/var/slot, var/zslot, const/slot)."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.train import basic_session_run_hooks, slot_creator, training_util


def test_increment_and_read_of_the_global_step():
    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="Global step tensor should be created"):
            training_util._increment_global_step(1)
        step = tf.train.get_or_create_global_step()
        inc = training_util._increment_global_step(3)
        read = training_util._get_or_create_global_step_read()
        assert (inc.op.name, inc.op.type, read.op.name) == \
            ("global_step/AssignAdd", "AssignAdd", "global_step/add")
        assert training_util._get_or_create_global_step_read() is read
        tf.add_to_collection(training_util.GLOBAL_STEP_READ_KEY, read)
        with pytest.raises(RuntimeError, match="multiple items"):
            training_util._get_global_step_read()
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(inc)
            assert sess.run(step) == 3


def test_slot_creator_names_shapes_and_values():
    with tf.Graph().as_default(), tf.Session() as sess:
        v = tf.Variable([1.0, 2.5], name="var")
        with tf.variable_scope("scope"):
            s = slot_creator.create_slot(v, v.initialized_value(), name="slot")
        z = slot_creator.create_zeros_slot(v, name="zslot", dtype=tf.float64)
        c = tf.constant([1.0, 2.0], name="const")
        zc = slot_creator.create_zeros_slot(c, name="slot")
        w = slot_creator.create_slot_with_initializer(v, tf.ones_initializer(),
                                                      tf.TensorShape([2]), tf.float32, "ones")
        unknown = tf.placeholder_with_default([1.0, 2.0, 3.0], shape=None, name="unknown")
        zu = slot_creator.create_zeros_slot(unknown, name="slot")
        assert [s.op.name, z.op.name, zc.op.name, w.op.name] == \
            ["scope/var/slot", "var/zslot", "const/slot", "var/ones"]
        assert z.dtype.base_dtype == tf.float64
        sess.run(tf.global_variables_initializer())
        got = sess.run([s, z, zc, w, zu])
    for value, want in zip(got, [[1.0, 2.5], [0.0, 0.0], [0.0, 0.0], [1.0, 1.0],
                                 [0.0, 0.0, 0.0]]):
        np.testing.assert_array_equal(value, want)


def test_hooks_log_through_tf_logging(monkeypatch):
    from flowloom.platform import tf_logging

    logged = []
    monkeypatch.setattr(tf_logging, "info", lambda *args, **kwargs: logged.append(args))
    with tf.Graph().as_default():
        t = tf.constant(42.0, name="foo")
        tf.train.get_or_create_global_step()
        hook = basic_session_run_hooks.LoggingTensorHook(tensors=[t.name], every_n_iter=1)
        noop = tf.no_op()
        with tf.train.MonitoredSession(hooks=[hook]) as sess:
            sess.run(noop)
    assert any("foo:0 = 42.0" in " ".join(map(str, args)) for args in logged), logged


def test_profiler_hook_checks_its_timer_and_an_empty_dir_is_the_cwd(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError):
        basic_session_run_hooks.ProfilerHook(save_secs=10, save_steps=20)
    with pytest.raises(ValueError):
        basic_session_run_hooks.ProfilerHook(save_secs=None, save_steps=None)
    from flowloom.io.events import EventFileWriter

    writer = EventFileWriter("")
    writer.flush()
    writer.close()
    assert any(p.name.startswith("events.out.tfevents") for p in tmp_path.iterdir())
