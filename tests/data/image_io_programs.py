"""Programs run on TF 1.15 (record_image_io.py) and on flowloom (tests/ops/test_image_io.py):
ReadFile / WriteFile and the tf.image functions that TF 1.15's image_ops_test checks
(ssim, psnr, resize_images_v2, ScaleAndTranslate, codecs, build-time checks).

`program(tf, ops, workdir)` returns {case: outcome}; an outcome is a value (lists of numbers,
bytes as latin-1 text, shapes as lists) or {"error": class name, "message": first line}.
`ops` holds the TF-internal functions that the public namespace does not show.
"""

import os

import numpy as np


def outcome(fn):
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the error class is the outcome
        return {"error": type(e).__name__, "message": str(e).splitlines()[0] if str(e) else ""}
    return plain(value)


def plain(value):
    if isinstance(value, bytes):
        return {"bytes": value.decode("latin-1")}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return plain(value.tolist())
        return {"dtype": value.dtype.name, "shape": list(value.shape),
                "values": np.round(value.astype(np.float64), 5).ravel().tolist()}
    if isinstance(value, (np.generic,)):
        return plain(np.asarray(value))
    return value


def file_cases(tf, workdir):
    r = {}
    a = os.path.join(workdir, "a.txt")
    with open(a, "wb") as f:
        f.write(b"abc\x00\xff")
    with tf.Graph().as_default(), tf.Session() as s:
        p = tf.placeholder(tf.string)
        q = tf.placeholder(tf.string)
        r["read"] = outcome(lambda: s.run(tf.read_file(a)))
        r["read_shape"] = tf.read_file(a).shape.as_list()
        r["read_missing"] = outcome(lambda: s.run(tf.read_file(a + ".missing")))
        r["read_directory"] = outcome(lambda: s.run(tf.read_file(workdir)))
        r["read_vector_fed"] = outcome(lambda: s.run(tf.read_file(p), {p: [a]}))
        r["read_vector_built"] = outcome(lambda: tf.read_file([a, a]))
        r["read_not_a_directory"] = outcome(lambda: s.run(tf.read_file(a + "/x")))
        b = os.path.join(workdir, "new", "dir", "b.txt")
        w = tf.write_file(b, "hello")
        r["write_type"] = [w.type, len(w.outputs)]
        r["write"] = outcome(lambda: s.run(w))
        r["write_readback"] = outcome(lambda: s.run(tf.read_file(b)))
        r["write_replaces"] = outcome(lambda: s.run(tf.write_file(b, "x")) or s.run(
            tf.read_file(b)))
        r["write_vector_built"] = outcome(lambda: tf.write_file(a, ["x", "y"]))
        r["write_name_vector_fed"] = outcome(lambda: s.run(tf.write_file(p, "x"), {p: [b]}))
        r["write_contents_vector_fed"] = outcome(lambda: s.run(tf.write_file(b, q), {q: ["x"]}))
        r["write_to_directory"] = outcome(lambda: s.run(tf.write_file(workdir, "x")))
    return r


def _images(seed, shape, scale=1.0):
    rng = np.random.RandomState(seed)
    return (rng.rand(*shape) * scale).astype(np.float32)


def quality_cases(tf, ops):
    r = {}
    checker = np.kron(np.indices((4, 4)).sum(0) % 2, np.ones((8, 8)))[:, :, None]
    a = np.concatenate([checker, _images(1, (32, 32, 1))], -1).astype(np.float32)
    b = np.concatenate([1 - checker * 0.5, _images(2, (32, 32, 1))], -1).astype(np.float32)
    batch1 = np.stack([a, b, a])
    batch2 = np.stack([b, a, a])
    with tf.Graph().as_default(), tf.Session() as s:
        # TF 1.15's ssim takes tensors only (TF 2's converts arrays): constants here.
        c1, c2 = tf.constant(batch1), tf.constant(batch2)
        r["ssim"] = outcome(lambda: s.run(tf.image.ssim(c1, c2, 1.0)))
        r["ssim_uint8"] = outcome(lambda: s.run(tf.image.ssim(
            tf.constant((batch1 * 255).astype(np.uint8)),
            tf.constant((batch2 * 255).astype(np.uint8)), 255)))
        r["ssim_filter7"] = outcome(lambda: s.run(tf.image.ssim(
            c1, c2, 1.0, filter_size=7, filter_sigma=1.0, k1=0.02, k2=0.05)))
        x = tf.constant(batch1[:2])
        r["ssim_broadcast"] = outcome(lambda: s.run(tf.image.ssim(
            tf.expand_dims(x, 0), tf.expand_dims(x, 1), 1.0)))
        big1 = np.tile(batch1, (1, 6, 6, 1))[:, :181, :187]
        big2 = (big1 * 0.8 + _images(3, big1.shape) * 0.2 * np.arange(3)[:, None, None, None]
                ).astype(np.float32)
        r["ms_ssim"] = outcome(lambda: s.run(tf.image.ssim_multiscale(big1, big2, 1.0)))
        r["ms_ssim_unweighted"] = outcome(lambda: s.run(tf.image.ssim_multiscale(
            big1, big2, 1.0, power_factors=(1, 1, 1))))
        r["psnr"] = outcome(lambda: s.run(tf.image.psnr(batch1, batch2, 1.0)))
        r["ssim_small_image_run"] = outcome(lambda: s.run(tf.image.ssim(
            c1[:, :8, :8], c2[:, :8, :8], 1.0)))
        p = tf.placeholder(tf.float32)
        q = tf.placeholder(tf.float32)
        r["ssim_fed_mismatch"] = outcome(lambda: s.run(tf.image.ssim(p, q, 1.0), {
            p: batch1, q: batch2[:, :, :16]}))
        verify = ops["verify_compatible_image_shapes"]
        for name, s1, s2 in (("verify_wrong_dims", [3, 4], [3, 4]),
                             ("verify_mismatch", [2, 3, 4, 5], [2, 3, 4, 6]),
                             ("verify_batch_mismatch", [3, 1, 2, 3, 4], [2, 2, 3, 4]),
                             ("verify_broadcast_ok", [1, 2, 3, 4], [5, 2, 3, 4])):
            r[name] = outcome(lambda s1=s1, s2=s2: [len(verify(
                tf.placeholder(tf.float32, s1), tf.placeholder(tf.float32, s2))[2])])
    return r


