"""Orthogonal initializers for convolution kernels (TF 1.15's `convolutional_delta_orthogonal`,
`convolutional_orthogonal_1d/2d/3d`) and `uniform_unit_scaling_initializer`.

A convolution-orthogonal kernel makes the (circular) convolution an isometry times `gain`:
it is built from random orthogonal matrices and symmetric projections, composed as
"block-orthogonal" kernels of size 2 per spatial axis and convolved up to the kernel size
(Xiao et al., 2018, "Dynamical isometry and a mean field theory of CNNs"). The random ops are
drawn in TF's order, each `seed` incremented after use as TF does.
"""

import itertools
import math

from flowloom.framework import dtypes
from flowloom.ops.array import array_ops
from flowloom.ops.random import random_ops
from flowloom.ops.state.init_ops import Initializer, _assert_float_dtype


def _ops():
    from flowloom.ops.math import linalg_ops, math_ops

    return linalg_ops, math_ops


class UniformUnitScaling(Initializer):
    """Uniform in [-sqrt(3 / dim), sqrt(3 / dim)] times `factor`, where `dim` is the product of
    all but the last dimension (of the full variable when partitioned): the input's variance
    is kept through `x * W`."""

    def __init__(self, factor=1.0, seed=None, dtype=dtypes.float32):
        self.factor, self.seed = factor, seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        dtype = dtype or self.dtype
        scale_shape = shape if partition_info is None else partition_info.full_shape
        input_size = 1.0
        for dim in list(scale_shape)[:-1]:
            input_size *= float(dim)
        max_val = math.sqrt(3 / max(input_size, 1.0)) * self.factor
        return random_ops.random_uniform(shape, -max_val, max_val, dtype, seed=self.seed)

    def get_config(self):
        return {"factor": self.factor, "seed": self.seed, "dtype": self.dtype.name}


