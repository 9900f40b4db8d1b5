"""`tf.FIFOQueue`, `tf.RandomShuffleQueue`, `tf.PaddingFIFOQueue`, `tf.PriorityQueue`.

Each class builds its handle op (FIFOQueueV2, ...) and the Queue* ops that use it, with TF's
op names (`fifo_queue_enqueue`, `fifo_queue_DequeueMany`, ...) and static shapes.
"""

import hashlib

from flowloom.framework import dtypes as dtypes_lib
from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_util import constant_value
import flowloom.ops.data.queue_ops  # noqa: F401 - registers the queue op types
from flowloom.ops.random.random_ops import get_seed


def _as_type_list(dtypes):
    if dtypes is None:
        raise ValueError("dtypes must be given")
    if not isinstance(dtypes, (list, tuple)):
        return [dtypes_lib.as_dtype(dtypes)]
    return [dtypes_lib.as_dtype(d) for d in dtypes]


def _as_shape_list(shapes, unknown_dim_allowed=False):
    if unknown_dim_allowed:
        if (not isinstance(shapes, (list, tuple)) or not shapes or
                any(s is None or isinstance(s, int) for s in shapes)):
            raise ValueError("When providing partial shapes, a list of shapes must be provided.")
    if shapes is None:
        return None
    if isinstance(shapes, tensor_shape.TensorShape):
        shapes = [shapes]
    if not isinstance(shapes, (tuple, list)):
        raise TypeError("shapes must be a TensorShape or a list or tuple of TensorShapes.")
    if all(s is None or isinstance(s, int) for s in shapes):
        shapes = [shapes]
    shapes = [tensor_shape.as_shape(s) for s in shapes]
    if not unknown_dim_allowed and any(not s.is_fully_defined() for s in shapes):
        raise ValueError(f"All shapes must be fully defined: {shapes}")
    if any(s.dims is None for s in shapes):
        raise ValueError(f"All shapes must have a defined rank: {shapes}")
    return shapes


def _as_name_list(names, dtypes):
    if names is None:
        return None
    if not isinstance(names, (list, tuple)):
        names = [names]
    if len(names) != len(dtypes):
        raise ValueError("List of names must have the same length as the list of dtypes")
    return list(names)


def _shape_common(s1, s2):
    s1 = tensor_shape.TensorShape(s1)
    s2 = tensor_shape.TensorShape(s2)
    if s1.ndims is None or s2.ndims is None or s1.ndims != s2.ndims:
        return tensor_shape.unknown_shape()
    return tensor_shape.TensorShape([a if a is not None and a == b else None
                                     for a, b in zip(s1.as_list(), s2.as_list())])


