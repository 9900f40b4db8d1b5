"""`tf.image`: resizing, cropping, flipping, colour adjustment, codecs and boxes."""

from flowloom.ops.image.adjust_ops import (adjust_brightness, adjust_contrast,  # noqa: F401
                                           adjust_gamma, adjust_hue, adjust_saturation,
                                           convert_image_dtype, grayscale_to_rgb, hsv_to_rgb,
                                           image_gradients, per_image_standardization, psnr,
                                           random_brightness, random_contrast, random_hue,
                                           random_saturation, rgb_to_grayscale, rgb_to_hsv,
                                           sobel_edges, total_variation)
from flowloom.ops.image.image_ops import (ResizeMethod, central_crop,  # noqa: F401
                                          crop_to_bounding_box, flip_left_right, flip_up_down,
                                          pad_to_bounding_box, random_crop,
                                          random_flip_left_right, random_flip_up_down,
                                          resize_area, resize_bicubic, resize_bilinear,
                                          resize_image_with_crop_or_pad, resize_image_with_pad,
                                          resize_images, resize_nearest_neighbor, rot90,
                                          transpose_image)
from flowloom.ops.image.box_ops import (crop_and_resize, draw_bounding_boxes,  # noqa: F401
                                        non_max_suppression, non_max_suppression_padded,
                                        non_max_suppression_with_scores)
from flowloom.ops.image.codec_ops import (adjust_jpeg_quality, random_jpeg_quality,  # noqa
                                          decode_and_crop_jpeg, decode_bmp,  # noqa: F401
                                          decode_gif, decode_image, decode_jpeg, decode_png,
                                          encode_jpeg, encode_png, extract_jpeg_shape, is_jpeg)
from flowloom.ops.image.distort_ops import sample_distorted_bounding_box  # noqa: F401

resize = resize_images
transpose = transpose_image
resize_with_crop_or_pad = resize_image_with_crop_or_pad
resize_with_pad = resize_image_with_pad
