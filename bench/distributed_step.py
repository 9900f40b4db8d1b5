"""Distributed step cost: an MLP step with its variables on a ps task in another process
versus all in one process; bytes moved per step; GB/s between tasks against Ray's own
object-store throughput on this machine; async throughput with 2 workers against 1.

  python bench/distributed_step.py [--steps 200] [--hidden 256]

Needs the optional extra flowloom[distributed] (ray). Starts its own local clusters (each
task a process) and stops them at the end.
"""

import argparse
import json
import os
import sys
import time

import numpy as np

import flowloom as tf

SIZES = {"in": 784, "out": 10, "batch": 64}


def build_mlp(hidden, ps_device, worker_device):
    with tf.device(ps_device):
        global_step = tf.train.get_or_create_global_step()
        w1 = tf.Variable(tf.random_normal([SIZES["in"], hidden], stddev=0.05, seed=1))
        b1 = tf.Variable(tf.zeros([hidden]))
        w2 = tf.Variable(tf.random_normal([hidden, SIZES["out"]], stddev=0.05, seed=2))
        b2 = tf.Variable(tf.zeros([SIZES["out"]]))
    with tf.device(worker_device):
        x = tf.placeholder(tf.float32, [None, SIZES["in"]])
        labels = tf.placeholder(tf.int64, [None])
        logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=labels, logits=logits))
        train_op = tf.train.GradientDescentOptimizer(0.05).minimize(loss, global_step)
    params = sum(int(np.prod(v.shape.as_list())) for v in (w1, b1, w2, b2)) * 4
    rng = np.random.RandomState(0)
    feed = {x: rng.rand(SIZES["batch"], SIZES["in"]).astype(np.float32),
            labels: rng.randint(0, SIZES["out"], SIZES["batch"])}
    return train_op, global_step, feed, params


def timed_steps(sess, train_op, feed, steps):
    """Seconds per step: the best of three rounds (the machine is shared)."""
    for _ in range(5):
        sess.run(train_op, feed)
    best = None
    for _ in range(3):
        t0 = time.perf_counter()
        for _ in range(max(steps // 3, 1)):
            sess.run(train_op, feed)
        per = (time.perf_counter() - t0) / max(steps // 3, 1)
        best = per if best is None else min(best, per)
    return best


def task_main(args):
    cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","),
                                    "worker": args.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)
    if args.job_name == "ps":
        server.join()
    train_op, global_step, feed, params = build_mlp(
        args.hidden, "/job:ps/task:0", f"/job:worker/task:{args.task_index}")
    with tf.device("/job:ps/task:0"):
        big = tf.Variable(tf.zeros([args.transfer_mb * 1024 * 256]), name="big")
    with tf.device(f"/job:worker/task:{args.task_index}"):
        # One pass over the received tensor (as the Ray-alone figure reads it once).
        big_read = tf.reduce_sum(tf.identity(big))
    sess = tf.Session(server.target)
    if args.task_index == 0:
        sess.run(tf.global_variables_initializer())
    while len(sess.run(tf.report_uninitialized_variables())):
        time.sleep(0.1)
    result = {"task": args.task_index, "params_bytes": params}
    result["step_s"] = timed_steps(sess, train_op, feed, args.steps)
    runtime = sess._remote
    sess.run(train_op, feed)
    result["bytes_per_step"] = runtime.last_step_bytes
    if args.task_index == 0 and args.transfer_mb:
        sess.run(big_read)
        t0 = time.perf_counter()
        for _ in range(5):
            sess.run(big_read)
        result["tensor_gbps"] = 5 * args.transfer_mb / 1024 / (time.perf_counter() - t0)
        result["ray_gbps"] = _ray_throughput(args.transfer_mb)
    print("RESULT " + json.dumps(result), flush=True)
    # Keep the cluster's variables alive until every worker has measured.
    time.sleep(2.0)


def _ray_throughput(mb):
    """Ray alone: an array of `mb` MiB returned by an actor and summed here, 5 times."""
    import ray

    @ray.remote(num_cpus=0)
    class Holder:
        def __init__(self, n):
            self.value = np.zeros(n, np.float32)

        def get(self):
            return self.value

    holder = Holder.remote(mb * 1024 * 256)
    ray.get(holder.get.remote(), timeout=60)
    t0 = time.perf_counter()
    for _ in range(5):
        value = ray.get(holder.get.remote(), timeout=60)
        float(value.sum())
    return 5 * mb / 1024 / (time.perf_counter() - t0)


def run_cluster(args, workers, transfer_mb):
    from flowloom.distributed.launch import LocalCluster

    cluster = LocalCluster(os.path.abspath(__file__),
                           [f"--steps={args.steps}", f"--hidden={args.hidden}",
                            f"--transfer_mb={transfer_mb}"], 1, workers, echo=None)
    try:
        cluster.start()
        results = []
        for w in cluster.workers():
            line = w.wait_for(r"^RESULT |Traceback", 600)
            if line is None or not line.startswith("RESULT"):
                raise RuntimeError("\n".join(w.lines[-30:]))
            results.append(json.loads(line[len("RESULT "):]))
        return results
    finally:
        cluster.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--transfer_mb", type=int, default=64)
    parser.add_argument("--job_name")
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--ps_hosts")
    parser.add_argument("--worker_hosts")
    args = parser.parse_args()
    if args.job_name:
        return task_main(args)
    train_op, _, feed, params = build_mlp(args.hidden, "/cpu:0", "/cpu:0")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        local_s = timed_steps(sess, train_op, feed, args.steps)
    one = run_cluster(args, 1, args.transfer_mb)[0]
    two = run_cluster(args, 2, 0)
    rows = [
        ("MLP step, all in one process", f"{local_s * 1e3:.2f} ms"),
        ("MLP step, variables on a ps process", f"{one['step_s'] * 1e3:.2f} ms "
         f"({one['step_s'] / local_s:.1f}x, +{(one['step_s'] - local_s) * 1e3:.2f} ms)"),
        ("bytes moved per step (grads out, params in)",
         f"{one['bytes_per_step'][0] / 1e6:.2f} MB + {one['bytes_per_step'][1] / 1e6:.2f} MB "
         f"(model {params / 1e6:.2f} MB)"),
        (f"ps -> worker tensor, {args.transfer_mb} MiB, summed", f"{one['tensor_gbps']:.2f} GB/s"),
        (f"Ray actor -> driver, {args.transfer_mb} MiB, summed", f"{one['ray_gbps']:.2f} GB/s"),
        ("async steps/s, 1 worker", f"{1 / one['step_s']:.1f}"),
        ("async steps/s, 2 workers", f"{sum(1 / r['step_s'] for r in two):.1f} "
         f"({sum(1 / r['step_s'] for r in two) * one['step_s']:.2f}x)"),
    ]
    print(f"MLP {SIZES['in']}-{args.hidden}-{SIZES['out']}, batch {SIZES['batch']}, "
          f"{args.steps} steps, {os.cpu_count()} cores")
    for name, value in rows:
        print(f"  {name:<40} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
