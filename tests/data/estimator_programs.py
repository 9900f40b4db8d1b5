"""tf.estimator programs that run unchanged on TensorFlow 1.15 and on flowloom.

Each `prog_*` takes the `tf` module and returns a JSON-able dict of what it observed: files in
model_dir, checkpoint state, metric keys and values, eval summary tags, exported signatures,
error classes and messages. The models start from constant initializers and read their data in
a fixed order, so losses and metrics are the same numbers on both (to float32 rounding).
`record_estimator.py` runs them on TF 1.15 (FLOWLOOM_TF1_PYTHON) into estimator_tf.json;
tests/estimator/test_against_tf.py runs them on flowloom. Written for Python 3.7 as well.

The helpers are in estimator_program_common.py; the export and input programs in
estimator_programs_io.py.
"""

import functools
import os
import re
import shutil

import numpy as np

from estimator_program_common import (X, Y, _drain, _err, _events, _files,  # noqa: F401
                                      _input_fn, _Lines, _Listener, _model_fn, _r, _tmp,
                                      export_model_fn, namespace_names,
                                      resume_from_model_dir, serve, serving_receivers)
from estimator_programs_io import (prog_export, prog_exporters_and_receivers,  # noqa: F401
                                   prog_numpy_input_fn, prog_pandas_input_fn,
                                   prog_train_and_evaluate)


def prog_train_evaluate_resume(tf):
    md = _tmp()
    config = tf.estimator.RunConfig(save_checkpoints_steps=10, keep_checkpoint_max=2,
                                    save_summary_steps=5, log_step_count_steps=10)
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=md, config=config,
                                 params={"units": 3})
    est.train(_input_fn(tf), steps=25)
    first = est.evaluate(_input_fn(tf, epochs=1))
    named = est.evaluate(_input_fn(tf, epochs=1), steps=2, name="short")
    est.train(_input_fn(tf), steps=7)
    after = est.evaluate(_input_fn(tf, epochs=1))
    est.train(_input_fn(tf), max_steps=20)  # already past: skipped
    with open(os.path.join(md, "checkpoint")) as f:
        state = f.read()
    out = {
        "files": _files(md), "eval_files": _files(os.path.join(md, "eval")),
        "eval_short_files": _files(os.path.join(md, "eval_short")),
        "checkpoint_state": state,
        "first": {k: _r(v) for k, v in first.items()},
        "named": {k: _r(v) for k, v in named.items()},
        "after": {k: _r(v) for k, v in after.items()},
        "latest": os.path.basename(est.latest_checkpoint()),
        "variables": est.get_variable_names(),
        "kernel": np.round(est.get_variable_value("dense/kernel"), 4).tolist(),
        "train_events": _events(tf, md),
        "eval_events": _events(tf, os.path.join(md, "eval")),
        "eval_dir": os.path.relpath(est.eval_dir("a"), md),
    }
    shutil.rmtree(md)
    return out


def prog_predict(tf):
    md = _tmp()
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=md, params={"units": 3})
    est.train(_input_fn(tf), steps=3)
    single = list(est.predict(_input_fn(tf, epochs=1, labels=False)))
    keys = list(est.predict(_input_fn(tf, epochs=1, labels=False),
                            predict_keys=["class_ids"]))
    batches = list(est.predict(_input_fn(tf, epochs=1, batch=5, labels=False),
                               yield_single_examples=False))
    tuple_input = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(
        ({"x": X}, Y)).batch(6)))
    # Python lists inside the features dict are values (the get_started programs' predict_x).
    list_input = list(est.predict(lambda: tf.data.Dataset.from_tensor_slices(
        {"x": X[:5].tolist()}).batch(2)))
    out = {
        "n_list_input": len(list_input),
        "list_probabilities": np.round(list_input[4]["probabilities"], 4).tolist(),
        "n_single": len(single), "single_keys": sorted(single[0]),
        "probabilities0": np.round(single[0]["probabilities"], 4).tolist(),
        "class_ids": [int(p["class_ids"]) for p in single],
        "keys_only": sorted(keys[0]), "n_batches": len(batches),
        "batch_shapes": [list(b["logits"].shape) for b in batches],
        "n_tuple_input": len(tuple_input),
        "bad_key": _err(lambda: list(est.predict(_input_fn(tf, epochs=1, labels=False),
                                                 predict_keys=["nope"]))),
    }
    shutil.rmtree(md)
    return out


