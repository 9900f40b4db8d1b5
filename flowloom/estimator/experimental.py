"""`tf.estimator.experimental`: supervised export receivers and `call_logit_fn`."""

from flowloom.estimator.export.export import build_raw_supervised_input_receiver_fn  # noqa
from flowloom.estimator.model_fn import call_logit_fn  # noqa: F401
