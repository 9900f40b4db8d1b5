"""`tf.data`, and the queue-based input pipelines of TF1 (queues.py, readers.py, input.py).

The queue classes and readers are exported as `tf.FIFOQueue`, `tf.TFRecordReader`, ...
and the producers and batching as `tf.train.*`; this package's own namespace is kept for
tf.data.
"""
