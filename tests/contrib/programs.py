"""Programs using tf.contrib.layers / slim / framework / seq2seq, written against the module
`tf` they are given, so the same code builds under TensorFlow 1.15 (for the recorder,
tests/data/record_contrib.py) and under flowloom (for the tests).

Each program returns (feeds, outputs, updates): placeholders mapped to values, named output
tensors, and ops to run once after the outputs are fetched (their effect is read back from the
global variables). Python 3.7 syntax: the recorder runs on TF 1.15's interpreter.
"""

import numpy as np


def _rs(seed):
    return np.random.RandomState(seed)


def fc_program(tf):
    layers = tf.contrib.layers
    x = tf.placeholder(tf.float32, [None, 6], name="x")
    h = layers.fully_connected(x, 5)
    h2 = layers.fully_connected(h, 4, activation_fn=tf.nn.tanh, scope="hidden2",
                                weights_regularizer=layers.l2_regularizer(0.01),
                                biases_regularizer=layers.l1_regularizer(0.02))
    again = layers.fully_connected(h, 4, activation_fn=tf.nn.tanh, scope="hidden2", reuse=True)
    out = layers.fully_connected(h2, 3, activation_fn=None, biases_initializer=None,
                                 variables_collections=["my_vars"], outputs_collections=["outs"])
    sig = layers.fully_connected(out, 2, activation_fn=tf.sigmoid, trainable=False,
                                 variables_collections={"weights": ["w_only"]})
    reg = tf.losses.get_regularization_loss()
    feeds = {x: _rs(0).uniform(-1, 1, (3, 6)).astype(np.float32)}
    return feeds, {"h": h, "h2": h2, "again": again, "out": out, "sig": sig, "reg": reg}, []


def conv_program(tf):
    layers = tf.contrib.layers
    images = tf.placeholder(tf.float32, [2, 8, 8, 3], name="images")
    net = layers.conv2d(images, 4, [3, 3])
    pool = layers.max_pool2d(net, [2, 2])
    net2 = layers.convolution2d(pool, 6, 3, stride=2, padding="VALID", scope="conv2")
    avg = layers.avg_pool2d(net, 2, stride=1, padding="SAME")
    flat = layers.flatten(avg)
    up = layers.conv2d_transpose(pool, 2, [3, 3], stride=2, scope="up")
    up2 = layers.conv2d_transpose(pool, 3, 2, stride=1, padding="VALID",
                                  activation_fn=None)
    dil = layers.conv2d(images, 2, [3, 3], rate=2, activation_fn=tf.nn.elu)
    logits = layers.fully_connected(flat, 3, activation_fn=None, scope="logits")
    feeds = {images: _rs(1).uniform(-1, 1, (2, 8, 8, 3)).astype(np.float32)}
    return feeds, {"net": net, "pool": pool, "net2": net2, "avg": avg, "flat": flat,
                   "up": up, "up2": up2, "dil": dil, "logits": logits}, []


def arg_scope_program(tf):
    slim = tf.contrib.slim
    images = tf.placeholder(tf.float32, [2, 9, 9, 2], name="images")
    with slim.arg_scope([slim.conv2d, slim.fully_connected], activation_fn=tf.nn.relu6,
                        weights_regularizer=slim.l2_regularizer(0.1)):
        with slim.arg_scope([slim.conv2d], padding="VALID") as sc:
            net = slim.repeat(images, 2, slim.conv2d, 3, [3, 3], scope="conv3")
        with slim.arg_scope(sc):
            net = slim.conv2d(net, 2, [2, 2], padding="SAME", scope="explicit")
        flat = slim.flatten(net)
        fc = slim.stack(flat, slim.fully_connected, [5, 4], scope="fc")
        convs = slim.stack(images, slim.conv2d, [(2, [3, 3]), (3, [1, 1], 2)], scope="cstack")
    reg = tf.add_n(slim.losses.get_regularization_losses())
    feeds = {images: _rs(2).uniform(-1, 1, (2, 9, 9, 2)).astype(np.float32)}
    return feeds, {"net": net, "fc": fc, "convs": convs, "reg": reg}, []


