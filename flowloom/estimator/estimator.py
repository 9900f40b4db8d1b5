"""`tf.estimator.Estimator`: train, evaluate and predict with a `model_fn`, each call in a
fresh graph over the checkpoints in `model_dir`."""

import copy
import os
import tempfile

from flowloom.estimator import run_config as run_config_lib
from flowloom.estimator import util
from flowloom.estimator.mode_keys import ModeKeys
from flowloom.estimator.model_fn import LOSS_METRIC_KEY, EstimatorSpec
from flowloom.estimator.warm_starting import WarmStartSettings, get_default_warm_start_settings
from flowloom.platform import tf_logging as logging

_VALID_MODEL_FN_ARGS = {"features", "labels", "mode", "params", "self", "config"}


class Estimator:
    """Estimator class to train and evaluate TensorFlow models.

    The `model_fn` takes `features` and any of `labels`, `mode`, `params`, `config` (the
    Estimator passes only the arguments it names) and returns an `EstimatorSpec`.

    Example:
      def model_fn(features, labels, mode, params):
          logits = tf.layers.dense(features["x"], params["n_classes"])
          ...
          return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)

      estimator = tf.estimator.Estimator(model_fn, model_dir="/tmp/m",
                                         params={"n_classes": 3})
      estimator.train(input_fn=train_input_fn, steps=100)
      metrics = estimator.evaluate(input_fn=eval_input_fn)

    Args:
      model_fn: the model function.
      model_dir: directory for checkpoints and summaries (a temporary one when None and the
        config has none).
      config: a `RunConfig`.
      params: a dict passed to `model_fn` as `params`.
      warm_start_from: a checkpoint or SavedModel path, or a `WarmStartSettings`.

    Raises:
      ValueError: `model_fn` is None or its arguments are invalid, or `model_dir` differs from
        `config.model_dir`.
    """

    def __init__(self, model_fn, model_dir=None, config=None, params=None,
                 warm_start_from=None):
        _assert_members_are_not_overridden(Estimator, self)
        self._config = maybe_overwrite_model_dir_and_session_config(config, model_dir)
        self._model_dir = self._config.model_dir
        self._session_config = self._config.session_config
        logging.info("Using config: %s", str(vars(self._config)))
        self._device_fn = self._config.device_fn
        if model_fn is None:
            raise ValueError("model_fn must be provided to Estimator.")
        _verify_model_fn_args(model_fn, params)
        self._model_fn = model_fn
        self._params = copy.deepcopy(params or {})
        self._warm_start_settings = get_default_warm_start_settings(warm_start_from)

    @property
    def model_dir(self):
        return self._model_dir

    @property
    def config(self):
        return copy.deepcopy(self._config)

    @property
    def params(self):
        return copy.deepcopy(self._params)

    @property
    def model_fn(self):
        """The model_fn bound to this Estimator: `fn(features, labels, mode, config)`."""
        def public_model_fn(features, labels, mode, config):
            return self._call_model_fn(features, labels, mode, config)
        return public_model_fn

    def get_variable_value(self, name):
        """The value of variable `name` in the latest checkpoint.

        Raises:
          ValueError: no checkpoint in `model_dir`.
        """
        from flowloom.train.checkpoint_utils import load_variable

        _check_checkpoint_available(self.model_dir)
        return load_variable(self.model_dir, name)

    def get_variable_names(self):
        """The names of the variables in the latest checkpoint.

        Raises:
          ValueError: no checkpoint in `model_dir`.
        """
        from flowloom.train.checkpoint_utils import list_variables

        _check_checkpoint_available(self.model_dir)
        return [name for name, _ in list_variables(self.model_dir)]

    def latest_checkpoint(self):
        """The path of the latest checkpoint in `model_dir`, or None."""
        from flowloom.train.checkpoint_management import latest_checkpoint

        return latest_checkpoint(self.model_dir)

    def train(self, input_fn, hooks=None, steps=None, max_steps=None, saving_listeners=None):
        """Trains the model on the data `input_fn` gives.

        Args:
          input_fn: returns a `tf.data.Dataset` or a `(features, labels)` tuple.
          hooks: more `SessionRunHook`s for the training loop.
          steps: train this many more steps (or until the input ends).
          max_steps: train until the global step reaches this (skips when a checkpoint is
            there already).
          saving_listeners: `CheckpointSaverListener`s run around each checkpoint.

        Returns:
          `self`, for chaining.

        Raises:
          ValueError: both `steps` and `max_steps`, or a value <= 0.
        """
        if self.config.task_type in (run_config_lib.TaskType.EVALUATOR,
                                     run_config_lib.TaskType.PS):
            raise ValueError("Train has been called wrong configuration. Please use "
                             "tf.estimator.train_and_evaluate which calls proper API "
                             f"according to given configuration. Current configuration: "
                             f"{self.config}.")
        if steps is not None and max_steps is not None:
            raise ValueError("Can not provide both steps and max_steps.")
        if steps is not None and steps <= 0:
            raise ValueError(f"Must specify steps > 0, given: {steps}")
        if max_steps is not None and max_steps <= 0:
            raise ValueError(f"Must specify max_steps > 0, given: {max_steps}")
        if max_steps is not None:
            start_step = _load_global_step_from_checkpoint_dir(self._model_dir)
            if max_steps <= start_step:
                logging.info("Skipping training since max_steps has already saved.")
                return self
        hooks = util.check_hooks_type(hooks)
        if steps is not None or max_steps is not None:
            from flowloom.train.basic_session_run_hooks import StopAtStepHook

            hooks.append(StopAtStepHook(steps, max_steps))
        saving_listeners = util.check_listeners_type(saving_listeners)
        loss = self._train_model(input_fn, hooks, saving_listeners)
        logging.info("Loss for final step: %s.", loss)
        return self

    def eval_dir(self, name=None):
        """The directory evaluation summaries go to: `model_dir/eval` or `eval_<name>`."""
        return os.path.join(self._model_dir, "eval" if not name else "eval_" + name)

    def evaluate(self, input_fn, steps=None, hooks=None, checkpoint_path=None, name=None):
        """Evaluates the model on the data `input_fn` gives.

        Runs the `eval_metric_ops` update ops for `steps` batches (or until the input ends),
        writes the values as summaries into `eval_dir(name)`, and returns them.

        Returns:
          A dict of metric name -> value, with `loss` (the mean loss) and `global_step`.

        Raises:
          ValueError: `steps` <= 0, or a metric named `loss` or `global_step`.
        """
        from flowloom.framework.graph import Graph
        from flowloom.train.checkpoint_management import latest_checkpoint

        hooks = util.check_hooks_type(hooks)
        if steps is not None:
            if steps <= 0:
                raise ValueError(f"Must specify steps > 0, given: {steps}")
            from flowloom.train.evaluation import _StopAfterNEvalsHook

            hooks.append(_StopAfterNEvalsHook(num_evals=steps))
        if not checkpoint_path:
            latest_path = latest_checkpoint(self._model_dir)
            if not latest_path:
                logging.info(f"Could not find trained model in model_dir: {self._model_dir}, "
                             "running initialization to evaluate.")
            checkpoint_path = latest_path
        with Graph().as_default():
            scaffold, update_op, eval_dict, all_hooks = self._evaluate_build_graph(
                input_fn, hooks, checkpoint_path)
            return self._evaluate_run(checkpoint_path, scaffold, update_op, eval_dict,
                                      all_hooks, output_dir=self.eval_dir(name))

    def predict(self, input_fn, predict_keys=None, hooks=None, checkpoint_path=None,
                yield_single_examples=True):
        """Yields predictions for the features `input_fn` gives, until the input ends.

        Args:
          input_fn: returns a `tf.data.Dataset`, features, or a tuple whose first item is
            the features.
          predict_keys: the keys of a dict `predictions` to compute (None: all).
          hooks: more `SessionRunHook`s.
          checkpoint_path: a checkpoint to restore (default: the latest; none there: the
            variables are initialized).
          yield_single_examples: yield one example at a time (default) or whole batches.

        Yields:
          The evaluated `predictions`: dicts (or arrays), one per example or per batch.

        Raises:
          ValueError: `predict_keys` with non-dict predictions, no predict_keys matched, or
            predictions of different batch lengths with `yield_single_examples`.
        """
        from flowloom.framework.graph import Graph
        from flowloom.ops.random.random_ops import set_random_seed
        from flowloom.train.checkpoint_management import latest_checkpoint
        from flowloom.train.monitored_session import ChiefSessionCreator, MonitoredSession

        hooks = util.check_hooks_type(hooks)
        if not checkpoint_path:
            checkpoint_path = latest_checkpoint(self._model_dir)
        if not checkpoint_path:
            logging.info(f"Could not find trained model in model_dir: {self._model_dir}, "
                         "running initialization to predict.")
        with Graph().as_default() as g:
            set_random_seed(self._config.tf_random_seed)
            self._create_and_assert_global_step(g)
            features, input_hooks = self._get_features_from_input_fn(input_fn,
                                                                     ModeKeys.PREDICT)
            spec = self._call_model_fn(features, None, ModeKeys.PREDICT, self.config)
            self._maybe_warm_start(checkpoint_path)
            predictions = _extract_keys(spec.predictions, predict_keys)
            all_hooks = list(input_hooks) + hooks + list(spec.prediction_hooks or [])
            with MonitoredSession(session_creator=ChiefSessionCreator(
                    checkpoint_filename_with_path=checkpoint_path, master=self._config.master,
                    scaffold=spec.scaffold, config=self._session_config),
                    hooks=all_hooks) as mon_sess:
                while not mon_sess.should_stop():
                    preds_evaluated = mon_sess.run(predictions)
                    if not yield_single_examples:
                        yield preds_evaluated
                    elif not isinstance(predictions, dict):
                        yield from preds_evaluated
                    else:
                        for i in range(_extract_batch_length(preds_evaluated)):
                            yield {key: value[i] for key, value in preds_evaluated.items()}

    def export_saved_model(self, export_dir_base, serving_input_receiver_fn,
                           assets_extra=None, as_text=False, checkpoint_path=None,
                           experimental_mode=ModeKeys.PREDICT):
        """Exports the model as a SavedModel in a timestamped directory under
        `export_dir_base`, with the signatures of the `export_outputs` of the PREDICT mode
        (`serving_default` at least).

        Args:
          export_dir_base: the directory the timestamped export directory is made in.
          serving_input_receiver_fn: returns a `ServingInputReceiver` (or
            `TensorServingInputReceiver`).
          assets_extra: dict of destination path (relative to `assets.extra`) -> source.
          as_text: write `saved_model.pbtxt`.
          checkpoint_path: the checkpoint to export (default: the latest).
          experimental_mode: the mode whose graph is exported.

        Returns:
          The export directory (bytes, as TF returns it).

        Raises:
          ValueError: no `serving_input_receiver_fn`, or no checkpoint.
        """
        from flowloom.estimator import exporting

        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return exporting.export_all_saved_models(
            self, export_dir_base, {experimental_mode: serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path,
            strip_default_attrs=True)

    def experimental_export_all_saved_models(self, export_dir_base, input_receiver_fn_map,
                                             assets_extra=None, as_text=False,
                                             checkpoint_path=None):
        """Exports one MetaGraph per mode in `input_receiver_fn_map` (TRAIN/EVAL receivers
        are `SupervisedInputReceiver`s) into one SavedModel; returns its directory."""
        from flowloom.estimator import exporting

        return exporting.export_all_saved_models(
            self, export_dir_base, input_receiver_fn_map, assets_extra=assets_extra,
            as_text=as_text, checkpoint_path=checkpoint_path, strip_default_attrs=True)

    def export_savedmodel(self, export_dir_base, serving_input_receiver_fn, assets_extra=None,
                          as_text=False, checkpoint_path=None, strip_default_attrs=False):
        """The older name of `export_saved_model` (with `strip_default_attrs`)."""
        from flowloom.estimator import exporting

        if not serving_input_receiver_fn:
            raise ValueError("An input_receiver_fn must be defined.")
        return exporting.export_all_saved_models(
            self, export_dir_base, {ModeKeys.PREDICT: serving_input_receiver_fn},
            assets_extra=assets_extra, as_text=as_text, checkpoint_path=checkpoint_path,
            strip_default_attrs=strip_default_attrs)

    # -- building the graphs ------------------------------------------------------------------

    def _create_global_step(self, graph):
        from flowloom.train.training_util import create_global_step

        return create_global_step(graph)

    def _create_and_assert_global_step(self, graph):
        from flowloom.train.training_util import get_global_step

        step = self._create_global_step(graph)
        assert step is get_global_step()
        assert step.dtype.is_integer
        return step

    def _call_input_fn(self, input_fn, mode, input_context=None):
        from flowloom.framework.graph import device

        args = util.fn_args(input_fn)
        kwargs = {}
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = self.config
        if input_context and "input_context" in args:
            kwargs["input_context"] = input_context
        with device("/cpu:0"):
            return input_fn(**kwargs)

    def _get_features_and_labels_from_input_fn(self, input_fn, mode):
        return util.parse_input_fn_result(self._call_input_fn(input_fn, mode))

    def _get_features_from_input_fn(self, input_fn, mode):
        features, _, hooks = util.parse_input_fn_result(self._call_input_fn(input_fn, mode))
        if not _has_dataset_or_queue_runner(features):
            logging.warning("Input graph does not use tf.data.Dataset or contain a "
                            "QueueRunner. That means predict yields forever. "
                            "This is probably a mistake.")
        return features, hooks

    def _call_model_fn(self, features, labels, mode, config):
        args = util.fn_args(self._model_fn)
        kwargs = {}
        if "labels" in args:
            kwargs["labels"] = labels
        elif labels is not None:
            raise ValueError("model_fn does not take labels, but input_fn returns labels.")
        if "mode" in args:
            kwargs["mode"] = mode
        if "params" in args:
            kwargs["params"] = self.params
        if "config" in args:
            kwargs["config"] = config
        logging.info("Calling model_fn.")
        results = self._model_fn(features=features, **kwargs)
        logging.info("Done calling model_fn.")
        if not isinstance(results, EstimatorSpec):
            raise ValueError("model_fn should return an EstimatorSpec.")
        return results

    def _maybe_warm_start(self, checkpoint_path):
        if not checkpoint_path and self._warm_start_settings:
            from flowloom.estimator.warm_starting import warm_start

            logging.info("Warm-starting with WarmStartSettings: %s"
                         % (self._warm_start_settings,))
            warm_start(*self._warm_start_settings)

    def _train_model(self, input_fn, hooks, saving_listeners):
        from flowloom.estimator import training_loop

        return training_loop.train_model(self, input_fn, hooks, saving_listeners)

    def _evaluate_build_graph(self, input_fn, hooks=None, checkpoint_path=None):
        from flowloom.framework.graph import GraphKeys, get_default_graph
        from flowloom.ops.random.random_ops import set_random_seed
        from flowloom.train.training_util import get_global_step

        set_random_seed(self._config.tf_random_seed)
        self._create_and_assert_global_step(get_default_graph())
        features, labels, input_hooks = self._get_features_and_labels_from_input_fn(
            input_fn, ModeKeys.EVAL)
        spec = self._call_model_fn(features, labels, ModeKeys.EVAL, self.config)
        eval_metric_ops = _verify_and_create_loss_metric(spec.eval_metric_ops, spec.loss)
        update_op, eval_dict = _extract_metric_update_ops(eval_metric_ops)
        global_step_tensor = get_global_step(get_default_graph())
        self._maybe_warm_start(checkpoint_path)
        if GraphKeys.GLOBAL_STEP in eval_dict:
            raise ValueError("Metric with name `global_step` is not allowed, because "
                             "Estimator already defines a default metric with the same name.")
        eval_dict[GraphKeys.GLOBAL_STEP] = global_step_tensor
        all_hooks = list(input_hooks) + list(hooks) + list(spec.evaluation_hooks or [])
        scaffold = spec.scaffold
        if scaffold and scaffold.local_init_op:
            from flowloom.ops.control_flow.control_flow_ops import group
            from flowloom.train.evaluation import _get_or_create_eval_step
            from flowloom.train.scaffold import Scaffold

            _get_or_create_eval_step()
            scaffold = Scaffold(local_init_op=group(scaffold.local_init_op,
                                                    Scaffold.default_local_init_op()),
                                copy_from_scaffold=scaffold)
        return scaffold, update_op, eval_dict, all_hooks

    def _evaluate_run(self, checkpoint_path, scaffold, update_op, eval_dict, all_hooks,
                      output_dir):
        from flowloom.estimator.summaries import (write_checkpoint_path_to_summary,
                                                  write_dict_to_summary)
        from flowloom.train.evaluation import _evaluate_once

        eval_results = _evaluate_once(checkpoint_path=checkpoint_path,
                                      master=self._config.evaluation_master,
                                      scaffold=scaffold, eval_ops=update_op,
                                      final_ops=eval_dict, hooks=all_hooks,
                                      config=self._session_config)
        current_global_step = eval_results["global_step"]
        write_dict_to_summary(output_dir, eval_results, current_global_step)
        if checkpoint_path:
            write_checkpoint_path_to_summary(output_dir, checkpoint_path, current_global_step)
        return eval_results


_ALLOWED_OVERRIDES = {"model_fn", "_create_and_assert_global_step", "_export_all_saved_models"}


def _assert_members_are_not_overridden(cls, obj):
    """TF's rule: a subclass (a canned estimator) may not redefine Estimator's methods, but
    for `model_fn` and a few internals."""
    estimator_members = {m for m in dir(cls) if not m.startswith("__")}
    common = estimator_members & set(type(obj).__dict__) - _ALLOWED_OVERRIDES
    overridden = [m for m in common if getattr(cls, m) != getattr(type(obj), m)]
    if overridden:
        raise ValueError("Subclasses of Estimator cannot override members of Estimator. "
                         f"{type(obj)} does override {overridden}")


def maybe_overwrite_model_dir_and_session_config(config, model_dir):
    """The RunConfig an Estimator runs with: `config` (or a default one) with `model_dir`
    (or a new temporary directory) and a default session config filled in."""
    if config is None:
        config = run_config_lib.RunConfig()
        logging.info("Using default config.")
    if not isinstance(config, run_config_lib.RunConfig):
        raise ValueError(f"config must be an instance of `RunConfig`, but provided {config}.")
    if config.session_config is None:
        config = run_config_lib.RunConfig.replace(
            config, session_config=run_config_lib.get_default_session_config())
    model_dir = run_config_lib._path_to_str(model_dir)
    if model_dir is not None and config.model_dir is not None and config.model_dir != model_dir:
        raise ValueError(
            "`model_dir` are set both in constructor and `RunConfig`, but with different "
            f"values. In constructor: '{model_dir}', in `RunConfig`: '{config.model_dir}' ")
    if model_dir:
        config = run_config_lib.RunConfig.replace(config, model_dir=model_dir)
    elif config.model_dir is None:
        model_dir = tempfile.mkdtemp()
        logging.warning("Using temporary folder as model directory: %s", model_dir)
        config = run_config_lib.RunConfig.replace(config, model_dir=model_dir)
    return config


def _verify_model_fn_args(model_fn, params):
    args = set(util.fn_args(model_fn))
    if "features" not in args:
        raise ValueError(f"model_fn ({model_fn}) must include features argument.")
    if params is not None and "params" not in args:
        raise ValueError(f"model_fn ({model_fn}) does not include params argument, but "
                         f"params ({params}) is passed to Estimator.")
    if params is None and "params" in args:
        logging.warning("Estimator's model_fn (%s) includes params argument, but params are "
                        "not passed to Estimator.", model_fn)
    non_valid_args = list(args - _VALID_MODEL_FN_ARGS)
    if non_valid_args:
        raise ValueError(f"model_fn ({model_fn}) has following not expected args: "
                         f"{non_valid_args}")


def _check_checkpoint_available(model_dir):
    from flowloom.train.checkpoint_management import latest_checkpoint

    if not latest_checkpoint(model_dir):
        raise ValueError(f"Could not find trained model in model_dir: {model_dir}.")


def _load_global_step_from_checkpoint_dir(checkpoint_dir):
    from flowloom.train.checkpoint_management import latest_checkpoint
    from flowloom.train.checkpoint_utils import NewCheckpointReader

    try:
        reader = NewCheckpointReader(latest_checkpoint(checkpoint_dir))
        return reader.get_tensor("global_step")
    except Exception:  # noqa: BLE001 - TF's behaviour: any failure means "no step yet"
        return 0


def _extract_batch_length(preds_evaluated):
    batch_length = None
    for key, value in preds_evaluated.items():
        batch_length = batch_length or value.shape[0]
        if value.shape[0] != batch_length:
            raise ValueError("Batch length of predictions should be same. %s has different "
                             "batch length than others." % key)
    return batch_length


def _extract_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    existing_keys = predictions.keys()
    predictions = {key: value for key, value in predictions.items() if key in predict_keys}
    if not predictions:
        raise ValueError("Expected to run at least one output from %s, provided %s."
                         % (existing_keys, predict_keys))
    return predictions


def _verify_and_create_loss_metric(eval_metric_ops, loss):
    from flowloom.metrics.metrics_impl import mean

    if LOSS_METRIC_KEY in eval_metric_ops:
        raise ValueError(f'Metric with name "{LOSS_METRIC_KEY}" is not allowed, because '
                         "Estimator already defines a default metric with the same name.")
    eval_metric_ops[LOSS_METRIC_KEY] = mean(loss)
    return eval_metric_ops


def _extract_metric_update_ops(eval_dict):
    from flowloom.ops.control_flow.control_flow_ops import group

    update_ops, value_ops = [], {}
    for name, value in sorted(eval_dict.items()):
        value_ops[name] = value[0]
        update_ops.append(value[1])
    return (group(*update_ops) if update_ops else None), value_ops


def _has_dataset_or_queue_runner(maybe_tensor):
    from flowloom.framework import nest
    from flowloom.framework.graph import GraphKeys, get_default_graph
    from flowloom.framework.ops import Tensor

    tensors = [x for x in nest.flatten(maybe_tensor) if isinstance(x, Tensor)]
    if any(t.op.type == "IteratorGetNext" for t in tensors):
        return True
    return get_default_graph().get_collection(GraphKeys.QUEUE_RUNNERS)


__all__ = ["Estimator", "WarmStartSettings"]
