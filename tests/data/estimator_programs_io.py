"""tf.estimator programs about exports, receivers, exporters, train_and_evaluate and the
input functions (see estimator_programs.py, which lists them all)."""

import os
import shutil

import numpy as np

from estimator_program_common import (X, Y, _drain, _err, _events, _files,  # noqa: F401
                                      _input_fn, _Lines, _Listener, _model_fn, _r, _tmp,
                                      export_model_fn, namespace_names,
                                      resume_from_model_dir, serve, serving_receivers)


def prog_export(tf):
    md = _tmp()
    base = os.path.join(md, "export")
    est = tf.estimator.Estimator(export_model_fn(tf), model_dir=md)
    out = {"no_checkpoint": _err(lambda: est.export_saved_model(
        base, tf.estimator.export.build_raw_serving_input_receiver_fn(
            {"x": tf.placeholder(tf.float32, [None, 4])})))}
    est.train(_input_fn(tf), steps=4)
    receivers = serving_receivers(tf)
    raw = receivers["raw"]
    out["no_receiver"] = _err(lambda: est.export_saved_model(base, None))
    for name, fn in sorted(receivers.items()):
        path = est.export_saved_model(os.path.join(base, name), fn, assets_extra=None)
        out[name + "_path_type"] = type(path).__name__
        out[name + "_files"] = _files(path.decode() if isinstance(path, bytes) else path)
        out[name + "_dirs"] = [n.isdigit() for n in os.listdir(os.path.join(base, name))]
        out[name] = serve(tf, path, name)
    extra_src = os.path.join(md, "vocab.txt")
    with open(extra_src, "w") as f:
        f.write("a\nb\n")
    old = est.export_savedmodel(os.path.join(base, "old"), raw, as_text=True,
                                assets_extra={"sub/vocab.txt": extra_src})
    old = old.decode() if isinstance(old, bytes) else old
    out["old_files"] = _files(old)
    out["old_extra"] = _files(os.path.join(old, "assets.extra", "sub"))
    sup = tf.estimator.experimental.build_raw_supervised_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4])}, tf.placeholder(tf.int32, [None]))
    allm = est.experimental_export_all_saved_models(os.path.join(base, "all"), {
        tf.estimator.ModeKeys.TRAIN: sup, tf.estimator.ModeKeys.EVAL: sup,
        tf.estimator.ModeKeys.PREDICT: raw})
    for tag in ("train", "eval"):
        with tf.Session(graph=tf.Graph()) as sess:
            meta = tf.saved_model.loader.load(sess, [tag], allm)
            out[tag + "_sig"] = {k: [v.method_name, sorted(v.inputs), sorted(v.outputs)]
                                 for k, v in meta.signature_def.items()}
            out[tag + "_train_op"] = len(meta.collection_def["saved_model_train_op"]
                                         .node_list.value)
    shutil.rmtree(md)
    return out


def prog_numpy_input_fn(tf):
    inputs = tf.estimator.inputs
    ordered = _drain(tf, inputs.numpy_input_fn({"x": X, "b": X[:, :1]}, Y, batch_size=5,
                                               num_epochs=2, shuffle=False))
    out = {"ordered_sizes": [len(labels) for _, labels in ordered],
           "ordered_labels": [labels.tolist() for _, labels in ordered],
           "ordered_keys": sorted(ordered[0][0]),
           "ordered_b": [f["b"][:, 0].round(3).tolist() for f, _ in ordered]}
    shuffled = _drain(tf, inputs.numpy_input_fn({"x": X}, Y, batch_size=5, num_epochs=3,
                                                shuffle=True))
    out["shuffled_sizes"] = [len(labels) for _, labels in shuffled]
    out["shuffled_rows"] = sorted(np.concatenate([f["x"][:, 0] for f, _ in shuffled])
                                  .round(3).tolist())
    array = _drain(tf, inputs.numpy_input_fn(X, batch_size=7, shuffle=False))
    out["array_shapes"] = [list(a.shape) for a in array]
    ydict = _drain(tf, inputs.numpy_input_fn({"x": X}, {"l1": Y, "l2": Y * 2}, batch_size=12,
                                             shuffle=False))
    out["y_dict"] = {k: v.tolist() for k, v in sorted(ydict[0][1].items())}
    with tf.Graph().as_default():
        fn = inputs.numpy_input_fn({"x": X}, Y, batch_size=4, num_epochs=None, shuffle=False)
        features, labels = fn()
        out["static_shapes"] = [features["x"].get_shape().as_list(),
                                labels.get_shape().as_list()]
        out["queue_runners"] = len(tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS))
        out["summaries"] = sorted(s.op.name for s in tf.get_collection(tf.GraphKeys.SUMMARIES))
        with tf.train.MonitoredSession() as sess:
            out["forever"] = [sess.run(labels).tolist() for _ in range(4)]
    out["no_shuffle"] = _err(lambda: inputs.numpy_input_fn({"x": X}))
    out["empty"] = _err(lambda: inputs.numpy_input_fn({}, shuffle=False)())
    out["bad_x"] = _err(lambda: inputs.numpy_input_fn([1], shuffle=False)())
    out["dup"] = _err(lambda: inputs.numpy_input_fn({"x": X}, {"x": Y}, shuffle=False)())
    out["lengths"] = _err(lambda: inputs.numpy_input_fn({"x": X}, Y[:3], shuffle=False)())
    md = _tmp()
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=md, params={"units": 3})
    est.train(inputs.numpy_input_fn({"x": X}, Y, batch_size=4, num_epochs=None,
                                    shuffle=False), steps=9)
    metrics = est.evaluate(inputs.numpy_input_fn({"x": X}, Y, batch_size=5, shuffle=False))
    out["metrics"] = {k: _r(v) for k, v in metrics.items()}
    preds = list(est.predict(inputs.numpy_input_fn({"x": X}, batch_size=5, shuffle=False)))
    out["n_preds"] = len(preds)
    out["until_end"] = int(est.train(inputs.numpy_input_fn(
        {"x": X}, Y, batch_size=5, num_epochs=1, shuffle=False)).get_variable_value(
            "global_step"))
    shutil.rmtree(md)
    return out


