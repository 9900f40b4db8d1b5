"""Signatures and directories of an Estimator export (TF's `model_utils/export_utils.py`)."""

import os
import time

from flowloom.estimator.mode_keys import ModeKeys
from flowloom.platform import tf_logging as logging
from flowloom.io import file_system

DEFAULT_SERVING_SIGNATURE_DEF_KEY = "serving_default"
DEFAULT_TRAIN_SIGNATURE_DEF_KEY = "train"
DEFAULT_EVAL_SIGNATURE_DEF_KEY = "eval"
SUPERVISED_TRAIN_METHOD_NAME = "tensorflow/supervised/training"
SUPERVISED_EVAL_METHOD_NAME = "tensorflow/supervised/eval"

EXPORT_TAG_MAP = {ModeKeys.PREDICT: ["serve"], ModeKeys.TRAIN: ["train"],
                  ModeKeys.EVAL: ["eval"]}
SIGNATURE_KEY_MAP = {ModeKeys.PREDICT: DEFAULT_SERVING_SIGNATURE_DEF_KEY,
                     ModeKeys.TRAIN: DEFAULT_TRAIN_SIGNATURE_DEF_KEY,
                     ModeKeys.EVAL: DEFAULT_EVAL_SIGNATURE_DEF_KEY}
SINGLE_FEATURE_DEFAULT_NAME = "feature"
SINGLE_RECEIVER_DEFAULT_NAME = "input"
SINGLE_LABEL_DEFAULT_NAME = "label"
MAX_DIRECTORY_CREATION_ATTEMPTS = 10

_FRIENDLY_METHOD_NAMES = {
    "tensorflow/serving/classify": "Classify", "tensorflow/serving/regress": "Regress",
    "tensorflow/serving/predict": "Predict", SUPERVISED_TRAIN_METHOD_NAME: "Train",
    SUPERVISED_EVAL_METHOD_NAME: "Eval"}


def build_all_signature_defs(receiver_tensors, export_outputs,
                             receiver_tensors_alternatives=None, serving_only=True):
    """The SignatureDef map of an export: one signature per export output (named by its
    key), and one per (alternative receiver, output) named `receiver:output`. Outputs that
    cannot be served from the receiver are left out (logged); with `serving_only`, so are
    signatures TF Serving cannot serve.

    Raises:
      ValueError: `export_outputs` is not a dict.
    """
    from flowloom.saved_model.signature_def_utils import is_valid_signature

    if not isinstance(receiver_tensors, dict):
        receiver_tensors = {SINGLE_RECEIVER_DEFAULT_NAME: receiver_tensors}
    if export_outputs is None or not isinstance(export_outputs, dict):
        raise ValueError("export_outputs must be a dict and not" f"{type(export_outputs)}")
    signature_def_map, excluded = {}, {}
    for output_key, export_output in export_outputs.items():
        name = f"{output_key or 'None'}"
        try:
            signature_def_map[name] = export_output.as_signature_def(receiver_tensors)
        except ValueError as e:
            excluded[name] = str(e)
    for receiver_name, alt in (receiver_tensors_alternatives or {}).items():
        if not isinstance(alt, dict):
            alt = {SINGLE_RECEIVER_DEFAULT_NAME: alt}
        for output_key, export_output in export_outputs.items():
            name = f"{receiver_name or 'None'}:{output_key or 'None'}"
            try:
                signature_def_map[name] = export_output.as_signature_def(alt)
            except ValueError as e:
                excluded[name] = str(e)
    _log_signature_report(signature_def_map, excluded)
    if serving_only:
        signature_def_map = {k: v for k, v in signature_def_map.items()
                             if is_valid_signature(v)}
    return signature_def_map


