"""The global step: an int64 scalar variable named `global_step` counting training steps."""

import logging

import numpy as np

from flowloom import variables
from flowloom.framework import dtypes
from flowloom.framework.graph import GraphKeys, get_default_graph
from flowloom.framework.ops import Tensor
from flowloom.ops.state import init_ops
from flowloom.variable_scope import get_variable


def assert_global_step(global_step_tensor):
    """Raises TypeError unless `global_step_tensor` is a scalar integer Variable or Tensor."""
    if not isinstance(global_step_tensor, (variables.Variable, Tensor)):
        raise TypeError('Existing "global_step" must be a Variable or Tensor: %s.'
                        % global_step_tensor)
    if not global_step_tensor.dtype.base_dtype.is_integer:
        raise TypeError('Existing "global_step" does not have integer type: %s'
                        % global_step_tensor.dtype)
    shape = global_step_tensor.get_shape()
    if shape.ndims != 0 and shape.is_fully_defined():
        raise TypeError('Existing "global_step" is not scalar: %s' % shape)


def get_global_step(graph=None):
    """The global step of `graph` (collection GLOBAL_STEP, else tensor `global_step:0`), or None.

    Raises:
      TypeError: the global step found is not a scalar integer.
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GraphKeys.GLOBAL_STEP)
    if len(found) == 1:
        step = found[0]
    elif not found:
        try:
            step = graph.get_tensor_by_name("global_step:0")
        except KeyError:
            return None
    else:
        logging.error("Multiple tensors in global_step collection.")
        return None
    assert_global_step(step)
    return step


def create_global_step(graph=None):
    """Creates the global step variable in `graph` (at the root name scope).

    Raises:
      ValueError: the graph already has a global step.
    """
    graph = graph or get_default_graph()
    if get_global_step(graph) is not None:
        raise ValueError('"global_step" already exists.')
    with graph.as_default(), graph.name_scope(None):
        return get_variable(
            GraphKeys.GLOBAL_STEP, shape=[], dtype=dtypes.int64,
            initializer=init_ops.zeros_initializer(), trainable=False,
            collections=[GraphKeys.GLOBAL_VARIABLES, GraphKeys.GLOBAL_STEP])


def get_or_create_global_step(graph=None):
    """The global step of `graph`, created if it has none."""
    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        step = create_global_step(graph)
    return step


def global_step(sess, global_step_tensor):
    """The value of the global step in session `sess`, as an int."""
    # A one-element step (shape [1]) reads too, as int() of it did under NumPy 1.
    return int(np.asarray(sess.run(global_step_tensor)).item())


GLOBAL_STEP_READ_KEY = "global_step_read_op_cache"


def _get_global_step_read(graph=None):
    """The cached read of the global step (collection `global_step_read_op_cache`), or None.

    Raises:
      RuntimeError: if the collection holds more than one tensor.
    """
    graph = graph or get_default_graph()
    found = graph.get_collection(GLOBAL_STEP_READ_KEY)
    if len(found) > 1:
        raise RuntimeError(f"There are multiple items in collection {GLOBAL_STEP_READ_KEY}. "
                           "There should be only one.")
    return found[0] if found else None


def _get_or_create_global_step_read(graph=None):
    """A tensor reading the global step (`global_step/add`), made once per graph; None when
    the graph has no global step."""
    from flowloom.framework.graph import name_scope

    graph = graph or get_default_graph()
    read = _get_global_step_read(graph)
    if read is not None:
        return read
    step = get_global_step(graph)
    if step is None:
        return None
    with graph.as_default(), name_scope(None):
        with name_scope(step.op.name + "/"):
            # TF reads `initialized_value()` (a cond); a plain read here, since flowloom's
            # cluster runtime cannot run TF1 control flow that spans tasks (the step lives
            # on a ps task).
            graph.add_to_collection(GLOBAL_STEP_READ_KEY, step + 0)
    return _get_global_step_read(graph)


def _increment_global_step(increment, graph=None):
    """An op adding `increment` to the global step after the step's cached read.

    Raises:
      ValueError: if the graph has no global step.
    """
    from flowloom.framework.graph import control_dependencies, name_scope
    from flowloom.ops.state import state_ops

    graph = graph or get_default_graph()
    step = get_global_step(graph)
    if step is None:
        raise ValueError("Global step tensor should be created by "
                         "tf.train.get_or_create_global_step before calling increment.")
    read = _get_or_create_global_step_read(graph)
    with graph.as_default(), name_scope(None):
        with name_scope(step.op.name + "/"):
            with control_dependencies([read]):
                return state_ops.assign_add(step, increment)