def prog_model_fn_forms(tf):
    md = _tmp()
    out = {}

    def spec(features, mode):
        w = tf.get_variable("w", [4, 1], initializer=tf.zeros_initializer())
        pred = tf.matmul(features["x"], w)
        loss = tf.reduce_mean(tf.square(pred))
        train_op = tf.assign_add(tf.train.get_global_step(), 1)
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          predictions={"p": pred})

    def f_only(features):
        return spec(features, tf.estimator.ModeKeys.TRAIN)

    def f_labels_mode(features, labels, mode):
        return spec(features, mode)

    def f_all(features, labels, mode, params, config):
        out["params_seen"] = sorted(params)
        out["config_is_runconfig"] = type(config).__name__
        return spec(features, mode)

    class CallableModel(object):
        def __call__(self, features, labels, mode):
            return spec(features, mode)

    class MethodModel(object):
        def model_fn(self, features, labels, mode, params):
            return spec(features, mode)

    def with_extra(features, labels, mode, extra):
        return spec(features, mode)

    forms = {
        "labels_mode": (f_labels_mode, None),
        "all": (f_all, {"a": 1}),
        "callable": (CallableModel(), None),
        "method": (MethodModel().model_fn, {"b": 2}),
        "partial": (functools.partial(with_extra, extra=1), None),
    }
    for name, (fn, params) in forms.items():
        d = os.path.join(md, name)
        est = tf.estimator.Estimator(fn, model_dir=d, params=params)
        est.train(_input_fn(tf), steps=2)
        out[name] = int(est.get_variable_value("global_step"))
    seen = []

    def input_fn_all(params, mode, config):
        seen.append([sorted(params), mode, type(config).__name__])
        return _input_fn(tf)()
    est = tf.estimator.Estimator(forms["all"][0], model_dir=os.path.join(md, "inputs"),
                                 params={"p": 1})
    est.train(input_fn_all, steps=1)
    est.evaluate(input_fn_all, steps=1)
    out["input_fn_args"] = seen
    out["params_copied"] = est.params is not est.params
    out["public_model_fn_args"] = list(__import__("inspect").getfullargspec(est.model_fn).args)
    out["features_only_with_labels"] = _err(
        lambda: tf.estimator.Estimator(f_only, model_dir=os.path.join(md, "f")).train(
            _input_fn(tf), steps=1))
    out["no_features"] = _err(lambda: tf.estimator.Estimator(lambda x: None))
    out["unexpected_arg"] = _err(lambda: tf.estimator.Estimator(with_extra))
    out["params_not_taken"] = _err(lambda: tf.estimator.Estimator(f_labels_mode,
                                                                  params={"a": 1}))
    out["model_fn_none"] = _err(lambda: tf.estimator.Estimator(None))

    class Overrides(tf.estimator.Estimator):
        def train(self, input_fn, hooks=None, steps=None, max_steps=None,
                  saving_listeners=None):
            return self

    class Allowed(tf.estimator.Estimator):
        def _create_and_assert_global_step(self, graph):
            return tf.estimator.Estimator._create_and_assert_global_step(self, graph)
    out["override"] = _err(lambda: Overrides(f_labels_mode, model_dir=os.path.join(md, "o")))
    out["override"][1] = re.sub(r"<class '[^']*'>", "CLASS", out["override"][1])
    out["allowed_override"] = _err(lambda: Allowed(f_labels_mode, model_dir=os.path.join(
        md, "o")).train(_input_fn(tf), steps=1))
    out["not_a_spec"] = _err(lambda: tf.estimator.Estimator(
        lambda features, labels: None, model_dir=os.path.join(md, "n")).train(
            _input_fn(tf), steps=1))
    out["steps_and_max"] = _err(lambda: tf.estimator.Estimator(
        f_labels_mode, model_dir=os.path.join(md, "s")).train(_input_fn(tf), steps=1,
                                                                max_steps=2))
    out["steps_zero"] = _err(lambda: tf.estimator.Estimator(
        f_labels_mode, model_dir=os.path.join(md, "s")).train(_input_fn(tf), steps=0))
    out["no_checkpoint"] = _err(lambda: tf.estimator.Estimator(
        f_labels_mode, model_dir=os.path.join(md, "empty")).get_variable_names())
    out["bad_hook"] = _err(lambda: tf.estimator.Estimator(
        f_labels_mode, model_dir=os.path.join(md, "h")).train(_input_fn(tf), steps=1,
                                                                hooks=[1]))
    shutil.rmtree(md)
    return out


