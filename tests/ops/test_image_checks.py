"""tf.image's shape checks as TF 1.15's (_CheckAtLeast3DImage: every dimension > 0, rank at
least 3) and Assert's C-escaped strings (TF prints `'` as `\\'`), as TF 1.15's own
image_ops_test expects them."""

import numpy as np
import pytest

import flowloom as tf


def test_zero_length_image_fails_statically_and_at_run_time():
    with tf.Graph().as_default(), tf.Session() as s:
        with pytest.raises(ValueError, match="all dims of 'image.shape' must be > 0"):
            tf.image.pad_to_bounding_box(np.zeros([0, 2, 2]), 0, 0, 2, 2)
        x = tf.placeholder(tf.float32, [None, None, None])
        y = tf.image.pad_to_bounding_box(x, 0, 0, 2, 2)
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(y, {x: np.zeros([2, 0, 2])})
        assert "all dims of \\'image.shape\\' must be > 0" in str(info.value)
        with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
            tf.image.pad_to_bounding_box(np.zeros([2, 2]), 0, 0, 2, 2)


def test_assert_prints_strings_c_escaped():
    with tf.Graph().as_default(), tf.Session() as s:
        check = tf.Assert(False, ["it's\tdone\n"])
        with pytest.raises(tf.errors.InvalidArgumentError) as info:
            s.run(check)
        assert "[it\\'s\\tdone\\n]" in str(info.value)
