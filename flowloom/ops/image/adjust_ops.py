"""tf.image colour and value functions: dtype conversion, brightness/contrast/gamma/hue/
saturation (and their random_* forms), grayscale, HSV, standardisation, total variation,
image gradients and Sobel edges (TF 1.15's graph recipes over the image kernels)."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops, manip_ops
from flowloom.ops.image import color_ops  # noqa: F401 - registers the colour kernels
from flowloom.ops.image.image_ops import _assert, _check_3d, _with_checks
from flowloom.ops.math import math_ops, reduction_ops


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Converts `image` to `dtype`, rescaling: floats live in [0, 1), integers in [0, MAX].

    Args:
      image: an image tensor.
      dtype: the target dtype.
      saturate: clip to the target range before an integer cast.

    Returns:
      `image` converted (the same tensor through Identity when the dtype already matches).

    Raises:
      AttributeError: `dtype` is neither floating point nor integer (as TF).
    """
    image = convert_to_tensor(image, name="image")
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating and not dtype.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    if dtype == image.dtype:
        return array_ops.identity(image, name=name)
    src = image.dtype.base_dtype
    with name_scope(name, "convert_image", [image]) as scope:
        if src.is_integer and dtype.is_integer:
            scale_in, scale_out = src.max, dtype.max
            if scale_in > scale_out:
                scaled = math_ops.floordiv(image, (scale_in + 1) // (scale_out + 1))
                if saturate:
                    return math_ops.saturate_cast(scaled, dtype, name=scope)
                return math_ops.cast(scaled, dtype, name=scope)
            cast = math_ops.saturate_cast(image, dtype) if saturate else math_ops.cast(image,
                                                                                       dtype)
            return math_ops.multiply(cast, (scale_out + 1) // (scale_in + 1), name=scope)
        if src.is_floating and dtype.is_floating:
            return math_ops.cast(image, dtype, name=scope)
        if src.is_integer:
            return math_ops.multiply(math_ops.cast(image, dtype), 1.0 / src.max, name=scope)
        scaled = math_ops.multiply(image, dtype.max + 0.5)
        if saturate:
            return math_ops.saturate_cast(scaled, dtype, name=scope)
        return math_ops.cast(scaled, dtype, name=scope)


def _as_float(image):
    image = convert_to_tensor(image, name="image")
    orig = image.dtype.base_dtype
    flt = image if orig in (dtypes.float16, dtypes.float32) else convert_image_dtype(
        image, dtypes.float32)
    return flt, orig


def adjust_brightness(image, delta):
    """Adds `delta` to every value (in float space; converted back with saturation)."""
    with name_scope(None, "adjust_brightness", [image, delta]) as scope:
        flt, orig = _as_float(image)
        adjusted = math_ops.add(flt, math_ops.cast(delta, flt.dtype), name=scope)
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_contrast(images, contrast_factor):
    """(x - mean) * contrast_factor + mean, per image and channel (op AdjustContrastv2)."""
    with name_scope(None, "adjust_contrast", [images, contrast_factor]) as scope:
        flt, orig = _as_float(images)
        factor = convert_to_tensor(contrast_factor, dtypes.float32, name="contrast_factor")
        adjusted = apply_op("AdjustContrastv2", (flt, factor), name=scope).outputs[0]
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """gain * image ** gamma (in float space); gamma must be non-negative."""
    with name_scope(None, "adjust_gamma", [image, gamma, gain]):
        flt, orig = _as_float(image)
        checks = _assert(gamma >= 0, ValueError, "Gamma should be a non-negative real number.")
        if checks:
            from flowloom.ops.control_flow.control_flow_ops import with_dependencies

            gamma = with_dependencies(checks, gamma)
        adjusted = gain * flt ** gamma
        return convert_image_dtype(adjusted, orig, saturate=True)


def adjust_hue(image, delta, name=None):
    """Rotates the hue of RGB `image` by `delta` (in [-1, 1], a fraction of the circle)."""
    with name_scope(name, "adjust_hue", [image]) as scope:
        flt, orig = _as_float(image)
        delta = convert_to_tensor(delta, dtypes.float32, name="delta")
        rgb = apply_op("AdjustHue", (flt, delta), name=scope).outputs[0]
        return convert_image_dtype(rgb, orig)


def adjust_saturation(image, saturation_factor, name=None):
    """Scales the HSV saturation of RGB `image` by `saturation_factor`, clipped to [0, 1]."""
    with name_scope(name, "adjust_saturation", [image]) as scope:
        flt, orig = _as_float(image)
        factor = convert_to_tensor(saturation_factor, dtypes.float32, name="saturation_factor")
        rgb = apply_op("AdjustSaturation", (flt, factor), name=scope).outputs[0]
        return convert_image_dtype(rgb, orig)


def _uniform(lo, hi, seed):
    from flowloom.ops.random import random_ops

    return random_ops.random_uniform([], lo, hi, seed=seed)


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta)."""
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_brightness(image, _uniform(-max_delta, max_delta, seed))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_contrast(image, _uniform(lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta), max_delta <= 0.5."""
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    return adjust_hue(image, _uniform(-max_delta, max_delta, seed))


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return adjust_saturation(image, _uniform(lower, upper, seed))


def rgb_to_hsv(images, name=None):
    """RGB to HSV, every component in [0, 1] (op RGBToHSV)."""
    return apply_op("RGBToHSV", (images,), name=name).outputs[0]


def hsv_to_rgb(images, name=None):
    """HSV to RGB (op HSVToRGB)."""
    return apply_op("HSVToRGB", (images,), name=name).outputs[0]


def rgb_to_grayscale(images, name=None):
    """Luma 0.2989 R + 0.5870 G + 0.1140 B, as a last dimension of size 1."""
    from flowloom.ops.math import matmul_ops

    with name_scope(name, "rgb_to_grayscale", [images]) as scope:
        images = convert_to_tensor(images, name="images")
        orig = images.dtype.base_dtype
        flt = convert_image_dtype(images, dtypes.float32)
        weights = convert_to_tensor([0.2989, 0.5870, 0.1140], dtypes.float32)
        # TF's tensordot: a [pixels, 3] x [3, 1] matmul, reshaped back.
        lead = array_ops.shape(flt)[:-1]
        flat = array_ops.reshape(flt, [-1, 3])
        gray = matmul_ops.matmul(flat, array_ops.reshape(weights, [3, 1]))
        gray = array_ops.reshape(gray, array_ops.concat([lead, [1]], 0))
        if flt._shape.ndims is not None:
            gray.set_shape(flt._shape[:-1].concatenate([1]))
        return convert_image_dtype(gray, orig, name=scope)


def grayscale_to_rgb(images, name=None):
    """Repeats a size-1 last dimension three times."""
    with name_scope(name, "grayscale_to_rgb", [images]):
        images = convert_to_tensor(images, name="images")
        shape = images._shape
        if shape.ndims is not None and shape.ndims < 2:
            raise ValueError("A grayscale image must be at least two-dimensional.")
        if shape.ndims is not None and shape.as_list()[-1] not in (1, None):
            raise ValueError("Last dimension of a grayscale image should be size 1.")
        images = _with_checks([], images)
        rank_1 = array_ops.expand_dims(array_ops.rank(images) - 1, 0)
        multiples = array_ops.concat(
            [array_ops.ones(rank_1, dtype=dtypes.int32), array_ops.expand_dims(3, 0)], 0)
        rgb = manip_ops.tile(images, multiples)
        if shape.ndims is not None:
            rgb.set_shape(shape[:-1].concatenate([3]))
        return rgb


def per_image_standardization(image):
    """(x - mean) / max(stddev, 1/sqrt(N)) over each image's pixels and channels, in float32
    (TF 2.x: non-float images are cast, not rescaled; TF 1.15 rescaled and cast back)."""
    with name_scope(None, "per_image_standardization", [image]) as scope:
        image = convert_to_tensor(image, name="image")
        image = _with_checks(_check_3d(image, require_static=False), image)
        image = math_ops.cast(image, dtypes.float32)
        num_pixels = reduction_ops.reduce_prod(array_ops.shape(image)[-3:])
        axes = [-1, -2, -3]
        mean = reduction_ops.reduce_mean(image, axis=axes, keepdims=True)
        deviation = math_ops.square(math_ops.abs(image - mean))
        stddev = math_ops.sqrt(reduction_ops.reduce_mean(deviation, axis=axes, keepdims=True))
        min_stddev = math_ops.rsqrt(math_ops.cast(num_pixels, dtypes.float32))
        adjusted = math_ops.maximum(stddev, min_stddev)
        image = image - mean
        return math_ops.divide(image, adjusted, name=scope)


def total_variation(images, name=None):
    """Sum of absolute differences of neighbouring pixels (per image for a 4-D batch)."""
    with name_scope(name, "total_variation"):
        images = convert_to_tensor(images, name="images")
        ndims = images._shape.ndims
        if ndims == 3:
            dif1 = images[1:, :, :] - images[:-1, :, :]
            dif2 = images[:, 1:, :] - images[:, :-1, :]
            axis = None
        elif ndims == 4:
            dif1 = images[:, 1:, :, :] - images[:, :-1, :, :]
            dif2 = images[:, :, 1:, :] - images[:, :, :-1, :]
            axis = [1, 2, 3]
        else:
            raise ValueError("'images' must be either 3 or 4-dimensional.")
        return (reduction_ops.reduce_sum(math_ops.abs(dif1), axis=axis)
                + reduction_ops.reduce_sum(math_ops.abs(dif2), axis=axis))


def image_gradients(image):
    """(dy, dx): forward differences of a 4-D image, zero in the last row/column."""
    if image._shape.ndims != 4:
        raise ValueError("image_gradients expects a 4D tensor [batch_size, h, w, d], "
                         f"not {image._shape}.")
    shape = array_ops.shape(image)
    batch, height, width, depth = array_ops.unstack(shape)
    dy = image[:, 1:, :, :] - image[:, :-1, :, :]
    dx = image[:, :, 1:, :] - image[:, :, :-1, :]
    dy = array_ops.concat([dy, array_ops.zeros(array_ops.stack([batch, 1, width, depth]),
                                               image.dtype)], 1)
    dx = array_ops.concat([dx, array_ops.zeros(array_ops.stack([batch, height, 1, depth]),
                                               image.dtype)], 2)
    return array_ops.reshape(dy, shape), array_ops.reshape(dx, shape)


def sobel_edges(image):
    """[batch, h, w, d, 2]: vertical and horizontal Sobel responses per channel (reflected
    borders)."""
    from flowloom.ops.nn import nn_ops

    static = image._shape
    shape = array_ops.shape(image)
    kernels = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                        [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]])
    kernels = np.expand_dims(np.transpose(kernels, (1, 2, 0)), -2)
    filters = manip_ops.tile(array_ops.constant(kernels, dtype=image.dtype),
                             array_ops.stack([1, 1, shape[-1], 1]), name="sobel_filters")
    padded = manip_ops.pad(image, [[0, 0], [1, 1], [1, 1], [0, 0]], mode="REFLECT")
    out = nn_ops.depthwise_conv2d(padded, filters, [1, 1, 1, 1], "VALID")
    out = array_ops.reshape(out, array_ops.concat([shape, [2]], 0))
    if static.ndims is not None:
        out.set_shape(static.concatenate([2]))
    return out
