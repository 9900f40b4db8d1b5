"""The names the queue-based pipelines add to the top-level `tf` namespace."""

import types

from flowloom.data.queues import (FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase,
                                  RandomShuffleQueue)

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue"]


def queue_namespace():
    """`tf.queue`: the queue classes."""
    ns = types.ModuleType("flowloom.queue")
    for name in ("FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
                 "RandomShuffleQueue"):
        setattr(ns, name, globals()[name])
    return ns
