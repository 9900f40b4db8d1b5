"""The state of one `tf.gradients` call through while loops (TF1's control_flow_state).

For every forward loop between xs and ys, a `GradLoopState` adds:
- a counter to the forward loop (how many iterations ran),
- a backward WhileContext that runs that many iterations, and
- for each forward value the backward loop needs, a stack: the forward loop pushes the value
  every iteration, the backward loop pops it (in reverse order). Pushes are ordered by
  control edges through the forward counter, pops through a ControlTrigger (`b_sync`), so
  that parallel iterations keep the stack order.
`ControlFlowState` maps forward loops to their states and is what the gradient builder uses.
"""

from flowloom.framework.graph import colocate_with, control_dependencies, get_default_graph
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.control_flow import stack_ops
from flowloom.ops.control_flow.control_flow_context import (CondContext, WhileContext, get_output_context,
                                               get_while_context, is_loop_constant_enter,
                                               is_loop_exit, is_loop_switch, is_switch,
                                               _switch_ref_or_tensor)


def _loop_constant_enter(value):
    """The loop-invariant Enter that `value` comes from (through Switch/Identity), or None."""
    op = value._op
    while op._type in ("Switch", "RefSwitch", "Identity", "RefIdentity"):
        op = op._inputs[0]._op
    return op if is_loop_constant_enter(op) else None


