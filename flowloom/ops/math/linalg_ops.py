"""Matrix ops on the two innermost dimensions (batched): band parts, diagonals, inverses,
determinants, solves, Cholesky, QR and SVD, with TF's gradients where TF has them."""

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor
from flowloom.framework.tensor_shape import TensorShape, unknown_shape
from flowloom.ops.array import array_ops
from flowloom.ops.layout import c_order


def _op(op_type, inputs, name=None, **attrs):
    return apply_op(op_type, inputs, name=name, **attrs).outputs


def _matrix_shape(op, square=False, min_rank=2):
    s = op._inputs[0]._shape
    if s.ndims is None:
        return None
    if s.ndims < min_rank:
        raise ValueError(f"Shape must be at least rank {min_rank} but is rank {s.ndims} "
                         f"for '{op._name}' (op: '{op._type}')")
    dims = s.as_list()
    if square and dims[-1] is not None and dims[-2] is not None and dims[-1] != dims[-2]:
        raise ValueError(f"Dimensions must be equal, but are {dims[-2]} and {dims[-1]} for "
                         f"'{op._name}' (op: '{op._type}')")
    return dims


def _check_square(x, op_type):
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise errors.InvalidArgumentError(
            None, None, f"Input matrix must be square. ({op_type} got shape "
            f"{list(x.shape)})")


def _adjoint(xp, x):
    return xp.conj(xp.swapaxes(x, -1, -2))


# -- MatrixBandPart -----------------------------------------------------------------------------
MatrixBandPart = defop("MatrixBandPart", inputs=["input: T", "num_lower: Tindex",
                                                 "num_upper: Tindex"],
                       outputs=["band: T"], attrs={"Tindex": dtypes.int64})
MatrixBandPart.shape(lambda op: op._inputs[0]._shape)


@MatrixBandPart.kernel
def _(xp, x, num_lower, num_upper):
    m, n = x.shape[-2:]
    lower, upper = int(num_lower), int(num_upper)
    if lower > m or upper > n:
        raise errors.InvalidArgumentError(
            None, None, f"num_lower must be negative or less or equal to number of rows ({m}) "
            f"got: {lower}" if lower > m else f"num_upper must be negative or less or equal "
            f"to number of columns ({n}) got: {upper}")
    i = np.arange(m)[:, None]
    j = np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return xp.where(keep, x, xp.zeros((), x.dtype))


@MatrixBandPart.gradient
def _(op, grad):
    return [matrix_band_part(grad, op._inputs[1], op._inputs[2]), None, None]