def prog_pandas_input_fn(tf):
    import pandas as pd

    df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]}, index=np.arange(100, 112))
    y = pd.Series(Y, index=df.index)
    inputs = tf.estimator.inputs
    batches = _drain(tf, inputs.pandas_input_fn(df, y, batch_size=5, num_epochs=1,
                                                shuffle=False))
    out = {"sizes": [len(labels) for _, labels in batches],
           "keys": sorted(batches[0][0]),
           "a": [f["a"].round(3).tolist() for f, _ in batches],
           "labels": [labels.tolist() for _, labels in batches]}
    frame_y = _drain(tf, inputs.pandas_input_fn(df, pd.DataFrame({"l": Y, "a": Y * 2},
                                                                 index=df.index),
                                                batch_size=12, shuffle=False))
    out["frame_y"] = {k: v.tolist() for k, v in sorted(frame_y[0][1].items())}
    out["frame_y_features"] = sorted(frame_y[0][0])
    out["no_shuffle"] = _err(lambda: inputs.pandas_input_fn(df, y))
    taken = _err(lambda: inputs.pandas_input_fn(df.assign(target=1), y, shuffle=False))
    out["target_taken"] = [taken[0], taken[1].split(": Index")[0]]  # pandas prints dtypes
    out["index_mismatch"] = _err(lambda: inputs.pandas_input_fn(
        df, pd.Series(Y), shuffle=False))
    md = _tmp()
    est = tf.estimator.Estimator(_model_fn(tf), model_dir=md, params={"units": 3})
    feats = pd.DataFrame({"x0": X[:, 0]})

    def model_fn(features, labels, mode, params):
        features = {"x": tf.stack([features["x0"]] * 4, axis=1)}
        return _model_fn(tf)(features, labels, mode, params)
    est = tf.estimator.Estimator(model_fn, model_dir=md, params={"units": 3})
    est.train(inputs.pandas_input_fn(feats, pd.Series(Y), batch_size=4, num_epochs=None,
                                     shuffle=False), steps=6)
    metrics = est.evaluate(inputs.pandas_input_fn(feats, pd.Series(Y), batch_size=5,
                                                  shuffle=False))
    out["metrics"] = {k: _r(v) for k, v in metrics.items()}
    shutil.rmtree(md)
    return out


