"""Graphs whose ops must be TF 1.15's, op for op, under FLOWLOOM_SEED_RULES=1.

TF 1.15 gives a random op without its own seed the number of ops made before it as its op
seed, so a gradient that builds one op more or less than TF's changes every random value drawn
after it (a second network's initializers, dropout after an optimizer). Each case builds a
graph with the module it is given (TF 1.15 or flowloom); tests/data/record_tf1_graphs.py keeps
TF's op names and types in tests/data/tf1_graphs.json and tests/ops/test_tf1_graphs.py
compares flowloom's with them.
"""


def tensor_index_slice(tf):
    p = tf.placeholder(tf.float32, [1, 2])
    a = tf.placeholder(tf.int32, None)
    tf.log(p[0, a])


def mean_of_unknown_shape_grad(tf):
    x = tf.placeholder(tf.float32, None)
    tf.gradients(tf.reduce_mean(x), x)


def mean_of_partial_shape_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    tf.gradients(tf.reduce_mean(x), x)
    tf.gradients(tf.reduce_mean(x, 1), x)


def sum_over_axis_of_partial_shape_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    tf.gradients(tf.reduce_sum(x, 1), x)
    tf.gradients(tf.reduce_sum(x, 1, keepdims=True), x)


def max_over_axis_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    tf.gradients(tf.reduce_max(x, 1), x)


def mul_sub_add_of_unknown_shapes_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, None)
    tf.gradients(tf.reduce_sum(x * y), [x, y])
    tf.gradients(tf.reduce_sum(x - y), [x, y])
    tf.gradients(tf.reduce_sum(x + y), [x, y])


def other_binary_ops_of_partial_shapes_grad(tf):
    # their TF 1.15 gradients always take a BroadcastGradientArgs (no SmartBroadcastGradientArgs)
    x = tf.placeholder(tf.float32, [None, 3])
    y = tf.placeholder(tf.float32, [3])
    for f in (tf.div, tf.truediv, tf.maximum, tf.minimum, tf.squared_difference, tf.pow):
        tf.gradients(tf.reduce_sum(f(x, y)), [x, y])


def broadcast_of_known_shapes_grad_twice(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    y = tf.constant([1.0, 2.0, 3.0])
    tf.gradients(tf.reduce_sum(x * y), [x, y])
    tf.gradients(tf.reduce_sum(x * y + y), [x, y])


def bias_add_of_partial_shape_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    b = tf.constant([1.0, 2.0, 3.0])
    tf.gradients(tf.reduce_sum(tf.square(x + b - 1.0)), [x, b])


def policy_gradient_loss(tf):
    # a policy net's loss over a chosen action (actor-critic programs): a tensor index into
    # the action probabilities times an advantage fed with an unknown shape
    s = tf.placeholder(tf.float32, [1, 4])
    a = tf.placeholder(tf.int32, None)
    td = tf.placeholder(tf.float32, None)
    w = tf.Variable(tf.zeros([4, 2]))
    probs = tf.nn.softmax(tf.matmul(s, w))
    loss = -tf.reduce_mean(tf.log(probs[0, a]) * td)
    tf.train.AdamOptimizer(0.001).minimize(loss)
    v_ = tf.placeholder(tf.float32, [1, 1])
    r = tf.placeholder(tf.float32, None)
    v = tf.Variable(tf.zeros([4, 1]))
    td_error = r + 0.9 * v_ - tf.matmul(s, v)
    tf.train.AdamOptimizer(0.01).minimize(tf.square(td_error))


def reductions_of_known_shapes_grad(tf):
    x = tf.constant([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    tf.gradients(tf.reduce_sum(x, 1), x)
    tf.gradients(tf.reduce_sum(x, 1), x)
    tf.gradients(tf.reduce_max(x, 0), x)
    tf.gradients(tf.reduce_prod(x, 1), x)
    tf.gradients(tf.reduce_mean(x, 1), x)


def reductions_keepdims_and_prod_grad(tf):
    x = tf.placeholder(tf.float32, [None, 3])
    tf.gradients(tf.reduce_max(x, 1, keepdims=True), x)
    tf.gradients(tf.reduce_min(x, [0, 1]), x)
    tf.gradients(tf.reduce_prod(x, 1), x)
    tf.gradients(tf.reduce_mean(x, 0, keepdims=True), x)


def array_ops_grad(tf):
    x = tf.placeholder(tf.float32, [None, 4])
    w = tf.constant([[1.0, 2.0, 3.0, 4.0]])
    parts = tf.split(x * w, 2, 1)
    y = tf.concat([tf.transpose(parts[0]), tf.transpose(parts[1]), tf.transpose(x)], 0)
    z = tf.reshape(tf.expand_dims(y, 0), [-1])
    s = tf.stack([tf.reduce_sum(z), tf.reduce_sum(tf.squeeze(tf.tile(w, [2, 1])))])
    g = tf.gather(tf.transpose(x), [0, 2])
    c = tf.cast(tf.cast(x, tf.float64), tf.float32)
    tf.gradients(tf.reduce_sum(s) + tf.reduce_sum(g) + tf.reduce_sum(c), [x, w])


def nn_layers_grad(tf):
    x = tf.placeholder(tf.float32, [None, 8, 8, 3])
    y = tf.placeholder(tf.float32, [None, 10])
    k = tf.Variable(tf.truncated_normal([3, 3, 3, 4], stddev=0.1))
    b = tf.Variable(tf.zeros([4]))
    h = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), b))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "SAME")
    h = tf.nn.avg_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    h = tf.reshape(h, [-1, 2 * 2 * 4])
    w = tf.Variable(tf.random_normal([16, 10]))
    logits = tf.matmul(tf.tanh(h), w) + tf.sigmoid(tf.reduce_sum(h))
    loss = tf.reduce_mean(tf.nn.softmax_cross_entropy_with_logits(labels=y, logits=logits)) + \
        tf.reduce_mean(tf.nn.sigmoid_cross_entropy_with_logits(labels=y, logits=logits)) + \
        0.01 * tf.nn.l2_loss(w)
    tf.train.GradientDescentOptimizer(0.1).minimize(loss)
    tf.random_uniform([2])


def sparse_softmax_and_embedding_grad(tf):
    ids = tf.placeholder(tf.int32, [None])
    labels = tf.placeholder(tf.int64, [None])
    emb = tf.Variable(tf.random_uniform([20, 5], -1.0, 1.0))
    e = tf.nn.embedding_lookup(emb, ids)
    w = tf.Variable(tf.truncated_normal([5, 7]))
    logits = tf.matmul(tf.nn.dropout(e, 0.5), w)
    loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels,
                                                                         logits=logits))
    tf.train.AdamOptimizer(0.01).minimize(loss)
    tf.random_normal([2])


CASES = {name: fn for name, fn in sorted(globals().items())
         if callable(fn) and not name.startswith("_") and fn.__module__ == __name__}


def op_list(tf, fn):
    """[[name, type], ...] of the ops `fn` builds in a fresh graph."""
    graph = tf.Graph()
    with graph.as_default():
        fn(tf)
    return [[op.name, op.type] for op in graph.get_operations()]
