"""A TF1 between-graph replication trainer, written as TF1 tutorials write them
(`import tensorflow`, tf.app.flags, replica_device_setter, MonitoredTrainingSession):

  flowloom launch --ps 1 --workers 2 tf1_trainer.py --steps=30
"""

import sys

import numpy as np
import tensorflow as tf

flags = tf.app.flags
flags.DEFINE_string("job_name", "", "ps or worker")
flags.DEFINE_integer("task_index", 0, "index of the task in its job")
flags.DEFINE_string("ps_hosts", "", "comma-separated host:port of the ps tasks")
flags.DEFINE_string("worker_hosts", "", "comma-separated host:port of the worker tasks")
flags.DEFINE_integer("steps", 30, "global steps to train")
flags.DEFINE_boolean("sync", False, "aggregate the workers' gradients (SyncReplicasOptimizer)")
FLAGS = flags.FLAGS


def main(_):
    ps_hosts = FLAGS.ps_hosts.split(",")
    worker_hosts = FLAGS.worker_hosts.split(",")
    cluster = tf.train.ClusterSpec({"ps": ps_hosts, "worker": worker_hosts})
    server = tf.train.Server(cluster, job_name=FLAGS.job_name, task_index=FLAGS.task_index)
    if FLAGS.job_name == "ps":
        server.join()
        return
    is_chief = FLAGS.task_index == 0
    with tf.device(tf.train.replica_device_setter(
            worker_device="/job:worker/task:%d" % FLAGS.task_index, cluster=cluster)):
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 1])
        w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
        b = tf.get_variable("b", [1], initializer=tf.zeros_initializer())
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y))
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(0.1)
        if FLAGS.sync:
            opt = tf.train.SyncReplicasOptimizer(opt, replicas_to_aggregate=len(worker_hosts),
                                                 total_num_replicas=len(worker_hosts))
        train_op = opt.minimize(loss, global_step)
    rng = np.random.RandomState(FLAGS.task_index)
    batch_x = rng.rand(16, 3).astype(np.float32)
    feed = {x: batch_x, y: batch_x.dot([[1.0], [2.0], [3.0]]) + 0.5}
    hooks = [tf.train.StopAtStepHook(last_step=FLAGS.steps)]
    if FLAGS.sync:
        hooks.append(opt.make_session_run_hook(is_chief))
    steps = 0
    with tf.train.MonitoredTrainingSession(master=server.target, is_chief=is_chief,
                                           hooks=hooks, stop_grace_period_secs=5) as sess:
        while not sess.should_stop():
            _, step, value = sess.run([train_op, global_step, loss], feed)
            steps += 1
    # One write per line: a queue-runner thread cancelled at shutdown may print its traceback
    # into the same pipe, and print() writes the text and its newline separately.
    sys.stdout.write("done task %d: %d local steps, last global step %d, loss %.4f, w on %s\n"
                     % (FLAGS.task_index, steps, step, value, w.device))
    if FLAGS.sync:
        with tf.Session(server.target) as plain:
            sys.stdout.write("weights " + " ".join("%.6f" % v for v in plain.run(w).ravel()) +
                             "\n")


if __name__ == "__main__":
    tf.app.run()