class GradLoopState:
    """The forward and backward WhileContexts of one loop, and what joins them."""

    def __init__(self, forward_ctxt, outer_grad_state):
        self._outer_grad_state = outer_grad_state
        self._forward_sync = None
        self._grad_sync = None
        self._history_map = {}
        self._switch_map = {}
        self._unused_exits = []
        self._deferred_exits = []
        self._forward_loop_exits = list(forward_ctxt.loop_exits)
        self._pending_exits_count = len(forward_ctxt.loop_exits)
        if outer_grad_state is not None:
            outer_forward_ctxt = outer_grad_state.forward_context
        else:
            outer_forward_ctxt = forward_ctxt.outer_context
        with forward_ctxt._graph.as_default():
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Enter()
            cnt, forward_index = forward_ctxt.AddForwardLoopCounter(outer_grad_state)
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Exit()
        self._forward_context = forward_ctxt
        self._forward_index = forward_index
        kwargs = dict(maximum_iterations=forward_ctxt.maximum_iterations,
                      parallel_iterations=forward_ctxt.parallel_iterations,
                      back_prop=forward_ctxt.back_prop, swap_memory=forward_ctxt.swap_memory,
                      name=forward_ctxt.name, grad_state=self)
        if outer_grad_state is not None:
            # A nested loop: remember the iteration count of each of its runs.
            outer_forward_ctxt.AddName(cnt.name)
            history_cnt = outer_grad_state.AddForwardAccumulator(cnt)
            outer_grad_ctxt = outer_grad_state.grad_context
            outer_grad_ctxt.Enter()
            self._grad_context = WhileContext(**kwargs)
            real_cnt = outer_grad_state.AddBackpropAccumulatedValue(history_cnt, cnt)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(
                real_cnt, outer_grad_state)
            outer_grad_ctxt.Exit()
        else:
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Enter()
            self._grad_context = WhileContext(**kwargs)
            self._grad_index = self._grad_context.AddBackpropLoopCounter(cnt, outer_grad_state)
            if outer_forward_ctxt is not None:
                outer_forward_ctxt.Exit()

    outer_grad_state = property(lambda self: self._outer_grad_state)
    forward_context = property(lambda self: self._forward_context)
    forward_index = property(lambda self: self._forward_index)
    grad_context = property(lambda self: self._grad_context)
    grad_index = property(lambda self: self._grad_index)
    history_map = property(lambda self: self._history_map)
    switch_map = property(lambda self: self._switch_map)
    unused_exits = property(lambda self: self._unused_exits)
    deferred_exits = property(lambda self: self._deferred_exits)
    forward_loop_exits = property(lambda self: self._forward_loop_exits)

    @property
    def pending_exits_count(self):
        return self._pending_exits_count

    @pending_exits_count.setter
    def pending_exits_count(self, cnt):
        self._pending_exits_count = cnt

    @property
    def forward_sync(self):
        """A ControlTrigger ordering the forward pushes inside conds before the next
        iteration."""
        if self._forward_sync is None:
            with control_dependencies(None):
                self._forward_sync = control_flow_ops.control_trigger(name="f_sync")
            self._forward_sync._set_control_flow_context(self._forward_context)
            self._forward_index._op._add_control_input(self._forward_sync)
        return self._forward_sync

    @property
    def grad_sync(self):
        """A ControlTrigger ordering the backward pops before the next iteration."""
        if self._grad_sync is None:
            with control_dependencies(None):
                self._grad_sync = control_flow_ops.control_trigger(name="b_sync")
            self._grad_sync._set_control_flow_context(self._grad_context)
            self._grad_index._op._add_control_input(self._grad_sync)
            if self._grad_context.outer_context is not None:
                self._grad_context.outer_context.AddInnerOp(self._grad_sync)
        return self._grad_sync

    def AddForwardAccumulator(self, value, dead_branch=False):
        """Pushes `value` on a new stack every forward iteration; returns the stack."""
        graph = self._forward_index.graph
        with graph.as_default():
            curr_ctxt = graph._get_control_flow_context()
            with control_dependencies(None):
                if curr_ctxt is not None:
                    curr_ctxt.Enter()
                with colocate_with(value):
                    max_size = array_ops.constant(-1, "int32")
                    acc = stack_ops.stack_v2(max_size, value.dtype.base_dtype, name="f_acc")
                if curr_ctxt is not None:
                    curr_ctxt.Exit()
                enter_acc = self.forward_context.AddValue(acc)
                swap = self.forward_context.swap_memory
                value_ctxt = get_output_context(value._op)
                if value_ctxt is self.forward_context:
                    self.forward_context.Enter()
                    push = stack_ops.stack_push_v2(enter_acc, value, swap_memory=swap)
                    self.forward_context.Exit()
                    # The push runs before the counter moves to the next iteration.
                    self.forward_index._op._add_control_input(push._op)
                else:
                    if not isinstance(value_ctxt, CondContext):
                        raise TypeError(f"value_ctxt is not a CondContext: {value_ctxt}")
                    if dead_branch:
                        value_ctxt.outer_context.Enter()
                        push = stack_ops.stack_push_v2(enter_acc, value, swap_memory=swap)
                        value_ctxt.outer_context.Exit()
                        push._op._set_control_flow_context(value_ctxt)
                    else:
                        value_ctxt.Enter()
                        push = stack_ops.stack_push_v2(enter_acc, value, swap_memory=swap)
                        value_ctxt.Exit()
                    self.forward_sync._add_control_input(push._op)
                # ...and after this iteration's counter increment.
                add_op = self.forward_index._op._inputs[0]._op
                push._op._add_control_input(add_op)
                return acc

    def AddBackpropAccumulatedValue(self, history_value, value, dead_branch=False):
        """Pops `value`'s history in the backward loop (guarded by the pred of the cond that
        computed it, if any); returns the popped tensor."""
        history_ctxt = history_value._op._control_flow_context
        cond_ctxt = None
        value_ctxt = value._op._control_flow_context
        while value_ctxt is not None and value_ctxt is not history_ctxt:
            if isinstance(value_ctxt, CondContext):
                cond_ctxt = value_ctxt
                break
            value_ctxt = value_ctxt.outer_context
        with control_dependencies(None):
            self.grad_context.Enter()
            if cond_ctxt is not None:
                grad_state = self
                pred = None
                while pred is None and grad_state is not None:
                    pred = grad_state.history_map.get(cond_ctxt.pred.name)
                    grad_state = grad_state.outer_grad_state
                if pred is None:
                    pred = cond_ctxt.pred
                branch = (1 - cond_ctxt.branch) if dead_branch else cond_ctxt.branch
                history_value = _switch_ref_or_tensor(history_value, pred)[branch]
            pop = stack_ops.stack_pop_v2(history_value, value.dtype.base_dtype)
            pop.set_shape(value.shape)
            self.grad_context.Exit()
        if self.grad_context.parallel_iterations > 1:
            self.grad_sync._add_control_input(pop._op)
        return pop

    def GetRealValue(self, value):
        """The backward loop's view of forward value `value` (popped from its history)."""
        real_value = self._history_map.get(value.name)
        if real_value is None:
            cur_value = value
            cur_grad_state = self
            history_value = None
            while True:
                enter_op = _loop_constant_enter(cur_value)
                if enter_op is not None:
                    cur_value = enter_op._inputs[0]
                    cur_grad_state = cur_grad_state.outer_grad_state
                    if cur_grad_state is None:
                        # Outside all the loops of this gradient: a plain loop invariant.
                        real_value = self._grad_context.AddValue(cur_value)
                        break
                elif cur_value._op._type == "Const":
                    real_value = array_ops.constant(
                        cur_value._op._attrs["value"], dtype=cur_value.dtype)
                    break
                else:
                    self._grad_context.Exit()
                    history_value = cur_grad_state.AddForwardAccumulator(cur_value)
                    self._grad_context.Enter()
                    break
            if real_value is None:
                real_value = cur_grad_state.AddBackpropAccumulatedValue(history_value, cur_value)
                if cur_grad_state is not self:
                    real_value = self._grad_context.AddValue(real_value)
            self._history_map[value.name] = real_value
        return real_value


