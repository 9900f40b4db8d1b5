"""Complex numbers from and to their parts: Complex, Real, Imag, Angle, ComplexAbs.

`tf.complex(re, im)` pairs float32 parts into complex64 and float64 parts into complex128;
`tf.real`, `tf.imag`, `tf.angle` and `tf.abs` of a complex tensor give its parts' dtype. As in
TF 1.15, `tf.real` of a real tensor is the tensor itself and `tf.imag`/`tf.angle` of one are
zeros. Gradients are TF's math_grad ones.
"""

import numpy as np

from flowloom.framework import common_shapes, dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.framework.ops import convert_to_tensor

_COMPLEX_OF = {dtypes.float32: dtypes.complex64, dtypes.float64: dtypes.complex128}

Complex = defop("Complex", inputs=["real: T", "imag: T"], outputs=["out: Tout"],
                attrs={"T": dtypes.float32, "Tout": dtypes.complex64})
Complex.shape(common_shapes.binary_broadcast)


@Complex.kernel
def _(xp, re, im, *, Tout):
    out = xp.empty(np.broadcast_shapes(np.shape(re), np.shape(im)), Tout.as_numpy_dtype)
    out.real = re
    out.imag = im
    return out


def _part_op(op_type, fn):
    op_def = defop(op_type, inputs=["input: T"], outputs=["output: Tout"],
                   attrs={"T": dtypes.complex64, "Tout": dtypes.float32})
    op_def.shape(common_shapes.unchanged)

    @op_def.kernel
    def _(xp, x, *, Tout):
        return xp.asarray(fn(xp, x), Tout.as_numpy_dtype)
    return op_def


Real = _part_op("Real", lambda xp, x: xp.real(x))
Imag = _part_op("Imag", lambda xp, x: xp.imag(x))
Angle = _part_op("Angle", lambda xp, x: xp.angle(x))
ComplexAbs = _part_op("ComplexAbs", lambda xp, x: xp.abs(x))


def complex(real, imag, name=None):  # noqa: A001 - TF's name
    """The complex tensor `real + imag * 1j` (float32 parts give complex64, float64 complex128).

    Raises:
      TypeError: if the parts are not both float32 or both float64.
    """
    real = convert_to_tensor(real, name="real")
    imag = convert_to_tensor(imag, name="imag")
    a, b = real.dtype.base_dtype, imag.dtype.base_dtype
    if a is not b or a not in _COMPLEX_OF:
        raise TypeError(f"real and imag have incorrect types: {a.name} {b.name}")
    return apply_op("Complex", (real, imag), name=name or "Complex",
                    Tout=_COMPLEX_OF[a]).outputs[0]


def _part(op_type, default_name, real_case):
    def fn(input, name=None):  # noqa: A002 - TF's argument name
        x = convert_to_tensor(input, name="input")
        if x.dtype.base_dtype.is_complex:
            return apply_op(op_type, (x,), name=name or default_name,
                            Tout=x.dtype.base_dtype.real_dtype).outputs[0]
        return real_case(x, name or default_name)
    fn.__name__ = default_name.lower()
    return fn


def _zeros(x, name):
    from flowloom.framework.graph import name_scope
    from flowloom.ops.array import array_ops

    with name_scope(name):
        return array_ops.zeros_like(x)


real = _part("Real", "Real", lambda x, name: x)
real.__doc__ = "The real part of a complex tensor (TF's `tf.real`); a real tensor is returned."
imag = _part("Imag", "Imag", _zeros)
imag.__doc__ = "The imaginary part of a complex tensor (TF's `tf.imag`); zeros for a real one."
angle = _part("Angle", "Angle", _zeros)
angle.__doc__ = "The argument of a complex tensor (TF's `tf.angle`); zeros for a real one."


def complex_abs(x, name=None):
    """|x| of a complex tensor, in its parts' dtype (op type ComplexAbs, as `tf.abs` builds)."""
    return apply_op("ComplexAbs", (x,), name=name or "Abs",
                    Tout=x.dtype.base_dtype.real_dtype).outputs[0]


# -- gradients (TF's math_grad) ----------------------------------------------------------------
@Complex.gradient
def _(op, grad):
    from flowloom.ops.array import broadcast_ops

    x, y = op._inputs
    return broadcast_ops.reduce_gradient_args(x, y, real(grad), imag(grad))


@Real.gradient
def _(op, grad):
    return complex(grad, _zero_of(grad))


@Imag.gradient
def _(op, grad):
    return complex(_zero_of(grad), grad)


@Angle.gradient
def _(op, grad):
    from flowloom.ops.math.math_ops import multiply
    from flowloom.ops.math.unary_ops import negative, reciprocal

    x = op._inputs[0]
    z = reciprocal(complex(imag(x), real(x)))
    return negative(multiply(complex(grad, _zero_of(grad)), z))


@ComplexAbs.gradient
def _(op, grad):
    from flowloom.ops.array import array_ops
    from flowloom.ops.math.math_ops import div_no_nan, multiply

    y = op._outputs[0]
    return div_no_nan(multiply(complex(grad, array_ops.zeros_like(grad)), op._inputs[0]),
                      complex(y, array_ops.zeros_like(y)))


def _zero_of(t):
    from flowloom.ops.array.array_ops import constant

    return constant(0, dtype=t.dtype.base_dtype)
