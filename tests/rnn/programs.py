"""RNN programs run by both real TensorFlow (tests/data/record_rnn.py) and flowloom
(tests/rnn/test_rnn_vs_tf.py). Each takes the `tf` module and builds, in the default graph,
a network; it returns `(feeds, outputs)`: {placeholder: value} and {key: tensor} (nested
structures of tensors are flattened into keys `key/0`, `key/1`, ...). Weights are set from
a seeded generator after the graph is built (`set_weights`), so both libraries compute with
the same numbers. `loss_and_grads` adds a scalar loss and its gradients.
"""

import numpy as np

BATCH, TIME, DEPTH = 3, 4, 3
LENGTHS = np.array([4, 2, 3], np.int32)


def _x(tf, time_major=False, depth=DEPTH):
    shape = [TIME, BATCH, depth] if time_major else [BATCH, TIME, depth]
    rng = np.random.default_rng(7)
    value = rng.uniform(-1, 1, size=shape).astype(np.float32)
    x = tf.placeholder(tf.float32, shape, name="x")
    return x, value


def lstm_seqlen(tf):
    x, xv = _x(tf)
    cell = tf.nn.rnn_cell.BasicLSTMCell(5)
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    return {x: xv}, {"outputs": out, "state": state}


def gru_time_major(tf):
    x, xv = _x(tf, time_major=True)
    cell = tf.nn.rnn_cell.GRUCell(4)
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32, time_major=True)
    return {x: xv}, {"outputs": out, "state": state}


def basic_rnn_initial_state(tf):
    x, xv = _x(tf)
    cell = tf.nn.rnn_cell.BasicRNNCell(4)
    h0 = tf.placeholder(tf.float32, [BATCH, 4], name="h0")
    h0v = np.linspace(-0.5, 0.5, BATCH * 4, dtype=np.float32).reshape(BATCH, 4)
    out, state = tf.nn.dynamic_rnn(cell, x, initial_state=h0, sequence_length=LENGTHS,
                                   scope="my_rnn")
    return {x: xv, h0: h0v}, {"outputs": out, "state": state}


def multi_lstm_peephole_proj(tf):
    x, xv = _x(tf)
    cells = [tf.nn.rnn_cell.LSTMCell(4, use_peepholes=True, num_proj=3, cell_clip=1.0,
                                     proj_clip=0.5, forget_bias=0.5),
             tf.nn.rnn_cell.GRUCell(3),
             tf.nn.rnn_cell.BasicLSTMCell(3, forget_bias=0.0)]
    cell = tf.nn.rnn_cell.MultiRNNCell(cells)
    initial_state = cell.zero_state(BATCH, tf.float32)
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS,
                                   initial_state=initial_state)
    return {x: xv}, {"outputs": out, "state": state}


def multi_concat_state(tf):
    x, xv = _x(tf)
    cells = [tf.nn.rnn_cell.BasicLSTMCell(3, state_is_tuple=False),
             tf.nn.rnn_cell.LSTMCell(2, state_is_tuple=False)]
    cell = tf.nn.rnn_cell.MultiRNNCell(cells, state_is_tuple=False)
    out, state = tf.nn.dynamic_rnn(cell, x, dtype=tf.float32)
    return {x: xv}, {"outputs": out, "state": state}


def wrappers(tf):
    x, xv = _x(tf)
    inner = tf.nn.rnn_cell.LSTMCell(DEPTH)
    cell = tf.nn.rnn_cell.ResidualWrapper(
        tf.nn.rnn_cell.DropoutWrapper(inner, input_keep_prob=1.0, output_keep_prob=1.0))
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    return {x: xv}, {"outputs": out, "state": state}


def bidirectional(tf):
    x, xv = _x(tf)
    fw = tf.nn.rnn_cell.LSTMCell(3)
    bw = tf.nn.rnn_cell.GRUCell(2)
    (ofw, obw), (sfw, sbw) = tf.nn.bidirectional_dynamic_rnn(
        fw, bw, x, sequence_length=LENGTHS, dtype=tf.float32)
    return {x: xv}, {"out_fw": ofw, "out_bw": obw, "state_fw": sfw, "state_bw": sbw}


