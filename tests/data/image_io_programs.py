"""Programs run on TF 1.15 (record_image_io.py) and on flowloom (tests/ops/test_image_io.py):
ReadFile / WriteFile and the tf.image functions that TF 1.15's image_ops_test checks
(ssim, psnr, resize_images_v2, ScaleAndTranslate, codecs, build-time checks).

`program(tf, ops, workdir)` returns {case: outcome}; an outcome is a value (lists of numbers,
bytes as latin-1 text, shapes as lists) or {"error": class name, "message": first line}.
`ops` holds the TF-internal functions that the public namespace does not show.
"""

import os

import numpy as np


def outcome(fn):
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the error class is the outcome
        return {"error": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}
    return plain(value)


def plain(value):
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return plain(value.tolist())
        return {"dtype": value.dtype.name, "shape": list(value.shape),
                "values": np.round(value.astype(np.float64), 5).ravel().tolist()}
    if isinstance(value, (np.generic,)):
        return plain(np.asarray(value))
    return value


def file_cases(tf, workdir):
    r = {}
    a = os.path.join(workdir, "a.txt")
    with open(a, "wb") as f:
        f.write(b"abc\x00\xff")
    with tf.Graph().as_default(), tf.Session() as s:
        p = tf.placeholder(tf.string)
        q = tf.placeholder(tf.string)
        r["read"] = outcome(lambda: s.run(tf.read_file(a)))
        r["read_shape"] = tf.read_file(a).shape.as_list()
        r["read_missing"] = outcome(lambda: s.run(tf.read_file(a + ".missing")))
        r["read_directory"] = outcome(lambda: s.run(tf.read_file(workdir)))
        r["read_vector_fed"] = outcome(lambda: s.run(tf.read_file(p), {p: [a]}))
        r["read_vector_built"] = outcome(lambda: tf.read_file([a, a]))
        r["read_not_a_directory"] = outcome(lambda: s.run(tf.read_file(a + "/x")))
        b = os.path.join(workdir, "new", "dir", "b.txt")
        w = tf.write_file(b, "hello")
        r["write_type"] = [w.type, len(w.outputs)]
        r["write"] = outcome(lambda: s.run(w))
        r["write_readback"] = outcome(lambda: s.run(tf.read_file(b)))
        r["write_replaces"] = outcome(lambda: s.run(tf.write_file(b, "x")) or s.run(
            tf.read_file(b)))
        r["write_vector_built"] = outcome(lambda: tf.write_file(a, ["x", "y"]))
        r["write_name_vector_fed"] = outcome(lambda: s.run(tf.write_file(p, "x"), {p: [b]}))
        r["write_contents_vector_fed"] = outcome(lambda: s.run(tf.write_file(b, q), {q: ["x"]}))
        r["write_to_directory"] = outcome(lambda: s.run(tf.write_file(workdir, "x")))
    return r


def program(tf, ops, workdir):
    r = {}
    r.update(file_cases(tf, workdir))
    return r
