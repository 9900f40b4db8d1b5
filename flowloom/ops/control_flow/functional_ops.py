"""Higher-order functions over the first dimension: `map_fn`, `scan`, `foldl`, `foldr`.

Each is a `while_loop` over TensorArrays, built as TF1 builds them (same op names).
"""

from flowloom.framework import nest
from flowloom.framework import tensor_shape
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.control_flow.while_loop import while_loop


def _structure_codec(structure):
    """(flatten, pack) for `structure`: pack rebuilds a value shaped like it from a flat list."""
    if nest.is_nested(structure):
        return nest.flatten, lambda flat: nest.pack_sequence_as(structure, flat)
    return (lambda x: [x]), (lambda flat: flat[0])


def _leading_dim(t):
    n = t.shape[0].value if t.shape.ndims else None
    return n if n is not None else array_ops.shape(t)[0]


def _static_leading_dim(elems_flat):
    n = tensor_shape.Dimension(None)
    for e in elems_flat:
        if e.shape.ndims is not None and e.shape.ndims < 1:
            raise ValueError(f"Shape {e.shape} must have rank at least 1")
        d = e.shape[0] if e.shape.ndims else tensor_shape.Dimension(None)
        n = n.merge_with(d)
    return n


def _set_leading(results, elems_flat):
    n = _static_leading_dim(elems_flat)
    for r in results:
        rest = r.shape[1:] if r.shape.ndims else tensor_shape.unknown_shape()
        r.set_shape(tensor_shape.TensorShape([n]).concatenate(rest))


def foldl(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """Folds `fn(acc, elem)` over the elements of `elems` (unpacked on dimension 0), first to
    last.

    Args:
      fn: a callable (accumulator, element) -> accumulator.
      elems: a tensor or nested structure of tensors, unpacked along dimension 0.
      initializer: the first accumulator (default: the first element, folding the rest).
      parallel_iterations, back_prop, swap_memory: passed to `while_loop`.
      name: the name scope (default "foldl").

    Returns:
      The final accumulator.

    Raises:
      TypeError: `fn` is not callable.

    Example:
      tf.foldl(lambda a, x: a + x, tf.constant([1, 2, 3]))  # 6
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, "foldl", [elems]):
        elems_flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        n = _leading_dim(elems_flat[0])
        elems_ta = nest.pack_sequence_as(elems, [
            TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e)
            for e in elems_flat])
        if initializer is None:
            a = nest.map_structure(lambda ta: ta.read(0), elems_ta)
            i = array_ops.constant(1)
        else:
            a = initializer
            i = array_ops.constant(0)

        def compute(i, a):
            elem_i = nest.map_structure(lambda ta: ta.read(i), elems_ta)
            a = fn(a, elem_i)
            return [i + 1, a]

        _, r_a = while_loop(lambda i, a: i < n, compute, [i, a],
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        return r_a


def foldr(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
          swap_memory=False, name=None):
    """Folds `fn(acc, elem)` over the elements of `elems`, last to first (see `foldl`).

    Raises:
      TypeError: `fn` is not callable.
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    with name_scope(name, "foldr", [elems]):
        elems_flat = [convert_to_tensor(e, name="elem") for e in nest.flatten(elems)]
        n = _leading_dim(elems_flat[0])
        elems_ta = nest.pack_sequence_as(elems, [
            TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True).unstack(e)
            for e in elems_flat])
        if initializer is None:
            i = n - 1
            a = nest.map_structure(lambda ta: ta.read(i), elems_ta)
        else:
            i = n
            a = initializer

        def compute(i, a):
            i -= 1
            elem = nest.map_structure(lambda ta: ta.read(i), elems_ta)
            a_out = fn(a, elem)
            return [i, a_out]

        _, r_a = while_loop(lambda i, a: i > 0, compute, [i, a],
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        return r_a


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """Applies `fn` to each element of `elems` (unpacked on dimension 0) and stacks the
    results.

    Args:
      fn: a callable element -> result.
      elems: a tensor or nested structure of tensors.
      dtype: the dtype (structure) of fn's result when it differs from `elems`'.
      parallel_iterations: passed to `while_loop` (default 10).
      back_prop, swap_memory: passed to `while_loop`.
      infer_shape: whether all results must have one shape.
      name: the name scope (default "map").
      fn_output_signature: the same as `dtype`.

    Returns:
      The stacked results, in the structure of `dtype` (or of `elems`).

    Raises:
      TypeError: `fn` is not callable.
      ValueError: fn's result does not have the structure of `dtype`/`elems`.

    Example:
      tf.map_fn(lambda x: x * x, tf.constant([1, 2, 3]))  # [1, 4, 9]
    """
    if fn_output_signature is not None:
        if dtype is not None:
            raise ValueError("Only one of `dtype` and `fn_output_signature` may be given.")
        dtype = fn_output_signature
    if not callable(fn):
        raise TypeError("fn must be callable.")
    if parallel_iterations is None:
        parallel_iterations = 10
    input_flatten, input_pack = _structure_codec(elems)
    output_flatten, output_pack = (input_flatten, input_pack) if dtype is None else \
        _structure_codec(dtype)

    elems_flat = input_flatten(elems)
    with name_scope(name, "map", elems_flat):
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        dtype = dtype or input_pack([e.dtype for e in elems_flat])
        dtype_flat = output_flatten(dtype)
        static = elems_flat[0]._shape
        if static.ndims is not None and static.ndims < 1:
            if len(elems_flat) == 1:
                raise ValueError("elems must be a 1+ dimensional Tensor, not a scalar")
            raise ValueError("elements in elems must be 1+ dimensional Tensors, not scalars")
        n = _leading_dim(elems_flat[0])
        elems_ta = [TensorArray(dtype=e.dtype, size=n, dynamic_size=False, infer_shape=True)
                    for e in elems_flat]
        elems_ta = [ta.unstack(e) for ta, e in zip(elems_ta, elems_flat)]
        i = array_ops.constant(0)
        accs_ta = [TensorArray(dtype=dt, size=n, dynamic_size=False, infer_shape=infer_shape)
                   for dt in dtype_flat]

        def compute(i, tas):
            packed = input_pack([ta.read(i) for ta in elems_ta])
            out = fn(packed)
            nest.assert_same_structure(dtype or elems, out)
            flat_out = output_flatten(out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_out)]
            return (i + 1, tas)

        _, r_a = while_loop(lambda i, _: i < n, compute, (i, accs_ta),
                            parallel_iterations=parallel_iterations, back_prop=back_prop,
                            swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in r_a]
        _set_leading(results, elems_flat)
        return output_pack(results)


