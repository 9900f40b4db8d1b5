"""Gradients of the control-flow primitives (TF1's control_flow_grad).

- cond: a branch Switch's gradient is a Merge of its two output gradients (one is a zero
  built behind a Switch, so exactly one is live); a cond Merge's gradient is a Switch on the
  branch predicate.
- while_loop: the gradient of an Exit enters the backward loop (`b_exit`); of a loop Switch,
  a Merge (`b_switch`) whose back edge is added when the Switch is reached the second time
  (from the body); of a loop Merge, a Switch on the backward loop's predicate; of a
  NextIteration, the gradient itself; of an Enter, an Exit of the backward loop, or for a
  loop invariant the sum of its gradients over the iterations (`b_acc`).
"""

from flowloom.framework.graph import get_default_graph
from flowloom.framework.indexed_slices import is_indexed_slices
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.op_def import get as get_opdef
from flowloom.framework.op_def import NotDifferentiable
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import math_ops
from flowloom.ops.control_flow.control_flow_context import (CondContext, WhileContext, get_output_context,
                                               _switch_ref_or_tensor)
from flowloom.ops.control_flow.while_loop import _add_next_and_back_edge


def _switch_grad(op, *grad):
    graph = get_default_graph()
    op_ctxt = op._control_flow_context
    grad_ctxt = graph._get_control_flow_context()
    if isinstance(op_ctxt, WhileContext):
        merge_grad = grad_ctxt.grad_state.switch_map.get(op)
        if merge_grad is not None:
            # Second visit, from the body: the back edge of the gradient Merge.
            if grad[1] is not None:
                _add_next_and_back_edge(merge_grad, grad[1], enforce_shape_invariant=False)
            return None, None
        if grad[0] is not None:
            # First visit, from the Exit: use grad[0] for both Merge inputs until the back
            # edge is known.
            merge_grad = control_flow_ops.merge([grad[0], grad[0]], name="b_switch")[0]
            grad_ctxt.grad_state.switch_map[op] = merge_grad
            return merge_grad, None
        return None, None
    if isinstance(op_ctxt, CondContext):
        zero_grad = grad[1 - op_ctxt.branch]
        if zero_grad is None:
            return None, None
        return control_flow_ops.merge(list(grad), name="cond_grad")[0], None
    false_grad = control_flow_ops.switch(grad[0], op._inputs[1])[0]
    true_grad = control_flow_ops.switch(grad[1], op._inputs[1])[1]
    return control_flow_ops.merge([false_grad, true_grad])[0], None


def _merge_grad(op, grad, _):
    input_op = op._inputs[0]._op
    graph = get_default_graph()
    op_ctxt = get_output_context(input_op)
    grad_ctxt = graph._get_control_flow_context()
    if isinstance(op_ctxt, WhileContext):
        return _switch_ref_or_tensor(grad, grad_ctxt.pivot)
    if isinstance(op_ctxt, CondContext):
        pred = op_ctxt.pred
        if grad_ctxt is not None and grad_ctxt.grad_state is not None:
            # A cond inside a loop: the backward loop needs pred's value of each iteration.
            grad_state = grad_ctxt.grad_state
            real_pred = grad_state.history_map.get(pred.name)
            if real_pred is None:
                grad_ctxt = grad_state.grad_context
                grad_ctxt.Exit()
                history_pred = grad_state.AddForwardAccumulator(pred)
                grad_ctxt.Enter()
                real_pred = grad_state.AddBackpropAccumulatedValue(history_pred, pred)
                grad_state.history_map[pred.name] = real_pred
            pred = real_pred
        return _switch_ref_or_tensor(grad, pred, name="cond_grad")
    num_inputs = len(op._inputs)
    conds = [math_ops.equal(op._outputs[1], i) for i in range(num_inputs)]
    return [_switch_ref_or_tensor(grad, conds[i])[1] for i in range(num_inputs)]


def _exit_grad(op, grad):
    graph = get_default_graph()
    op_ctxt = op._control_flow_context
    grad_ctxt = graph._get_control_flow_context()
    if not grad_ctxt.back_prop:
        return None
    if op_ctxt.grad_state is not None:
        raise TypeError("Second-order gradient for while loops not supported.")
    if is_indexed_slices(grad):
        # Gradient loops carry dense gradients (TF keeps IndexedSlices; the values agree).
        grad = convert_to_tensor(grad)
    grad_ctxt.AddName(grad.name)
    grad_ctxt.Enter()
    result = control_flow_ops._enter(grad, grad_ctxt.name, is_constant=False,
                                     parallel_iterations=grad_ctxt.parallel_iterations,
                                     name="b_exit")
    grad_ctxt.loop_enters.append(result)
    grad_ctxt.Exit()
    return result


def _next_iteration_grad(op, grad):
    return grad


def _enter_grad(op, grad):
    graph = get_default_graph()
    grad_ctxt = graph._get_control_flow_context()
    if grad_ctxt is None or not grad_ctxt.back_prop or grad_ctxt.grad_state is None:
        return grad
    if op._attrs.get("is_constant"):
        if is_indexed_slices(grad):
            return grad_ctxt.AddBackpropIndexedSlicesAccumulator(op, grad)
        return grad_ctxt.AddBackpropAccumulator(op, grad)
    result = control_flow_ops.exit(grad)
    grad_ctxt.loop_exits.append(result)
    grad_ctxt.ExitResult([result])
    return result


for _t, _fn in (("Switch", _switch_grad), ("RefSwitch", _switch_grad),
                ("Merge", _merge_grad), ("RefMerge", _merge_grad),
                ("Exit", _exit_grad), ("RefExit", _exit_grad),
                ("NextIteration", _next_iteration_grad),
                ("RefNextIteration", _next_iteration_grad),
                ("Enter", _enter_grad), ("RefEnter", _enter_grad)):
    get_opdef(_t).gradient(_fn)
NotDifferentiable("LoopCond")
