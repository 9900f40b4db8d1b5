"""Every snippet in the source documents runs and prints what the documents say."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.examples import seeds


def lines(capsys):
    return capsys.readouterr().out.split("\n")[:-1]


def test_y_equals_x_does_nothing(capsys):
    seeds.control_dependencies_without_identity()
    assert lines(capsys) == ["0.0"] * 5


def test_identity_runs_after_dependency(capsys):
    seeds.control_dependencies_with_identity()
    assert lines(capsys) == ["1.0", "2.0", "3.0", "4.0", "5.0"]


def test_name_scope_prefixes_variables(capsys):
    seeds.name_scope_names()
    assert lines(capsys) == ["hidden/alpha:0", "hidden/weights:0", "hidden/biases:0"]


def test_default_name_uniquifies(capsys):
    seeds.variable_scope_default_name()
    assert lines(capsys) == ["scope/w:0", "scope_1/w:0"]


def test_second_conv_relu_raises(capsys):
    seeds.conv_relu_twice_fails()
    out = lines(capsys)
    assert out[0].startswith("ValueError: Variable weights already exists, disallowed. Did you "
                             "mean to set reuse=True or reuse=tf.AUTO_REUSE in VarScope?")


def test_sharing_three_ways(capsys):
    seeds.sharing_variables()
    out = lines(capsys)
    assert out[0] == ("4 ['model/conv1/weights:0', 'model/conv1/biases:0', "
                      "'model/conv2/weights:0', 'model/conv2/biases:0']")
    assert out[1] == "4"
    assert out[2] == "4 model/conv2/Relu:0 model_1/conv2/Relu:0"
    assert out[3] == "(1, 10, 10, 32) (1, 20, 20, 32)"


def test_assertion_pattern(capsys):
    seeds.assertion_pattern()
    out = lines(capsys)
    assert out[0] == "(1, 1, 3) my_image:0"
    assert out[1].startswith("InvalidArgumentError: assertion failed: "
                             "[image must have 3 color channels]")


def test_assertion_static_four_channels_raises_at_build():
    image = tf.zeros([2, 2, 4])
    with pytest.raises(tf.errors.InvalidArgumentError, match="image must have 3 color channels"):
        seeds.assert_channels(image)


def test_assertion_passes_for_three_channels():
    image = tf.zeros([2, 2, 3])
    out = seeds.assert_channels(image)
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(out), np.zeros([2, 2, 3], np.float32))


def test_rnn_initial_state_named_with_identity(capsys):
    # TF prints the same (recorded by running the snippet under TF with tf.contrib.rnn
    # standing for tf.nn.rnn_cell): the one-layer state tuple packs to [1, 2, batch, units].
    seeds.rnn_initial_state_named()
    assert lines(capsys) == ["initial_state:0 (1, 2, 4, 8)", "0.0"]


def test_birnn_over_embeddings(capsys):
    seeds.birnn_over_embeddings()
    assert lines(capsys) == [
        "['embedding:0', 'BiRNN/bidirectional_rnn/fw/basic_lstm_cell/kernel:0', "
        "'BiRNN/bidirectional_rnn/fw/basic_lstm_cell/bias:0', "
        "'BiRNN/bidirectional_rnn/bw/basic_lstm_cell/kernel:0', "
        "'BiRNN/bidirectional_rnn/bw/basic_lstm_cell/bias:0']",
        "(3, 5, 4) (3, 5, 4)", "True"]


def test_parse_example_snippet_names_features(capsys):
    seeds.parse_example_named_features()
    # As written in the document, `label` is an identity of the 'text' feature.
    assert lines(capsys) == ["image:0 text:0 label:0 [(2, 256), (2, 128), (2, 128)] b'word'"]
