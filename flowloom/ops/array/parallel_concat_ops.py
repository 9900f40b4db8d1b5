"""`tf.parallel_stack`: the ParallelConcat op (TF's op type), rows of a known output shape.

ParallelConcat takes N inputs of shape [1, ...] and a fully defined output `shape` whose
first dimension is N; its output is the inputs concatenated along axis 0. Unlike Pack, the
output shape is fixed when the graph is built (TF may start copying inputs as they arrive);
it has no gradient (tf.gradients raises LookupError, as TF).

Example:
  tf.parallel_stack([tf.constant([1, 2]), tf.constant([3, 4])])   # [[1, 2], [3, 4]]
"""

from flowloom.framework import tensor_shape
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor

ParallelConcat = defop("ParallelConcat", inputs=["values: N * T"], outputs=["output: T"],
                       attrs={"shape": None})


@ParallelConcat.shape
def _(op):
    shape = tensor_shape.as_shape(op.get_attr("shape"))
    if not shape.is_fully_defined():
        raise ValueError("shape attr must be fully defined.")
    row = tensor_shape.TensorShape([1]).concatenate(shape[1:])
    for i, t in enumerate(op.inputs):
        if not t.shape.is_fully_defined():
            raise ValueError("All input shapes must be fully defined.")
        if t.shape.ndims == 0 or t.shape.dims[0].value != 1:
            raise ValueError("Size of first dimension must be 1.")
        if not t.shape.is_compatible_with(row):
            raise ValueError(f"From merging shape {i} with other shapes.")
    return [shape]


@ParallelConcat.kernel
def _(xp, *values, shape):
    return xp.concatenate(values, axis=0)



def parallel_concat(values, shape, name=None):
    """`values` (each of shape [1, ...]) concatenated along axis 0 into `shape`."""
    return apply_op("ParallelConcat", [list(values)], name=name,
                    shape=tensor_shape.as_shape(shape)).outputs[0]


def parallel_stack(values, name="parallel_stack"):
    """Stacks the rank-R tensors `values` into one rank-(R+1) tensor, in parallel.

    Unlike `tf.stack`, every input must have the same fully defined shape, known when the
    graph is built, and the result has no gradient.

    Args:
      values: A list of `Tensor`s (or one array, stacked by rows) of the same shape and type.
      name: A name for the operation.

    Returns:
      A `Tensor` of shape [len(values)] + values[0].shape.
    """
    from flowloom.ops.array import array_ops

    with name_scope(name):
        value_shape = convert_to_tensor(values[0]).get_shape()
        output_shape = tensor_shape.TensorShape([len(values)]).concatenate(value_shape)
        return parallel_concat([array_ops.expand_dims(v, 0) for v in values], output_shape)
