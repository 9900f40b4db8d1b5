"""`tf.contrib.legacy_seq2seq`: TF1's list-of-tensors sequence models (rnn_decoder, the basic
and tied seq2seq, embedding_rnn_decoder) and sequence_loss(_by_example)."""

import copy

from flowloom.framework.graph import name_scope
from flowloom.ops.array import array_ops
from flowloom.ops.math import math_ops
from flowloom.ops.nn import embedding_ops, nn_impl, nn_loss_ops
from flowloom.ops.rnn import rnn
from flowloom.variable_scope import get_variable, get_variable_scope, variable_scope


def _extract_argmax_and_embed(embedding, output_projection=None, update_embedding=True):
    def loop_function(prev, _):
        if output_projection is not None:
            prev = nn_impl.xw_plus_b(prev, output_projection[0], output_projection[1])
        emb_prev = embedding_ops.embedding_lookup(embedding, math_ops.argmax(prev, 1))
        if not update_embedding:
            emb_prev = array_ops.stop_gradient(emb_prev)
        return emb_prev
    return loop_function


def rnn_decoder(decoder_inputs, initial_state, cell, loop_function=None, scope=None):
    """Runs `cell` over the list `decoder_inputs` from `initial_state` (scope `rnn_decoder`).

    Args:
      decoder_inputs: a list of [batch, input_size] tensors.
      initial_state: the cell's initial state.
      loop_function: `fn(prev_output, i) -> next input`, used instead of decoder_inputs[i]
        after the first step (e.g. feeding back the previous prediction).
    Returns:
      (outputs, state): the list of outputs and the final state.
    """
    with variable_scope(scope or "rnn_decoder"):
        state = initial_state
        outputs = []
        prev = None
        for i, inp in enumerate(decoder_inputs):
            if loop_function is not None and prev is not None:
                with variable_scope("loop_function", reuse=True):
                    inp = loop_function(prev, i)
            if i > 0:
                get_variable_scope().reuse_variables()
            output, state = cell(inp, state)
            outputs.append(output)
            if loop_function is not None:
                prev = output
    return outputs, state


def basic_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, dtype=None, scope=None):
    """Encodes with a copy of `cell` (static_rnn), decodes from its final state."""
    from flowloom.framework import dtypes

    with variable_scope(scope or "basic_rnn_seq2seq"):
        enc_cell = copy.deepcopy(cell)
        _, enc_state = rnn.static_rnn(enc_cell, encoder_inputs, dtype=dtype or dtypes.float32)
        return rnn_decoder(decoder_inputs, enc_state, cell)


def tied_rnn_seq2seq(encoder_inputs, decoder_inputs, cell, loop_function=None, dtype=None,
                     scope=None):
    """basic_rnn_seq2seq with the encoder and decoder sharing the cell's variables."""
    from flowloom.framework import dtypes

    with variable_scope("combined_tied_rnn_seq2seq"):
        scope = scope or "tied_rnn_seq2seq"
        _, enc_state = rnn.static_rnn(cell, encoder_inputs, dtype=dtype or dtypes.float32,
                                      scope=scope)
        get_variable_scope().reuse_variables()
        return rnn_decoder(decoder_inputs, enc_state, cell, loop_function=loop_function,
                           scope=scope)


def embedding_rnn_decoder(decoder_inputs, initial_state, cell, num_symbols, embedding_size,
                          output_projection=None, feed_previous=False,
                          update_embedding_for_previous=True, scope=None):
    """rnn_decoder over embedded integer inputs (variable `embedding` [num_symbols, size]);
    with `feed_previous` the argmax of each output (after `output_projection`) is fed back."""
    from flowloom.framework.ops import convert_to_tensor

    with variable_scope(scope or "embedding_rnn_decoder") as vs:
        if output_projection is not None:
            proj_weights = convert_to_tensor(output_projection[0], dtype=vs.dtype)
            proj_weights.get_shape().assert_is_compatible_with([None, num_symbols])
            proj_biases = convert_to_tensor(output_projection[1], dtype=vs.dtype)
            proj_biases.get_shape().assert_is_compatible_with([num_symbols])
        embedding = get_variable("embedding", [num_symbols, embedding_size])
        loop_function = _extract_argmax_and_embed(
            embedding, output_projection, update_embedding_for_previous) \
            if feed_previous else None
        emb_inp = (embedding_ops.embedding_lookup(embedding, i) for i in decoder_inputs)
        return rnn_decoder(emb_inp, initial_state, cell, loop_function=loop_function)


def _not_provided(name):
    def fn(*args, **kwargs):
        raise NotImplementedError("tf.contrib.legacy_seq2seq.%s is not provided by flowloom"
                                  % name)
    fn.__name__ = name
    return fn


embedding_rnn_seq2seq = _not_provided("embedding_rnn_seq2seq")
embedding_tied_rnn_seq2seq = _not_provided("embedding_tied_rnn_seq2seq")
attention_decoder = _not_provided("attention_decoder")
embedding_attention_decoder = _not_provided("embedding_attention_decoder")
embedding_attention_seq2seq = _not_provided("embedding_attention_seq2seq")
one2many_rnn_seq2seq = _not_provided("one2many_rnn_seq2seq")
model_with_buckets = _not_provided("model_with_buckets")


def sequence_loss_by_example(logits, targets, weights, average_across_timesteps=True,
                             softmax_loss_function=None, name=None):
    """Per-example weighted cross-entropy summed over the lists of steps (divided by the
    summed weights + 1e-12 when `average_across_timesteps`).

    Args:
      logits: a list of [batch, num_symbols] tensors.
      targets, weights: lists of [batch] tensors, as long as `logits`.
    Returns:
      A [batch] tensor.
    Raises:
      ValueError: the three lists differ in length.
    """
    if len(targets) != len(logits) or len(weights) != len(logits):
        raise ValueError("Lengths of logits, weights, and targets must be the same %d, %d, %d."
                         % (len(logits), len(weights), len(targets)))
    with name_scope(name, "sequence_loss_by_example", logits + targets + weights):
        log_perp_list = []
        for logit, target, weight in zip(logits, targets, weights):
            if softmax_loss_function is None:
                target = array_ops.reshape(target, [-1])
                crossent = nn_loss_ops.sparse_softmax_cross_entropy_with_logits(
                    labels=target, logits=logit)
            else:
                crossent = softmax_loss_function(labels=target, logits=logit)
            log_perp_list.append(crossent * weight)
        log_perps = math_ops.add_n(log_perp_list)
        if average_across_timesteps:
            total_size = math_ops.add_n(weights)
            total_size += 1e-12
            log_perps /= total_size
    return log_perps


def sequence_loss(logits, targets, weights, average_across_timesteps=True,
                  average_across_batch=True, softmax_loss_function=None, name=None):
    """The sum over the batch of sequence_loss_by_example (divided by the batch size when
    `average_across_batch`)."""
    with name_scope(name, "sequence_loss", logits + targets + weights):
        cost = math_ops.reduce_sum(sequence_loss_by_example(
            logits, targets, weights, average_across_timesteps=average_across_timesteps,
            softmax_loss_function=softmax_loss_function))
        if average_across_batch:
            batch_size = array_ops.shape(targets[0])[0]
            return cost / math_ops.cast(batch_size, cost.dtype)
        return cost
