"""Queues fed from NumPy arrays or DataFrames by Python threads (TF's `feeding_functions`):
each thread's feed function gives the next `enqueue_size` rows (with their integer index)
and raises OutOfRangeError after `num_epochs`; the last thread out closes the queue."""

import collections
import random

import numpy as np

from flowloom.framework import errors
from flowloom.platform import tf_logging as logging
from flowloom.train.queue_runner import QueueRunner


def _get_integer_indices_for_next_batch(batch_indices_start, batch_size, epoch_end,
                                        array_length, current_epoch, total_epochs):
    """The row indices of the next batch and the epoch count after it; the last batch of
    the last epoch stops at the epoch's end.

    Raises:
      OutOfRangeError: `total_epochs` were emitted already.
    """
    if total_epochs is not None and current_epoch >= total_epochs:
        raise errors.OutOfRangeError(None, None, f"Already emitted {current_epoch} epochs.")
    batch_indices = [j % array_length
                     for j in range(batch_indices_start, batch_indices_start + batch_size)]
    epoch_end_indices = [i for i, x in enumerate(batch_indices) if x == epoch_end]
    current_epoch += len(epoch_end_indices)
    if total_epochs is None or current_epoch < total_epochs:
        return batch_indices, current_epoch
    final_epoch_end_inclusive = epoch_end_indices[-(current_epoch - total_epochs + 1)]
    return batch_indices[:final_epoch_end_inclusive + 1], total_epochs


class _FeedFn:
    """Feeds the index placeholder and one placeholder per column with the next rows."""

    def __init__(self, placeholders, columns, batch_size, random_start=False, seed=None,
                 num_epochs=None):
        if len(placeholders) != len(columns) + 1:
            raise ValueError(f"Expected {len(columns)} placeholders; got {len(placeholders)}.")
        self._index_placeholder = placeholders[0]
        self._col_placeholders = placeholders[1:]
        self._columns = columns
        self._max = len(columns[0])
        for col in columns:
            if len(col) != self._max:
                raise ValueError("Array lengths must match.")
        self._batch_size = batch_size
        self._num_epochs = num_epochs
        self._epoch = 0
        rng = random.Random(seed)
        self._trav = rng.randrange(self._max) if random_start else 0
        self._epoch_end = (self._trav - 1) % self._max

    def _index(self, indexes):
        return indexes

    def __call__(self):
        indexes, self._epoch = _get_integer_indices_for_next_batch(
            self._trav, self._batch_size, self._epoch_end, self._max, self._epoch,
            self._num_epochs)
        self._trav = (indexes[-1] + 1) % self._max
        feed = {self._index_placeholder: self._index(indexes)}
        feed.update({p: col[indexes] for p, col in zip(self._col_placeholders, self._columns)})
        return feed


class FeedingQueueRunner(QueueRunner):
    """A QueueRunner whose enqueue ops are fed by Python feed functions, one per thread."""

    def __init__(self, queue=None, enqueue_ops=None, close_op=None, cancel_op=None,
                 feed_fns=None):
        super().__init__(queue, enqueue_ops, close_op, cancel_op,
                         queue_closed_exception_types=(errors.OutOfRangeError,
                                                       errors.CancelledError))
        if feed_fns is None:
            feed_fns = [None] * len(self._enqueue_ops)
        if len(feed_fns) != len(self._enqueue_ops):
            raise ValueError("If feed_fns is not None, it must have the same length as "
                             "enqueue_ops.")
        self._feed_fns = feed_fns

    def _enqueue_fn(self, sess, enqueue_op):
        feed_fn = self._feed_fns[self._enqueue_ops.index(enqueue_op)]
        if feed_fn is None:
            return sess.make_callable(enqueue_op)
        return lambda: sess.run(enqueue_op, feed_dict=feed_fn())

    def to_proto(self, export_scope=None):
        """None: a runner fed from Python cannot be stored (TF leaves it out of exports)."""
        return None


def enqueue_data(data, capacity, shuffle=False, min_after_dequeue=None, num_threads=1,
                 seed=None, name="enqueue_input", enqueue_size=1, num_epochs=None):
    """A queue of (index, column...) rows of `data` (an array, an OrderedDict of arrays or
    a DataFrame), filled by a FeedingQueueRunner added to the graph's QUEUE_RUNNERS.

    Raises:
      TypeError: `data` of another type.
    """
    from flowloom import summary
    from flowloom.data.queues import FIFOQueue, RandomShuffleQueue
    from flowloom.framework import dtypes
    from flowloom.framework.graph import name_scope
    from flowloom.ops.array.array_ops import placeholder
    from flowloom.ops.math.math_ops import cast, maximum
    from flowloom.train.queue_runner import add_queue_runner

    with name_scope(name):
        index_dtype, index_of = dtypes.int64, None
        if isinstance(data, np.ndarray):
            columns = [data]
        elif isinstance(data, collections.OrderedDict):
            columns = list(data.values())
        elif _is_dataframe(data):
            columns = [data[c].values for c in data.columns]
            index_values = np.asarray(data.index)
            index_dtype = dtypes.as_dtype(index_values.dtype)
            index_of = index_values
        else:
            raise TypeError("data must be either a numpy array or pandas DataFrame if pandas "
                            f"is installed; got {type(data).__name__}")
        types = [index_dtype] + [dtypes.as_dtype(np.asarray(c).dtype) for c in columns]
        shapes = [()] + [np.asarray(c).shape[1:] for c in columns]
        if num_threads > 1 and num_epochs is not None:
            logging.warning(
                "enqueue_data was called with num_epochs and num_threads > 1. num_epochs is "
                "applied per thread, so this will produce more epochs than you probably "
                "intend. If you want to limit epochs, use one thread.")
        if shuffle:
            min_after_dequeue = int(capacity / 4 if min_after_dequeue is None
                                    else min_after_dequeue)
            queue = RandomShuffleQueue(capacity, min_after_dequeue, dtypes=types,
                                       shapes=shapes, seed=seed)
        else:
            min_after_dequeue = 0
            queue = FIFOQueue(capacity, dtypes=types, shapes=shapes)
        enqueue_ops, feed_fns = [], []
        for i in range(num_threads):
            placeholders = [placeholder(t) for t in types]
            enqueue_ops.append(queue.enqueue_many(placeholders))
            feed_fn = _FeedFn(placeholders, [np.asarray(c) for c in columns], enqueue_size,
                              random_start=shuffle,
                              seed=None if seed is None else (i + 1) * seed,
                              num_epochs=num_epochs)
            if index_of is not None:
                feed_fn._index = lambda idx, values=index_of: values[idx]
            feed_fns.append(feed_fn)
        add_queue_runner(FeedingQueueRunner(queue=queue, enqueue_ops=enqueue_ops,
                                            feed_fns=feed_fns))
        full = cast(maximum(0, queue.size() - min_after_dequeue), dtypes.float32) * (
            1. / (capacity - min_after_dequeue))
        summary.scalar("queue/%sfraction_over_%d_of_%d_full" % (
            queue.name, min_after_dequeue, capacity - min_after_dequeue), full)
        return queue


def _is_dataframe(data):
    try:
        import pandas as pd  # noqa: PLC0415 - pandas is optional
    except ImportError:
        return False
    return isinstance(data, pd.DataFrame)
