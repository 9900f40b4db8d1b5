"""TF1 control-flow programs run by both real TensorFlow (tests/data/record_control_flow.py,
which records their results) and flowloom (tests/control_flow/test_programs.py).

Each program takes the `tf` module and builds its graph in the default graph; it returns
`(fetches, feeds)`: a dict of name -> tensor, and a list of feed dicts keyed by tensor name.
"""

import collections

import numpy as np

Pair = collections.namedtuple("Pair", ["a", "b"])
PROGRAMS = {}


def program(fn):
    PROGRAMS[fn.__name__] = fn
    return fn


def _rs():
    return np.random.RandomState(7)


@program
def cond_basic(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    outside = x * 2.0
    r = tf.cond(x > 0, lambda: outside + 1.0, lambda: tf.square(x))
    return {"r": r, "outside": outside}, [{"x:0": 1.5}, {"x:0": -1.5}]


@program
def cond_structures(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    q = tf.placeholder(tf.bool, [], name="q")
    tup = tf.cond(p, lambda: (x * 2.0, tf.reduce_sum(x)), lambda: (x - 1.0, tf.reduce_max(x)))
    dct = tf.cond(p, lambda: {"u": x, "v": x + 1.0}, lambda: {"u": -x, "v": x * x})
    nested = tf.cond(p, lambda: tf.cond(q, lambda: x + 10.0, lambda: x + 20.0),
                     lambda: tf.cond(q, lambda: x + 30.0, lambda: x))
    single = tf.cond(p, lambda: [x], lambda: [x * 3.0])
    fetches = {"tup0": tup[0], "tup1": tup[1], "u": dct["u"], "v": dct["v"], "nested": nested,
               "single": single}
    feeds = [{"x:0": [1.0, -2.0], "p:0": pv, "q:0": qv} for pv in (True, False)
             for qv in (True, False)]
    return fetches, feeds


@program
def cond_side_effects(tf):
    v = tf.Variable(0.0, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    a = tf.assign_add(v, 1.0)  # created outside the branches: runs regardless of p
    r = tf.cond(p, lambda: a * 10.0, lambda: tf.constant(-1.0))
    with tf.control_dependencies([r]):
        c2 = tf.cond(p, lambda: tf.assign_add(v, 100.0).op, lambda: tf.no_op())
    with tf.control_dependencies([c2]):
        after = tf.identity(v.read_value())
    return {"r": r, "after": after, "init": v.initializer}, [{"p:0": True}, {"p:0": False}]


@program
def case_program(tf):
    x = tf.placeholder(tf.int32, [], name="x")
    r = tf.case([(tf.less(x, 0), lambda: tf.constant(-1)),
                 (tf.equal(x, 0), lambda: tf.constant(0))], default=lambda: tf.constant(1))
    r2 = tf.case([(tf.less(x, 5), lambda: x * 2), (tf.greater_equal(x, 5), lambda: x * 3)])
    r3 = tf.case({tf.less(x, 0): lambda: x - 100}, default=lambda: x + 100, exclusive=True)
    return {"r": r, "r2": r2, "r3": r3}, [{"x:0": v} for v in (-3, 0, 7)]


@program
def while_basic(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    i = tf.constant(0)
    out = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x), [i, tf.constant(1.0)])
    single = tf.while_loop(lambda i: i < 10, lambda i: i + 3, [i])
    return {"i": out[0], "a": out[1], "single": single}, [{"x:0": 1.5}]


@program
def while_nested(tf):
    n = tf.placeholder(tf.int32, [], name="n")

    def outer(i, acc):
        _, inner = tf.while_loop(lambda j, s: j < i, lambda j, s: (j + 1, s + j * i),
                                 [0, acc])
        return i + 1, inner

    _, r = tf.while_loop(lambda i, acc: i < n, outer, [0, 0])
    return {"r": r}, [{"n:0": 4}, {"n:0": 0}]


@program
def while_cond_inside(tf):
    x = tf.placeholder(tf.float32, [], name="x")

    def body(i, a):
        a = tf.cond(tf.equal(i % 2, 0), lambda: a * x, lambda: a + 1.0)
        return i + 1, a

    _, r = tf.while_loop(lambda i, a: i < 6, body, [0, tf.constant(1.0)])
    return {"r": r}, [{"x:0": 2.0}]


@program
def while_inside_cond(tf):
    p = tf.placeholder(tf.bool, [], name="p")
    x = tf.placeholder(tf.float32, [], name="x")
    r = tf.cond(p, lambda: tf.while_loop(lambda a: a < 100.0, lambda a: a * 2.0, [x]),
                lambda: x - 1.0)
    return {"r": r}, [{"p:0": True, "x:0": 3.0}, {"p:0": False, "x:0": 3.0}]


@program
def while_options(tf):
    x = tf.placeholder(tf.float32, [None], name="x")
    # maximum_iterations stops before cond does
    capped = tf.while_loop(lambda a: tf.reduce_sum(a) < 1e9, lambda a: a * 2.0, [x],
                           maximum_iterations=4)
    # a loop variable whose shape changes needs a shape invariant
    grown = tf.while_loop(lambda a: tf.shape(a)[0] < 6, lambda a: tf.concat([a, a], 0), [x],
                          shape_invariants=[tf.TensorShape([None])])
    # nested structures as loop variables
    pair = Pair(a=tf.constant(1.0), b={"k": tf.constant(2.0), "m": [tf.constant(3)]})
    res = tf.while_loop(lambda p: p.b["m"][0] < 6,
                        lambda p: [Pair(a=p.a * 2.0, b={"k": p.b["k"] + p.a,
                                                        "m": [p.b["m"][0] + 1]})],
                        [pair])[0]
    serial = tf.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s * 10 + i), [0, 0],
                           parallel_iterations=1, back_prop=False)
    return ({"capped": capped, "grown": grown, "pa": res.a, "pk": res.b["k"],
             "pm": res.b["m"][0], "serial": serial[1]}, [{"x:0": [1.0, 2.0]}])