IMAGES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "images")


def _file(name):
    with open(os.path.join(IMAGES, name), "rb") as f:
        return f.read()


def _digest(data):
    import hashlib

    return hashlib.sha1(data).hexdigest()


def codec_cases(tf):
    r = {}
    files = {n: _file(n) for n in ("rgb444.jpg", "gray.png", "rgba.png", "anim.gif", "cmyk.jpg",
                                   "rgb.bmp")}
    with tf.Graph().as_default(), tf.Session() as s:
        # Each decode op takes JPEG, PNG and GIF data alike (the format comes from the bytes).
        for op_name in ("decode_jpeg", "decode_png", "decode_gif"):
            for file_name in ("rgb444.jpg", "gray.png", "rgba.png", "anim.gif", "rgb.bmp"):
                decode = getattr(tf.image, op_name)
                r[f"{op_name}_of_{file_name}"] = outcome(
                    lambda d=decode, f=file_name: s.run(d(files[f])))
        r["decode_png_uint16_of_jpeg"] = outcome(lambda: s.run(tf.image.decode_png(
            files["rgb444.jpg"], dtype=tf.uint16)))
        r["decode_jpeg_unknown"] = outcome(lambda: s.run(tf.image.decode_jpeg(b"\x00ab\n\xff")))
        r["decode_jpeg_empty"] = outcome(lambda: s.run(tf.image.decode_jpeg(b"")))
        r["decode_png_channels_1_of_jpeg"] = outcome(lambda: s.run(tf.image.decode_png(
            files["rgb444.jpg"], channels=1)))
        for channels in (0, 3):
            r[f"decode_cmyk_channels_{channels}"] = outcome(lambda c=channels: s.run(
                tf.image.decode_jpeg(files["cmyk.jpg"], channels=c)))
        r["extract_jpeg_shape_cmyk"] = outcome(lambda: s.run(tf.image.extract_jpeg_shape(
            files["cmyk.jpg"])))
        for dtype in (tf.uint16, tf.float32):
            for file_name in ("rgb444.jpg", "anim.gif", "rgba.png"):
                r[f"decode_image_{dtype.name}_{file_name}"] = outcome(
                    lambda d=dtype, f=file_name: s.run(tf.image.decode_image(files[f], dtype=d)))
        window = tf.placeholder(tf.int32, [4])
        for name, crop in (("const", [1, 2, 5, 7]), ("negative", [0, 0, -1, 3]),
                           ("fed", window)):
            r[f"decode_and_crop_shape_{name}"] = outcome(lambda c=crop: tf.image.decode_and_crop_jpeg(
                files["rgb444.jpg"], c, channels=3).shape.as_list())
        r["decode_and_crop_bad_window_rank"] = outcome(lambda: tf.image.decode_and_crop_jpeg(
            files["rgb444.jpg"], [[1, 2, 3, 4]]))
        r["decode_jpeg_vector_built"] = outcome(lambda: tf.image.decode_jpeg([files["rgb444.jpg"]]))
        rng = np.random.RandomState(4)
        for channels in (1, 2, 3, 4):
            image = (rng.rand(5, 7, channels) * 65535).astype(np.uint16)
            png = tf.image.encode_png(tf.constant(image), compression=7)
            r[f"encode_png_uint16_{channels}"] = outcome(lambda p=png: _digest(s.run(p)))
            r[f"roundtrip_png_uint16_{channels}"] = outcome(lambda p=png: s.run(
                tf.image.decode_png(p, dtype=tf.uint16)))
    return r