class QueueBase:
    """A queue of tuples of tensors, with enqueue and dequeue ops (`tf.QueueBase`).

    Example:
      q = tf.FIFOQueue(3, tf.float32)
      init = q.enqueue_many(([0., 0., 0.],))
      x = q.dequeue()
      q_inc = q.enqueue([x + 1])
    """

    def __init__(self, dtypes, shapes, names, queue_ref):
        self._dtypes = list(dtypes)
        if shapes is not None:
            if len(shapes) != len(dtypes):
                raise ValueError("Queue shapes must have the same length as dtypes")
            self._shapes = [tensor_shape.TensorShape(s) for s in shapes]
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in self._dtypes]
        if names is not None:
            if len(names) != len(dtypes):
                raise ValueError("Queue names must have the same length as dtypes")
            self._names = names
        else:
            self._names = None
        self._queue_ref = queue_ref
        self._name = queue_ref.op.name.split("/")[-1]

    @staticmethod
    def from_list(index, queues):
        """A queue whose ops use the queue `queues[index]` (`index` a scalar tensor)."""
        from flowloom.ops.array.array_ops import gather, stack

        if not queues or not isinstance(queues, list) or \
                not all(isinstance(q, QueueBase) for q in queues):
            raise TypeError("A list of queues expected")
        dtypes = queues[0].dtypes
        if not all(dtypes == q.dtypes for q in queues[1:]):
            raise TypeError("Queues do not have matching component dtypes.")
        names = queues[0].names
        if not all(names == q.names for q in queues[1:]):
            raise TypeError("Queues do not have matching component names.")
        reduced = []
        for shapes in zip(*[q.shapes for q in queues]):
            s = shapes[0]
            for other in shapes[1:]:
                s = _shape_common(s, other)
            reduced.append(s)
        refs = stack([q.queue_ref for q in queues])
        return QueueBase(dtypes, reduced, names, gather(refs, index))

    @property
    def queue_ref(self):
        return self._queue_ref

    @property
    def name(self):
        return self._queue_ref.op.name

    @property
    def dtypes(self):
        return self._dtypes

    @property
    def shapes(self):
        return self._shapes

    @property
    def names(self):
        return self._names

    def _check_enqueue_dtypes(self, vals):
        if isinstance(vals, dict):
            if not self._names:
                raise ValueError("Queue must have names to enqueue a dictionary")
            if sorted(self._names, key=str) != sorted(vals.keys(), key=str):
                raise ValueError("Keys in dictionary to enqueue do not match names of Queue.  "
                                 f"Dictionary: ({sorted(vals.keys())}), Queue: "
                                 f"({sorted(self._names)})")
            vals = [vals[k] for k in self._names]
        else:
            if self._names:
                raise ValueError("You must enqueue a dictionary in a Queue with names")
            if not isinstance(vals, (list, tuple)):
                vals = [vals]
        return [convert_to_tensor(v, dtype=d, name=f"component_{i}")
                for i, (v, d) in enumerate(zip(vals, self._dtypes))]

    @staticmethod
    def _scope_vals(vals):
        if isinstance(vals, (list, tuple)):
            return list(vals)
        if isinstance(vals, dict):
            return list(vals.values())
        return [vals]

    def enqueue(self, vals, name=None):
        """Enqueues one element (a tensor, a list/tuple of tensors, or a dict by name).

        Blocks while the queue is full. Raises CancelledError at run time when the queue is
        closed (or closes with cancel_pending_enqueues, or its session closes).
        """
        with name_scope(name, f"{self._name}_enqueue", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            for v, shape in zip(vals, self._shapes):
                v.get_shape().assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueV2", (self._queue_ref, vals), name=scope)

    def enqueue_many(self, vals, name=None):
        """Enqueues the rows of each component (all must have the same first dimension)."""
        with name_scope(name, f"{self._name}_EnqueueMany", self._scope_vals(vals)) as scope:
            vals = self._check_enqueue_dtypes(vals)
            batch = tensor_shape.Dimension(None)
            for v, shape in zip(vals, self._shapes):
                s = v.get_shape().with_rank_at_least(1)
                batch = batch.merge_with(tensor_shape.Dimension(s.as_list()[0]
                                                                if s.dims is not None else None))
                s[1:].assert_is_compatible_with(shape)
            return apply_op("QueueEnqueueManyV2", (self._queue_ref, vals), name=scope)

    def _dequeue_return_value(self, tensors):
        if self._names:
            return {n: tensors[i] for i, n in enumerate(self._names)}
        if len(tensors) == 1:
            return tensors[0]
        return tensors

    def _dequeue(self, op_type, inputs, name, batch):
        op = apply_op(op_type, (self._queue_ref,) + inputs, name=name,
                      component_types=self._dtypes)
        if batch is True:  # the static batch size is n when n is a constant
            value = constant_value(op.inputs[1])
            batch = None if value is None else int(value)
        for out, shape in zip(op.outputs, self._shapes):
            out.set_shape(shape if batch is False else
                          tensor_shape.TensorShape([batch]).concatenate(shape))
        return self._dequeue_return_value(list(op.outputs))

    def dequeue(self, name=None):
        """Dequeues one element; OutOfRangeError at run time once closed and empty."""
        return self._dequeue("QueueDequeueV2", (), name or f"{self._name}_Dequeue", False)

    def dequeue_many(self, n, name=None):
        """Dequeues `n` elements, batched along a new first dimension."""
        name = name or f"{self._name}_DequeueMany"
        return self._dequeue("QueueDequeueManyV2", (n,), name, True)

    def dequeue_up_to(self, n, name=None):
        """Dequeues up to `n` elements: fewer once the queue is closed and has fewer left."""
        name = name or f"{self._name}_DequeueUpTo"
        return self._dequeue("QueueDequeueUpToV2", (n,), name, None)

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the queue: later enqueues fail, dequeues drain what is left."""
        return apply_op("QueueCloseV2", (self._queue_ref,), name=name or f"{self._name}_Close",
                        cancel_pending_enqueues=bool(cancel_pending_enqueues))

    def is_closed(self, name=None):
        """A bool tensor: whether the queue is closed."""
        return apply_op("QueueIsClosedV2", (self._queue_ref,),
                        name=name or f"{self._name}_Is_Closed").outputs[0]

    def size(self, name=None):
        """An int32 tensor: the number of elements in the queue."""
        return apply_op("QueueSizeV2", (self._queue_ref,),
                        name=name or f"{self._name}_Size").outputs[0]


def _queue_ref(op_type, name, **attrs):
    attrs = {k: v for k, v in attrs.items() if v is not None}
    return apply_op(op_type, (), name=name, **attrs).outputs[0]


def _shape_attr(shapes):
    return list(shapes) if shapes is not None else []


class FIFOQueue(QueueBase):
    """A queue that dequeues elements in first-in first-out order (`tf.FIFOQueue`)."""

    def __init__(self, capacity, dtypes, shapes=None, names=None, shared_name=None,
                 name="fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        ref = _queue_ref("FIFOQueueV2", name, component_types=dtypes,
                         shapes=_shape_attr(shapes), capacity=capacity,
                         shared_name=shared_name or "")
        super().__init__(dtypes, shapes, names, ref)


class PaddingFIFOQueue(QueueBase):
    """A FIFO queue whose dequeue_many pads components of unknown dims (`None` in shapes)."""

    def __init__(self, capacity, dtypes, shapes, names=None, shared_name=None,
                 name="padding_fifo_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes, unknown_dim_allowed=True)
        names = _as_name_list(names, dtypes)
        if len(dtypes) != len(shapes):
            raise ValueError("Shapes must be provided for all components, but received "
                             f"{len(dtypes)} dtypes and {len(shapes)} shapes.")
        ref = _queue_ref("PaddingFIFOQueueV2", name, component_types=dtypes, shapes=shapes,
                         capacity=capacity, shared_name=shared_name or "")
        super().__init__(dtypes, shapes, names, ref)


class RandomShuffleQueue(QueueBase):
    """A queue that dequeues elements in a random order (`tf.RandomShuffleQueue`).

    While open, a dequeue waits until more than `min_after_dequeue` elements are left. The
    order for a given seed is TF's (the same Philox stream).
    """

    def __init__(self, capacity, min_after_dequeue, dtypes, shapes=None, names=None, seed=None,
                 shared_name=None, name="random_shuffle_queue"):
        dtypes = _as_type_list(dtypes)
        shapes = _as_shape_list(shapes)
        names = _as_name_list(names, dtypes)
        seed1, seed2 = get_seed(seed)
        if seed1 is None and seed2 is None:
            seed1, seed2 = 0, 0
        elif seed is None and shared_name is not None:
            # A graph seed without an op seed: a shared queue's seed2 depends only on the
            # graph seed and its shared name, as in TF.
            digest = hashlib.md5((str(seed1) + shared_name).encode("utf-8")).hexdigest()
            seed2 = int(digest[:8], 16) & 0x7FFFFFFF
        ref = _queue_ref("RandomShuffleQueueV2", name, component_types=dtypes,
                         shapes=_shape_attr(shapes), capacity=capacity,
                         min_after_dequeue=min_after_dequeue, seed=seed1, seed2=seed2,
                         shared_name=shared_name or "")
        super().__init__(dtypes, shapes, names, ref)


class PriorityQueue(QueueBase):
    """A queue that dequeues the element with the smallest int64 priority first.

    Each element is (priority, *components): enqueue a tuple whose first entry is the int64
    priority (a scalar; for enqueue_many, a vector).
    """

    def __init__(self, capacity, types, shapes=None, names=None, shared_name=None,
                 name="priority_queue"):
        types = _as_type_list(types)
        shapes = _as_shape_list(shapes)
        ref = _queue_ref("PriorityQueueV2", name, component_types=types,
                         shapes=_shape_attr(shapes), capacity=capacity,
                         shared_name=shared_name or "")
        priority_dtypes = [dtypes_lib.int64] + types
        priority_shapes = [()] + shapes if shapes else shapes
        super().__init__(priority_dtypes, priority_shapes, names, ref)
