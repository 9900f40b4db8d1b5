"""tf.image programs whose values flowloom must reproduce (recorded from TF by
tests/data/record_image.py, compared by tests/ops/test_image_vs_tf.py).

Each case takes the TF-like module and returns (outputs, xs): the tensors to fetch and the
inputs to differentiate the first output by (weights from `grad_weights`).
"""

import numpy as np

CASES = {}
# Values through reductions or matmuls (TF's Eigen order vs NumPy's): compared to 2e-6.
CLOSE = {"adjust_contrast", "adjust_gamma", "random_colour", "grayscale", "standardization", "total_variation",
         "sobel"}


def case(fn):
    CASES[fn.__name__] = fn
    return fn


def _img(shape, seed=0, scale=1.0, dtype=np.float32):
    return (np.random.RandomState(seed).rand(*shape) * scale).astype(dtype)


def _u8(shape, seed=0):
    return np.random.RandomState(seed).randint(0, 256, shape).astype(np.uint8)


def grad_weights(shape):
    return np.random.RandomState(7).rand(*shape).astype(np.float32)


def _resize_variants(tf, fn, x, sizes):
    outs = []
    for size in sizes:
        outs.append(fn(x, size))
        outs.append(fn(x, size, align_corners=True))
        outs.append(fn(x, size, half_pixel_centers=True))
    return outs


@case
def resize_bilinear(tf):
    x = tf.constant(_img([2, 5, 7, 3], scale=10))
    outs = _resize_variants(tf, tf.image.resize_bilinear, x, [[3, 4], [9, 13], [1, 1]])
    outs.append(tf.image.resize_bilinear(tf.constant(_u8([1, 4, 6, 2])), [7, 3]))
    return outs, [x]


@case
def resize_nearest(tf):
    x = tf.constant(_img([2, 5, 7, 3], scale=10))
    outs = _resize_variants(tf, tf.image.resize_nearest_neighbor, x, [[3, 4], [9, 13], [1, 1]])
    outs.append(tf.image.resize_nearest_neighbor(tf.constant(_u8([1, 4, 6, 2])), [7, 3]))
    return outs, [x]


@case
def resize_bicubic(tf):
    x = tf.constant(_img([2, 6, 5, 3], scale=10))
    outs = _resize_variants(tf, tf.image.resize_bicubic, x, [[3, 4], [11, 9]])
    outs.append(tf.image.resize_bicubic(tf.constant(_u8([1, 4, 6, 2])), [7, 3]))
    return outs, [x]


@case
def resize_bilinear_grads(tf):
    x = tf.constant(_img([1, 6, 5, 2], seed=3))
    return [tf.image.resize_bilinear(x, [4, 9], half_pixel_centers=True)], [x]


@case
def resize_bilinear_align_grads(tf):
    x = tf.constant(_img([1, 6, 5, 2], seed=3))
    return [tf.image.resize_bilinear(x, [11, 3], align_corners=True)], [x]


@case
def resize_nearest_half_grads(tf):
    x = tf.constant(_img([1, 6, 5, 2], seed=3))
    return [tf.image.resize_nearest_neighbor(x, [4, 9], half_pixel_centers=True)], [x]


@case
def resize_bicubic_half_grads(tf):
    x = tf.constant(_img([1, 6, 5, 2], seed=3))
    return [tf.image.resize_bicubic(x, [9, 4], half_pixel_centers=True)], [x]


@case
def resize_area(tf):
    x = tf.constant(_img([2, 7, 6, 3], scale=10))
    outs = []
    for size in ([3, 4], [2, 5], [10, 13], [7, 6]):
        outs.append(tf.image.resize_area(x, size))
        outs.append(tf.image.resize_area(x, size, align_corners=True))
    outs.append(tf.image.resize_area(tf.constant(_img([1, 5, 9, 1], scale=4)), [2, 4]))
    return outs, []


@case
def resize_images(tf):
    x3 = tf.constant(_img([6, 8, 3], scale=255))
    x4 = tf.constant(_u8([2, 6, 8, 3]))
    m = tf.image.ResizeMethod
    return [tf.image.resize_images(x3, [4, 5]),
            tf.image.resize_images(x3, [9, 3], method=m.NEAREST_NEIGHBOR),
            tf.image.resize_images(x3, [9, 3], method=m.BICUBIC, align_corners=True),
            tf.image.resize_images(x4, [3, 4], method=m.AREA),
            tf.image.resize_images(x4, [6, 8]),
            tf.image.resize_images(x3, [12, 12], preserve_aspect_ratio=True),
            tf.image.resize_images(x4, [5, 20], preserve_aspect_ratio=True)], []


@case
def crops_and_pads(tf):
    x3 = tf.constant(_img([6, 8, 2]))
    x4 = tf.constant(_img([2, 5, 7, 3], seed=1))
    return [tf.image.crop_to_bounding_box(x3, 1, 2, 4, 5),
            tf.image.crop_to_bounding_box(x4, 0, 3, 5, 4),
            tf.image.pad_to_bounding_box(x3, 2, 1, 9, 10),
            tf.image.pad_to_bounding_box(x4, 0, 0, 6, 7),
            tf.image.resize_image_with_crop_or_pad(x3, 4, 11),
            tf.image.resize_image_with_crop_or_pad(x4, 8, 3),
            tf.image.resize_image_with_crop_or_pad(x3, 7, 7),
            tf.image.resize_image_with_pad(x3, 10, 5),
            tf.image.resize_image_with_pad(x4, 4, 12),
            tf.image.central_crop(x3, 0.5), tf.image.central_crop(x4, 0.33),
            tf.image.central_crop(x3, 1.0)], []


