"""Temporary variables (TemporaryVariable / DestroyTemporaryVariable), run on TF 1.15
(record_temporary_variable.py) and on flowloom (tests/ops/test_temporary_variable.py).

`program(tf, gen)`: `gen` holds `temporary_variable` and `destroy_temporary_variable` (TF's
gen_state_ops). Each case gives its value, or the error's class name. TF leaves a new
temporary variable's buffer uninitialised, so unassigned reads record only shape and dtype.
"""

import numpy as np


def _run(tf, build, config=None, runs=1):
    with tf.Graph().as_default():
        try:
            fetch = build()
            with tf.Session(config=config) as s:
                out = [s.run(fetch) for _ in range(runs)]
        except Exception as e:  # noqa: BLE001 - the recorded answer is the error's class
            return type(e).__name__
        return [np.asarray(o).tolist() if not isinstance(o, tuple) else
                [np.asarray(x).tolist() for x in o] for o in out]


def program(tf, gen):
    tv, destroy = gen.temporary_variable, gen.destroy_temporary_variable
    r = {}

    def updated():
        var = tv([1, 2], tf.float32, var_name="foo")
        var = tf.assign_add(tf.assign(var, [[4.0, 5.0]]), [[6.0, 7.0]])
        return destroy(var, var_name="foo")

    r["assign_add_destroy"] = _run(tf, updated)
    # A second run of the same graph starts with an empty step container.
    r["two_runs"] = _run(tf, updated, runs=2)
    r["nonexistent"] = _run(tf, lambda: destroy(tv([1, 2], tf.float32), var_name="bad"))

    def duplicate():
        a = tf.assign(tv([1, 2], tf.float32, var_name="dup"), [[1.0, 2.0]])
        b = tf.assign(tv([1, 2], tf.float32, var_name="dup"), [[3.0, 4.0]])
        return a + b

    r["duplicate"] = _run(tf, duplicate)

    def twice():
        var = tv([1, 2], tf.float32)
        return destroy(var, var_name="dup") + destroy(var, var_name="dup")

    r["destroy_twice"] = _run(tf, twice)

    def default_name():
        var = tv([2], tf.int32, name="acc")
        return destroy(tf.assign(var, [3, 4]), var_name="acc")

    r["default_var_name_is_op_name"] = _run(tf, default_name)
    r["empty_var_name"] = _run(tf, lambda: destroy(tv([1], tf.float32), var_name=""))
    r["partial_shape"] = _run(tf, lambda: tf.identity(tv([None, 2], tf.float32)))

    def unread(shape, dtype):
        def build():
            t = tf.identity(tv(shape, dtype))
            return tf.shape(t), tf.size(t)
        return build

    r["unassigned_shape"] = _run(tf, unread([2, 3], tf.int32))
    r["unknown_rank_is_scalar"] = _run(tf, unread(tf.TensorShape(None), tf.float32))
    # TF constructs string elements (empty), it does not leave them uninitialised.
    r["unassigned_strings_are_empty"] = _run(tf, lambda: tf.equal(tv([2], tf.string), ""))

    def grown():
        var = tv([2], tf.float32, var_name="g")
        return destroy(tf.assign(var, [1.0, 2.0, 3.0], validate_shape=False), var_name="g")

    r["assign_without_shape_check"] = _run(tf, grown)

    def in_loop():
        def body(i, acc):
            t = tf.assign(tv([], tf.float32, var_name="w"), tf.cast(i, tf.float32))
            return i + 1, acc + destroy(t, var_name="w")
        return tf.while_loop(lambda i, a: i < 3, body, [0, 0.0])

    r["created_and_destroyed_in_a_loop"] = _run(tf, in_loop)

    def on_second_device():
        with tf.device("/cpu:1"):
            var = tv([2], tf.float32, var_name="d1")
            value = destroy(tf.assign_add(tf.assign(var, [1.0, 2.0]), [1.0, 1.0]),
                            var_name="d1")
        with tf.device("/cpu:0"):
            return value * 2.0

    r["other_device"] = _run(tf, on_second_device,
                             config=tf.ConfigProto(device_count={"CPU": 2}))

    with tf.Graph().as_default():
        var = tv([3, None], tf.float64, var_name="s")
        out = destroy(var, var_name="s")
        r["static"] = [var.shape.as_list(), var.dtype.name, out.shape.as_list(), out.dtype.name,
                       out.op.get_attr("T").name, var.op.get_attr("var_name").decode()]
        try:
            destroy(tf.constant([1.0]), var_name="x")
            r["not_a_ref"] = "built"
        except Exception as e:  # noqa: BLE001
            r["not_a_ref"] = type(e).__name__
        x = tf.constant([1.0])
        try:
            tf.gradients(destroy(tf.assign(tv([1], tf.float32, var_name="q"), x), var_name="q"),
                         x)
            r["gradient"] = "built"
        except Exception as e:  # noqa: BLE001
            r["gradient"] = type(e).__name__
    return r