def batch_norm_program(tf):
    layers = tf.contrib.layers
    x = tf.placeholder(tf.float32, [4, 5], name="x")
    images = tf.placeholder(tf.float32, [2, 4, 4, 3], name="images")
    bn_train = layers.batch_norm(x, decay=0.9, scale=True, is_training=True)
    bn_infer = layers.batch_norm(x, scope="frozen", is_training=False, center=False)
    bn_conv = layers.conv2d(images, 4, [3, 3], normalizer_fn=layers.batch_norm,
                            normalizer_params={"is_training": True, "decay": 0.5})
    bn_unfused = layers.batch_norm(images, fused=False, decay=0.8, epsilon=0.01,
                                   is_training=True, scope="unfused")
    ln = layers.layer_norm(x)
    ln_img = layers.layer_norm(images, begin_norm_axis=1, begin_params_axis=-1, scope="ln2")
    feeds = {x: _rs(3).uniform(-1, 2, (4, 5)).astype(np.float32),
             images: _rs(4).uniform(-1, 1, (2, 4, 4, 3)).astype(np.float32)}
    updates = tf.get_collection(tf.GraphKeys.UPDATE_OPS)
    return feeds, {"bn_train": bn_train, "bn_infer": bn_infer, "bn_conv": bn_conv,
                   "bn_unfused": bn_unfused, "ln": ln, "ln_img": ln_img}, updates


def misc_program(tf):
    layers = tf.contrib.layers
    labels = tf.placeholder(tf.int64, [4], name="labels")
    ids = tf.placeholder(tf.int32, [2, 3], name="ids")
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    onehot = layers.one_hot_encoding(labels, 5)
    onehot_s = layers.one_hot_encoding(labels, 5, on_value=0.9, off_value=0.025, scope="smooth")
    emb = layers.embed_sequence(ids, vocab_size=7, embed_dim=3)
    emb2 = layers.embed_sequence(ids, vocab_size=7, embed_dim=3, scope="emb2",
                                 regularizer=layers.l2_regularizer(0.5))
    drop = layers.dropout(x, keep_prob=0.5, is_training=False)
    bias = layers.bias_add(x, activation_fn=tf.nn.relu)
    penalty = layers.apply_regularization(layers.l1_l2_regularizer(0.1, 0.2),
                                          tf.trainable_variables())
    summed = layers.sum_regularizer([layers.l1_regularizer(0.3), None,
                                     layers.l2_regularizer(0.4)])(x)
    feeds = {labels: np.array([0, 3, 4, 1]), ids: np.array([[0, 6, 2], [3, 3, 1]], np.int32),
             x: _rs(5).uniform(-1, 1, (4, 3)).astype(np.float32)}
    return feeds, {"onehot": onehot, "onehot_s": onehot_s, "emb": emb, "emb2": emb2,
                   "drop": drop, "bias": bias, "penalty": penalty, "summed": summed}, []


def sequence_loss_program(tf):
    s2s = tf.contrib.seq2seq
    logits = tf.placeholder(tf.float32, [2, 3, 5], name="logits")
    targets = tf.placeholder(tf.int32, [2, 3], name="targets")
    weights = tf.placeholder(tf.float32, [2, 3], name="weights")
    out = {"both": s2s.sequence_loss(logits, targets, weights),
           "per_step": s2s.sequence_loss(logits, targets, weights,
                                         average_across_timesteps=False),
           "per_seq": s2s.sequence_loss(logits, targets, weights, average_across_batch=False),
           "none": s2s.sequence_loss(logits, targets, weights, average_across_timesteps=False,
                                     average_across_batch=False),
           "sum_both": s2s.sequence_loss(logits, targets, weights, False, False, True, True),
           "sum_time": s2s.sequence_loss(logits, targets, weights, average_across_timesteps=False,
                                         sum_over_timesteps=True),
           "sum_batch": s2s.sequence_loss(logits, targets, weights, average_across_batch=False,
                                          sum_over_batch=True, name="summed"),
           "custom": s2s.sequence_loss(
               logits, targets, weights,
               softmax_loss_function=lambda labels, logits: tf.reduce_sum(
                   tf.square(logits), axis=1) + tf.cast(labels, tf.float32))}
    feeds = {logits: _rs(8).uniform(-2, 2, (2, 3, 5)).astype(np.float32),
             targets: np.array([[1, 4, 0], [2, 2, 3]], np.int32),
             weights: np.array([[1.0, 0.5, 0.0], [1.0, 1.0, 1.0]], np.float32)}
    return feeds, out, []


