"""The examples from the documents flowloom's users learn from, runnable as written.

Each function is one snippet (in Python 3 syntax) and prints what the document says it
prints. `python3 dev.py demo` runs them all.
"""

import flowloom as tf
from flowloom.examples.workers_wait import workers_wait_for_the_chief


def control_dependencies_without_identity():
    """`y = x` inside control_dependencies adds no node, so the increment never runs."""
    tf.reset_default_graph()
    x = tf.Variable(0.0)
    x_plus_1 = tf.assign_add(x, 1)

    with tf.control_dependencies([x_plus_1]):
        y = x
    init = tf.initialize_all_variables()

    with tf.Session() as session:
        init.run()
        for i in range(5):
            print(y.eval())


def control_dependencies_with_identity():
    """`y = tf.identity(x)` is a new node created in the block: it runs after the increment."""
    tf.reset_default_graph()
    x = tf.Variable(0.0)
    x_plus_1 = tf.assign_add(x, 1)

    with tf.control_dependencies([x_plus_1]):
        y = tf.identity(x)
    init = tf.initialize_all_variables()

    with tf.Session() as session:
        init.run()
        for i in range(5):
            print(y.eval())


def name_scope_names():
    """name_scope prefixes op names, including the names of tf.Variable."""
    tf.reset_default_graph()
    with tf.name_scope('hidden') as scope:
        a = tf.constant(5, name='alpha')
        W = tf.Variable(tf.random_uniform([1, 2], -1.0, 1.0), name='weights')
        b = tf.Variable(tf.zeros([1]), name='biases')
        print(a.name)
        print(W.name)
        print(b.name)


def variable_scope_default_name():
    """A default_name variable scope is made unique: scope/w, then scope_1/w."""
    tf.reset_default_graph()

    def test(name=None):
        with tf.variable_scope(name, default_name="scope") as scope:
            w = tf.get_variable("w", shape=[2, 10])

    test()
    test()
    ws = tf.trainable_variables()
    for w in ws:
        print(w.name)


def conv_relu(input, kernel_shape, bias_shape):
    # Create variable named "weights".
    weights = tf.get_variable("weights", kernel_shape,
                              initializer=tf.random_normal_initializer())
    # Create variable named "biases".
    biases = tf.get_variable("biases", bias_shape,
                             initializer=tf.constant_initializer(0.0))
    conv = tf.nn.conv2d(input, weights,
                        strides=[1, 1, 1, 1], padding='SAME')
    return tf.nn.relu(conv + biases)


def my_image_filter(input_images):
    with tf.variable_scope("conv1"):
        # Variables created here will be named "conv1/weights", "conv1/biases".
        relu1 = conv_relu(input_images, [5, 5, 32, 32], [32])
    with tf.variable_scope("conv2"):
        # Variables created here will be named "conv2/weights", "conv2/biases".
        return conv_relu(relu1, [5, 5, 32, 32], [32])


def conv_relu_twice_fails():
    """Calling conv_relu twice in one scope is ambiguous: create or reuse? It raises."""
    tf.reset_default_graph()
    input1 = tf.random_normal([1, 10, 10, 32])
    input2 = tf.random_normal([1, 20, 20, 32])
    x = conv_relu(input1, kernel_shape=[5, 5, 32, 32], bias_shape=[32])
    try:
        x = conv_relu(x, kernel_shape=[5, 5, 32, 32], bias_shape=[32])  # This fails.
    except ValueError as e:
        print("ValueError:", str(e).splitlines()[0])
    del input2


