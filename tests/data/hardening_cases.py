"""Programs for the correctness facts of issue 10, run on TensorFlow and on flowloom.

Each `case_*` takes `(tf, lib)` — the TF1 module and a namespace of the few non-public
functions both sides have (`strip_name_scope`) — and returns a JSON-able observation: values,
or the class name of the error and the stage (`build`, `import`, `run`) where it was raised.
`record_hardening.py` runs them on TensorFlow into hardening_tf.json;
tests/framework/test_hardening_values.py runs them on flowloom and compares.
"""

import threading

import numpy as np


def _v(x):
    if isinstance(x, (list, tuple)):
        return [_v(e) for e in x]
    x = np.asarray(x)
    if x.dtype == object:
        return [b.decode() if isinstance(b, bytes) else b for b in x.ravel().tolist()]
    if x.dtype.kind == "c":
        return [[z.real, z.imag] for z in x.ravel().tolist()]
    return x.tolist()


def _stages(build, run=None):
    """Runs `build()` then `run(built)`; returns the value or where and how it failed."""
    try:
        built = build()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return {"error": type(e).__name__, "stage": "build"}
    if run is None:
        return {"value": _v(built)}
    try:
        return {"value": _v(run(built))}
    except Exception as e:  # noqa: BLE001
        return {"error": type(e).__name__, "stage": "run"}


def _run(tf, fetch, feed=None):
    with tf.Session(graph=fetch.graph if hasattr(fetch, "graph") else None) as sess:
        return sess.run(fetch, feed)


def case_split_one(tf, lib):
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
        s = tf.split(x, 1)[0]
        return {"raw": _stages(lambda: s, lambda s: _run(tf, s)),
                "consumer": _stages(lambda: s + 1, lambda t: _run(tf, t)),
                "shape": str(s.shape)}


def case_unstack_one_row(tf, lib):
    with tf.Graph().as_default():
        parts = tf.unstack(tf.constant([[1.0, 2.0]]))
        return {"n": len(parts), "raw": _stages(lambda: parts[0], lambda s: _run(tf, s)),
                "consumer": _stages(lambda: parts[0] * 2, lambda t: _run(tf, t))}


def case_decode_csv_one_column(tf, lib):
    with tf.Graph().as_default():
        cols = tf.decode_csv(tf.constant(["1", "2"]), [[0]])
        return {"n": len(cols), "raw": _stages(lambda: cols[0], lambda s: _run(tf, s)),
                "consumer": _stages(lambda: cols[0] + 1, lambda t: _run(tf, t))}


def case_parse_example_one_dense(tf, lib):
    ex = tf.train.Example(features=tf.train.Features(feature={
        "x": tf.train.Feature(float_list=tf.train.FloatList(value=[1.5, 2.5]))}))
    with tf.Graph().as_default():
        parsed = tf.parse_example(tf.constant([ex.SerializeToString()]),
                                  {"x": tf.FixedLenFeature([2], tf.float32)})
        return {"raw": _stages(lambda: parsed["x"], lambda s: _run(tf, s)),
                "consumer": _stages(lambda: parsed["x"] * 2, lambda t: _run(tf, t))}


def case_sparse_to_dense_empty(tf, lib):
    with tf.Graph().as_default():
        sp = tf.SparseTensor(indices=np.zeros((0, 2), np.int64),
                             values=tf.constant([], tf.float32), dense_shape=[2, 3])
        return _stages(lambda: tf.sparse_tensor_to_dense(sp), lambda t: _run(tf, t))


def case_complex_matmul_adjoint(tf, lib):
    with tf.Graph().as_default():
        a = tf.constant([[1 + 2j, 2 - 1j], [0 + 1j, 3 + 0j]], tf.complex64)
        b = tf.constant([[3 + 4j, 1 + 1j], [2 - 2j, 0 - 1j]], tf.complex64)
        outs = {"adjoint_a": tf.matmul(a, b, adjoint_a=True),
                "adjoint_b": tf.matmul(a, b, adjoint_b=True),
                "both": tf.matmul(a, b, adjoint_a=True, adjoint_b=True),
                "transpose_a": tf.matmul(a, b, transpose_a=True)}
        with tf.Session() as sess:
            vals = sess.run(outs)
        return {k: _v(v) for k, v in sorted(vals.items())}