def resize_cases(tf, ops):
    r = {}
    image = _images(5, (2, 9, 7, 3), 255.0)
    with tf.Graph().as_default(), tf.Session() as s:
        x = tf.constant(image)
        for method in ("bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
                       "gaussian", "mitchellcubic"):
            for antialias in (False, True):
                for size in ((5, 4), (13, 11)):
                    y = ops["resize_images_v2"](x, size, method, antialias=antialias)
                    r[f"resize_v2_{method}_{antialias}_{size[0]}"] = outcome(
                        lambda y=y: [s.run(y), y.shape.as_list()])
        for kernel in ("lanczos1", "box", "triangle", "keyscubic"):
            y = ops["scale_and_translate"](x, [6, 10], [0.7, 1.3], [0.5, -1.25],
                                           kernel_type=kernel, antialias=True)
            r[f"scale_and_translate_{kernel}"] = outcome(lambda y=y: s.run(y))
        r["scale_and_translate_bad_kernel"] = outcome(lambda: s.run(ops["scale_and_translate"](
            x, [6, 10], [0.7, 1.3], [0.5, -1.25], kernel_type="cubic")))
        r["scale_and_translate_bad_scale"] = outcome(lambda: s.run(ops["scale_and_translate"](
            x, [6, 10], [0.0, 1.3], [0.5, -1.25])))
        r["resize_v2_uint8_nearest"] = outcome(lambda: s.run(ops["resize_images_v2"](
            tf.constant(image.astype(np.uint8)), [4, 3], "nearest")))
        r["resize_v2_3d_aspect"] = outcome(lambda: s.run(ops["resize_images_v2"](
            x[0], [4, 20], "bilinear", preserve_aspect_ratio=True)))
        r["resize_with_pad_v2"] = outcome(lambda: s.run(ops["resize_image_with_pad_v2"](
            x[0], 12, 5)))
        r["resize_bad_method"] = outcome(lambda: ops["resize_images_v2"](x, [4, 4], "cubic"))
        for name, size in (("float_list", [6, 4.0]), ("none", [None, 4]), ("rank0", 4)):
            r[f"resize_size_{name}"] = outcome(lambda size=size: tf.image.resize_images(
                x, size).shape.as_list())
        r["constant_whole_float_as_int"] = outcome(lambda: tf.constant([2, 3.0], tf.int32))
    return r


def check_cases(tf, ops):
    r = {}
    with tf.Graph().as_default(), tf.Session() as s:
        box = [[0.0, 0.0, 1.0, 1.0]]
        for name, boxes, scores, size, iou in (
                ("boxes_rank1", [0.0, 0.0, 1.0, 1.0], [0.9], 3, 0.5),
                ("boxes_3_columns", [[0.0, 0.0, 1.0]], [0.9], 3, 0.5),
                ("count_mismatch", box, [0.9, 0.75], 3, 0.5),
                ("scores_rank2", box, [[0.9]], 3, 0.5),
                ("size_rank1", box, [0.9], [3], 0.5),
                ("iou_rank2", box, [0.9], 3, [[0.5]])):
            r[f"nms_{name}"] = outcome(lambda b=boxes, sc=scores, n=size, i=iou: s.run(
                tf.image.non_max_suppression(tf.constant(b), tf.constant(sc), n, i)))
        overlaps = tf.constant([[1.0, 0.7, 0.2], [0.7, 1.0, 0.0], [0.2, 0.0, 1.0]])
        for threshold, score_threshold in ((0.6, 0.4), (0.6, -1.0), (0.75, -1.0)):
            r[f"nms_overlaps_{threshold}_{score_threshold}"] = outcome(lambda t=threshold,
                st=score_threshold: s.run(ops["non_max_suppression_with_overlaps"](
                    overlaps, tf.constant([0.7, 0.9, 0.1]), 3, t, st)))
        r["nms_overlaps_not_square"] = outcome(lambda: ops["non_max_suppression_with_overlaps"](
            tf.constant([[1.0, 0.5]]), tf.constant([0.7]), 3, 0.5))
        image = np.arange(12, dtype=np.uint8).reshape(1, 2, 2, 3)
        r["contrast_factor_rank1"] = outcome(lambda: tf.image.adjust_contrast(image, [2.0]))
        r["grayscale_rank1"] = outcome(lambda: tf.image.grayscale_to_rgb(
            tf.constant([1, 2], tf.uint8)))
        r["grayscale_last_dim_2"] = outcome(lambda: tf.image.grayscale_to_rgb(
            tf.constant([[[1, 2]]], tf.uint8)))
        unknown = tf.placeholder(tf.uint8)
        for op_name in ("flip_left_right", "flip_up_down", "random_flip_left_right",
                        "random_flip_up_down", "transpose_image", "rot90"):
            r[f"unknown_rank_{op_name}"] = outcome(lambda n=op_name: getattr(tf.image, n)(
                unknown).shape.ndims)
    return r


def program(tf, ops, workdir):
    r = {}
    r.update(file_cases(tf, workdir))
    r.update(quality_cases(tf, ops))
    r.update(codec_cases(tf))
    r.update(resize_cases(tf, ops))
    r.update(check_cases(tf, ops))
    return r
