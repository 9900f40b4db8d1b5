"""What a SavedModel signature serves (`tf.estimator.export.PredictOutput`,
`ClassificationOutput`, `RegressionOutput`; the TRAIN/EVAL `TrainOutput`, `EvalOutput`)."""

from flowloom.framework import dtypes


def _tensor_classes():
    from flowloom.framework.ops import Operation, Tensor

    return Tensor, Operation


class ExportOutput:
    """Represents an output of a model that can be served: one SignatureDef."""

    _SEPARATOR_CHAR = "/"

    def as_signature_def(self, receiver_tensors):
        """The SignatureDef serving this output from `receiver_tensors`."""
        raise NotImplementedError(f"{type(self).__name__}.as_signature_def")

    def _check_output_key(self, key, error_label):
        if isinstance(key, tuple):
            key = self._SEPARATOR_CHAR.join(key)
        if not isinstance(key, str):
            raise ValueError(f"{error_label} output key must be a string; got {key}.")
        return key

    def _wrap_and_check_outputs(self, outputs, single_output_default_name, error_label=None):
        tensor_cls, _ = _tensor_classes()
        if not isinstance(outputs, dict):
            outputs = {single_output_default_name: outputs}
        output_dict = {}
        for key, value in outputs.items():
            error_name = error_label or single_output_default_name
            key = self._check_output_key(key, error_name)
            if not isinstance(value, tensor_cls):
                raise ValueError(f"{error_name} output value must be a Tensor; got {value}.")
            output_dict[key] = value
        return output_dict


def _single_string_input(receiver_tensors, kind):
    if len(receiver_tensors) != 1:
        raise ValueError(f"{kind} input must be a single string Tensor; got {receiver_tensors}")
    (_, examples), = receiver_tensors.items()
    if dtypes.as_dtype(examples.dtype) != dtypes.string:
        raise ValueError(f"{kind} input must be a single string Tensor; got {receiver_tensors}")
    return examples


class ClassificationOutput(ExportOutput):
    """Classification scores and/or classes, served through a `classify` signature (which
    takes serialized tf.Examples as its single input).

    Raises:
      ValueError: scores not float, classes not string, or neither given.
    """

    def __init__(self, scores=None, classes=None):
        tensor_cls, _ = _tensor_classes()
        if scores is not None and not (isinstance(scores, tensor_cls)
                                       and scores.dtype.is_floating):
            raise ValueError(f"Classification scores must be a float32 Tensor; got {scores}")
        if classes is not None and not (isinstance(classes, tensor_cls)
                                        and dtypes.as_dtype(classes.dtype) == dtypes.string):
            raise ValueError(f"Classification classes must be a string Tensor; got {classes}")
        if scores is None and classes is None:
            raise ValueError("At least one of scores and classes must be set.")
        self._scores = scores
        self._classes = classes

    @property
    def scores(self):
        return self._scores

    @property
    def classes(self):
        return self._classes

    def as_signature_def(self, receiver_tensors):
        from flowloom.saved_model.signature_def_utils import classification_signature_def

        examples = _single_string_input(receiver_tensors, "Classification")
        return classification_signature_def(examples, self.classes, self.scores)


class RegressionOutput(ExportOutput):
    """A regression value, served through a `regress` signature.

    Raises:
      ValueError: `value` is not a float Tensor.
    """

    def __init__(self, value):
        tensor_cls, _ = _tensor_classes()
        if not (isinstance(value, tensor_cls) and value.dtype.is_floating):
            raise ValueError(f"Regression output value must be a float32 Tensor; got {value}")
        self._value = value

    @property
    def value(self):
        return self._value

    def as_signature_def(self, receiver_tensors):
        from flowloom.saved_model.signature_def_utils import regression_signature_def

        examples = _single_string_input(receiver_tensors, "Regression")
        return regression_signature_def(examples, self.value)


class PredictOutput(ExportOutput):
    """Arbitrary named output tensors, served through a `predict` signature.

    Args:
      outputs: a Tensor (named `output`) or a dict of string -> Tensor.
    """

    _SINGLE_OUTPUT_DEFAULT_NAME = "output"

    def __init__(self, outputs):
        self._outputs = self._wrap_and_check_outputs(
            outputs, self._SINGLE_OUTPUT_DEFAULT_NAME, error_label="Prediction")

    @property
    def outputs(self):
        return self._outputs

    def as_signature_def(self, receiver_tensors):
        from flowloom.saved_model.signature_def_utils import predict_signature_def

        return predict_signature_def(receiver_tensors, self.outputs)


