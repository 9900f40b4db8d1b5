"""One task of an asynchronous MLP training cluster, started the way TF1 example scripts are:

  python mlp_task.py --job_name=ps --task_index=0 --ps_hosts=... --worker_hosts=...

Workers train `--steps` steps each on variables that live on the ps task, wait until the
global step reaches steps * number of workers, print `final <global step> <weights sum>`,
then keep running steps (printing `alive <global step>`) until a step fails, when they
print `error <class> <seconds since the last good step>` and exit 3.
"""

import argparse
import sys
import time

import numpy as np

import flowloom as tf


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_name", required=True)
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--ps_hosts", required=True)
    parser.add_argument("--worker_hosts", required=True)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--keep_running", type=int, default=1)
    args = parser.parse_args()
    cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","),
                                    "worker": args.worker_hosts.split(",")})
    server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)
    print("server started", flush=True)
    if args.job_name == "ps":
        server.join()
        return 0
    num_workers = len(args.worker_hosts.split(","))
    with tf.device("/job:ps/task:0"):
        global_step = tf.train.get_or_create_global_step()
        w1 = tf.Variable(tf.random_normal([4, 16], seed=1), name="w1")
        b1 = tf.Variable(tf.zeros([16]), name="b1")
        w2 = tf.Variable(tf.random_normal([16, 1], seed=2), name="w2")
        finished = tf.Variable(0, name="finished_workers")
    with tf.device(f"/job:worker/task:{args.task_index}"):
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 1])
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        loss = tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - y))
        train_op = tf.train.GradientDescentOptimizer(0.01).minimize(loss, global_step)
        weights_sum = tf.reduce_sum(w1) + tf.reduce_sum(b1) + tf.reduce_sum(w2)
    uninitialized = tf.report_uninitialized_variables()
    rng = np.random.RandomState(args.task_index)
    batch_x = rng.rand(32, 4).astype(np.float32)
    batch_y = batch_x.sum(axis=1, keepdims=True)
    feed = {x: batch_x, y: batch_y}
    sess = tf.Session(server.target)
    if args.task_index == 0:
        sess.run(tf.global_variables_initializer())
        print("initialized", flush=True)
    deadline = time.time() + 60
    while len(sess.run(uninitialized)):
        if time.time() > deadline:
            print("error TimeoutWaitingForChief 0", flush=True)
            return 2
        time.sleep(0.2)
    print(f"devices {w1.device} {loss.device} {global_step.device}", flush=True)
    ps_node = server._find_task("/job:ps/replica:0/task:0")[1]["node"]
    own_node = server._find_task(f"/job:worker/replica:0/task:{args.task_index}")[1]["node"]
    print(f"nodes {ps_node} {own_node}", flush=True)
    for _ in range(args.steps):
        sess.run(train_op, feed)
    total = args.steps * num_workers
    while sess.run(global_step) < total:
        if time.time() > deadline + 60:
            print("error TimeoutWaitingForWorkers 0", flush=True)
            return 2
        time.sleep(0.1)
    print(f"final {sess.run(global_step)} {sess.run(weights_sum):.6f}", flush=True)
    # No worker trains on before every worker has read the final model.
    sess.run(tf.assign_add(finished, 1))
    while sess.run(finished) < num_workers:
        if time.time() > deadline + 120:
            print("error TimeoutWaitingForWorkers 0", flush=True)
            return 2
        time.sleep(0.1)
    if not args.keep_running:
        return 0
    last_ok = time.time()
    while True:
        try:
            step = sess.run([train_op, global_step], feed)[1]
        except tf.errors.OpError as e:
            print(f"error {type(e).__name__} {time.time() - last_ok:.2f}", flush=True)
            return 3
        last_ok = time.time()
        print(f"alive {step}", flush=True)
        time.sleep(0.05)


if __name__ == "__main__":
    sys.exit(main())
