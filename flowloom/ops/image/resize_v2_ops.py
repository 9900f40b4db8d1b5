"""ScaleAndTranslate (resampling with a chosen filter kernel, optionally antialiased) and
TF 2's resize API built on it: resize_images_v2 (`tf.image.resize` in TF 2) and
resize_image_with_pad_v2.

ScaleAndTranslate works as TF's kernel: per output row and column a span of input samples
with the kernel's weights (normalised to sum 1; under antialias the kernel is widened by the
downscaling factor), applied to the rows first, then the columns, in float32.
"""

import math

import numpy as np

from flowloom.framework import dtypes, errors
from flowloom.framework.apply_op import apply_op
from flowloom.framework.op_def import defop
from flowloom.ops.array import array_ops
from flowloom.ops.image import image_ops
from flowloom.ops.image.resize_methods import ResizeMethod
from flowloom.ops.image.resize_ops import _resize_shape
from flowloom.ops.math import math_ops

_F = np.float32


def _lanczos(radius):
    def fn(x):
        x = np.abs(x)
        px = _F(3.14159265359) * x
        safe = np.where(x <= 1e-3, _F(1), x)
        value = _F(radius) * np.sin(px) * np.sin(px / _F(radius)) / (
            _F(3.14159265359) ** 2 * safe * safe)
        return np.where(x > radius, _F(0), np.where(x <= 1e-3, _F(1), value)).astype(_F)
    return fn, float(radius)


def _gaussian(x):
    x = np.abs(x)
    sigma = _F(1.5 / 3.0)
    return np.where(x >= 1.5, _F(0), np.exp(-x * x / (_F(2) * sigma * sigma))).astype(_F)


def _box(x):
    x = np.abs(x)
    return np.where(x < 0.5, _F(1), np.where(x == 0.5, _F(0.5), _F(0))).astype(_F)


def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1, _F(1) - x, _F(0)).astype(_F)


def _keys_cubic(x):
    x = np.abs(x)
    far = ((_F(-0.5) * x + _F(2.5)) * x - _F(4)) * x + _F(2)
    near = ((_F(1.5) * x - _F(2.5)) * x) * x + _F(1)
    return np.where(x >= 2, _F(0), np.where(x >= 1, far, near)).astype(_F)


def _mitchell_cubic(x):
    x = np.abs(x)
    far = ((_F(-7 / 18) * x + _F(2)) * x - _F(10 / 3)) * x + _F(16 / 9)
    near = ((_F(7 / 6) * x - _F(2)) * x) * x + _F(8 / 9)
    return np.where(x >= 2, _F(0), np.where(x >= 1, far, near)).astype(_F)


# kernel_type -> (function of the distance, radius)
KERNELS = {
    "lanczos1": _lanczos(1), "lanczos3": _lanczos(3), "lanczos5": _lanczos(5),
    "gaussian": (_gaussian, 1.5), "box": (_box, 1.0), "triangle": (_triangle, 1.0),
    "keyscubic": (_keys_cubic, 2.0), "mitchellcubic": (_mitchell_cubic, 2.0),
}


def span_weights(kernel_type, out_size, in_size, scale, translate, antialias):
    """The [out_size, in_size] float32 resampling matrix of one axis (TF's spans)."""
    fn, radius = KERNELS[kernel_type]
    inv_scale = _F(1.0 / scale)
    inv_translate = -inv_scale * _F(translate)
    kernel_scale = max(inv_scale, _F(1)) if antialias else _F(1)
    span = min(2 * int(math.ceil(radius * kernel_scale)) + 1, in_size)
    weights = np.zeros((out_size, in_size), _F)
    for x in range(out_size):
        sample = _F(x + 0.5) * inv_scale + inv_translate
        if sample < 0 or sample > in_size:
            continue
        start = int(math.ceil(sample - radius * kernel_scale - _F(0.5)))
        end = int(math.floor(sample + radius * kernel_scale - _F(0.5)))
        start = min(max(start, 0), in_size - 1)
        end = min(max(end, 0), in_size - 1) + 1
        if end - start > span:
            raise errors.InternalError(None, None,
                                       f"Span is too large: {end - start} vs {span}.")
        pos = (np.arange(start, end, dtype=_F) + _F(0.5) - sample) * (_F(1) / kernel_scale)
        w = fn(np.abs(pos))
        total = _F(w.sum(dtype=_F))
        if abs(total) >= 1000.0 * np.finfo(_F).tiny:
            weights[x, start:end] = w * (_F(1) / total)
    return weights


def _pair(value, what):
    v = np.asarray(value)
    if v.ndim != 1:
        raise errors.InvalidArgumentError(None, None, f"{what} must be 1-dimensional{list(v.shape)}")
    if v.size != 2:
        raise errors.InvalidArgumentError(None, None, f"{what} must have two elements{list(v.shape)}")
    return float(v[0]), float(v[1])


ScaleAndTranslate = defop(
    "ScaleAndTranslate", inputs=["images: T", "size: int32", "scale: float",
                                 "translation: float"],
    outputs=["resized_images: float"], attrs={"kernel_type": "lanczos3", "antialias": True},
    allowed_types={"T": (dtypes.int8, dtypes.uint8, dtypes.int16, dtypes.uint16,
                         dtypes.int32, dtypes.int64, dtypes.bfloat16, dtypes.float16,
                         dtypes.float32, dtypes.float64)})
