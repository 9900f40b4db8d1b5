"""`tf.switch_case`: run the branch whose integer key equals `branch_index`.

TF 1.15 builds a functional `Case` op here; flowloom builds TF1 dataflow conditionals (as
`tf.case` does): the index is clamped as TF's Case clamps it (a value outside
[0, len(branches)) selects the last branch, which is `default` when given), then nested
`cond`s on `index == key` select exactly one branch, so only that branch's ops run and
gradients flow through the chosen branch only.
"""

from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops


def _canonical_branches(branch_fns, default, branch_index):
    """The list of branch callables, ordered by key, `default` last (TF's checks)."""
    if not isinstance(branch_index, Tensor):
        raise TypeError(f"branch_index must a Tensor, got {type(branch_index)}")
    if not branch_index.dtype.is_integer:
        raise TypeError(f"branch_index must an integer Tensor, got {branch_index.dtype}")
    if not branch_fns:
        raise ValueError("Must provide at least one item in branch_fns")
    if not isinstance(branch_fns, (list, tuple, dict)):
        raise TypeError("branch_fns must be a list, tuple, or dict")
    if isinstance(branch_fns, dict):
        branch_fns = list(branch_fns.items())
    if all(callable(fn) for fn in branch_fns):
        branch_fns = list(enumerate(branch_fns))
    for pair in branch_fns:
        if not isinstance(pair, tuple) or len(pair) != 2:
            raise TypeError("Each entry in branch_fns must be a 2-tuple")
        key, fn = pair
        if not isinstance(key, int) or isinstance(key, bool):
            raise TypeError(f"key must be a Python `int`, got {type(key)}")
        if not callable(fn):
            raise TypeError(f"fn for key {key} must be callable.")
    keys = [k for k, _ in branch_fns]
    if min(keys) < 0 or max(keys) >= len(keys) or len(set(keys)) != len(keys):
        raise ValueError(f"branch indices (keys) must form contiguous range of [0 to "
                         f"{len(keys)}) but found {{{','.join(map(str, sorted(keys)))}}}")
    actions = [fn for _, fn in sorted(branch_fns, key=lambda p: p[0])]
    if default is not None:
        if not callable(default):
            raise TypeError("default must be callable.")
        actions.append(default)
    return actions


def switch_case(branch_index, branch_fns, default=None, name="switch_case"):
    """Creates an integer-indexed conditional: runs `branch_fns[branch_index]`.

    Args:
      branch_index: An int32 or int64 scalar `Tensor` selecting the branch.
      branch_fns: A dict of `int` key -> callable, a list of (int, callable) pairs, or a
        list of callables (keyed by position). The keys must be 0 .. len - 1.
      default: Optional callable run when no key matches (else the last branch runs).
      name: A name for this operation (optional).

    Returns:
      The tensors returned by the selected callable.

    Raises:
      TypeError: If `branch_index` is not an integer `Tensor`, or `branch_fns` is malformed.
      ValueError: If `branch_fns` is empty or its keys are not contiguous from 0.
    """
    from flowloom.ops.control_flow.cond import cond

    actions = _canonical_branches(branch_fns, default, branch_index)
    with name_scope(name, "switch_case", [branch_index]):
        n = len(actions)
        if n == 1:
            return actions[0]()
        index = math_ops.cast(branch_index, "int32")
        out_of_range = math_ops.logical_or(math_ops.less(index, 0),
                                           math_ops.greater_equal(index, n))
        index = array_ops.where(out_of_range, array_ops.fill([], n - 1), index)

        def build(k):
            if k == n - 1:
                return actions[k]()
            return cond(math_ops.equal(index, k), actions[k], lambda: build(k + 1),
                        name=f"branch_{k}")

        return build(0)
