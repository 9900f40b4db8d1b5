"""One program run on TF 1.15 (record_color_space.py) and on flowloom
(tests/ops/test_color_space.py): RGB <-> YIQ / YUV of a batch and of one image, float32 and
float64, and the padded resize of TF 1.15's resize_image_with_pad_v1."""

import numpy as np


def program(tf, ops):
    r = {}
    rgb = (np.arange(2 * 2 * 3 * 3) * 7 % 11 / 10.0).reshape(2, 2, 3, 3)
    with tf.Graph().as_default(), tf.Session() as s:
        for dtype in (tf.float32, tf.float64):
            x = tf.constant(rgb, dtype)
            for name in ("rgb_to_yiq", "yiq_to_rgb", "rgb_to_yuv", "yuv_to_rgb"):
                y = getattr(tf.image, name)(x)
                r[f"{name}_{dtype.name}"] = [np.round(s.run(y).astype(np.float64), 5).tolist(),
                                             y.shape.as_list()]
            r[f"one_image_{dtype.name}"] = np.round(
                s.run(tf.image.rgb_to_yiq(x[0])).astype(np.float64), 5).tolist()
        padded = ops["pad_v1"](tf.constant(rgb[0]), 5, 4)
        r["pad_v1"] = [np.round(s.run(padded), 5).tolist(), padded.shape.as_list()]
    return r
