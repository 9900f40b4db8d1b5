"""Shape functions shared by many op types."""

from flowloom.framework import tensor_shape
from flowloom.framework.tensor_shape import TensorShape


def unchanged(op):
    """Output 0 has the shape of input 0 (elementwise unary ops, Identity...)."""
    return op._inputs[0]._shape


# (dims of a, dims of b) -> their broadcast shape: a model broadcasts few distinct pairs
# (a bias over a batch, a scalar over a weight). Bounded; errors are not kept.
_broadcasts = {}


def broadcast(a, b):
    """The static shape of `a op b` under NumPy/TF broadcasting; ValueError if impossible."""
    if a._dims is None or b._dims is None:
        return tensor_shape.unknown_shape()
    x, y = a._dims, b._dims
    if x == y and None not in x:
        return a
    key = (x, y)
    got = _broadcasts.get(key)
    if got is None:
        got = _broadcast_dims(x, y)
        if len(_broadcasts) < 4096:
            _broadcasts[key] = got
    return got


def _broadcast_dims(x, y):
    if len(x) < len(y):
        x = (1,) * (len(y) - len(x)) + x
    else:
        y = (1,) * (len(x) - len(y)) + y
    out = []
    for i, j in zip(x, y):
        if i == j:
            out.append(i)
        elif i == 1:
            out.append(j)
        elif j == 1:
            out.append(i)
        elif i is None:
            out.append(j if j is not None and j > 1 else None)
        elif j is None:
            out.append(i if i > 1 else None)
        else:
            raise ValueError(f"Dimensions must be equal, but are {i} and {j}")
    return TensorShape._from_values(tuple(out))


def merge(a, b):
    """TF's InferenceContext::Merge of two shapes, with its error words (ValueError)."""
    if a.ndims is None or b.ndims is None:
        return a.merge_with(b)
    if a.ndims != b.ndims:
        raise ValueError(f"Shapes must be equal rank, but are {a.ndims} and {b.ndims}")
    for k, (x, y) in enumerate(zip(a._dims, b._dims)):
        if x is not None and y is not None and x != y:
            fmt = lambda s: "[" + ",".join("?" if d is None else str(d) for d in s) + "]"  # noqa: E731
            raise ValueError(f"Dimension {k} in both shapes must be equal, but are {x} and {y}. "
                             f"Shapes are {fmt(a._dims)} and {fmt(b._dims)}.")
    return a.merge_with(b)


def is_broadcast_compatible(shape_x, shape_y):
    """True if some shape exists that both TensorShapes broadcast to (False when either rank
    is unknown), as TF's `common_shapes.is_broadcast_compatible`."""
    if shape_x.ndims is None or shape_y.ndims is None:
        return False
    try:
        broadcast(shape_x, shape_y)
    except ValueError:
        return False
    return True


def broadcast_shape(shape_x, shape_y):
    """The TensorShape two TensorShapes broadcast to (TF's `common_shapes.broadcast_shape`).

    Raises:
      ValueError: the shapes cannot be broadcast together.
    """
    try:
        return broadcast(shape_x, shape_y)
    except ValueError:
        raise ValueError(f"Incompatible shapes for broadcasting: {shape_x} and {shape_y}") \
            from None


def binary_broadcast(op):
    return broadcast(op._inputs[0]._shape, op._inputs[1]._shape)


def scalar_shape(op):
    return tensor_shape.scalar()


def no_outputs(op):
    return []


def unknown_shape(op):
    """Every output of `op` has an unknown shape."""
    return [tensor_shape.unknown_shape() for _ in op.outputs]


class RegisterShape:
    """No longer used (`tf.RegisterShape`): accepted and ignored, as in TF 1.15.

    Was a decorator registering a Python shape function for an op type; TF 1.15 takes shape
    functions from the op's C++ registration and flowloom from its op registry.

        @tf.RegisterShape("MyOp")
        def _my_op_shape(op):
          ...
    """

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, f):
        return f