def _flat(tf, prefix, value, out):
    for i, leaf in enumerate(tf.contrib.framework.nest.flatten(value)):
        out[prefix + "/" + str(i)] = leaf


def decoder_training_program(tf):
    s2s = tf.contrib.seq2seq
    inputs = tf.placeholder(tf.float32, [2, 4, 3], name="inputs")
    lengths = tf.constant([4, 2], name="lengths")
    out = {}
    for impute in (False, True):
        with tf.variable_scope("impute" if impute else "plain"):
            cell = tf.nn.rnn_cell.BasicLSTMCell(5)
            helper = s2s.TrainingHelper(inputs, lengths)
            decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32),
                                       output_layer=tf.layers.Dense(6))
            outputs, state, seq_len = s2s.dynamic_decode(decoder, impute_finished=impute)
        key = "impute" if impute else "plain"
        out[key + "/rnn_output"] = outputs.rnn_output
        out[key + "/sample_id"] = outputs.sample_id
        out[key + "/lengths"] = seq_len
        _flat(tf, key + "/state", state, out)
    time_major = tf.transpose(inputs, [1, 0, 2])
    cell = tf.nn.rnn_cell.GRUCell(4)
    helper = s2s.TrainingHelper(time_major, lengths, time_major=True)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32))
    outputs, state, seq_len = s2s.dynamic_decode(decoder, output_time_major=True,
                                                 scope="tm")
    out["tm/rnn_output"] = outputs.rnn_output
    out["tm/state"] = state
    feeds = {inputs: _rs(9).uniform(-1, 1, (2, 4, 3)).astype(np.float32)}
    return feeds, out, []


def decoder_greedy_program(tf):
    s2s = tf.contrib.seq2seq
    embedding = tf.get_variable("embedding", [7, 3])
    start = tf.placeholder(tf.int32, [3], name="start")
    cell = tf.nn.rnn_cell.GRUCell(4)
    helper = s2s.GreedyEmbeddingHelper(embedding, start, 2)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(3, tf.float32),
                               output_layer=tf.layers.Dense(7, name="proj"))
    outputs, state, seq_len = s2s.dynamic_decode(decoder, maximum_iterations=5)
    out = {"rnn_output": outputs.rnn_output, "sample_id": outputs.sample_id,
           "lengths": seq_len, "state": state}
    feeds = {start: np.array([1, 5, 2], np.int32)}
    return feeds, out, []