def _log_signature_report(signature_def_map, excluded_signatures):
    by_method = {m: [] for m in _FRIENDLY_METHOD_NAMES}
    for name, sig in signature_def_map.items():
        by_method.setdefault(sig.method_name, []).append(name)
    for method_name, names in by_method.items():
        friendly = _FRIENDLY_METHOD_NAMES.get(method_name, method_name)
        logging.info(f"Signatures INCLUDED in export for {friendly}: "
                     f"{names if names else 'None'}")
    if excluded_signatures:
        logging.info("Signatures EXCLUDED from export because they cannot be be served via "
                     "TensorFlow Serving APIs:")
        for name, message in excluded_signatures.items():
            logging.info(f"'{name}' : {message}")
    if not signature_def_map:
        logging.warning("Export includes no signatures!")
    elif DEFAULT_SERVING_SIGNATURE_DEF_KEY not in signature_def_map:
        logging.warning("Export includes no default signature!")


def get_timestamped_export_dir(export_dir_base):
    """`export_dir_base/<seconds since the epoch>` (bytes), a name not yet taken.

    Raises:
      RuntimeError: no free name after 10 attempts a second apart.
    """
    for attempt in range(1, MAX_DIRECTORY_CREATION_ATTEMPTS + 1):
        result_dir = os.path.join(os.fsencode(export_dir_base),
                                  str(int(time.time())).encode())
        if not file_system.exists(result_dir):
            return result_dir
        time.sleep(1)
        logging.warning(f"Directory {result_dir} already exists; retrying (attempt "
                        f"{attempt}/{MAX_DIRECTORY_CREATION_ATTEMPTS})")
    raise RuntimeError("Failed to obtain a unique export directory name after "
                       f"{MAX_DIRECTORY_CREATION_ATTEMPTS} attempts.")


def get_temp_export_dir(timestamped_export_dir):
    """The `temp-<timestamp>` sibling an export is written into before it is renamed."""
    dirname, basename = os.path.split(timestamped_export_dir)
    return os.path.join(os.fsencode(dirname), b"temp-" + os.fsencode(basename))


def export_outputs_for_mode(mode, serving_export_outputs=None, predictions=None, loss=None,
                            metrics=None):
    """The export outputs of a graph built in `mode`.

    Raises:
      ValueError: an unknown mode.
    """
    from flowloom.estimator.export.export_output import EvalOutput, TrainOutput

    if mode not in SIGNATURE_KEY_MAP:
        raise ValueError(f"Export output type not found for mode: {mode}. Expected one of: "
                         f"{list(SIGNATURE_KEY_MAP)}.")
    key = SIGNATURE_KEY_MAP[mode]
    if mode == ModeKeys.PREDICT:
        return get_export_outputs(serving_export_outputs, predictions)
    if mode == ModeKeys.TRAIN:
        return {key: TrainOutput(loss=loss, predictions=predictions, metrics=metrics)}
    return {key: EvalOutput(loss=loss, predictions=predictions, metrics=metrics)}


def get_export_outputs(export_outputs, predictions):
    """`export_outputs` checked, with `serving_default` added as TF adds it (a PredictOutput
    of the predictions when there are none; the only output also named serving_default).

    Raises:
      TypeError: not a dict of ExportOutputs.
      ValueError: several outputs and none named serving_default.
    """
    from flowloom.estimator.export.export_output import ExportOutput, PredictOutput

    if export_outputs is None:
        export_outputs = {DEFAULT_SERVING_SIGNATURE_DEF_KEY: PredictOutput(predictions)}
    if not isinstance(export_outputs, dict):
        raise TypeError(f"export_outputs must be dict, given: {export_outputs}")
    for v in export_outputs.values():
        if not isinstance(v, ExportOutput):
            raise TypeError("Values in export_outputs must be ExportOutput objects. "
                            f"Given: {export_outputs}")
    if len(export_outputs) == 1:
        (key, value), = export_outputs.items()
        if key != DEFAULT_SERVING_SIGNATURE_DEF_KEY:
            export_outputs[DEFAULT_SERVING_SIGNATURE_DEF_KEY] = value
    if len(export_outputs) > 1 and DEFAULT_SERVING_SIGNATURE_DEF_KEY not in export_outputs:
        raise ValueError("Multiple export_outputs were provided, but none of them is "
                         "specified as the default.  Do this by naming one of them with "
                         "signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY.")
    return export_outputs