def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps the band of each innermost matrix: `num_lower` sub- and `num_upper`
    super-diagonals (negative: all of them); zeros the rest."""
    with name_scope(name, "MatrixBandPart", [input]) as scope:
        x = convert_to_tensor(input, name="input")
        lower = convert_to_tensor(num_lower, dtype=dtypes.int64, name="num_lower")
        upper = convert_to_tensor(num_upper, dtype=dtypes.int64, name="num_upper")
        return _op("MatrixBandPart", (x, lower, upper), name=scope)[0]


# -- MatrixDiag, MatrixDiagPart, MatrixSetDiag (the main diagonal, as TF 1.x builds them) -------
MatrixDiag = defop("MatrixDiag", inputs=["diagonal: T"], outputs=["output: T"])


@MatrixDiag.shape
def _(op):
    dims = _matrix_shape(op, min_rank=1)
    return unknown_shape() if dims is None else TensorShape(dims + dims[-1:])


@MatrixDiag.kernel
def _(xp, d):
    n = d.shape[-1]
    out = xp.zeros(d.shape + (n,), d.dtype)
    idx = np.arange(n)
    out[..., idx, idx] = d
    return out


MatrixDiagPart = defop("MatrixDiagPart", inputs=["input: T"], outputs=["diagonal: T"])


@MatrixDiagPart.shape
def _(op):
    dims = _matrix_shape(op)
    if dims is None:
        return unknown_shape()
    m, n = dims[-2:]
    return TensorShape(dims[:-2] + [None if m is None or n is None else min(m, n)])


@MatrixDiagPart.kernel
def _(xp, x):
    if x.ndim < 2:
        raise errors.InvalidArgumentError(None, None, "input must be at least 2-dim, received "
                                          f"shape: {list(x.shape)}")
    return c_order(xp, xp.diagonal(x, axis1=-2, axis2=-1))


MatrixSetDiag = defop("MatrixSetDiag", inputs=["input: T", "diagonal: T"], outputs=["output: T"])
MatrixSetDiag.shape(lambda op: op._inputs[0]._shape)


@MatrixSetDiag.kernel
def _(xp, x, d):
    k = min(x.shape[-2:])
    if d.shape != x.shape[:-2] + (k,):
        raise errors.InvalidArgumentError(
            None, None, f"diagonal must have shape {list(x.shape[:-2]) + [k]}, received shape "
            f"{list(d.shape)}")
    out = xp.array(x, copy=True)
    idx = np.arange(k)
    out[..., idx, idx] = d
    return out


@MatrixDiag.gradient
def _(op, grad):
    return [matrix_diag_part(grad)]


@MatrixDiagPart.gradient
def _(op, grad):
    x = op._inputs[0]
    if x._shape.is_fully_defined() and x._shape[-1] == x._shape[-2]:
        return [matrix_diag(grad)]
    return [matrix_set_diag(array_ops.zeros_like(x), grad)]


@MatrixSetDiag.gradient
def _(op, grad):
    return [matrix_set_diag(grad, array_ops.zeros_like(op._inputs[1])), matrix_diag_part(grad)]


def _main_diagonal_only(k, num_rows=-1, num_cols=-1, padding_value=0):
    if np.any(np.asarray(k) != 0) or num_rows != -1 or num_cols != -1 or padding_value != 0:
        raise NotImplementedError("matrix diagonals other than the main one (k, num_rows, "
                                  "num_cols, padding_value: MatrixDiagV3) are not implemented")


def matrix_diag(diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0):
    """Batched diagonal matrices with the innermost dimension of `diagonal` on the diagonal."""
    _main_diagonal_only(k, num_rows, num_cols, padding_value)
    return _op("MatrixDiag", (diagonal,), name=name)[0]


def matrix_diag_part(input, name="diag_part", k=0, padding_value=0):  # noqa: A002
    """The main diagonal of each innermost matrix."""
    _main_diagonal_only(k, padding_value=padding_value)
    return _op("MatrixDiagPart", (input,), name=name)[0]


def matrix_set_diag(input, diagonal, name="set_diag", k=0):  # noqa: A002
    """`input` with the main diagonal of each innermost matrix replaced by `diagonal`."""
    _main_diagonal_only(k)
    return _op("MatrixSetDiag", (input, diagonal), name=name)[0]


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (or a batch of them), `num_rows x num_columns`."""
    dtype = dtypes.as_dtype(dtype)
    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        rows = int(num_rows)
        cols = rows if num_columns is None else int(num_columns)
        batch = [] if batch_shape is None else [int(b) for b in batch_shape]
        diag_ones = array_ops.ones(batch + [min(rows, cols)], dtype=dtype)
        if rows == cols:
            return matrix_diag(diag_ones)
        zeros = array_ops.zeros(batch + [rows, cols], dtype=dtype)
        return matrix_set_diag(zeros, diag_ones)


