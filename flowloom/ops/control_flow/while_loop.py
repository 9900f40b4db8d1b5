"""`tf.while_loop`, built as TF1 builds it: Enter → Merge → LoopCond/Switch → body →
NextIteration (back to the Merge), and Switch → Exit for the results."""

from flowloom.framework import nest
from flowloom.framework import tensor_shape
from flowloom.framework.graph import (GraphKeys, add_to_collection, control_dependencies,
                                      name_scope)
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.control_flow.control_flow_context import WhileContext, _switch_ref_or_tensor


def _is_tensor_array(v):
    return type(v).__name__ == "TensorArray" and hasattr(v, "flow")


def _to_flow(v):
    return v.flow if _is_tensor_array(v) else v


def _from_flow(original, tensor):
    return original._with_flow(tensor) if _is_tensor_array(original) else tensor


def _as_loop_var(v):
    if _is_tensor_array(v):
        return v
    if hasattr(v, "_as_graph_element") and not isinstance(v, Tensor):
        return v._as_graph_element() if not hasattr(v, "value") else v.value()
    return v


def _shape_invariant(var, shape=None):
    if shape is None:
        return var.shape
    shape = tensor_shape.as_shape(shape)
    if not shape.is_compatible_with(var.shape):
        raise ValueError(
            f"The shape invariant specified for {var.name} is not compatible with the initial "
            f"shape of the loop variable. It enters the loop with shape {var.shape}, but the "
            f"specified shape invariant is {shape}.")
    return shape


def while_loop(cond, body, loop_vars, shape_invariants=None, parallel_iterations=10,
               back_prop=True, swap_memory=False, name=None, maximum_iterations=None,
               return_same_structure=False):
    """Repeats `body` while `cond` is true (TF1 dataflow `while_loop`).

    Args:
      cond: a callable returning a scalar bool tensor, given the loop variables.
      body: a callable returning new loop variables (same structure as `loop_vars`).
      loop_vars: a list or tuple of (nested structures of) tensors and TensorArrays.
      shape_invariants: the shapes each loop variable may take (default: its initial shape).
      parallel_iterations: how many iterations may be in flight at once. Honoured as TF
        does (runtime/dataflow.py): a NextIteration that would start one more is held until
        the oldest iteration finishes; 1 runs iterations strictly one after another. Nodes
        run from one queue on the calling thread, so iterations interleave rather than run
        on several cores.
      back_prop: whether gradients may flow through the loop.
      swap_memory: accepted for compatibility (memory is not swapped).
      name: the name scope (default "while").
      maximum_iterations: an optional bound on the number of iterations.
      return_same_structure: if True, always return the structure of `loop_vars`.

    Returns:
      The loop variables after the last iteration; a single tensor when there is one loop
      variable (unless `return_same_structure`).

    Raises:
      TypeError: `cond` or `body` is not callable, or parallel_iterations < 1.
      ValueError: `loop_vars` is empty, body's outputs don't match, or a loop variable's
        shape changes beyond its shape invariant.

    Example:
      i = tf.constant(0)
      r = tf.while_loop(lambda i: tf.less(i, 10), lambda i: tf.add(i, 1), [i])
    """
    with name_scope(name, "while", nest.flatten(loop_vars)):
        if not loop_vars:
            raise ValueError("'loop_vars' must be provided.")
        if not callable(cond):
            raise TypeError("'cond' must be callable.")
        if not callable(body):
            raise TypeError("'body' must be callable.")
        if parallel_iterations < 1:
            raise TypeError("'parallel_iterations' must be a positive integer.")
        loop_vars = nest.map_structure(_as_loop_var, loop_vars)
        try_to_pack = len(loop_vars) == 1 and not return_same_structure
        if maximum_iterations is not None:
            maximum_iterations = convert_to_tensor(maximum_iterations,
                                                   name="maximum_iterations")
            if maximum_iterations.shape.ndims != 0:
                raise ValueError("'maximum_iterations' must be a scalar. Received shape: "
                                 f"{maximum_iterations.shape}")
            counter = array_ops.constant(0, dtype=maximum_iterations.dtype,
                                         name="iteration_counter")
            orig_cond, orig_body = cond, body
            from flowloom.ops.math import math_ops

            if try_to_pack:
                loop_vars = (counter, loop_vars[0])
                cond = lambda i, lv: math_ops.logical_and(  # noqa: E731
                    i < maximum_iterations, orig_cond(lv))
                body = lambda i, lv: (i + 1, orig_body(lv))  # noqa: E731
            else:
                loop_vars = (counter, loop_vars)
                cond = lambda i, lv: math_ops.logical_and(  # noqa: E731
                    i < maximum_iterations, orig_cond(*lv))
                body = lambda i, lv: (i + 1, orig_body(*lv))  # noqa: E731
        if shape_invariants is not None:
            if maximum_iterations is not None:
                shape_invariants = (tensor_shape.TensorShape([]), shape_invariants)
            nest.assert_same_structure(loop_vars, shape_invariants, check_types=False)
        loop_context = WhileContext(maximum_iterations=maximum_iterations,
                                    parallel_iterations=parallel_iterations,
                                    back_prop=back_prop, swap_memory=swap_memory)
        if loop_context.outer_context is None:
            add_to_collection(GraphKeys.WHILE_CONTEXT, loop_context)
        result = build_loop(loop_context, cond, body, loop_vars, shape_invariants,
                            return_same_structure)
        if maximum_iterations is not None:
            return result[1]
        return result