@case
def flips_and_rotations(tf):
    x3 = tf.constant(_img([3, 4, 2]))
    x4 = tf.constant(_img([2, 3, 4, 2], seed=1))
    return [tf.image.flip_left_right(x3), tf.image.flip_up_down(x3),
            tf.image.flip_left_right(x4), tf.image.flip_up_down(x4),
            tf.image.transpose_image(x3), tf.image.transpose_image(x4),
            tf.image.rot90(x3), tf.image.rot90(x3, 2), tf.image.rot90(x3, 3),
            tf.image.rot90(x4, 1), tf.image.rot90(x3, tf.constant(3))], []


@case
def random_flips_and_crops(tf):
    tf.set_random_seed(81)
    x3 = tf.constant(_img([3, 4, 2]))
    x4 = tf.constant(_img([6, 3, 4, 2], seed=1))
    return [tf.image.random_flip_left_right(x3), tf.image.random_flip_up_down(x3, seed=5),
            tf.image.random_flip_left_right(x4), tf.image.random_flip_up_down(x4),
            tf.random_crop(x4, [3, 2, 3, 2]), tf.image.random_crop(x3, [2, 2, 2], seed=9)], []


@case
def adjustments(tf):
    f = tf.constant(_img([2, 4, 5, 3], seed=2))
    u = tf.constant(_u8([4, 5, 3], seed=3))
    return [tf.image.adjust_brightness(f, 0.2), tf.image.adjust_brightness(u, -0.1),
            tf.image.adjust_hue(f, 0.3), tf.image.adjust_hue(f, -0.45), tf.image.adjust_hue(u, 0.1),
            tf.image.adjust_saturation(f, 1.7), tf.image.adjust_saturation(f, 0.3),
            tf.image.adjust_saturation(u, 2.0)], []


@case
def adjust_gamma(tf):
    # Pow: TF's Eigen pow and NumPy's power may differ in the last bit.
    f = tf.constant(_img([2, 4, 5, 3], seed=2))
    u = tf.constant(_u8([4, 5, 3], seed=3))
    return [tf.image.adjust_gamma(f, 2.2, 1.1), tf.image.adjust_gamma(u, 0.5)], []


@case
def adjust_contrast(tf):
    f = tf.constant(_img([2, 4, 5, 3], seed=2))
    u = tf.constant(_u8([4, 5, 3], seed=3))
    return [tf.image.adjust_contrast(f, 1.8), tf.image.adjust_contrast(u, 0.4),
            tf.image.adjust_contrast(tf.constant(_img([37, 29, 1], seed=4)), 2.5)], []


@case
def random_colour(tf):
    tf.set_random_seed(91)
    f = tf.constant(_img([4, 5, 3], seed=2))
    return [tf.image.random_brightness(f, 0.3), tf.image.random_contrast(f, 0.5, 1.5),
            tf.image.random_hue(f, 0.2), tf.image.random_saturation(f, 0.4, 1.6, seed=3)], []


@case
def conversions(tf):
    f = tf.constant(_img([3, 4, 3], seed=5) * 1.2 - 0.1)
    u = tf.constant(_u8([3, 4, 3], seed=6))
    return [tf.image.convert_image_dtype(u, tf.float32),
            tf.image.convert_image_dtype(f, tf.uint8, saturate=True),
            tf.image.convert_image_dtype(tf.abs(f) * 0.9, tf.uint8),
            tf.image.convert_image_dtype(u, tf.int32),
            tf.image.convert_image_dtype(u, tf.float64),
            tf.image.convert_image_dtype(f, tf.float16),
            tf.image.rgb_to_hsv(tf.abs(f)), tf.image.hsv_to_rgb(tf.abs(f) * 0.8),
            tf.image.grayscale_to_rgb(tf.constant(_img([2, 3, 1])))], []


@case
def convert_int16(tf):
    i16 = tf.constant(np.array([[-32768, -1, 0, 1, 255, 32767]], np.int16))
    return [tf.image.convert_image_dtype(i16, tf.uint8),
            tf.image.convert_image_dtype(i16, tf.int32)], []


@case
def grayscale(tf):
    return [tf.image.rgb_to_grayscale(tf.constant(_img([2, 3, 4, 3], seed=8))),
            tf.image.rgb_to_grayscale(tf.constant(_u8([3, 4, 3], seed=9)))], []


@case
def standardization(tf):
    return [tf.image.per_image_standardization(tf.constant(_img([5, 6, 3], seed=10))),
            tf.image.per_image_standardization(tf.constant(_img([2, 4, 4, 1], seed=11) * 50)),
            tf.image.per_image_standardization(tf.ones([3, 3, 2]))], []


@case
def total_variation(tf):
    return [tf.image.total_variation(tf.constant(_img([5, 6, 3], seed=12))),
            tf.image.total_variation(tf.constant(_img([2, 4, 4, 2], seed=13)))], []


@case
def gradients_and_edges(tf):
    x = tf.constant(_img([2, 4, 5, 2], seed=14))
    dy, dx = tf.image.image_gradients(x)
    return [dy, dx], []


@case
def sobel(tf):
    return [tf.image.sobel_edges(tf.constant(_img([2, 5, 6, 2], seed=15)))], []


def run_case(tf, fn):
    """Fetched values (outputs, then gradients of the first output) of one case."""
    with tf.Graph().as_default():
        outs, xs = fn(tf)
        fetch = list(outs)
        if xs:
            w = tf.constant(grad_weights(outs[0].shape.as_list()))
            fetch += tf.gradients(outs[0] * w, xs)
        with tf.Session() as sess:
            return sess.run(fetch), len(outs)
