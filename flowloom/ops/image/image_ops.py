"""tf.image geometry: resizing, crops, pads, flips, rotations (TF 1.15's graph recipes)."""

import numbers

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.apply_op import apply_op
from flowloom.framework.graph import name_scope
from flowloom.framework.ops import Tensor, convert_to_tensor
from flowloom.framework.tensor_util import constant_value, constant_value_as_shape
from flowloom.ops.array import array_ops, manip_ops, slicing_ops
from flowloom.ops.image import resize_ops  # noqa: F401 - registers the resize ops
from flowloom.ops.math import math_ops


class ResizeMethod:
    """TF 1.x's resize methods (`tf.image.ResizeMethod`)."""

    BILINEAR = 0
    NEAREST_NEIGHBOR = 1
    BICUBIC = 2
    AREA = 3


_RESIZE_OPS = {ResizeMethod.BILINEAR: "ResizeBilinear",
               ResizeMethod.NEAREST_NEIGHBOR: "ResizeNearestNeighbor",
               ResizeMethod.BICUBIC: "ResizeBicubic", ResizeMethod.AREA: "ResizeArea",
               "bilinear": "ResizeBilinear", "nearest": "ResizeNearestNeighbor",
               "bicubic": "ResizeBicubic", "area": "ResizeArea"}


def _is_tensor(x):
    return isinstance(x, Tensor)


def _resize_op(op_type, images, size, align_corners=False, half_pixel_centers=False,
               name=None):
    attrs = {"align_corners": align_corners}
    if op_type != "ResizeArea":
        attrs["half_pixel_centers"] = half_pixel_centers
    return apply_op(op_type, (images, size), name=name, **attrs).outputs[0]


