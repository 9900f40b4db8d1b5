"""tf.image quality measures: psnr, ssim and ssim_multiscale (TF 1.15's graph recipes: a
Gaussian-weighted depthwise convolution for the local statistics, average pooling between
the scales of MS-SSIM), and the shape check they share."""

import numpy as np

from flowloom.framework import dtypes
from flowloom.framework.graph import control_dependencies, name_scope
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.array import array_ops, manip_ops
from flowloom.ops.checks.logging_ops import Assert_
from flowloom.ops.image.adjust_ops import convert_image_dtype
from flowloom.ops.math import math_ops, reduction_ops

# The weights of the five MS-SSIM scales (Wang, Simoncelli and Bovik, 2004).
_MSSSIM_WEIGHTS = (0.0448, 0.2856, 0.3001, 0.2363, 0.1333)


def _verify_compatible_image_shapes(img1, img2):
    """Checks that two image batches can be compared (psnr, ssim): both of rank >= 3 with
    the same [height, width, channels], batch dimensions broadcastable.

    Returns:
      (shape of img1, shape of img2, the run-time Assert ops for what the static shapes
      leave open).

    Raises:
      ValueError: the static shapes already fail the check.
    """
    shape1 = img1.get_shape().with_rank_at_least(3)
    shape2 = img2.get_shape().with_rank_at_least(3)
    shape1[-3:].assert_is_compatible_with(shape2[-3:])
    if shape1.ndims is not None and shape2.ndims is not None:
        for d1, d2 in zip(reversed(shape1.dims[:-3]), reversed(shape2.dims[:-3])):
            if not (d1 == 1 or d2 == 1 or d1.is_compatible_with(d2)):
                raise ValueError(f"Two images are not compatible: {shape1} and {shape2}")
    dyn1, dyn2 = array_ops.shape_n([img1, img2])
    rank_ok = math_ops.greater_equal(array_ops.size(dyn1), 3)
    tails_equal = reduction_ops.reduce_all(math_ops.equal(dyn1[-3:], dyn2[-3:]))
    checks = [Assert_(rank_ok, [dyn1, dyn2], summarize=10),
              Assert_(tails_equal, [dyn1, dyn2], summarize=10)]
    return dyn1, dyn2, checks


def psnr(a, b, max_val, name=None):
    """Returns the Peak Signal-to-Noise Ratio between a and b, per image.

    The last three dimensions are [height, width, depth].

    Args:
      a: First set of images.
      b: Second set of images.
      max_val: The dynamic range of the images (i.e., the difference between the maximum
        and the minimum allowed values).
      name: Namespace to embed the computation in.

    Returns:
      float32 PSNR in dB, one value per image (the shape of the batch dimensions).
    """
    with name_scope(name, "PSNR", [a, b]):
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, name="b")
        max_val = convert_image_dtype(math_ops.cast(max_val, a.dtype), dtypes.float32)
        a = convert_image_dtype(a, dtypes.float32)
        b = convert_image_dtype(b, dtypes.float32)
        mse = reduction_ops.reduce_mean(math_ops.squared_difference(a, b), [-3, -2, -1])
        value = math_ops.subtract(20 * math_ops.log(max_val) / math_ops.log(10.0),
                                  np.float32(10 / np.log(10)) * math_ops.log(mse), name="psnr")
        _, _, checks = _verify_compatible_image_shapes(a, b)
        with control_dependencies(checks):
            return array_ops.identity(value)


def _gaussian_window(size, sigma):
    """MATLAB's fspecial('gaussian', size, sigma) as a [size, size, 1, 1] filter: the
    outer sum of squared centred coordinates, scaled, normalised by a softmax."""
    size = convert_to_tensor(size, dtypes.int32)
    sigma = convert_to_tensor(sigma)
    from flowloom.ops.math.math_ops import range_ as _range
    from flowloom.ops.nn.activation_ops import softmax

    centre = math_ops.cast(size - 1, sigma.dtype) / 2.0
    coords = math_ops.cast(_range(size), sigma.dtype) - centre
    g = math_ops.square(coords) * (-0.5 / math_ops.square(sigma))
    g = array_ops.reshape(g, [1, -1]) + array_ops.reshape(g, [-1, 1])
    g = softmax(array_ops.reshape(g, [1, -1]))
    return array_ops.reshape(g, [size, size, 1, 1])


