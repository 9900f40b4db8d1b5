"""`tf.cond` and `tf.case`, built from Switch and Merge as TF1 builds them."""

from flowloom.framework import nest
from flowloom.framework.graph import add_to_collection, get_default_graph, name_scope, GraphKeys
from flowloom.framework.ops import Operation, Tensor, convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.control_flow.control_flow_context import CondContext


def _unpack_if_singleton(res):
    if isinstance(res, (list, tuple)) and len(res) == 1:
        return res[0]
    return res


def _build_branch(context, fn):
    """Calls `fn` inside `context`; returns (what fn returned, the branch's output tensors)."""
    original = fn()
    if original is None:
        return None, None
    # SparseTensors and IndexedSlices go through component by component.

    def process(v):
        if isinstance(v, Operation):
            # An op result: the pivot stands for it, gated on the op.
            return control_flow_ops.with_dependencies([v], context.pivot)
        # As TF: a variable returned by a branch is its value (`v/read`), not its ref.
        return context.ProcessOutputTensor(convert_to_tensor(_flow_of(v)))

    result = nest.map_structure(process, original, expand_composites=True)
    if not isinstance(result, (list, tuple)):
        result = [result]
    return original, result


def _is_tensor_array(v):
    return type(v).__name__ == "TensorArray" and hasattr(v, "flow")


def _flow_of(v):
    return v.flow if _is_tensor_array(v) else v


def _from_flow(original, tensor):
    if _is_tensor_array(original):
        return original._with_flow(tensor)
    return tensor


def cond(pred, true_fn=None, false_fn=None, strict=False, name=None, fn1=None, fn2=None):
    """Returns `true_fn()` if `pred` is true else `false_fn()` (TF1 dataflow `cond`).

    Ops created inside `true_fn` and `false_fn` run only in the taken branch; tensors created
    outside them are computed regardless of `pred`. Branch outputs are joined by Merge ops.

    Args:
      pred: a scalar bool tensor.
      true_fn, false_fn: callables returning the same nested structure of tensors (or ops).
      strict: if False, singleton lists/tuples returned by the branches are unpacked.
      name: the name scope (default "cond").

    Returns:
      The structure returned by the branches, its tensors being the merged values.

    Raises:
      TypeError: `pred` is a Python bool, a function is not callable, or the branches return
        different structures.
      ValueError: the branches return values of different dtypes, or nothing.

    Example:
      z = tf.cond(x < y, lambda: tf.add(x, z), lambda: tf.square(y))
    """
    if fn1 is not None:
        if true_fn is not None:
            raise TypeError("cond(): true_fn and fn1 may not be set simultaneously.")
        true_fn = fn1
    if fn2 is not None:
        if false_fn is not None:
            raise TypeError("cond(): false_fn and fn2 may not be set simultaneously.")
        false_fn = fn2
    if not callable(true_fn):
        raise TypeError("'true_fn' must be callable.")
    if not callable(false_fn):
        raise TypeError("'false_fn' must be callable.")
    with name_scope(name, "cond", [pred]):
        if isinstance(pred, bool):
            raise TypeError("'pred' must not be a Python bool.")
        pred = convert_to_tensor(pred)
        p_2, p_1 = control_flow_ops.switch(pred, pred)
        pivot_1 = array_ops.identity(p_1, name="switch_t")
        pivot_2 = array_ops.identity(p_2, name="switch_f")
        pred = array_ops.identity(pred, name="pred_id")
        graph = pred.graph
        for t in (p_1, p_2, pivot_1, pivot_2, pred):
            graph.prevent_fetching(t._op)

        context_t = CondContext(pred, pivot_1, branch=1)
        try:
            context_t.Enter()
            orig_res_t, res_t = _build_branch(context_t, true_fn)
            if orig_res_t is None:
                raise ValueError("true_fn must have a return value.")
            context_t.ExitResult(res_t)
        finally:
            context_t.Exit()

        context_f = CondContext(pred, pivot_2, branch=0)
        try:
            context_f.Enter()
            orig_res_f, res_f = _build_branch(context_f, false_fn)
            if orig_res_f is None:
                raise ValueError("false_fn must have a return value.")
            context_f.ExitResult(res_f)
        finally:
            context_f.Exit()

        if not strict:
            orig_res_t = _unpack_if_singleton(orig_res_t)
            orig_res_f = _unpack_if_singleton(orig_res_f)
        nest.assert_same_structure(orig_res_t, orig_res_f)
        nest.assert_same_structure(orig_res_t, orig_res_f, expand_composites=True)
        if not res_t:
            raise ValueError("`true_fn` and `false_fn` must return at least one result.")
        res_t, res_f = _cast_indexed_slice_indices(res_t, res_f)
        res_t_flat = nest.flatten(res_t, expand_composites=True)
        res_f_flat = nest.flatten(res_f, expand_composites=True)
        for x, y in zip(res_t_flat, res_f_flat):
            if x.dtype.base_dtype != y.dtype.base_dtype:
                raise ValueError(
                    "Outputs of 'true_fn' and 'false_fn' must have the same type(s). Received "
                    f"{x.dtype.name} from 'true_fn' and {y.dtype.name} from 'false_fn'.")
        merges = [control_flow_ops.merge([f, t])[0] for f, t in zip(res_f_flat, res_t_flat)]
        merges = [_from_flow(o, m) for o, m in
                  zip(nest.flatten(orig_res_t, expand_composites=True), merges)]
        if context_t.outer_context is None:
            add_to_collection(GraphKeys.COND_CONTEXT, context_t)
            add_to_collection(GraphKeys.COND_CONTEXT, context_f)
        merges = nest.pack_sequence_as(orig_res_t, merges, expand_composites=True)
        if not strict:
            merges = _unpack_if_singleton(merges)
        return merges