def _graph_def(tf, nodes):
    gd = tf.GraphDef()
    for fill in nodes:
        fill(gd.node.add())
    return gd


def _import_and_run(tf, gd, fetch):
    g = tf.Graph()
    with g.as_default():
        try:
            tf.import_graph_def(gd, name="")
        except Exception as e:  # noqa: BLE001
            return {"error": type(e).__name__, "stage": "import"}
        try:
            with tf.Session(graph=g) as sess:
                return {"value": _v(sess.run(fetch))}
        except Exception as e:  # noqa: BLE001
            return {"error": type(e).__name__, "stage": "run"}


def _const_node(node, name, dtype_enum, value_dtype_enum, shape, **vals):
    node.name = name
    node.op = "Const"
    node.attr["dtype"].type = dtype_enum
    t = node.attr["value"].tensor
    t.dtype = value_dtype_enum
    for d in shape:
        t.tensor_shape.dim.add().size = d
    for k, v in vals.items():
        getattr(t, k).extend(v)


def case_const_dtype_mismatch(tf, lib):
    gd = _graph_def(tf, [lambda n: _const_node(n, "c", 3, 1, [], float_val=[1.5])])
    return _import_and_run(tf, gd, "c:0")


def case_const_dtype_match(tf, lib):
    gd = _graph_def(tf, [lambda n: _const_node(n, "c", 1, 1, [2], float_val=[1.5, 2.5])])
    return _import_and_run(tf, gd, "c:0")


def case_feed_range(tf, lib):
    out = {}
    for key, dtype, value in [
            ("int32_2pow40", "int32", 2 ** 40), ("int32_int64max", "int32", np.iinfo(np.int64).max),
            ("int32_array_2pow40", "int32", np.array([2 ** 40], np.int64)),
            ("int32_float", "int32", 1.5), ("int32_ok", "int32", [1, -2]),
            ("uint8_neg", "uint8", -1), ("int64_2pow40", "int64", 2 ** 40),
            ("float32_int", "float32", 3), ("bool_int", "bool", 1)]:
        with tf.Graph().as_default():
            p = tf.placeholder(getattr(tf, dtype))
            y = tf.identity(p)
            with tf.Session() as sess:
                try:
                    out[key] = {"value": _v(sess.run(y, {p: value}))}
                except Exception as e:  # noqa: BLE001
                    out[key] = {"error": type(e).__name__}
    return out


def case_pad_unknown_shapes(tf, lib):
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        p = tf.placeholder(tf.int32)
        return _stages(lambda: tf.pad(x, p), lambda t: _run(tf, t, {
            x: [[1.0, 2.0]], p: [[1, 0], [0, 1]]}))


def case_reduce_empty(tf, lib):
    with tf.Graph().as_default():
        return {"all": _stages(lambda: tf.reduce_all([]), lambda t: _run(tf, t)),
                "any": _stages(lambda: tf.reduce_any([]), lambda t: _run(tf, t))}


def case_count_nonzero_strings(tf, lib):
    with tf.Graph().as_default():
        return _stages(lambda: tf.count_nonzero(tf.constant(["a", "", "b"])),
                       lambda t: _run(tf, t))


def case_slice_with_dimension(tf, lib):
    with tf.Graph().as_default():
        x = tf.constant([1, 2, 3, 4])
        return _stages(lambda: x[0:tf.Dimension(3)], lambda t: _run(tf, t))


def case_run_bytes_name(tf, lib):
    with tf.Graph().as_default():
        tf.constant(3.0, name="c")
        tf.constant(1.0, name="d")
        with tf.Session() as sess:
            out = {}
            for key, fetch in [("bytes_tensor", b"c:0"), ("bytes_list", [b"c:0", "d:0"])]:
                try:
                    out[key] = {"value": _v(sess.run(fetch))}
                except Exception as e:  # noqa: BLE001
                    out[key] = {"error": type(e).__name__}
            return out