def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Transposes the two innermost dimensions of `a`."""
    with name_scope(name, values=[a]):
        a = convert_to_tensor(a, name="a")
        nd = a._shape.ndims
        if nd is None:
            raise NotImplementedError("matrix_transpose of a tensor of unknown rank")
        if nd < 2:
            raise ValueError(f"Argument 'a' should be a (batch) matrix, with rank >= 2.  "
                             f"Found: {a._shape}")
        perm = list(range(nd - 2)) + [nd - 1, nd - 2]
        return array_ops.transpose(a, perm=perm, conjugate=conjugate)


# -- Diag / DiagPart (tf.diag: any rank) ------------------------------------------------------
Diag = defop("Diag", inputs=["diagonal: T"], outputs=["output: T"])
Diag.shape(lambda op: unknown_shape() if op._inputs[0]._shape.ndims is None else TensorShape(
    op._inputs[0]._shape.as_list() * 2))


@Diag.kernel
def _(xp, d):
    n = d.size
    out = xp.zeros((n, n), d.dtype)
    out[np.arange(n), np.arange(n)] = d.reshape(-1)
    return out.reshape(d.shape * 2)


DiagPart = defop("DiagPart", inputs=["input: T"], outputs=["diagonal: T"])


@DiagPart.shape
def _(op):
    s = op._inputs[0]._shape
    if s.ndims is None:
        return unknown_shape()
    if s.ndims % 2:
        raise ValueError(f"Input must have even rank <= 6, input rank is {s.ndims}")
    return TensorShape(s.as_list()[:s.ndims // 2])


@DiagPart.kernel
def _(xp, x):
    half = x.shape[:x.ndim // 2]
    if x.ndim % 2 or x.shape[x.ndim // 2:] != half:
        raise errors.InvalidArgumentError(None, None, "Invalid shape: the input dimensions "
                                          f"{list(x.shape)} are not [d..., d...]")
    n = int(np.prod(half))
    return c_order(xp, x.reshape(n, n)[np.arange(n), np.arange(n)].reshape(half))


Diag.gradient(lambda op, grad: [_op("DiagPart", (grad,))[0]])
DiagPart.gradient(lambda op, grad: [_op("Diag", (grad,))[0]])


def diag(diagonal, name=None):
    """A tensor with `diagonal` on its diagonal: shape `diagonal.shape * 2`."""
    return _op("Diag", (diagonal,), name=name)[0]


def diag_part(input, name=None):  # noqa: A002
    """The diagonal of a tensor of shape `[d..., d...]`."""
    return _op("DiagPart", (input,), name=name)[0]


def trace(x, name=None):
    """The sum of the main diagonal of each innermost matrix."""
    from flowloom.ops.math.reduction_ops import reduce_sum

    with name_scope(name, "Trace", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        return reduce_sum(matrix_diag_part(x), [-1], name=scope)


# -- Inverse, determinants, solves ----------------------------------------------------------
def _square_op(op_type, outputs, attrs=None):
    od = defop(op_type, inputs=["input: T"], outputs=outputs, attrs=attrs)
    return od


MatrixInverse = _square_op("MatrixInverse", ["output: T"], {"adjoint": False})


@MatrixInverse.shape
def _(op):
    dims = _matrix_shape(op, square=True)
    return unknown_shape() if dims is None else TensorShape(dims)


@MatrixInverse.kernel
def _(xp, x, *, adjoint):
    _check_square(x, "MatrixInverse")
    if adjoint:
        x = _adjoint(xp, x)
    try:
        return xp.linalg.inv(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, None, "Input is not invertible.") from None


@MatrixInverse.gradient
def _(op, grad):
    from flowloom.ops.math.matmul_ops import matmul

    ainv = op._outputs[0]
    if op._attrs["adjoint"]:
        # Y = inv(A)^H, dY = -Y dA^H Y: the gradient is -Y G^H Y.
        return [-matmul(ainv, matmul(grad, ainv, adjoint_a=True))]
    return [-matmul(ainv, matmul(grad, ainv, adjoint_b=True), adjoint_a=True)]


def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002
    """The inverse of each innermost square matrix (of its adjoint if `adjoint`)."""
    return _op("MatrixInverse", (input,), name=name, adjoint=adjoint)[0]


MatrixDeterminant = _square_op("MatrixDeterminant", ["output: T"])


@MatrixDeterminant.shape
def _(op):
    dims = _matrix_shape(op, square=True)
    return unknown_shape() if dims is None else TensorShape(dims[:-2])


@MatrixDeterminant.kernel
def _(xp, x):
    _check_square(x, "MatrixDeterminant")
    return xp.asarray(xp.linalg.det(x)).astype(x.dtype)


@MatrixDeterminant.gradient
def _(op, grad):
    det = op._outputs[0]
    inv = matrix_inverse(op._inputs[0], adjoint=True)
    scale = array_ops.expand_dims(array_ops.expand_dims(grad * det, -1), -1)
    return [scale * inv]


def matrix_determinant(input, name=None):  # noqa: A002
    """The determinant of each innermost square matrix."""
    return _op("MatrixDeterminant", (input,), name=name)[0]


LogMatrixDeterminant = _square_op("LogMatrixDeterminant",
                                  ["sign: T", "log_abs_determinant: T"])


@LogMatrixDeterminant.shape
def _(op):
    dims = _matrix_shape(op, square=True)
    s = unknown_shape() if dims is None else TensorShape(dims[:-2])
    return [s, s]


@LogMatrixDeterminant.kernel
def _(xp, x):
    _check_square(x, "LogMatrixDeterminant")
    sign, logdet = xp.linalg.slogdet(x)
    return xp.asarray(sign).astype(x.dtype), xp.asarray(logdet).astype(x.dtype)


@LogMatrixDeterminant.gradient
def _(op, _sign_grad, grad):
    inv = matrix_inverse(op._inputs[0], adjoint=True)
    return [array_ops.expand_dims(array_ops.expand_dims(grad, -1), -1) * inv]


def log_matrix_determinant(input, name=None):  # noqa: A002
    """(sign, log|det|) of each innermost square matrix."""
    return tuple(_op("LogMatrixDeterminant", (input,), name=name))


def _solve_shape(op):
    a, b = op._inputs[0]._shape, op._inputs[1]._shape
    if a.ndims is None or b.ndims is None:
        return unknown_shape()
    dims = _matrix_shape(op, square=True)
    bd = b.as_list()
    if dims[-1] is not None and bd[-2] is not None and dims[-1] != bd[-2]:
        raise ValueError(f"Dimensions must be equal, but are {dims[-1]} and {bd[-2]} for "
                         f"'{op._name}' (op: '{op._type}')")
    return TensorShape(bd)


MatrixSolve = defop("MatrixSolve", inputs=["matrix: T", "rhs: T"], outputs=["output: T"],
                    attrs={"adjoint": False})
MatrixSolve.shape(_solve_shape)


@MatrixSolve.kernel
def _(xp, a, b, *, adjoint):
    _check_square(a, "MatrixSolve")
    if adjoint:
        a = _adjoint(xp, a)
    try:
        return xp.linalg.solve(a, b).astype(b.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(None, None, "Input matrix is not invertible.") \
            from None


@MatrixSolve.gradient
def _(op, grad):
    from flowloom.ops.math.matmul_ops import matmul

    a, adjoint = op._inputs[0], op._attrs["adjoint"]
    c = op._outputs[0]
    grad_b = matrix_solve(a, grad, adjoint=not adjoint)
    if adjoint:
        grad_a = -matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -matmul(grad_b, c, adjoint_b=True)
    return [grad_a, grad_b]


def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """Solves `matrix @ x = rhs` (or `adjoint(matrix) @ x = rhs`) for each innermost matrix."""
    return _op("MatrixSolve", (matrix, rhs), name=name, adjoint=adjoint)[0]


MatrixTriangularSolve = defop("MatrixTriangularSolve", inputs=["matrix: T", "rhs: T"],
                              outputs=["output: T"], attrs={"lower": True, "adjoint": False})
MatrixTriangularSolve.shape(_solve_shape)


@MatrixTriangularSolve.kernel
def _(xp, a, b, *, lower, adjoint):
    _check_square(a, "MatrixTriangularSolve")
    n = a.shape[-1]
    tri = np.tril(np.ones((n, n), bool)) if lower else np.triu(np.ones((n, n), bool))
    a = xp.where(tri, a, xp.zeros((), a.dtype))  # the other triangle is ignored, as in TF
    if adjoint:
        a = _adjoint(xp, a)
    if not np.all(xp.diagonal(a, axis1=-2, axis2=-1) != 0):
        raise errors.InvalidArgumentError(None, None, "Input matrix is not invertible.")
    return xp.linalg.solve(a, b).astype(b.dtype, copy=False)


@MatrixTriangularSolve.gradient
def _(op, grad):
    from flowloom.ops.math.matmul_ops import matmul

    a, lower, adjoint = op._inputs[0], op._attrs["lower"], op._attrs["adjoint"]
    c = op._outputs[0]
    grad_b = matrix_triangular_solve(a, grad, lower=lower, adjoint=not adjoint)
    if adjoint:
        grad_a = -matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -matmul(grad_b, c, adjoint_b=True)
    grad_a = matrix_band_part(grad_a, -1, 0) if lower else matrix_band_part(grad_a, 0, -1)
    return [grad_a, grad_b]


def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves `matrix @ x = rhs` where `matrix` is lower (or upper) triangular."""
    return _op("MatrixTriangularSolve", (matrix, rhs), name=name, lower=lower,
               adjoint=adjoint)[0]