def bidirectional_multi_no_lengths(tf):
    x, xv = _x(tf, time_major=True)
    fw = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3) for _ in range(2)])
    bw = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.BasicLSTMCell(3) for _ in range(2)])
    with tf.variable_scope("BiRNN"):
        (ofw, obw), (sfw, sbw) = tf.nn.bidirectional_dynamic_rnn(
            fw, bw, x, dtype=tf.float32, time_major=True)
    return {x: xv}, {"out_fw": ofw, "out_bw": obw, "state_fw": sfw, "state_bw": sbw}


def static_rnn_seqlen(tf):
    x, xv = _x(tf)
    inputs = tf.unstack(x, axis=1)
    cell = tf.nn.rnn_cell.BasicLSTMCell(3)
    outs, state = tf.nn.static_rnn(cell, inputs, sequence_length=LENGTHS, dtype=tf.float32)
    return {x: xv}, {"outputs": outs, "state": state}


def static_bidirectional(tf):
    x, xv = _x(tf)
    inputs = tf.unstack(x, axis=1)
    fw = tf.nn.rnn_cell.GRUCell(2)
    bw = tf.nn.rnn_cell.BasicRNNCell(2)
    outs, sfw, sbw = tf.nn.static_bidirectional_rnn(fw, bw, inputs, sequence_length=LENGTHS,
                                                    dtype=tf.float32)
    return {x: xv}, {"outputs": outs, "state_fw": sfw, "state_bw": sbw}


def embedding_bidirectional(tf):
    """The seed document's pattern: embedding lookup, mask, BiRNN with lengths."""
    ids = tf.placeholder(tf.int32, [BATCH, TIME], name="ids")
    idv = np.array([[1, 2, 3, 4], [5, 6, 0, 0], [7, 8, 9, 0]], np.int32)
    id_sz = tf.placeholder(tf.int32, [BATCH], name="id_sz")
    embedding_tbl = tf.get_variable("embedding", [10, DEPTH])
    mask = tf.expand_dims(tf.sequence_mask(id_sz, TIME, dtype=tf.float32), -1)
    vec = tf.identity(tf.nn.embedding_lookup(embedding_tbl, ids)) * mask
    fw = tf.nn.rnn_cell.BasicLSTMCell(3)
    bw = tf.nn.rnn_cell.BasicLSTMCell(3)
    with tf.variable_scope("BiRNN", reuse=None):
        out, _ = tf.nn.bidirectional_dynamic_rnn(fw, bw, vec, sequence_length=id_sz,
                                                 dtype=tf.float32)
    return {ids: idv, id_sz: LENGTHS}, {"out_fw": out[0], "out_bw": out[1]}


def custom_cell(tf):
    """A user's RNNCell subclass that makes its variables with tf.get_variable in `call`."""

    class MinimalRNNCell(tf.nn.rnn_cell.RNNCell):
        def __init__(self, units):
            super().__init__()
            self._units = units

        @property
        def state_size(self):
            return self._units

        @property
        def output_size(self):
            return self._units

        def call(self, inputs, state):
            w = tf.get_variable("w", [inputs.shape[1] + self._units, self._units])
            b = tf.get_variable("b", [self._units], initializer=tf.zeros_initializer())
            h = tf.tanh(tf.matmul(tf.concat([inputs, state], 1), w) + b)
            return h, h

    x, xv = _x(tf)
    cell = tf.nn.rnn_cell.MultiRNNCell([MinimalRNNCell(3), MinimalRNNCell(2)])
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=LENGTHS, dtype=tf.float32)
    return {x: xv}, {"outputs": out, "state": state}


def direct_cell_calls(tf):
    """Cells called by hand, with and without a scope, twice (the second call reuses)."""
    x, xv = _x(tf)
    lstm = tf.nn.rnn_cell.LSTMCell(3, use_peepholes=True)
    gru = tf.nn.rnn_cell.GRUCell(2)
    state = lstm.zero_state(BATCH, tf.float32)
    h = gru.zero_state(BATCH, tf.float32)
    outs = []
    for t in range(2):
        o, state = lstm(x[:, t], state)
        o2, h = gru(o, h, scope="my_gru")
        outs.append(o2)
    return {x: xv}, {"outputs": outs, "state": state, "h": h}


