"""The dataflow executor on graphs built op by op, as a GraphDef importer builds them:
dead tensors, frames, loop invariants, Ref variants, ControlTrigger, parallel_iterations."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.framework import dtypes
from flowloom.ops.control_flow import control_flow_ops as cf


def _op(g, op_type, inputs, out_dtypes, name, **attrs):
    return g.create_op(op_type, inputs, out_dtypes, name=name + "/", attrs=attrs)


def _hand_built_loop(g, x, n, parallel_iterations=10):
    """The graph TF writes for while_loop(i < n, (i + 1, a * x), [0, 1.0]), node by node."""
    f32, i32, b = dtypes.float32, dtypes.int32, dtypes.bool_
    frame = "while/while_context"
    enter_attrs = dict(frame_name=frame, is_constant=False,
                       parallel_iterations=parallel_iterations, T=None)
    i0 = tf.constant(0, name="Const")
    a0 = tf.constant(1.0, name="Const_1")
    e_i = _op(g, "Enter", [i0], [i32], "while/Enter", **dict(enter_attrs, T=i32)).outputs[0]
    e_a = _op(g, "Enter", [a0], [f32], "while/Enter_1", **dict(enter_attrs, T=f32)).outputs[0]
    m_i = _op(g, "Merge", [e_i, e_i], [i32, i32], "while/Merge", T=i32, N=2).outputs[0]
    m_a = _op(g, "Merge", [e_a, e_a], [f32, i32], "while/Merge_1", T=f32, N=2).outputs[0]
    e_n = _op(g, "Enter", [n], [i32], "while/Less/Enter",
              **dict(enter_attrs, T=i32, is_constant=True)).outputs[0]
    less = _op(g, "Less", [m_i, e_n], [b], "while/Less", T=i32).outputs[0]
    lc = _op(g, "LoopCond", [less], [b], "while/LoopCond").outputs[0]
    s_i = _op(g, "Switch", [m_i, lc], [i32, i32], "while/Switch", T=i32).outputs
    s_a = _op(g, "Switch", [m_a, lc], [f32, f32], "while/Switch_1", T=f32).outputs
    id_i = _op(g, "Identity", [s_i[1]], [i32], "while/Identity", T=i32).outputs[0]
    id_a = _op(g, "Identity", [s_a[1]], [f32], "while/Identity_1", T=f32).outputs[0]
    one = _op(g, "Const", [], [i32], "while/add/y", dtype=i32, value=np.int32(1)).outputs[0]
    one.op._add_control_input(id_i.op)
    e_x = _op(g, "Enter", [x], [f32], "while/mul/Enter",
              **dict(enter_attrs, T=f32, is_constant=True)).outputs[0]
    add = _op(g, "AddV2", [id_i, one], [i32], "while/add", T=i32).outputs[0]
    mul = _op(g, "Mul", [id_a, e_x], [f32], "while/mul", T=f32).outputs[0]
    n_i = _op(g, "NextIteration", [add], [i32], "while/NextIteration", T=i32).outputs[0]
    n_a = _op(g, "NextIteration", [mul], [f32], "while/NextIteration_1", T=f32).outputs[0]
    m_i.op._update_input(1, n_i)
    m_a.op._update_input(1, n_a)
    ex_i = _op(g, "Exit", [s_i[0]], [i32], "while/Exit", T=i32).outputs[0]
    ex_a = _op(g, "Exit", [s_a[0]], [f32], "while/Exit_1", T=f32).outputs[0]
    return ex_i, ex_a


@pytest.mark.parametrize("parallel_iterations", [1, 2, 10])
def test_hand_built_loop(parallel_iterations):
    g = tf.Graph()
    with g.as_default():
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        ex_i, ex_a = _hand_built_loop(g, x, n, parallel_iterations)
        with tf.Session() as sess:
            for nv in (0, 1, 5, 40):
                i, a = sess.run([ex_i, ex_a], {x: 1.01, n: nv})
                assert i == nv
                np.testing.assert_allclose(a, np.float32(1.01) ** nv, rtol=1e-5)


def test_dead_tensor_propagates_through_data_and_control_edges():
    x = tf.constant(2.0)
    f, t = cf.switch(x, tf.constant(False))
    dead = tf.identity(t)                    # dead: its input is dead
    with tf.control_dependencies([dead]):
        also_dead = tf.constant(5.0)          # dead: a control input is dead
    merged, index = cf.merge([also_dead, f])  # Merge takes the live input
    with tf.control_dependencies([dead]):
        trigger = cf.control_trigger()        # ControlTrigger is never dead
    with tf.control_dependencies([trigger]):
        live = tf.constant(3.0)
    with tf.Session() as sess:
        assert sess.run([merged, index, live]) == [2.0, 1, 3.0]
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not have value"):
            sess.run(also_dead)
        with pytest.raises(tf.errors.InvalidArgumentError, match="does not have value"):
            sess.run(dead)


def test_merge_with_all_inputs_dead_is_dead():
    f, t = cf.switch(tf.constant(1.0), tf.constant(True))
    m, _ = cf.merge([tf.identity(f), tf.identity(f) * 2.0])
    out, _ = cf.merge([m, t])
    with tf.Session() as sess:
        assert sess.run(out) == 1.0
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(m)


def test_dead_branch_ops_do_not_run():
    v = tf.Variable(0.0)
    f, t = cf.switch(tf.constant(1.0), tf.constant(False))
    bump = tf.assign_add(v, t)  # its input is dead: the kernel must not run
    m, _ = cf.merge([f, bump])
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(m)
        assert sess.run(v) == 0.0


def test_ref_variants_forward_the_variable():
    v = tf.Variable(1.0, name="v")
    ref = v._variable
    rf, rt = cf.ref_switch(ref, tf.constant(True))
    assert rt.dtype == tf.float32_ref and rt.op.type == "RefSwitch"
    merged, _ = cf.ref_merge([rf, rt])
    assert merged.op.type == "RefMerge"
    assign = tf.assign(merged, 7.0)  # writes through the forwarded reference
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(assign)
        assert sess.run(v) == 7.0


def test_ref_enter_exit_next_iteration():
    g = tf.get_default_graph()
    v = tf.Variable(3.0, name="v")
    ref = v._variable
    frame = "loop"
    e = cf._enter(ref, frame, is_constant=True, parallel_iterations=1, name="RefEnter")
    assert e.op.type == "RefEnter"
    i0 = cf._enter(tf.constant(0), frame, name="i_enter")
    m = cf.merge([i0, i0])[0]
    three = cf._enter(tf.constant(3), frame, is_constant=True)
    lc = cf.loop_cond(tf.less(m, three))
    sf, st = cf.switch(m, lc)
    body_i = tf.identity(st)
    one = cf._enter(tf.constant(1.0), frame, is_constant=True)
    with g.control_dependencies([body_i.op]):
        bumped = tf.assign_add(e, one)  # a RefEnter feeds an Assign inside the loop
    nxt = cf._next_iteration(body_i + tf.cast(tf.greater(bumped, one), tf.int32))
    m.op._update_input(1, nxt)
    out = cf.exit(sf)
    ref_exit = cf.exit(e)
    assert ref_exit.op.type == "RefExit"
    assert cf._next_iteration(e).op.type == "RefNextIteration"
    with tf.Session() as sess:
        sess.run(v.initializer)
        assert sess.run(out) == 3
        assert sess.run(v) == 6.0


def test_cycle_without_next_iteration_is_an_error():
    a = tf.identity(tf.constant(1.0))
    b = tf.identity(a)
    a.op._update_input(0, b)
    f, _ = cf.switch(b, tf.constant(True))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="cycle"):
            sess.run(f)


def test_loop_runs_are_independent():
    ta = tf.TensorArray(tf.float32, size=3)
    _, ta = tf.while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, t.write(i, tf.cast(i, tf.float32))),
                          [0, ta])
    out = ta.stack()
    with tf.Session() as sess:
        for _ in range(3):
            np.testing.assert_array_equal(sess.run(out), [0.0, 1.0, 2.0])


def test_fetching_a_fed_tensor_and_feeding_inside_graph():
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.while_loop(lambda a: a < 10.0, lambda a: a * 2.0, [x])
    with tf.Session() as sess:
        assert sess.run([r, x], {x: 3.0}) == [12.0, 3.0]


def test_parallel_iterations_one_orders_stateful_iterations():
    v = tf.Variable(0, name="trace")

    def body(i):
        with tf.control_dependencies([tf.assign(v, v.read_value() * 10 + i)]):
            return i + 1

    r = tf.while_loop(lambda i: i < 6, body, [1], parallel_iterations=1)
    with tf.Session() as sess:
        sess.run(v.initializer)
        sess.run(r)
        assert sess.run(v) == 12345


def test_inputs_from_different_frames_is_an_error():
    i0 = cf._enter(tf.constant(0), "loop")
    m = cf.merge([i0, i0])[0]
    lc = cf.loop_cond(tf.less(m, 3))  # `3` is a Const of the root frame, not entered
    sf, st = cf.switch(m, lc)
    m.op._update_input(1, cf._next_iteration(st + cf._enter(tf.constant(1), "loop",
                                                              is_constant=True)))
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="inputs from different frames"):
            sess.run(cf.exit(sf))


def test_loops_across_host_devices():
    x = tf.placeholder(tf.float32, [], name="x")
    with tf.device("/cpu:1"):
        r = tf.while_loop(lambda i, a: i < 4, lambda i, a: (i + 1, a * x), [0, 1.0])
    g = tf.gradients(r[1], x)[0]
    config = tf.ConfigProto(device_count={"CPU": 2})
    with tf.Session(config=config) as sess:
        out, gv = sess.run([r[1], g], {x: 2.0})
        assert out == 16.0 and gv == 32.0
        assert sess.graph.get_operation_by_name("while/Merge_1").device.endswith("CPU:1")


def test_full_trace_records_loop_iterations():
    r = tf.while_loop(lambda i: i < 3, lambda i: i + 1, [0])
    meta = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(r, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=meta)
    names = [n.node_name for d in meta.step_stats.dev_stats for n in d.node_stats]
    assert names.count("while/add") == 3 and names.count("while/Exit") == 1


def test_concurrent_runs_of_one_plan():
    import threading

    n = tf.placeholder(tf.int32, [], name="n")
    ta = tf.TensorArray(tf.int32, size=n)
    _, ta = tf.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t.write(i, i * i)), [0, ta])
    total = tf.reduce_sum(ta.stack())
    sess = tf.Session()
    errors = []

    def work(k):
        try:
            for _ in range(20):
                assert sess.run(total, {n: k}) == sum(i * i for i in range(k))
        except Exception as e:  # noqa: BLE001 - collected for the assertion below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(k,)) for k in (5, 9, 13)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
