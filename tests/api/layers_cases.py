"""tf.layers beyond Dense/Conv2D: 1-D/3-D convolutions, transposed and separable ones, 1-D/3-D
pooling, and the Layer classes (recorded from TF 1.15 by tests/data/record_api.py). Kernels
are set by constant initializers so both sides compute with the same weights."""

from tests.api.cases import Registry, f32

R = Registry()
case, error_case = R.case, R.error_case


def _init(tf, name, shape):
    return tf.constant_initializer(f32(name, *shape, lo=-0.5, hi=0.5))


@case
def conv1d_layers(tf):
    x = tf.constant(f32("c1", 2, 9, 3))
    a = tf.layers.conv1d(x, 4, 3, kernel_initializer=_init(tf, "c1k", (3, 3, 4)),
                         bias_initializer=_init(tf, "c1b", (4,)))
    b = tf.layers.conv1d(x, 2, 2, strides=2, padding="same", activation=tf.nn.relu,
                         kernel_initializer=_init(tf, "c1k2", (2, 3, 2)), name="second")
    c = tf.layers.Conv1D(2, 3, padding="causal", dilation_rate=2,
                         kernel_initializer=_init(tf, "c1k3", (3, 3, 2)))(x)
    names = tf.stack([tf.reduce_sum(v) for v in tf.trainable_variables()])
    return {"out": [a, b, c, names], "init": True, "xs": [x], "after": tf.global_variables()}


@case
def conv3d_layers(tf):
    x = tf.constant(f32("c3", 2, 4, 5, 4, 2))
    a = tf.layers.conv3d(x, 3, (2, 3, 2), kernel_initializer=_init(tf, "c3k", (2, 3, 2, 2, 3)))
    b = tf.layers.Conv3D(2, 2, strides=(1, 2, 1), padding="same", use_bias=False,
                         kernel_initializer=_init(tf, "c3k2", (2, 2, 2, 2, 2)))(x)
    return {"out": [a, b], "init": True, "xs": [x], "after": tf.global_variables()}


@case
def conv2d_transpose_layers(tf):
    x = tf.constant(f32("ct", 2, 3, 4, 3))
    a = tf.layers.conv2d_transpose(x, 2, 3, strides=2, padding="same",
                                   kernel_initializer=_init(tf, "ctk", (3, 3, 2, 3)),
                                   bias_initializer=_init(tf, "ctb", (2,)))
    b = tf.layers.conv2d_transpose(x, 4, (2, 3), strides=(1, 2), padding="valid",
                                   kernel_initializer=_init(tf, "ctk2", (2, 3, 4, 3)),
                                   activation=tf.nn.relu)
    return {"out": [a, b], "init": True, "xs": [x], "after": tf.global_variables()}


@case
def conv2d_transpose_unknown_batch(tf):
    x = tf.placeholder(tf.float32, [None, 3, 3, 2])
    y = tf.layers.conv2d_transpose(x, 2, 2, strides=2,
                                   kernel_initializer=_init(tf, "ctu", (2, 2, 2, 2)))
    return {"out": [y], "init": True, "feed": {x: f32("ctux", 2, 3, 3, 2)}}


@case
def conv3d_transpose_layers(tf):
    x = tf.constant(f32("c3t", 1, 2, 3, 2, 3))
    a = tf.layers.conv3d_transpose(x, 2, 2, strides=2, padding="same",
                                   kernel_initializer=_init(tf, "c3tk", (2, 2, 2, 2, 3)))
    return {"out": [a], "init": True, "xs": [x]}


@case
def separable_layers(tf):
    x = tf.constant(f32("sp", 2, 6, 6, 3))
    a = tf.layers.separable_conv2d(
        x, 4, 3, depth_multiplier=2, padding="same",
        depthwise_initializer=_init(tf, "spd", (3, 3, 3, 2)),
        pointwise_initializer=_init(tf, "spp", (1, 1, 6, 4)))
    x1 = tf.constant(f32("sp1", 2, 7, 3))
    b = tf.layers.separable_conv1d(
        x1, 2, 3, strides=2, depthwise_initializer=_init(tf, "sp1d", (3, 3, 1)),
        pointwise_initializer=_init(tf, "sp1p", (1, 3, 2)), bias_initializer=_init(tf, "sp1b", (2,)))
    return {"out": [a, b], "init": True, "xs": [x], "after": tf.global_variables()}


@case
def pooling_1d_3d(tf):
    x1 = tf.constant(f32("pl1", 2, 9, 3))
    x3 = tf.constant(f32("pl3", 2, 4, 5, 6, 2))
    return {"out": [tf.layers.max_pooling1d(x1, 2, 2), tf.layers.average_pooling1d(x1, 3, 2,
                                                                                  padding="same"),
                    tf.layers.MaxPooling1D(2, 1, data_format="channels_first")(x1),
                    tf.layers.max_pooling3d(x3, 2, 2), tf.layers.average_pooling3d(
                        x3, (2, 2, 3), (1, 2, 2), padding="same"),
                    tf.layers.AveragePooling3D(2, 2, data_format="channels_first")(x3)],
            "xs": [x1]}


@case
def layer_classes(tf):
    x = tf.constant(f32("lc", 4, 6))
    dense = tf.layers.Dense(3, kernel_initializer=_init(tf, "lck", (6, 3)), name="proj")
    a = dense(x)
    b = dense(x * 2.0)  # shared variables
    flat = tf.layers.Flatten()(tf.constant(f32("lcf", 2, 3, 4)))
    drop = tf.layers.Dropout(0.5)(x, training=False)
    bn = tf.layers.BatchNormalization()
    c = bn(x, training=False)
    names = [v.name for v in tf.global_variables()]
    count = tf.constant(len(names)) + 0
    return {"out": [a, b, flat, drop, c, count], "init": True, "after": tf.global_variables()}
