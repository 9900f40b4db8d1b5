"""`tf.contrib.training` ps strategies for `tf.train.replica_device_setter`: random by op
name, and greedy by load (`byte_size_load_fn`)."""

import hashlib

import numpy as np

from flowloom.framework.tensor_shape import TensorShape


class RandomStrategy:
    """Returns a ps task chosen by a hash of the op's name (deterministic across runs).

    Args:
      num_ps_tasks: number of ps tasks to choose among.
      seed: mixed into the hash, to choose a different placement.
    """

    def __init__(self, num_ps_tasks, seed=0):
        self._num_tasks = num_ps_tasks
        self._seed = seed

    def __call__(self, op):
        """Chooses a ps task index for `op`."""
        key = ("%s_%d" % (op.name, self._seed)).encode("utf-8")
        return int(int(hashlib.md5(key).hexdigest(), 16) % self._num_tasks)


class GreedyLoadBalancingStrategy:
    """Returns the least-loaded ps task so far, then adds the op's load to it.

    Sensitive to the order in which variables are created. Intended as the `ps_strategy` of
    `tf.train.replica_device_setter`:

    ```python
    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(
        3, tf.contrib.training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
      ...
    ```

    Args:
      num_tasks: number of ps tasks to cycle among.
      load_fn: a callable `op -> number`, the load the op puts on a task.
    """

    def __init__(self, num_tasks, load_fn):
        self._num_tasks = num_tasks
        self._load_fn = load_fn
        self._ps_loads = np.zeros(num_tasks)

    def __call__(self, op):
        """Returns the index of the least-loaded ps task (ties: the lowest index)."""
        task = np.argmin(self._ps_loads)
        self._ps_loads[task] += self._load_fn(op)
        return task


def byte_size_load_fn(op):
    """Load function: the byte size of the single output of `op` (typically a variable).

    Args:
      op: an `Operation` with a single output.

    Returns:
      The number of bytes of that output (a resource handle counts 1 byte per element).

    Raises:
      ValueError: `op` does not have a single output, or its shape is not fully defined.
    """
    if len(op.outputs) != 1:
        raise ValueError("Op %s must have a single output" % op)
    output = op.outputs[0]
    elem_size = output.dtype.size
    shape = output.get_shape()
    if not shape.is_fully_defined():
        shape = TensorShape(op.get_attr("shape"))
    shape.assert_is_fully_defined()
    return shape.num_elements() * elem_size
