"""SavedModel programs written once for TensorFlow (when recording) and flowloom (in tests).

Each builder takes the `tf` module, builds a model with fixed weights in the default graph
and returns (inputs dict, outputs dict, assets collection, main_op or None, feed values).
"""

import numpy as np


def _weights(shape, seed):
    return np.random.RandomState(seed).standard_normal(shape).astype(np.float32) * 0.5


def mlp(tf):
    x = tf.placeholder(tf.float32, [None, 4], name="x")
    w1 = tf.Variable(_weights([4, 8], 1), name="dense/kernel")
    b1 = tf.Variable(_weights([8], 2), name="dense/bias")
    w2 = tf.Variable(_weights([8, 3], 3), name="logits/kernel")
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    probs = tf.nn.softmax(tf.matmul(h, w2), name="probs")
    classes = tf.argmax(probs, 1, name="classes")
    feed = {"x": _weights([5, 4], 4)}
    return {"x": x}, {"probs": probs, "classes": classes}, [], None, feed


def cnn(tf):
    x = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
    k = tf.Variable(_weights([3, 3, 1, 4], 5), name="conv/kernel")
    h = tf.nn.relu(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"))
    h = tf.nn.max_pool(h, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
    w = tf.Variable(_weights([4 * 4 * 4, 2], 6), name="fc/kernel")
    logits = tf.matmul(tf.reshape(h, [-1, 64]), w, name="logits")
    feed = {"images": _weights([3, 8, 8, 1], 7)}
    return {"images": x}, {"logits": logits}, [], None, feed


def with_assets(tf, vocab_path):
    """An asset file whose path the main op stores in a string variable at load time."""
    x = tf.placeholder(tf.float32, [None], name="x")
    scale = tf.Variable(np.float32(3.0), name="scale")
    asset = tf.constant(vocab_path, name="vocab_file")
    tf.add_to_collection(tf.GraphKeys.ASSET_FILEPATHS, asset)
    path_var = tf.Variable("", dtype=tf.string, name="vocab_path", trainable=False,
                           collections=[tf.GraphKeys.LOCAL_VARIABLES])
    main_op = tf.group(tf.assign(path_var, asset), name="init_assets")
    y = tf.multiply(x, scale, name="y")
    path_out = tf.identity(path_var, name="path")
    feed = {"x": np.arange(4, dtype=np.float32)}
    return {"x": x}, {"y": y, "path": path_out}, [asset], main_op, feed


PROGRAMS = {"mlp": mlp, "cnn": cnn, "with_assets": with_assets}


def build_and_save(tf, name, export_dir, vocab_path=None):
    """Builds program `name`, saves it with a Predict signature; returns outputs on feed."""
    fn = PROGRAMS[name]
    inputs, outputs, assets, main_op, feed = fn(tf, vocab_path) if name == "with_assets" \
        else fn(tf)
    sig = tf.saved_model.signature_def_utils.predict_signature_def(inputs, outputs)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        if main_op is not None:
            sess.run(tf.local_variables_initializer())
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        builder.add_meta_graph_and_variables(
            sess, [tf.saved_model.tag_constants.SERVING],
            signature_def_map={"serving_default": sig}, assets_collection=assets or None,
            main_op=main_op)
        builder.save()
        values = sess.run({k: v for k, v in outputs.items() if k != "path"},
                          {inputs[k]: v for k, v in feed.items()})
    return values, feed


def load_and_run(tf, export_dir, feed):
    """Loads `export_dir` (tag serve) and runs its serving signature on `feed`."""
    with tf.Session(graph=tf.Graph()) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING],
                                          export_dir)
        sig = meta.signature_def["serving_default"]
        fetches = {k: v.name for k, v in sig.outputs.items()}
        return sess.run(fetches, {sig.inputs[k].name: v for k, v in feed.items()})