class ControlFlowState:
    """Maps each forward loop of one gradients() call to its GradLoopState."""

    def __init__(self):
        self._map = {}

    def GetGradState(self, op, before):
        if before and is_loop_exit(op):
            forward_ctxt = op._control_flow_context.outer_context
            if forward_ctxt is not None:
                forward_ctxt = forward_ctxt.GetWhileContext()
        else:
            forward_ctxt = get_while_context(op)
        if forward_ctxt is not None:
            return self._map.get(forward_ctxt)
        return None

    def ProcessUnusedLoopExits(self, pending_count, to_ops_set):
        """The exits that no y depends on, once all a loop's exits are known to be unused;
        they get zero gradients if another exit of their loop has a real one."""
        loop_exits = []
        for grad_state in self._map.values():
            for y in grad_state.forward_loop_exits:
                if pending_count[y._op] == 0:
                    grad_state.pending_exits_count -= 1
                    if y._op not in to_ops_set:
                        grad_state.unused_exits.append(y)
                    if grad_state.pending_exits_count == 0:
                        loop_exits.extend(grad_state.unused_exits)
            for y in grad_state.forward_context.loop_enters:
                if pending_count[y._op] == 0:
                    pending_count[y._op] = 1
        return loop_exits

    def EnterGradWhileContext(self, op, before):
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Enter()

    def ExitGradWhileContext(self, op, before):
        grad_state = self.GetGradState(op, before)
        if grad_state is not None:
            grad_state.grad_context.Exit()

    def AddWhileContext(self, op, between_op_list, between_ops):
        """Adds the grad state of the loop of Exit `op` (and all its exits to between)."""
        forward_ctxt = get_while_context(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            outer_forward_ctxt = forward_ctxt.outer_context
            if outer_forward_ctxt is not None:
                outer_forward_ctxt = outer_forward_ctxt.GetWhileContext()
            outer_grad_state = None
            if outer_forward_ctxt is not None:
                outer_grad_state = self._map.get(outer_forward_ctxt)
            grad_state = GradLoopState(forward_ctxt, outer_grad_state)
            self._map[forward_ctxt] = grad_state
            for loop_exit in grad_state.forward_loop_exits:
                if loop_exit._op not in between_ops:
                    between_ops.add(loop_exit._op)
                    between_op_list.append(loop_exit._op)

    def ZerosLikeForExit(self, val):
        """A zero gradient for an unused loop Exit."""
        val_shape = val.shape
        forward_ctxt = val._op._control_flow_context
        outer_forward_ctxt = forward_ctxt.outer_context
        if outer_forward_ctxt is not None:
            outer_forward_ctxt = outer_forward_ctxt.GetWhileContext()
        outer_grad_state = None
        if outer_forward_ctxt is not None:
            outer_grad_state = self._map.get(outer_forward_ctxt)
        if outer_grad_state is not None:
            if val_shape.is_fully_defined():
                outer_grad_state.grad_context.Enter()
                result = array_ops.zeros(val_shape.as_list(), val.dtype)
                outer_grad_state.grad_context.Exit()
            else:
                forward_ctxt.outer_context.Enter()
                shape = array_ops.shape(val, optimize=False)
                forward_ctxt.outer_context.Exit()
                history_shape = outer_grad_state.AddForwardAccumulator(shape)
                outer_grad_ctxt = outer_grad_state.grad_context
                outer_grad_ctxt.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history_shape, shape)
                result = array_ops.zeros(real_shape, val.dtype)
                outer_grad_ctxt.Exit()
        elif val_shape.is_fully_defined():
            result = array_ops.zeros(val_shape.as_list(), val.dtype)
        else:
            result = array_ops.zeros_like(val, optimize=False)
        return result

    def ZerosLike(self, op, index):
        """A zero gradient for output `index` of `op`, built in the backward loop."""
        if is_loop_switch(op):
            return None
        dead_branch = is_switch(op)
        forward_ctxt = get_while_context(op)
        grad_state = self._map.get(forward_ctxt)
        if grad_state is None:
            return zeros_like_outside_loop(op, index)
        op_ctxt = op._control_flow_context
        val = convert_to_tensor(op._outputs[index], name="tensor")
        shape = val.shape
        if shape.is_fully_defined():
            result = array_ops.constant(0, shape=shape.as_list(), dtype=val.dtype)
            if dead_branch:
                pred = grad_state.history_map.get(op_ctxt.pred.name)
                branch = op_ctxt.branch
                result = _switch_ref_or_tensor(result, pred)[1 - branch]
        else:
            if dead_branch:
                pred = op_ctxt.pred
                branch = op_ctxt.branch
                op_ctxt.outer_context.Enter()
                val = _switch_ref_or_tensor(op._inputs[0], pred)[1 - branch]
                zeros_shape = array_ops.shape(val, optimize=False)
                op_ctxt.outer_context.Exit()
                val._op._set_control_flow_context(op_ctxt)
                zeros_shape._op._set_control_flow_context(op_ctxt)
            else:
                op_ctxt.Enter()
                zeros_shape = array_ops.shape(val, optimize=False)
                op_ctxt.Exit()
            grad_state.grad_context.Exit()
            history = grad_state.AddForwardAccumulator(zeros_shape, dead_branch=dead_branch)
            grad_state.grad_context.Enter()
            shape = grad_state.AddBackpropAccumulatedValue(history, zeros_shape, dead_branch)
            result = array_ops.zeros(shape, val.dtype)
        return result

    def PostProcessing(self):
        """Loop variables whose next value does not depend on their current one get zero
        gradients for iterations after the first."""
        for grad_state in self._map.values():
            for b_merge in grad_state.switch_map.values():
                if b_merge._op._inputs[0] is b_merge._op._inputs[1]:
                    dtype = b_merge._op._inputs[0].dtype
                    shape = b_merge._op._inputs[0].shape
                    if shape.is_fully_defined():
                        grad_state.grad_context.Enter()
                        grad_val = array_ops.constant(0, dtype=dtype, shape=shape.as_list())
                        next_grad_val = control_flow_ops._next_iteration(grad_val)
                        grad_state.grad_context.Exit()
                    else:
                        outer_grad_ctxt = grad_state.grad_context.outer_context
                        if outer_grad_ctxt is not None:
                            outer_grad_ctxt.Enter()
                        enter_grad = b_merge._op._inputs[0]._op._inputs[0]
                        grad_shape = array_ops.shape(enter_grad, optimize=False)
                        grad_val = array_ops.zeros(grad_shape, dtype)
                        if outer_grad_ctxt is not None:
                            outer_grad_ctxt.Exit()
                        grad_state.grad_context.Enter()
                        next_grad_val = control_flow_ops._next_iteration(grad_val)
                        grad_state.grad_context.Exit()
                    b_merge._op._update_input(1, next_grad_val)


