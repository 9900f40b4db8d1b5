"""`tf.debugging.assert_shapes`: shapes of several tensors and the relations of their sizes.

A shape is an iterable of size entries: an int (or anything `int()` accepts) is an explicit
size, `None` or `'.'` is any size, any other hashable names a size that must be the same
wherever it appears. A first entry `...` or `'*'` lets any number of outer dimensions come
before the listed inner ones. A scalar and a shape of length zero both count as one dimension
of size one. What is known while building is checked at once (ValueError); the rest becomes
Assert ops, grouped under control dependencies on the rank checks.
"""

from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.checks import check_ranks, logging_ops
from flowloom.ops.control_flow import control_flow_ops
from flowloom.ops.math import math_ops


def _dimension_sizes(x):
    """Sizes of `x`'s dimensions: ints where known, scalar tensors otherwise (scalar: [1])."""
    rank = x._shape.ndims
    if rank == 0:
        return [1]
    shape = array_ops.shape(x)
    if rank is not None:
        return [d if d is not None else shape[i] for i, d in enumerate(x._shape.as_list())]
    return control_flow_ops.cond(math_ops.equal(array_ops.rank(x), 0),
                                 lambda: array_ops.constant([1]), lambda: shape)


def _known(size):
    if size is None:
        return False
    try:
        int(size)
    except (TypeError, ValueError):
        return False
    return True


def _parse(tensor, symbolic, message):
    """(innermost, symbols) of one specified shape; raises ValueError for a misused `...`."""
    if not (hasattr(symbolic, "__iter__") or hasattr(symbolic, "__getitem__")):
        raise ValueError(f"{message}.  Tensor {tensor.name}.  Specified shape must be an "
                         "iterable.  An iterable has the attribute `__iter__` or "
                         f"`__getitem__`.  Received specified shape: {symbolic}")
    symbols = tuple(symbolic)
    innermost = False
    for i, s in enumerate(symbols):
        if s is Ellipsis or (isinstance(s, str) and s == "*"):
            if i != 0:
                raise ValueError(
                    f"{message}.  Tensor {tensor.name} specified shape index {i}.  Symbol "
                    "`...` or `*` for a variable number of unspecified dimensions is only "
                    "allowed as the first entry")
            innermost = True
    if innermost:
        symbols = symbols[1:]
    return innermost, symbols or (1,)


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Asserts tensor shapes and the relations of dimension sizes between tensors.

    Example:

    ```python
    tf.debugging.assert_shapes([(x, ('N', 'Q')), (y, ('N', 'D')), (param, ('Q',)),
                                (scalar, ())])
    ```

    Args:
      shapes: A dict or an iterable of (`Tensor`, shape) pairs. A shape of `None` is no
        constraint.
      data: The tensors to print out if a condition is False. Defaults to the error message
        and the shape of the violating tensor.
      summarize: Print this many entries of each tensor.
      message: A string to prefix to the default message.
      name: A name for this operation (optional). Defaults to "assert_shapes".

    Returns:
      Op raising `InvalidArgumentError` unless all shape constraints hold; a `no_op`
      (an empty group) when static checks determine that they do.

    Raises:
      ValueError: If static checks determine that a constraint is violated.
    """
    if isinstance(shapes, dict):
        shapes = shapes.items()
    shapes = list(shapes)
    message = message or ""
    with name_scope(name, "assert_shapes", [t for t, _ in shapes] + list(data or [])):
        specs = []
        for tensor, symbolic in shapes:
            if symbolic is None:
                continue
            tensor = convert_to_tensor(tensor)
            innermost, symbols = _parse(tensor, symbolic, message)
            specs.append((tensor, innermost, _dimension_sizes(tensor), symbols))
        rank_checks = []
        for tensor, innermost, _, symbols in specs:
            rank = len(symbols)
            if innermost:
                if rank <= 1:
                    continue
                check = check_ranks.assert_rank_at_least(tensor, rank, data=data,
                                                         summarize=summarize, message=message)
            elif rank <= 1:
                # Rank 0 is rank 1 of size 1 here.
                check = check_ranks.assert_rank_in(tensor, [0, 1], data=data,
                                                   summarize=summarize, message=message)
            else:
                check = check_ranks.assert_rank(tensor, rank, data=data, summarize=summarize,
                                                message=message)
            rank_checks.append(check)
        size_checks = []
        named = {}
        for tensor, innermost, actual, symbols in specs:
            for i, symbol in enumerate(symbols):
                if symbol is None or (isinstance(symbol, str) and symbol == "."):
                    continue
                dim = i - len(symbols) if innermost else i
                if _known(symbol):
                    wanted, how = int(symbol), "Specified explicitly"
                elif symbol in named:
                    wanted, by, at = named[symbol]
                    how = f"Specified by tensor {by.name} dimension {at}"
                else:
                    named[symbol] = (actual[dim], tensor, dim)
                    continue
                size = actual[dim]
                if _known(size) and _known(wanted):
                    if int(size) != int(wanted):
                        raise ValueError(
                            f"{message}.  {how}.  Tensor {tensor.name} dimension {dim} must "
                            f"have size {int(wanted)}.  Received size {int(size)}, shape "
                            f"{tensor._shape}")
                    continue
                condition = math_ops.equal(convert_to_tensor(size), convert_to_tensor(wanted))
                this_data = data
                if data is None:
                    this_data = [message, how, f"Tensor {tensor.name} dimension", dim,
                                 "must have size", wanted, "Received shape: ",
                                 array_ops.shape(tensor)]
                size_checks.append(logging_ops.Assert_(condition, this_data,
                                                       summarize=summarize))
        with control_dependencies(rank_checks):
            return control_flow_ops.group(*size_checks)
