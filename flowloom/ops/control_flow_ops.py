"""Grouping and ordering ops: no_op, group, tuple, with_dependencies."""

import builtins

from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import (_graph_of, control_dependencies, get_default_graph,
                                      name_scope)
from flowloom.framework.op_def import defop
from flowloom.framework.ops import Operation, Tensor, convert_to_tensor
from flowloom.ops import array_ops

NoOp = defop("NoOp")
NoOp.shape(lambda op: [])


@NoOp.kernel
def _(xp):
    return None


def no_op(name=None):
    """An op that does nothing; useful as a target with control dependencies."""
    return apply_op("NoOp", (), name=name)


def group(*inputs, **kwargs):
    """An op that runs all of `inputs` (ops or tensors) when it runs; it has no output."""
    name = kwargs.pop("name", None)
    if kwargs:
        raise ValueError("Unknown keyword arguments: " + ", ".join(kwargs))
    flat = []
    for x in inputs:
        if isinstance(x, (list, builtins.tuple)):
            flat.extend(_flatten(x))
        elif isinstance(x, dict):
            flat.extend(_flatten(list(x.values())))
        else:
            flat.append(x)
    if not flat:
        return no_op(name=name)
    ops = []
    for x in flat:
        if x is None:
            continue
        if hasattr(x, "_as_graph_element") and not isinstance(x, (Tensor, Operation)):
            x = x._as_graph_element()
        ops.append(x.op if isinstance(x, Tensor) else x)
    g = _graph_of(ops)
    with g.as_default(), name_scope(name, "group_deps", ops) as scope:
        # Ops on different devices are grouped per device first, as TF does.
        by_device = {}
        for op in ops:
            by_device.setdefault(op.device, []).append(op)
        if len(by_device) == 1:
            with control_dependencies(ops):
                return no_op(name=scope)
        deps = []
        for dev in sorted(by_device):
            with g.device(dev or None), control_dependencies(by_device[dev]):
                deps.append(no_op())
        with control_dependencies(deps):
            return no_op(name=scope)


def _flatten(xs):
    out = []
    for x in xs:
        if isinstance(x, (list, builtins.tuple)):
            out.extend(_flatten(x))
        else:
            out.append(x)
    return out


def tuple(tensors, name=None, control_inputs=None):  # noqa: A001 - TF's name
    """Groups tensors: each returned tensor is available only after all inputs are computed."""
    with name_scope(name, "tuple", tensors) as scope:
        gating = [t.op if isinstance(t, Tensor) else t for t in tensors if t is not None]
        if control_inputs:
            for c in control_inputs:
                gating.append(c.op if isinstance(c, Tensor) else c)
        gate = group(*gating)
        out = []
        for t in tensors:
            if t is None:
                out.append(None)
            else:
                out.append(with_dependencies([gate], t))
        del scope
        return out


def with_dependencies(dependencies, output_tensor, name=None):
    """`output_tensor`, computed only after all `dependencies` have run."""
    with name_scope(name, "control_dependency", list(dependencies) + [output_tensor]) as scope:
        g = get_default_graph()
        with g.colocate_with(output_tensor.values if hasattr(output_tensor, "indices")
                             else output_tensor), control_dependencies(dependencies):
            if hasattr(output_tensor, "indices") and hasattr(output_tensor, "values"):
                from flowloom.framework.indexed_slices import IndexedSlices

                return IndexedSlices(array_ops.identity(output_tensor.values, name=scope),
                                     output_tensor.indices, output_tensor.dense_shape)
            output_tensor = convert_to_tensor(output_tensor)
            return array_ops.identity(output_tensor, name=scope)


def cond_initialized(variable):
    raise NotImplementedError(
        "Variable.initialized_value (and a Variable as another's initial value) needs tf.cond, "
        "which flowloom does not implement yet")


def boolean_mask_1d(values, mask):
    return array_ops.boolean_mask(values, mask)


def _default_graph():
    return get_default_graph()
