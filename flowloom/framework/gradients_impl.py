"""Symbolic reverse-mode differentiation over the graph (`tf.gradients`).

The algorithm is TF's: find the ops between `xs` and `ys` (reachable forward from xs along
float tensors and backward from ys), count for each op how many of its consumers are in that
set, then walk backwards from ys: once every consumer of an op has sent its gradient, the
received gradients are summed (AddN) and the op's gradient function builds the gradients of
its inputs, under the name scope `gradients/<op name>_grad/`.

Gradient functions live next to their op (`@OpDef.gradient`); `RegisterGradient(name)` adds
named ones for `Graph.gradient_override_map`, and `no_gradient(op_type)` marks op types that
have none.
"""

import contextlib
import collections

from flowloom.framework import dtypes
from flowloom.framework import lazy_registry
from flowloom.framework import op_def as op_registry
from flowloom.framework.graph import _graph_of, name_scope
from flowloom.framework.indexed_slices import IndexedSlices
from flowloom.framework.ops import Operation, Tensor, convert_to_tensor

# Gradient functions registered by name (RegisterGradient), for names that are not op types
# or are used through gradient_override_map. `None` marks "no gradient".
_NAMED_GRADIENTS = {}

_TRAINABLE_DTYPES = frozenset([dtypes.float16, dtypes.float32, dtypes.float64, dtypes.bfloat16,
                               dtypes.complex64, dtypes.complex128, dtypes.resource,
                               dtypes.variant])


