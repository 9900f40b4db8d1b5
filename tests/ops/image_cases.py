"""tf.image programs whose values flowloom must reproduce (recorded from TF by
tests/data/record_image.py, compared by tests/ops/test_image_vs_tf.py).

Each case takes the TF-like module and returns (outputs, xs): the tensors to fetch and the
inputs to differentiate the first output by (weights from `grad_weights`).
"""

import os

import numpy as np

IMAGES = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data",
                      "images")
CASES = {}
# Values through reductions or matmuls (TF's Eigen order vs NumPy's): compared to 2e-6.
CLOSE = {"adjust_contrast", "adjust_gamma", "random_colour", "grayscale", "standardization", "total_variation",
         "sobel", "psnr"}


# Absolute tolerances: TF decodes subsampled JPEGs with libjpeg's fast IDCT and fancy
# upsampling, a pair Pillow cannot select; flowloom uses the accurate IDCT there.
# (In 8-bit levels; float images are compared times 255.)
TOLERANCE = {"decode_jpeg_420": 6, "jpeg_quality": 8}


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
def psnr(tf):
    a = tf.constant(_u8([2, 6, 7, 3], seed=30))
    b = tf.constant(_u8([2, 6, 7, 3], seed=31))
    fa, fb = tf.constant(_img([5, 4, 3], seed=32)), tf.constant(_img([5, 4, 3], seed=33))
    return [tf.image.psnr(a, b, 255), tf.image.psnr(fa, fb, 1.0)], []


@case
def sobel(tf):
    return [tf.image.sobel_edges(tf.constant(_img([2, 5, 6, 2], seed=15)))], []


def _file(name):
    with open(os.path.join(IMAGES, name), "rb") as f:
        return f.read()


@case
def decode_png(tf):
    outs = []
    for name in ("rgb.png", "rgba.png", "gray.png", "pal.png"):
        data = tf.constant(_file(name))
        outs += [tf.image.decode_png(data), tf.image.decode_png(data, channels=3)]
    # (pal.png with channels=4: TF's added alpha is 15, (1 << bit depth) - 1 of the 4-bit
    # palette, a TF bug; flowloom gives 255.)
    for name in ("rgb.png", "pal.png", "gray16.png"):
        outs += [tf.image.decode_png(tf.constant(_file(name)), channels=c) for c in (1, 4)
                 if (name, c) != ("pal.png", 4)]
    g16 = tf.constant(_file("gray16.png"))
    outs += [tf.image.decode_png(tf.constant(_file("rgba.png")), channels=1),
             tf.image.decode_png(g16, dtype=tf.uint16), tf.image.decode_png(g16),
             tf.image.decode_image(tf.constant(_file("rgb.png")), dtype=tf.float32)]
    return outs, []


@case
def decode_jpeg(tf):
    outs = []
    for name in ("rgb444.jpg", "gray.jpg"):
        data = tf.constant(_file(name))
        outs += [tf.image.decode_jpeg(data), tf.image.decode_jpeg(data, channels=1),
                 tf.image.decode_jpeg(data, channels=3), tf.image.decode_image(data),
                 tf.image.decode_jpeg(data, ratio=2)]
    rgb = tf.constant(_file("rgb.jpg"))
    outs += [tf.image.decode_jpeg(rgb, channels=1), tf.image.extract_jpeg_shape(rgb),
             tf.image.decode_jpeg(rgb, dct_method="INTEGER_ACCURATE"),
             tf.image.decode_jpeg(rgb, fancy_upscaling=False),
             tf.image.decode_and_crop_jpeg(tf.constant(_file("rgb444.jpg")), [2, 3, 10, 12])]
    return outs, []


@case
def decode_jpeg_420(tf):
    # Chroma-subsampled colour with TF's default (fast) IDCT: see TOLERANCE.
    rgb = tf.constant(_file("rgb.jpg"))
    return [tf.image.decode_jpeg(rgb), tf.image.decode_image(rgb),
            tf.image.decode_and_crop_jpeg(rgb, [2, 3, 10, 12]),
            tf.image.decode_jpeg(rgb, ratio=2)], []