def legacy_seq2seq_program(tf):
    legacy = tf.contrib.legacy_seq2seq
    rnn = tf.contrib.rnn
    ids = tf.placeholder(tf.int32, [2, 3], name="ids")
    embedding = tf.get_variable("embedding", [6, 3])
    inputs = [tf.squeeze(x, [1]) for x in tf.split(tf.nn.embedding_lookup(embedding, ids), 3, 1)]
    cell = rnn.MultiRNNCell([rnn.BasicLSTMCell(4) for _ in range(2)])
    with tf.variable_scope("rnnlm"):
        softmax_w = tf.get_variable("softmax_w", [4, 6])
        softmax_b = tf.get_variable("softmax_b", [6])

    def loop(prev, _):
        prev = tf.matmul(prev, softmax_w) + softmax_b
        return tf.nn.embedding_lookup(embedding, tf.stop_gradient(tf.argmax(prev, 1)))

    state0 = cell.zero_state(2, tf.float32)
    outputs, state = legacy.rnn_decoder(inputs, state0, cell, scope="rnnlm")
    fed, _ = legacy.rnn_decoder(inputs, state0, cell, loop_function=loop, scope="rnnlm")
    output = tf.reshape(tf.concat(outputs, 1), [-1, 4])
    logits = tf.matmul(output, softmax_w) + softmax_b
    targets = tf.placeholder(tf.int32, [2, 3], name="targets")
    by_example = legacy.sequence_loss_by_example([logits], [tf.reshape(targets, [-1])],
                                                 [tf.ones([6])])
    step_logits = [tf.matmul(o, softmax_w) + softmax_b for o in fed]
    step_targets = tf.unstack(targets, axis=1)
    step_weights = [tf.constant([1.0, 0.5]), tf.constant([1.0, 1.0]), tf.constant([0.0, 1.0])]
    loss = legacy.sequence_loss(step_logits, step_targets, step_weights)
    loss_sum = legacy.sequence_loss(step_logits, step_targets, step_weights,
                                    average_across_timesteps=False,
                                    average_across_batch=False)
    enc = [tf.constant(_rs(12).uniform(-1, 1, (2, 3)).astype(np.float32)) for _ in range(2)]
    basic_out, basic_state = legacy.basic_rnn_seq2seq(enc, inputs, tf.nn.rnn_cell.GRUCell(3))
    tied_out, tied_state = legacy.tied_rnn_seq2seq(enc, inputs, tf.nn.rnn_cell.GRUCell(3))
    emb_out, emb_state = legacy.embedding_rnn_decoder(
        tf.unstack(ids, axis=1), basic_state, tf.nn.rnn_cell.GRUCell(3), 6, 2,
        feed_previous=True)
    out = {"logits": logits, "by_example": by_example, "loss": loss, "loss_sum": loss_sum,
           "fed": tf.stack(fed), "basic": tf.stack(basic_out), "basic_state": basic_state,
           "tied": tf.stack(tied_out), "tied_state": tied_state, "emb": tf.stack(emb_out),
           "emb_state": emb_state}
    _flat(tf, "state", state, out)
    feeds = {ids: np.array([[1, 4, 0], [5, 2, 3]], np.int32),
             targets: np.array([[4, 0, 2], [2, 3, 1]], np.int32)}
    return feeds, out, []


def attention_program(tf):
    s2s = tf.contrib.seq2seq
    source = tf.placeholder(tf.float32, [2, 5, 3], name="source")
    source_len = tf.constant([5, 3])
    target = tf.placeholder(tf.float32, [2, 4, 2], name="target")
    target_len = tf.constant([4, 3])
    memory, enc_state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), source, source_len,
                                          dtype=tf.float32, scope="encoder")
    bahdanau = s2s.BahdanauAttention(4, memory, memory_sequence_length=source_len)
    cell = s2s.AttentionWrapper(tf.nn.rnn_cell.BasicLSTMCell(4), bahdanau,
                                attention_layer_size=3, alignment_history=True)
    helper = s2s.TrainingHelper(target, target_len)
    decoder = s2s.BasicDecoder(cell, helper, cell.zero_state(2, tf.float32),
                               output_layer=tf.layers.Dense(5))
    outputs, state, lengths = s2s.dynamic_decode(decoder)
    out = {"rnn_output": outputs.rnn_output, "lengths": lengths,
           "history": state.alignment_history.stack(), "attention": state.attention,
           "alignments": state.alignments, "time": state.time}
    _flat(tf, "cell_state", state.cell_state, out)
    with tf.variable_scope("multi"):
        luong = s2s.LuongAttention(5, memory, memory_sequence_length=source_len, scale=True)
        norm = s2s.BahdanauAttention(3, memory, normalize=True)
        multi = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(5), [luong, norm],
                                     output_attention=False,
                                     initial_cell_state=tf.zeros([2, 5]) + 0.1)
        m_out, m_state = tf.nn.dynamic_rnn(multi, target, target_len, dtype=tf.float32,
                                           initial_state=multi.zero_state(2, tf.float32))
    out["multi_out"] = m_out
    _flat(tf, "multi_state", m_state, out)
    out["hardmax"] = s2s.hardmax(tf.constant([[0.1, 0.7, 0.2], [3.0, -1.0, 3.5]]))
    feeds = {source: _rs(13).uniform(-1, 1, (2, 5, 3)).astype(np.float32),
             target: _rs(14).uniform(-1, 1, (2, 4, 2)).astype(np.float32)}
    return feeds, out, []