def _cast_indexed_slice_indices(a, b):
    """Both branches' IndexedSlices with int64 indices where one of the pair has int64 (TF
    casts the int32 side)."""
    from flowloom.framework.indexed_slices import IndexedSlices
    from flowloom.ops.math import math_ops

    fa, fb = nest.flatten(a), nest.flatten(b)
    for i, (x, y) in enumerate(zip(fa, fb)):
        if isinstance(x, IndexedSlices) and isinstance(y, IndexedSlices) and \
                x.indices.dtype.base_dtype != y.indices.dtype.base_dtype:
            fa[i], fb[i] = [IndexedSlices(s.values, math_ops.cast(s.indices, "int64"),
                                          s.dense_shape) if s.indices.dtype.name == "int32"
                            else s for s in (x, y)]
    return nest.pack_sequence_as(a, fa), nest.pack_sequence_as(b, fb)


def case(pred_fn_pairs, default=None, exclusive=False, strict=False, name="case"):
    """Runs the function of the first true predicate in `pred_fn_pairs` (else `default`).

    Built as TF1 builds it: nested `cond`s, the first pair outermost. Without `default`, the
    last pair's function is the default, guarded by assertions that its predicate is true and
    no other is.

    Args:
      pred_fn_pairs: a list of (bool tensor, callable) pairs, or a dict of them.
      default: the callable to run if no predicate is true.
      exclusive: if True, an assertion checks that at most one predicate is true.
      strict, name: as in `cond`.

    Returns:
      The result of the selected callable.

    Raises:
      TypeError: `pred_fn_pairs` is not a list or dict of pairs, a predicate is not a bool
        tensor, or a function is not callable.
    """
    if not isinstance(pred_fn_pairs, (list, tuple, dict)):
        raise TypeError("fns must be a list, tuple, or dict")
    if isinstance(pred_fn_pairs, dict):
        pred_fn_pairs = list(pred_fn_pairs.items())
    for pair in pred_fn_pairs:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in pred_fn_pairs must be a 2-tuple")
        pred, fn = pair
        if not isinstance(pred, Tensor):
            raise TypeError(f"pred must be Tensor of type bool, received {pred!r}")
        if pred.dtype.base_dtype.name != "bool":
            raise TypeError(f"pred must be Tensor of type bool: {pred.name}")
        if not callable(fn):
            raise TypeError(f"fn for pred {pred.name} must be callable.")
    if default is not None and not callable(default):
        raise TypeError("default must be callable.")
    preds = [p for p, _ in pred_fn_pairs]
    fns = [f for _, f in pred_fn_pairs]
    with name_scope(name, "case", [preds]):
        if default is None:
            default, preds, fns = _default_action(preds, fns)
        fn = default
        for pred, action in reversed(list(zip(preds, fns))):
            fn = _chain(pred, action, fn, strict)
        if exclusive:
            with get_default_graph().control_dependencies(
                    [_assert_at_most_n_true(preds, 1, "Input error: exclusive=True")]):
                return fn()
        return fn()


def _assert_at_most_n_true(predicates, n, msg):
    from flowloom.ops.checks import logging_ops
    from flowloom.ops.math import math_ops

    preds_c = array_ops.stack(predicates, name="preds_c")
    num_true = math_ops.reduce_sum(math_ops.cast(preds_c, "int32"), name="num_true_conds")
    condition = math_ops.less_equal(num_true, array_ops.constant(n, name="n_true_conds"))
    names = ", ".join(getattr(p, "name", "?") for p in predicates)
    data = [f"{msg}: more than {n} conditions ({names}) evaluated as True:", preds_c]
    return logging_ops.Assert_(condition, data, summarize=len(predicates))


def _default_action(preds, fns):
    """The last pair becomes the default, checked to be the only true predicate."""
    from flowloom.ops.checks import logging_ops

    k = len(preds) - 1
    predicate, action = preds[k], fns[k]
    others, other_fns = preds[:k], fns[:k]

    def default_action():
        others_msg = ("Implementation error: selected default action #%d was called, but some "
                      "of other predicates are True: " % k)
        default_msg = ("Input error: None of conditions evaluated as True:",
                       array_ops.stack(preds, name="preds_c"))
        with get_default_graph().control_dependencies([
                _assert_at_most_n_true(others, 0, others_msg),
                logging_ops.Assert_(predicate, list(default_msg))]):
            return action()

    return default_action, others, other_fns


def _chain(pred, true_fn, false_fn, strict):
    return lambda: cond(pred, true_fn, false_fn, strict=strict)