@case
def decode_gif_bmp(tf):
    return [tf.image.decode_gif(tf.constant(_file("anim.gif"))),
            tf.image.decode_image(tf.constant(_file("anim.gif"))),
            tf.image.decode_bmp(tf.constant(_file("rgb.bmp"))),
            tf.image.decode_image(tf.constant(_file("rgb.bmp")), channels=3)], []


@case
def encode_png(tf):
    return [tf.image.encode_png(tf.constant(_u8([5, 7, c], seed=c))) for c in (1, 2, 3, 4)] + [
        tf.image.encode_png(tf.constant(_u8([6, 4, 3], seed=9)), compression=9)], []


@case
def encode_jpeg_roundtrip(tf):
    x = tf.constant(_u8([16, 24, 3], seed=17) // 4 + 96)
    return [tf.image.decode_jpeg(tf.image.encode_jpeg(x, quality=100,
                                                      chroma_downsampling=False))], []


@case
def jpeg_quality(tf):
    tf.set_random_seed(99)
    f = tf.constant(_img([16, 16, 3], seed=25))
    u = tf.constant(_u8([16, 24, 3], seed=26))
    return [tf.image.adjust_jpeg_quality(f, 40), tf.image.adjust_jpeg_quality(u, 90),
            tf.image.random_jpeg_quality(u, 20, 80)], []


@case
def nms(tf):
    rng = np.random.RandomState(21)
    corners = rng.rand(40, 2).astype(np.float32)
    sizes = rng.rand(40, 2).astype(np.float32) * 0.4
    boxes = np.concatenate([corners, corners + sizes], 1)[:, [0, 1, 2, 3]]
    boxes[::5] = boxes[::5][:, [2, 3, 0, 1]]  # flipped corners count the same
    scores = rng.rand(40).astype(np.float32)
    scores[3] = scores[7]  # a tie: the lower index goes first
    b, s = tf.constant(boxes), tf.constant(scores)
    return [tf.image.non_max_suppression(b, s, 10),
            tf.image.non_max_suppression(b, s, 40, iou_threshold=0.2),
            tf.image.non_max_suppression(b, s, 40, iou_threshold=0.6, score_threshold=0.5),
            tf.image.non_max_suppression(b, s, 0)], []


@case
def nms_iou_tie(tf):
    exact = np.array([[0, 0, 1, 1], [0, 0, 1, 0.5], [0, 0.5, 1, 1]], np.float32)
    return [tf.image.non_max_suppression(tf.constant(exact), tf.constant([0.9, 0.8, 0.7]), 3,
                                         iou_threshold=0.5)], []


@case
def crop_and_resize(tf):
    img = tf.constant(_img([2, 7, 9, 3], seed=22, scale=10))
    boxes = tf.constant(np.array([[0.1, 0.2, 0.8, 0.9], [0.5, 0.1, 0.2, 0.6],
                                  [-0.2, -0.1, 1.3, 0.7], [0.3, 0.3, 0.3, 0.3]], np.float32))
    ind = tf.constant([0, 1, 1, 0])
    return [tf.image.crop_and_resize(img, boxes, ind, [5, 4]),
            tf.image.crop_and_resize(img, boxes, ind, [1, 6], extrapolation_value=-1.0),
            tf.image.crop_and_resize(img, boxes, ind, [4, 3], method="nearest"),
            tf.image.crop_and_resize(tf.constant(_u8([1, 5, 5, 1])), boxes[:2], [0, 0],
                                     [3, 3])], [img, boxes]


@case
def draw_boxes(tf):
    img = tf.constant(_img([2, 8, 10, 3], seed=23))
    boxes = tf.constant(np.array([[[0.1, 0.2, 0.7, 0.9], [0.5, 0.5, 1.4, 1.2],
                                   [0.6, 0.2, 0.3, 0.9]],
                                  [[-0.3, -0.2, 0.4, 0.5], [0, 0, 1, 1], [2, 2, 3, 3]]],
                                 np.float32))
    return [tf.image.draw_bounding_boxes(img, boxes),
            tf.image.draw_bounding_boxes(tf.constant(_img([1, 6, 6, 1], seed=24)),
                                         boxes[:1])], []


@case
def sample_distorted_box(tf):
    boxes = tf.constant(np.array([[[0.1, 0.2, 0.6, 0.7], [0.3, 0.1, 0.9, 0.5]]], np.float32))
    size = tf.constant([240, 320, 3])
    outs = []
    for seed, seed2, kw in ((1, 2, {}), (7, 0, {"min_object_covered": 0.6}),
                            (3, 4, {"aspect_ratio_range": [0.5, 2.0], "area_range": [0.3, 0.9],
                                    "max_attempts": 20}),
                            (5, 6, {"min_object_covered": 0.0, "area_range": [0.01, 0.05]})):
        outs += list(tf.image.sample_distorted_bounding_box(size, boxes, seed=seed, seed2=seed2,
                                                            **kw))
    outs += list(tf.image.sample_distorted_bounding_box(
        tf.constant([37, 53, 1], tf.int64), tf.zeros([1, 0, 4]), seed=9, seed2=9,
        use_image_if_no_bounding_boxes=True, min_object_covered=0.3))
    return outs, []


# Programs that must fail as TF fails: (error class, "build" or "run").
ERROR_CASES = {
    "resize_rank_2": lambda tf: tf.image.resize_images(tf.zeros([4, 4]), [2, 2]),
    "resize_bad_size": lambda tf: tf.image.resize_images(tf.zeros([4, 4, 1]), [2, 2, 2]),
    "resize_align_and_half": lambda tf: tf.image.resize_bilinear(
        tf.zeros([1, 4, 4, 1]), [2, 2], align_corners=True, half_pixel_centers=True),
    "resize_zero_size": lambda tf: tf.image.resize_bilinear(
        tf.zeros([1, 4, 4, 1]), tf.placeholder_with_default([0, 2], [2])),
    "crop_too_big": lambda tf: tf.image.crop_to_bounding_box(tf.zeros([4, 4, 1]), 1, 1, 4, 2),
    "pad_too_small": lambda tf: tf.image.pad_to_bounding_box(tf.zeros([4, 4, 1]), 1, 1, 4, 6),
    "central_crop_zero": lambda tf: tf.image.central_crop(tf.zeros([4, 4, 1]), 0.0),
    "flip_rank_2": lambda tf: tf.image.flip_left_right(tf.zeros([4, 4])),
    "decode_png_garbage": lambda tf: tf.image.decode_png(tf.constant(b"not a png")),
    "decode_jpeg_garbage": lambda tf: tf.image.decode_jpeg(tf.constant(b"\xff\xd8junk")),
    "decode_image_unknown": lambda tf: tf.image.decode_image(tf.constant(b"????????")),
    "nms_bad_iou": lambda tf: tf.image.non_max_suppression(
        tf.zeros([2, 4]), tf.zeros([2]), 2, iou_threshold=tf.placeholder_with_default(1.5, [])),
    "crop_and_resize_bad_index": lambda tf: tf.image.crop_and_resize(
        tf.zeros([1, 4, 4, 1]), tf.zeros([1, 4]), tf.placeholder_with_default([3], [1]), [2, 2]),
    "hue_two_channels": lambda tf: tf.image.adjust_hue(
        tf.placeholder_with_default(tf.zeros([2, 2, 2]), [None, None, None]), 0.1),
    "random_brightness_negative": lambda tf: tf.image.random_brightness(tf.zeros([2, 2, 3]), -1),
    "convert_to_string": lambda tf: tf.image.convert_image_dtype(tf.zeros([2]), tf.string),
}


def error_of(tf, fn):
    """(class name, where) of the failure of an ERROR_CASES program, or None."""
    with tf.Graph().as_default():
        try:
            t = fn(tf)
        except Exception as e:  # noqa: BLE001 - the class is what is compared
            return [type(e).__name__, "build"]
        try:
            with tf.Session() as sess:
                sess.run(t)
        except Exception as e:  # noqa: BLE001
            return [type(e).__name__, "run"]
    return None


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
