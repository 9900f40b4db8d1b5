"""MatMul and BatchMatMulV2, with their gradients."""



import numpy as np

from flowloom.framework import common_shapes
from flowloom.framework import errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.array import array_ops
from flowloom.ops.nn import kernel_threads
from flowloom.runtime import blas_threads
from flowloom.ops.math import unary_ops
from flowloom.ops.math.reduction_ops import reduce_sum


# -- MatMul ------------------------------------------------------------------------------------
MatMul = defop("MatMul", inputs=["a: T", "b: T"], outputs=["product: T"],
               attrs={"transpose_a": False, "transpose_b": False, "grad_a": False,
                      "grad_b": False})


@MatMul.shape
def _(op):
    a, b = (t._shape for t in op._inputs)
    if a.ndims is not None and a.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {a.ndims}")
    if b.ndims is not None and b.ndims != 2:
        raise ValueError(f"Shape must be rank 2 but is rank {b.ndims}")
    ad = a.as_list() if a.ndims is not None else [None, None]
    bd = b.as_list() if b.ndims is not None else [None, None]
    if op._attrs["transpose_a"]:
        ad = ad[::-1]
    if op._attrs["transpose_b"]:
        bd = bd[::-1]
    if ad[1] is not None and bd[0] is not None and ad[1] != bd[0]:
        raise ValueError(f"Dimensions must be equal, but are {ad[1]} and {bd[0]}")
    return TensorShape([ad[0], bd[1]])


@MatMul.kernel
def matmul_kernel(xp, a, b, *, transpose_a, transpose_b):
    if transpose_a:
        a = a.T
    if transpose_b:
        b = b.T
    if a.shape[1] != b.shape[0]:
        raise errors.InvalidArgumentError(
            None, None, f"Matrix size-incompatible: In[0]: [{a.shape[0]},{a.shape[1]}], "
            f"In[1]: [{b.shape[0]},{b.shape[1]}]")
    if kernel_threads.splits_matmul(xp, a, b):  # BLAS on one thread: our workers share it
        return kernel_threads.matmul(a, b)
    return blas_threads.matmul(xp, a, b)


def _bind_matmul(xp, op):
    # On the host, a 2-D product small enough that BLAS runs it on this thread whatever its
    # thread count (blas_threads.ONE_THREAD_MACS) is NumPy's matmul itself; anything else
    # goes through the kernel.
    if xp is not np:
        return None
    ta, tb = op._attrs["transpose_a"], op._attrs["transpose_b"]
    small = blas_threads.ONE_THREAD_MACS

    def matmul_host(a, b):
        x = a.T if ta else a
        y = b.T if tb else b
        if type(x) is np.ndarray and type(y) is np.ndarray and x.ndim == 2 and y.ndim == 2:
            m, k = x.shape
            if k == y.shape[0] and m * k * y.shape[1] <= small:
                return np.matmul(x, y)
        return matmul_kernel(np, a, b, transpose_a=ta, transpose_b=tb)
    return matmul_host


matmul_kernel.bind = _bind_matmul


@MatMul.gradient
def _(op, grad):
    a, b = op._inputs
    t_a, t_b = op._attrs["transpose_a"], op._attrs["transpose_b"]

    def mm(x, y, ta=False, tb=False):
        return apply_op("MatMul", (x, y), transpose_a=ta, transpose_b=tb)._outputs[0]
    if not t_a and not t_b:
        return mm(grad, b, tb=True), mm(a, grad, ta=True)
    if not t_a and t_b:
        return mm(grad, b), mm(grad, a, ta=True)
    if t_a and not t_b:
        return mm(b, grad, tb=True), mm(a, grad)
    return mm(b, grad, ta=True, tb=True), mm(grad, a, ta=True, tb=True)


BatchMatMulV2 = defop("BatchMatMulV2", inputs=["x: T", "y: T"], outputs=["output: T"],
                      attrs={"adj_x": False, "adj_y": False})