class RegisterGradient:
    """A decorator that registers a gradient function for an op type (`tf.RegisterGradient`).

    The function takes `(op, *output_grads)` and returns one gradient per input of `op`
    (`None` where there is none). Use it with `Graph.gradient_override_map` to replace the
    gradient of existing op types in a block.

    Example:
      @tf.RegisterGradient("CustomSquare")
      def _custom_square_grad(op, grad):
          return grad * 3.0

      with g.gradient_override_map({"Square": "CustomSquare"}):
          y = tf.square(x)

    Raises:
      TypeError: `op_type` is not a string.
      KeyError: a gradient is already registered under `op_type`.
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        name = self._op_type
        opdef = op_registry.get(name, load_all=False)
        if name in _NAMED_GRADIENTS or (opdef is not None and (opdef.grad_fn or
                                                                opdef.grad_none)):
            raise KeyError(f"Registering two gradient with name '{name}'! (Previous "
                           "registration was in flowloom)")
        if opdef is not None:
            opdef.gradient(fn)
        else:
            lazy_registry.note("op", name)
            _NAMED_GRADIENTS[name] = fn
        return fn


def no_gradient(op_type):
    """Declares that ops of type `op_type` have no gradient (`tf.no_gradient`).

    Gradients do not flow through such ops: their inputs get no contribution from them.

    Raises:
      TypeError: `op_type` is not a string.
    """
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    opdef = op_registry.get(op_type, load_all=False)
    if op_type in _NAMED_GRADIENTS or (opdef is not None and (opdef.grad_fn or
                                                              opdef.grad_none)):
        raise KeyError(f"Registering two gradient with name '{op_type}'! (Previous "
                       "registration was in flowloom)")
    if opdef is not None:
        opdef.no_gradient()
    else:
        lazy_registry.note("op", op_type)
        _NAMED_GRADIENTS[op_type] = None


NotDifferentiable = no_gradient


def get_gradient_function(op):
    """The gradient function of `op`, None if it has none; LookupError if none is known."""
    if not op._inputs:
        return None
    op_type = op._attrs.get("_gradient_op_type")
    if op_type is None:
        op_type = op._type
    elif isinstance(op_type, bytes):
        op_type = op_type.decode()
    opdef = op_registry.get(op_type, load_all=False)  # imports its gradient's module
    if op_type in _NAMED_GRADIENTS:
        return _NAMED_GRADIENTS[op_type]
    if opdef is None and op_type == op._type:
        opdef = op._opdef  # a call of a function of the graph's library
    if opdef is not None:
        if opdef.grad_none:
            return None
        if opdef.grad_fn is not None:
            return opdef.grad_fn
    raise LookupError(f"gradient registry has no entry for: {op_type}")


class AggregationMethod:
    """How gradients from several consumers are summed (`tf.AggregationMethod`)."""

    ADD_N = 0
    DEFAULT = ADD_N
    EXPERIMENTAL_TREE = 1
    EXPERIMENTAL_ACCUMULATE_N = 2


class UnconnectedGradients:
    """What `tf.gradients` returns for an x that ys do not depend on."""

    NONE = "none"
    ZERO = "zero"


def is_trainable(t):
    """Whether gradients flow through tensor `t` (floating and complex dtypes only)."""
    return t._dtype.base_dtype in _TRAINABLE_DTYPES


def _as_list(x):
    return list(x) if isinstance(x, (list, tuple)) else [x]


def _to_tensor_or_slices(v, name, as_ref=False):
    if v is None or isinstance(v, (Tensor, IndexedSlices)):
        return v
    return convert_to_tensor(v, name=name, as_ref=as_ref)


def gradients(ys, xs, grad_ys=None, name="gradients", colocate_gradients_with_ops=False,
              gate_gradients=False, aggregation_method=None, stop_gradients=None,
              unconnected_gradients=UnconnectedGradients.NONE):
    """Constructs the symbolic derivatives of the sum of `ys` with respect to each of `xs`.

    Args:
      ys: a Tensor or list of Tensors to differentiate.
      xs: a Tensor, Variable or list of them to differentiate with respect to.
      grad_ys: optional list, the same length as `ys`, of initial gradients (ones when None).
      name: the name scope of the gradient ops ("gradients").
      colocate_gradients_with_ops: place each gradient op with the op it differentiates.
      gate_gradients: group the gradients of each op's inputs with `tf.tuple`.
      aggregation_method: an `AggregationMethod` constant.
      stop_gradients: Tensors to treat as constants (no gradient flows through them).
      unconnected_gradients: "none" (None for unconnected xs) or "zero" (zeros).

    Returns:
      A list of `len(xs)` Tensors (or IndexedSlices, or None) `sum(dy/dx)`.

    Raises:
      LookupError: an op between xs and ys has no gradient function.
      ValueError: the arguments do not match (grad_ys length, unknown aggregation method).

    Example:
      y = x * x
      dy_dx, = tf.gradients(y, [x])   # 2 * x
    """
    ys = _as_list(ys)
    xs = [x._ref() if hasattr(x, "_ref") and not isinstance(x, Tensor) else x
          for x in _as_list(xs)]
    stop_gradients = [] if stop_gradients is None else _as_list(stop_gradients)
    grad_ys = [None] * len(ys) if grad_ys is None else _as_list(grad_ys)
    if unconnected_gradients not in (UnconnectedGradients.NONE, UnconnectedGradients.ZERO):
        raise ValueError(f"Unknown value for unconnected_gradients: '{unconnected_gradients}'")
    graph = _graph_of([y for y in ys if y is not None] + [x for x in xs if x is not None])
    with graph.as_default(), name_scope(name, "gradients") as grad_scope:
        graph.unique_name("uid")  # TF reserves a uid name per call
        ys = [_to_tensor_or_slices(y, "y") for y in ys]
        xs = [_to_tensor_or_slices(x, "x", as_ref=True) for x in xs]
        stop_gradients = [_to_tensor_or_slices(s, "stop") for s in stop_gradients]
        grad_ys = _default_grad_ys(grad_ys, ys, colocate_gradients_with_ops)
        builder = _GradientBuilder(graph, xs, ys, stop_gradients, colocate_gradients_with_ops,
                                   gate_gradients, aggregation_method, grad_scope)
        builder.run(grad_ys)
        return [builder.result(x, unconnected_gradients) for x in xs]


def _tf1_graphs():
    from flowloom.ops.random.random_ops import seed_rules

    return seed_rules() == "1"


def _default_grad_ys(grad_ys, ys, colocate):
    from flowloom.ops.array import array_ops

    if len(grad_ys) != len(ys):
        raise ValueError(f"Length mismatch. Passed {len(grad_ys)} grad_ys for {len(ys)} ys")
    out = []
    for i, (y, grad_y) in enumerate(zip(ys, grad_ys)):
        with _maybe_colocate(y.op, colocate):
            if grad_y is None:
                if y.dtype.is_complex:
                    raise TypeError("Gradients of complex tensors must set grad_ys "
                                    f"(y.dtype = {y.dtype!r})")
                shape = array_ops.shape(y)
                if _tf1_graphs():  # TF 1.15 names the one grad_ys_i and the Fill "Fill"
                    one = array_ops.constant(1, dtype=y.dtype.base_dtype, name=f"grad_ys_{i}")
                    out.append(array_ops.fill(shape, one))
                else:
                    one = array_ops.constant(1, dtype=y.dtype.base_dtype,
                                             name=f"grad_ys_{i}/Const")
                    out.append(array_ops.fill(shape, one, name=f"grad_ys_{i}"))
                continue
            grad_y = _to_tensor_or_slices(grad_y, "grad_y")
            if (y.dtype.is_floating or y.dtype.is_integer) and not (
                    grad_y.dtype.is_floating or grad_y.dtype.is_integer):
                raise TypeError(f"Gradient type {grad_y.dtype.name} generated for real or "
                                f"integer-valued tensor {y} with type {y.dtype.name} must be "
                                "real or integer")
            if isinstance(grad_y, IndexedSlices):
                out.append(IndexedSlices(
                    array_ops.identity(grad_y.values, name=f"grad_ys_{i}_values"),
                    array_ops.identity(grad_y.indices, name=f"grad_ys_{i}_indices"),
                    None if grad_y.dense_shape is None else
                    array_ops.identity(grad_y.dense_shape, name=f"grad_ys_{i}_shape")))
            else:
                out.append(array_ops.identity(grad_y, name=f"grad_ys_{i}"))
    return out


class _NullContext:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def _maybe_colocate(op, colocate):
    if colocate:
        return op._graph.colocate_with(op)
    return _NullContext()


class _GradientBuilder:
    """The state of one `tf.gradients` call: pending counts and received gradients."""

    def __init__(self, graph, xs, ys, stop_gradients, colocate, gate, aggregation_method,
                 grad_scope):
        self.graph = graph
        self.xs = xs
        self.colocate = colocate
        self.gate = gate
        self.grad_scope = grad_scope
        if aggregation_method is None:
            aggregation_method = AggregationMethod.DEFAULT
        valid = [AggregationMethod.ADD_N, AggregationMethod.EXPERIMENTAL_TREE,
                 AggregationMethod.EXPERIMENTAL_ACCUMULATE_N]
        if aggregation_method not in valid:
            raise ValueError(f"Invalid `aggregation_method` specified {aggregation_method}. "
                             f"Accepted values are {valid}.")
        self.aggregation_method = aggregation_method
        self.to_ops = [y.op for y in ys]
        self.from_ops = [x.op for x in xs]
        self.grads = {}  # op -> [list of received gradients per output]
        self.ys = ys
        self._pending_counts()
        self.stop_gradient_ops = [s.op for s in stop_gradients]

    def _pending_counts(self):
        reached = set()
        queue = collections.deque(self.from_ops)
        while queue:
            op = queue.popleft()
            if op in reached:
                continue
            reached.add(op)
            for out in op._outputs:
                if is_trainable(out):
                    queue.extend(out._consumers)
        self.reached = set(reached)  # ops on a path from xs: only their gradients are needed
        self.reachable_to_ops = {op for op in self.to_ops if op in reached}
        between = set()
        between_list = []
        queue = collections.deque(self.to_ops)
        while queue:
            op = queue.popleft()
            if op in reached:
                between.add(op)
                between_list.append(op)
                reached.discard(op)
                queue.extend(t._op for t in op._inputs)
        # CF-HOOK (cf branch): while loops between xs and ys get gradient loop states (TF's
        # MaybeCreateControlFlowState); this may add loop exits to `between`.
        self.loop_state = None
        if any(op._type in ("Exit", "RefExit") for op in between_list):
            from flowloom.ops.control_flow import control_flow_state

            self.loop_state = control_flow_state.maybe_create_control_flow_state(
                between_list, between, self.colocate)
        pending = collections.defaultdict(int)
        for op in between_list:
            for t in op._inputs:
                if t._op in between:
                    pending[t._op] += 1
        self.pending = pending

    def _stop_ops(self, stop_gradient_ops):
        stop = set()
        for op in self.from_ops:
            if all(self.pending[t._op] <= 0 for t in op._inputs):
                stop.add(op)
        stop.update(stop_gradient_ops)
        return stop

    def _set_grad(self, t, grad):
        op_grads = self.grads.get(t._op)
        if op_grads is None:
            op_grads = self.grads[t._op] = [[] for _ in t._op._outputs]
        if isinstance(op_grads[t._value_index], list):
            op_grads[t._value_index].append(grad)
        else:  # a loop Switch visited a second time (from its loop body)
            op_grads[t._value_index] = grad

    def run(self, grad_ys):
        for y, g in zip(self.ys, grad_ys):
            self._set_grad(y, g)
        queue = collections.deque()
        seen = set()
        for op in self.to_ops:
            if self.pending[op] == 0 and op not in seen and op in self.reachable_to_ops:
                seen.add(op)
                queue.append(op)
        loop_state = self.loop_state
        if loop_state is not None:
            for y in loop_state.ProcessUnusedLoopExits(self.pending, seen):
                if is_trainable(y):
                    self._set_grad(y, loop_state.ZerosLikeForExit(y))
                    queue.append(y._op)
        self.stop_ops = self._stop_ops(self.stop_gradient_ops)
        while queue:
            op = queue.popleft()
            with _maybe_colocate(op, self.colocate):
                self._backprop_op(op)
            if loop_state is None:
                for t in op._inputs:
                    self.pending[t._op] -= 1
                    if self.pending[t._op] == 0:
                        queue.append(t._op)
            else:
                self._update_pending_in_loops(op, queue)
        if loop_state is not None:
            loop_state.PostProcessing()

    def _update_pending_in_loops(self, op, queue):
        """TF's _UpdatePendingAndEnqueueReady with while loops: a loop Switch is ready on
        its first gradient; loop exits are held until all exits of the loop are known."""
        from flowloom.ops.control_flow.control_flow_context import is_loop_exit, is_loop_switch

        loop_state = self.loop_state
        for t in op._inputs:
            x_op = t._op
            self.pending[x_op] -= 1
            ready = self.pending[x_op] == 0
            if not ready:
                ready = self.pending[x_op] > 0 and is_loop_switch(x_op)
            if not ready:
                continue
            if not is_loop_exit(x_op):
                queue.append(x_op)
                continue
            grad_state = loop_state.GetGradState(x_op, before=False)
            grad_state.deferred_exits.append(t)
            grad_state.pending_exits_count -= 1
            if grad_state.pending_exits_count == 0:
                has_real_grad = False
                for y in grad_state.deferred_exits:
                    if self._has_any_grad(y._op):
                        has_real_grad = True
                        queue.append(y._op)
                    else:
                        grad_state.unused_exits.append(y)
                for y in grad_state.unused_exits:
                    if has_real_grad and is_trainable(y):
                        self._set_grad(y, loop_state.ZerosLikeForExit(y))
                    queue.append(y._op)

    def _has_any_grad(self, op):
        for g in self.grads.get(op, ()):
            if isinstance(g, (Tensor, IndexedSlices)):
                return True
            if g and isinstance(g, list) and any(v is not None for v in g):
                return True
        return False

    def _backprop_op(self, op):
        loop_state = self.loop_state
        if loop_state is not None:
            loop_state.EnterGradWhileContext(op, before=True)
        out_grads = self._aggregated_grads(op)
        if loop_state is not None:
            loop_state.ExitGradWhileContext(op, before=True)
            loop_state.EnterGradWhileContext(op, before=False)
        try:
            self._backprop_op_in_context(op, out_grads)
        finally:
            if loop_state is not None:
                loop_state.ExitGradWhileContext(op, before=False)

    def _backprop_op_in_context(self, op, out_grads):
        has_out_grads = any(g is not None for g in out_grads)
        grad_fn = None
        if has_out_grads and op not in self.stop_ops:
            try:
                grad_fn = get_gradient_function(op)
            except LookupError:
                raise LookupError(
                    f"No gradient defined for operation'{op._name}' (op type: {op._type}). In "
                    "general every operation must have an associated `@tf.RegisterGradient` "
                    "for correct autodiff, which this op is lacking. If you want to pretend "
                    "this operation is a constant in your program, you may insert "
                    "`tf.stop_gradient`. This can be useful to silence the error in cases "
                    "where you know gradients are not needed, e.g. the forward pass of "
                    "tf.custom_gradient. Please see more details in "
                    "https://www.tensorflow.org/api_docs/python/tf/custom_gradient.") from None
        if grad_fn is not None and has_out_grads:
            from flowloom.ops.array import array_ops

            ctxt = op._control_flow_context
            if op._type in ("Switch", "RefSwitch") and ctxt is not None and \
                    ctxt.IsWhileContext() and ctxt is self.graph._get_control_flow_context():
                from flowloom.framework.gradient_helpers import (
                    raise_no_grad_wrt_initial_loop_value)

                raise_no_grad_wrt_initial_loop_value(op, self.from_ops)

            for i, g in enumerate(out_grads):
                if g is None and is_trainable(op._outputs[i]):
                    # The output is unused by ys: its gradient is zero.
                    if self.loop_state is not None:
                        out_grads[i] = self.loop_state.ZerosLike(op, i)
                    elif op._type in ("Switch", "RefSwitch"):
                        from flowloom.ops.control_flow import control_flow_state

                        out_grads[i] = control_flow_state.zeros_like_outside_loop(op, i)
                    else:
                        out_grads[i] = array_ops.zeros_like(op._outputs[i], optimize=False)
            original = getattr(self.graph, "_original_op", None)  # op_construction's
            with name_scope(op._name + "_grad"), \
                    (original(op) if original is not None else contextlib.nullcontext()):
                # The gradient ops record `op` as their `_original_op`, as in TF.
                in_grads = _as_grad_list(grad_fn(op, *out_grads))
                if len(in_grads) != len(op._inputs):
                    raise ValueError(
                        f"Num gradients {len(in_grads)} generated for op {op._name} do not "
                        f"match num inputs {len(op._inputs)}")
                if self.gate and sum(1 for g in in_grads if g is not None) > 1:
                    with self.graph.device(None), self.graph.colocate_with(None):
                        in_grads = self._gated(in_grads, op)
        else:
            in_grads = [None] * len(op._inputs)
        for i, (t_in, g) in enumerate(zip(op._inputs, in_grads)):
            if g is None:
                continue
            if isinstance(g, Tensor) and t_in._dtype.base_dtype != dtypes.resource:
                try:
                    g.set_shape(t_in._shape)
                except ValueError:
                    raise ValueError(
                        "Incompatible shapes between op input and calculated input gradient. "
                        f"Forward operation: {op._name}. Input index: {i}. Original input "
                        f"shape: {t_in._shape}. Calculated input gradient shape: "
                        f"{g._shape}") from None
            self._set_grad(t_in, g)

    def _gated(self, in_grads, op):
        """TF's `tf.tuple(in_grads)`, op for op, except that the gate waits only for the
        gradients some x needs: one into an input that no x reaches (the gradient of a
        layer's input data) is still built, but nothing forces it to be computed."""
        from flowloom.ops.control_flow import control_flow_ops

        with name_scope(None, "tuple"):
            gating = {g.op for g, t in zip(in_grads, op._inputs)
                      if g is not None and t._op in self.reached}
            if not gating:
                gating = {g.op for g in in_grads if g is not None}
            gate = control_flow_ops.group(*sorted(gating, key=lambda o: o._id))
            return [None if g is None else control_flow_ops.with_dependencies([gate], g)
                    for g in in_grads]

    def _aggregated_grads(self, op):
        from flowloom.ops.math import math_ops

        op_grads = self.grads.get(op)
        if op_grads is None:
            op_grads = self.grads[op] = [[] for _ in op._outputs]
        out = []
        for i, received in enumerate(op_grads):
            if not isinstance(received, list):  # a loop Switch's gradient, already set
                out.append(received)
                continue
            received = [g for g in received if g is not None]
            if not received:
                agg = None
            elif len(received) == 1:
                agg = received[0]
            elif all(isinstance(g, Tensor) for g in received):
                if self.aggregation_method == AggregationMethod.EXPERIMENTAL_TREE:
                    with name_scope(op._name + "_gradient_sum"):
                        agg = received[0]
                        for g in received[1:]:
                            agg = math_ops.add_n([agg, g])
                else:
                    agg = _multi_device_add_n(received)
            else:
                agg = _aggregate_indexed_slices(received)
            op_grads[i] = agg
            out.append(agg)
        return out

    def result(self, x, unconnected):
        from flowloom.ops.array import array_ops

        op_grads = self.grads.get(x._op)
        g = None
        if op_grads is not None:
            g = op_grads[x._value_index]
            if isinstance(g, list):  # x's op was never processed: sum what arrived
                g = [v for v in g if v is not None]
                if not g:
                    g = None
                elif len(g) == 1:
                    g = g[0]
                elif all(isinstance(v, Tensor) for v in g):
                    g = _multi_device_add_n(g)
                else:
                    g = _aggregate_indexed_slices(g)
        if g is None and unconnected == UnconnectedGradients.ZERO:
            if x._dtype.base_dtype == dtypes.resource:
                # As TF: zeros of the variable behind the handle (its shape and dtype).
                from flowloom.ops.state import resource_variable_ops as rvo

                return array_ops.zeros(rvo.variable_shape(x), dtype=rvo.handle_dtype(x))
            return array_ops.zeros_like(x)
        return g


def _multi_device_add_n(tensors):
    """AddN per device (TF groups the summands by device), each colocated with its first
    summand's op as TF's _MultiDeviceAddN does, then across devices."""
    from flowloom.ops.math import math_ops

    by_device = {}
    for t in tensors:
        by_device.setdefault(t.device or "", []).append(t)
    sums = []
    for device in sorted(by_device):
        ts = by_device[device]
        with ts[0].graph.colocate_with(ts[0].op, ignore_existing=True):
            sums.append(math_ops.add_n(ts))
    return sums[0] if len(sums) == 1 else math_ops.add_n(sums)


def _aggregate_indexed_slices(grads):
    """Sums gradients of which some are IndexedSlices, as TF 2's graph mode does: AddN (the
    slices made dense) if any is a dense Tensor, else one IndexedSlices of all the rows."""
    from flowloom.ops.array import array_ops
    from flowloom.ops.math import math_ops

    if any(isinstance(g, Tensor) for g in grads):
        return math_ops.add_n(grads)
    if len({g.indices.dtype.base_dtype for g in grads}) > 1:
        grads = [IndexedSlices(g.values, math_ops.cast(g.indices, dtypes.int64), g.dense_shape)
                 for g in grads]
    return IndexedSlices(array_ops.concat([g.values for g in grads], 0),
                         array_ops.concat([g.indices for g in grads], 0),
                         grads[0].dense_shape)


def _as_grad_list(x):
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x]


