"""Input-pipeline ops: tf.data datasets and iterators (and queues, readers)."""
