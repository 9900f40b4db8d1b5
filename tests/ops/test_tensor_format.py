"""tf.strings.format / StringFormat and tf.print layout as TF 1.15 writes them (found by
TF 1.15's string_format_op_test and logging_ops_test)."""

import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.ops.checks.tensor_format import summarize_value


def test_summaries():
    assert summarize_value(np.arange(10)) == "[0 1 2 ... 7 8 9]"
    assert summarize_value(np.arange(10), -1) == "[0 1 2 3 4 5 6 7 8 9]"
    assert summarize_value(np.arange(6), 3) == "[0 1 2 3 4 5]"
    assert summarize_value(np.float32(3.34)) == "3.34"
    assert summarize_value(np.array([b"a", b"b"], dtype=object)) == '["a" "b"]'
    assert summarize_value(np.array([True, False])) == "[1 0]"
    assert summarize_value(np.zeros((0, 3))) == "[]"
    assert summarize_value(np.arange(100).reshape(10, 10), 2) == (
        "[[0 1 ... 8 9]\n [10 11 ... 18 19]\n ...\n [80 81 ... 88 89]\n [90 91 ... 98 99]]")
    three = summarize_value(np.arange(8).reshape(2, 2, 2))
    assert three == "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]"


def test_string_format_op_and_checks():
    with tf.Graph().as_default():
        out = tf.strings.format("x: {}, y: {}", [tf.constant(3.14), tf.range(10)])
        assert out.op.type == "StringFormat"
        with tf.Session() as sess:
            assert sess.run(out) == b"x: 3.14, y: [0 1 2 ... 7 8 9]"
        with pytest.raises(ValueError, match=r"2 placeholder\(s\) in template does not match 1"):
            tf.strings.format("{} {}", tf.range(3))


def test_print_structures_streams_and_files(tmp_path, capfd):
    with tf.Graph().as_default():
        t = tf.range(10)
        with tf.Session() as sess:
            sess.run(tf.print("first:", t, {"small": tf.constant([0.5, -2.0]), "Big": t * 10},
                              10, [t, tf.constant("s")]))
            sess.run(tf.print(tf.constant("raw"), output_stream=sys.stdout))
            path = tmp_path / "p.txt"
            sess.run(tf.print(t, output_stream="file://" + str(path)))
            sess.run(tf.print(t + 1, output_stream="file://" + str(path)))
        with pytest.raises(ValueError, match="Unsupported output stream"):
            tf.print(t, output_stream="unknown")
        assert tf.print(t, name="print_name").name == "print_name"
    out, err = capfd.readouterr()
    assert ("first: [0 1 2 ... 7 8 9] {'Big': [0 10 20 ... 70 80 90], 'small': [0.5 -2]} "
            '10 [[0 1 2 ... 7 8 9], "s"]\n') in err
    assert out == "raw\n"
    assert path.read_text() == "[0 1 2 ... 7 8 9]\n[1 2 3 ... 8 9 10]\n"