def _luminance_and_cs(x, y, local_mean, max_val, k1, k2):
    """SSIM's luminance term and contrast-structure term under the weighted `local_mean`
    (the biased covariance estimate of the paper)."""
    c1 = (k1 * max_val) ** 2
    c2 = (k2 * max_val) ** 2
    mean_x, mean_y = local_mean(x), local_mean(y)
    twice_means = mean_x * mean_y * 2.0
    sum_sq_means = math_ops.square(mean_x) + math_ops.square(mean_y)
    luminance = (twice_means + c1) / (sum_sq_means + c1)
    twice_cross = local_mean(x * y) * 2.0
    sum_sq = local_mean(math_ops.square(x) + math_ops.square(y))
    cs = (twice_cross - twice_means + c2) / (sum_sq - sum_sq_means + c2)
    return luminance, cs


def _ssim_per_channel(img1, img2, max_val=1.0, filter_size=11, filter_sigma=1.5, k1=0.01,
                      k2=0.03):
    """(SSIM, contrast-structure) per channel, shape [..., channels], over an
    `filter_size` Gaussian window of width `filter_sigma` (VALID: the images must be at least
    filter_size on both sides, checked when run)."""
    from flowloom.ops.nn.nn_ops import depthwise_conv2d

    filter_size = convert_to_tensor(filter_size, dtypes.int32)
    filter_sigma = convert_to_tensor(filter_sigma, dtype=img1.dtype)
    shape1, shape2 = array_ops.shape_n([img1, img2])
    checks = [Assert_(reduction_ops.reduce_all(math_ops.greater_equal(s[-3:-1], filter_size)),
                      [s, filter_size], summarize=8) for s in (shape1, shape2)]
    with control_dependencies(checks):
        img1 = array_ops.identity(img1)
    window = _gaussian_window(filter_size, filter_sigma)
    window = manip_ops.tile(window, [1, 1, shape1[-1], 1])

    def local_mean(x):
        shape = array_ops.shape(x)
        flat = array_ops.reshape(x, array_ops.concat([[-1], shape[-3:]], 0))
        out = depthwise_conv2d(flat, window, strides=[1, 1, 1, 1], padding="VALID")
        return array_ops.reshape(out, array_ops.concat([shape[:-3], array_ops.shape(out)[1:]],
                                                       0))

    luminance, cs = _luminance_and_cs(img1, img2, local_mean, max_val, k1, k2)
    axes = convert_to_tensor([-3, -2], dtypes.int32)
    return (reduction_ops.reduce_mean(luminance * cs, axes),
            reduction_ops.reduce_mean(cs, axes))


def ssim(img1, img2, max_val, filter_size=11, filter_sigma=1.5, k1=0.01, k2=0.03):
    """Computes the SSIM index between img1 and img2 (Wang, Bovik, Sheikh and Simoncelli,
    2004), averaged over the channels (no colour-space conversion is done).

    The images must be at least filter_size x filter_size.

    Args:
      img1: First image batch.
      img2: Second image batch.
      max_val: The dynamic range of the images (i.e., the difference between the maximum
        and the minimum allowed values).
      filter_size: Default value 11 (size of gaussian filter).
      filter_sigma: Default value 1.5 (width of gaussian filter).
      k1: Default value 0.01
      k2: Default value 0.03

    Returns:
      A tensor with an SSIM value for each image, of shape
      broadcast(img1.shape[:-3], img2.shape[:-3]).
    """
    img1 = convert_to_tensor(img1, name="img1")
    img2 = convert_to_tensor(img2, name="img2")
    _, _, checks = _verify_compatible_image_shapes(img1, img2)
    with control_dependencies(checks):
        img1 = array_ops.identity(img1)
    max_val = convert_image_dtype(math_ops.cast(max_val, img1.dtype), dtypes.float32)
    img1 = convert_image_dtype(img1, dtypes.float32)
    img2 = convert_image_dtype(img2, dtypes.float32)
    per_channel, _ = _ssim_per_channel(img1, img2, max_val, filter_size, filter_sigma, k1, k2)
    return reduction_ops.reduce_mean(per_channel, [-1])