def unknown_shapes(tf):
    """Batch and time unknown until run time; lengths fed."""
    _, xv = _x(tf)
    x = tf.placeholder(tf.float32, [None, None, DEPTH], name="x_dyn")
    lengths = tf.placeholder(tf.int32, [None], name="lengths")
    cell = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3),
                                        tf.nn.rnn_cell.LSTMCell(2, num_proj=2)])
    out, state = tf.nn.dynamic_rnn(cell, x, sequence_length=lengths, dtype=tf.float32)
    loss_w = tf.reduce_sum(out)
    return {x: xv, lengths: LENGTHS}, {"outputs": out, "state": state, "sum": loss_w}


PROGRAMS = {f.__name__: f for f in [unknown_shapes, custom_cell, direct_cell_calls, 
    lstm_seqlen, gru_time_major, basic_rnn_initial_state, multi_lstm_peephole_proj,
    multi_concat_state, wrappers, bidirectional, bidirectional_multi_no_lengths,
    static_rnn_seqlen, static_bidirectional, embedding_bidirectional]}


def flatten_outputs(tf, outputs):
    flat = {}
    for key, value in outputs.items():
        leaves = tf.nest.flatten(value)
        if len(leaves) == 1 and not isinstance(value, (list, tuple)):
            flat[key] = value
        else:
            for i, leaf in enumerate(leaves):
                flat[f"{key}/{i}"] = leaf
    return flat


def loss_and_grads(tf, feeds, flat):
    """A scalar loss (fixed weights on every output) and its gradients with respect to the
    float inputs and the trainable variables, keyed `grad/<name>`."""
    rng = np.random.default_rng(11)
    terms = []
    for key in sorted(flat):
        t = flat[key]
        if t.shape.is_fully_defined():
            w = rng.uniform(-1, 1, size=t.shape.as_list()).astype(np.float32)
            terms.append(tf.reduce_sum(t * tf.constant(w)))
        else:
            terms.append(tf.reduce_sum(tf.sin(t)) * float(rng.uniform(-1, 1)))
    loss = tf.add_n(terms)
    xs = [p for p in feeds if p.dtype.base_dtype == tf.float32] + tf.trainable_variables()
    grads = tf.gradients(loss, xs)
    out = {"loss": loss}
    for x, g in zip(xs, grads):
        if g is not None:
            out["grad/" + x.op.name] = tf.convert_to_tensor(g)
    return out


def set_weights(tf, session):
    rng = np.random.default_rng(3)
    for v in tf.global_variables():
        value = rng.uniform(-0.6, 0.6, size=v.shape.as_list()).astype(np.float32)
        v.load(value, session)


def variable_names(tf):
    return [[v.op.name, v.shape.as_list()] for v in tf.global_variables()]


def naming_snippets(tf):
    """Small graphs whose op names the RNN code depends on (each fixed to TF's naming)."""
    tf.concat([[1, 0], tf.range(2, 4)], 0)
    tf.cast([1, 2], tf.int32)
    tf.cast([1, 2], tf.float32)
    tf.Assert(tf.constant(True), ["message", tf.constant([1, 2])])
    tf.random_uniform([2], seed=1)
    tf.random_uniform([2], 0, 2.0, seed=1)
    tf.random_uniform([2], maxval=3.0, seed=1)
    tf.sequence_mask([1, 2], 3)
    tf.zeros(tf.stack(tf.constant([2, 3])))
    with tf.variable_scope("outer") as outer:
        pass
    with tf.name_scope("ns"):
        with tf.variable_scope(outer, auxiliary_name_scope=False):
            tf.add(1, 2, name="inside")
        with tf.variable_scope(outer):
            tf.add(1, 2, name="inside_aux")
    tf.identity([1.0, tf.constant(2.0)])
    tf.identity([[1.0, 2.0], [3.0, 4.0]], name="nested_python")
    tf.reduce_sum(tf.ones([2, 2]))
    tf.reduce_max(tf.ones([2, 2]), name="named_max")
