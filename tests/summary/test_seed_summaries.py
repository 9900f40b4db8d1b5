"""The seed document's conv_layer (000_*.txt), with TF 0.x summary names, writing a log.

weight_variable, bias_variable and variable_summaries are not in the seed; they are the
ones of TF 0.x's mnist_with_summaries tutorial the seed was taken from.
"""

import glob
import os

import numpy as np

import flowloom as tf


def weight_variable(shape, decay=None):
    return tf.Variable(tf.truncated_normal(shape, stddev=0.1, seed=1))


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def variable_summaries(var, name):
    with tf.name_scope('summaries'):
        mean = tf.reduce_mean(var)
        tf.scalar_summary('mean/' + name, mean)
        with tf.name_scope('stddev'):
            stddev = tf.sqrt(tf.reduce_sum(tf.square(var - mean)))
        tf.scalar_summary('stddev/' + name, stddev)
        tf.scalar_summary('max/' + name, tf.reduce_max(var))
        tf.scalar_summary('min/' + name, tf.reduce_min(var))
        tf.histogram_summary(name, var)


def conv_layer(input_tensor, kernel_shape, output_dim, layer_name, decay=None, act=tf.nn.relu):
    """Reusable code for making a simple convolutional layer.
    """
    # Adding a name scope ensures logical grouping of the layers in the graph.
    with tf.name_scope(layer_name):
        # This Variable will hold the state of the weights for the layer
        with tf.name_scope('weights'):
            weights = weight_variable(kernel_shape, decay)
            variable_summaries(weights, layer_name + '/weights')
        with tf.name_scope('biases'):
            biases = bias_variable([output_dim])
            variable_summaries(biases, layer_name + '/biases')
        with tf.name_scope('convolution'):
            preactivate = tf.nn.conv2d(input_tensor, weights, strides=[1, 1, 1, 1],
                                       padding='SAME')
            biased = tf.nn.bias_add(preactivate, biases)
            tf.histogram_summary(layer_name + '/pre_activations', biased)
        activations = act(biased, 'activation')
        tf.histogram_summary(layer_name + '/activations', activations)
        return activations


def test_conv_layer_summaries_are_written_and_read_back(tmp_path):
    images = tf.placeholder(tf.float32, [None, 6, 6, 1], name="images")
    conv_layer(images, [3, 3, 1, 4], 4, "conv1")
    merged = tf.merge_all_summaries()
    assert merged.op.type == "MergeSummary"
    with tf.Session() as sess:
        writer = tf.train.SummaryWriter(str(tmp_path), sess.graph)
        sess.run(tf.initialize_all_variables())
        feed = {images: np.linspace(-1, 1, 72, dtype=np.float32).reshape(2, 6, 6, 1)}
        for step in range(2):
            writer.add_summary(sess.run(merged, feed), step)
        writer.close()
    (path,) = glob.glob(os.path.join(str(tmp_path), "events.out.tfevents.*"))
    events = list(tf.train.summary_iterator(path))
    assert events[1].WhichOneof("what") == "graph_def"
    tags = [v.tag for v in events[-1].summary.value]
    assert tags == ["mean/conv1/weights", "stddev/conv1/weights", "max/conv1/weights",
                    "min/conv1/weights", "conv1/weights", "mean/conv1/biases",
                    "stddev/conv1/biases", "max/conv1/biases", "min/conv1/biases",
                    "conv1/biases", "conv1/pre_activations", "conv1/activations"]
    values = {v.tag: v for v in events[-1].summary.value}
    assert values["mean/conv1/biases"].simple_value == np.float32(0.1)
    assert values["conv1/activations"].histo.num == 2 * 6 * 6 * 4
    assert values["conv1/activations"].histo.min >= 0


def test_seeds_conv_layer_identity_activation_runs(capsys):
    from flowloom.examples import seeds

    seeds.conv_layer_identity_activation()
    out = capsys.readouterr().out.split("\n")
    assert out[0] == "conv_relu/activation:0 conv_linear/activation:0"
    # Per layer: 2 variables x (mean, stddev, histogram) + 2 activation histograms.
    assert out[1] == "True True 16"