def ssim_multiscale(img1, img2, max_val, power_factors=_MSSSIM_WEIGHTS, filter_size=11,
                    filter_sigma=1.5, k1=0.01, k2=0.03):
    """Computes the MS-SSIM between img1 and img2 (Wang, Simoncelli and Bovik, 2003):
    the contrast-structure terms of len(power_factors) - 1 scales, each half the size of
    the one before (odd sides padded symmetrically), and the SSIM of the last, each
    clipped at 0, raised to its power factor and multiplied; averaged over channels.

    Args:
      img1: First image batch ([..., height, width, channels]).
      img2: Second image batch, of the same rank.
      max_val: The dynamic range of the images.
      power_factors: the weight of each scale (the first is the full resolution).
      filter_size: Default value 11 (size of gaussian filter).
      filter_sigma: Default value 1.5 (width of gaussian filter).
      k1: Default value 0.01
      k2: Default value 0.03

    Returns:
      A tensor with an MS-SSIM value in [0, 1] for each image, of shape
      broadcast(img1.shape[:-3], img2.shape[:-3]).
    """
    from flowloom.ops.control_flow.cond import cond
    from flowloom.ops.nn.nn_ops import avg_pool, relu

    with name_scope(None, "MS-SSIM", [img1, img2]):
        img1 = convert_to_tensor(img1, name="img1")
        img2 = convert_to_tensor(img2, name="img2")
        shape1, shape2, checks = _verify_compatible_image_shapes(img1, img2)
        with control_dependencies(checks):
            img1 = array_ops.identity(img1)
        max_val = convert_image_dtype(math_ops.cast(max_val, img1.dtype), dtypes.float32)
        imgs = [convert_image_dtype(img1, dtypes.float32),
                convert_image_dtype(img2, dtypes.float32)]
        heads = [s[:-3] for s in (shape1, shape2)]
        tails = [s[-3:] for s in (shape1, shape2)]
        window = [1, 2, 2, 1]
        halving = convert_to_tensor(window[1:], dtypes.int32)

        def pad_to_even(images, remainder):
            paddings = manip_ops.pad(array_ops.expand_dims(remainder, -1), [[1, 0], [1, 0]])
            return [manip_ops.pad(x, paddings, mode="SYMMETRIC") for x in images]

        terms = []
        for scale in range(len(power_factors)):
            with name_scope(None, f"Scale{scale}", imgs):
                if scale > 0:
                    flat = [array_ops.reshape(x, array_ops.concat([[-1], t], 0))
                            for x, t in zip(imgs, tails)]
                    remainder = tails[0] % halving
                    odd = reduction_ops.reduce_any(math_ops.not_equal(remainder, 0))
                    padded = cond(odd, lambda flat=flat, r=remainder: pad_to_even(flat, r),
                                  lambda flat=flat: flat)
                    smaller = [avg_pool(x, ksize=window, strides=window, padding="VALID")
                               for x in padded]
                    tails = [s[1:] for s in array_ops.shape_n(smaller)]
                    imgs = [array_ops.reshape(x, array_ops.concat([h, t], 0))
                            for x, h, t in zip(smaller, heads, tails)]
                per_channel, cs = _ssim_per_channel(*imgs, max_val=max_val,
                                                    filter_size=filter_size,
                                                    filter_sigma=filter_sigma, k1=k1, k2=k2)
                terms.append(relu(cs))
        terms[-1] = relu(per_channel)  # the last scale contributes its SSIM, not its cs
        stacked = array_ops.stack(terms, axis=-1)
        ms_ssim = reduction_ops.reduce_prod(math_ops.pow(stacked, power_factors), [-1])
        return reduction_ops.reduce_mean(ms_ssim, [-1])
