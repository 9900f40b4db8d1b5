"""tf.string_split (StringSplit) and tf.strings.split (StringSplitV2) against TF 1.15's
outputs (recorded with TF 1.15.5: indices, values, dense_shape per case)."""

import numpy as np
import pytest

import flowloom as tf

# (source, delimiter or None for the default, skip_empty) -> TF 1.15's result
V1 = [
    ((["hello world", "a b c"], None, True),
     ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [b"hello", b"world", b"a", b"b", b"c"], [2, 3])),
    ((["a  b", "", " x "], " ", False),
     ([[0, 0], [0, 1], [0, 2], [2, 0], [2, 1], [2, 2]], [b"a", b"", b"b", b"", b"x", b""],
      [3, 3])),
    ((["a  b", "", " x "], " ", True), ([[0, 0], [0, 1], [2, 0]], [b"a", b"b", b"x"], [3, 2])),
    ((["a,b;c", "ab"], ",;", True),
     ([[0, 0], [0, 1], [0, 2], [1, 0]], [b"a", b"b", b"c", b"ab"], [2, 3])),
    ((["abc", ""], "", False), ([[0, 0], [0, 1], [0, 2]], [b"a", b"b", b"c"], [2, 3])),
]
# (input, sep, maxsplit) -> TF 1.15's result
V2 = [
    ((["hello  world", " a b c "], None, -1),
     ([[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], [b"hello", b"world", b"a", b"b", b"c"], [2, 3])),
    ((["a<>b<>", "<>"], "<>", -1),
     ([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], [b"a", b"b", b"", b"", b""], [2, 3])),
    ((["a b c d"], " ", 2), ([[0, 0], [0, 1], [0, 2]], [b"a", b"b", b"c d"], [1, 3])),
    ((["a  b c"], None, 1), ([[0, 0], [0, 1]], [b"a", b"b c"], [1, 2])),
    (([""], None, -1), ([], [], [1, 0])),
    (([""], ",", -1), ([[0, 0]], [b""], [1, 1])),
]


def _check(st, expected):
    with tf.Session() as sess:
        got = sess.run(st)
    indices, values, shape = expected
    assert got.indices.reshape(-1, 2).tolist() == indices and got.indices.dtype == np.int64
    assert got.values.tolist() == values
    assert got.dense_shape.tolist() == shape


@pytest.mark.parametrize("case,expected", V1)
def test_string_split(case, expected):
    source, delimiter, skip_empty = case
    kwargs = {} if delimiter is None else {"delimiter": delimiter}
    _check(tf.string_split(source, skip_empty=skip_empty, **kwargs), expected)


@pytest.mark.parametrize("case,expected", V2)
def test_strings_split(case, expected):
    source, sep, maxsplit = case
    _check(tf.strings.split(source, sep=sep, maxsplit=maxsplit), expected)


def test_ops_names_and_static_shapes_as_tf():
    g = tf.Graph()
    with g.as_default():
        st = tf.string_split(["a b"])
        tf.strings.split(["a b"])
        assert [(o.name, o.type) for o in g.get_operations()] == [
            ("StringSplit/Const", "Const"), ("StringSplit/Const_1", "Const"),
            ("StringSplit/StringSplit", "StringSplit"), ("StringSplit_1/input", "Const"),
            ("StringSplit_1/Const", "Const"), ("StringSplit_1/StringSplitV2", "StringSplitV2")]
        assert st.indices.shape.as_list() == [None, 2]
        assert st.dense_shape.shape.as_list() == [2]


def test_bad_ranks_fail_at_build_and_run_time():
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 0"):
        tf.string_split("a b")
    with pytest.raises(ValueError, match="Shape must be rank 1 but is rank 2"):
        tf.string_split([["a"]])
    q = tf.placeholder(tf.string)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="input must be a vector"):
            sess.run(tf.string_split(q), {q: "ab"})
        with pytest.raises(tf.errors.InvalidArgumentError, match="delimiter must be a scalar"):
            sess.run(tf.string_split(["ab"], delimiter=q), {q: ["a"]})
