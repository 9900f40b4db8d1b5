"""`tf.custom_gradient`: a function whose gradient is given by the user (graph mode)."""

import functools
import inspect
import itertools

from flowloom.framework.gradients_impl import RegisterGradient
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


def custom_gradient(f=None):
    """Decorates `f(*x) -> (y, grad_fn)` so that `tf.gradients` uses `grad_fn(*dy) -> dx`.

    As in TF's graph mode, the results and inputs pass through one IdentityN op whose
    gradient is overridden (`CustomGradient-<uid>`).

    Example:
      @tf.custom_gradient
      def log1pexp(x):
          e = tf.exp(x)
          def grad(dy):
              return dy * (1 - 1 / (1 + e))
          return tf.log(1 + e), grad

    Raises:
      NotImplementedError: `grad_fn` takes `variables` (gradients for variables read in `f`).
    """
    if f is None:
        return custom_gradient

    @functools.wraps(f)
    def decorated(*args, **kwargs):
        if kwargs:
            raise ValueError("The custom_gradient decorator currently supports keywords "
                             "arguments only when eager execution is enabled.")
        from flowloom.ops.array import array_ops

        name = "CustomGradient-%d" % next(_uids)
        args = [convert_to_tensor(a) for a in args]
        result, grad_fn = f(*args)
        if "variables" in inspect.signature(grad_fn).parameters:
            raise NotImplementedError("tf.custom_gradient with gradients for variables")
        flat_result = [convert_to_tensor(r) for r in _flatten(result)]
        n_results = len(flat_result)

        @RegisterGradient(name)
        def _(unused_op, *result_grads):
            input_grads = _flatten(grad_fn(*result_grads[:n_results]))
            if len(input_grads) != len(args):
                raise ValueError(f"custom_gradient function expected to return {len(args)} "
                                 f"gradients but returned {len(input_grads)} instead.")
            return [None] * n_results + input_grads

        with get_default_graph().gradient_override_map({"IdentityN": name}):
            all_tensors = array_ops.identity_n(flat_result + args)
        return _pack_like(result, all_tensors[:n_results])
    return decorated
