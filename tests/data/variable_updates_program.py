"""TF1 programs on what a variable update returns and what a variable's reads see, run by
TF 1.15 (tests/data/record_variable_updates.py) and by flowloom
(tests/control_flow/test_variable_updates.py); each returns a JSON-able summary."""


def _ops(graph, prefix=""):
    return [[op.name, op.type, [t.name for t in op.inputs],
             sorted(c.name for c in op.control_inputs)]
            for op in graph.get_operations() if op.name.startswith(prefix)]


def cond_assign_in_loop(tf):
    """A cond in a loop body assigns a ref variable; the other branch returns the variable
    (its value, v/read). The loop-invariant read aliases the variable, so every iteration
    squares the newly assigned value (TF's in-place Assign)."""
    out = {}
    with tf.Graph().as_default() as g:
        v = tf.get_variable("v", [], initializer=tf.constant_initializer(2))
        i0 = tf.constant(0)
        with tf.control_dependencies([i0]):
            def body(i):
                c = tf.cond(tf.constant(True), lambda: tf.assign(v, tf.square(v)), lambda: v)
                with tf.control_dependencies([c]):
                    return i + 1
        r = tf.while_loop(lambda i: i < 4, body, (i0,))
        out["ops"] = _ops(g, "while/")
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            out["values"] = [int(sess.run(r)), float(sess.run(v))]
    return out


def aliased_reads(tf):
    """A read fetched in the run that assigns after it sees the assigned value (it aliases
    the variable's buffer); fetched arrays and fed values are not aliased."""
    import numpy as np

    out = {}
    with tf.Graph().as_default():
        v = tf.Variable([1.0, 2.0])
        p = tf.placeholder(tf.float32, [2])
        set_p = tf.assign(v, p)
        add = tf.assign_add(v, [1.0, 1.0])
        r = v.read_value()
        with tf.control_dependencies([r]):
            zero = tf.assign(v, [0.0, 0.0])
        with tf.Session() as sess:
            sess.run(v.initializer)
            before = sess.run(v)
            sess.run(add)
            out["fetched_before"] = before.tolist()
            fed = np.array([9.0, 9.0], np.float32)
            sess.run(set_p, {p: fed})
            sess.run(add)
            out["fed"] = fed.tolist()
            out["read_then_assign"] = [x.tolist() for x in sess.run([r, zero])]
            out["after"] = sess.run(v).tolist()
    return out


def resource_update_results(tf):
    """What assign/assign_add/assign_sub of a resource variable return: the variable after
    the update (`read_value()` reads again after it), as the loops of TF's
    testWhileExternalControlDependencies(NoInput) use it."""
    out = {}
    with tf.Graph().as_default() as g:
        v = tf.Variable(0.0, use_resource=True, name="v")
        inc = v.assign_add(1.0)
        later = inc.read_value()
        out["inc"] = [inc.name, inc.op.type, inc.dtype.name, inc.shape.as_list()]
        out["later"] = [later.op.type, sorted(c.name for c in later.op.control_inputs)]
        with tf.control_dependencies([inc]):
            after_inc = tf.no_op(name="after_inc")
        with tf.control_dependencies([v]):
            after_v = tf.no_op(name="after_v")
        grouped = tf.group(inc, v, name="grouped")
        out["deps"] = [sorted(c.name for c in op.control_inputs)
                       for op in (after_inc, after_v, grouped)]
        out["initializer"] = inc.initializer is None
        other = tf.assign_sub(v, 0.5)
        out["assign_sub"] = [other.name, other.op.type]
        doubled = inc * 2.0
        out["doubled_input"] = [doubled.op.inputs[0].op.type,
                                sorted(c.name for c in doubled.op.inputs[0].op.control_inputs)]

        def body(i):
            with tf.control_dependencies([later]):
                return i + 1

        loop = tf.while_loop(lambda i: i < 2, body, [1])

        def body_no_input(_):
            with tf.control_dependencies([later]):
                return tf.constant(5, name="five")

        loop_no_input = tf.while_loop(lambda i: i < 5, body_no_input, [0])
        out["ops"] = _ops(g, "while")
        with tf.Session() as sess:
            sess.run(v.initializer)
            out["values"] = [float(sess.run(inc)), float(sess.run(v))]
            out["loops"] = [int(sess.run(loop)), float(sess.run(v)),
                            int(sess.run(loop_no_input)), float(sess.run(v))]
            out["doubled"] = float(sess.run(doubled))
    return out