ScaleAndTranslate.shape(_resize_shape)
ScaleAndTranslate.no_gradient()


@ScaleAndTranslate.kernel
def _(xp, images, size, scale, translation, *, kernel_type, antialias):
    kind = kernel_type.decode() if isinstance(kernel_type, bytes) else kernel_type
    if kind.lower() not in KERNELS:
        raise errors.InvalidArgumentError(None, None, f"Unrecognized kernel type: {kind}")
    if images.ndim != 4:
        raise errors.InvalidArgumentError(
            None, None, f"input must be 4-dimensional{list(images.shape)}")
    out_h, out_w = (int(v) for v in _pair(size, "output_shape_t"))
    batch, in_h, in_w, channels = images.shape
    if out_h <= 0 or out_w <= 0:
        raise errors.InvalidArgumentError(None, None, "output dimensions must be positive")
    if channels <= 0:
        raise errors.InvalidArgumentError(None, None, "image must have at least one channel")
    if in_h <= 0 or in_w <= 0:
        raise errors.InvalidArgumentError(None, None, "input image must be of non-zero size")
    row_scale, col_scale = _pair(scale, "t")
    if not (row_scale > 0 and col_scale > 0):
        raise errors.InvalidArgumentError(None, None, "Scale must be greater than zero.")
    row_shift, col_shift = _pair(translation, "t")
    rows = span_weights(kind.lower(), out_h, in_h, row_scale, row_shift, antialias)
    cols = span_weights(kind.lower(), out_w, in_w, col_scale, col_shift, antialias)
    data = np.asarray(images, dtype=_F)
    middle = np.einsum("yh,bhwc->bywc", rows, data, dtype=_F)
    return np.einsum("xw,bywc->byxc", cols, middle, dtype=_F)


def scale_and_translate(images, size, scale, translation, kernel_type="lanczos3",
                        antialias=True, name=None):
    """Resamples `images` [batch, h, w, c] to `size` with the given per-axis scale and
    translation and filter `kernel_type` (float32 result)."""
    return apply_op("ScaleAndTranslate", (images, size, scale, translation), name=name,
                    kernel_type=kernel_type, antialias=antialias).outputs[0]


_SCALE_AND_TRANSLATE = {ResizeMethod.LANCZOS3: "lanczos3", ResizeMethod.LANCZOS5: "lanczos5",
                        ResizeMethod.GAUSSIAN: "gaussian",
                        ResizeMethod.MITCHELLCUBIC: "mitchellcubic"}


def _resize_v2(images, new_size, method, antialias):
    def resample(kernel_type):
        scale = math_ops.cast(new_size, dtypes.float32) / math_ops.cast(
            array_ops.shape(images)[1:3], dtypes.float32)
        return scale_and_translate(images, new_size, scale, array_ops.zeros([2]),
                                   kernel_type=kernel_type, antialias=antialias)

    if method == ResizeMethod.BILINEAR:
        return resample("triangle") if antialias else image_ops.resize_bilinear(
            images, new_size, half_pixel_centers=True)
    if method == ResizeMethod.NEAREST_NEIGHBOR:
        return image_ops.resize_nearest_neighbor(images, new_size, half_pixel_centers=True)
    if method == ResizeMethod.BICUBIC:
        return resample("keyscubic") if antialias else image_ops.resize_bicubic(
            images, new_size, half_pixel_centers=True)
    if method == ResizeMethod.AREA:
        return image_ops.resize_area(images, new_size)
    if method in _SCALE_AND_TRANSLATE:
        return resample(_SCALE_AND_TRANSLATE[method])
    raise ValueError("Resize method is not implemented.")


def resize_images_v2(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
                     antialias=False, name=None):
    """Resizes `images` to `size` using the specified method (TF 2's `tf.image.resize`).

    Args:
      images: 4-D [batch, height, width, channels] or 3-D [height, width, channels].
      size: A 1-D int32 Tensor of 2 elements: `new_height, new_width`.
      method: a `tf.image.ResizeMethod` name: bilinear, nearest, bicubic, area, lanczos3,
        lanczos5, gaussian or mitchellcubic.
      preserve_aspect_ratio: fit inside `size` keeping the aspect ratio.
      antialias: widen the filter when downsampling (bilinear, bicubic and the
        ScaleAndTranslate kernels).
      name: A name for this operation (optional).

    Returns:
      The resized images, float32 (nearest neighbour: the input's dtype); 3-D in, 3-D out.

    Raises:
      ValueError: bad ranks or sizes, or an unknown method.
    """
    return image_ops.resize_images_common(
        images, lambda x, s: _resize_v2(x, s, method, antialias), size,
        preserve_aspect_ratio, name, skip_resize_if_same=False)


def resize_image_with_pad_v2(image, target_height, target_width,
                             method=ResizeMethod.BILINEAR, antialias=False):
    """Resizes `image` keeping its aspect ratio, then zero-pads it to target_height x
    target_width (TF 2's `tf.image.resize_with_pad`: float32 result, TF 2 resize methods).

    Raises:
      ValueError: bad ranks, or a target size that is not positive.
    """
    return image_ops.resize_image_with_pad_common(
        image, target_height, target_width,
        lambda im, new_size: resize_images_v2(im, new_size, method, antialias=antialias))
