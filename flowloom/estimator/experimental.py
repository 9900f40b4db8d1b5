"""`tf.estimator.experimental`: supervised export receivers, `call_logit_fn`, early stopping
and checkpoint-step hooks."""

from flowloom.estimator.early_stopping import (make_early_stopping_hook,  # noqa: F401
                                               stop_if_higher_hook, stop_if_lower_hook,
                                               stop_if_no_decrease_hook,
                                               stop_if_no_increase_hook)
from flowloom.estimator.export.export import build_raw_supervised_input_receiver_fn  # noqa
from flowloom.estimator.hooks import (InMemoryEvaluatorHook,  # noqa: F401
                                      make_stop_at_checkpoint_step_hook)
from flowloom.estimator.model_fn import call_logit_fn  # noqa: F401