def prog_spec_errors(tf):
    out = {}
    with tf.Graph().as_default():
        x = tf.constant([[1.0, 2.0]])
        loss = tf.reduce_sum(x)
        train_op = tf.no_op()
        ModeKeys = tf.estimator.ModeKeys
        cases = {
            "missing_train_op": lambda: tf.estimator.EstimatorSpec(ModeKeys.TRAIN, loss=loss),
            "missing_loss": lambda: tf.estimator.EstimatorSpec(ModeKeys.EVAL),
            "missing_predictions": lambda: tf.estimator.EstimatorSpec(ModeKeys.PREDICT),
            "loss_not_scalar": lambda: tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=x[0]),
            "loss_not_tensor": lambda: tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=1.0),
            "train_op_type": lambda: tf.estimator.EstimatorSpec(ModeKeys.TRAIN, loss=loss,
                                                                train_op=1),
            "predictions_type": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.PREDICT, predictions={"a": 1}),
            "metric_not_tuple": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.EVAL, loss=loss, eval_metric_ops={"m": loss}),
            "metrics_not_dict": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.EVAL, loss=loss, eval_metric_ops=[1]),
            "hook_type": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.TRAIN, loss=loss, train_op=train_op, training_hooks=[1]),
            "scaffold_type": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.TRAIN, loss=loss, train_op=train_op, scaffold=1),
            "export_outputs_type": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.PREDICT, predictions={"a": x}, export_outputs={"a": 1}),
            "export_outputs_no_default": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.PREDICT, predictions={"a": x}, export_outputs={
                    "a": tf.estimator.export.PredictOutput(x),
                    "b": tf.estimator.export.PredictOutput(x)}),
            "replace_mode": lambda: tf.estimator.EstimatorSpec(
                ModeKeys.EVAL, loss=loss)._replace(mode=ModeKeys.TRAIN),
            "classification_scores": lambda: tf.estimator.export.ClassificationOutput(
                scores=tf.constant([1])),
            "classification_none": lambda: tf.estimator.export.ClassificationOutput(),
            "regression_int": lambda: tf.estimator.export.RegressionOutput(tf.constant([1])),
            "predict_output_value": lambda: tf.estimator.export.PredictOutput({"a": 1}),
            "receiver_key": lambda: tf.estimator.export.ServingInputReceiver({"a": x}, {1: x}),
            "receiver_value": lambda: tf.estimator.export.ServingInputReceiver({"a": 1}, x),
        }
        for name, fn in sorted(cases.items()):
            out[name] = _err(fn)
        reshaped = tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=tf.reshape(loss, [1, 1]))
        out["loss_reshaped"] = reshaped.loss.get_shape().as_list()
        pred = tf.estimator.EstimatorSpec(ModeKeys.PREDICT, predictions={"a": x})
        out["default_export_outputs"] = sorted(pred.export_outputs)
        single = tf.estimator.EstimatorSpec(ModeKeys.PREDICT, predictions=x, export_outputs={
            "mine": tf.estimator.export.RegressionOutput(x)})
        out["single_export_outputs"] = sorted(single.export_outputs)
        out["spec_fields"] = list(tf.estimator.EstimatorSpec._fields)
        eval_spec = tf.estimator.EstimatorSpec(ModeKeys.EVAL, loss=loss)
        out["eval_defaults"] = [eval_spec.predictions, eval_spec.eval_metric_ops,
                                list(eval_spec.training_hooks), eval_spec.export_outputs]
    with tf.Graph().as_default():
        other = tf.constant(1.0)
    with tf.Graph().as_default():
        out["other_graph"] = _err(lambda: tf.estimator.EstimatorSpec(
            tf.estimator.ModeKeys.EVAL, loss=other))
    return out


