"""Building and checking SignatureDefs (TF's `tf.saved_model.signature_def_utils`).

    sig = tf.saved_model.predict_signature_def(inputs={"x": x}, outputs={"y": y})
"""

from flowloom.framework.ops import Tensor
from flowloom.proto import meta_graph_pb2, types_pb2
from flowloom.saved_model import signature_constants as sc
from flowloom.saved_model.utils import build_tensor_info


def build_signature_def(inputs=None, outputs=None, method_name=None):
    """A `SignatureDef` from dicts of name -> `TensorInfo` and a method name."""
    sig = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        sig.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        sig.outputs[key].CopyFrom(info)
    if method_name is not None:
        sig.method_name = method_name
    return sig


def predict_signature_def(inputs, outputs):
    """A Predict `SignatureDef` from dicts of name -> Tensor.

    Raises:
      ValueError: `inputs` or `outputs` is None or empty.
    """
    if not inputs:
        raise ValueError("Prediction inputs cannot be None or empty.")
    if not outputs:
        raise ValueError("Prediction outputs cannot be None or empty.")
    return build_signature_def({k: build_tensor_info(t) for k, t in inputs.items()},
                               {k: build_tensor_info(t) for k, t in outputs.items()},
                               sc.PREDICT_METHOD_NAME)


def _string_input(examples, kind):
    if examples is None:
        raise ValueError(f"{kind} examples cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(f"{kind} examples must be a string Tensor.")


def regression_signature_def(examples, predictions):
    """A Regress `SignatureDef`: serialized Examples in, float predictions out.

    Raises:
      ValueError: a missing tensor, or one of the wrong dtype.
    """
    _string_input(examples, "Regression")
    if predictions is None:
        raise ValueError("Regression predictions cannot be None.")
    inp = build_tensor_info(examples)
    if inp.dtype != types_pb2.DT_STRING:
        raise ValueError("Regression examples must be a string Tensor.")
    out = build_tensor_info(predictions)
    if out.dtype != types_pb2.DT_FLOAT:
        raise ValueError("Regression output must be a float Tensor.")
    return build_signature_def({sc.REGRESS_INPUTS: inp}, {sc.REGRESS_OUTPUTS: out},
                               sc.REGRESS_METHOD_NAME)


def classification_signature_def(examples, classes, scores):
    """A Classify `SignatureDef`: serialized Examples in, string classes / float scores out.

    Raises:
      ValueError: a missing tensor, or one of the wrong dtype.
    """
    _string_input(examples, "Classification")
    if classes is None and scores is None:
        raise ValueError("Classification classes and scores cannot both be None.")
    inp = build_tensor_info(examples)
    if inp.dtype != types_pb2.DT_STRING:
        raise ValueError("Classification examples must be a string Tensor.")
    outputs = {}
    if classes is not None:
        info = build_tensor_info(classes)
        if info.dtype != types_pb2.DT_STRING:
            raise ValueError("Classification classes must be a string Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = build_tensor_info(scores)
        if info.dtype != types_pb2.DT_FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[sc.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def({sc.CLASSIFY_INPUTS: inp}, outputs, sc.CLASSIFY_METHOD_NAME)


def is_valid_signature(signature_def):
    """Whether TensorFlow Serving can serve `signature_def` (classify, regress or predict)."""
    if signature_def is None:
        return False
    sig = signature_def
    if sig.method_name == sc.PREDICT_METHOD_NAME:
        return bool(sig.inputs) and bool(sig.outputs)
    if sig.method_name == sc.REGRESS_METHOD_NAME:
        return (set(sig.inputs) == {sc.REGRESS_INPUTS} and
                sig.inputs[sc.REGRESS_INPUTS].dtype == types_pb2.DT_STRING and
                set(sig.outputs) == {sc.REGRESS_OUTPUTS} and
                sig.outputs[sc.REGRESS_OUTPUTS].dtype == types_pb2.DT_FLOAT)
    if sig.method_name == sc.CLASSIFY_METHOD_NAME:
        allowed = {sc.CLASSIFY_OUTPUT_CLASSES: types_pb2.DT_STRING,
                   sc.CLASSIFY_OUTPUT_SCORES: types_pb2.DT_FLOAT}
        return (set(sig.inputs) == {sc.CLASSIFY_INPUTS} and
                sig.inputs[sc.CLASSIFY_INPUTS].dtype == types_pb2.DT_STRING and
                bool(sig.outputs) and set(sig.outputs) <= set(allowed) and
                all(sig.outputs[k].dtype == allowed[k] for k in sig.outputs))
    return False
