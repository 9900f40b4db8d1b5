"""`tf.estimator.ModeKeys`: the mode an Estimator calls its `model_fn` in."""


class ModeKeys:
    """Standard names for Estimator model modes.

    * `TRAIN`: training/fitting mode.
    * `EVAL`: testing/evaluation mode.
    * `PREDICT`: prediction/inference mode.
    """

    TRAIN = "train"
    EVAL = "eval"
    PREDICT = "infer"


def is_predict(mode):
    return mode == ModeKeys.PREDICT


def is_train(mode):
    return mode == ModeKeys.TRAIN


def is_eval(mode):
    return mode == ModeKeys.EVAL
