"""Input producers and batching on queues (`tf.train.string_input_producer`, `tf.train.batch`,
`tf.train.shuffle_batch`, ...), built as TF builds them: the same queues, op names, local
epoch counters, queue runners and `fraction_of_N_full` summaries."""

from flowloom.framework import dtypes
from flowloom.framework import tensor_shape
from flowloom.framework.graph import GraphKeys, name_scope
from flowloom.framework.ops import Tensor, convert_n_to_tensor, convert_to_tensor
from flowloom.framework.sparse_tensor import SparseTensor
from flowloom.framework.tensor_util import constant_value
from flowloom.data import input_sparse
from flowloom.data.queues import FIFOQueue, PaddingFIFOQueue, RandomShuffleQueue
from flowloom.ops.data.file_ops import matching_files
from flowloom.ops.state.state_ops import count_up_to
from flowloom.train.queue_runner import QueueRunner, add_queue_runner


def _ops():
    # The op library is imported lazily: flowloom/__init__ imports this module early.
    from flowloom.ops.array import array_ops
    from flowloom.ops.checks import logging_ops
    from flowloom.ops.control_flow import control_flow_ops
    from flowloom.ops.math import math_ops
    from flowloom.ops.random import random_sampling_ops
    from flowloom.summary import summary

    return array_ops, logging_ops, control_flow_ops, math_ops, random_sampling_ops, summary


def match_filenames_once(pattern, name=None):
    """A local variable holding the files that match `pattern` (a glob), computed once when
    local variables are initialized."""
    from flowloom.variables import Variable

    with name_scope(name, "matching_filenames", [pattern]) as name:
        return Variable(name=name, initial_value=matching_files(pattern), trainable=False,
                        validate_shape=False, collections=[GraphKeys.LOCAL_VARIABLES])


def limit_epochs(tensor, num_epochs=None, name=None):
    """Returns `tensor` `num_epochs` times, then raises OutOfRangeError (a local counter)."""
    from flowloom.ops.array import array_ops
    from flowloom.ops.control_flow.control_flow_ops import control_dependencies
    from flowloom.ops.array.array_ops import constant
    from flowloom.variables import Variable

    if num_epochs is None:
        return tensor
    if num_epochs <= 0:
        raise ValueError(f"num_epochs must be > 0 not {num_epochs}.")
    with name_scope(name, "limit_epochs", [tensor]) as name:
        zero64 = constant(0, dtype=dtypes.int64)
        epochs = Variable(zero64, name="epochs", trainable=False,
                          collections=[GraphKeys.LOCAL_VARIABLES])
        counter = count_up_to(epochs, num_epochs)
        with control_dependencies([counter]):
            return array_ops.identity(tensor, name=name)