def hessians(ys, xs, name="hessians", colocate_gradients_with_ops=False, gate_gradients=False,
             aggregation_method=None):
    """The Hessians of `sum(ys)` with respect to each x in `xs` (`tf.hessians`).

    As TF builds it: a while_loop over the elements of each flattened gradient writes the
    gradient of each element into a TensorArray.

    Returns:
      A list of Tensors of shape `x.shape + x.shape`, one per x.
    """
    from flowloom.ops.array import array_ops
    from flowloom.ops.control_flow.tensor_array_ops import TensorArray
    from flowloom.ops.control_flow.while_loop import while_loop

    xs = _as_list(xs)
    kwargs = {"colocate_gradients_with_ops": colocate_gradients_with_ops,
              "gate_gradients": gate_gradients, "aggregation_method": aggregation_method}
    result = []
    # TF takes `name` but opens no scope with it.
    for gradient, x in zip(gradients(ys, xs, **kwargs), xs):
        gradient = array_ops.reshape(gradient, [-1])
        n = array_ops.size(x)
        loop_vars = [array_ops.constant(0, dtypes.int32), TensorArray(x.dtype, n)]
        _, hessian = while_loop(
            lambda j, _, g=gradient, x=x, n=n: j < n,
            lambda j, rows, g=gradient, x=x: (j + 1, rows.write(j, gradients(g[j], x,
                                                                             **kwargs)[0])),
            loop_vars)
        shape = array_ops.shape(x)
        result.append(array_ops.reshape(hessian.stack(), array_ops.concat((shape, shape), 0)))
    return result


del Operation
