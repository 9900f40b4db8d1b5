"""Per-op times of the bench CNN training step (bench/cnn_step.py): flowloom vs TensorFlow.

Both traced with RunOptions(trace_level=FULL_TRACE); each op's median over 10 steps, one
thread (BLAS, flowloom's kernel workers, TF's pools), so the columns compare op by op.
TF fuses Conv2D + BiasAdd + Relu (its Relu rows hold the convolution).

    python3 bench/cnn_ops.py [--no-tf]
"""

import collections
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TF_PYTHON = os.environ.get("FLOWLOOM_TF_PYTHON", "")  # the reference TensorFlow, if any


def op_times(tf, config=None, steps=10):
    """{node name: median ms} over `steps` traced training steps of `tf` (a TF1 module)."""
    import numpy as np

    sys.path.insert(0, os.path.join(ROOT, "bench"))
    import cnn_step

    x, y, _, train = cnn_step.build(tf)
    xv, yv = cnn_step.feeds()
    times = collections.defaultdict(list)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        for i in range(steps + 3):
            meta = tf.RunMetadata()
            sess.run(train, {x: xv, y: yv}, run_metadata=meta,
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE))
            if i < 3:
                continue
            per = collections.defaultdict(float)
            for dev in meta.step_stats.dev_stats:
                for node in dev.node_stats:
                    per[node.node_name] += node.op_end_rel_micros or node.all_end_rel_micros
            for name, us in per.items():
                times[name].append(us / 1e3)
    return {name: float(np.median(v)) for name, v in times.items()}


def main():
    if "--as-tf" in sys.argv:
        import tensorflow.compat.v1 as tf

        tf.disable_v2_behavior()
        cfg = tf.ConfigProto(intra_op_parallelism_threads=1, inter_op_parallelism_threads=1)
        print(json.dumps(op_times(tf, cfg)))
        return
    if os.environ.get("OPENBLAS_NUM_THREADS") != "1":
        os.environ.update(OPENBLAS_NUM_THREADS="1", FLOWLOOM_NN_THREADS="1", OMP_NUM_THREADS="1",
                          TF_CPP_MIN_LOG_LEVEL="3")
        os.execv(sys.executable, [sys.executable] + sys.argv)
    sys.path.insert(0, ROOT)
    import flowloom

    ours = op_times(flowloom)
    theirs = {}
    if "--no-tf" not in sys.argv and os.path.exists(TF_PYTHON):
        out = subprocess.run([TF_PYTHON, os.path.abspath(__file__), "--as-tf"],
                             capture_output=True, text=True, check=True)
        theirs = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"{'op':58s} {'flowloom ms':>11s} {'tf ms':>8s}")
    for name in sorted(set(ours) | set(theirs), key=lambda n: -max(ours.get(n, 0),
                                                                  theirs.get(n, 0)))[:24]:
        tf_ms = f"{theirs[name]:8.2f}" if name in theirs else f"{'-':>8s}"
        print(f"{name[:58]:58s} {ours.get(name, 0):11.2f} {tf_ms}")
    print(f"{'total':58s} {sum(ours.values()):11.2f} {sum(theirs.values()) or 0:8.2f}")


if __name__ == "__main__":
    main()
