"""TF1 programs that run unchanged on TensorFlow and on flowloom.

Each `prog_*` takes the `tf` module and returns a JSON-able dict of what it observed (names,
shapes, values, error classes). `record_core.py` runs them on real TensorFlow and stores the
results in core_expected.json; tests/framework/test_against_tf.py runs them on flowloom and
compares.
"""

import numpy as np


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return None


def _v(x):
    x = np.asarray(x)
    if x.dtype == object:
        return [b.decode() if isinstance(b, bytes) else b for b in x.ravel().tolist()]
    return x.tolist()


def prog_unique_names(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1, name="c")
        b = tf.constant(1, name="c")
        c = tf.constant(1, name="C")
        d = tf.constant(1, name="c_1")
        with tf.name_scope("hidden"):
            e = tf.constant(1)
        with tf.name_scope("hidden"):
            f = tf.constant(1)
        with tf.name_scope("hidden/"):
            h = tf.constant(1)
        with tf.name_scope("outer"):
            with tf.name_scope(None):
                i = tf.constant(1, name="reset")
            with tf.name_scope("inner") as scope:
                j = tf.constant(1, name="x")
                inner_scope = scope
        k = tf.add(a, b)
        m = a + b
        n = a * 2
        o = tf.identity(a, name="hidden")
    return {"names": [t.name for t in (a, b, c, d, e, f, h, i, j, k, m, n, o)],
            "scope": inner_scope,
            "ops": [op.name for op in g.get_operations()],
            "types": [op.type for op in g.get_operations()]}


