"""The TF-internal functions image_io_programs.py calls, from TF 1.15 or from flowloom."""


def tf_ops():
    from tensorflow.python.ops import image_ops_impl

    return {"verify_compatible_image_shapes": image_ops_impl._verify_compatible_image_shapes}


def flowloom_ops():
    from flowloom.ops.image import quality_ops

    return {"verify_compatible_image_shapes": quality_ops._verify_compatible_image_shapes}