def case_strip_name_scope(tf, lib):
    names = ["hidden1/hidden1/weights", "hidden1///hidden1/weights", "hidden1/weights",
             "^hidden1/weights", "loc:@hidden1/weights", "hidden1_1/weights", "other/hidden1/w"]
    return {n: lib.strip_name_scope(n, "hidden1") for n in names}


def case_boolean_mask_rank(tf, lib):
    with tf.Graph().as_default():
        return {"higher": _stages(lambda: tf.boolean_mask(
                    tf.constant([1, 2]), tf.constant([[True, False], [True, True]])),
                    lambda t: _run(tf, t)),
                "scalar": _stages(lambda: tf.boolean_mask(tf.constant([1, 2]), tf.constant(True)),
                                  lambda t: _run(tf, t))}


def case_control_cycle(tf, lib):
    def a(n):
        _const_node(n, "a", 1, 1, [], float_val=[1.0])
        n.input.append("^b")

    def b(n):
        n.name = "b"
        n.op = "Identity"
        n.input.append("a")
        n.attr["T"].type = 1

    return _import_and_run(tf, _graph_def(tf, [a, b]), "b:0")


def case_place_only_what_runs(tf, lib):
    with tf.Graph().as_default():
        with tf.device("/device:GPU:0"):
            tf.constant(1.0, name="pinned") + 1.0
        c = tf.constant(2.0, name="c")
        d = c * 3
        return _stages(lambda: d, lambda t: _run(tf, t))


