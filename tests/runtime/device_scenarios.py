"""The device scenarios of issue 4, written once for both TensorFlow and flowloom.

Each scenario takes the `tf` module (real TF's compat.v1 when recording, flowloom when
testing), builds its graph in the default graph and returns `(fetches, feed_dict)`.
"""

import numpy as np


def variable_read_by_three(tf):
    """A variable on /cpu:1 read by three ops on /cpu:0: one copy of `v/read`."""
    with tf.device("/cpu:1"):
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    with tf.device("/cpu:0"):
        a = tf.multiply(v, 2.0, name="a")
        b = tf.add(v, 1.0, name="b")
        c = tf.square(v, name="c")
    return [a, b, c], None


def variable_read_through_identity(tf):
    """The same readers behind an explicit tf.identity on /cpu:0: still one copy."""
    with tf.device("/cpu:1"):
        v = tf.Variable(np.arange(6, dtype=np.float32).reshape(2, 3), name="v")
    with tf.device("/cpu:0"):
        r = tf.identity(v, name="r")
        a = tf.multiply(r, 2.0, name="a")
        b = tf.add(r, 1.0, name="b")
        c = tf.square(r, name="c")
    return [a, b, c], None


def value_fetched_several_times(tf):
    """One run reads a variable before and after an increment (two identities, two copies)
    and fetches one tensor three times."""
    with tf.device("/cpu:1"):
        v = tf.Variable(1.0, name="v")
        before = tf.identity(v.op.outputs[0], name="before")
        with tf.control_dependencies([before]):
            inc = tf.assign_add(v, 1.0, name="inc")
        with tf.control_dependencies([inc]):
            after = tf.identity(v.op.outputs[0], name="after")
    with tf.device("/cpu:0"):
        x = tf.multiply(before, 10.0, name="x")
        y = tf.multiply(after, 10.0, name="y")
    return [x, y, x, y, x], None


def control_edge_across_devices(tf):
    """A control dependency from an op on /cpu:1 to an op on /cpu:0."""
    with tf.device("/cpu:1"):
        v = tf.Variable(0.0, name="v")
        inc = tf.assign_add(v, 1.0, name="inc")
    with tf.device("/cpu:0"):
        k = tf.constant(3.0, name="k")
        with tf.control_dependencies([inc]):
            out = tf.identity(k, name="out")
    return [out], None


def cifar_towers(tf, num_towers=2):
    """The CIFAR-10 multi-tower pattern: variables on /cpu:0, tower i on /cpu:i."""
    images = []
    losses = []
    for i in range(num_towers):
        with tf.device("/cpu:0"):
            images.append(tf.placeholder(tf.float32, [4, 8, 8, 3], name="images_%d" % i))
    with tf.variable_scope(tf.get_variable_scope()):
        for i in range(num_towers):
            with tf.device("/cpu:%d" % i):
                with tf.name_scope("tower_%d" % i):
                    losses.append(_tower_loss_on_cpu0_vars(tf, images[i]))
                    tf.get_variable_scope().reuse_variables()
    with tf.device("/cpu:0"):
        total = tf.add_n(losses, name="total_loss")
    rng = np.random.RandomState(0)
    feed = {images[i]: rng.standard_normal([4, 8, 8, 3]).astype(np.float32)
            for i in range(num_towers)}
    return [total] + losses, feed


def _variable_on_cpu(tf, name, shape, initializer):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=initializer)


def _tower_loss_on_cpu0_vars(tf, images):
    def conv_relu(x, kernel_shape):
        w = _variable_on_cpu(tf, "weights", kernel_shape,
                             tf.truncated_normal_initializer(stddev=0.1, seed=1))
        b = _variable_on_cpu(tf, "biases", kernel_shape[-1:], tf.constant_initializer(0.1))
        return tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, w, [1, 1, 1, 1], "SAME"), b))

    with tf.variable_scope("conv1"):
        h = conv_relu(images, [3, 3, 3, 8])
    with tf.variable_scope("conv2"):
        h = conv_relu(h, [3, 3, 8, 8])
    flat = tf.reshape(h, [-1, 8 * 8 * 8])
    w = _variable_on_cpu(tf, "fc_weights", [8 * 8 * 8, 10],
                         tf.truncated_normal_initializer(stddev=0.05, seed=2))
    logits = tf.matmul(flat, w)
    return tf.reduce_mean(tf.square(logits), name="loss")


SCENARIOS = {
    "variable_read_by_three": variable_read_by_three,
    "variable_read_through_identity": variable_read_through_identity,
    "value_fetched_several_times": value_fetched_several_times,
    "control_edge_across_devices": control_edge_across_devices,
    "cifar_towers": cifar_towers,
}
