"""One task of a cluster whose chief trains under MonitoredTrainingSession with checkpoints:
the ps may be killed and restarted; the chief recreates its session, restores the last
checkpoint and finishes (prints `finished`)."""

import argparse
import time

import numpy as np

import flowloom as tf

p = argparse.ArgumentParser()
for flag in ("--job_name", "--ps_hosts", "--worker_hosts", "--ckpt"):
    p.add_argument(flag)
p.add_argument("--task_index", type=int, default=0)
a = p.parse_args()
cluster = tf.train.ClusterSpec({"ps": a.ps_hosts.split(","),
                                "worker": a.worker_hosts.split(",")})
server = tf.train.Server(cluster, job_name=a.job_name, task_index=a.task_index)
print("server started", flush=True)
if a.job_name == "ps":
    server.join()
with tf.device(tf.train.replica_device_setter(cluster=cluster)):
    w = tf.get_variable("w", [3, 1], initializer=tf.zeros_initializer())
    gs = tf.train.get_or_create_global_step()
    x = tf.constant(np.ones((4, 3), np.float32))
    loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - 1.0))
    train = tf.train.GradientDescentOptimizer(0.01).minimize(loss, gs)
with tf.train.MonitoredTrainingSession(master=server.target, is_chief=True,
                                       checkpoint_dir=a.ckpt, save_checkpoint_steps=5,
                                       hooks=[tf.train.StopAtStepHook(last_step=60)]) as sess:
    while not sess.should_stop():
        step = sess.run([train, gs])[1]
        print("step", step, flush=True)
        time.sleep(0.05)
print("finished", flush=True)