class ConvolutionDeltaOrthogonal(Initializer):
    """A kernel that is zero except at its spatial centre, which holds the first `in` rows of
    a random orthogonal `out x out` matrix times `gain` (3-D to 5-D kernels, in <= out)."""

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed = gain, seed
        self.dtype = _assert_float_dtype(dtype)

    def __call__(self, shape, dtype=None, partition_info=None):
        linalg_ops, math_ops = _ops()
        dtype = dtype or self.dtype
        shape = [int(d) for d in shape]
        if len(shape) < 3 or len(shape) > 5:
            raise ValueError("The tensor to initialize must be at least three-dimensional and "
                             "at most five-dimensional")
        if shape[-2] > shape[-1]:
            raise ValueError("In_filters cannot be greater than out_filters.")
        a = random_ops.random_normal([shape[-1], shape[-1]], dtype=dtype, seed=self.seed)
        q, r = linalg_ops.qr(a, full_matrices=False)
        q *= math_ops.sign(linalg_ops.diag_part(r))
        q = q[:shape[-2], :]
        q *= math_ops.cast(self.gain, dtype=dtype)
        centre = [[(d - 1) // 2 for d in shape[:-2]]]
        return array_ops.scatter_nd(centre, array_ops.expand_dims(q, 0), shape)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}


class ConvolutionOrthogonal(Initializer):
    """Base of the convolution-orthogonal initializers; `spatial_dims` is 1, 2 or 3."""

    spatial_dims = None

    def __init__(self, gain=1.0, seed=None, dtype=dtypes.float32):
        self.gain, self.seed = gain, seed
        self.dtype = _assert_float_dtype(dtype)

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed, "dtype": self.dtype.name}

    def __call__(self, shape, dtype=None, partition_info=None):
        _, math_ops = _ops()
        if self.spatial_dims is None:
            raise NotImplementedError("ConvolutionOrthogonal is a base class: use "
                                      "convolutional_orthogonal_1d, _2d or _3d")
        dtype = dtype or self.dtype
        shape = [int(d) for d in shape]
        d = self.spatial_dims
        if len(shape) != d + 2:
            raise ValueError("The tensor to initialize must be "
                             f"{['three', 'four', 'five'][d - 1]}-dimensional")
        if shape[-2] > shape[-1]:
            raise ValueError("In_filters cannot be greater than out_filters.")
        if len(set(shape[:d])) != 1:
            raise ValueError("Kernel sizes must be equal.")
        kernel = self._orthogonal_kernel(shape[0], shape[-2], shape[-1])
        return kernel * math_ops.cast(self.gain, dtype=dtype)

    def _orthogonal_matrix(self, n):
        linalg_ops, math_ops = _ops()
        a = random_ops.random_normal([n, n], dtype=self.dtype, seed=self.seed)
        if self.seed:
            self.seed += 1
        q, r = linalg_ops.qr(a)
        q *= math_ops.sign(linalg_ops.diag_part(r))
        return q

    def _symmetric_projection(self, n):
        linalg_ops, math_ops = _ops()
        q = self._orthogonal_matrix(n)
        mask = math_ops.cast(random_ops.random_normal([n], seed=self.seed) > 0, self.dtype)
        if self.seed:
            self.seed += 1
        c = math_ops.multiply(q, mask)
        return math_ops.matmul(c, linalg_ops.matrix_transpose(c))

    def _block_orth(self, projections):
        """The size-2 kernel {index: product over axes of P_a or (I - P_a)}."""
        linalg_ops, math_ops = _ops()
        n = projections[0].shape.as_list()[0]
        if any(p.shape.as_list() != projections[0].shape.as_list() for p in projections):
            raise ValueError("The dimension of the matrices must be the same.")
        eye = linalg_ops.eye(n, dtype=self.dtype)
        # TF's 3-D kernel takes P at index 1 and I - P at index 0; its 1-D and 2-D the reverse.
        take_p = 1 if len(projections) == 3 else 0
        kernel = {}
        for index in itertools.product((0, 1), repeat=len(projections)):
            factors = [p if i == take_p else eye - p for i, p in zip(index, projections)]
            product = factors[0]
            for f in factors[1:]:
                product = math_ops.matmul(product, f)
            kernel[index] = product
        return kernel

    def _matrix_conv(self, m1, m2):
        """The convolution of two kernels of matrices (dicts keyed by spatial index)."""
        _, math_ops = _ops()
        d = self.spatial_dims
        first1, first2 = m1[(0,) * d], m2[(0,) * d]
        n = first1.shape.as_list()[0]
        if n != first2.shape.as_list()[0]:
            raise ValueError("The entries in matrices m1 and m2 must have the same dimensions!")
        k = round(len(m1) ** (1.0 / d))
        size2 = round(len(m2) ** (1.0 / d))
        result = {}
        for out in itertools.product(range(k + size2 - 1), repeat=d):
            acc = array_ops.zeros([n, n], self.dtype)
            for index1 in itertools.product(*[range(min(k, o + 1)) for o in out]):
                index2 = tuple(o - i for o, i in zip(out, index1))
                if all(i < size2 for i in index2):
                    acc += math_ops.matmul(m1[index1], m2[index2])
            result[out] = acc
        return result

    def _orthogonal_kernel(self, ksize, cin, cout):
        _, math_ops = _ops()
        d = self.spatial_dims
        if cin > cout:
            raise ValueError("The number of input channels cannot exceed the number of output "
                             "channels.")
        orth = self._orthogonal_matrix(cout)[0:cin, :]
        if ksize == 1:
            for _ in range(d):
                orth = array_ops.expand_dims(orth, 0)
            return orth
        p = self._block_orth([self._symmetric_projection(cout) for _ in range(d)])
        for _ in range(ksize - 2):
            p = self._matrix_conv(p, self._block_orth([self._symmetric_projection(cout)
                                                       for _ in range(d)]))
        for index in p:
            p[index] = math_ops.matmul(orth, p[index])
        return self._stack(p, ksize, ())

    def _stack(self, p, ksize, prefix):
        if len(prefix) == self.spatial_dims:
            return p[prefix]
        return array_ops.stack([self._stack(p, ksize, prefix + (i,)) for i in range(ksize)])


class ConvolutionOrthogonal1D(ConvolutionOrthogonal):
    """An orthogonal 1-D convolution kernel [k, in, out] (in <= out), times `gain`."""

    spatial_dims = 1


class ConvolutionOrthogonal2D(ConvolutionOrthogonal):
    """An orthogonal 2-D convolution kernel [k, k, in, out] (in <= out), times `gain`."""

    spatial_dims = 2


class ConvolutionOrthogonal3D(ConvolutionOrthogonal):
    """An orthogonal 3-D convolution kernel [k, k, k, in, out] (in <= out), times `gain`."""

    spatial_dims = 3


uniform_unit_scaling_initializer = UniformUnitScaling
convolutional_delta_orthogonal = ConvolutionDeltaOrthogonal
convolutional_orthogonal_1d = ConvolutionOrthogonal1D
convolutional_orthogonal_2d = ConvolutionOrthogonal2D
convolutional_orthogonal_3d = ConvolutionOrthogonal3D
