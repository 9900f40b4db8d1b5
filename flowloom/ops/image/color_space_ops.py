"""Colour-space conversions of tf.image built as TF builds them (a tensordot of the last
axis with a 3x3 matrix): RGB <-> YIQ and RGB <-> YUV (TF's matrices)."""

from flowloom.framework.ops import convert_to_tensor

_RGB_TO_YIQ = [[0.299, 0.59590059, 0.2115], [0.587, -0.27455667, -0.52273617],
               [0.114, -0.32134392, 0.31119955]]
_YIQ_TO_RGB = [[1, 1, 1], [0.95598634, -0.27201283, -1.10674021],
               [0.6208248, -0.64720424, 1.70423049]]
_RGB_TO_YUV = [[0.299, -0.14714119, 0.61497538], [0.587, -0.28886916, -0.51496512],
               [0.114, 0.43601035, -0.10001026]]
_YUV_TO_RGB = [[1, 1, 1], [0, -0.394642334, 2.03206185], [1.13988303, -0.58062185, 0]]


def _convert(images, matrix):
    from flowloom.ops.math.einsum_ops import tensordot

    images = convert_to_tensor(images, name="images")
    kernel = convert_to_tensor(matrix, dtype=images.dtype, name="kernel")
    ndims = images.shape.ndims
    return tensordot(images, kernel, axes=[[ndims - 1], [0]])


def rgb_to_yiq(images):
    """RGB images (last dimension 3, floats in [0, 1]) to YIQ."""
    return _convert(images, _RGB_TO_YIQ)


def yiq_to_rgb(images):
    """YIQ images (last dimension 3) to RGB."""
    return _convert(images, _YIQ_TO_RGB)


def rgb_to_yuv(images):
    """RGB images (last dimension 3, floats in [0, 1]) to YUV."""
    return _convert(images, _RGB_TO_YUV)


def yuv_to_rgb(images):
    """YUV images (last dimension 3) to RGB."""
    return _convert(images, _YUV_TO_RGB)