def sharing_variables():
    """Three ways to share the variables of my_image_filter."""
    tf.reset_default_graph()
    input1 = tf.random_normal([1, 10, 10, 32])
    input2 = tf.random_normal([1, 20, 20, 32])
    with tf.variable_scope("model"):
        output1 = my_image_filter(input1)
    with tf.variable_scope("model", reuse=True):
        output2 = my_image_filter(input2)
    print(len(tf.trainable_variables()), [v.name for v in tf.trainable_variables()])

    tf.reset_default_graph()
    input1 = tf.random_normal([1, 10, 10, 32])
    input2 = tf.random_normal([1, 20, 20, 32])
    with tf.variable_scope("model") as scope:
        output1 = my_image_filter(input1)
        scope.reuse_variables()
        output2 = my_image_filter(input2)
    print(len(tf.trainable_variables()))

    tf.reset_default_graph()
    input1 = tf.random_normal([1, 10, 10, 32])
    input2 = tf.random_normal([1, 20, 20, 32])
    with tf.variable_scope("model") as scope:
        output1 = my_image_filter(input1)
    with tf.variable_scope(scope, reuse=True):
        output2 = my_image_filter(input2)
    print(len(tf.trainable_variables()), output1.name, output2.name)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        a, b = sess.run([output1, output2])
        print(a.shape, b.shape)


def assert_channels(image):
    """The assertion pattern: identity under control_dependencies runs the check first."""
    assertion = tf.assert_equal(tf.shape(image)[-1], 3, message="image must have 3 color channels")
    with tf.control_dependencies([assertion]):
        image = tf.identity(image)
    image = tf.identity(image, name='my_image')
    return image


def assertion_pattern():
    """An assertion wired in through control_dependencies + identity, and a name via identity."""
    tf.reset_default_graph()
    image = tf.placeholder(tf.float32, [None, None, None])
    checked = assert_channels(image)
    with tf.Session() as sess:
        print(sess.run(checked, {image: [[[0.5, 0.25, 1.0]]]}).shape, checked.name)
        try:
            sess.run(checked, {image: [[[0.5, 0.25, 1.0, 0.0]]]})
        except tf.errors.InvalidArgumentError as e:
            print("InvalidArgumentError:", e.message.splitlines()[0])


def weight_variable(shape, decay=None):
    """From TF's mnist_with_summaries tutorial, which the conv_layer snippet builds on."""
    initial = tf.truncated_normal(shape, stddev=0.1)
    var = tf.Variable(initial)
    if decay is not None:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), decay))
    return var


def bias_variable(shape):
    return tf.Variable(tf.constant(0.1, shape=shape))


def variable_summaries(var, name):
    with tf.name_scope('summaries'):
        mean = tf.reduce_mean(var)
        tf.scalar_summary('mean/' + name, mean)
        with tf.name_scope('stddev'):
            stddev = tf.sqrt(tf.reduce_mean(tf.square(var - mean)))
        tf.scalar_summary('stddev/' + name, stddev)
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
            preactivate = tf.nn.conv2d(input_tensor, weights, strides=[1, 1, 1, 1], padding='SAME')
            biased = tf.nn.bias_add(preactivate, biases)
            tf.histogram_summary(layer_name + '/pre_activations', biased)
        activations = act(biased, 'activation')
        tf.histogram_summary(layer_name + '/activations', activations)
        return activations


def conv_layer_identity_activation():
    """tf.identity as the activation function keeps the pre-activations (an autoencoder's need)."""
    tf.reset_default_graph()
    images = tf.random_normal([2, 8, 8, 3], seed=1)
    relu_out = conv_layer(images, [3, 3, 3, 4], 4, "conv_relu")
    linear_out = conv_layer(images, [3, 3, 3, 4], 4, "conv_linear", act=tf.identity)
    print(relu_out.name, linear_out.name)
    merged = tf.merge_all_summaries()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        r, lin, summary = sess.run([relu_out, linear_out, merged])
        print((r >= 0).all(), (lin < 0).any(), len(tf.Summary.FromString(summary).value))


def rnn_initial_state_named():
    """zero_state has no name argument: tf.identity gives the initial state a name."""
    tf.reset_default_graph()
    batch_size = 4
    cells = tf.contrib.rnn.BasicLSTMCell(8)
    rnn_cell = tf.contrib.rnn.MultiRNNCell([cells])
    # no name arg
    initial_state = rnn_cell.zero_state(batch_size, tf.float32)
    # give it a name with tf.identity()
    initial_state = tf.identity(input=initial_state, name="initial_state")
    print(initial_state.name, initial_state.shape)
    with tf.Session() as sess:
        print(sess.run(initial_state).sum())