def training_program(tf):
    slim = tf.contrib.slim
    x = tf.placeholder(tf.float32, [4, 3], name="x")
    labels = tf.constant([0, 2, 1, 2])
    onehot = tf.one_hot(labels, 3)
    with tf.variable_scope("net"):
        logits = slim.fully_connected(x, 3, activation_fn=None,
                                      weights_regularizer=slim.l2_regularizer(0.05))
    probs = tf.nn.sigmoid(logits)
    unit = tf.nn.l2_normalize(logits, 1)
    weights = tf.constant([1.0, 0.0, 2.0, 0.5])
    losses = slim.losses
    out = {
        "softmax": losses.softmax_cross_entropy(logits, onehot, label_smoothing=0.1),
        "softmax_w": losses.softmax_cross_entropy(logits, onehot, weights=weights),
        "sparse": losses.sparse_softmax_cross_entropy(logits, labels, weights=2.0),
        "sigmoid": losses.sigmoid_cross_entropy(logits, onehot, label_smoothing=0.2),
        "mse": losses.mean_squared_error(probs, onehot, weights=tf.reshape(weights, [4, 1])),
        "absolute": losses.absolute_difference(probs, onehot),
        "log": losses.log_loss(probs, onehot),
        "hinge": losses.hinge_loss(logits, onehot),
        "cosine": losses.cosine_distance(unit, tf.nn.l2_normalize(onehot + 0.1, 1), axis=1),
        "pairwise": losses.mean_pairwise_squared_error(probs, onehot),
        "weighted": losses.compute_weighted_loss(tf.abs(logits), weights=[[1.0], [0.0],
                                                                         [1.0], [3.0]]),
    }
    total = losses.get_total_loss()
    out["total"] = total
    out["n_losses"] = tf.constant(len(losses.get_losses()))
    with tf.variable_scope("other"):
        other = slim.fully_connected(x, 2, activation_fn=tf.nn.relu6)
    other_loss = tf.reduce_mean(tf.square(other - 0.3))
    step = tf.train.get_or_create_global_step()
    train_op = slim.learning.create_train_op(
        total, tf.train.GradientDescentOptimizer(0.1), clip_gradient_norm=0.5,
        variables_to_train=slim.get_variables("net"),
        gradient_multipliers={"net/fully_connected/biases": 3.0}, summarize_gradients=True)
    train2 = tf.contrib.layers.optimize_loss(
        other_loss, step, 0.05, "Momentum", clip_gradients=0.4,
        variables=slim.get_variables("other"),
        summaries=["loss", "learning_rate", "gradients", "gradient_norm",
                   "global_gradient_norm"])
    tf.contrib.layers.summarize_activation(other)
    tf.contrib.layers.summarize_tensors([total, logits])
    feeds = {x: _rs(15).uniform(-1, 1, (4, 3)).astype(np.float32)}
    return feeds, out, [train_op, train2]