@BatchMatMulV2.shape
def _(op):
    a, b = (t._shape for t in op._inputs)
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    ad, bd = a.as_list(), b.as_list()
    if op._attrs["adj_x"]:
        ad[-2:] = ad[-2:][::-1]
    if op._attrs["adj_y"]:
        bd[-2:] = bd[-2:][::-1]
    if ad[-1] is not None and bd[-2] is not None and ad[-1] != bd[-2]:
        raise ValueError(f"Dimensions must be equal, but are {ad[-1]} and {bd[-2]}")
    batch = common_shapes.broadcast(TensorShape(ad[:-2]), TensorShape(bd[:-2]))
    return batch.concatenate([ad[-2], bd[-1]])


@BatchMatMulV2.kernel
def _(xp, x, y, *, adj_x, adj_y):
    if adj_x:
        x = xp.swapaxes(x, -1, -2).conj()
    if adj_y:
        y = xp.swapaxes(y, -1, -2).conj()
    return xp.matmul(x, y)


@BatchMatMulV2.gradient
def _(op, grad):
    from flowloom.ops.array import broadcast_ops

    x, y = op._inputs
    adj_x, adj_y = op._attrs["adj_x"], op._attrs["adj_y"]
    if not adj_x:
        if not adj_y:
            gx, gy = matmul(grad, y, adjoint_b=True), matmul(x, grad, adjoint_a=True)
        else:
            gx, gy = matmul(grad, y), matmul(grad, x, adjoint_a=True)
    else:
        if not adj_y:
            gx, gy = matmul(y, grad, adjoint_b=True), matmul(x, grad)
        else:
            gx = matmul(y, grad, adjoint_a=True, adjoint_b=True)
            gy = matmul(grad, x, adjoint_a=True, adjoint_b=True)
    sx, sy = x._shape, y._shape
    may_have_batch = (sx.ndims is None or sx.ndims > 2) or (sy.ndims is None or sy.ndims > 2)
    batch_match = (sx.ndims is not None and sy.ndims is not None and
                   sx[:-2].is_fully_defined() and sy[:-2].is_fully_defined() and
                   sx[:-2] == sy[:-2])
    if not may_have_batch or batch_match:
        return gx, gy
    shape_x, shape_y = array_ops.shape(x), array_ops.shape(y)
    rx, ry = broadcast_ops.broadcast_gradient_args(shape_x[:-2], shape_y[:-2])
    return (array_ops.reshape(reduce_sum(gx, rx), shape_x),
            array_ops.reshape(reduce_sum(gy, ry), shape_y))


def matmul(a, b, transpose_a=False, transpose_b=False, adjoint_a=False, adjoint_b=False,
           a_is_sparse=False, b_is_sparse=False, name=None):
    """Matrix product `a @ b` (batched when the inputs have rank > 2)."""
    with name_scope(name, "MatMul", [a, b]) as scope:
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b", dtype=a.dtype.base_dtype)
        ra, rb = a._shape.ndims, b._shape.ndims
        if a.dtype.base_dtype.is_complex:
            # The adjoint conjugates; MatMul's transpose attrs only transpose (as in TF).
            if adjoint_a:
                a = unary_ops.conj(a)
            if adjoint_b:
                b = unary_ops.conj(b)
        if (ra is not None and ra > 2) or (rb is not None and rb > 2):
            return apply_op("BatchMatMulV2", (a, b), name=scope,
                            adj_x=transpose_a or adjoint_a,
                            adj_y=transpose_b or adjoint_b)._outputs[0]
        return apply_op("MatMul", (a, b), name=scope, transpose_a=transpose_a or adjoint_a,
                        transpose_b=transpose_b or adjoint_b).outputs[0]


def _matmul_flops(graph, node):
    """MatMul's "flops" statistic: 2 * k * (output elements), shapes from the graph."""
    from flowloom.framework import graph_util
    from flowloom.framework.op_stats import OpStats

    a_shape = graph_util.tensor_shape_from_node_def_name(graph, node.input[0])
    a_shape.assert_is_fully_defined()
    k = int(a_shape[0]) if node.attr["transpose_a"].b else int(a_shape[1])
    output_shape = graph_util.tensor_shape_from_node_def_name(graph, node.name)
    output_shape.assert_is_fully_defined()
    count = 1
    for d in output_shape.as_list():
        count *= int(d)
    return OpStats("flops", k * count * 2)


def _register_statistics():
    from flowloom.framework.op_stats import RegisterStatistics

    RegisterStatistics("MatMul", "flops")(_matmul_flops)


_register_statistics()