@program
def while_stateful(tf):
    v = tf.Variable(0, name="counter")

    def body(i):
        with tf.control_dependencies([tf.assign_add(v, i)]):
            return i + 1

    r = tf.while_loop(lambda i: i < 5, body, [0], parallel_iterations=1)
    with tf.control_dependencies([r]):
        total = tf.identity(v.read_value())
    return {"total": total, "init": v.initializer}, [{}]


@program
def tensor_array_ops(tf):
    x = tf.placeholder(tf.float32, [3, 2], name="x")
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).unstack(x)
    read1 = ta.read(1)
    stacked = ta.stack()
    ta2 = tf.TensorArray(tf.float32, size=3, clear_after_read=False)
    ta2 = ta2.scatter([2, 0, 1], x)
    gathered = ta2.gather([0, 2])
    ta3 = tf.TensorArray(tf.float32, size=0, dynamic_size=True, infer_shape=False)
    ta3 = ta3.write(0, x[0]).write(2, x[1, :1]).write(1, x[2])
    size3 = ta3.size()
    concat = ta3.concat()
    ta4 = tf.TensorArray(tf.float32, size=2, infer_shape=False).split(tf.reshape(x, [6]), [4, 2])
    split0 = ta4.read(0)
    return ({"read1": read1, "stacked": stacked, "gathered": gathered, "size3": size3,
             "concat": concat, "split0": split0}, [{"x:0": np.arange(6.0).reshape(3, 2)}])


@program
def tensor_array_loop(tf):
    xs = tf.placeholder(tf.float32, [5, 2], name="xs")
    inp = tf.TensorArray(tf.float32, size=5).unstack(xs)
    out = tf.TensorArray(tf.float32, size=5)

    def body(t, acc, out):
        acc = acc * 0.5 + inp.read(t)
        return t + 1, acc, out.write(t, acc)

    _, acc, out = tf.while_loop(lambda t, a, o: t < 5, body, [0, tf.zeros([2]), out])
    return {"acc": acc, "outs": out.stack()}, [{"xs:0": np.arange(10.0).reshape(5, 2)}]


@program
def functional(tf):
    x = tf.placeholder(tf.float32, [4, 2], name="x")
    m = tf.map_fn(lambda r: r * r, x)
    m2 = tf.map_fn(lambda p: (p[0] + p[1], p[0] * 2), (x, x * 10.0),
                   dtype=(tf.float32, tf.float32))
    mi = tf.map_fn(lambda r: tf.cast(r[0] + r[1], tf.int32), x, dtype=tf.int32)
    s = tf.scan(lambda a, r: a + r, x)
    sr = tf.scan(lambda a, r: a * 0.5 + r, x, initializer=tf.ones([2]), reverse=True)
    fl = tf.foldl(lambda a, r: a * 2.0 + r, x)
    fr = tf.foldr(lambda a, r: a * 2.0 + r, x, initializer=tf.zeros([2]))
    return ({"m": m, "m2a": m2[0], "m2b": m2[1], "mi": mi, "s": s, "sr": sr, "fl": fl,
             "fr": fr}, [{"x:0": np.arange(8.0).reshape(4, 2) - 3.0}])


