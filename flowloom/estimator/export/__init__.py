"""`tf.estimator.export`: serving input receivers and the outputs a SavedModel serves."""

from flowloom.estimator.export.export import (  # noqa: F401
    ServingInputReceiver, SupervisedInputReceiver, TensorServingInputReceiver,
    UnsupervisedInputReceiver, build_parsing_serving_input_receiver_fn,
    build_raw_serving_input_receiver_fn, build_raw_supervised_input_receiver_fn)
from flowloom.estimator.export.export_output import (  # noqa: F401
    ClassificationOutput, EvalOutput, ExportOutput, PredictOutput, RegressionOutput,
    TrainOutput)
