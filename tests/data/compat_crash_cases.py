"""Programs from issue 9's crash list, recorded under TF by record_compat_crashes.py and
rerun under flowloom by tests/compat/test_crash_cases.py. Each sets `fetch` (a list of
tensors) and `feeds` (a dict) over `tf` and `np`; the fetched values are compared."""

CASES = {
    "dropout_placeholder_keep_prob_grad": """
x = tf.placeholder(tf.float32, [None, 4])
keep = tf.placeholder(tf.float32)
w = tf.Variable(np.arange(8, dtype=np.float32).reshape(4, 2))
y = tf.nn.dropout(tf.matmul(x, w), keep)
fetch = tf.gradients(tf.reduce_sum(y * y), [w, x])
feeds = {x: np.linspace(-1, 1, 12).reshape(3, 4), keep: 1.0}
""",
    "layers_dropout_placeholder_training_grad": """
x = tf.placeholder(tf.float32, [None, 3])
training = tf.placeholder(tf.bool)
h = tf.layers.dense(x, 2, kernel_initializer=tf.ones_initializer())
y = tf.layers.dropout(h, rate=0.5, training=training)
fetch = tf.gradients(tf.reduce_sum(y), tf.trainable_variables())
feeds = {x: np.ones([5, 3]), training: False}
""",
    "dropout_wrapper_dynamic_rnn_grad": """
x = tf.placeholder(tf.float32, [None, 4, 2])
keep = tf.placeholder(tf.float32, [])
cell = tf.nn.rnn_cell.DropoutWrapper(tf.nn.rnn_cell.BasicRNNCell(3), output_keep_prob=keep)
with tf.variable_scope("rnn", initializer=tf.constant_initializer(0.1)):
    out, _ = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
fetch = tf.gradients(tf.reduce_sum(out), tf.trainable_variables())
feeds = {x: np.linspace(0, 1, 16).reshape(2, 4, 2), keep: 1.0}
""",
    "where_v2_broadcast_unknown_batch_grad": """
c = tf.placeholder(tf.bool, [None, 1])
a = tf.placeholder(tf.float32, [None, 3])
b = tf.placeholder(tf.float32, [3])
y = tf.where_v2(c, a, b)
fetch = tf.gradients(tf.reduce_sum(y * y), [a, b])
feeds = {c: [[True], [False]], a: [[1., 2., 3.], [4., 5., 6.]], b: [7., 8., 9.]}
""",
    "where_v2_unknown_rank_grad": """
c = tf.placeholder(tf.bool)
a = tf.placeholder(tf.float32)
b = tf.placeholder(tf.float32)
y = tf.where_v2(c, a, b)
fetch = tf.gradients(tf.reduce_sum(y * 3.0), [a, b])
feeds = {c: [[True, False]], a: 2.0, b: [[1.0], [2.0]]}
""",
    "reduce_sum_grad_scalar_into_unknown_shape": """
x = tf.placeholder(tf.float32)
fetch = tf.gradients(tf.reduce_sum(x * x), x) + tf.gradients(tf.reduce_mean(x * 2.0), x)
feeds = {x: 3.0}
""",
    "reduce_sum_grad_vector_into_unknown_shape": """
x = tf.placeholder(tf.float32)
fetch = tf.gradients(tf.reduce_sum(x * x), x) + tf.gradients(tf.reduce_max(x), x)
feeds = {x: [1.0, 4.0, 2.0]}
""",
    "floormod_empty_by_zero": """
x = tf.placeholder(tf.int32)
fetch = [tf.floormod(x, 0), tf.floordiv(x, 0), tf.size(tf.floormod(x, 0))]
feeds = {x: np.zeros([0], np.int32)}
""",
    "atan2_keywords": """
fetch = [tf.atan2(y=1., x=0.), tf.atan2(1., -1.), tf.atan2(x=1., y=-1.)]
feeds = {}
""",
    "minimize_var_list_dict_values": """
v = {"b": tf.Variable(2.0, name="b"), "a": tf.Variable(1.0, name="a")}
loss = v["a"] * v["b"] + tf.square(v["a"])
train = tf.train.GradientDescentOptimizer(0.1).minimize(loss, var_list=v.values())
fetch = [train, v["a"], v["b"]]
feeds = {}
""",
    "compute_gradients_var_list_dict_keys_of_names": """
a = tf.Variable(1.0, name="a")
b = tf.Variable(3.0, name="b")
pairs = tf.train.GradientDescentOptimizer(0.1).compute_gradients(a * b, var_list={a: 0, b: 1}.keys())
fetch = [g for g, _ in pairs]
feeds = {}
""",
    "losses_weights_with_dynamic_shapes": """
labels = tf.placeholder(tf.float32, [None, 3])
logits = tf.placeholder(tf.float32, [None, 3])
w = tf.placeholder(tf.float32, [None])
w2 = tf.placeholder(tf.float32)
fetch = [tf.losses.softmax_cross_entropy(labels, logits, weights=w),
         tf.losses.mean_squared_error(labels, logits, weights=w2),
         tf.losses.absolute_difference(labels, logits, weights=tf.placeholder_with_default(
             np.ones([1, 3], np.float32), [None, 3]))]
feeds = {labels: np.eye(3)[[0, 2]], logits: [[1., 2., 3.], [0., 1., 0.]], w: [1., 0.5],
         w2: [[1.], [2.]]}
""",
}
