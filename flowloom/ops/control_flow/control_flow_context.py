"""Control-flow contexts: how ops created inside `cond` branches and `while_loop` bodies are
wired into the dataflow primitives.

While a context is the graph's current one, every new op passes through `AddOp`:
- in a `CondContext`, each input from outside the branch is routed through a Switch on the
  branch predicate (created once per outside tensor, named `<op>/Switch`), and an op without
  inputs gets a control edge from the branch pivot (`cond/switch_t`), so that nothing in an
  untaken branch runs;
- in a `WhileContext`, each input from outside the loop enters the frame through a loop
  invariant Enter (`<op>/Enter`, is_constant=True), an op without inputs (or with only loop
  invariants) gets a control edge from the loop's pivot, and control inputs from outside the
  loop are pulled in as data through an Identity.
These follow TF1's `control_flow_ops.py`, so graphs and op names match TF's.
"""

from flowloom.framework import nest
from flowloom.framework.graph import get_default_graph


def is_switch(op):
    return op._type in ("Switch", "RefSwitch")


def is_merge(op):
    return op._type in ("Merge", "RefMerge")


def is_loop_enter(op):
    return op._type in ("Enter", "RefEnter")


def is_loop_exit(op):
    return op._type in ("Exit", "RefExit")


def is_next_iteration(op):
    return op._type in ("NextIteration", "RefNextIteration")


def is_loop_constant_enter(op):
    return is_loop_enter(op) and bool(op._attrs.get("is_constant"))


def is_loop_switch(op):
    """A Switch built by while_loop (its context is a WhileContext)."""
    if is_switch(op):
        ctxt = op._control_flow_context
        return ctxt is not None and ctxt.IsWhileContext() and not is_cond_switch(op)
    return False


def is_cond_switch(op):
    """A Switch that feeds a cond branch (its consumers live in a CondContext)."""
    if not is_switch(op) or not op._outputs:
        return False
    is_cond = None
    for t in op._outputs:
        for c in t._consumers:
            ctxt = c._control_flow_context
            if is_loop_enter(c):
                ctxt = ctxt.outer_context if ctxt is not None else None
            is_cond = ctxt is not None and ctxt.IsCondContext()
    return bool(is_cond)


def get_while_context(op):
    ctxt = op._control_flow_context
    return ctxt.GetWhileContext() if ctxt is not None else None


def get_output_context(op):
    """The context where `op`'s outputs live (an Exit's outputs are in the outer context)."""
    ctxt = op._control_flow_context
    if ctxt is not None and is_loop_exit(op):
        ctxt = ctxt.outer_context
    return ctxt


def is_in_while_loop(op):
    return get_while_context(op) is not None


def get_containing_while_context(ctxt, stop_ctxt=None):
    """The innermost WhileContext containing context `ctxt` (itself included), stopping at
    `stop_ctxt`; None if there is none (TF's control_flow_util.GetContainingWhileContext).
    RNN code uses it to decide whether variables' reads may be cached outside a loop."""
    while ctxt is not None:
        if ctxt.IsWhileContext() or ctxt is stop_ctxt:
            return ctxt
        ctxt = ctxt.outer_context
    return None


def is_in_cond(op):
    ctxt = op._control_flow_context
    return ctxt is not None and ctxt.IsCondContext()


def _switch_ref_or_tensor(data, pred, name="Switch"):
    from flowloom.ops.control_flow import control_flow_ops

    anchor = data.values if hasattr(data, "values") and hasattr(data, "indices") else data
    with anchor.graph.colocate_with(anchor._op, ignore_existing=True):
        return control_flow_ops.switch(data, pred, name=name)


