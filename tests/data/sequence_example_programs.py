"""A program run on TF 1.15 (record_sequence_example.py) and on flowloom
(tests/ops/test_sequence_example.py): tf.parse_single_sequence_example and
tf.io.parse_sequence_example over context and feature-list features, and their errors."""

import numpy as np


def _v(x):
    if hasattr(x, "dense_shape"):
        return {"indices": _v(x.indices), "values": _v(x.values), "shape": _v(x.dense_shape)}
    if isinstance(x, dict):
        return {k: _v(v) for k, v in sorted(x.items())}
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return [e.decode() for e in x.reshape(-1).tolist()]
        return x.tolist()
    if isinstance(x, np.generic):
        return x.item()
    return x


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return None


def _seq(pb, context, lists):
    def feat(v):
        if isinstance(v[0], float):
            return pb.Feature(float_list=pb.FloatList(value=v))
        if isinstance(v[0], bytes):
            return pb.Feature(bytes_list=pb.BytesList(value=v))
        return pb.Feature(int64_list=pb.Int64List(value=v))

    return pb.SequenceExample(
        context=pb.Features(feature={k: feat(v) for k, v in context.items()}),
        feature_lists=pb.FeatureLists(feature_list={
            k: pb.FeatureList(feature=[feat(v) for v in steps]) for k, steps in lists.items()}),
    ).SerializeToString()


def program(tf, pb):
    a = _seq(pb, {"c": [1.0, 2.0], "s": [b"x", b"y", b"z"]},
             {"fd": [[1, 2], [3, 4], [5, 6]], "fs": [[7], [8, 9], [10]]})
    b = _seq(pb, {"c": [3.0, 4.0]}, {"fd": [[0, 1]], "fs": [[1, 2, 3]]})
    ctx = {"c": tf.FixedLenFeature([2], tf.float32), "s": tf.VarLenFeature(tf.string),
           "d": tf.FixedLenFeature([], tf.int64, default_value=-1)}
    seqf = {"fd": tf.FixedLenSequenceFeature([2], tf.int64), "fs": tf.VarLenFeature(tf.int64),
            "e": tf.FixedLenSequenceFeature([3], tf.float32, allow_missing=True)}
    out = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        c, s = tf.parse_single_sequence_example(a, ctx, seqf, example_name="a")
        out["single"] = [_v(sess.run(c)), _v(sess.run(s))]
        out["single_shapes"] = sorted([k, str(v.shape)] for k, v in list(c.items()) +
                                      list(s.items()) if hasattr(v, "op"))
        c, s, n = tf.io.parse_sequence_example([a, b], ctx, seqf)
        out["batch"] = [_v(sess.run(c)), _v(sess.run(s)), _v(sess.run(n))]
        out["missing_list"] = _err(lambda: sess.run(tf.parse_single_sequence_example(
            b, sequence_features={"q": tf.FixedLenSequenceFeature([2], tf.int64)})[1]["q"]))
        out["wrong_type"] = _err(lambda: sess.run(tf.parse_single_sequence_example(
            a, sequence_features={"fd": tf.FixedLenSequenceFeature([2], tf.float32)})[1]))
        out["wrong_size"] = _err(lambda: sess.run(tf.parse_single_sequence_example(
            a, sequence_features={"fd": tf.FixedLenSequenceFeature([3], tf.int64)})[1]))
        out["no_features"] = _err(lambda: tf.parse_single_sequence_example(a))
    return out
