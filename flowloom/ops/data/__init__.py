"""Input-pipeline ops: tf.data datasets and iterators (dataset_ops.py, iterator_ops.py),
queues (queue_ops.py, queue_resource.py) and readers (reader_ops.py)."""