def metrics_program(tf):
    m = tf.contrib.metrics
    predictions = tf.placeholder(tf.int64, [6], name="predictions")
    labels = tf.placeholder(tf.int64, [6], name="labels")
    scores = tf.placeholder(tf.float32, [6], name="scores")
    weights = tf.constant([1.0, 0.5, 0.0, 2.0, 1.0, 1.0])
    truth = tf.cast(labels > 0, tf.bool)
    pairs = {
        "accuracy": m.streaming_accuracy(predictions, labels),
        "accuracy_w": m.streaming_accuracy(predictions, labels, weights=weights),
        "precision": m.streaming_precision(tf.cast(predictions > 0, tf.bool), truth),
        "recall": m.streaming_recall(tf.cast(predictions > 0, tf.bool), truth),
        "mean": m.streaming_mean(scores, weights=weights),
        "mean_tensor": m.streaming_mean_tensor(scores),
        "mae": m.streaming_mean_absolute_error(scores, tf.cast(labels, tf.float32)),
        "mse": m.streaming_mean_squared_error(scores, tf.cast(labels, tf.float32)),
        "rmse": m.streaming_root_mean_squared_error(scores, tf.cast(labels, tf.float32)),
        "less": m.streaming_percentage_less(scores, 0.5),
        "auc": m.streaming_auc(tf.sigmoid(scores), truth, num_thresholds=20),
        "iou": m.streaming_mean_iou(predictions, labels, 3),
        "tp": m.streaming_true_positives(tf.cast(predictions > 0, tf.bool), truth),
        "fn": m.streaming_false_negatives(tf.cast(predictions > 0, tf.bool), truth),
    }
    values, update_ops = m.aggregate_metric_map(pairs)
    out = dict(values)
    out["one_shot"] = m.accuracy(predictions, labels, weights=weights)
    feeds = {predictions: np.array([0, 1, 2, 2, 1, 0]), labels: np.array([0, 1, 1, 2, 0, 0]),
             scores: np.array([0.1, 0.9, -0.3, 1.2, 0.4, 0.6], np.float32)}
    return feeds, out, list(update_ops.values())


def beam_search_program(tf):
    s2s = tf.contrib.seq2seq
    source = tf.placeholder(tf.float32, [2, 4, 3], name="source")
    start = tf.constant([1, 1])
    embedding = tf.get_variable("embedding", [6, 3])
    memory, enc_state = tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(4), source, dtype=tf.float32,
                                          scope="encoder")
    out = {}
    with tf.variable_scope("plain"):
        cell = tf.nn.rnn_cell.GRUCell(4)
        decoder = s2s.BeamSearchDecoder(cell, embedding, start, 2,
                                        s2s.tile_batch(enc_state, 3), beam_width=3,
                                        output_layer=tf.layers.Dense(6),
                                        length_penalty_weight=0.6)
        outputs, state, lengths = s2s.dynamic_decode(decoder, maximum_iterations=6)
    out["plain/predicted_ids"] = outputs.predicted_ids
    out["plain/scores"] = outputs.beam_search_decoder_output.scores
    out["plain/parent_ids"] = outputs.beam_search_decoder_output.parent_ids
    out["plain/lengths"] = lengths
    out["plain/state_lengths"] = state.lengths
    out["plain/log_probs"] = state.log_probs
    with tf.variable_scope("attn"):
        tiled = s2s.tile_batch(memory, 2)
        mechanism = s2s.LuongAttention(4, tiled)
        cell = s2s.AttentionWrapper(tf.nn.rnn_cell.GRUCell(4), mechanism,
                                    attention_layer_size=4, alignment_history=True)
        initial = cell.zero_state(4, tf.float32).clone(cell_state=s2s.tile_batch(enc_state, 2))
        decoder = s2s.BeamSearchDecoder(cell, embedding, start, 3, initial, beam_width=2,
                                        output_layer=tf.layers.Dense(6),
                                        coverage_penalty_weight=0.3)
        outputs, state, lengths = s2s.dynamic_decode(decoder, maximum_iterations=5)
    out["attn/predicted_ids"] = outputs.predicted_ids
    out["attn/scores"] = outputs.beam_search_decoder_output.scores
    history = state.cell_state.alignment_history
    out["attn/history"] = history if isinstance(history, tf.Tensor) else history.stack()
    out["attn/lengths"] = lengths
    out["tiled"] = s2s.tile_batch(tf.constant([[1, 2], [3, 4]]), 3)
    out["tree"] = s2s.gather_tree(
        tf.constant([[[1, 2, 3]], [[4, 5, 6]], [[7, 8, 9]], [[2, 2, 2]]]),
        tf.constant([[[0, 0, 0]], [[0, 1, 1]], [[2, 1, 2]], [[0, 0, 0]]]),
        max_sequence_lengths=tf.constant([3]), end_token=8)
    feeds = {source: _rs(16).uniform(-1, 1, (2, 4, 3)).astype(np.float32)}
    return feeds, out, []


