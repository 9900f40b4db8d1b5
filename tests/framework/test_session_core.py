"""Session semantics and error reporting of the core (issue 2)."""

import threading

import numpy as np
import pytest

import flowloom as tf


def test_compat_v1_is_flowloom_and_v2_switches_are_accepted():
    assert tf.compat.v1 is tf
    tf.compat.v1.disable_v2_behavior()
    tf.disable_eager_execution()
    assert not tf.executing_eagerly()


def test_runtime_error_names_op_type_and_user_line():
    a = tf.placeholder(tf.float32, [None])
    b = tf.placeholder(tf.float32, [None])
    total = a + b  # the line the error must point at
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            sess.run(total, {a: [1, 2], b: [1, 2, 3]})
    msg = str(info.value)
    assert "Incompatible shapes: [2] vs. [3]" in msg
    assert "'add'" in msg and "AddV2" in msg
    assert "test_session_core.py" in msg and "total = a + b" in msg
    assert info.value.op is total.op


def test_uninitialized_variable_is_failed_precondition_naming_it():
    v = tf.Variable(1.0, name="weights")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError,
                           match="Attempting to use uninitialized value weights"):
            sess.run(v * 2)


def test_missing_feed_names_placeholder():
    p = tf.placeholder(tf.float32, [None, 3], name="images")
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match="You must feed a value for placeholder tensor 'images' with "
                                 r"dtype float and shape \[\?,3\]"):
            sess.run(p * 2)


def test_wrong_feed_shape_is_value_error():
    p = tf.placeholder(tf.float32, [2], name="p")
    with tf.Session() as sess:
        with pytest.raises(ValueError, match=r"Cannot feed value of shape \(3,\) for Tensor p:0, "
                                             r"which has shape \(2,\)"):
            sess.run(p, {p: [1.0, 2.0, 3.0]})


def test_build_time_shape_mismatch_names_op():
    # TF 1.15's wording (checked with TF 1.15.5; TF 2.x writes "{{node MatMul}} = MatMul[...]").
    with pytest.raises(ValueError, match=r"^Dimensions must be equal, but are 3 and 4 for "
                                         r"'MatMul' \(op: 'MatMul'\) with input shapes: "
                                         r"\[2,3\], \[4,5\]\.$"):
        tf.matmul(tf.ones([2, 3]), tf.ones([4, 5]))


def test_pruning_runs_only_what_fetches_need():
    bad = tf.check_numerics(tf.constant(np.nan), "never runs")
    ok = tf.constant(1) + 1
    with tf.Session() as sess:
        assert sess.run(ok) == 2
        with pytest.raises(tf.errors.InvalidArgumentError, match="never runs : Tensor had NaN"):
            sess.run(bad)


def test_fed_tensor_cuts_its_producer():
    p = tf.placeholder(tf.float32, [])
    y = p * 2
    z = y + 1
    with tf.Session() as sess:
        assert sess.run(z, {y: 10.0}) == 11.0  # p is never needed


def test_each_op_runs_at_most_once_per_run_and_control_edges_hold():
    x = tf.Variable(0, name="x")
    inc = tf.assign_add(x, 1)
    with tf.control_dependencies([inc]):
        after = tf.identity(x)
    with tf.Session() as sess:
        sess.run(x.initializer)
        assert sess.run([inc, inc, after]) == [1, 1, 1]
        assert sess.run(after) == 2


def test_plan_is_compiled_once_per_signature():
    p = tf.placeholder(tf.float32, [])
    y = p * 3
    with tf.Session() as sess:
        for i in range(5):
            assert sess.run(y, {p: i}) == 3 * i
        assert len(sess._plan_cache) == 1
        sess.run([y, p], {p: 1})
        assert len(sess._plan_cache) == 2


def test_default_session_eval_and_op_run():
    v = tf.Variable(3.0)
    with tf.Session():
        v.initializer.run()
        assert v.eval() == 3.0
        assert (v * 2).eval() == 6.0
    with pytest.raises(ValueError, match="No default session"):
        v.eval()


