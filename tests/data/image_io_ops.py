"""The TF-internal functions image_io_programs.py calls, from TF 1.15 or from flowloom."""


def tf_ops():
    from tensorflow.python.ops import gen_image_ops, image_ops_impl

    return {"verify_compatible_image_shapes": image_ops_impl._verify_compatible_image_shapes,
            "resize_images_v2": image_ops_impl.resize_images_v2,
            "resize_image_with_pad_v2": image_ops_impl.resize_image_with_pad_v2,
            "scale_and_translate": gen_image_ops.scale_and_translate,
            "non_max_suppression_with_overlaps":
                image_ops_impl.non_max_suppression_with_overlaps}


def flowloom_ops():
    from flowloom.ops.image import box_ops, quality_ops, resize_v2_ops

    return {"verify_compatible_image_shapes": quality_ops._verify_compatible_image_shapes,
            "resize_images_v2": resize_v2_ops.resize_images_v2,
            "resize_image_with_pad_v2": resize_v2_ops.resize_image_with_pad_v2,
            "scale_and_translate": resize_v2_ops.scale_and_translate,
            "non_max_suppression_with_overlaps": box_ops.non_max_suppression_with_overlaps}
