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


CASES = {
    "ResizeBilinear": [_resize(tf.image.resize_bilinear, [7, 3]),
                       _resize(tf.image.resize_bilinear, [3, 8], half_pixel_centers=True)],
    "ResizeNearestNeighbor": [_resize(tf.image.resize_nearest_neighbor, [7, 3]),
                              _resize(tf.image.resize_nearest_neighbor, [2, 9],
                                      align_corners=True)],
    "ResizeBicubic": [_resize(tf.image.resize_bicubic, [6, 7]),
                      _resize(tf.image.resize_bicubic, [3, 3], half_pixel_centers=True)],
}