class ControlFlowContext:
    """The base of CondContext and WhileContext."""

    def to_proto(self, export_scope=None):
        """This context as a CondContextDef or WhileContextDef (control_flow_context_io)."""
        from flowloom.ops.control_flow import control_flow_context_io

        return control_flow_context_io.to_proto(self, export_scope)

    @classmethod
    def from_proto(cls, context_def, import_scope=None):
        """The context a CondContextDef/WhileContextDef describes, in the default graph."""
        from flowloom.ops.control_flow import control_flow_context_io as io

        make = io.cond_from_proto if cls is CondContext else io.while_from_proto
        return make(context_def, import_scope)

    def __init__(self, values_def=None, import_scope=None):
        self._outer_context = get_default_graph()._get_control_flow_context()
        self._context_stack = []
        self._nested_contexts = []
        if self._outer_context is not None:
            self._outer_context._nested_contexts.append(self)
        if values_def:
            self._init_values_from_proto(values_def, import_scope)
        else:
            self._values = set()
            self._external_values = {}

    def _init_values_from_proto(self, values_def, import_scope=None):
        """Takes the values and external values of a `ValuesDef` (names prefixed with
        `import_scope`); the ops whose outputs the context holds join it."""
        from flowloom.ops.control_flow import control_flow_context_io

        control_flow_context_io.init_values(self, values_def, import_scope)

    def _to_values_def(self, export_scope=None):
        """This context's values as a `ValuesDef` (names without `export_scope`)."""
        from flowloom.ops.control_flow import control_flow_context_io

        return control_flow_context_io.values_def(self, export_scope)

    def to_control_flow_context_def(self, context_def, export_scope=None):
        """Serializes this context into `context_def` (a ControlFlowContextDef)."""
        raise NotImplementedError("Abstract method")

    @property
    def name(self):
        return self._name

    @property
    def outer_context(self):
        return self._outer_context

    @property
    def grad_state(self):
        raise NotImplementedError("Abstract method")

    @property
    def back_prop(self):
        raise NotImplementedError("Abstract method")

    def IsWhileContext(self):
        return False

    def IsCondContext(self):
        return False

    def AddName(self, name):
        self._values.add(name)

    def Enter(self):
        graph = get_default_graph()
        self._context_stack.append(graph._get_control_flow_context())
        graph._set_control_flow_context(self)

    def Exit(self):
        graph = get_default_graph()
        graph._set_control_flow_context(self._context_stack.pop())

    def ExitResult(self, result):
        if self._outer_context is not None:
            # Any nesting of results (namedtuples, composites): each tensor's name.
            for x in nest.flatten(result, expand_composites=True):
                self._outer_context.AddName(x.name)

    def GetWhileContext(self):
        if self._outer_context is not None:
            return self._outer_context.GetWhileContext()
        return None

    def AddInnerOp(self, op):
        if self._outer_context is not None:
            self._outer_context.AddInnerOp(op)

    def _RemoveExternalControlEdges(self, op):
        """Drops control inputs of `op` from outside the enclosing loop; returns
        (internal, external)."""
        while_ctxt = self.GetWhileContext()
        if while_ctxt is None:
            return list(op._control_inputs), []
        internal, external = [], []
        for x in op._control_inputs:
            ctxt = get_output_context(x)
            if ctxt is not None and ctxt.GetWhileContext() is while_ctxt:
                internal.append(x)
            else:
                external.append(x)
        if len(internal) != len(op._control_inputs):
            op._remove_all_control_inputs()
            op._add_control_inputs(internal)
        return internal, external

    def _mark_seen(self, names):
        ctxt = self
        while ctxt is not None:
            ctxt._values.update(names)
            ctxt = ctxt._outer_context


