"""`tf.container(name)`: the resource container of the stateful ops created in a block.

A stateful op with a `container` attr (VariableV2, VarHandleOp, queues, readers, ...) created
in the block and not given a container of its own gets `name` (the graph's creation path
applies it); ops in different containers hold different state even under the same shared
name. Importing this module attaches `Graph.container`.

Example:
  with tf.container("experiment0"):
      v = tf.Variable(1.0)          # v.op.get_attr("container") == b"experiment0"
"""

import contextlib

from flowloom.framework.graph import Graph, get_default_graph, init_scope


@contextlib.contextmanager
def _graph_container(self, container_name):
    """Returns a context manager that gives stateful ops created in it `container_name`
    (also in the graph that `init_scope` lifts to, as TF)."""
    original = self._container
    with init_scope():
        outer = get_default_graph()
        original_outer = outer._container
    try:
        self._container = container_name
        outer._container = container_name
        yield self._container
    finally:
        self._container = original
        outer._container = original_outer


Graph.container = _graph_container


def container(container_name):
    """`tf.container`: `get_default_graph().container(container_name)`."""
    return get_default_graph().container(container_name)
