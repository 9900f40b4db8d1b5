"""Input-pipeline ops: queues (queue_ops.py, queue_resource.py) and readers (reader_ops.py)."""
