"""Records what real TensorFlow computes for tests/ops/op_cases.py.

    TF_CPP_MIN_LOG_LEVEL=3 "$FLOWLOOM_TF_PYTHON" tests/data/record_ops.py

Writes tests/data/ops_values.npz (outputs and gradients) and tests/data/ops_meta.json (output
tensor names, dtypes, static shapes, error classes).
"""

import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "ops"))

import op_cases  # noqa: E402


def run_case(tf, name, fn):
    with tf.Graph().as_default():
        spec = fn(tf)
        outs = spec["out"]
        xs = spec.get("xs", [])
        # Grappler off: its constant folding breaks some gradient graphs (FusedBatchNormV3
        # at inference), and the values are the kernels' anyway.
        config = tf.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        with tf.Session(config=config) as sess:
            got = sess.run(list(outs))
            if xs:
                y = outs[0]
                w = tf.constant(op_cases.grad_weights(name, np.shape(got[0])).astype(
                    y.dtype.as_numpy_dtype))
                got += sess.run(tf.gradients(y, xs, grad_ys=w))
        return got, outs


def record(values, meta, name, got, outs):
    meta["random"] = sorted(op_cases.RANDOM_CASES)
    for i, v in enumerate(got):
        if hasattr(v, "indices"):  # IndexedSlicesValue: record it dense
            dense = np.zeros(v.dense_shape, v.values.dtype)
            np.add.at(dense, v.indices, v.values)
            v = dense
        kind, idx = ("out", i) if i < len(outs) else ("grad", i - len(outs))
        values[f"{name}/{kind}{idx}"] = np.asarray(v)
    meta["cases"][name] = {"names": [t.name for t in outs],
                           "dtypes": [t.dtype.name for t in outs],
                           "shapes": [t.shape.as_list() if t.shape.ndims is not None else None
                                      for t in outs]}


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow.compat.v1 as tf

    tf.disable_v2_behavior()
    values, meta = {}, {"cases": {}, "errors": {}}
    failed = []
    for name, fn in op_cases.CASES.items():
        try:
            got, outs = run_case(tf, name, fn)
        except Exception as e:  # noqa: BLE001 - report and go on
            failed.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")
            continue
        record(values, meta, name, got, outs)
    for name, fn in op_cases.ERROR_CASES.items():
        with tf.Graph().as_default():
            try:
                t = fn(tf)
                with tf.Session() as sess:
                    sess.run(t)
                meta["errors"][name] = None
            except Exception as e:  # noqa: BLE001 - the class is what we record
                meta["errors"][name] = {
                    "class": type(e).__name__,
                    "at": "run" if isinstance(e, tf.errors.OpError) else "build"}
    np.savez_compressed(os.path.join(HERE, "ops_values.npz"), **values)
    with open(os.path.join(HERE, "ops_meta.json"), "w") as f:
        json.dump(meta, f, indent=1, sort_keys=True)
    print(f"recorded {len(meta['cases'])} cases, {len(meta['errors'])} error cases")
    for line in failed:
        print("FAILED", line)


if __name__ == "__main__":
    main()