def prog_run_config(tf):
    c = tf.estimator.RunConfig()
    out = {"defaults": [c.model_dir, c.tf_random_seed, c.save_summary_steps,
                        c.save_checkpoints_steps, c.save_checkpoints_secs,
                        c.keep_checkpoint_max, c.keep_checkpoint_every_n_hours,
                        c.log_step_count_steps, c.is_chief, c.master, c.task_type,
                        c.task_id, c.num_ps_replicas, c.num_worker_replicas,
                        c.session_config is None]}
    r = c.replace(save_checkpoints_steps=7, tf_random_seed=3)
    out["replaced"] = [r.save_checkpoints_steps, r.save_checkpoints_secs, r.tf_random_seed,
                       c.save_checkpoints_steps]
    out["replace_secs"] = r.replace(save_checkpoints_secs=5).save_checkpoints_steps
    out["modes"] = [tf.estimator.ModeKeys.TRAIN, tf.estimator.ModeKeys.EVAL,
                    tf.estimator.ModeKeys.PREDICT]
    out["both"] = _err(lambda: tf.estimator.RunConfig(save_checkpoints_steps=1,
                                                      save_checkpoints_secs=1))
    out["replace_bad"] = _err(lambda: c.replace(master="x"))
    out["bad_seed"] = _err(lambda: tf.estimator.RunConfig(tf_random_seed=1.5))
    out["bad_steps"] = _err(lambda: tf.estimator.RunConfig(save_summary_steps=-1))
    out["empty_model_dir"] = _err(lambda: tf.estimator.RunConfig(model_dir=""))
    out["bad_log_steps"] = _err(lambda: tf.estimator.RunConfig(log_step_count_steps=0))
    out["bad_session_config"] = _err(lambda: tf.estimator.RunConfig(session_config=1))
    md = _tmp()
    est = tf.estimator.Estimator(_model_fn(tf), config=tf.estimator.RunConfig(model_dir=md),
                                 params={})
    out["session_config_filled"] = [est.config.session_config.allow_soft_placement,
                                    est.model_dir == md]
    out["conflict"] = _err(lambda: tf.estimator.Estimator(
        _model_fn(tf), model_dir=md + "x", config=tf.estimator.RunConfig(model_dir=md)))
    out["not_config"] = _err(lambda: tf.estimator.Estimator(_model_fn(tf), config=1))
    tmp_est = tf.estimator.Estimator(_model_fn(tf), params={})
    out["temp_model_dir"] = os.path.isdir(tmp_est.model_dir)
    out["ws_empty"] = _err(lambda: tf.estimator.WarmStartSettings(""))
    ws = tf.estimator.WarmStartSettings("/a")
    out["ws_defaults"] = [ws.vars_to_warm_start, ws.var_name_to_vocab_info,
                          ws.var_name_to_prev_var_name]
    shutil.rmtree(md)
    shutil.rmtree(tmp_est.model_dir)
    return out


