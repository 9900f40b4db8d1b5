"""`tf.nn`: neural-network ops."""

from flowloom import lazy_names as _lazy_names

_TABLE = _lazy_names.parse({
    "flowloom.ops.math.math_ops": "sigmoid softplus softsign tanh top_k",
    "flowloom.ops.nn.nn_ops": (
        "avg_pool bias_add conv1d conv2d conv2d_backprop_filter conv2d_backprop_input "
        "conv2d_transpose depthwise_conv2d depthwise_conv2d_native max_pool relu"),
    "flowloom.ops.nn.activation_ops": "elu leaky_relu local_response_normalization log_softmax lrn relu6 selu softmax",
    "flowloom.ops.nn.nn_loss_ops": (
        "in_top_k l2_loss softmax_cross_entropy_with_logits "
        "softmax_cross_entropy_with_logits_v2 sparse_softmax_cross_entropy_with_logits"),
    "flowloom.ops.nn.nn_impl": (
        "batch_normalization dropout fused_batch_norm l2_normalize moments "
        "sigmoid_cross_entropy_with_logits relu_layer separable_conv2d "
        "weighted_cross_entropy_with_logits xw_plus_b zero_fraction"),
    "flowloom.ops.nn.embedding_ops": "embedding_lookup",
    "flowloom.ops.rnn.rnn": (
        "bidirectional_dynamic_rnn dynamic_rnn raw_rnn static_bidirectional_rnn static_rnn "
        "static_state_saving_rnn"),
    "flowloom.ops.nn.candidate_sampling_ops": (
        "all_candidate_sampler compute_accidental_hits log_uniform_candidate_sampler "
        "uniform_candidate_sampler"),
    "flowloom.ops.nn.sampled_losses": "nce_loss sampled_softmax_loss",
    "flowloom.ops.nn.nn_extras": (
        "atrous_conv2d avg_pool1d conv1d_transpose convolution crelu embedding_lookup_sparse "
        "log_poisson_loss max_pool1d normalize_moments pool sufficient_statistics swish "
        "weighted_moments"),
    "flowloom.ops.nn.conv3d_ops": "avg_pool3d conv3d conv3d_transpose max_pool3d",
    "flowloom.ops.nn.pool_argmax_ops": "max_pool_with_argmax",
    "flowloom.ops.math.composite_math": "log_sigmoid",
    "flowloom.ops.nn.safe_embedding": "safe_embedding_lookup_sparse",
    "flowloom.ops.nn.nn_v2": "avg_pool_v2 conv_transpose max_pool_v2",
    "flowloom.ops.nn.batch_norm_grads": "batch_norm_with_global_normalization",
    "flowloom.ops.nn.depthwise_grad_ops": (
        "depthwise_conv2d_native_backprop_filter depthwise_conv2d_native_backprop_input"),
    "flowloom.ops.nn.nn_ops#aliases": "max_pool2d=max_pool avg_pool2d=avg_pool",
})

__getattr__, __dir__, _load_everything = _lazy_names.attach(
    __name__, _TABLE, submodules=('rnn_cell',))