def birnn_over_embeddings():
    """tf.identity around an embedding lookup, masked, fed to a bidirectional RNN."""
    tf.reset_default_graph()
    import numpy as np

    embedding_tbl = tf.get_variable("embedding", [20, 6])
    id = tf.placeholder(tf.int32, [3, 5], name="id")  # noqa: A001 - the document's name
    id_sz = tf.placeholder(tf.int32, [3], name="id_sz")
    mask = tf.expand_dims(tf.sequence_mask(id_sz, 5, dtype=tf.float32), -1)
    fw = tf.nn.rnn_cell.BasicLSTMCell(4)
    bw = tf.nn.rnn_cell.BasicLSTMCell(4)
    vec = tf.identity(tf.nn.embedding_lookup(embedding_tbl, id)) * mask
    with tf.variable_scope("BiRNN", reuse=None):
        out, _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, vec, sequence_length=id_sz,
                                                 dtype=tf.float32)
    print([v.name for v in tf.trainable_variables()])
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        ids = np.array([[1, 2, 3, 4, 5], [6, 7, 0, 0, 0], [8, 9, 10, 11, 0]], np.int32)
        fw_out, bw_out = sess.run(out, {id: ids, id_sz: [5, 2, 4]})
        print(fw_out.shape, bw_out.shape)
        # Past each sequence's length both directions output zeros.
        print(bool((fw_out[1, 2:] == 0).all() and (bw_out[2, 4:] == 0).all()))


def parse_example_named_features():
    """Serialized Examples parsed from a placeholder; tf.identity names each parsed feature."""
    tf.reset_default_graph()
    #read the entire file in this placeholder
    serialized_tf_example = tf.placeholder(tf.string, name='tf_example')

    #Create a pattern in which data is to be extracted from input files
    feature_configs = {'image': tf.FixedLenFeature(shape=[256], dtype=tf.float32),
                       'text': tf.FixedLenFeature(shape=[128], dtype=tf.string),
                       'label': tf.FixedLenFeature(shape=[128], dtype=tf.string),}

    #parse the example in key: tensor dictionary
    tf_example = tf.parse_example(serialized_tf_example, feature_configs)

    #Create seperate placeholders operation and tensor for each feature
    image = tf.identity(tf_example['image'], name='image')
    text  = tf.identity(tf_example['text'], name='text')
    label = tf.identity(tf_example['text'], name='label')

    example = tf.train.Example(features=tf.train.Features(feature={
        'image': tf.train.Feature(float_list=tf.train.FloatList(value=[0.5] * 256)),
        'text': tf.train.Feature(bytes_list=tf.train.BytesList(value=[b'word'] * 128)),
        'label': tf.train.Feature(bytes_list=tf.train.BytesList(value=[b'digit'] * 128)),
    }))
    with tf.Session() as sess:
        got = sess.run([image, text, label],
                       {serialized_tf_example: [example.SerializeToString()] * 2})
    print(image.name, text.name, label.name, [v.shape for v in got], got[2][0, 0])


ALL = [control_dependencies_without_identity, control_dependencies_with_identity,
       name_scope_names, variable_scope_default_name, conv_relu_twice_fails, sharing_variables,
       assertion_pattern, conv_layer_identity_activation, parse_example_named_features,
       rnn_initial_state_named, birnn_over_embeddings]
ALL.append(workers_wait_for_the_chief)  # the distributed-training seed (workers_wait.py)


def main():
    for fn in ALL:
        print(f"--- {fn.__name__}: {fn.__doc__.strip().splitlines()[0] if fn.__doc__ else ''}")
        fn()


if __name__ == "__main__":
    main()
