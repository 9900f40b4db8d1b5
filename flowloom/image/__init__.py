"""`tf.image`: resizing, cropping, flipping, colour adjustment, codecs and boxes."""

from flowloom import lazy_names as _lazy_names

_TABLE = _lazy_names.parse({
    "flowloom.ops.image.adjust_ops": (
        "adjust_brightness adjust_contrast adjust_gamma adjust_hue adjust_saturation "
        "convert_image_dtype grayscale_to_rgb hsv_to_rgb image_gradients "
        "per_image_standardization random_brightness random_contrast random_hue "
        "random_saturation rgb_to_grayscale rgb_to_hsv sobel_edges total_variation"),
    "flowloom.ops.image.image_ops": (
        "ResizeMethod central_crop crop_to_bounding_box flip_left_right flip_up_down "
        "pad_to_bounding_box random_crop random_flip_left_right random_flip_up_down "
        "resize_area resize_bicubic resize_bilinear resize_image_with_crop_or_pad "
        "resize_image_with_pad resize_images resize_nearest_neighbor rot90 transpose_image"),
    "flowloom.ops.image.box_ops": (
        "crop_and_resize draw_bounding_boxes non_max_suppression non_max_suppression_padded "
        "non_max_suppression_overlaps=non_max_suppression_with_overlaps "
        "non_max_suppression_with_scores"),
    "flowloom.ops.image.codec_ops": (
        "adjust_jpeg_quality random_jpeg_quality decode_and_crop_jpeg decode_bmp decode_gif "
        "decode_image decode_jpeg decode_png encode_jpeg encode_png extract_jpeg_shape "
        "is_jpeg"),
    "flowloom.ops.image.distort_ops": "sample_distorted_bounding_box",
    "flowloom.ops.image.quality_ops": "psnr ssim ssim_multiscale",
    "flowloom.ops.image.color_space_ops": "rgb_to_yiq rgb_to_yuv yiq_to_rgb yuv_to_rgb",
    "flowloom.ops.image.image_ops#aliases": (
        "resize=resize_images transpose=transpose_image "
        "resize_with_crop_or_pad=resize_image_with_crop_or_pad "
        "resize_with_pad=resize_image_with_pad"),
})

__getattr__, __dir__, _load_everything = _lazy_names.attach(
    __name__, _TABLE, submodules=())