def test_interactive_session_installs_itself():
    c = tf.constant([1, 2])
    sess = tf.InteractiveSession()
    try:
        np.testing.assert_array_equal(c.eval(), [1, 2])
        assert tf.get_default_session() is sess
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_closed_session_raises():
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="closed Session"):
        sess.run(tf.constant(1))


def test_session_of_another_graph_cannot_eval():
    g = tf.Graph()
    with g.as_default():
        c = tf.constant(1)
    with tf.Session() as sess:
        with pytest.raises(ValueError):
            c.eval(session=sess)


def test_values_are_copies_not_aliases():
    v = tf.Variable([1.0, 2.0])
    c = tf.constant([1.0, 2.0])
    with tf.Session() as sess:
        sess.run(v.initializer)
        got = sess.run(v)
        got[0] = 100.0
        assert sess.run(v)[0] == 1.0
        cv = sess.run(c)
        cv[0] = 100.0
        assert sess.run(c)[0] == 1.0
        fed = np.array([5.0, 6.0], np.float32)
        sess.run(v.assign(tf.placeholder_with_default(fed, [2])))
        fed[0] = -1.0
        assert sess.run(v)[0] == 5.0


def test_locked_assign_add_is_atomic_across_threads():
    x = tf.Variable(0, name="counter")
    inc = tf.assign_add(x, 1, use_locking=True)
    with tf.Session() as sess:
        sess.run(x.initializer)

        def work():
            for _ in range(500):
                sess.run(inc)
        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess.run(x) == 4000


def test_config_and_run_options_as_tf_spells_them():
    config = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True,
                            inter_op_parallelism_threads=2)
    options = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE)
    metadata = tf.RunMetadata()
    with tf.Session(config=config) as sess:
        assert sess.run(tf.constant(2) * 2, options=options, run_metadata=metadata) == 4
        assert len(sess.list_devices()) == 2


def test_print_and_assert_ops(capfd):
    x = tf.constant([1, 2, 3])
    printed = tf.Print(x, [x, tf.constant("tag")], message="x is ")
    pr = tf.print("value:", x)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(printed), [1, 2, 3])
        sess.run(pr)
    err = capfd.readouterr().err
    assert "x is [1 2 3]" in err
    assert "value: [1 2 3]" in err
    a = tf.placeholder(tf.int32, [])
    check = tf.Assert(a > 0, ["a must be positive, got", a])
    with tf.Session() as sess:
        sess.run(check, {a: 1})
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"assertion failed: \[a must be positive, got\] \[-4\]"):
            sess.run(check, {a: -4})


def test_tensor_python_protocols():
    t = tf.constant([1, 2])
    with pytest.raises(TypeError):
        bool(t)
    with pytest.raises(TypeError):
        iter(t)
    with pytest.raises(TypeError):
        len(t)
    assert {t: 1}[t] == 1
    assert t.eval if hasattr(t, "eval") else False


def test_mixing_graphs_is_value_error():
    a = tf.constant(1.0)
    with tf.Graph().as_default():
        b = tf.constant(2.0)
    with pytest.raises(ValueError, match="must be from the same graph"):
        tf.add(a, b)


def test_reentering_root_variable_scope_keeps_the_name_scope():
    # As TF: the root scope ("") opens no name scope, so ops stay in tower_0/.
    with tf.name_scope("tower_0"):
        with tf.variable_scope(tf.get_variable_scope(), reuse=tf.AUTO_REUSE):
            c = tf.constant(1)
            v = tf.get_variable("v", [1])
    assert (c.name, v.name) == ("tower_0/Const:0", "v:0")


def test_feeds_are_neither_copied_into_results_nor_written():
    p = tf.placeholder(tf.float32, [2])
    v = tf.Variable([0.0, 0.0])
    assign = v.assign(p)
    fed = np.array([1.0, 2.0], np.float32)
    with tf.Session() as sess:
        out = sess.run(tf.identity(p), {p: fed})
        out[0] = 9.0  # the result is the caller's own array
        assert fed[0] == 1.0
        sess.run(assign, {p: fed})
        fed[1] = -5.0  # the variable kept its own copy
        np.testing.assert_array_equal(sess.run(v), [1.0, 2.0])
