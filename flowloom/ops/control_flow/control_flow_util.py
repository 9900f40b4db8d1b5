"""TF1's control-flow helpers under TF's names (`tensorflow.python.ops.control_flow_util`).

flowloom builds TF1's dataflow control flow (Switch/Merge/Enter/Exit), never control flow
v2 (functional If/While ops for tf.cond/tf.while_loop), so `ENABLE_CONTROL_FLOW_V2` is False.
"""

from flowloom.ops.control_flow import control_flow_context as _cfc

ENABLE_CONTROL_FLOW_V2 = False


def EnableControlFlowV2(graph):  # noqa: N802 - TF's name
    """False: flowloom builds TF1 control flow in every graph."""
    del graph
    return False


def IsInXLAContext(op):  # noqa: N802 - TF's name
    """False: flowloom has no XLA contexts."""
    del op
    return False


IsSwitch = _cfc.is_switch
IsMerge = _cfc.is_merge
IsLoopEnter = _cfc.is_loop_enter
IsLoopExit = _cfc.is_loop_exit
IsLoopConstantEnter = _cfc.is_loop_constant_enter
IsLoopSwitch = _cfc.is_loop_switch
IsCondSwitch = _cfc.is_cond_switch
GetWhileContext = _cfc.get_while_context
GetOutputContext = _cfc.get_output_context
IsInWhileLoop = _cfc.is_in_while_loop
GetContainingWhileContext = _cfc.get_containing_while_context
IsInCond = _cfc.is_in_cond


def IsContainingContext(ctxt, maybe_containing_ctxt):  # noqa: N802 - TF's name
    """True if `maybe_containing_ctxt` is `ctxt` or one of the contexts around it."""
    while ctxt is not maybe_containing_ctxt:
        if ctxt is None:
            return False
        ctxt = ctxt.outer_context
    return True


def _valid_input_context(op, op_ctxt, input_op):
    input_ctxt = GetOutputContext(input_op)
    if input_ctxt is None or op_ctxt is input_ctxt:
        return True, None
    while_ctxt = GetContainingWhileContext(op_ctxt)
    input_while = GetContainingWhileContext(input_ctxt)
    if while_ctxt is None:
        # Conds alone may mix (the branch must be taken at run time); a loop's Enter and a
        # cond's Switch are built with the context cleared.
        return input_while is None or IsLoopEnter(op) or IsSwitch(op), while_ctxt
    if IsContainingContext(while_ctxt, input_while):
        return True, while_ctxt
    grad = while_ctxt.grad_state
    if grad is not None and (IsContainingContext(grad.forward_context, input_while) or
                             grad.forward_context is input_while._outer_context):
        return True, while_ctxt  # a gradient loop reads its forward loop's values
    in_grad = input_while.grad_state
    if in_grad is not None and (
            in_grad.forward_context is while_ctxt or
            (in_grad.forward_context.grad_state is not None and
             in_grad.forward_context.grad_state.forward_context is while_ctxt)):
        return True, while_ctxt  # the gradient of a loop's gradient
    return False, while_ctxt


def CheckInputFromValidContext(op, input_op, op_ctxt=None):  # noqa: N802 - TF's name
    """Raises ValueError if `op` may not read an output of `input_op`: a value of a while
    loop used outside it or in another loop (TF's rule, checked as each op is built).

    Raises:
      ValueError: naming both ops.
    """
    op_ctxt = op._control_flow_context if op_ctxt is None else op_ctxt
    valid, while_ctxt = _valid_input_context(op, op_ctxt, input_op)
    if valid:
        return
    if while_ctxt is not None:
        msg = (f"Cannot use '{input_op.name}' as input to '{op.name}' because they are in "
               "different while loops.")
    else:
        msg = (f"Cannot use '{input_op.name}' as input to '{op.name}' because "
               f"'{input_op.name}' is in a while loop.")
    raise ValueError(msg + " See info log for more details.")


def _check_new_op(op, op_ctxt):
    """The graph's check of an op's inputs as it is created (registered below); an op that
    import_graph_def creates is checked when it joins the enclosing context."""
    if creating_imported_ops():
        return
    for t in op._inputs:
        if t._op._control_flow_context is not None:
            CheckInputFromValidContext(op, t._op, op_ctxt)


from flowloom.framework import graph as _graph  # noqa: E402
from flowloom.framework.importer import creating_imported_ops  # noqa: E402

if _check_new_op not in _graph._input_context_checks:
    _graph._input_context_checks.append(_check_new_op)