def prog_early_stopping_and_extenders(tf):
    md = _tmp()
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=md, params={"units": 3})
    est.train(_input_fn(tf), steps=2)
    est.evaluate(_input_fn(tf, epochs=1))
    est.train(_input_fn(tf), steps=2)
    est.evaluate(_input_fn(tf, epochs=1))
    exp = tf.estimator.experimental
    out = {}

    def fresh(name, hook_fn, steps):
        # The stop variable must be there from the first step (a checkpoint without it does
        # not restore), so each early-stopping run starts a model_dir of its own.
        other = tf.estimator.Estimator(_model_fn(tf), model_dir=os.path.join(md, name),
                                       params={"units": 3})
        with _Lines() as lines:
            other.train(_input_fn(tf), steps=steps, hooks=[hook_fn(other)])
        return [int(other.get_variable_value("global_step")),
                "signal_early_stopping/STOP" in other.get_variable_names(),
                [line for line in lines.lines if "early stopping" in line]]
    out["lower"] = fresh("lower", lambda e: exp.stop_if_lower_hook(
        e, "loss", 10.0, eval_dir=est.eval_dir(), run_every_secs=None, run_every_steps=1), 50)
    out["higher_never"] = fresh("higher", lambda e: exp.stop_if_higher_hook(
        e, "accuracy", 2.0, eval_dir=est.eval_dir(), run_every_secs=None,
        run_every_steps=1), 3)
    out["no_decrease"] = fresh("nodec", lambda e: exp.stop_if_no_decrease_hook(
        e, "loss", 1, eval_dir=est.eval_dir(), run_every_secs=None, run_every_steps=2), 9)
    out["no_increase_min"] = fresh("noinc", lambda e: exp.stop_if_no_increase_hook(
        e, "accuracy", 1, eval_dir=est.eval_dir(), min_steps=3, run_every_secs=None,
        run_every_steps=1), 4)
    out["both_every"] = _err(lambda: exp.make_early_stopping_hook(est, lambda: False,
                                                                  run_every_secs=1,
                                                                  run_every_steps=1))
    out["not_estimator"] = _err(lambda: exp.make_early_stopping_hook(1, lambda: False))
    out["stop_at_step"] = type(exp.make_stop_at_checkpoint_step_hook(est, 5)).__name__

    def metric_fn(labels, predictions, features):
        return {"mean_label": tf.metrics.mean(tf.cast(labels, tf.float32))}
    more = tf.estimator.add_metrics(est, metric_fn)
    out["added"] = {k: _r(v) for k, v in more.evaluate(_input_fn(tf, epochs=1)).items()}
    out["same_dir"] = more.model_dir == est.model_dir
    out["bad_metric_fn"] = _err(lambda: tf.estimator.add_metrics(est, lambda mode: {}))
    shutil.rmtree(md)
    return out


def prog_warm_start(tf):
    md = _tmp()
    first = tf.estimator.Estimator(_model_fn(tf), model_dir=os.path.join(md, "a"),
                                   params={"units": 3})
    first.train(_input_fn(tf), steps=6)
    ws = tf.estimator.WarmStartSettings(os.path.join(md, "a"), vars_to_warm_start="dense/.*")
    second = tf.estimator.Estimator(_model_fn(tf), model_dir=os.path.join(md, "b"),
                                    params={"units": 3}, warm_start_from=ws)
    second.train(_input_fn(tf), steps=1)
    third = tf.estimator.Estimator(_model_fn(tf), model_dir=os.path.join(md, "c"),
                                   params={"units": 3}, warm_start_from=os.path.join(md, "a"))
    m = third.evaluate(_input_fn(tf, epochs=1))
    export = first.export_saved_model(os.path.join(md, "export"), serving_receivers(tf)[
        "raw"]).decode()
    fourth = tf.estimator.Estimator(_model_fn(tf), model_dir=os.path.join(md, "d"),
                                    params={"units": 3}, warm_start_from=export)
    fourth.train(_input_fn(tf), steps=1)
    out = {
        "from_saved_model": np.round(fourth.get_variable_value("dense/bias"), 4).tolist(),
        "from_saved_model_step": int(fourth.get_variable_value("global_step")),
        "a_bias": np.round(first.get_variable_value("dense/bias"), 4).tolist(),
        "a_kernel": np.round(first.get_variable_value("dense/kernel"), 4).tolist(),
        "b_kernel_step": int(second.get_variable_value("global_step")),
        "b_kernel": np.round(second.get_variable_value("dense/kernel"), 4).tolist(),
        "b_out_kernel": np.round(second.get_variable_value("dense_1/kernel"), 4).tolist(),
        "c_eval": {k: _r(v) for k, v in m.items()},
        "bad_type": _err(lambda: tf.estimator.Estimator(_model_fn(tf), params={},
                                                        warm_start_from=1)),
    }
    shutil.rmtree(md)
    return out


