"""Gradient-check builders for ops/image (the resize ops; their kernels compute in float32,
hence the looser tolerance)."""

import flowloom as tf
from tests.gradient_cases import ph


def _resize(fn, size, **kw):
    def build(rng):
        x, xv = ph(rng, (1, 4, 5, 2))
        y = fn(x, size, **kw)
        return [(x, xv)], tf.cast(y, tf.float64) * 1.5, 2e-3
    return build


def _crop_and_resize(rng):
    x, xv = ph(rng, (2, 5, 6, 2))
    boxes = tf.constant([[0.1, 0.15, 0.8, 0.9], [0.3, 0.0, 0.55, 0.7]], tf.float32)
    y = tf.image.crop_and_resize(x, boxes, [1, 0], [3, 4])
    return [(x, xv)], tf.cast(y, tf.float64) * 1.5, 2e-3


CASES = {
    "CropAndResize": _crop_and_resize,
    "ResizeBilinear": [_resize(tf.image.resize_bilinear, [7, 3]),
                       _resize(tf.image.resize_bilinear, [3, 8], half_pixel_centers=True)],
    "ResizeNearestNeighbor": [_resize(tf.image.resize_nearest_neighbor, [7, 3]),
                              _resize(tf.image.resize_nearest_neighbor, [2, 9],
                                      align_corners=True)],
    "ResizeBicubic": [_resize(tf.image.resize_bicubic, [6, 7]),
                      _resize(tf.image.resize_bicubic, [3, 3], half_pixel_centers=True)],
}
