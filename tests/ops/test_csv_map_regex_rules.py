"""decode_csv, map_fn, regex_full_match, sparse_to_dense and nest messages as TF 1.15's."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.compat.forward_compat import forward_compatibility_horizon
from flowloom.framework import nest


def test_decode_csv_select_cols_counts_and_list_defaults():
    with tf.Session() as sess:
        for records, defaults, cols, have in ((["1,2,3"], [[0], [1]], [0, 3], 1),
                                              ([",,", "4,5,6"], [[0], [1], [2]], [0, 1, 3], 2)):
            out = tf.decode_csv(records, defaults, select_cols=cols)
            with pytest.raises(tf.errors.InvalidArgumentError,
                               match=f"Expect {len(cols)} fields but have {have} in record 0"):
                sess.run(out)
    with pytest.raises(TypeError, match="Expected list for 'record_defaults'"):
        tf.decode_csv(tf.constant("1,2,3,4,5"), np.zeros(5))


def test_map_fn_scalar_errors_and_structure_message():
    with pytest.raises(ValueError, match="not scalars"):
        tf.map_fn(lambda x: x, [1, 2])
    with pytest.raises(ValueError, match="not a scalar"):
        tf.map_fn(lambda x: x, 1)
    with pytest.raises(TypeError, match="two structures don't have the same nested structure"):
        tf.map_fn(lambda x: ((x + 3) * 2, -(x + 3) * 2), np.arange(6),
                  dtype=[tf.int64, tf.int64])
    with pytest.raises(TypeError, match="same sequence type"):
        nest.assert_same_structure((1, 2), [1, 2])


def test_regex_full_match_static_after_its_compat_date():
    x = tf.constant("foo")
    assert tf.strings.regex_full_match(x, "[a-z]*").op.type == "StaticRegexFullMatch"
    with forward_compatibility_horizon(2018, 11, 1):
        assert tf.strings.regex_full_match(x, "[a-z]*").op.type == "RegexFullMatch"


def test_sparse_to_dense_shape_and_value_checks():
    with pytest.raises(ValueError, match="must be rank 1"):
        tf.sparse_to_dense([1, 3], [[5], [3]], 1, -1)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError,
                           match=r"sparse_values has incorrect shape \[2,1\], should be \[\] "
                                 r"or \[2\]"):
            sess.run(tf.sparse_to_dense([1, 3], [5], [[5], [3]], -1))
