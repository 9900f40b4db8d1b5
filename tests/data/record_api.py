"""Records what TensorFlow 1.15 computes for the case modules of tests/api (the TF1 API
surface: tf.* top level, tf.nn, tf.layers, tf.metrics).

    FLOWLOOM_TF1_PYTHON=/path/to/tf1.15/python
    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_api.py [module ...]

Writes tests/data/api_<module>.npz (values) and tests/data/api_<module>.json (tensor names,
dtypes, static shapes, error classes) for each module `tests/api/<module>_cases.py`.
"""

import importlib
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, ROOT)

from tests.api.cases import grad_weights  # noqa: E402

MODULES = ("math", "nn", "layers", "metrics")


def _dense(v):
    if hasattr(v, "indices") and hasattr(v, "dense_shape"):
        out = np.zeros(v.dense_shape, v.values.dtype)
        np.add.at(out, v.indices, v.values)
        return out
    return v


def run_case(tf, name, fn):
    """The values of a case: its outputs, then its gradients (shared with the flowloom test)."""
    spec = fn(tf)
    outs, xs = spec["out"], spec.get("xs", [])
    kwargs = {}
    if hasattr(tf, "ConfigProto") and "tensorflow" in tf.__name__:
        config = tf.ConfigProto()
        config.graph_options.rewrite_options.disable_meta_optimizer = True
        kwargs["config"] = config
    with tf.Session(**kwargs) as sess:
        if spec.get("init"):
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
        for fetches, feed in spec.get("before", []):
            sess.run(fetches, feed)
        got = sess.run(list(outs), spec.get("feed"))
        if xs:
            # grad_ys shaped like the value (static shapes may be partial). Random ops in the
            # graph run again here, drawing their next numbers as TF does.
            w = tf.constant(grad_weights(name, np.shape(got[0])).astype(
                outs[0].dtype.as_numpy_dtype))
            got += sess.run(tf.gradients(outs[0], xs, grad_ys=w), spec.get("feed"))
        if spec.get("after"):
            got += sess.run(list(spec["after"]))
    return [np.asarray(_dense(v)) for v in got], list(outs) + list(spec.get("after", []))


def main():
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
    import tensorflow as tf

    for module_name in sys.argv[1:] or MODULES:
        registry = importlib.import_module(f"tests.api.{module_name}_cases").R
        values, meta, failed = {}, {"cases": {}, "errors": {}}, []
        for name, fn in registry.cases.items():
            try:
                with tf.Graph().as_default():
                    tf.set_random_seed(1)
                    got, outs = run_case(tf, name, fn)
            except Exception as e:  # noqa: BLE001 - report and go on
                failed.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")
                continue
            for i, v in enumerate(got):
                values[f"{name}/{i}"] = v
            meta["cases"][name] = {
                "names": [t.name for t in outs], "dtypes": [t.dtype.name for t in outs],
                "shapes": [t.shape.as_list() if t.shape.ndims is not None else None
                           for t in outs]}
        for name, fn in registry.errors.items():
            with tf.Graph().as_default():
                try:
                    t = fn(tf)
                    with tf.Session() as sess:
                        sess.run(tf.local_variables_initializer())
                        sess.run(t)
                    meta["errors"][name] = None
                except Exception as e:  # noqa: BLE001 - the class is what we record
                    meta["errors"][name] = {
                        "class": type(e).__name__,
                        "at": "run" if isinstance(e, tf.errors.OpError) else "build"}
        np.savez_compressed(os.path.join(HERE, f"api_{module_name}.npz"), **values)
        with open(os.path.join(HERE, f"api_{module_name}.json"), "w") as f:
            json.dump(meta, f, indent=1, sort_keys=True)
        print(f"{module_name}: recorded {len(meta['cases'])} cases, "
              f"{len(meta['errors'])} error cases")
        for line in failed:
            print("FAILED", line)


if __name__ == "__main__":
    main()
