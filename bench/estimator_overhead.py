"""Benchmark: what tf.estimator costs per step, flowloom vs TensorFlow 1.15.

(a) `Estimator.train` time per step against a bare `Session.run` loop of the same model (an MLP
    4-32-32-3 on batches of 32 from tf.data), both excluding graph building and start-up: the
    Estimator's steps are timed by a hook (step 10 to the last; TF's default RunConfig: summaries
    and the loss log every 100 steps), the bare loop times N runs of `[train_op, loss]` after a
    warm-up run.
(b) `predict` throughput from a SavedModel the Estimator exported: load it with
    `tf.saved_model.loader.load` and run `serving_default` on batches of 64 rows.

The same program runs on flowloom and, in a subprocess, on the TensorFlow named by
FLOWLOOM_TF1_PYTHON; they alternate, best of --repeats. Without it only flowloom is measured.

Usage: python3 bench/estimator_overhead.py [--steps N] [--repeats R]
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

PROGRAM = r"""
import json, os, sys, time
import numpy as np
if sys.argv[1] == "tf":
    import tensorflow as tf
else:
    import flowloom as tf
tmp, steps = sys.argv[2], int(sys.argv[3])
rng = np.random.RandomState(0)
X = rng.randn(1024, 4).astype(np.float32)
Y = (X[:, 0] > X[:, 1]).astype(np.int32) + (X[:, 2] > 0).astype(np.int32)


def input_fn():
    return tf.data.Dataset.from_tensor_slices(({"x": X}, Y)).repeat().batch(32)


def model_fn(features, labels, mode):
    net = features["x"]
    for units in (32, 32):
        net = tf.layers.dense(net, units, activation=tf.nn.relu)
    logits = tf.layers.dense(net, 3)
    if mode == tf.estimator.ModeKeys.PREDICT:
        return tf.estimator.EstimatorSpec(mode, predictions={"probs": tf.nn.softmax(logits)})
    loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
    train_op = tf.train.AdamOptimizer(0.01).minimize(loss,
                                                     global_step=tf.train.get_global_step())
    return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)


class StepTimes(tf.train.SessionRunHook):
    # The time at the end of every training step.

    def __init__(self):
        self.times = []

    def after_run(self, run_context, run_values):
        self.times.append(time.perf_counter())


def estimator_step_s():
    # TF's defaults: summaries and the loss/step log every 100 steps, a checkpoint at the start
    # and the end (600 s apart otherwise).
    est = tf.estimator.Estimator(model_fn, model_dir=os.path.join(tmp, "model_" + sys.argv[1]))
    hook = StepTimes()
    est.train(input_fn, steps=steps + 10, hooks=[hook])
    t = hook.times[10:]
    return (t[-1] - t[0]) / (len(t) - 1), est


def bare_step_s():
    with tf.Graph().as_default():
        tf.train.create_global_step()
        features, labels = input_fn().make_one_shot_iterator().get_next()
        spec = model_fn(features, labels, tf.estimator.ModeKeys.TRAIN)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run([spec.train_op, spec.loss])
            t0 = time.perf_counter()
            for _ in range(steps):
                sess.run([spec.train_op, spec.loss])
            return (time.perf_counter() - t0) / steps


def predict_rows_per_s(est):
    serving = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4], name="x")})
    path = est.export_saved_model(os.path.join(tmp, "export_%s" % sys.argv[1]), serving)
    batch = X[:64]
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        sig = meta.signature_def["serving_default"]
        feed, fetch = sig.inputs["x"].name, sig.outputs["probs"].name
        sess.run(fetch, {feed: batch})
        runs = max(steps, 50)
        t0 = time.perf_counter()
        for _ in range(runs):
            sess.run(fetch, {feed: batch})
        return runs * len(batch) / (time.perf_counter() - t0)


est_s, est = estimator_step_s()
bare_s = bare_step_s()
print(json.dumps({"estimator_step_ms": est_s * 1e3, "bare_step_ms": bare_s * 1e3,
                  "predict_rows_per_s": predict_rows_per_s(est)}))
"""


def run(which, python, tmp, steps):
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
    out = subprocess.run([python, "-c", PROGRAM, which, tmp, str(steps)], capture_output=True,
                         text=True, cwd=tmp, env=env)
    if out.returncode:
        raise SystemExit(f"{which} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    tf_python = os.environ.get("FLOWLOOM_TF1_PYTHON", "")
    if not tf_python:
        print("estimator_overhead: FLOWLOOM_TF1_PYTHON is not set: measuring flowloom only")
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.environ["PYTHONPATH"] = root + os.pathsep + os.environ.get("PYTHONPATH", "")
    results = {"flowloom": [], "tf": []}
    for _ in range(args.repeats):
        with tempfile.TemporaryDirectory() as tmp:
            results["flowloom"].append(run("flowloom", sys.executable, tmp, args.steps))
            if tf_python:
                results["tf"].append(run("tf", tf_python, tmp, args.steps))
    report = {}
    for who, runs in results.items():
        if not runs:
            continue
        report[who] = {
            "estimator_step_ms": min(r["estimator_step_ms"] for r in runs),
            "bare_step_ms": min(r["bare_step_ms"] for r in runs),
            "predict_rows_per_s": max(r["predict_rows_per_s"] for r in runs)}
        r = report[who]
        r["overhead_ms"] = r["estimator_step_ms"] - r["bare_step_ms"]
        r["estimator_over_bare"] = r["estimator_step_ms"] / r["bare_step_ms"]
    print(json.dumps(report, indent=1))
    if "tf" in report:
        fl, tf = report["flowloom"], report["tf"]
        print("estimator step: flowloom %.2f ms (bare %.2f) vs TF %.2f ms (bare %.2f): %.2fx TF"
              % (fl["estimator_step_ms"], fl["bare_step_ms"], tf["estimator_step_ms"],
                 tf["bare_step_ms"], fl["estimator_step_ms"] / tf["estimator_step_ms"]))
        print("estimator overhead per step: flowloom %.2f ms vs TF %.2f ms"
              % (fl["overhead_ms"], tf["overhead_ms"]))
        print("predict from SavedModel: flowloom %.0f rows/s vs TF %.0f rows/s: %.2fx TF"
              % (fl["predict_rows_per_s"], tf["predict_rows_per_s"],
                 fl["predict_rows_per_s"] / tf["predict_rows_per_s"]))


if __name__ == "__main__":
    main()
