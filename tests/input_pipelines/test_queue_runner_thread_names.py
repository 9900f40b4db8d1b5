"""QueueRunner threads carry TF 1.15's names (tools that list threads show them)."""

import flowloom as tf


def test_thread_names():
    var = tf.Variable(0, name="counter")
    count_up_to = tf.count_up_to(var, 3)
    queue = tf.FIFOQueue(10, tf.float32)
    qr = tf.train.QueueRunner(queue, [count_up_to, count_up_to.op])
    with tf.Session() as sess:
        sess.run(var.initializer)
        coord = tf.train.Coordinator()
        threads = qr.create_threads(sess, coord=coord, start=False)
        assert [t.name for t in threads] == [
            "QueueRunnerThread-fifo_queue-CountUpTo:0", "QueueRunnerThread-fifo_queue-CountUpTo",
            "QueueRunnerThread-fifo_queue-close_on_stop"]
