"""The two resize-method enums of TF 1.15's image_ops module.

`tf.image.ResizeMethod` in TF 1.x is `ResizeMethodV1` (ints, flowloom's
`flowloom.image.ResizeMethod`); the module `tensorflow.python.ops.image_ops` itself also
defines the TF 2 `ResizeMethod` (method names as strings, which `tf.image.resize_images`
accepts too). Programs importing that module get both, as in TF.
"""

from flowloom.ops.image.image_ops import ResizeMethod as ResizeMethodV1  # noqa: F401


class ResizeMethod:
    """TF 2's resize methods: the method names `tf.image.resize` takes."""

    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"