class _SupervisedOutput(ExportOutput):
    """Loss, predictions and metrics of a TRAIN or EVAL graph, keyed `loss`,
    `predictions/<key>`, `metrics/<name>/value` and `metrics/<name>/update_op`."""

    LOSS_NAME = "loss"
    PREDICTIONS_NAME = "predictions"
    METRICS_NAME = "metrics"
    METRIC_VALUE_SUFFIX = "value"
    METRIC_UPDATE_SUFFIX = "update_op"
    _METHOD_NAME = None

    def __init__(self, loss=None, predictions=None, metrics=None):
        self._loss = self._predictions = self._metrics = None
        if loss is not None:
            self._loss = self._prefix_output_keys(
                self._wrap_and_check_outputs(loss, self.LOSS_NAME), self.LOSS_NAME)
        if predictions is not None:
            self._predictions = self._prefix_output_keys(
                self._wrap_and_check_outputs(predictions, self.PREDICTIONS_NAME),
                self.PREDICTIONS_NAME)
        if metrics is not None:
            self._metrics = self._wrap_and_check_metrics(metrics)

    def _prefix_output_keys(self, output_dict, output_name):
        return {self._prefix_key(k, output_name): v for k, v in output_dict.items()}

    def _prefix_key(self, key, output_name):
        if key.find(output_name) != 0:
            key = output_name + self._SEPARATOR_CHAR + key
        return key

    def _wrap_and_check_metrics(self, metrics):
        from flowloom.framework.graph import control_dependencies
        from flowloom.ops.array.array_ops import constant

        tensor_cls, op_cls = _tensor_classes()
        if not isinstance(metrics, dict):
            metrics = {self.METRICS_NAME: metrics}
        outputs = {}
        for key, (metric_val, metric_op) in metrics.items():
            key = self._prefix_key(self._check_output_key(key, self.METRICS_NAME),
                                   self.METRICS_NAME)
            val_name = key + self._SEPARATOR_CHAR + self.METRIC_VALUE_SUFFIX
            op_name = key + self._SEPARATOR_CHAR + self.METRIC_UPDATE_SUFFIX
            if not isinstance(metric_val, tensor_cls):
                raise ValueError(f"{key} output value must be a Tensor; got {metric_val}.")
            if not isinstance(metric_op, (tensor_cls, op_cls)):
                raise ValueError(f"{key} update_op must be a Tensor or Operation; got "
                                 f"{metric_op}.")
            metric_op_tensor = metric_op
            if isinstance(metric_op, op_cls):
                with control_dependencies([metric_op]):
                    metric_op_tensor = constant([], name="metric_op_wrapper")
            outputs[val_name] = metric_val
            outputs[op_name] = metric_op_tensor
        return outputs

    @property
    def loss(self):
        return self._loss

    @property
    def predictions(self):
        return self._predictions

    @property
    def metrics(self):
        return self._metrics

    def as_signature_def(self, receiver_tensors):
        from flowloom.saved_model.signature_def_utils import build_signature_def
        from flowloom.saved_model.utils import build_tensor_info

        if not receiver_tensors:
            raise ValueError(f"{self._METHOD_NAME} inputs cannot be None or empty.")
        outputs = {}
        for group in (self.loss, self.predictions, self.metrics):
            outputs.update(group or {})
        return build_signature_def(
            {k: build_tensor_info(v) for k, v in receiver_tensors.items()},
            {k: build_tensor_info(v) for k, v in outputs.items()}, self._METHOD_NAME)


class TrainOutput(_SupervisedOutput):
    """The outputs of a TRAIN graph (`tensorflow/supervised/training` signature)."""

    _METHOD_NAME = "tensorflow/supervised/training"


class EvalOutput(_SupervisedOutput):
    """The outputs of an EVAL graph (`tensorflow/supervised/eval` signature)."""

    _METHOD_NAME = "tensorflow/supervised/eval"