def prog_operators(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        i = tf.constant([7, -7, 8])
        results = {
            "add": x + 1, "radd": 1 + x, "sub": x - 1, "rsub": 1 - x, "mul": x * x,
            "div": x / 2, "rdiv": 2 / x, "floordiv": x // 3, "mod": x % 3, "pow": x ** 2,
            "neg": -x, "abs": abs(-x), "lt": x < 2, "ge": x >= 2, "matmul": x @ x,
            "idiv": i / 2, "ifloordiv": i // 2, "imod": i % 3, "tfdiv": tf.div(i, 2),
            "truncdiv": tf.truncatediv(i, 2), "floormod": tf.floormod(i, 3),
            "and": tf.constant([True, False]) & tf.constant([True, True]),
            "or": tf.constant([True, False]) | tf.constant([False, False]),
            "invert": ~tf.constant([True, False]),
            "xor": tf.constant([True, False]) ^ tf.constant([True, True]),
        }
        with tf.Session() as sess:
            vals = sess.run(results)
        return {
            "values": {k: _v(v) for k, v in vals.items()},
            "dtypes": {k: t.dtype.name for k, t in results.items()},
            "names": {k: t.name for k, t in results.items()},
            "shapes": {k: str(t.shape) for k, t in results.items()},
        }


def prog_slicing(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.arange(24).reshape(2, 3, 4))
        p = tf.placeholder(tf.int32, [None, 3, 4])
        specs = {
            "i0": lambda t: t[0], "neg": lambda t: t[-1], "slice": lambda t: t[:, 1:],
            "step": lambda t: t[..., ::2], "rev": lambda t: t[:, ::-1, :],
            "newaxis": lambda t: t[:, tf.newaxis, 0], "ellipsis": lambda t: t[..., 1],
            "mixed": lambda t: t[1, 0:2, -2:], "empty": lambda t: t[:, 3:],
            "tensor_idx": lambda t: t[tf.constant(1)],
        }
        out = {k: f(x) for k, f in specs.items()}
        pout = {k: f(p) for k, f in specs.items()}
        with tf.Session() as sess:
            vals = sess.run(out)
        return {"values": {k: _v(v) for k, v in vals.items()},
                "shapes": {k: str(t.shape) for k, t in out.items()},
                "pshapes": {k: str(t.shape) for k, t in pout.items()},
                "oob": _err(lambda: x[5])}


def prog_array_ops(tf):
    g = tf.Graph()
    with g.as_default():
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        res = {
            "reshape": tf.reshape(x, [3, -1]), "transpose": tf.transpose(x),
            "expand": tf.expand_dims(x, 1), "squeeze": tf.squeeze(tf.zeros([1, 2, 1])),
            "concat": tf.concat([x, x], 1), "stack": tf.stack([x, x], axis=1),
            "slice": tf.slice(x, [0, 1], [-1, 2]), "fill": tf.fill([2, 2], 7),
            "zeros": tf.zeros([2, 3], tf.int32), "ones": tf.ones([2]), "zl": tf.zeros_like(x),
            "ol": tf.ones_like(x), "range": tf.range(5), "range2": tf.range(1, 10, 3),
            "rangef": tf.range(0.0, 1.0, 0.25), "shape": tf.shape(x), "size": tf.size(x),
            "rank": tf.rank(x), "cast": tf.cast(x, tf.int32),
            "castb": tf.cast(tf.constant([-1.7, 0.0, 2.5]), tf.int32),
            "sum": tf.reduce_sum(x), "sum0": tf.reduce_sum(x, 0),
            "meank": tf.reduce_mean(x, axis=1, keepdims=True), "max": tf.reduce_max(x, [0, 1]),
            "min": tf.reduce_min(x, 1), "prod": tf.reduce_prod(x, 0),
            "any": tf.reduce_any(x > 4), "all": tf.reduce_all(x >= 0, 1),
            "imean": tf.reduce_mean(tf.constant([1, 2])),
            "matmul_t": tf.matmul(x, x, transpose_b=True), "unstack0": tf.unstack(x)[1],
            "eq": tf.equal(x, 1.0), "maximum": tf.maximum(x, 2.0), "where": tf.where(x > 2),
            "pwd": tf.placeholder_with_default(x, [None, 3]),
        }
        with tf.Session() as sess:
            vals = sess.run(res)
        return {"values": {k: _v(v) for k, v in vals.items()},
                "shapes": {k: str(t.shape) for k, t in res.items()},
                "dtypes": {k: t.dtype.name for k, t in res.items()},
                "names": {k: t.name for k, t in res.items()},
                "types": {k: t.op.type for k, t in res.items()}}


def prog_shape_errors(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.ones([2, 3])
        p = tf.placeholder(tf.float32, [None, 3])
        q = tf.placeholder(tf.float32, [None, 2])
        return {
            "matmul": _err(lambda: tf.matmul(a, tf.ones([4, 5]))),
            "add": _err(lambda: a + tf.ones([3, 2])),
            "reshape": _err(lambda: tf.reshape(a, [4, 2])),
            "concat": _err(lambda: tf.concat([a, tf.ones([2, 3, 1])], 0)),
            "dtype": _err(lambda: a + tf.constant(1)),
            "add_int_float": _err(lambda: tf.add(1, tf.constant(2.0))),
            "ok_dynamic": str((p + q[:, :1]).shape),
            "const_float_to_int": _err(lambda: tf.constant(1.5, dtype=tf.int32)),
            "squeeze_bad": _err(lambda: tf.squeeze(a, [0])),
            "bool": _err(lambda: bool(a)),
            "iter_unknown": _err(lambda: list(p)),
            "iter_known": _err(lambda: list(a)),
            "two_graphs": _err(lambda: tf.add(a, _other_graph_tensor(tf))),
        }


def _other_graph_tensor(tf):
    with tf.Graph().as_default():
        return tf.constant(1.0)


def prog_runtime_errors(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable(1.0, name="v")
        p = tf.placeholder(tf.float32, [2], name="p")
        a = tf.placeholder(tf.float32, [None])
        b = tf.placeholder(tf.float32, [None])
        s = a + b
        sess = tf.Session()
        r = {
            "uninit": _err(lambda: sess.run(v)),
            "uninit_read": _err(lambda: sess.run(v.value() * 2)),
            "missing_feed": _err(lambda: sess.run(p * 2)),
            "bad_feed_shape": _err(lambda: sess.run(p, {p: [1.0, 2.0, 3.0]})),
            "broadcast": _err(lambda: sess.run(s, {a: [1, 2], b: [1, 2, 3]})),
            "fetch_none": _err(lambda: sess.run(None)),
            "fetch_bad_name": _err(lambda: sess.run("nope:0")),
            "feed_op": _err(lambda: sess.run(p, {p.op: [1, 2]})),
        }
        sess.close()
        r["closed"] = _err(lambda: sess.run(p, {p: [1, 2]}))
        return r


def prog_session_fetches(tf):
    import collections

    g = tf.Graph()
    with g.as_default():
        x = tf.Variable(0.0, name="x")
        inc = tf.assign_add(x, 1.0)
        c = tf.constant([1, 2], name="c")
        P = collections.namedtuple("P", ["a", "b"])
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            twice = sess.run([inc, inc])
            after = sess.run(x)
            nested = sess.run({"a": [c, (c, "c:0")], "b": P(c, x), "op": inc.op})
            by_name = sess.run("x:0")
            op_fetch = sess.run(x.initializer)
            fed = sess.run(c * 2, {c: [5, 6]})
            fed_var = sess.run(x.value() + 1, {x.value(): 10.0})
            call = sess.make_callable(c * 3, [c])
            made = call([1, 1])
            scalar = sess.run(tf.constant(2.5))
        return {
            "twice": _v(twice), "after": float(after),
            "nested_a": [_v(nested["a"][0]), [_v(nested["a"][1][0]), _v(nested["a"][1][1])]],
            "nested_b": [type(nested["b"]).__name__, _v(nested["b"].a), float(nested["b"].b)],
            "nested_op": nested["op"], "by_name": float(by_name), "op_fetch": op_fetch,
            "fed": _v(fed), "fed_var": float(fed_var), "made": _v(made),
            "scalar_type": type(scalar).__name__, "c_type": type(nested["a"][0]).__name__,
        }


def prog_variables(tf):
    g = tf.Graph()
    with g.as_default():
        v = tf.Variable([1.0, 2.0], name="v")
        w = tf.Variable(tf.zeros([2]), trainable=False, name="w")
        loc = tf.Variable(3, collections=[tf.GraphKeys.LOCAL_VARIABLES], name="loc")
        a1 = v.assign([5.0, 6.0])
        a2 = v.assign_add([1.0, 1.0])
        a3 = tf.assign_sub(v, [0.5, 0.5], use_locking=True)
        uninit = tf.report_uninitialized_variables()
        with tf.Session() as sess:
            before = sess.run(uninit)
            init_state = sess.run(tf.is_variable_initialized(v))
            sess.run(tf.global_variables_initializer())
            mid = sess.run(uninit)
            sess.run(tf.local_variables_initializer())
            after = sess.run(uninit)
            r1 = sess.run(a1)
            r2 = sess.run(a2)
            r3 = sess.run(a3)
            v.load([9.0, 9.0], sess)
            loaded = v.eval(sess)
        return {
            "names": [v.name, w.name, loc.name, v.op.name, v.initializer.name,
                      v.initial_value.name, v.value().name],
            "dtypes": [v.dtype.name, v.value().dtype.name],
            "types": [op.type for op in g.get_operations()][:8],
            "ops": [op.name for op in g.get_operations()][:12],
            "global": [x.name for x in tf.global_variables()],
            "trainable": [x.name for x in tf.trainable_variables()],
            "local": [x.name for x in tf.local_variables()],
            "uninit": [_v(before), _v(mid), _v(after)], "init_state": bool(init_state),
            "assigns": [_v(r1), _v(r2), _v(r3)], "loaded": _v(loaded),
            "repr": repr(v), "shape": str(v.shape),
            "a1": a1.name, "a2": a2.name, "a3": a3.name,
        }


def prog_variable_scopes(tf):
    g = tf.Graph()
    out = {}
    with g.as_default():
        with tf.variable_scope("foo"):
            with tf.variable_scope("bar"):
                v = tf.get_variable("v", [1])
                c = tf.constant(1)
        out["nested"] = [v.name, c.name]
        with tf.name_scope("ns"):
            with tf.variable_scope("vs"):
                w = tf.get_variable("w", [1])
                d = tf.constant(1)
        out["ns_vs"] = [w.name, d.name]
        with tf.variable_scope("foo", reuse=True):
            out["reuse_same"] = tf.get_variable("bar/v", [1]) is v
        out["missing"] = _err(lambda: _get_missing(tf))
        out["shape_mismatch"] = _err(lambda: _get_mismatch(tf))
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            a1 = tf.get_variable("a", [2])
        with tf.variable_scope("auto", reuse=tf.AUTO_REUSE):
            a2 = tf.get_variable("a", [2])
        out["auto"] = a1 is a2
        with tf.variable_scope("outer") as outer:
            pass
        with tf.variable_scope(outer):
            e = tf.constant(0)
            x = tf.get_variable("x", [1])
        out["reenter_object"] = [e.name, x.name, outer.name, outer.original_name_scope]
        with tf.variable_scope("init", initializer=tf.constant_initializer(0.5)):
            i = tf.get_variable("i", [2])
            j = tf.get_variable("j", [2], initializer=tf.zeros_initializer())
            k = tf.get_variable("k", [], dtype=tf.int32, initializer=tf.ones_initializer())
        out["current"] = tf.get_variable_scope().name
        with tf.variable_scope("cur"):
            out["current_in"] = tf.get_variable_scope().name
            with tf.variable_scope(None, default_name="d"):
                out["default1"] = tf.get_variable_scope().name
            with tf.variable_scope(None, default_name="d"):
                out["default2"] = tf.get_variable_scope().name
        with tf.variable_scope("r") as r:
            r.reuse_variables()
            with tf.variable_scope("inner"):
                out["reuse_inherited"] = tf.get_variable_scope().reuse
        out["reuse_without_name"] = _err(lambda: tf.variable_scope(None, default_name="q",
                                                                  reuse=True).__enter__())
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            vals = sess.run([i, j, k])
        out["init_values"] = [_v(x) for x in vals]
        out["ops_i"] = [op.name for op in g.get_operations() if op.name.startswith("init/")]
        out["glorot_ops"] = [op.name for op in g.get_operations()
                             if op.name.startswith("foo/bar/v")]
        out["trainable"] = [x.name for x in tf.trainable_variables()]
    return out


def _get_missing(tf):
    with tf.variable_scope("nothere", reuse=True):
        tf.get_variable("zz", [1])


def _get_mismatch(tf):
    with tf.variable_scope("foo", reuse=True):
        tf.get_variable("bar/v", [3])


def prog_control(tf):
    g = tf.Graph()
    with g.as_default():
        a = tf.constant(1.0, name="a")
        b = tf.constant(2.0, name="b")
        with tf.control_dependencies([a]):
            c = tf.identity(b, name="c")
            with tf.control_dependencies(None):
                d = tf.identity(b, name="d")
            with tf.control_dependencies([b.op]):
                e = tf.identity(a, name="e")
        n = tf.no_op(name="n")
        grp = tf.group(a, c, name="grp")
        t1, t2 = tf.tuple([a, b])
        return {
            "c": [x.name for x in c.op.control_inputs], "d": [x.name for x in d.op.control_inputs],
            "e": sorted(x.name for x in e.op.control_inputs), "n": n.type,
            "grp": [grp.name, grp.type, sorted(x.name for x in grp.control_inputs)],
            "tuple": [t1.name, t2.name, t1.op.type],
            "ops": [op.name for op in g.get_operations()],
        }


def prog_graph_api(tf):
    g = tf.Graph()
    out = {}
    with g.as_default():
        a = tf.placeholder(tf.float32, [None, 3], name="in")
        b = tf.matmul(a, tf.ones([3, 2]), name="mm")
        out["get_tensor"] = g.get_tensor_by_name("mm:0") is b
        out["get_op"] = g.get_operation_by_name("mm") is b.op
        out["missing"] = _err(lambda: g.get_tensor_by_name("zz:0"))
        out["missing_op"] = _err(lambda: g.get_operation_by_name("zz"))
        out["attrs"] = [b.op.get_attr("transpose_a"), b.op.get_attr("T").name]
        out["no_attr"] = _err(lambda: b.op.get_attr("nothere"))
        out["inputs"] = [t.name for t in b.op.inputs]
        out["outputs"] = [t.name for t in b.op.outputs]
        out["consumers"] = [op.name for op in a.consumers()]
        out["str"] = [str(a), repr(b.op.name)]
        out["shape"] = [str(b.shape), b.shape.as_list(), b.get_shape().ndims]
        a.set_shape([4, 3])
        out["set_shape"] = str(a.shape)
        out["set_shape_bad"] = _err(lambda: a.set_shape([5, 3]))
        g.add_to_collection("mine", a)
        out["collection"] = [x.name for x in g.get_collection("mine")]
        out["default_is_g"] = tf.get_default_graph() is g
    g.finalize()
    with g.as_default():
        out["finalized"] = _err(lambda: tf.constant(1))
    return out


PROGRAMS = [v for k, v in sorted(globals().items()) if k.startswith("prog_")]