def _component_shapes(var, shape):
    """The shape invariants of the component tensors of one loop variable (a SparseTensor or
    IndexedSlices has one TensorShape for all its components, as in TF)."""
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.framework.sparse_tensor import SparseTensor

    if isinstance(var, IndexedSlices):
        s = _shape_invariant(var.values, shape)
        out = [s, tensor_shape.TensorShape([s[0] if s.ndims else None])]
        return out + ([tensor_shape.TensorShape([s.ndims])] if var.dense_shape is not None
                      else [])
    if isinstance(var, SparseTensor):
        s = _shape_invariant(var.dense_shape, shape)
        rank = s[0].value if s.ndims else None
        return [tensor_shape.TensorShape([None, rank]), tensor_shape.TensorShape([None]), s]
    return [_shape_invariant(var, shape)]


def build_loop(ctx, pred, body, loop_vars, shape_invariants, return_same_structure=False):
    """Adds the loop of `ctx` to the graph (TF's WhileContext.BuildLoop).

    SparseTensors and IndexedSlices are looped over component by component."""
    original_loop_vars = loop_vars
    flat_orig = nest.flatten(loop_vars, expand_composites=True)
    flat_vars = [convert_to_tensor(_to_flow(v)) for v in flat_orig]
    leaves = nest.flatten(loop_vars)
    if shape_invariants is None:
        invariants = [None] * len(leaves)
    else:
        invariants = nest.flatten(shape_invariants)
        if len(invariants) != len(leaves):
            raise ValueError("The shape invariants must have the structure of the loop "
                             "variables.")
    flat_shapes = []
    for v, inv in zip(leaves, invariants):
        if not nest._is_composite(v):
            v = flat_vars[len(flat_shapes)]  # the loop variable, converted
        flat_shapes.extend(_component_shapes(v, inv))
    try:
        ctx.Enter()
        original_body_result, exit_vars = _build_loop(
            ctx, pred, body, original_loop_vars, flat_orig, flat_vars, flat_shapes)
    finally:
        ctx.Exit()
    flat_result = nest.flatten(original_body_result, expand_composites=True)
    exit_with_ta = [_from_flow(o, e) for o, e in zip(flat_result, exit_vars)]
    packed = nest.pack_sequence_as(original_body_result, exit_with_ta, expand_composites=True)
    if return_same_structure:
        return packed
    return packed[0] if len(exit_vars) == 1 else packed