FINAL_OUTPUTS = ("metrics",)

PROGRAMS = {
    "beam_search": beam_search_program,
    "metrics": metrics_program,
    "training": training_program,
    "attention": attention_program,
    "legacy_seq2seq": legacy_seq2seq_program,
    "sequence_loss": sequence_loss_program,
    "decoder_training": decoder_training_program,
    "decoder_greedy": decoder_greedy_program,
    "fc": fc_program,
    "conv": conv_program,
    "arg_scope": arg_scope_program,
    "batch_norm": batch_norm_program,
    "misc": misc_program,
}

COLLECTIONS = ["variables", "trainable_variables", "model_variables", "regularization_losses",
               "update_ops", "weights", "biases", "my_vars", "w_only", "outs", "losses",
               "summaries", "train_op"]


def set_weights(tf, session):
    """Deterministic values for every float variable (variances positive)."""
    rs = _rs(7)
    for v in tf.global_variables():
        if not v.dtype.base_dtype.is_floating:
            continue
        shape = v.shape.as_list()
        if v.op.name.endswith("moving_variance"):
            value = rs.uniform(0.5, 1.5, size=shape)
        else:
            value = rs.uniform(-0.6, 0.6, size=shape)
        v.load(value.astype(np.float32), session)


def collection_listing(tf):
    out = {}
    for key in COLLECTIONS:
        items = tf.get_collection(key)
        out[key] = [getattr(t, "name", str(t)) for t in items]
    out["aliases"] = [list(getattr(t, "aliases", [])) for t in tf.get_collection("outs")]
    return out


def loss_and_grads(tf, feeds, outputs):
    """A scalar loss (fixed weights on every float output) and its gradients with respect to
    the float inputs and trainable variables, keyed `grad/<name>`."""
    rs = _rs(11)
    terms = []
    for key in sorted(outputs):
        t = outputs[key]
        if not t.dtype.base_dtype.is_floating:
            continue
        if t.shape.is_fully_defined():
            w = rs.uniform(-1, 1, size=t.shape.as_list()).astype(np.float32)
            terms.append(tf.reduce_sum(t * tf.constant(w)))
        else:
            terms.append(tf.reduce_sum(tf.sin(t)) * float(rs.uniform(-1, 1)))
    loss = tf.add_n(terms)
    xs = [p for p in feeds if p.dtype.base_dtype == tf.float32] + tf.trainable_variables()
    grads = tf.gradients(loss, xs)
    out = {"loss": loss}
    for x, g in zip(xs, grads):
        if g is not None:
            # Embedding gradients are IndexedSlices: compare them dense.
            out["grad/" + x.op.name] = tf.convert_to_tensor(g)
    return out


def run_program(tf, name):
    """Builds program `name` in a new graph; returns (op listing, variables, collections,
    values)."""
    g = tf.Graph()
    with g.as_default():
        tf.set_random_seed(1)
        feeds, outputs, updates = PROGRAMS[name](tf)
        listing = [[op.name, op.type] for op in g.get_operations()]
        variables = [[v.op.name, v.shape.as_list()] for v in tf.global_variables()]
        collections = collection_listing(tf)
        fetches = dict(outputs)
        fetches.update(loss_and_grads(tf, feeds, outputs))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.local_variables_initializer())
            set_weights(tf, sess)
            values = sess.run(fetches, feeds)
            if updates:
                sess.run(updates, feeds)
                for v in tf.global_variables():
                    values["after/" + v.op.name] = sess.run(v)
                if name in FINAL_OUTPUTS:
                    for key, value in sess.run(outputs, feeds).items():
                        values["final/" + key] = value
    return listing, variables, collections, values
