"""`data_flow_ops.Barrier`: a key -> tuple map whose complete tuples are taken in batches
(ops in flowloom/ops/data/barrier_ops.py, with TF 1.15's op types and names).

Example:
    b = Barrier((tf.string, tf.int32), shapes=((), ()))
    b.insert_many(0, keys=["k1", "k2"], values=["a", "b"])
    b.insert_many(1, keys=["k1", "k2"], values=[1, 2])
    indices, keys, (letters, numbers) = b.take_many(2)   # keys [b"k1", b"k2"]
"""

from flowloom.framework import tensor_shape
from flowloom.framework import tensor_util
from flowloom.framework.apply_op import apply_op
from flowloom.data.queues import _as_shape_list, _as_type_list
import flowloom.ops.data.barrier_ops  # noqa: F401 - registers the Barrier op types


class Barrier:
    """A key-value map that persists across runs of a session.

    Each value is a tuple of tensors (its components). A key whose components have all been
    inserted (`insert_many`, one component at a time) is complete; `take_many` gives
    complete ones, in the order their first component was inserted.

    Args:
      types: a dtype or a tuple of dtypes, one per component.
      shapes: optional: a shape, or one per component (all fully defined); None: not
        constrained.
      shared_name: if non-empty, sessions sharing a target share the barrier by this name.
      name: the name of the Barrier op.

    Raises:
      ValueError: a shape has no elements.
    """

    def __init__(self, types, shapes=None, shared_name=None, name="barrier"):
        self._types = _as_type_list(types)
        if shapes is not None:
            self._shapes = [tensor_shape.TensorShape(s) for s in _as_shape_list(shapes)]
            for i, shape in enumerate(self._shapes):
                if shape.num_elements() == 0:
                    raise ValueError("Empty tensors are not supported, but received shape "
                                     f"'{shape}' at index {i}")
        else:
            self._shapes = [tensor_shape.unknown_shape() for _ in self._types]
        self._barrier_ref = apply_op("Barrier", (), name=name, component_types=self._types,
                                     shapes=self._shapes, shared_name=shared_name or "",
                                     ).outputs[0]
        self._name = self._barrier_ref.op.name.split("/")[-1]

    @property
    def barrier_ref(self):
        """The barrier's handle (a string ref tensor)."""
        return self._barrier_ref

    @property
    def name(self):
        """The name of the Barrier op."""
        return self._barrier_ref.op.name

    def insert_many(self, component_index, keys, values, name=None):
        """Sets component `component_index` of each key's value (the op that does it).

        Args:
          component_index: the component being set.
          keys: a string vector of n keys.
          values: a tensor whose first dimension is n, one row per key.
          name: the op's name (default `<barrier>_BarrierInsertMany`).
        """
        return apply_op("BarrierInsertMany", (self._barrier_ref, keys, values),
                        name=name or f"{self._name}_BarrierInsertMany",
                        component_index=component_index)

    def take_many(self, num_elements, allow_small_batch=False, timeout=None, name=None):
        """Takes `num_elements` complete values, waiting until that many are complete.

        Args:
          num_elements: how many to take.
          allow_small_batch: once the barrier is closed, take the complete ones if there are
            fewer (instead of OutOfRangeError).
          timeout: milliseconds to wait before DeadlineExceededError (None: no limit).
          name: the op's name (default `<barrier>_BarrierTakeMany`).

        Returns:
          (indices, keys, values): the int64 index of the insert that first brought each key
          (from -2**63), the keys, and a list of each component stacked.
        """
        out = apply_op("BarrierTakeMany", (self._barrier_ref, num_elements),
                       name=name or f"{self._name}_BarrierTakeMany",
                       component_types=self._types, allow_small_batch=allow_small_batch,
                       timeout_ms=-1 if timeout is None else timeout).outputs
        batch = None if allow_small_batch else tensor_util.constant_value(out[0].op.inputs[1])
        batch = tensor_shape.TensorShape([None if batch is None else int(batch)])
        out[0].set_shape(batch)
        out[1].set_shape(batch)
        for t, shape in zip(out[2:], self._shapes):
            t.set_shape(batch.concatenate(shape))
        return out[0], out[1], list(out[2:])

    def close(self, cancel_pending_enqueues=False, name=None):
        """Closes the barrier: no new keys; with `cancel_pending_enqueues`, the incomplete
        values are dropped and none can be completed (the op that does it)."""
        return apply_op("BarrierClose", (self._barrier_ref,),
                        name=name or f"{self._name}_BarrierClose",
                        cancel_pending_enqueues=cancel_pending_enqueues)

    def ready_size(self, name=None):
        """The number of complete values (an int32 scalar tensor)."""
        return apply_op("BarrierReadySize", (self._barrier_ref,),
                        name=name or f"{self._name}_BarrierReadySize").outputs[0]

    def incomplete_size(self, name=None):
        """The number of incomplete values (an int32 scalar tensor)."""
        return apply_op("BarrierIncompleteSize", (self._barrier_ref,),
                        name=name or f"{self._name}_BarrierIncompleteSize").outputs[0]