class CondContext(ControlFlowContext):
    """The context of one branch of a `cond`."""

    def __init__(self, pred, pivot, branch, name="cond_text"):
        super().__init__()
        self._name = get_default_graph().unique_name(name)
        self._pred = pred        # the predicate (`cond/pred_id`)
        self._pivot = pivot      # `cond/switch_t` or `cond/switch_f`
        self._branch = branch    # 1 for the true branch, 0 for the false one
        self._values.add(pred.name)
        self._external_values[pred.name] = pred
        self._values.add(pivot.name)
        pivot._op._set_control_flow_context(self)

    @property
    def pred(self):
        return self._pred

    @property
    def pivot(self):
        return self._pivot

    @property
    def branch(self):
        return self._branch

    @property
    def grad_state(self):
        if self.GetWhileContext() is not None:
            return self.GetWhileContext().grad_state
        return None

    @property
    def back_prop(self):
        if self.GetWhileContext() is not None:
            return self.GetWhileContext().back_prop
        return False

    def IsCondContext(self):
        return True

    def to_control_flow_context_def(self, context_def, export_scope=None):
        context_def.cond_ctxt.CopyFrom(self.to_proto(export_scope=export_scope))

    def GetControlPivot(self):
        return self._pivot

    def AddValue(self, val):
        """Routes `val` (from outside this branch) through a Switch; returns the branch's
        view of it."""
        if val.name in self._values:
            result = self._external_values.get(val.name)
            return val if result is None else result
        result = val
        self._values.add(val.name)
        if self._outer_context is not None:
            result = self._outer_context.AddValue(val)
            self._values.add(result.name)
            self._external_values[result.name] = result
        graph = val.graph
        from flowloom.framework.graph import control_dependencies

        with control_dependencies(None):
            result = _switch_ref_or_tensor(result, self._pred)[self._branch]
            if self._outer_context is not None:
                self._outer_context.AddInnerOp(result._op)
        graph.prevent_fetching(result._op)
        result._op._set_control_flow_context(self)
        self._mark_seen([result.name])
        self._external_values[val.name] = result
        return result

    def AddOp(self, op):
        if not op._inputs:
            self._RemoveExternalControlEdges(op)
            if not any(_op_in_context(c, self) for c in op._control_inputs):
                op._add_control_input(self._pivot._op)
        else:
            for index, x in enumerate(list(op._inputs)):
                # A while loop imported into this branch: its Merge's back edge comes from a
                # NextIteration that joins the branch later (as TF, kept as it is).
                if is_merge(op) and is_next_iteration(x._op):
                    continue
                real_x = self.AddValue(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            self._RemoveExternalControlEdges(op)
            if op._type in getattr(op._graph, "_functions", ()) or \
                    op._type == "SymbolicGradient":
                op._add_control_input(self._pivot._op)  # as TF: a call waits on the pivot
        self._mark_seen([x.name for x in op._outputs])
        if self._outer_context is not None or not is_loop_exit(op):
            op._graph.prevent_fetching(op)
        if self._outer_context is not None:
            self._outer_context.AddInnerOp(op)

    _AddOpInternal = AddOp

    def ProcessOutputTensor(self, val):
        """The branch's view of a branch result (a Switch when it comes from outside)."""
        real_val = val
        if val.name not in self._values:
            # The branch returns a tensor from outside (`lambda: x`).
            self._values.add(val.name)
            if self._outer_context is not None:
                real_val = self._outer_context.AddValue(val)
                self._values.add(real_val.name)
                self._external_values[real_val.name] = real_val
            real_val = _switch_ref_or_tensor(real_val, self._pred)[self._branch]
            self._external_values[val.name] = real_val
        else:
            external_val = self._external_values.get(val.name)
            if external_val is not None:
                real_val = external_val
        return real_val


def _op_in_context(op, ctxt):
    c = op._control_flow_context
    while c is not None:
        if c is ctxt:
            return True
        c = c._outer_context
    return False


class WhileContext(ControlFlowContext):
    """The context of a `while_loop`: its frame, pivots, loop enters and exits."""

    def __init__(self, maximum_iterations=None, parallel_iterations=10, back_prop=True,
                 swap_memory=False, name="while_context", grad_state=None):
        super().__init__()
        self._name = get_default_graph().unique_name(name)
        self._maximum_iterations = maximum_iterations
        self._parallel_iterations = parallel_iterations
        self._back_prop = back_prop
        self._swap_memory = swap_memory
        self._pivot_for_pred = None
        self._pivot_for_body = None
        self._pivot = None
        self._loop_exits = []
        self._loop_enters = []
        self._grad_state = grad_state
        self._graph = get_default_graph()

    @property
    def name(self):
        return self._name

    @property
    def maximum_iterations(self):
        return self._maximum_iterations

    @property
    def parallel_iterations(self):
        return self._parallel_iterations

    @property
    def back_prop(self):
        return self._back_prop

    @property
    def swap_memory(self):
        return self._swap_memory

    @property
    def pivot(self):
        return self._pivot

    @property
    def loop_enters(self):
        return self._loop_enters

    @property
    def loop_exits(self):
        return self._loop_exits

    @property
    def grad_state(self):
        return self._grad_state

    def IsWhileContext(self):
        return True

    def to_control_flow_context_def(self, context_def, export_scope=None):
        context_def.while_ctxt.CopyFrom(self.to_proto(export_scope=export_scope))

    def GetWhileContext(self):
        return self

    def GetControlPivot(self):
        if self._pivot_for_body is not None:
            return self._pivot_for_body
        return self._pivot_for_pred

    def AddValue(self, val):
        """Makes `val` (from outside the loop) known inside it through a loop-invariant
        Enter; returns that Enter's output."""
        from flowloom.framework.graph import control_dependencies
        from flowloom.ops.control_flow import control_flow_ops

        result = val
        new_value = val.name not in self._values and val._op._control_flow_context is not self
        if new_value:
            self._values.add(val.name)
            grad_ctxt = val.graph._get_control_flow_context()
            if grad_ctxt is not None:
                grad_ctxt = grad_ctxt.GetWhileContext()
                if grad_ctxt is not None and grad_ctxt.grad_state is not None:
                    forward_ctxt = get_while_context(val._op)
                    if is_loop_exit(val._op):
                        forward_ctxt = forward_ctxt.outer_context
                        if forward_ctxt is not None:
                            forward_ctxt = forward_ctxt.GetWhileContext()
                    if forward_ctxt is grad_ctxt.grad_state.forward_context:
                        real_val = grad_ctxt.grad_state.GetRealValue(val)
                        self._external_values[val.name] = real_val
                        return real_val
            if self._outer_context is not None:
                result = self._outer_context.AddValue(val)
            with control_dependencies(None):
                enter = control_flow_ops._enter(
                    result, self._name, is_constant=True,
                    parallel_iterations=self._parallel_iterations)
                val.graph.prevent_feeding(enter)
                if self._outer_context is not None:
                    self._outer_context.AddInnerOp(enter._op)
            self._FixControlInputsAndContext([enter])
            self._values.add(enter.name)
            self._external_values[val.name] = enter
            result = enter
        else:
            actual = self._external_values.get(val.name)
            if actual is not None:
                result = actual
        return result

    def AddOp(self, op):
        # As TF: a Shape/Size/Rank made in a gradient loop of a value of its forward loop
        # joins the forward loop's context, so that the backprop keeps the (small) result
        # on its stack instead of the whole tensor.
        if op._type in ("Shape", "Size", "Rank"):
            grad_ctxt = op._graph._get_control_flow_context()
            grad_ctxt = grad_ctxt.GetWhileContext() if grad_ctxt is not None else None
            if grad_ctxt is not None and grad_ctxt.grad_state is not None and \
                    get_while_context(op._inputs[0]._op) is \
                    grad_ctxt.grad_state.forward_context:
                input_ctxt = op._inputs[0]._op._control_flow_context
                op._control_flow_context = input_ctxt
                input_ctxt._AddOpInternal(op)
                return
        self._AddOpInternal(op)

    def _AddOpInternal(self, op):  # noqa: N802 - TF's name
        from flowloom.framework.graph import control_dependencies
        from flowloom.ops.array import array_ops

        external_inputs = []
        if not op._inputs:
            control_inputs, external_inputs = self._RemoveExternalControlEdges(op)
            if not control_inputs:
                op._add_control_input(self.GetControlPivot()._op)
        else:
            for index, x in enumerate(list(op._inputs)):
                real_x = self.AddValue(x)
                if real_x is not x:
                    op._update_input(index, real_x)
            _, external_inputs = self._RemoveExternalControlEdges(op)
            self._MaybeAddControlDependency(op)
        for x in op._outputs:
            self._values.add(x.name)
        if external_inputs:
            # Control inputs from outside the loop come in as data, through an Identity.
            with control_dependencies(None):
                self.Enter()
                pulled = [array_ops.identity(x._outputs[0])._op
                          for x in external_inputs if x._outputs]
                self.Exit()
            op._add_control_inputs(pulled)
        if self._outer_context is not None or not is_loop_exit(op):
            op._graph.prevent_fetching(op)
            for x in op._outputs:
                op._graph.prevent_feeding(x)
        if self._outer_context is not None:
            self._outer_context.AddInnerOp(op)

    def _MaybeAddControlDependency(self, op):
        """An op fed only by loop invariants would run once, not per iteration: gate it on
        the pivot."""
        if op._control_inputs:
            return
        if all(is_loop_constant_enter(x._op) for x in op._inputs):
            op._add_control_input(self.GetControlPivot()._op)

    def _FixControlInputsAndContext(self, enters):
        """Gives Enters (built outside any context) this context, and the control inputs of
        the enclosing `control_dependencies` blocks that live in an outer context."""
        graph = get_default_graph()
        outer_while = self._outer_context.GetWhileContext() if self._outer_context else None
        for x in enters:
            keep = []
            for c in graph._current_control_inputs([x._op._inputs[0]]):
                op_ctxt = get_output_context(c)
                outer = self._outer_context
                ok = True
                while outer is not op_ctxt:
                    if outer is None or outer is outer_while:
                        ok = False
                        break
                    outer = outer._outer_context
                if ok:
                    keep.append(c)
            x._op._set_control_flow_context(self)
            x._op._add_control_inputs(keep)
            for controller in graph._control_dependencies_stack:
                controller.ops_created.add(x._op)

    # -- gradient loops (used by ops/control_flow/control_flow_state.py) --------------------------------
    def AddForwardLoopCounter(self, outer_grad_state):
        """Adds a counter of the forward iterations to this loop.

        Returns:
          (the iteration count after the loop, the counter's NextIteration inside it).
        """
        from flowloom.ops.array import array_ops
        from flowloom.ops.control_flow import control_flow_ops
        from flowloom.ops.math import math_ops

        n = array_ops.constant(0, name="f_count")
        if outer_grad_state is not None:
            # Order the pushes of the i-th run of an inner loop before those of the (i+1)-th.
            outer_add_op = outer_grad_state.forward_index._op._inputs[0]._op
            n._op._add_control_input(outer_add_op)
        self.Enter()
        self.AddName(n.name)
        enter_n = control_flow_ops._enter(n, self._name, is_constant=False,
                                          parallel_iterations=self._parallel_iterations,
                                          name="f_count")
        self._loop_enters.append(enter_n)
        merge_n = control_flow_ops.merge([enter_n, enter_n])[0]
        switch_n = control_flow_ops.switch(merge_n, self._pivot)
        index = math_ops.add(switch_n[1], 1)
        next_n = control_flow_ops._next_iteration(index)
        merge_n._op._update_input(1, next_n)
        total_iterations = control_flow_ops.exit(switch_n[0], name="f_count")
        self._loop_exits.append(total_iterations)
        self.ExitResult([total_iterations])
        self.Exit()
        return total_iterations, next_n

    def AddBackpropLoopCounter(self, count, outer_grad_state):
        """Makes this (gradient) loop run `count` iterations; returns its counter's
        NextIteration."""
        from flowloom.ops.array import array_ops
        from flowloom.ops.control_flow import control_flow_ops
        from flowloom.ops.math import math_ops

        one = array_ops.constant(1, name="b_count")
        self.Enter()
        self.AddName(count.name)
        enter_count = control_flow_ops._enter(count, self._name, is_constant=False,
                                              parallel_iterations=self._parallel_iterations,
                                              name="b_count")
        self._loop_enters.append(enter_count)
        merge_count = control_flow_ops.merge([enter_count, enter_count])[0]
        self._pivot_for_pred = merge_count
        pred = math_ops.greater_equal(merge_count, one)
        self._pivot = control_flow_ops.loop_cond(pred, name="b_count")
        switch_count = control_flow_ops.switch(merge_count, self._pivot)
        index = math_ops.subtract(switch_count[1], one)
        self._pivot_for_body = index
        next_count = control_flow_ops._next_iteration(index)
        merge_count._op._update_input(1, next_count)
        final_zero = control_flow_ops.exit(switch_count[0], name="b_count")
        self._loop_exits.append(final_zero)
        if outer_grad_state is not None:
            # Order the pops of the i-th run of an inner loop before those of the (i+1)-th.
            outer_grad_state.grad_sync._add_control_input(final_zero._op)
        self.ExitResult([final_zero])
        self.Exit()
        return next_count

    def AddBackpropAccumulator(self, op, grad):
        """Sums `grad` over the iterations of this gradient loop (the gradient of a loop
        invariant); returns the sum, outside the loop."""
        from flowloom.ops.array import array_ops
        from flowloom.ops.control_flow import control_flow_ops
        from flowloom.ops.math import math_ops

        self.Exit()
        shape = grad.shape
        if shape.is_fully_defined():
            if self._outer_context is not None:
                self._outer_context.Enter()
            acc = array_ops.constant(0, grad.dtype, shape=shape.as_list(), name="b_acc")
            if self._outer_context is not None:
                self._outer_context.Exit()
        else:
            value = op._inputs[0]
            if isinstance(self._outer_context, WhileContext) and \
                    self._outer_context.grad_state is not None:
                forward_ctxt = self.grad_state.forward_context
                forward_ctxt.outer_context.Enter()
                zeros_shape = array_ops.shape(value, optimize=False)
                forward_ctxt.outer_context.Exit()
                outer_grad_state = self.grad_state.outer_grad_state
                history = outer_grad_state.AddForwardAccumulator(zeros_shape)
                self._outer_context.Enter()
                real_shape = outer_grad_state.AddBackpropAccumulatedValue(history, zeros_shape)
                acc = array_ops.zeros(real_shape, grad.dtype)
                self._outer_context.Exit()
            else:
                if self._outer_context is not None:
                    self._outer_context.Enter()
                zeros_shape = array_ops.shape(value, optimize=False)
                acc = array_ops.zeros(zeros_shape, grad.dtype)
                if self._outer_context is not None:
                    self._outer_context.Exit()
        self.Enter()
        self.AddName(acc.name)
        enter_acc = control_flow_ops._enter(acc, self._name, is_constant=False,
                                            parallel_iterations=self._parallel_iterations,
                                            name="b_acc")
        self._loop_enters.append(enter_acc)
        merge_acc = control_flow_ops.merge([enter_acc, enter_acc], name="b_acc")[0]
        switch_acc_false, switch_acc_true = control_flow_ops.switch(merge_acc, self._pivot)
        add_acc = math_ops.add(switch_acc_true, grad)
        next_acc = control_flow_ops._next_iteration(add_acc)
        merge_acc._op._update_input(1, next_acc)
        result_acc = control_flow_ops.exit(switch_acc_false, name="b_acc")
        self._loop_exits.append(result_acc)
        self.ExitResult([result_acc])
        return result_acc

    def AddBackpropIndexedSlicesAccumulator(self, op, grad):
        """`AddBackpropAccumulator` for a sparse gradient: the iterations' indices and values
        are concatenated (the dense shape is their maximum), so a loop invariant such as an
        embedding matrix gets an IndexedSlices gradient without a dense sum per iteration."""
        from flowloom.framework import tensor_shape
        from flowloom.framework.indexed_slices import IndexedSlices
        from flowloom.ops.array import array_ops
        from flowloom.ops.control_flow import control_flow_ops
        from flowloom.ops.math import math_ops

        values, indices, dense_shape = grad.values, grad.indices, grad.dense_shape
        self.Exit()
        if self._outer_context is not None:
            self._outer_context.Enter()
        param_shape = op._inputs[0].shape  # the rows' shape is the parameter's, past dim 0
        if values.shape.is_fully_defined() or (
                param_shape.ndims and tensor_shape.TensorShape(
                    param_shape.dims[1:]).is_fully_defined()):
            rest = values.shape.as_list()[1:] if values.shape.is_fully_defined() else \
                param_shape.as_list()[1:]
            values_acc = array_ops.constant(0, values.dtype, shape=[1] + rest, name="b_acc")
        else:
            rest = array_ops.shape(op._inputs[0], optimize=False)[1:]
            values_acc = array_ops.zeros(array_ops.concat([[1], rest], 0), dtype=values.dtype)
        indices_acc = array_ops.constant([0], indices.dtype)
        shape_acc = None
        if dense_shape is not None:
            if dense_shape.shape.is_fully_defined():
                shape_acc = array_ops.constant(0, dense_shape.dtype,
                                               shape=dense_shape.shape.as_list())
            else:
                shape_acc = array_ops.zeros_like(array_ops.shape(
                    op._inputs[0], optimize=False, out_type=dense_shape.dtype))
        if self._outer_context is not None:
            self._outer_context.Exit()
        self.Enter()
        init_acc = [indices_acc, values_acc] + ([shape_acc] if shape_acc is not None else [])
        for x in init_acc:
            self.AddName(x.name)
        # The accumulators grow every iteration: their shapes are partial.
        enter_acc = [control_flow_ops._enter(x, self._name, is_constant=False,
                                             parallel_iterations=self._parallel_iterations,
                                             use_input_shape=False, name="b_acc")
                     for x in init_acc]
        enter_acc[0]._shape = tensor_shape.TensorShape([None])
        if values_acc.shape.ndims is not None:
            enter_acc[1]._shape = tensor_shape.TensorShape(
                [None] + values_acc.shape.as_list()[1:])
        if shape_acc is not None:
            enter_acc[2]._shape = shape_acc.shape
        self._loop_enters.extend(enter_acc)
        merge_acc = [control_flow_ops.merge([x, x], name="b_acc")[0] for x in enter_acc]
        for m, e in zip(merge_acc, enter_acc):
            m._shape = e.shape
        switch_acc = [control_flow_ops.switch(x, self._pivot) for x in merge_acc]
        acc = [array_ops.concat([xa[1], xv], 0)
               for xa, xv in zip(switch_acc[:2], [indices, values])]
        if shape_acc is not None:
            acc.append(math_ops.maximum(dense_shape, switch_acc[2][1]))
        for m, x in zip(merge_acc, acc):
            m._op._update_input(1, control_flow_ops._next_iteration(x))
        exit_acc = [control_flow_ops.exit(x[0], name="b_acc") for x in switch_acc]
        self._loop_exits.extend(exit_acc)
        self.ExitResult(exit_acc)
        return IndexedSlices(indices=exit_acc[0], values=exit_acc[1],
                             dense_shape=exit_acc[2] if shape_acc is not None else None)


# Registers TF's input-context check with the graph (an op reading a loop's values from
# outside it is an error); it uses this module's definitions.
from flowloom.ops.control_flow import control_flow_util as _control_flow_util  # noqa: E402,F401