def resize_bilinear(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bilinear resize of a 4-D [batch, height, width, channels] tensor (float32 result)."""
    return _resize_op("ResizeBilinear", images, size, align_corners, half_pixel_centers, name)


def resize_nearest_neighbor(images, size, align_corners=False, name=None,
                            half_pixel_centers=False):
    """Nearest-neighbour resize of a 4-D tensor (keeps its dtype)."""
    return _resize_op("ResizeNearestNeighbor", images, size, align_corners, half_pixel_centers,
                      name)


def resize_bicubic(images, size, align_corners=False, name=None, half_pixel_centers=False):
    """Bicubic resize of a 4-D tensor (float32 result)."""
    return _resize_op("ResizeBicubic", images, size, align_corners, half_pixel_centers, name)


def resize_area(images, size, align_corners=False, name=None):
    """Area-averaging resize of a 4-D tensor (float32 result)."""
    return _resize_op("ResizeArea", images, size, align_corners, name=name)


def _expand_batch(image, what="image"):
    image = convert_to_tensor(image, name=what)
    ndims = image._shape.ndims
    if ndims is None:
        raise ValueError(f"'{what}' contains no shape.")
    if ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if ndims != 4:
        raise ValueError(f"'{what}' must have either 3 or 4 dimensions.")
    return image, True


def resize_images(images, size, method=ResizeMethod.BILINEAR, align_corners=False,
                  preserve_aspect_ratio=False, name=None):
    """Resizes 3-D or 4-D `images` to `size` = [new_height, new_width] (TF 1.x's resize).

    Args:
      images: [batch, height, width, channels] or [height, width, channels].
      size: 1-D int32 tensor of 2 elements.
      method: a `ResizeMethod` (BILINEAR, NEAREST_NEIGHBOR, BICUBIC, AREA).
      align_corners: align the corner pixels of input and output.
      preserve_aspect_ratio: fit inside `size` keeping the aspect ratio.

    Returns:
      The resized images: float32, except NEAREST_NEIGHBOR (input dtype) and an unchanged
      size (returned as given).

    Raises:
      ValueError: bad ranks or sizes, or an unknown method.
    """
    def resize(images, size):
        op_type = _RESIZE_OPS.get(method)
        if op_type is None:
            raise ValueError("Resize method is not implemented.")
        return _resize_op(op_type, images, size, align_corners)

    return resize_images_common(images, resize, size, preserve_aspect_ratio, name,
                                skip_resize_if_same=True)


def resize_images_common(images, resizer_fn, size, preserve_aspect_ratio, name,
                         skip_resize_if_same):
    """The checks and shapes that TF's resize functions share around `resizer_fn(images,
    size)` (a 4-D resize): 3-D images get a batch dimension, `size` is validated (a
    constant size gives the static output shape), the aspect ratio kept if asked."""
    with name_scope(name, "resize", [images, size]):
        images, is_batch = _expand_batch(images, "images")
        _, height, width, _ = images._shape.as_list()
        try:
            size = convert_to_tensor(size, dtypes.int32, name="size")
        except (TypeError, ValueError):
            raise ValueError("'size' must be a 1-D int32 Tensor") from None
        if not size._shape.is_compatible_with([2]):
            raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
        new_shape = constant_value_as_shape(size)
        new_h, new_w = new_shape.as_list() if new_shape.ndims == 2 else (None, None)
        if preserve_aspect_ratio:
            _, cur_h, cur_w, _ = _image_dimensions(images, 4)
            f32 = dtypes.float32
            scale_h = math_ops.cast(new_h, f32) / math_ops.cast(cur_h, f32)
            scale_w = math_ops.cast(new_w, f32) / math_ops.cast(cur_w, f32)
            factor = math_ops.minimum(scale_h, scale_w)
            scaled_h = math_ops.cast(math_ops.round(factor * math_ops.cast(cur_h, f32)),
                                     dtypes.int32)
            scaled_w = math_ops.cast(math_ops.round(factor * math_ops.cast(cur_w, f32)),
                                     dtypes.int32)
            size = convert_to_tensor(array_ops.stack([scaled_h, scaled_w]), dtypes.int32,
                                     name="size")
            new_shape = constant_value_as_shape(size)
            new_h, new_w = new_shape.as_list() if new_shape.ndims == 2 else (None, None)
        if skip_resize_if_same and None not in (new_w, width, new_h, height) and \
                width == new_w and height == new_h:
            return images if is_batch else array_ops.squeeze(images, axis=[0])
        images = resizer_fn(images, size)
        images.set_shape([None, new_h, new_w, None])
        return images if is_batch else array_ops.squeeze(images, axis=[0])


def _image_dimensions(image, rank):
    """Static dimensions where known, else scalar tensors of the dynamic shape."""
    if image._shape.is_fully_defined():
        return image._shape.as_list()
    static = image._shape.with_rank(rank).as_list()
    dynamic = array_ops.unstack(array_ops.shape(image), rank)
    return [s if s is not None else d for s, d in zip(static, dynamic)]


def _assert(cond, ex_type, msg):
    if _is_tensor(cond):
        from flowloom.ops.checks.logging_ops import Assert_

        return [Assert_(cond, [msg])]
    if not cond:
        raise ex_type(msg)
    return []


def _check_3d(image, require_static=True):
    """TF 1.15's _CheckAtLeast3DImage: rank >= 3 (an unknown rank is taken as 3), every
    dimension > 0; run-time asserts for what the static shape leaves open."""
    shape = image._shape
    try:
        shape = shape.with_rank(3) if shape.ndims is None else shape.with_rank_at_least(3)
    except ValueError:
        raise ValueError("'image' must be at least three-dimensional.") from None
    if require_static and not shape.is_fully_defined():
        raise ValueError("'image' must be fully defined.")
    if any(d == 0 for d in shape.as_list()):
        raise ValueError(f"all dims of 'image.shape' must be > 0: {shape}")
    if shape.is_fully_defined():
        return []
    from flowloom.ops.checks import check_ops

    return [check_ops.assert_positive(array_ops.shape(image),
                                      ["all dims of 'image.shape' must be > 0."]),
            check_ops.assert_greater_equal(array_ops.rank(image), 3,
                                           message="'image' must be at least "
                                                   "three-dimensional.")]


def _with_checks(checks, t):
    """`t` after `checks`, through an Identity even when there are none (as TF: its op
    count, and so TF 1.x's default op seeds, includes it)."""
    from flowloom.ops.control_flow.control_flow_ops import with_dependencies

    return with_dependencies(checks, t)


def _batched(image):
    image = convert_to_tensor(image, name="image")
    ndims = image._shape.ndims
    if ndims == 3:
        return array_ops.expand_dims(image, 0), False
    if ndims is None:
        image = array_ops.expand_dims(image, 0)
        image.set_shape([None] * 4)
        return image, False
    if ndims != 4:
        raise ValueError("'image' must have either 3 or 4 dimensions.")
    return image, True


def _static(shape_dims):
    return [None if _is_tensor(d) else d for d in shape_dims]


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Crops `image` (3-D or 4-D) to the box at (offset_height, offset_width) of the target
    size; bad offsets raise ValueError (static) or fail at run time (tensors)."""
    with name_scope(None, "crop_to_bounding_box", [image]):
        image, is_batch = _batched(image)
        checks = _check_3d(image, require_static=False)
        batch, height, width, depth = _image_dimensions(image, 4)
        checks += _assert(offset_width >= 0, ValueError, "offset_width must be >= 0.")
        checks += _assert(offset_height >= 0, ValueError, "offset_height must be >= 0.")
        checks += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        checks += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        checks += _assert(width >= (target_width + offset_width), ValueError,
                          "width must be >= target + offset.")
        checks += _assert(height >= (target_height + offset_height), ValueError,
                          "height must be >= target + offset.")
        image = _with_checks(checks, image)
        cropped = slicing_ops.slice(image, array_ops.stack([0, offset_height, offset_width, 0]),
                                    array_ops.stack([-1, target_height, target_width, -1]))
        cropped.set_shape(_static([batch, target_height, target_width, depth]))
        return cropped if is_batch else array_ops.squeeze(cropped, axis=[0])


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pads `image` to the target size with the image at (offset_height, offset_width)."""
    with name_scope(None, "pad_to_bounding_box", [image]):
        image, is_batch = _batched(image)
        batch, height, width, depth = _image_dimensions(image, 4)
        after_w = target_width - offset_width - width
        after_h = target_height - offset_height - height
        checks = _check_3d(image, require_static=False)
        checks += _assert(offset_height >= 0, ValueError, "offset_height must be >= 0")
        checks += _assert(offset_width >= 0, ValueError, "offset_width must be >= 0")
        checks += _assert(after_w >= 0, ValueError, "width must be <= target - offset")
        checks += _assert(after_h >= 0, ValueError, "height must be <= target - offset")
        image = _with_checks(checks, image)
        paddings = array_ops.reshape(array_ops.stack(
            [0, 0, offset_height, after_h, offset_width, after_w, 0, 0]), [4, 2])
        padded = manip_ops.pad(image, paddings)
        padded.set_shape(_static([batch, target_height, target_width, depth]))
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


def _max(x, y):
    return math_ops.maximum(x, y) if _is_tensor(x) or _is_tensor(y) else max(x, y)


def _min(x, y):
    return math_ops.minimum(x, y) if _is_tensor(x) or _is_tensor(y) else min(x, y)


def _equal(x, y):
    return math_ops.equal(x, y) if _is_tensor(x) or _is_tensor(y) else x == y


def resize_image_with_crop_or_pad(image, target_height, target_width):
    """Centrally crops or zero-pads `image` to target_height x target_width."""
    with name_scope(None, "resize_image_with_crop_or_pad", [image]):
        image, is_batch = _batched(image)
        checks = _check_3d(image, require_static=False)
        checks += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        checks += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        image = _with_checks(checks, image)
        if _is_tensor(target_height):
            target_height = _with_checks(checks, target_height)
        if _is_tensor(target_width):
            target_width = _with_checks(checks, target_width)
        _, height, width, _ = _image_dimensions(image, 4)
        width_diff = target_width - width
        height_diff = target_height - height
        cropped = crop_to_bounding_box(image, _max(-height_diff // 2, 0),
                                       _max(-width_diff // 2, 0),
                                       _min(target_height, height), _min(target_width, width))
        resized = pad_to_bounding_box(cropped, _max(height_diff // 2, 0),
                                      _max(width_diff // 2, 0), target_height, target_width)
        _, resized_h, resized_w, _ = _image_dimensions(resized, 4)
        checks = _assert(_equal(resized_h, target_height), ValueError,
                         "resized height is not correct.")
        checks += _assert(_equal(resized_w, target_width), ValueError,
                          "resized width is not correct.")
        resized = _with_checks(checks, resized)
        return resized if is_batch else array_ops.squeeze(resized, axis=[0])


def resize_image_with_pad(image, target_height, target_width,
                          method=ResizeMethod.BILINEAR, align_corners=False):
    """Resizes keeping the aspect ratio, then zero-pads to target_height x target_width."""
    return resize_image_with_pad_common(
        image, target_height, target_width,
        lambda im, new_size: resize_images(im, new_size, method, align_corners=align_corners))


def resize_image_with_pad_common(image, target_height, target_width, resize_fn):
    """What TF's two resize_image_with_pad functions share around `resize_fn(image,
    [height, width])` (4-D)."""
    with name_scope(None, "resize_image_with_pad", [image]):
        image, is_batch = _batched(image)
        checks = _check_3d(image, require_static=False)
        checks += _assert(target_width > 0, ValueError, "target_width must be > 0.")
        checks += _assert(target_height > 0, ValueError, "target_height must be > 0.")
        image = _with_checks(checks, image)
        _, height, width, _ = _image_dimensions(image, 4)
        f64 = dtypes.float64
        f_h, f_w = math_ops.cast(height, f64), math_ops.cast(width, f64)
        f_th, f_tw = math_ops.cast(target_height, f64), math_ops.cast(target_width, f64)
        ratio = math_ops.maximum(f_w / f_tw, f_h / f_th)
        resized_h_f, resized_w_f = f_h / ratio, f_w / ratio
        resized_h = math_ops.cast(math_ops.floor(resized_h_f), dtypes.int32)
        resized_w = math_ops.cast(math_ops.floor(resized_w_f), dtypes.int32)
        pad_h = math_ops.floor((f_th - resized_h_f) / 2)
        pad_w = math_ops.floor((f_tw - resized_w_f) / 2)
        p_h = math_ops.maximum(0, math_ops.cast(pad_h, dtypes.int32))
        p_w = math_ops.maximum(0, math_ops.cast(pad_w, dtypes.int32))
        resized = resize_fn(image, [resized_h, resized_w])
        padded = pad_to_bounding_box(resized, p_h, p_w, target_height, target_width)
        return padded if is_batch else array_ops.squeeze(padded, axis=[0])


resize_image_with_pad_v1 = resize_image_with_pad  # TF 1.15's name for the TF1 behaviour


def central_crop(image, central_fraction):
    """Crops the central `central_fraction` (in (0, 1]) of each dimension's height/width."""
    with name_scope(None, "central_crop", [image]):
        image = convert_to_tensor(image, name="image")
        if central_fraction <= 0.0 or central_fraction > 1.0:
            raise ValueError("central_fraction must be within (0, 1]")
        if central_fraction == 1.0:
            return image
        _with_checks(_check_3d(image, require_static=False), image)
        rank = image._shape.ndims
        if rank not in (3, 4):
            raise ValueError("`image` should either be a Tensor with rank = 3 or rank = 4. "
                             f"Had rank = {rank}.")
        dims = image._shape.as_list()
        first = 0 if rank == 3 else 1

        def dim(i):
            if dims[i] is not None:
                return dims[i], False
            return array_ops.shape(image)[i], True

        (img_h, dyn_h), (img_w, dyn_w) = dim(first), dim(first + 1)

        def start(size, dynamic):
            if dynamic:
                f = math_ops.cast(size, dtypes.float64)
                return math_ops.cast((f - f * central_fraction) / 2, dtypes.int32)
            f = float(size)
            return int((f - f * central_fraction) / 2)

        h0, w0 = start(img_h, dyn_h), start(img_w, dyn_w)
        h_size, w_size = img_h - h0 * 2, img_w - w0 * 2
        if rank == 3:
            begin, size = array_ops.stack([h0, w0, 0]), array_ops.stack([h_size, w_size, -1])
        else:
            begin = array_ops.stack([0, h0, w0, 0])
            size = array_ops.stack([-1, h_size, w_size, -1])
        out = slicing_ops.slice(image, begin, size)
        static = [None if dyn_h else h_size, None if dyn_w else w_size, dims[-1]]
        out.set_shape(static if rank == 3 else [dims[0]] + static)
        return out


def _fix_flip_shape(image, result):
    """The flipped 3-D image has the image's shape; an image of unknown rank is 3-D."""
    result.set_shape(image._shape if image._shape.ndims is not None else [None] * 3)
    return result


def _flip(image, axis, scope):
    with name_scope(None, scope, [image]):
        image = convert_to_tensor(image, name="image")
        image = _with_checks(_check_3d(image, require_static=False), image)
        ndims = image._shape.ndims
        if ndims == 3 or ndims is None:
            return _fix_flip_shape(image, manip_ops.reverse(image, [axis]))
        if ndims == 4:
            return manip_ops.reverse(image, [axis + 1])
        raise ValueError("'image' must have either 3 or 4 dimensions.")


def flip_left_right(image):
    """Mirrors `image` (3-D or 4-D) horizontally."""
    return _flip(image, 1, "flip_left_right")


def flip_up_down(image):
    """Mirrors `image` (3-D or 4-D) vertically."""
    return _flip(image, 0, "flip_up_down")


def _random_flip(image, axis, seed, scope):
    from flowloom.ops.control_flow.cond import cond
    from flowloom.ops.random import random_ops

    with name_scope(None, scope, [image]):
        image = convert_to_tensor(image, name="image")
        image = _with_checks(_check_3d(image, require_static=False), image)
        ndims = image._shape.ndims
        if ndims == 3 or ndims is None:
            u = random_ops.random_uniform([], 0, 1.0, seed=seed)
            result = cond(math_ops.less(u, 0.5), lambda: manip_ops.reverse(image, [axis]),
                          lambda: image)
            return _fix_flip_shape(image, result)
        if ndims == 4:
            batch = array_ops.shape(image)[0]
            u = random_ops.random_uniform(array_ops.stack([batch]), 0, 1.0, seed=seed)
            flips = math_ops.round(array_ops.reshape(u, array_ops.stack([batch, 1, 1, 1])))
            flips = math_ops.cast(flips, image.dtype)
            flipped = manip_ops.reverse(image, [axis + 1])
            return flips * flipped + (1 - flips) * image
        raise ValueError("'image' must have either 3 or 4 dimensions.")


def random_flip_left_right(image, seed=None):
    """Mirrors `image` horizontally with probability 1/2 (each image of a batch alone)."""
    return _random_flip(image, 1, seed, "random_flip_left_right")


def random_flip_up_down(image, seed=None):
    """Mirrors `image` vertically with probability 1/2 (each image of a batch alone)."""
    return _random_flip(image, 0, seed, "random_flip_up_down")


def transpose_image(image, name=None):
    """Swaps height and width of a 3-D or 4-D image."""
    with name_scope(name, "transpose", [image]):
        image = convert_to_tensor(image, name="image")
        image = _with_checks(_check_3d(image, require_static=False), image)
        ndims = image._shape.ndims
        if ndims == 3 or ndims is None:
            return array_ops.transpose(image, [1, 0, 2])
        if ndims == 4:
            return array_ops.transpose(image, [0, 2, 1, 3])
        raise ValueError("'image' must have either 3 or 4 dimensions.")


def rot90(image, k=1, name=None):
    """Rotates `image` counter-clockwise by k * 90 degrees (k a Python int or a tensor)."""
    with name_scope(name, "rot90", [image, k]):
        image = convert_to_tensor(image, name="image")
        image = _with_checks(_check_3d(image, require_static=False), image)
        batch = image._shape.ndims == 4
        if image._shape.ndims not in (3, 4, None):
            raise ValueError("'image' must have either 3 or 4 dimensions.")
        off = 1 if batch else 0
        perm = [0, 2, 1, 3] if batch else [1, 0, 2]
        turns = {
            0: lambda: image,
            1: lambda: array_ops.transpose(manip_ops.reverse(image, [off + 1]), perm),
            2: lambda: manip_ops.reverse(image, [off, off + 1]),
            3: lambda: manip_ops.reverse(array_ops.transpose(image, perm), [off + 1]),
        }
        k_value = constant_value(k) if _is_tensor(k) else np.asarray(k)
        if k_value is not None and isinstance(k_value.item(), numbers.Integral):
            return turns[int(k_value) % 4]()
        from flowloom.ops.control_flow.cond import case

        k = math_ops.floormod(convert_to_tensor(k, dtypes.int32, name="k"), 4)
        result = case([(math_ops.equal(k, i), turns[i]) for i in (1, 2, 3)],
                      default=turns[0], exclusive=True)
        result.set_shape([None, None, image._shape.as_list()[-1]] if not batch else
                         [image._shape.as_list()[0], None, None, image._shape.as_list()[-1]])
        return result


def random_crop(value, size, seed=None, name=None):
    """Crops a random `size` slice out of `value` (any rank; size per dimension)."""
    from flowloom.ops.checks.logging_ops import Assert_
    from flowloom.ops.control_flow.control_flow_ops import with_dependencies
    from flowloom.ops.math import reduction_ops
    from flowloom.ops.random import random_ops

    with name_scope(name, "random_crop", [value, size]) as scope:
        value = convert_to_tensor(value, name="value")
        size = convert_to_tensor(size, dtype=dtypes.int32, name="size")
        shape = array_ops.shape(value)
        check = Assert_(reduction_ops.reduce_all(math_ops.greater_equal(shape, size)),
                        ["Need value.shape >= size, got ", shape, size], summarize=1000)
        shape = with_dependencies([check], shape)
        limit = shape - size + 1
        offset = math_ops.floormod(random_ops.random_uniform(
            array_ops.shape(shape), dtype=size.dtype, maxval=size.dtype.max, seed=seed), limit)
        return slicing_ops.slice(value, offset, size, name=scope)
