"""`tf.contrib.training`: the ps placement strategies of `tf.train.replica_device_setter`.

The other names of TF 1.15's module raise NotImplementedError naming them."""

from flowloom.contrib.training.device_setter import (GreedyLoadBalancingStrategy,  # noqa: F401
                                                     RandomStrategy, byte_size_load_fn)

_NOT_PROVIDED = frozenset("""
FeedingQueueRunner HParams NextQueuedSequenceBatch SequenceQueueingStateSaver
StopAfterNEvalsHook SummaryAtEndHook add_gradients_summaries batch_sequences_with_states bucket
bucket_by_sequence_length checkpoints_iterator clip_gradient_norms clip_gradient_norms_fn
create_train_op evaluate_once evaluate_repeatedly get_or_create_eval_step multiply_gradients
parse_values rejection_sample resample_at_rate stratified_sample train wait_for_new_checkpoint
weighted_resample
""".split())


def __getattr__(name):
    if name in _NOT_PROVIDED:
        raise NotImplementedError(
            "tf.contrib.training.%s is not provided by flowloom (it has GreedyLoadBalancing"
            "Strategy, RandomStrategy, byte_size_load_fn)" % name)
    raise AttributeError("module 'flowloom.contrib.training' has no attribute '%s'" % name)