def maybe_create_control_flow_state(between_op_list, between_ops, colocate):
    """A ControlFlowState if any op between xs and ys is a loop Exit, else None (may add
    loop exits to `between_op_list`/`between_ops`)."""
    loop_state = None
    for op in list(between_op_list):
        if is_loop_exit(op):
            if loop_state is None:
                loop_state = ControlFlowState()
            if colocate:
                with get_default_graph().colocate_with(op):
                    loop_state.AddWhileContext(op, between_op_list, between_ops)
            else:
                loop_state.AddWhileContext(op, between_op_list, between_ops)
    return loop_state


def zeros_like_outside_loop(op, index):
    """A zero gradient for `op.outputs[index]`; for a cond Switch, built behind a Switch so
    that it exists only when the other branch runs."""
    val = op._outputs[index]
    if not is_switch(op):
        if val.dtype.base_dtype.name == "resource":
            return _resource_zeros(val)
        return array_ops.zeros_like(val, optimize=False)
    op_ctxt = op._control_flow_context
    if op_ctxt is None or not isinstance(op_ctxt, CondContext):
        return array_ops.zeros_like(val, optimize=False)
    pred = op_ctxt.pred
    branch = op_ctxt.branch
    switch_val = control_flow_ops.switch(op._inputs[0], pred)[1 - branch]
    pivot = array_ops.identity(switch_val)
    if val.dtype.base_dtype.name == "resource":
        with control_dependencies([pivot]):
            return _resource_zeros(switch_val)
    zeros_shape = array_ops.shape(switch_val, optimize=False)
    with control_dependencies([pivot]):
        return array_ops.zeros(zeros_shape, dtype=val.dtype)


def _resource_zeros(handle):
    """The zero gradient of a resource variable's handle: zeros of its value's shape and
    dtype (as TF's ZerosLikeOutsideLoop builds it)."""
    from flowloom.ops.state.resource_variable_ops import variable_shape

    source = handle
    while "dtype" not in source._op._attrs and source._op._inputs:
        source = source._op._inputs[0]  # through Switch/Identity/Enter to the VarHandleOp
    dtype = source._op._attrs.get("dtype", "float32")
    return array_ops.zeros(variable_shape(handle), dtype=dtype)
