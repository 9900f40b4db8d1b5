"""`tf.contrib`: the contrib modules TF1 programs use (layers, slim, framework, seq2seq, rnn,
losses, ...). A TF 1.15 contrib module flowloom does not have raises NotImplementedError
naming it; any other name is an AttributeError, as on a module."""

from flowloom.contrib import framework, layers, losses, rnn  # noqa: F401
from flowloom.contrib import factorization, learn, legacy_seq2seq  # noqa: F401
from flowloom.contrib import metrics, seq2seq, slim  # noqa: F401
from flowloom.contrib import data, deprecated  # noqa: F401
from flowloom.contrib import lookup  # noqa: F401
from flowloom.contrib import training  # noqa: F401
from flowloom.contrib import summary  # noqa: F401

_PROVIDED = ("data (tf.data transformations)", "deprecated (summaries)", "factorization (KMeans)", "framework", "layers",
             "learn (preprocessing)", "legacy_seq2seq", "lookup", "losses", "metrics", "rnn",
             "seq2seq", "slim", "summary (graph mode)", "training (ps strategies)")

# The contrib modules of TF 1.15 that flowloom does not provide.
_NOT_PROVIDED = frozenset("""
all_reduce autograph batching bayesflow bigtable boosted_trees checkpoint cloud
cluster_resolver compiler constrained_optimization copy_graph crf cudnn_rnn
decision_trees distribute distributions eager estimator
feature_column ffmpeg fused_conv graph_editor grid_rnn hadoop hooks ignite image
input_pipeline integrate kafka keras kernel_methods kinesis labeled_tensor
libsvm linear_optimizer memory_stats meta_graph_transform
mixed_precision model_pruning nearest_neighbor nn opt optimizer_v2 periodic_resample
predictor proto quantization quantize receptive_field recurrent reduce_slice_ops
remote_fused_graph resampler rpc saved_model session_bundle signal solvers sparsemax
specs staging stat_summarizer stateless tensor_forest tensorboard tensorrt testing
text tfprof timeseries tpu util
""".split())


class ContribModuleNotProvided(NotImplementedError, AttributeError):
    """A tf.contrib module of TF 1.15 that flowloom does not provide (also an AttributeError,
    so `hasattr` and `getattr(..., default)` answer as for a missing attribute)."""


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise ContribModuleNotProvided(
            "tf.contrib.%s is not provided by flowloom (the modules it has: %s)"
            % (name, ", ".join(_PROVIDED)))
    raise AttributeError("module 'flowloom.contrib' has no attribute '%s'" % name)