def input_producer(input_tensor, element_shape=None, num_epochs=None, shuffle=True, seed=None,
                   capacity=32, shared_name=None, summary_name=None, name=None, cancel_op=None):
    """A FIFO queue fed, by a QueueRunner, with the rows of `input_tensor` (shuffled per
    epoch when `shuffle`), `num_epochs` times (None: forever).

    Returns:
      The queue.
    """
    array_ops, _, _, math_ops, random_sampling_ops, summary = _ops()
    with name_scope(name, "input_producer", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input_tensor")
        element_shape = input_tensor.shape[1:].merge_with(
            tensor_shape.as_shape(element_shape) if element_shape is not None else
            tensor_shape.unknown_shape())
        if not element_shape.is_fully_defined():
            raise ValueError("Either `input_tensor` must have a fully defined shape or "
                             "`element_shape` must be specified")
        if shuffle:
            input_tensor = random_sampling_ops.random_shuffle(input_tensor, seed=seed)
        input_tensor = limit_epochs(input_tensor, num_epochs)
        q = FIFOQueue(capacity=capacity, dtypes=[input_tensor.dtype.base_dtype],
                      shapes=[element_shape], shared_name=shared_name, name=name)
        enq = q.enqueue_many([input_tensor])
        add_queue_runner(QueueRunner(q, [enq], cancel_op=cancel_op))
        if summary_name is not None:
            summary.scalar(summary_name,
                           math_ops.cast(q.size(), dtypes.float32) * (1.0 / capacity))
        return q


def string_input_producer(string_tensor, num_epochs=None, shuffle=True, seed=None, capacity=32,
                          shared_name=None, name=None, cancel_op=None):
    """A queue of strings (usually file names) for a reader, from `string_tensor`.

    Example:
      filename_queue = tf.train.string_input_producer(["a.bin", "b.bin"], num_epochs=2)
      key, value = tf.FixedLengthRecordReader(record_bytes=8).read(filename_queue)

    Raises:
      ValueError: `string_tensor` is a null Python list.
    """
    array_ops, logging_ops, control_flow_ops, math_ops, _, _ = _ops()
    not_null_err = "string_input_producer requires a non-null input tensor"
    if not isinstance(string_tensor, Tensor) and not string_tensor:
        raise ValueError(not_null_err)
    with name_scope(name, "input_producer", [string_tensor]) as name:
        string_tensor = convert_to_tensor(string_tensor, dtype=dtypes.string)
        with control_flow_ops.control_dependencies([logging_ops.Assert_(
                math_ops.greater(array_ops.size(string_tensor), 0), [not_null_err])]):
            string_tensor = array_ops.identity(string_tensor)
        return input_producer(input_tensor=string_tensor, element_shape=[],
                              num_epochs=num_epochs, shuffle=shuffle, seed=seed,
                              capacity=capacity, shared_name=shared_name, name=name,
                              summary_name=f"fraction_of_{capacity}_full", cancel_op=cancel_op)


def range_input_producer(limit, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """A queue of the integers 0 .. limit-1 (int32), shuffled per epoch when `shuffle`."""
    _, _, _, math_ops, _, _ = _ops()
    with name_scope(name, "input_producer", [limit]) as name:
        range_tensor = math_ops.range_(limit)
        return input_producer(range_tensor, [], num_epochs, shuffle, seed, capacity,
                              shared_name, f"fraction_of_{capacity}_full", name)


def slice_input_producer(tensor_list, num_epochs=None, shuffle=True, seed=None, capacity=32,
                         shared_name=None, name=None):
    """One row of each tensor of `tensor_list` per dequeue (the same row index for all)."""
    array_ops, _, _, _, _, _ = _ops()
    with name_scope(name, "input_producer", tensor_list):
        tensor_list = convert_n_to_tensor(tensor_list)
        if not tensor_list:
            raise ValueError("Expected at least one tensor in slice_input_producer().")
        range_size = array_ops.shape(tensor_list[0])[0]
        queue = range_input_producer(range_size, num_epochs=num_epochs, shuffle=shuffle,
                                     seed=seed, capacity=capacity, shared_name=shared_name)
        index = queue.dequeue()
        return [array_ops.gather(t, index) for t in tensor_list]


# -- batching -----------------------------------------------------------------------------------

def _as_tensor_list(tensors):
    if isinstance(tensors, dict):
        return [tensors[k] for k in sorted(tensors, key=str)]
    return tensors


def _as_tensor_list_list(tensors_list):
    if not tensors_list:
        raise ValueError("Expected at least one set of tensors")
    if isinstance(tensors_list[0], dict):
        keys = set(tensors_list[0].keys())
        for d in tensors_list[1:]:
            if set(d.keys()) != keys:
                raise ValueError("All dictionaries in tensors_list must have the same keys")
        return [_as_tensor_list(d) for d in tensors_list]
    return [list(t) for t in tensors_list]


def _as_original_type(original, tensor_list):
    if isinstance(original, dict):
        if len(original) == 1:
            # One component comes back from the dequeue as a bare tensor.
            tensor_list = [tensor_list]
        return {k: tensor_list[i] for i, k in enumerate(sorted(original, key=str))}
    return tensor_list


def _validate(tensor_list):
    tensor_list = [t if isinstance(t, SparseTensor) else convert_to_tensor(t)
                   for t in tensor_list]
    if not tensor_list:
        raise ValueError("Expected at least one tensor in batch().")
    return tensor_list


def _validate_join(tensor_list_list):
    tensor_list_list = [_validate(tl) for tl in tensor_list_list]
    if not tensor_list_list:
        raise ValueError("Expected at least one input in batch_join().")
    return tensor_list_list


def _validate_keep_input(keep_input, enqueue_many):
    keep_input = convert_to_tensor(keep_input)
    ndims = keep_input.shape.ndims
    if ndims is None:
        raise ValueError("`keep_input` dimensions must be known at graph construction.")
    if not enqueue_many and ndims == 1:
        raise ValueError("`keep_input` cannot be a vector when `enqueue_many=False`.")
    if ndims > 1:
        raise ValueError("`keep_input` must be 0 or 1 dimensions.")
    return keep_input


def _dtypes(tensor_list_list):
    types = [t.dtype.base_dtype for t in tensor_list_list[0]]
    for other in tensor_list_list[1:]:
        if [t.dtype.base_dtype for t in other] != types:
            raise TypeError(f"Expected types to be consistent: {types} vs. "
                            f"{[t.dtype.base_dtype for t in other]}.")
    return types


def _merge_shapes(shape_list, enqueue_many):
    shape_list = [tensor_shape.as_shape(s) for s in shape_list]
    if enqueue_many:
        shape_list = [s.with_rank_at_least(1)[1:] for s in shape_list]
    # The first shape is the queue's (TF checks the others for compatibility only).
    merged = shape_list[0]
    for s in shape_list[1:]:
        merged.merge_with(s)
    return merged.as_list()


def _shapes(tensor_list_list, shapes, enqueue_many):
    if shapes is None:
        n = len(tensor_list_list[0])
        for tl in tensor_list_list:
            for i in range(n):
                if tl[i].shape.ndims is None:
                    raise ValueError(f"Cannot infer Tensor's rank: {tl[i]}")
        shapes = [_merge_shapes([tl[i].shape.as_list() for tl in tensor_list_list],
                                enqueue_many) for i in range(n)]
    return shapes


def _select_which_to_enqueue(tensor_list, keep_input):
    from flowloom.ops.array.data_flow_ops import dynamic_partition

    _, _, _, math_ops, _, _ = _ops()
    select_i = math_ops.cast(keep_input, dtypes.int32)
    return [dynamic_partition(t, select_i, num_partitions=2)[1] for t in tensor_list]


def _smart_enqueue(enqueue_fn, tensor_list, keep_input):
    from flowloom.ops.control_flow.cond import cond
    from flowloom.ops.control_flow.control_flow_ops import no_op

    if keep_input.shape.ndims == 1:
        return enqueue_fn(_select_which_to_enqueue(tensor_list, keep_input))
    static = constant_value(keep_input)
    if static is not None:
        return enqueue_fn(tensor_list) if bool(static) else no_op()
    return cond(keep_input, lambda: enqueue_fn(tensor_list), no_op)


def _enqueue(queue, tensor_list, threads, enqueue_many, keep_input):
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    enqueue_ops = [_smart_enqueue(enqueue_fn, tensor_list, keep_input)] * threads
    add_queue_runner(QueueRunner(queue, enqueue_ops))


def _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input):
    enqueue_fn = queue.enqueue_many if enqueue_many else queue.enqueue
    enqueue_ops = [_smart_enqueue(enqueue_fn, tl, keep_input) for tl in tensor_list_list]
    add_queue_runner(QueueRunner(queue, enqueue_ops))


def _which_queue(dynamic_pad):
    return PaddingFIFOQueue if dynamic_pad else FIFOQueue


def _dequeue(queue, batch_size, allow_smaller_final_batch, name):
    if allow_smaller_final_batch:
        return queue.dequeue_up_to(batch_size, name=name)
    return queue.dequeue_many(batch_size, name=name)


def _fraction_full(queue, capacity):
    _, _, _, math_ops, _, summary = _ops()
    summary.scalar(f"fraction_of_{capacity}_full",
                   math_ops.cast(queue.size(), dtypes.float32) * (1.0 / capacity))


def _batch(tensors, batch_size, keep_input, num_threads=1, capacity=32, enqueue_many=False,
           shapes=None, dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
           name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "batch", list(tensor_list) + [keep_input]) as name:
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = input_sparse.store_sparse_tensors(
            tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = input_sparse.restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors, dequeued)


def _batch_join(tensors_list, batch_size, keep_input, capacity=32, enqueue_many=False,
                shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, "batch_join", flat + [keep_input]) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = input_sparse.store_sparse_tensors_join(
            tensor_list_list, enqueue_many, keep_input)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _which_queue(dynamic_pad)(capacity=capacity, dtypes=types, shapes=shapes,
                                          shared_name=shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_full(queue, capacity)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = input_sparse.restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def _shuffle_queue(capacity, min_after_dequeue, seed, types, shapes, shared_name):
    if capacity <= min_after_dequeue:
        raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                         f"{min_after_dequeue}.")
    return RandomShuffleQueue(capacity=capacity, min_after_dequeue=min_after_dequeue,
                              seed=seed, dtypes=types, shapes=shapes, shared_name=shared_name)


def _fraction_over(queue, capacity, min_after_dequeue):
    _, _, _, math_ops, _, summary = _ops()
    full = math_ops.cast(math_ops.maximum(0, queue.size() - min_after_dequeue),
                         dtypes.float32) * (1.0 / (capacity - min_after_dequeue))
    summary.scalar(f"fraction_over_{min_after_dequeue}_of_{capacity - min_after_dequeue}_full",
                   full)


def _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input, num_threads=1,
                   seed=None, enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                   shared_name=None, name=None):
    tensor_list = _as_tensor_list(tensors)
    with name_scope(name, "shuffle_batch", list(tensor_list) + [keep_input]) as name:
        if capacity <= min_after_dequeue:
            raise ValueError(f"capacity {capacity} must be bigger than min_after_dequeue "
                             f"{min_after_dequeue}.")
        tensor_list = _validate(tensor_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list, sparse_info = input_sparse.store_sparse_tensors(
            tensor_list, enqueue_many, keep_input)
        types = _dtypes([tensor_list])
        shapes = _shapes([tensor_list], shapes, enqueue_many)
        queue = _shuffle_queue(capacity, min_after_dequeue, seed, types, shapes, shared_name)
        _enqueue(queue, tensor_list, num_threads, enqueue_many, keep_input)
        _fraction_over(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = input_sparse.restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors, dequeued)


def _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                        seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    tensor_list_list = _as_tensor_list_list(tensors_list)
    flat = [t for tl in tensor_list_list for t in tl]
    with name_scope(name, "shuffle_batch_join", flat + [keep_input]) as name:
        tensor_list_list = _validate_join(tensor_list_list)
        keep_input = _validate_keep_input(keep_input, enqueue_many)
        tensor_list_list, sparse_info = input_sparse.store_sparse_tensors_join(
            tensor_list_list, enqueue_many, keep_input)
        types = _dtypes(tensor_list_list)
        shapes = _shapes(tensor_list_list, shapes, enqueue_many)
        queue = _shuffle_queue(capacity, min_after_dequeue, seed, types, shapes, shared_name)
        _enqueue_join(queue, tensor_list_list, enqueue_many, keep_input)
        _fraction_over(queue, capacity, min_after_dequeue)
        dequeued = _dequeue(queue, batch_size, allow_smaller_final_batch, name)
        dequeued = input_sparse.restore_sparse_tensors(dequeued, sparse_info)
        return _as_original_type(tensors_list[0], dequeued)


def batch(tensors, batch_size, num_threads=1, capacity=32, enqueue_many=False, shapes=None,
          dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None, name=None):
    """Batches `tensors` through a FIFO queue filled by `num_threads` queue-runner threads.

    Args:
      tensors: a list or dict of tensors to enqueue (one example each; with `enqueue_many`,
        a batch of examples along the first dimension).
      batch_size: the number of examples per dequeued batch.
      num_threads: the number of threads enqueuing `tensors`.
      capacity: the queue's capacity.
      enqueue_many: whether each tensor holds a batch of examples.
      shapes: the shapes of one example (default: the tensors' static shapes).
      dynamic_pad: pad each batch to its largest example (a PaddingFIFOQueue).
      allow_smaller_final_batch: the last batch may be smaller (dequeue_up_to).
      shared_name, name: for the queue and the ops.

    Returns:
      The batched tensors, in the structure of `tensors` (one tensor for a one-item list).

    Example:
      images, labels = tf.train.batch([image, label], batch_size=32, num_threads=4)
    """
    return _batch(tensors, batch_size, True, num_threads, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name)


def maybe_batch(tensors, keep_input, batch_size, num_threads=1, capacity=32,
                enqueue_many=False, shapes=None, dynamic_pad=False,
                allow_smaller_final_batch=False, shared_name=None, name=None):
    """`batch`, enqueuing only the examples for which `keep_input` is true."""
    return _batch(tensors, batch_size, keep_input, num_threads, capacity, enqueue_many, shapes,
                  dynamic_pad, allow_smaller_final_batch, shared_name, name)


def batch_join(tensors_list, batch_size, capacity=32, enqueue_many=False, shapes=None,
               dynamic_pad=False, allow_smaller_final_batch=False, shared_name=None,
               name=None):
    """Batches from several lists of tensors, one enqueuing thread per list."""
    return _batch_join(tensors_list, batch_size, True, capacity, enqueue_many, shapes,
                       dynamic_pad, allow_smaller_final_batch, shared_name, name)


def maybe_batch_join(tensors_list, keep_input, batch_size, capacity=32, enqueue_many=False,
                     shapes=None, dynamic_pad=False, allow_smaller_final_batch=False,
                     shared_name=None, name=None):
    """`batch_join`, enqueuing only the examples for which `keep_input` is true."""
    return _batch_join(tensors_list, batch_size, keep_input, capacity, enqueue_many, shapes,
                       dynamic_pad, allow_smaller_final_batch, shared_name, name)


def shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, num_threads=1, seed=None,
                  enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                  shared_name=None, name=None):
    """Batches `tensors` in a random order through a RandomShuffleQueue.

    `min_after_dequeue` examples stay in the queue after each dequeue (the mixing); the
    queue holds at most `capacity`. With the same seed, single-threaded enqueues give TF's
    order.

    Example:
      images, labels = tf.train.shuffle_batch([image, label], batch_size=128,
                                              capacity=2000, min_after_dequeue=1000)
    """
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, True, num_threads,
                          seed, enqueue_many, shapes, allow_smaller_final_batch, shared_name,
                          name)


def maybe_shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                        num_threads=1, seed=None, enqueue_many=False, shapes=None,
                        allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch`, enqueuing only the examples for which `keep_input` is true."""
    return _shuffle_batch(tensors, batch_size, capacity, min_after_dequeue, keep_input,
                          num_threads, seed, enqueue_many, shapes, allow_smaller_final_batch,
                          shared_name, name)


def shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, seed=None,
                       enqueue_many=False, shapes=None, allow_smaller_final_batch=False,
                       shared_name=None, name=None):
    """`shuffle_batch` from several lists of tensors, one enqueuing thread per list."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, True,
                               seed, enqueue_many, shapes, allow_smaller_final_batch,
                               shared_name, name)


def maybe_shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue, keep_input,
                             seed=None, enqueue_many=False, shapes=None,
                             allow_smaller_final_batch=False, shared_name=None, name=None):
    """`shuffle_batch_join`, enqueuing only the examples for which `keep_input` is true."""
    return _shuffle_batch_join(tensors_list, batch_size, capacity, min_after_dequeue,
                               keep_input, seed, enqueue_many, shapes,
                               allow_smaller_final_batch, shared_name, name)