def case_assign_add_threads(tf, lib):
    """8 threads x 500 unlocked assign_add of a ones vector: TF's kernel updates in place."""
    with tf.Graph().as_default():
        v = tf.Variable(tf.zeros([1000]))
        inc = tf.assign_add(v, tf.ones([1000]), use_locking=False)
        with tf.Session() as sess:
            sess.run(v.initializer)

            def work():
                for _ in range(500):
                    sess.run(inc.op)

            threads = [threading.Thread(target=work) for _ in range(8)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            final = sess.run(v)
        return {"min": float(final.min()), "max": float(final.max())}




# -- hostile graphs: sizes that come from a GraphDef or a shape ----------------------------------
def _addn_node(n):
    n.name = "s"
    n.op = "AddN"
    n.input.extend(["a", "b"])
    n.attr["T"].type = 1
    n.attr["N"].i = 2 ** 40


def case_hostile_addn_huge_n(tf, lib):
    gd = _graph_def(tf, [lambda n: _const_node(n, "a", 1, 1, [2], float_val=[1.0]),
                         lambda n: _const_node(n, "b", 1, 1, [2], float_val=[1.0]), _addn_node])
    return _import_and_run(tf, gd, "s:0")


def case_hostile_const_shape_overflow(tf, lib):
    gd = _graph_def(tf, [lambda n: _const_node(n, "big", 1, 1, [2 ** 62, 2 ** 62, 0])])
    return _import_and_run(tf, gd, "big:0")


def case_hostile_const_fill_shape(tf, lib):
    """A one-value Const claiming 2**28 floats: imported, its size fetched without the array."""
    gd = _graph_def(tf, [lambda n: _const_node(n, "c", 1, 1, [2 ** 28], float_val=[1.0])])
    g = tf.Graph()
    with g.as_default():
        tf.import_graph_def(gd, name="")
        c = g.get_tensor_by_name("c:0")
        return {"shape": str(c.shape), "size": _stages(lambda: tf.size(c), lambda t: _run(tf, t))}


def case_hostile_reshape_to_huge_fill(tf, lib):
    with tf.Graph().as_default():
        x = tf.placeholder_with_default(tf.zeros([1]), [None])
        return _stages(lambda: tf.reshape(x, tf.fill([40000000], 1)), lambda t: "built")


def case_hostile_range_size(tf, lib):
    with tf.Graph().as_default():
        return _stages(lambda: tf.size(tf.range(40000000)), lambda t: _run(tf, t))


def case_hostile_regex(tf, lib):
    with tf.Graph().as_default():
        strings = tf.constant(["a" * 40, "a" * 39 + "b", "aa"])
        return {"nested_plus": _stages(lambda: tf.strings.regex_full_match(strings, "(a+)+b"),
                                       lambda t: _run(tf, t)),
                "backreference": _stages(lambda: tf.strings.regex_full_match(strings, r"(a)\1"),
                                         lambda t: _run(tf, t)),
                "dynamic_backreference": _stages(
                    lambda: tf.strings.regex_full_match(strings, tf.constant(r"(a)\1")),
                    lambda t: _run(tf, t)),
                "classes": _stages(lambda: tf.strings.regex_full_match(
                    tf.constant(["x1", "x_", "\u00e91"]), r"\w\d"), lambda t: _run(tf, t))}


def zlib_bomb(claimed_length, inflated, compression):
    """A TFRecord file whose header claims `claimed_length` bytes (valid length checksum),
    followed by `inflated` zero bytes, compressed (zlib/gzip): a small file, a huge claim."""
    import gzip
    import struct
    import zlib

    def masked(data):  # TFRecord's masked CRC-32C, bit by bit (the header is 8 bytes)
        crc = 0xFFFFFFFF
        for byte in data:
            crc ^= byte
            for _ in range(8):
                crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
        crc ^= 0xFFFFFFFF
        return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF

    length = struct.pack("<Q", claimed_length)
    header = length + struct.pack("<I", masked(length))
    if inflated <= 1 << 20:
        raw = header + bytes(inflated)
        return zlib.compress(raw, 9) if compression == "ZLIB" else gzip.compress(raw, 9)
    # Megabytes of zeros without compressing them all: after a full flush the compressor starts
    # afresh, so the block of one 1 MiB chunk can be repeated (the stream's final checksum then
    # disagrees, which a reader only meets after inflating everything).
    chunk = bytes(1 << 20)
    c = zlib.compressobj(9, zlib.DEFLATED, 15 if compression == "ZLIB" else 31)
    head = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    block = c.compress(chunk) + c.flush(zlib.Z_FULL_FLUSH)
    return head + block * (inflated >> 20) + c.flush(zlib.Z_FINISH)


def case_hostile_tfrecord_bombs(tf, lib, directory=None):
    import os
    import tempfile

    directory = directory or tempfile.mkdtemp()
    out = {}
    for name, claimed, inflated, compression in [
            ("zlib_claims_2pow40", 2 ** 40, 1 << 22, "ZLIB"),
            ("gzip_claims_2pow40", 2 ** 40, 1 << 22, "GZIP"),
            ("zlib_claims_1gib", 1 << 30, 1 << 22, "ZLIB"),
            ("zlib_truncated", 1 << 20, 1 << 16, "ZLIB")]:
        path = os.path.join(directory, name + ".tfrecord")
        with open(path, "wb") as f:
            f.write(zlib_bomb(claimed, inflated, compression))
        try:
            n = len(list(tf.python_io.tf_record_iterator(path, tf.io.TFRecordOptions(compression))))
            out[name] = {"records": n}
        except Exception as e:  # noqa: BLE001
            out[name] = {"error": type(e).__name__}
    return out


def case_variable_scope_collections_and_dtypes(tf, lib):
    with tf.Graph().as_default():
        with tf.variable_scope("foo") as vs:
            tf.get_variable("w", [1])
            tf.get_variable("n", [1], trainable=False)
            tf.get_variable("l", [1], collections=[tf.GraphKeys.LOCAL_VARIABLES])
        tf.get_variable("outside", [1])
        init = tf.constant(1, dtype=tf.int32)
        out = {"global": [v.name for v in vs.global_variables()],
               "trainable": [v.name for v in vs.trainable_variables()],
               "local": [v.name for v in vs.local_variables()],
               "int_from_value": tf.get_variable("t", initializer=init).dtype.base_dtype.name}
        try:
            tf.get_variable("s", initializer=init, dtype=tf.float64)
            out["explicit_dtype"] = "created"
        except ValueError as e:
            out["explicit_dtype"] = ["ValueError", "don't match" in str(e)]
        return out


CASES = sorted((name, fn) for name, fn in globals().items() if name.startswith("case_"))
