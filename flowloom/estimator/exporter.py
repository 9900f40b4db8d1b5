"""Exporters `train_and_evaluate` runs after each evaluation (`tf.estimator.FinalExporter`,
`LatestExporter`, `BestExporter`)."""

import os

from flowloom.platform import tf_logging as logging
from flowloom.io import file_system
from flowloom.framework import errors


class Exporter:
    """A class representing a type of model export."""

    @property
    def name(self):
        """Directory name under `model_dir/export` this exporter writes into."""
        raise NotImplementedError(f"{type(self).__name__}.name")

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        """Exports `estimator`; returns the export directory or None."""
        raise NotImplementedError(f"{type(self).__name__}.export")


class _SavedModelExporter(Exporter):
    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._name = name
        self._serving_input_receiver_fn = serving_input_receiver_fn
        self._assets_extra = assets_extra
        self._as_text = as_text

    @property
    def name(self):
        return self._name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        del eval_result, is_the_final_export
        return estimator.export_saved_model(export_path, self._serving_input_receiver_fn,
                                            assets_extra=self._assets_extra,
                                            as_text=self._as_text,
                                            checkpoint_path=checkpoint_path)


class FinalExporter(Exporter):
    """Exports the serving graph and checkpoints once, at the end of training.

    Args:
      name: the export subdirectory name.
      serving_input_receiver_fn: returns a `ServingInputReceiver`.
      assets_extra, as_text: as in `Estimator.export_saved_model`.
    """

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)

    @property
    def name(self):
        return self._saved_model_exporter.name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        if not is_the_final_export:
            return None
        logging.info("Performing the final export in the end of training.")
        return self._saved_model_exporter.export(estimator, export_path, checkpoint_path,
                                                 eval_result, is_the_final_export)


class LatestExporter(Exporter):
    """Exports after every evaluation, keeping the newest `exports_to_keep` exports.

    Raises:
      ValueError: `exports_to_keep` is not None and <= 0.
    """

    def __init__(self, name, serving_input_receiver_fn, assets_extra=None, as_text=False,
                 exports_to_keep=5):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)
        self._exports_to_keep = exports_to_keep
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be positive number")

    @property
    def name(self):
        return self._saved_model_exporter.name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        result = self._saved_model_exporter.export(estimator, export_path, checkpoint_path,
                                                   eval_result, is_the_final_export)
        _garbage_collect_exports(export_path, self._exports_to_keep)
        return result


def _loss_smaller(best_eval_result, current_eval_result):
    """TF's default BestExporter comparison: the current `loss` is smaller."""
    key = "loss"
    if not best_eval_result or key not in best_eval_result:
        raise ValueError("best_eval_result cannot be empty or no loss is found in it.")
    if not current_eval_result or key not in current_eval_result:
        raise ValueError("current_eval_result cannot be empty or no loss is found in it.")
    return best_eval_result[key] > current_eval_result[key]


class BestExporter(Exporter):
    """Exports when an evaluation is the best so far by `compare_fn` (default: smaller
    loss); the best so far starts from the eval event files under `model_dir`.

    Raises:
      ValueError: `exports_to_keep` <= 0 or `compare_fn` is None.
    """

    def __init__(self, name="best_exporter", serving_input_receiver_fn=None,
                 event_file_pattern="eval/*.tfevents.*", compare_fn=_loss_smaller,
                 assets_extra=None, as_text=False, exports_to_keep=5):
        self._saved_model_exporter = _SavedModelExporter(name, serving_input_receiver_fn,
                                                         assets_extra, as_text)
        self._event_file_pattern = event_file_pattern
        self._model_dir = None
        self._best_eval_result = None
        self._compare_fn = compare_fn
        if self._compare_fn is None:
            raise ValueError("`compare_fn` must not be None.")
        self._exports_to_keep = exports_to_keep
        if exports_to_keep is not None and exports_to_keep <= 0:
            raise ValueError("`exports_to_keep`, if provided, must be a positive number. Got "
                             f"{exports_to_keep}")

    @property
    def name(self):
        return self._saved_model_exporter.name

    def export(self, estimator, export_path, checkpoint_path, eval_result,
               is_the_final_export):
        export_result = None
        if self._model_dir != estimator.model_dir and self._event_file_pattern:
            self._model_dir = estimator.model_dir
            pattern = os.path.join(estimator.model_dir, self._event_file_pattern)
            self._best_eval_result = self._best_from_event_files(pattern)
        if self._best_eval_result is None or self._compare_fn(
                best_eval_result=self._best_eval_result, current_eval_result=eval_result):
            logging.info("Exporting a better model ({} instead of {})...".format(
                eval_result, self._best_eval_result))
            export_result = self._saved_model_exporter.export(
                estimator, export_path, checkpoint_path, eval_result, is_the_final_export)
            self._best_eval_result = eval_result
            _garbage_collect_exports(export_path, self._exports_to_keep)
        else:
            logging.info("Keeping the current best model ({} instead of {}).".format(
                self._best_eval_result, eval_result))
        return export_result

    def _best_from_event_files(self, pattern):
        from flowloom.train.summary_io import summary_iterator

        best = None
        for path in file_system.glob(pattern):
            for event in summary_iterator(path):
                if not event.HasField("summary"):
                    continue
                result = {v.tag: v.simple_value for v in event.summary.value
                          if v.HasField("simple_value")}
                if not result:
                    continue
                if best is None or self._compare_fn(best, result):
                    best = result
        return best


def _garbage_collect_exports(export_dir_base, exports_to_keep):
    """Deletes all but the `exports_to_keep` newest timestamped exports."""
    if exports_to_keep is None or not file_system.isdir_ok(export_dir_base):
        return
    stamps = sorted(int(n) for n in file_system.listdir(export_dir_base) if n.isdigit())
    for stamp in stamps[:-exports_to_keep] if exports_to_keep else stamps:
        path = os.path.join(export_dir_base, str(stamp))
        try:
            file_system.rmtree(path)
        except errors.OpError as e:
            logging.warning(f"Can not delete {path} recursively: {e}")
