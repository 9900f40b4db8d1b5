"""`tensorflow.python.ops.image_ops` maps to both of TF 1.15's resize-method enums (TF 1.15's
image_ops_test uses ResizeMethod.LANCZOS3 at class level: 207 tests could not be collected)."""

import flowloom as tf
from flowloom.compat import module_map
from flowloom.ops.image import resize_methods


def test_image_ops_module_has_both_resize_enums():
    sources = module_map.MODULES.get("tensorflow.python.ops.image_ops") or \
        module_map.VIEWS.get("tensorflow.python.ops.image_ops")
    assert resize_methods.ResizeMethod.LANCZOS3 == "lanczos3"
    assert resize_methods.ResizeMethodV1 is tf.image.ResizeMethod
    assert tf.image.ResizeMethod.BILINEAR == 0  # TF 1.x's public enum stays the int one
    assert sources[0] == "flowloom.ops.image.resize_methods"
    with tf.Graph().as_default():
        img = tf.zeros([1, 4, 4, 1])
        out = tf.image.resize_images(img, [2, 2], method=resize_methods.ResizeMethod.BILINEAR)
        assert out.op.type == "ResizeBilinear"