# -- Cholesky, QR, SVD ----------------------------------------------------------------------
Cholesky = _square_op("Cholesky", ["output: T"])


@Cholesky.shape
def _(op):
    dims = _matrix_shape(op, square=True)
    return unknown_shape() if dims is None else TensorShape(dims)


@Cholesky.kernel
def _(xp, x):
    _check_square(x, "Cholesky")
    try:
        return xp.linalg.cholesky(x).astype(x.dtype, copy=False)
    except np.linalg.LinAlgError:
        raise errors.InvalidArgumentError(
            None, None, "Cholesky decomposition was not successful. The input might not be "
            "valid.") from None


@Cholesky.gradient
def _(op, grad):
    from flowloom.ops.math.matmul_ops import matmul

    chol = op._outputs[0]
    n = chol._shape[-1]
    if n is None:
        raise NotImplementedError("Cholesky gradient of matrices of unknown size")
    batch = chol._shape.as_list()[:-2]
    identity = eye(n, batch_shape=batch if None not in batch else None, dtype=chol.dtype)
    l_inverse = matrix_triangular_solve(chol, identity)
    middle = matmul(chol, grad, adjoint_a=True)
    middle = matrix_set_diag(middle, 0.5 * matrix_diag_part(middle))
    middle = matrix_band_part(middle, -1, 0)
    grad_a = matmul(matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += matrix_transpose(grad_a)
    return [grad_a * 0.5]


def cholesky(input, name=None):  # noqa: A002
    """The lower-triangular Cholesky factor of each innermost symmetric positive-definite
    matrix."""
    return _op("Cholesky", (input,), name=name)[0]


def cholesky_solve(chol, rhs, name=None):
    """Solves `A x = rhs` given `chol`, the Cholesky factor of A."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        y = matrix_triangular_solve(chol, rhs, adjoint=False, lower=True)
        return matrix_triangular_solve(chol, y, adjoint=True, lower=True)


Qr = _square_op("Qr", ["q: T", "r: T"], {"full_matrices": False})


@Qr.shape
def _(op):
    dims = _matrix_shape(op)
    if dims is None:
        return [unknown_shape(), unknown_shape()]
    m, n = dims[-2:]
    k = None if m is None or n is None else min(m, n)
    if op._attrs["full_matrices"]:
        return [TensorShape(dims[:-2] + [m, m]), TensorShape(dims[:-2] + [m, n])]
    return [TensorShape(dims[:-2] + [m, k]), TensorShape(dims[:-2] + [k, n])]


@Qr.kernel
def _(xp, x, *, full_matrices):
    q, r = xp.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def qr(input, full_matrices=False, name=None):  # noqa: A002
    """QR decompositions of the innermost matrices: (q, r)."""
    return tuple(_op("Qr", (input,), name=name, full_matrices=full_matrices))


Svd = _square_op("Svd", ["s: T", "u: T", "v: T"], {"compute_uv": True, "full_matrices": False})


@Svd.shape
def _(op):
    dims = _matrix_shape(op)
    if dims is None:
        return [unknown_shape()] * 3
    m, n = dims[-2:]
    k = None if m is None or n is None else min(m, n)
    batch = dims[:-2]
    if not op._attrs["compute_uv"]:
        return [TensorShape(batch + [k]), TensorShape([0]), TensorShape([0])]
    full = op._attrs["full_matrices"]
    return [TensorShape(batch + [k]), TensorShape(batch + [m, m if full else k]),
            TensorShape(batch + [n, n if full else k])]


@Svd.kernel
def _(xp, x, *, compute_uv, full_matrices):
    if not compute_uv:
        s = xp.linalg.svd(x, compute_uv=False)
        return s.astype(x.dtype), xp.zeros((0,), x.dtype), xp.zeros((0,), x.dtype)
    u, s, vh = xp.linalg.svd(x, full_matrices=full_matrices)
    return (s.astype(x.dtype), u.astype(x.dtype, copy=False),
            _adjoint(xp, vh).astype(x.dtype, copy=False))


def svd(tensor, full_matrices=False, compute_uv=True, name=None):
    """Singular values of the innermost matrices; with `compute_uv`, (s, u, v)."""
    s, u, v = _op("Svd", (tensor,), name=name, compute_uv=compute_uv,
                  full_matrices=full_matrices)
    return (s, u, v) if compute_uv else s


SelfAdjointEigV2 = _square_op("SelfAdjointEigV2", ["e: T", "v: T"], {"compute_v": True})


@SelfAdjointEigV2.shape
def _(op):
    dims = _matrix_shape(op, square=True)
    if dims is None:
        return [unknown_shape(), unknown_shape()]
    if not op._attrs["compute_v"]:
        return [TensorShape(dims[:-1]), TensorShape([0])]
    return [TensorShape(dims[:-1]), TensorShape(dims)]


@SelfAdjointEigV2.kernel
def _(xp, x, *, compute_v):
    _check_square(x, "SelfAdjointEigV2")
    e, v = xp.linalg.eigh(x)
    if not compute_v:
        return e.astype(x.dtype), xp.zeros((0,), x.dtype)
    return e.astype(x.dtype), v.astype(x.dtype)


def self_adjoint_eig(tensor, name=None):
    """Eigenvalues (ascending) and eigenvectors of each innermost self-adjoint matrix."""
    return tuple(_op("SelfAdjointEigV2", (tensor,), name=name, compute_v=True))


def self_adjoint_eigvals(tensor, name=None):
    """Eigenvalues (ascending) of each innermost self-adjoint matrix."""
    return _op("SelfAdjointEigV2", (tensor,), name=name, compute_v=False)[0]



def adjoint(matrix, name=None):
    """The conjugate transpose of each innermost matrix."""
    with name_scope(name, "adjoint", [matrix]):
        return matrix_transpose(convert_to_tensor(matrix, name="matrix"), conjugate=True)


def logdet(matrix, name=None):
    """log(det(matrix)) of Hermitian positive-definite matrices, through Cholesky."""
    from flowloom.ops.math.reduction_ops import reduce_sum
    from flowloom.ops.math.unary_ops import log

    with name_scope(name, "logdet", [matrix]):
        chol = cholesky(matrix)
        return 2.0 * reduce_sum(log(matrix_diag_part(chol)), axis=[-1])


def matvec(a, b, transpose_a=False, adjoint_a=False, a_is_sparse=False, b_is_sparse=False,
           name=None):
    """Matrix-vector products `a @ b` over the innermost dimensions."""
    from flowloom.ops.math.matmul_ops import matmul

    with name_scope(name, "MatVec", [a, b]):
        out = matmul(a, array_ops.expand_dims(b, -1), transpose_a=transpose_a,
                     adjoint_a=adjoint_a)
        return array_ops.squeeze(out, axis=-1)


# -- Cross ------------------------------------------------------------------------------------
Cross = defop("Cross", inputs=["a: T", "b: T"], outputs=["product: T"])


@Cross.shape
def _(op):
    a, b = (t._shape for t in op._inputs)
    if a.ndims is not None and b.ndims is not None:
        if not a.is_compatible_with(b):
            raise ValueError(f"Dimensions must be equal, but are {a} and {b} for "
                             f"'{op._name}' (op: 'Cross')")
        merged = a.merge_with(b)
        if merged.as_list()[-1] not in (None, 3):
            raise ValueError(f"Dimension must be 3 but is {merged.as_list()[-1]} for "
                             f"'{op._name}' (op: 'Cross')")
        return merged
    return a if a.ndims is not None else b


@Cross.kernel
def _(xp, a, b):
    if a.shape != b.shape:
        raise errors.InvalidArgumentError(None, None, "Both inputs must be of same shape: "
                                          f"{list(a.shape)} vs. {list(b.shape)}")
    if a.ndim < 1 or a.shape[-1] != 3:
        raise errors.InvalidArgumentError(None, None, "Trailing dimension must be 3, got "
                                          f"{a.shape[-1] if a.ndim else 'a scalar'}")
    return xp.cross(a, b).astype(a.dtype, copy=False)


@Cross.gradient
def _(op, grad):
    u, v = op._inputs
    return [cross(v, grad), cross(grad, u)]


def cross(a, b, name=None):
    """The pairwise cross product of the 3-vectors in the last dimension of `a` and `b`."""
    return _op("Cross", (a, b), name=name)[0]
