"""Helpers of the tf.estimator programs (estimator_programs.py): the data, the models, the
receivers, and readers of model_dir files, event files and log lines. Written for Python 3.7
(the TF 1.15 interpreter) as well."""

import os
import re
import shutil
import tempfile

import numpy as np

X = ((np.arange(48, dtype=np.float32).reshape(12, 4) * 5 % 11) - 5.2) / 4.0
Y = (X[:, 0] + X[:, 1] > 0).astype(np.int32)


def _tmp():
    return tempfile.mkdtemp(prefix="est_")


def _files(d):
    """Names in `d`, event files' host and time replaced, sorted."""
    out = []
    for name in sorted(os.listdir(d)):
        name = re.sub(r"events\.out\.tfevents\.[^/]*", "events.out.tfevents.*", name)
        if os.path.isdir(os.path.join(d, name)):
            name += "/"
        out.append(name)
    return sorted(out)


def _events(tf, d):
    """{step: sorted tags} of the summaries in the event files of `d`, plus the other
    events' kinds."""
    summaries, kinds = {}, set()
    for name in sorted(os.listdir(d)):
        if "tfevents" not in name:
            continue
        for ev in tf.train.summary_iterator(os.path.join(d, name)):
            kind = ev.WhichOneof("what")
            kinds.add(kind)
            if kind == "summary":
                tags = summaries.setdefault(str(ev.step), [])
                tags.extend(v.tag for v in ev.summary.value)
    return {"summaries": {k: sorted(v) for k, v in summaries.items()}, "kinds": sorted(kinds)}


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        return [type(e).__name__, str(e).split("\n")[0]]
    return None


def _r(x):
    """A metric value as a rounded float (or int)."""
    if isinstance(x, (np.integer, int)):
        return int(x)
    return round(float(x), 4)


def _input_fn(tf, epochs=None, batch=4, labels=True):
    def input_fn():
        data = ({"x": X}, Y) if labels else {"x": X}
        return tf.data.Dataset.from_tensor_slices(data).repeat(epochs).batch(batch)
    return input_fn


def _model_fn(tf):
    def model_fn(features, labels, mode, params):
        init = tf.constant_initializer(0.1)
        net = tf.layers.dense(features["x"], params.get("units", 3), activation=tf.nn.relu,
                              kernel_initializer=init)
        logits = tf.layers.dense(net, 2, kernel_initializer=tf.constant_initializer(
            [[0.2, -0.1]] * params.get("units", 3)))
        classes = tf.argmax(logits, 1)
        if mode == tf.estimator.ModeKeys.PREDICT:
            return tf.estimator.EstimatorSpec(mode, predictions={
                "class_ids": classes, "probabilities": tf.nn.softmax(logits),
                "logits": logits})
        loss = tf.losses.sparse_softmax_cross_entropy(labels=labels, logits=logits)
        metrics = {"accuracy": tf.metrics.accuracy(labels=labels, predictions=classes,
                                                   name="acc_op")}
        tf.summary.scalar("accuracy", metrics["accuracy"][1])
        if mode == tf.estimator.ModeKeys.EVAL:
            return tf.estimator.EstimatorSpec(mode, loss=loss, eval_metric_ops=metrics)
        train_op = tf.train.GradientDescentOptimizer(0.5).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op)
    return model_fn


def export_model_fn(tf):
    """A linear model whose PREDICT graph exports predict, classify and regress outputs."""
    def model_fn(features, labels, mode):
        w = tf.get_variable("w", [4, 2], initializer=tf.constant_initializer(0.25))
        logits = tf.matmul(features["x"], w)
        probs = tf.nn.softmax(logits)
        if mode == tf.estimator.ModeKeys.PREDICT:
            classes = tf.gather(tf.constant(["neg", "pos"]), tf.argmax(logits, 1))
            return tf.estimator.EstimatorSpec(mode, predictions={"probs": probs}, export_outputs={
                "serving_default": tf.estimator.export.PredictOutput({"probs": probs}),
                "classify": tf.estimator.export.ClassificationOutput(scores=probs,
                                                                     classes=classes),
                "regress": tf.estimator.export.RegressionOutput(probs[:, 0])})
        loss = tf.losses.sparse_softmax_cross_entropy(labels, logits)
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(
            loss, global_step=tf.train.get_global_step())
        return tf.estimator.EstimatorSpec(mode, loss=loss, train_op=train_op,
                                          eval_metric_ops={"mean_p": tf.metrics.mean(probs)})
    return model_fn


def serving_receivers(tf):
    return {"raw": tf.estimator.export.build_raw_serving_input_receiver_fn(
                {"x": tf.placeholder(tf.float32, [None, 4], name="x")}),
            "parsing": tf.estimator.export.build_parsing_serving_input_receiver_fn(
                {"x": tf.FixedLenFeature([4], tf.float32)})}


def _examples(tf, rows):
    return [tf.train.Example(features=tf.train.Features(feature={"x": tf.train.Feature(
        float_list=tf.train.FloatList(value=row))})).SerializeToString() for row in rows]


