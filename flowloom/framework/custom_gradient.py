"""`tf.custom_gradient`: a function whose gradient is given by the user (graph mode)."""

import functools
import inspect
import itertools

from flowloom.framework.gradients_impl import _NAMED_GRADIENTS, RegisterGradient
from flowloom.framework.graph import get_default_graph
from flowloom.framework.ops import convert_to_tensor

_uids = itertools.count()


def _flatten(x):
    if isinstance(x, (list, tuple)):
        return [y for item in x for y in _flatten(item)]
    return [x]


def _pack_like(structure, flat):
    it = iter(flat)

    def pack(s):
        if isinstance(s, (list, tuple)):
            return type(s)(pack(item) for item in s)
        return next(it)
    return pack(structure)


VAR_OP_TYPES = ("VariableV2", "VarHandleOp")


def _is_differentiable(op):
    """TF's op_selector.is_differentiable: the op type has a gradient function."""
    from flowloom.framework import op_def as op_registry

    name = op._type
    opdef = op_registry.get(name, load_all=False)
    if name in _NAMED_GRADIENTS:
        return _NAMED_GRADIENTS[name] is not None
    return opdef is not None and opdef.grad_fn is not None


def _backward_walk_ops(seed_ops, stop_at_ts):
    """The ops behind `seed_ops` (not included) reached through differentiable ops only,
    not walking past the tensors `stop_at_ts`."""
    stop = {id(t) for t in stop_at_ts}
    result, seen = [], {id(op) for op in seed_ops}
    wave = list(seed_ops)
    while wave:
        new_wave = []
        for op in wave:
            if not _is_differentiable(op):
                continue
            for t in op._inputs:
                if id(t) in stop or id(t.op) in seen:
                    continue
                seen.add(id(t.op))
                new_wave.append(t.op)
        result.extend(new_wave)
        wave = new_wave
    return result


def get_variable_by_name(var_name):
    """The trainable global variable whose op is named `var_name` (None if it is not
    trainable).

    Raises:
      ValueError: If no global variable, or more than one trainable one, matches.
    """
    from flowloom.framework.graph import GraphKeys, get_collection

    candidates = get_collection(GraphKeys.GLOBAL_VARIABLES, scope=f"{var_name}:0")
    if not candidates:
        raise ValueError(f"Unsuccessful at finding variable {var_name}.")
    candidates = [v for v in candidates if v.trainable]
    if len(candidates) > 1:
        raise ValueError(f"Unsuccessful at finding trainable variable {var_name}. Number of "
                         f"candidates: {len(candidates)}. Candidates: {candidates}")
    return candidates[0] if candidates else None


def get_dependent_variables(input_ops, output_ops):
    """The trainable variables read, through differentiable ops, between `input_ops` and
    `output_ops` (tensors, possibly nested in lists/tuples/dicts)."""
    from flowloom.framework import nest
    from flowloom.ops.array import array_ops

    # An Identity of each output: the walk starts above outputs that are also inputs.
    outputs = [array_ops.identity(t) for t in nest.flatten(output_ops)]
    between = _backward_walk_ops([t.op for t in outputs], nest.flatten(input_ops))
    found = (get_variable_by_name(op.name) for op in between if op._type in VAR_OP_TYPES)
    return [v for v in found if v is not None]


def custom_gradient(f=None):
    """Decorates `f(*x) -> (y, grad_fn)` so that `tf.gradients` uses `grad_fn(*dy) -> dx`.

    As in TF's graph mode, the results and inputs pass through one IdentityN op whose
    gradient is overridden (`CustomGradient-<uid>`). When `f` reads trainable variables
    between its inputs and results (resource variables: see the TypeError below),
    `grad_fn(*dy, variables=[...])` returns `(input_grads, variable_grads)`.

    Example:
      @tf.custom_gradient
      def log1pexp(x):
          e = tf.exp(x)
          def grad(dy):
              return dy * (1 - 1 / (1 + e))
          return tf.log(1 + e), grad

    Raises:
      TypeError: `f` creates variables that are not resource variables, uses variables
        while `grad_fn` takes no `variables`, or `grad_fn` takes `variables` in a scope
        without use_resource.
      ValueError: keyword arguments, or grad_fn returns the wrong number of gradients.
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        from flowloom.ops.array import array_ops
        from flowloom.resource_variable import is_resource_variable

        name = "CustomGradient-%d" % next(_uids)
        args = [convert_to_tensor(a) for a in args]
        from flowloom.variable_scope import get_variable_scope

        scope = get_variable_scope()
        before = {id(v) for v in scope.global_variables() + scope.local_variables()}
        result, grad_fn = f(*args)
        for v in scope.global_variables() + scope.local_variables():
            if id(v) not in before and not is_resource_variable(v):
                raise TypeError("All variables used by a function wrapped with "
                                "@custom_gradient must be `ResourceVariable`s. Ensure that no "
                                "`variable_scope` is created with `use_resource=False`.")
        variables = get_dependent_variables(args, result)
        params = inspect.signature(grad_fn).parameters
        takes_variables = "variables" in params or any(
            p.kind == p.VAR_KEYWORD for p in params.values())
        if variables and not takes_variables:
            raise TypeError("If using @custom_gradient with a function that uses variables, "
                            "then grad_fn must accept a keyword argument 'variables'.")
        if takes_variables and not variables and not scope.use_resource:
            raise TypeError("If using @custom_gradient with a function that uses variables, "
                            "the enclosing variable scope must have use_resource=True.")
        flat_result = [convert_to_tensor(r) for r in _flatten(result)]
        n_results = len(flat_result)

        @RegisterGradient(name)
        def _(unused_op, *result_grads):
            result_grads = result_grads[:n_results]
            if variables:
                input_grads, variable_grads = grad_fn(*result_grads, variables=variables)
                if len(variable_grads) != len(variables):
                    raise ValueError("Must return gradient for each variable from "
                                     "@custom_gradient grad_fn.")
            else:
                input_grads, variable_grads = grad_fn(*result_grads), []
            input_grads = _flatten(input_grads)
            if len(input_grads) != len(args):
                raise ValueError(f"custom_gradient function expected to return {len(args)} "
                                 f"gradients but returned {len(input_grads)} instead.")
            return [None] * n_results + input_grads + list(variable_grads)

        with get_default_graph().gradient_override_map({"IdentityN": name}):
            all_tensors = array_ops.identity_n(flat_result + args + variables)
        return _pack_like(result, all_tensors[:n_results])
    return decorated