def scan(fn, elems, initializer=None, parallel_iterations=10, back_prop=True,
         swap_memory=False, infer_shape=True, reverse=False, name=None):
    """The sequence of accumulators of `fn(acc, elem)` over `elems` (unpacked on dimension
    0), stacked.

    Args:
      fn: a callable (accumulator, element) -> accumulator.
      elems: a tensor or nested structure of tensors.
      initializer: the first accumulator (default: the first element, which is also the
        first output).
      parallel_iterations, back_prop, swap_memory: passed to `while_loop`.
      infer_shape: whether all accumulators must have one shape.
      reverse: scan from last to first.
      name: the name scope (default "scan").

    Returns:
      The stacked accumulators, in the structure of `initializer` (or of `elems`).

    Raises:
      TypeError: `fn` is not callable.

    Example:
      tf.scan(lambda a, x: a + x, tf.constant([1, 2, 3]))  # [1, 3, 6]
    """
    if not callable(fn):
        raise TypeError("fn must be callable.")
    input_flatten, input_pack = _structure_codec(elems)
    output_flatten, output_pack = (input_flatten, input_pack) if initializer is None else \
        _structure_codec(initializer)

    elems_flat = input_flatten(elems)
    with name_scope(name, "scan", elems_flat):
        elems_flat = [convert_to_tensor(e, name="elem") for e in elems_flat]
        n = _leading_dim(elems_flat[0])
        elems_ta = [TensorArray(dtype=e.dtype, size=n, dynamic_size=False,
                                element_shape=e.shape[1:] if e.shape.ndims else None,
                                infer_shape=True) for e in elems_flat]
        elems_ta = [ta.unstack(e) for ta, e in zip(elems_ta, elems_flat)]
        if initializer is None:
            a_flat = [ta.read(n - 1 if reverse else 0) for ta in elems_ta]
            i = 1
        else:
            a_flat = [convert_to_tensor(x) for x in output_flatten(initializer)]
            i = 0
        accs_ta = [TensorArray(dtype=a.dtype, size=n,
                               element_shape=a.shape if infer_shape else None,
                               dynamic_size=False, infer_shape=infer_shape) for a in a_flat]
        if initializer is None:
            accs_ta = [ta.write(n - 1 if reverse else 0, a) for ta, a in zip(accs_ta, a_flat)]

        def compute(i, a_flat, tas):
            packed_elems = input_pack([ta.read(i) for ta in elems_ta])
            packed_a = output_pack(a_flat)
            a_out = fn(packed_a, packed_elems)
            nest.assert_same_structure(elems if initializer is None else initializer, a_out)
            flat_a_out = output_flatten(a_out)
            tas = [ta.write(i, v) for ta, v in zip(tas, flat_a_out)]
            return (i - 1 if reverse else i + 1, flat_a_out, tas)

        if reverse:
            initial_i = n - 1 - i
            condition = lambda i, _1, _2: i >= 0  # noqa: E731
        else:
            initial_i = i
            condition = lambda i, _1, _2: i < n  # noqa: E731
        _, _, r_a = while_loop(condition, compute, (initial_i, a_flat, accs_ta),
                               parallel_iterations=parallel_iterations, back_prop=back_prop,
                               swap_memory=swap_memory, maximum_iterations=n)
        results = [r.stack() for r in r_a]
        _set_leading(results, elems_flat)
        return output_pack(results)
