"""Records TensorFlow's placement and Send/Recv partitioning for the device scenarios.

Run with the reference TensorFlow (never a flowloom dependency):
  TF_CPP_MIN_LOG_LEVEL=3 "$FLOWLOOM_TF_PYTHON" tests/data/record_devices.py
Writes tests/data/devices_tf.json: for each scenario in tests/runtime/device_scenarios.py,
the device of every op in TF's partition graphs (grappler and constant folding off, so the
graph is the user's), the _Send/_Recv pairs (sent tensor, from, to), and the fetched values;
and `op.device` strings for nested `tf.device` scopes.
"""

import json
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "runtime"))

import numpy as np  # noqa: E402
import tensorflow.compat.v1 as tf  # noqa: E402

import device_scenarios  # noqa: E402

tf.disable_v2_behavior()

_COMM = ("_Send", "_Recv", "_Arg", "_Retval")


def _short(device):
    return device.replace("/job:localhost/replica:0/task:0", "")


def record_scenario(fn):
    tf.reset_default_graph()
    fetches, feed = fn(tf)
    cfg = tf.ConfigProto(device_count={"CPU": 2})
    cfg.graph_options.rewrite_options.disable_meta_optimizer = True
    cfg.graph_options.optimizer_options.opt_level = tf.OptimizerOptions.L0
    with tf.Session(config=cfg) as sess:
        sess.run(tf.global_variables_initializer())
        opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
        md = tf.RunMetadata()
        values = sess.run(fetches, feed, options=opts, run_metadata=md)
    placement = {}
    pairs = []
    for pg in md.partition_graphs:
        for n in pg.node:
            if n.op == "_Send":
                # The sent tensor: the Send's input, or the control edge's source op.
                src = n.input[0]
                if "/ctrl/" in src:
                    src = "^" + src.split("/ctrl/")[0]
                pairs.append([src, _short(n.attr["send_device"].s.decode()),
                              _short(n.attr["recv_device"].s.decode())])
            elif n.op not in _COMM and "/ctrl/" not in n.name and "/_" not in n.name:
                placement[n.name] = _short(n.device)
    n_recv = sum(1 for pg in md.partition_graphs for n in pg.node if n.op == "_Recv")
    assert n_recv == len(pairs)
    return {"placement": placement, "pairs": sorted(pairs),
            "values": [np.asarray(v).tolist() for v in values],
            "stats_devices": sorted(_short(d.device) for d in md.step_stats.dev_stats)}


def record_device_names():
    cases = [
        ["/job:worker", "/cpu:0"], ["/cpu:0"], ["/gpu:1"], ["/device:GPU:1"], ["CPU:0"],
        ["/job:ps/task:1"], ["/job:worker/replica:0/task:1/cpu:0"], ["/job:worker/task:1", "/job:ps"],
        ["/job:worker/task:1/gpu:0", "/cpu:1"], ["/gpu:0", "/job:ps"], ["/cpu:0", None, "/task:2"],
        ["/cpu:0", None], ["/job:a", ""], ["/cpu:*"], ["/device:cpu:0"],
        ["/replica:2", "/device:GPU:3"],
        ["/job:worker", {"job": "ps", "device_type": "CPU"}],
        ["/job:worker/cpu:0", {"device_type": "GPU"}],
        ["/job:worker/cpu:0", ("fn", "/gpu:2")], [("fn", "/gpu:2"), "/job:worker"],
        [("fn", ""), "/cpu:1"], [("fn", "/job:x")],
        [("fnspec", {"device_type": "GPU", "device_index": 1})],
        ["/job:worker", ("fnspec", {"device_type": "GPU", "device_index": 1})],
    ]
    out = []
    for scopes in cases:
        g = tf.Graph()
        with g.as_default():
            ctxs = []
            for s in scopes:
                if isinstance(s, dict):
                    d = tf.DeviceSpec(**s)
                elif isinstance(s, tuple) and s[0] == "fn":
                    d = (lambda v: lambda op: v)(s[1])
                elif isinstance(s, tuple):
                    d = (lambda v: lambda op: v)(tf.DeviceSpec(**s[1]))
                else:
                    d = s
                ctx = tf.device(d)
                ctx.__enter__()
                ctxs.append(ctx)
            x = tf.constant(1.0)
            for ctx in reversed(ctxs):
                ctx.__exit__(None, None, None)
        out.append({"scopes": [list(s) if isinstance(s, tuple) else s for s in scopes],
                    "device": x.op.device})
    specs = {}
    for s in ["/job:worker/replica:0/task:1/device:GPU:2", "/cpu:0", "/job:ps", "gpu:1",
              "/device:CPU:*", "/GPU:0", "/task:3/cpu:1", "", "/job:a/job:b"]:
        d = tf.DeviceSpec.from_string(s)
        specs[s] = [d.to_string(), d.job, d.replica, d.task, d.device_type, d.device_index]
    return {"scopes": out, "specs": specs}


def main():
    data = {"scenarios": {name: record_scenario(fn)
                          for name, fn in device_scenarios.SCENARIOS.items()},
            "names": record_device_names(),
            "tf_version": tf.__version__}
    with open(os.path.join(HERE, "devices_tf.json"), "w") as f:
        json.dump(data, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
