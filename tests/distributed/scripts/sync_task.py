"""One task of a SyncReplicasOptimizer cluster, started as TF1 example scripts are:

  python sync_task.py --job_name=worker --task_index=1 --ps_hosts=... --worker_hosts=...

Each worker runs `--rounds` synchronous steps of a small MLP on its own batches (round r,
worker i: the batch `batches(rounds, workers)[r][i]`) through MonitoredTrainingSession with
the optimizer's hook, the workers keeping in step through a counter on the ps, then prints
`final <global step> <w1 b1 w2 values...>`.
"""

import argparse
import time

import numpy as np

import flowloom as tf


def batches(rounds, replicas, size=5):
    rng = np.random.RandomState(7)
    xs = rng.randn(rounds, replicas, size, 4).astype(np.float32)
    ys = rng.randn(rounds, replicas, size, 2).astype(np.float32)
    return xs, ys


def mlp(x, y):
    w1 = tf.get_variable("w1", initializer=np.linspace(-1, 1, 12).reshape(4, 3)
                         .astype(np.float32))
    b1 = tf.get_variable("b1", initializer=np.full([3], 0.1, np.float32))
    w2 = tf.get_variable("w2", initializer=np.linspace(1, -1, 6).reshape(3, 2)
                         .astype(np.float32))
    hidden = tf.nn.tanh(tf.matmul(x, w1) + b1)
    return tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - y)), [w1, b1, w2]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--job_name", required=True)
    parser.add_argument("--task_index", type=int, default=0)
    parser.add_argument("--ps_hosts", required=True)
    parser.add_argument("--worker_hosts", required=True)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    workers = args.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": args.ps_hosts.split(","), "worker": workers})
    server = tf.train.Server(cluster, job_name=args.job_name, task_index=args.task_index)
    print("server started", flush=True)
    if args.job_name == "ps":
        server.join()
        return 0
    is_chief = args.task_index == 0
    with tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device="/job:worker/task:%d" % args.task_index)):
        step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 2])
        loss, weights = mlp(x, y)
        opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.3),
                                             replicas_to_aggregate=len(workers))
        train = opt.minimize(loss, global_step=step)
        hook = opt.make_session_run_hook(is_chief)
        # A barrier on the ps: each worker starts round r + 1 once every worker finished
        # round r, so that every update averages one gradient of each worker.
        rounds_done = tf.Variable(0, name="rounds_done", trainable=False)
        finish_round = tf.assign_add(rounds_done, 1)
    xs, ys = batches(args.rounds, len(workers))
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           hooks=[hook], stop_grace_period_secs=1) as sess:
        for r in range(args.rounds):
            while sess.run(rounds_done) < r * len(workers):
                time.sleep(0.05)
            sess.run(train, {x: xs[r, args.task_index], y: ys[r, args.task_index]})
            sess.run(finish_round)
            if r == 0:
                # The first round ran on the initial tokens: its update must be in before
                # the next round computes.
                while sess.run(step) < 1:
                    time.sleep(0.05)
        values = sess.run(weights)
        final_step = sess.run(step)
        print("final %d %s" % (final_step, " ".join(
            "%.7f" % v for w in values for v in np.ravel(w))), flush=True)
        # The chief keeps its queue runner until every worker has read the final model.
        time.sleep(2)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