def _build_loop(ctx, pred, body, original_loop_vars, flat_orig, loop_vars, shapes):
    ctx._values = set(x.name for x in loop_vars)
    real_vars = loop_vars
    if ctx._outer_context is not None:
        real_vars = [ctx._outer_context.AddValue(x) for x in loop_vars]
    with control_dependencies(None):
        enter_vars = [control_flow_ops._enter(x, ctx._name, is_constant=False,
                                              parallel_iterations=ctx._parallel_iterations,
                                              use_input_shape=False) for x in real_vars]
        for x in enter_vars:
            x.graph.prevent_feeding(x)
            if ctx._outer_context is not None:
                ctx._outer_context.AddInnerOp(x._op)
    # Loop variables that are outer loop constants must not run before the outer iteration.
    outer = ctx._outer_context
    control_pivot = None
    while outer is not None and control_pivot is None:
        control_pivot = outer.GetControlPivot()
        outer = outer._outer_context
    if control_pivot is not None:
        from flowloom.ops.control_flow.control_flow_context import is_loop_constant_enter

        for var in enter_vars:
            if is_loop_constant_enter(var._op._inputs[0]._op):
                var._op._add_control_input(control_pivot._op)
    for inp, enter, shape in zip(real_vars, enter_vars, shapes):
        enter._shape = shape
    ctx._FixControlInputsAndContext(enter_vars)
    ctx._values = set(x.name for x in enter_vars)
    ctx._loop_enters = list(enter_vars)

    merge_vars = [control_flow_ops.merge([x, x])[0] for x in enter_vars]
    for m, shape in zip(merge_vars, shapes):
        m._shape = shape
    ctx._pivot_for_pred = merge_vars[0]
    packed_vars = nest.pack_sequence_as(
        original_loop_vars, [_from_flow(o, m) for o, m in zip(flat_orig, merge_vars)],
        expand_composites=True)
    c = convert_to_tensor(pred(*packed_vars))
    ctx._pivot = control_flow_ops.loop_cond(c, name="LoopCond")
    switch_vars = [_switch_ref_or_tensor(x, ctx._pivot) for x in merge_vars]

    from flowloom.ops.control_flow.control_flow_primitives import _Identity

    vars_for_body = [_Identity(x[1]) for x in switch_vars]  # a reference stays one
    ctx._pivot_for_body = vars_for_body[0]
    packed_body_vars = nest.pack_sequence_as(
        original_loop_vars, [_from_flow(o, v) for o, v in zip(flat_orig, vars_for_body)],
        expand_composites=True)
    body_result = body(*packed_body_vars)
    if not nest.is_nested(body_result):
        body_result = [body_result]
    # The first layer is compared as a list: inputs are usually lists, outputs tuples.
    nest.assert_same_structure(list(packed_body_vars), list(body_result))
    original_body_result = body_result
    body_result = nest.map_structure(_as_loop_var, body_result)
    result = [convert_to_tensor(_to_flow(v))
              for v in nest.flatten(body_result, expand_composites=True)]
    if len(merge_vars) != len(result):
        raise ValueError(
            "Number of inputs and outputs of 'body' must match 'loop_vars'. Got "
            f"{len(merge_vars)} for the number of inputs/outputs, and {len(result)} for "
            "'loop_vars'.")
    for m, v in zip(merge_vars, result):
        _add_next_and_back_edge(m, v)
    exit_vars = [control_flow_ops.exit(x[0]) for x in switch_vars]
    ctx._loop_exits = exit_vars
    ctx.ExitResult(exit_vars)
    return original_body_result, exit_vars


def _add_next_and_back_edge(m, v, enforce_shape_invariant=True):
    """Adds NextIteration(v) as the second input of the loop Merge `m`."""
    v = convert_to_tensor(v)
    # A dtype change is reported when the graph runs (the Merge's inputs differ), as in TF.
    v = control_flow_ops._next_iteration(v)
    if enforce_shape_invariant:
        _enforce_shape_invariant(m, v)
    m._op._update_input(1, v)
    return v


def _enforce_shape_invariant(merge_var, next_var):
    m_shape = merge_var.shape
    n_shape = next_var.shape
    if not _shape_less_than_or_equal(n_shape, m_shape):
        enter = merge_var._op._inputs[0]._op
        input_t = enter._inputs[0]
        raise ValueError(
            f"Input tensor '{input_t.name}' enters the loop with shape {m_shape}, but has "
            f"shape {n_shape} after one iteration. To allow the shape to vary across "
            "iterations, use the `shape_invariants` argument of tf.while_loop to specify a "
            "less-specific shape.")


def _shape_less_than_or_equal(shape1, shape2):
    if shape2.dims is None:
        return True
    if shape1.ndims != shape2.ndims:
        return False
    for d1, d2 in zip(shape1.dims, shape2.dims):
        if d2.value is not None and d1.value != d2.value:
            return False
    return True
