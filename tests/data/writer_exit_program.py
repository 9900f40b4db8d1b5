"""A program that writes summaries with a FileWriter it never closes (argv[1]: the log folder).

Run as a script under TF (record_writer_exit.py) and under flowloom
(tests/summary/test_writer_exit.py); what reaches the event file is compared.
"""
import sys

import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
x = tf.placeholder(tf.float32, [])
merged = tf.summary.merge([tf.summary.scalar("loss", x), tf.summary.histogram("h", x * 2)])
writer = tf.summary.FileWriter(sys.argv[1], tf.get_default_graph())
with tf.Session() as sess:
    for step in range(7):
        writer.add_summary(sess.run(merged, {x: float(step)}), step)
# no writer.close(), no flush(): the program just ends