def serve(tf, path, kind):
    """Loads the SavedModel at `path`; its signatures and what each serves for X[:3]."""
    out = {}
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, ["serve"], path)
        out["tags"] = list(meta.meta_info_def.tags)
        sigs = {}
        for key, sig in sorted(meta.signature_def.items()):
            sigs[key] = {
                "method": sig.method_name,
                "inputs": {k: [v.name, v.dtype, [d.size for d in v.tensor_shape.dim]]
                           for k, v in sig.inputs.items()},
                "outputs": {k: [v.dtype, [d.size for d in v.tensor_shape.dim]]
                            for k, v in sig.outputs.items()}}
            if kind == "raw" and key != "serving_default":
                continue  # classify/regress take Examples; the raw receiver has none
            name = list(sig.inputs.values())[0].name
            feed = {name: X[:3] if kind == "raw" else _examples(tf, X[:3])}
            values = sess.run({k: v.name for k, v in sig.outputs.items()}, feed)
            sigs[key]["values"] = {
                k: (np.char.decode(v.astype(bytes)).tolist() if v.dtype.kind in "SO"
                    else np.round(v, 4).tolist()) for k, v in sorted(values.items())}
        out["signatures"] = sigs
    return out


def resume_from_model_dir(tf, md, copy_to=None):
    """Evaluates the export model's latest checkpoint in `md`, trains 3 more steps, evaluates
    again. With `copy_to`, first copies the checkpoint files (state + latest bundle) there
    and works on the copy (what the recorder commits)."""
    if copy_to:
        latest = os.path.basename(tf.train.latest_checkpoint(md))
        os.makedirs(copy_to)
        for name in os.listdir(md):
            if name.startswith(latest + ".") and not name.endswith(".meta"):
                shutil.copy(os.path.join(md, name), copy_to)
        with open(os.path.join(copy_to, "checkpoint"), "w") as f:
            f.write('model_checkpoint_path: "%s"\nall_model_checkpoint_paths: "%s"\n'
                    % (latest, latest))
    work = _tmp()
    shutil.rmtree(work)
    shutil.copytree(copy_to or md, work)
    est = tf.estimator.Estimator(export_model_fn(tf), model_dir=work)
    out = {"eval": {k: _r(v) for k, v in est.evaluate(_input_fn(tf, epochs=1)).items()}}
    est.train(_input_fn(tf), steps=3)
    out["eval_after"] = {k: _r(v) for k, v in est.evaluate(_input_fn(tf, epochs=1)).items()}
    out["w"] = np.round(est.get_variable_value("w"), 4).tolist()
    shutil.rmtree(work)
    return out


def _drain(tf, input_fn):
    """Runs `input_fn`'s output with queue runners until the input ends."""
    out = []
    with tf.Graph().as_default():
        result = input_fn()
        with tf.train.MonitoredSession() as sess:
            while not sess.should_stop():
                out.append(sess.run(result))
    return out


class _Lines(object):
    """Collects the messages logged on the "tensorflow" logger, numbers and paths masked."""

    def __enter__(self):
        import logging

        self.lines = []
        lines = self.lines

        class Handler(logging.Handler):
            def emit(self, record):
                msg = record.getMessage()
                msg = re.sub(r"/tmp\S*", "PATH", msg)
                msg = re.sub(r"\d{4}-\d\d-\d\d[T-][\d:]+Z?", "TIME", msg)
                msg = re.sub(r"-?\d+(\.\d+)?(e[-+]?\d+)?", "N", msg)
                if "global_step/sec" in msg or "It seems that global step" in msg:
                    return  # timing-dependent
                if "deprecated" in msg:
                    return  # TF's deprecation notices
                if msg.startswith("Using config") or msg.startswith("Loss for final step"):
                    msg = msg.split(":")[0]
                lines.append("%s %s" % (record.levelname[0], msg))

        self._handler = Handler()
        self._logger = logging.getLogger("tensorflow")
        self._level = self._logger.level
        self._logger.setLevel(logging.INFO)
        self._logger.addHandler(self._handler)
        return self

    def __exit__(self, *exc):
        self._logger.removeHandler(self._handler)
        self._logger.setLevel(self._level)


class _Listener(object):
    """Records the listener calls a CheckpointSaverHook makes."""

    def __init__(self, tf, calls):
        class Listener(tf.train.CheckpointSaverListener):
            def begin(self):
                calls.append("begin")

            def before_save(self, session, global_step_value):
                calls.append("before_save %d" % global_step_value)

            def after_save(self, session, global_step_value):
                calls.append("after_save %d" % global_step_value)

            def end(self, session, global_step_value):
                calls.append("end %d" % global_step_value)
        self.listener = Listener()


def namespace_names(tf):
    """The public names of tf.estimator and its sub-namespaces."""
    out = {}
    for mod in ("estimator", "estimator.export", "estimator.inputs", "estimator.experimental"):
        m = tf
        for part in mod.split("."):
            m = getattr(m, part)
        out[mod] = sorted(n for n in dir(m) if not n.startswith("_"))
    return out