def prog_hooks_and_logs(tf):
    md = _tmp()
    calls = []

    class Hook(tf.train.SessionRunHook):
        def __init__(self, name):
            self.name = name

        def begin(self):
            calls.append(self.name + " begin")

        def after_create_session(self, session, coord):
            calls.append(self.name + " after_create_session")

        def end(self, session):
            calls.append(self.name + " end")

    def model_fn(features, labels, mode, params):
        spec = _model_fn(tf)(features, labels, mode, params)
        return spec._replace(training_hooks=[Hook("training")],
                             training_chief_hooks=[Hook("chief")],
                             evaluation_hooks=[Hook("evaluation")],
                             prediction_hooks=[Hook("prediction")])

    config = tf.estimator.RunConfig(save_checkpoints_steps=4, log_step_count_steps=3)
    est = tf.estimator.Estimator(model_fn, model_dir=md, config=config, params={"units": 3})
    with _Lines() as train_log:
        est.train(_input_fn(tf), steps=9, hooks=[Hook("train_arg")],
                  saving_listeners=[_Listener(tf, calls).listener])
    with _Lines() as eval_log:
        first = est.evaluate(_input_fn(tf, epochs=1), hooks=[Hook("eval_arg")],
                             checkpoint_path=os.path.join(md, "model.ckpt-4"))
    with _Lines() as predict_log:
        n = len(list(est.predict(_input_fn(tf, epochs=1, labels=False),
                                 checkpoint_path=os.path.join(md, "model.ckpt-8"))))
    with _Lines() as export_log:
        est.export_saved_model(os.path.join(md, "export"), serving_receivers(tf)["raw"])
    no_saver = tf.estimator.Estimator(model_fn, model_dir=os.path.join(md, "n"), params={},
                                      config=tf.estimator.RunConfig(save_checkpoints_secs=None))
    out = {
        "calls": calls, "train_log": train_log.lines, "eval_log": eval_log.lines,
        "predict_log": predict_log.lines, "export_log": export_log.lines,
        "old_checkpoint_step": int(first["global_step"]),
        "n_predictions": n,
        "no_saver_listener": _err(lambda: no_saver.train(
            _input_fn(tf), steps=1, saving_listeners=[_Listener(tf, []).listener])),
        "no_saver_files": _files(os.path.join(md, "n")) if os.path.isdir(
            os.path.join(md, "n")) else None,
    }
    no_saver.train(_input_fn(tf), steps=2)
    out["no_saver_files_after"] = _files(os.path.join(md, "n"))

    def bad_metric(features, labels, mode):
        loss = tf.reduce_mean(tf.cast(labels, tf.float32) * tf.reduce_sum(features["x"]))
        name = "global_step" if mode == tf.estimator.ModeKeys.EVAL else "loss"
        return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops={
            name: tf.metrics.mean(loss)}, train_op=tf.assign_add(
                tf.train.get_global_step(), 1))
    bad = tf.estimator.Estimator(bad_metric, model_dir=os.path.join(md, "bad"))
    out["metric_global_step"] = _err(lambda: bad.evaluate(_input_fn(tf, epochs=1)))
    shutil.rmtree(md)
    return out


# Programs that need pandas (optional): the test skips them where it is not installed.
PANDAS_PROGRAMS = [prog_pandas_input_fn]

PROGRAMS = [prog_train_evaluate_resume, prog_predict, prog_model_fn_forms, prog_spec_errors,
            prog_run_config, prog_export, prog_train_and_evaluate, prog_warm_start,
            prog_numpy_input_fn, prog_hooks_and_logs, prog_exporters_and_receivers,
            prog_early_stopping_and_extenders]