def prog_exporters_and_receivers(tf):
    md = _tmp()
    est = tf.estimator.Estimator(export_model_fn(tf), model_dir=md)
    raw = serving_receivers(tf)["raw"]
    best = tf.estimator.BestExporter(serving_input_receiver_fn=raw, exports_to_keep=1)
    out = {"best_name": best.name, "results": []}
    for steps in (2, 2, 2):
        est.train(_input_fn(tf), steps=steps)
        metrics = est.evaluate(_input_fn(tf, epochs=1))
        path = best.export(est, os.path.join(md, "export", "best"), est.latest_checkpoint(),
                           metrics, False)
        out["results"].append(path is not None)
    out["best_kept"] = len(os.listdir(os.path.join(md, "export", "best")))
    # A second exporter over the same model_dir starts from the best of the eval events.
    again = tf.estimator.BestExporter(serving_input_receiver_fn=raw)
    worse = dict(metrics, loss=metrics["loss"] + 1.0)
    out["worse_exported"] = again.export(est, os.path.join(md, "export", "b2"),
                                         est.latest_checkpoint(), worse, False) is not None

    def tensor_receiver():
        x = tf.placeholder(tf.float32, [None, 4], name="features")
        return tf.estimator.export.TensorServingInputReceiver(x, {"inputs": x})

    def tensor_model_fn(features, labels, mode):
        return export_model_fn(tf)({"x": features}, labels, mode)
    tensor_est = tf.estimator.Estimator(tensor_model_fn, model_dir=md)
    path = tensor_est.export_saved_model(os.path.join(md, "export", "tensor"), tensor_receiver)
    out["tensor"] = serve(tf, path, "raw")["signatures"]["serving_default"]

    def alternatives():
        x = tf.placeholder(tf.float32, [None, 4], name="x")
        examples = tf.placeholder(tf.string, [None], name="examples")
        return tf.estimator.export.ServingInputReceiver(
            {"x": x}, {"x": x}, receiver_tensors_alternatives={"by_example": {
                "examples": examples}, "other": x})
    path = est.export_saved_model(os.path.join(md, "export", "alt"), alternatives)
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        out["alt_signatures"] = {k: [v.method_name, sorted(v.inputs), sorted(v.outputs)]
                                 for k, v in sorted(meta.signature_def.items())}
    out["tensor_receiver_none"] = _err(
        lambda: tf.estimator.export.TensorServingInputReceiver(None, {}))
    out["alternatives_type"] = _err(lambda: tf.estimator.export.ServingInputReceiver(
        {"x": tf.constant([1.0])}, tf.constant([1.0]), receiver_tensors_alternatives=[1]))
    out["latest_keep"] = _err(lambda: tf.estimator.LatestExporter("l", raw, exports_to_keep=0))
    shutil.rmtree(md)
    return out


def prog_train_and_evaluate(tf):
    md = _tmp()
    config = tf.estimator.RunConfig(model_dir=md, save_checkpoints_steps=5)
    est = tf.estimator.Estimator(_model_fn(tf), config=config, params={"units": 3})
    raw = tf.estimator.export.build_raw_serving_input_receiver_fn(
        {"x": tf.placeholder(tf.float32, [None, 4], name="x")})
    train_spec = tf.estimator.TrainSpec(_input_fn(tf), max_steps=12)
    eval_spec = tf.estimator.EvalSpec(_input_fn(tf, epochs=1), steps=None, throttle_secs=0,
                                      exporters=[tf.estimator.FinalExporter("final", raw),
                                                 tf.estimator.LatestExporter("latest", raw,
                                                                             exports_to_keep=2)])
    with _Lines() as lines:
        metrics, exports = tf.estimator.train_and_evaluate(est, train_spec, eval_spec)
    keep = ("Running training", "Start train", "Skip", "Performing", "Saving dict",
            "Signatures INCLUDED in export for Predict", "Saving checkpoints", "No new",
            "Estimator is not")
    out = {"log": [line for line in lines.lines if any(k in line for k in keep)],
           "metrics": {k: _r(v) for k, v in metrics.items()},
           "n_exports": len(exports), "final_is_none": [e is None for e in exports],
           "export_dirs": _files(os.path.join(md, "export")),
           "n_latest": len(os.listdir(os.path.join(md, "export", "latest"))),
           "eval_steps": sorted(_events(tf, os.path.join(md, "eval"))["summaries"]),
           "files": _files(md)}
    out["bad_train_spec"] = _err(lambda: tf.estimator.TrainSpec(1))
    out["bad_max_steps"] = _err(lambda: tf.estimator.TrainSpec(_input_fn(tf), max_steps=0))
    out["bad_eval_steps"] = _err(lambda: tf.estimator.EvalSpec(_input_fn(tf), steps=0))
    out["bad_throttle"] = _err(lambda: tf.estimator.EvalSpec(_input_fn(tf), throttle_secs=-1))
    out["bad_exporters"] = _err(lambda: tf.estimator.EvalSpec(_input_fn(tf), exporters=[1]))
    out["dup_exporters"] = _err(lambda: tf.estimator.EvalSpec(_input_fn(tf), exporters=[
        tf.estimator.FinalExporter("a", raw), tf.estimator.FinalExporter("a", raw)]))
    out["bad_estimator"] = _err(lambda: tf.estimator.train_and_evaluate(1, train_spec,
                                                                        eval_spec))
    out["eval_spec_defaults"] = [tf.estimator.EvalSpec(_input_fn(tf)).steps,
                                 tf.estimator.EvalSpec(_input_fn(tf)).start_delay_secs,
                                 tf.estimator.EvalSpec(_input_fn(tf)).throttle_secs]
    shutil.rmtree(md)
    return out
