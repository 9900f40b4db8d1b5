"""Initial values that read other variables: reads are guarded against uninitialized ones.

`tf.Variable(w * 2)` must initialize even when `w` is not initialized yet (initializers run
in any order): as TF 1.15 does, the initializer of the new variable assigns a copy of the
initial value's graph in which every read of a variable of GLOBAL_VARIABLES or
LOCAL_VARIABLES is replaced by that variable's `initialized_value()` (its value when
initialized, else its own initial value). Copies are named `<op>_<variable name>`. Best
effort, as TF: an initial value whose graph has a cycle (a while loop) is used unchanged,
and reads of resource variables (ReadVariableOp) are not replaced.
"""

import weakref

from flowloom.framework.graph import GraphKeys
from flowloom.framework.ops import Tensor

# Ops whose outputs are kept as they are (TF's list).
_KEEP = frozenset(("IsVariableInitialized", "VarIsInitializedOp", "ReadVariableOp", "If"))
_VARIABLE_OPS = frozenset(("Variable", "VariableV2", "VarHandleOp"))
_STOP = _KEEP | _VARIABLE_OPS


def _try_guard_against_uninitialized_dependencies(name, initial_value):
    """`initial_value` with its reads of variables replaced by their initialized values.

    Args:
      name: The new variable's name (scope form, "x/"): suffix of the copied ops' names.
      initial_value: A `Tensor`.

    Returns:
      A `Tensor` to initialize the variable with (`initial_value` itself when nothing
      reads a variable or its graph has a cycle).

    Raises:
      TypeError: If `initial_value` is not a `Tensor`.
    """
    if not isinstance(initial_value, Tensor):
        raise TypeError("initial_value needs to be a Tensor: %s" % initial_value)
    if not _reads_a_variable(initial_value._op):
        # Nothing reads a variable (most initial values: an initializer's ops): only reads
        # of variables are replaced, so the copy would be the initial value itself.
        return initial_value
    if _post_order(initial_value.op, lambda op: True) is None:
        return initial_value  # a cycle (a while loop): used unchanged
    # Kept ops and variables end the walk: what they read is not copied.
    order = _post_order(initial_value.op, lambda op: op.type not in _STOP)
    replaced = {}  # op -> the op that replaces it (itself when unchanged)
    for op in order:
        replaced[op] = _safe_op(name, op, replaced)
    return replaced[initial_value.op].outputs[initial_value.value_index]


def _reads_a_variable(root):
    """Whether a variable op is among the ops `root` depends on (data and control inputs)."""
    if root._type in _VARIABLE_OPS:
        return True
    seen = {root}
    stack = [root]
    while stack:
        op = stack.pop()
        # Ops are checked when first reached; those with no inputs (an initializer's
        # Consts) are not visited again.
        for t in op._inputs:
            dep = t._op
            if dep not in seen:
                if dep._type in _VARIABLE_OPS:
                    return True
                seen.add(dep)
                if dep._inputs or dep._control_inputs:
                    stack.append(dep)
        for dep in op._control_inputs:
            if dep not in seen:
                if dep._type in _VARIABLE_OPS:
                    return True
                seen.add(dep)
                stack.append(dep)
    return False


def _post_order(root, expand):
    """The ops `root` depends on (data and control inputs of the ops `expand` accepts),
    inputs before their consumers; None when they contain a cycle."""
    started, finished, order = set(), set(), []
    stack = [(root, False)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            started.discard(op)
            finished.add(op)
            order.append(op)
            continue
        if op in finished:
            continue
        if op in started:
            return None  # reached again while its own inputs are being visited
        started.add(op)
        stack.append((op, True))
        for dep in [t._op for t in op._inputs] + list(op._control_inputs) if expand(op) else ():
            if dep in started:
                return None
            if dep not in finished:
                stack.append((dep, False))
    return order


def _safe_op(name, op, replaced):
    if op.type in _KEEP:
        return op
    if op.type in _VARIABLE_OPS:
        value = _initialized_value_of(op)
        return op if value is None else value.op
    inputs = [replaced[t.op].outputs[t.value_index] for t in op.inputs]
    if all(new is old for new, old in zip(inputs, op.inputs)):
        return op
    new_type = "Switch" if op.type == "RefSwitch" else op.type
    new_name = (op.name + "_" + name).replace(":", "_")
    return op.graph.create_op(new_type, inputs, [t.dtype.base_dtype for t in op.outputs],
                              name=new_name, attrs=dict(op._attrs))


def _initialized_value_of(variable_op):
    """`initialized_value()` of the variable of GLOBAL/LOCAL_VARIABLES whose op is
    `variable_op`, or None: the first such variable of GLOBAL_VARIABLES, else of
    LOCAL_VARIABLES, in collection order (found through `_VariableIndex`, not a scan)."""
    graph = variable_op.graph
    names = (variable_op.name, variable_op.name + ":0")
    for key in (GraphKeys.GLOBAL_VARIABLES, GraphKeys.LOCAL_VARIABLES):
        found = _VariableIndex.of(graph, key).first(names)
        if found is not None:
            return found.initialized_value()
    return None


class _VariableIndex:
    """The variables of one collection by name, kept in step with the collection's list.

    Collections only grow in the usual program (each new variable appends itself), so the
    index reads just the items appended since it last looked: each lookup costs O(1)
    amortized instead of a scan of every variable. Any other change of the list (items
    removed, replaced, or the list replaced) rebuilds it.
    """

    __slots__ = ("items", "seen", "last", "by_name")
    _of = weakref.WeakKeyDictionary()  # graph -> {collection key: _VariableIndex}

    def __init__(self):
        self.items, self.seen, self.last, self.by_name = None, 0, None, {}

    @classmethod
    def of(cls, graph, key):
        per_graph = cls._of.get(graph)
        if per_graph is None:
            per_graph = cls._of[graph] = {}
        index = per_graph.get(key)
        if index is None:
            index = per_graph[key] = cls()
        index._sync(graph._collections.get(key) or [])
        return index

    def _sync(self, items):
        grown = items is self.items and len(items) >= self.seen and \
            (self.seen == 0 or items[self.seen - 1] is self.last)
        if not grown:
            self.items, self.seen, self.by_name = items, 0, {}
        for pos in range(self.seen, len(items)):
            var = items[pos]
            name = getattr(var, "name", None)
            if getattr(var, "initialized_value", None) is not None and \
                    name not in self.by_name:
                self.by_name[name] = (pos, var)
        self.seen = len(items)
        self.last = items[-1] if items else None

    def first(self, names):
        """The variable named one of `names` that comes first in the collection, or None."""
        hits = [self.by_name[n] for n in names if n in self.by_name]
        return min(hits, key=lambda hit: hit[0])[1] if hits else None