@program
def initialized_value(tf):
    v = tf.Variable(3.0, name="v")
    w = tf.Variable(v.initialized_value() * 2.0, name="w")
    return {"w_init": w.initializer, "w": w.read_value()}, [{}]


# -- gradients -------------------------------------------------------------------------------
@program
def grad_cond(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    y = tf.placeholder(tf.float32, [], name="y")
    r = tf.cond(x > y, lambda: x * x * y, lambda: tf.sin(x) + y * 3.0)
    gx, gy = tf.gradients(r, [x, y])
    r2 = tf.cond(x > 0, lambda: x, lambda: y)  # branches returning outside tensors
    g2 = tf.gradients(r2, [x, y])
    return ({"r": r, "gx": gx, "gy": gy, "g2x": g2[0], "g2y": g2[1]},
            [{"x:0": 1.5, "y:0": 0.5}, {"x:0": -1.5, "y:0": 0.5}])


@program
def grad_while(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    _, a = tf.while_loop(lambda i, a: i < 5, lambda i, a: (i + 1, a * x + 1.0),
                         [0, tf.constant(1.0)])
    ga = tf.gradients(a, x)[0]
    # a loop invariant of unknown shape
    v = tf.placeholder(tf.float32, None, name="v")
    _, b = tf.while_loop(lambda i, b: i < 3, lambda i, b: (i + 1, b + v * v),
                         [0, tf.zeros([2])],
                         shape_invariants=[tf.TensorShape([]), tf.TensorShape(None)])
    gb = tf.gradients(tf.reduce_sum(b), v)[0]
    return ({"a": a, "ga": ga, "b": b, "gb": gb},
            [{"x:0": 0.7, "v:0": [1.0, -2.0]}])


@program
def grad_nested_while(tf):
    x = tf.placeholder(tf.float64, [], name="x")

    def outer(i, a):
        _, b = tf.while_loop(lambda j, b: j < 3, lambda j, b: (j + 1, b * x + 1.0), [0, a])
        return i + 1, b

    _, r = tf.while_loop(lambda i, a: i < 2, outer, [0, tf.constant(1.0, tf.float64)])
    return {"r": r, "g": tf.gradients(r, x)[0]}, [{"x:0": 0.7}]


@program
def grad_cond_in_while(tf):
    x = tf.placeholder(tf.float64, [], name="x")

    def body(i, a):
        return i + 1, tf.cond(tf.equal(i % 2, 0), lambda: a * x, lambda: a + tf.sin(x))

    _, r = tf.while_loop(lambda i, a: i < 5, body, [0, tf.constant(2.0, tf.float64)])
    return {"r": r, "g": tf.gradients(r, x)[0]}, [{"x:0": 0.7}]


@program
def grad_rnn(tf):
    rs = _rs()
    xs = tf.placeholder(tf.float64, [4, 2, 3], name="xs")
    w = tf.constant(rs.randn(3, 3) * 0.5, name="w")
    inp = tf.TensorArray(tf.float64, size=4).unstack(xs)
    outs = tf.TensorArray(tf.float64, size=4)

    def step(t, h, o):
        h = tf.tanh(tf.matmul(inp.read(t), w) + h)
        return t + 1, h, o.write(t, h)

    _, h, o = tf.while_loop(lambda t, h, o: t < 4, step, [0, tf.zeros([2, 3], tf.float64), outs])
    loss = tf.reduce_sum(o.stack() * 0.3) + tf.reduce_sum(h * h)
    gxs, gw = tf.gradients(loss, [xs, w])
    return {"loss": loss, "gxs": gxs, "gw": gw}, [{"xs:0": rs.randn(4, 2, 3)}]


@program
def grad_functional(tf):
    x = tf.placeholder(tf.float32, [3, 2], name="x")
    y = tf.placeholder(tf.float32, [], name="y")
    m = tf.reduce_sum(tf.map_fn(lambda r: r * r * y, x))
    s = tf.reduce_sum(tf.scan(lambda a, r: a * r + y, x))
    f = tf.foldl(lambda a, r: a * r, x, initializer=tf.ones([2]) * y)
    gm = tf.gradients(m, [x, y])
    gs = tf.gradients(s, [x, y])
    gf = tf.gradients(tf.reduce_sum(f), [x, y])
    return ({"gm_x": gm[0], "gm_y": gm[1], "gs_x": gs[0], "gs_y": gs[1], "gf_x": gf[0],
             "gf_y": gf[1]}, [{"x:0": [[1.0, 2.0], [0.5, -1.0], [3.0, 0.2]], "y:0": 0.6}])


# Their GraphDefs, written by TF, are rebuilt node by node and run (test_imported_graphs.py).
GRAPH_DEF_PROGRAMS = ["while_basic", "while_inside_cond", "grad_while", "grad_cond_in_while",
                      "grad_lstm_loop",
                      "grad_rnn", "while_nested"]
STRUCTURE_PROGRAMS = ["cond_basic", "while_basic", "cond_side_effects", "tensor_array_loop",
                      "grad_cond", "grad_cond_in_while", "functional", "while_external_control",
                      "while_nested", "grad_sparse_cond"]


# -- errors: each builds a graph and returns what to run (or raises while building) ----------
ERROR_PROGRAMS = {}


def error_program(fn):
    ERROR_PROGRAMS[fn.__name__] = fn
    return fn


def _switch(tf):
    if tf.__name__.startswith("flowloom"):
        from flowloom.ops.control_flow import control_flow_ops
    else:
        from tensorflow.python.ops import control_flow_ops
    return control_flow_ops.switch


@error_program
def err_dead_fetch(tf):  # noqa: F811
    _, t = _switch(tf)(tf.constant(1.0), tf.constant(False))
    return t


@error_program
def err_cond_python_bool(tf):
    return tf.cond(True, lambda: 1, lambda: 2)


@error_program
def err_cond_types(tf):
    return tf.cond(tf.constant(True), lambda: tf.constant(1), lambda: tf.constant(1.0))


@error_program
def err_cond_structure(tf):
    return tf.cond(tf.constant(True), lambda: (tf.constant(1), tf.constant(1)),
                   lambda: tf.constant(1))


@error_program
def err_while_body_structure(tf):
    return tf.while_loop(lambda i: i < 3, lambda i: (i + 1, i), [tf.constant(0)])


@error_program
def err_while_shape(tf):
    return tf.while_loop(lambda a: tf.shape(a)[0] < 6, lambda a: tf.concat([a, a], 0),
                         [tf.constant([1.0])])


@error_program
def err_while_dtype(tf):
    return tf.while_loop(lambda a: a < 6, lambda a: tf.cast(a, tf.float32), [tf.constant(1)])


@error_program
def err_while_no_vars(tf):
    return tf.while_loop(lambda a: a < 6, lambda a: a, [])


@error_program
def err_while_not_callable(tf):
    return tf.while_loop(1, lambda a: a, [1])


@error_program
def err_while_parallel(tf):
    return tf.while_loop(lambda a: a < 6, lambda a: a, [1], parallel_iterations=0)


@error_program
def err_ta_read_twice(tf):
    ta = tf.TensorArray(tf.float32, size=2).unstack([1.0, 2.0])
    with tf.control_dependencies([ta.read(0)]):
        return ta.read(0)


@error_program
def err_ta_write_twice(tf):
    return tf.TensorArray(tf.float32, size=2).write(0, 1.0).write(0, 2.0).flow


@error_program
def err_ta_write_out_of_range(tf):
    return tf.TensorArray(tf.float32, size=2).write(5, 1.0).flow


@error_program
def err_ta_read_out_of_range(tf):
    return tf.TensorArray(tf.float32, size=2).write(0, 1.0).read(3)


@error_program
def err_ta_stack_empty(tf):
    return tf.TensorArray(tf.float32, size=0).stack()


@error_program
def err_ta_inconsistent_shapes(tf):
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
    return ta.write(0, [1.0]).write(1, [1.0, 2.0]).stack()


@error_program
def err_ta_static_shapes(tf):
    return tf.TensorArray(tf.float32, size=2).write(0, [1.0]).write(1, [1.0, 2.0]).flow


@error_program
def err_ta_read_unwritten(tf):
    ta = tf.TensorArray(tf.float32, size=2, infer_shape=False)
    return ta.write(0, 1.0).read(1)


# -- tf.nest cases: (structure, other structure for assert_same_structure) -------------------
def nest_cases():
    return {
        "flat": (3, 4),
        "list": ([1, [2, 3], (4,)], [5, [6, 7], (8,)]),
        "dict_order": ({"b": 1, "a": [2, 3], "c": {"z": 4, "y": 5}},
                       {"a": [0, 0], "b": 0, "c": {"y": 0, "z": 0}}),
        "namedtuple": (Pair(a=1, b=(2, {"k": 3})), Pair(a=0, b=(0, {"k": 0}))),
        "none_leaf": ([None, (None, 1)], [1, (2, 3)]),
        "tuple_vs_list": ((1, 2), [1, 2]),
        "length": ([1, 2], [1, 2, 3]),
        "seq_vs_leaf": ([1, [2]], [1, 2]),
        "dict_keys": ({"a": 1}, {"b": 1}),
        "string_leaf": (["ab", ("cd",)], [1, (2,)]),
    }


def nest_results(nest):
    """What the nest functions return on the cases (JSON-able)."""
    out = {}
    for name, (s, other) in nest_cases().items():
        flat = nest.flatten(s)
        packed = nest.pack_sequence_as(s, list(range(len(flat))))
        doubled = nest.map_structure(lambda v: None if v is None else v * 2, s)
        try:
            nest.assert_same_structure(s, other)
            same = "OK"
        except (TypeError, ValueError) as e:
            same = type(e).__name__
        try:
            nest.assert_same_structure(s, other, check_types=False)
            same_loose = "OK"
        except (TypeError, ValueError) as e:
            same_loose = type(e).__name__
        out[name] = [repr(flat), repr(packed), repr(doubled), same, same_loose,
                     nest.is_nested(s)]
    return out


@program
def variables_in_loop(tf):
    """Variables created inside a loop body (as RNN cells do) live outside the loop."""
    xs = tf.placeholder(tf.float32, [5, 2, 3], name="xs")

    def body(t, h):
        with tf.variable_scope("cell", reuse=tf.AUTO_REUSE):
            w = tf.get_variable("w", [3, 3], initializer=tf.constant_initializer(0.1))
            b = tf.get_variable("b", [3], initializer=tf.constant_initializer(-0.2))
        return t + 1, tf.tanh(tf.matmul(tf.gather(xs, t), w) + h + b)

    _, h = tf.while_loop(lambda t, h: t < 5, body, [0, tf.zeros([2, 3])])
    gw, gb = tf.gradients(tf.reduce_sum(h * h), tf.trainable_variables())
    init = tf.global_variables_initializer()
    return ({"h": h, "gw": gw, "gb": gb, "init": init},
            [{"xs:0": np.linspace(-1, 1, 30).reshape(5, 2, 3)}])


@program
def grad_sparse_cond(tf):
    """tf.gather's IndexedSlices gradient through cond branches and a loop."""
    v = tf.Variable(np.arange(6.0).reshape(3, 2), dtype=tf.float32, name="v")
    p = tf.placeholder(tf.bool, [], name="p")
    r = tf.cond(p, lambda: tf.gather(v, [0, 2]) * 2.0, lambda: tf.gather(v, [1, 1]))
    g = tf.gradients(tf.reduce_sum(r * r), v)[0]
    _, acc = tf.while_loop(lambda i, a: i < 3,
                           lambda i, a: (i + 1, a + tf.reduce_sum(tf.gather(v, [i]) * a)),
                           [0, 1.0])
    g2 = tf.gradients(acc, v)[0]
    return ({"dense_g": tf.convert_to_tensor(g), "dense_g2": tf.convert_to_tensor(g2),
             "init": v.initializer}, [{"p:0": True}, {"p:0": False}])


@program
def grad_lstm_loop(tf):
    """dynamic_rnn's loop, written out: an LSTM over TensorArrays with sequence lengths."""
    rs = _rs()
    T, B, D, H = 5, 3, 4, 6
    x = tf.placeholder(tf.float32, [B, None, D], name="x")
    seq = tf.placeholder(tf.int32, [B], name="seq")
    with tf.variable_scope("rnn"):
        w = tf.get_variable("kernel", [D + H, 4 * H],
                            initializer=tf.constant_initializer(rs.randn(D + H, 4 * H) * 0.3))
        b = tf.get_variable("bias", [4 * H], initializer=tf.zeros_initializer())
    xt = tf.transpose(x, [1, 0, 2])
    time_steps = tf.shape(xt)[0]
    inp = tf.TensorArray(tf.float32, size=time_steps, element_shape=[B, D]).unstack(xt)
    out = tf.TensorArray(tf.float32, size=time_steps, element_shape=[B, H])

    def step(t, c, h, out):
        gates = tf.nn.bias_add(tf.matmul(tf.concat([inp.read(t), h], 1), w), b)
        i, j, f, o = tf.split(gates, 4, axis=1)
        nc = c * tf.sigmoid(f + 1.0) + tf.sigmoid(i) * tf.tanh(j)
        nh = tf.tanh(nc) * tf.sigmoid(o)
        valid = tf.tile(tf.expand_dims(t < seq, 1), [1, H])
        return (t + 1, tf.where(valid, nc, c), tf.where(valid, nh, h),
                out.write(t, tf.where(valid, nh, tf.zeros_like(nh))))

    z = tf.zeros([B, H])
    _, c, h, out = tf.while_loop(lambda t, *_: t < time_steps, step, (0, z, z, out),
                                 maximum_iterations=time_steps)
    outputs = tf.transpose(out.stack(), [1, 0, 2])
    loss = tf.reduce_sum(outputs * outputs) + tf.reduce_sum(c)
    gw, gb, gx = tf.gradients(loss, [w, b, x])
    return ({"outputs": outputs, "c": c, "h": h, "gw": gw, "gb": gb, "gx": gx,
             "init": tf.global_variables_initializer()},
            [{"x:0": rs.randn(B, T, D).astype(np.float32), "seq:0": np.array([5, 2, 4])}])


def meta_graph_forward(tf):
    """A forward graph whose MetaGraphDef (with its cond/while contexts) is exported, imported
    elsewhere and differentiated there. Returns (loss name, [x names], feed)."""
    x = tf.placeholder(tf.float32, [2], name="x")

    def body(i, a):
        a = tf.cond(i > 1, lambda: a * x, lambda: a + tf.sin(x))
        _, a = tf.while_loop(lambda j, b: j < i, lambda j, b: (j + 1, b * 0.9 + x), [0, a])
        return i + 1, a

    _, a = tf.while_loop(lambda i, a: i < 4, body, [0, tf.ones([2])])
    a = tf.cond(tf.reduce_sum(x) > 0, lambda: a * 2.0, lambda: a - x)
    loss = tf.reduce_sum(a * a, name="loss")
    return loss.name, [x.name], {"x:0": [0.5, -0.3]}


@program
def while_external_control(tf):
    """A loop body under control_dependencies on an op outside the loop, reading a variable
    (RefEnter): TF pulls the outside op in through an Identity."""
    v = tf.Variable(0.0, name="v")
    inc = tf.assign_add(v, 1.0)

    def body(i, a):
        with tf.control_dependencies([inc]):
            b = a + tf.identity(v.read_value())
        return i + 1, b

    r = tf.while_loop(lambda i, a: i < 3, body, [0, 0.0])
    return {"r": r[1], "init": v.initializer}, [{}]


@program
def edge_structures(tf):
    """TensorArrays returned by cond and carried alone by a loop; dicts through map_fn and
    scan; a Variable as a loop variable."""
    x = tf.placeholder(tf.float32, [3, 2], name="x")
    p = tf.placeholder(tf.bool, [], name="p")
    ta = tf.TensorArray(tf.float32, size=3)
    ta2 = tf.cond(p, lambda: ta.write(0, x[1] * 10.0), lambda: ta.write(0, x[0]))
    first = ta2.read(0)
    only_ta = tf.while_loop(lambda t: t.size() < 4,
                            lambda t: t.write(t.size(), tf.ones([2]) * tf.cast(t.size(), tf.float32)),
                            [tf.TensorArray(tf.float32, size=0, dynamic_size=True)])
    grown = only_ta.stack()
    md = tf.map_fn(lambda d: {"s": d["a"] + d["b"], "p": d["a"] * d["b"]},
                   {"a": x, "b": x * 2.0}, dtype={"s": tf.float32, "p": tf.float32})
    sc = tf.scan(lambda acc, e: (acc[0] + e, acc[1] * e), x,
                 initializer=(tf.zeros([2]), tf.ones([2])))
    v = tf.Variable(1.5, name="v")
    vl = tf.while_loop(lambda a: a < 20.0, lambda a: a * 2.0, [v])
    return ({"first": first, "grown": grown, "md_s": md["s"], "md_p": md["p"],
             "sc0": sc[0], "sc1": sc[1], "vl": vl, "init": v.initializer},
            [{"x:0": np.arange(6.0).reshape(3, 2) + 1.0, "p:0": True},
             {"x:0": np.arange(6.0).reshape(3, 2) + 1.0, "p:0": False}])
