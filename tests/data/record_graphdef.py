"""Records what real TensorFlow writes for graphs and checkpoints (run with a TF install).

  "$FLOWLOOM_TF_PYTHON" tests/data/record_graphdef.py

Writes under tests/data/graphdef/:
  <prog>.pbtxt          as_graph_def(add_shapes=True) of each graphdef_programs program
  saver_def.pbtxt, saver_sharded_def.pbtxt
                        the SaverDefs of the prog_saver* Savers
  frozen_mlp.pb, frozen_cnn.pb, frozen_io.npz
                        frozen graphs (convert_variables_to_constants) with inputs and TF's
                        outputs
  frozen_loop.pb, frozen_loop_io.npz
                        a frozen while_loop recurrence over TensorArrays, inputs, outputs
  tf_ckpt/              a tf.train.Saver V2 checkpoint (two steps, max_to_keep=1, relative
                        paths) of graphdef_programs.checkpoint_values, with its .meta
  tf_ckpt_sharded/      prog_saver_sharded's variables from a sharded Saver
  tf_train/             a model TF trained 3 steps (checkpoint + meta graph with optimizer
                        ops) and the weights after 2 more steps
  errors.json           error classes and messages of import_graph_def misuse
  import_semantics.json import_graph_def and _output_shapes / outer control dependencies
"""

import json
import os
import shutil
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
import numpy as np
import tensorflow.compat.v1 as tf

tf.disable_v2_behavior()
HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "graphdef")
sys.path.insert(0, HERE)
import graphdef_programs


def graph_defs():
    for prog in graphdef_programs.PROGRAMS:
        g = prog(tf)
        name = prog.__name__[len("prog_"):]
        with open(os.path.join(OUT, name + ".pbtxt"), "w") as f:
            f.write(str(g.as_graph_def(add_shapes=True)))
        if name.startswith("saver"):
            with open(os.path.join(OUT, name + "_def.pbtxt"), "w") as f:
                f.write(str(g.saver_for_test.as_saver_def()))


def _freeze(sess, graph, outputs, path):
    frozen = tf.graph_util.convert_variables_to_constants(sess, graph.as_graph_def(), outputs)
    with open(path, "wb") as f:
        f.write(frozen.SerializeToString(deterministic=True))


def frozen_graphs():
    rng = np.random.RandomState(1)
    io = {}
    with tf.Graph().as_default() as g, tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 6], name="input")
        w1 = tf.Variable(rng.randn(6, 10).astype(np.float32), name="dense1/kernel")
        b1 = tf.Variable(rng.randn(10).astype(np.float32), name="dense1/bias")
        w2 = tf.Variable(rng.randn(10, 3).astype(np.float32), name="dense2/kernel")
        b2 = tf.Variable(rng.randn(3).astype(np.float32), name="dense2/bias")
        h = tf.nn.relu(tf.nn.bias_add(tf.matmul(x, w1), b1))
        logits = tf.add(tf.matmul(h, w2), b2, name="logits")
        tf.identity(logits, name="output")
        sess.run(tf.global_variables_initializer())
        _freeze(sess, g, ["output"], os.path.join(OUT, "frozen_mlp.pb"))
        xin = rng.randn(5, 6).astype(np.float32)
        io["mlp_input"] = xin
        io["mlp_output"] = sess.run("output:0", {x: xin})
    with tf.Graph().as_default() as g, tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 8, 8, 2], name="image")
        k = tf.Variable(rng.randn(3, 3, 2, 4).astype(np.float32), name="conv/kernel")
        kb = tf.Variable(rng.randn(4).astype(np.float32), name="conv/bias")
        w = tf.Variable(rng.randn(64, 5).astype(np.float32) / 8, name="fc/kernel")
        wb = tf.Variable(rng.randn(5).astype(np.float32), name="fc/bias")
        c = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(x, k, [1, 1, 1, 1], "SAME"), kb))
        p = tf.nn.max_pool(c, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")
        flat = tf.reshape(p, [-1, 64])
        logits = tf.matmul(flat, w) + wb
        tf.nn.softmax(logits, name="probabilities")
        sess.run(tf.global_variables_initializer())
        _freeze(sess, g, ["probabilities"], os.path.join(OUT, "frozen_cnn.pb"))
        xin = rng.randn(3, 8, 8, 2).astype(np.float32)
        io["cnn_input"] = xin
        io["cnn_output"] = sess.run("probabilities:0", {x: xin})
    np.savez(os.path.join(OUT, "frozen_io.npz"), **io)


def frozen_loop():
    """A frozen recurrence (while_loop over a TensorArray, as dynamic_rnn builds it)."""
    rng = np.random.RandomState(2)
    with tf.Graph().as_default() as g, tf.Session() as sess:
        seq = tf.placeholder(tf.float32, [5, None, 3], name="sequence")
        w = tf.Variable(rng.randn(3, 4).astype(np.float32), name="w")
        u = tf.Variable(rng.randn(4, 4).astype(np.float32) / 2, name="u")
        inputs = tf.TensorArray(tf.float32, size=5).unstack(seq)
        outputs = tf.TensorArray(tf.float32, size=5)

        def body(t, h, out):
            h = tf.tanh(tf.matmul(inputs.read(t), w) + tf.matmul(h, u))
            return t + 1, h, out.write(t, h)

        h0 = tf.zeros(tf.stack([tf.shape(seq)[1], 4]))
        _, h_last, out = tf.while_loop(lambda t, h, o: t < 5, body, [0, h0, outputs])
        tf.identity(h_last, name="last")
        tf.identity(out.stack(), name="all")
        sess.run(tf.global_variables_initializer())
        _freeze(sess, g, ["last", "all"], os.path.join(OUT, "frozen_loop.pb"))
        xin = rng.randn(5, 2, 3).astype(np.float32)
        last, every = sess.run(["last:0", "all:0"], {seq: xin})
    np.savez(os.path.join(OUT, "frozen_loop_io.npz"), input=xin, last=last, all=every)


def checkpoint():
    directory = os.path.join(OUT, "tf_ckpt")
    shutil.rmtree(directory, ignore_errors=True)
    values = graphdef_programs.checkpoint_values()
    with tf.Graph().as_default(), tf.Session() as sess:
        variables = graphdef_programs.build_checkpoint_graph(tf)
        sess.run(tf.global_variables_initializer())
        saver = tf.train.Saver(max_to_keep=1, save_relative_paths=True)
        saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=1)
        for name, var in variables.items():
            var.load(values[name], sess)
        saver.save(sess, os.path.join(directory, "model.ckpt"), global_step=42)


def sharded_checkpoint():
    """prog_saver_sharded's variables saved by a sharded Saver (one device, one shard)."""
    directory = os.path.join(OUT, "tf_ckpt_sharded")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    g = graphdef_programs.prog_saver_sharded(tf)
    with g.as_default(), tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        g.saver_for_test.save(sess, os.path.join(directory, "model.ckpt"), global_step=5,
                              write_meta_graph=False, write_state=False)


def training_meta_graph():
    """A model trained 3 steps by TF (optimizer ops included), saved with its meta graph, and
    the weights TF reaches after 2 more steps from there: flowloom resumes the training."""
    directory = os.path.join(OUT, "tf_train")
    shutil.rmtree(directory, ignore_errors=True)
    rng = np.random.RandomState(3)
    xs = rng.randn(8, 3).astype(np.float32)
    ys = rng.randn(8, 1).astype(np.float32)
    with tf.Graph().as_default(), tf.Session() as sess:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        y = tf.placeholder(tf.float32, [None, 1], name="y")
        w = tf.Variable(rng.randn(3, 1).astype(np.float32), name="w")
        b = tf.Variable(np.zeros(1, np.float32), name="b")
        loss = tf.reduce_mean(tf.square(tf.matmul(x, w) + b - y), name="loss")
        step = tf.train.get_or_create_global_step()
        train_op = tf.train.GradientDescentOptimizer(0.1).minimize(loss, global_step=step)
        tf.add_to_collection("train_op", train_op)
        tf.add_to_collection("loss", loss)
        sess.run(tf.global_variables_initializer())
        for _ in range(3):
            sess.run(train_op, {x: xs, y: ys})
        tf.train.Saver().save(sess, os.path.join(directory, "model.ckpt"), global_step=step,
                              write_state=False)
        losses = [sess.run([train_op, loss], {x: xs, y: ys})[1] for _ in range(2)]
        final = {"w": sess.run(w), "b": sess.run(b), "losses": np.array(losses),
                 "xs": xs, "ys": ys}
    np.savez(os.path.join(directory, "expected.npz"), **final)


def errors():
    out = {}

    def record(key, fn):
        try:
            fn()
        except Exception as e:  # noqa: BLE001 - class and message are recorded
            out[key] = [type(e).__name__, str(e)]
        else:
            out[key] = None

    def unknown_op():
        gd = tf.GraphDef()
        gd.node.add(name="n", op="NoSuchOp")
        with tf.Graph().as_default():
            tf.import_graph_def(gd)

    def bad_input_map():
        gd = tf.GraphDef()
        gd.node.add(name="c", op="NoOp")
        with tf.Graph().as_default():
            tf.import_graph_def(gd, input_map={"missing:0": tf.constant(1.0)})

    def bad_return():
        gd = tf.GraphDef()
        gd.node.add(name="c", op="NoOp")
        with tf.Graph().as_default():
            tf.import_graph_def(gd, return_elements=["nothere:0"])

    def missing_input():
        gd = tf.GraphDef()
        gd.node.add(name="i", op="Identity", input=["ghost"]).attr["T"].type = 1
        with tf.Graph().as_default():
            tf.import_graph_def(gd)

    def unknown_attr():
        gd = tf.GraphDef()
        node = gd.node.add(name="n", op="NoOp")
        node.attr["bogus"].i = 1
        with tf.Graph().as_default():
            tf.import_graph_def(gd)

    def wrong_attr_type():
        gd = tf.GraphDef()
        node = gd.node.add(name="p", op="Placeholder")
        node.attr["dtype"].i = 1
        with tf.Graph().as_default():
            tf.import_graph_def(gd)

    record("unknown_op", unknown_op)
    record("bad_input_map", bad_input_map)
    record("bad_return", bad_return)
    record("missing_input", missing_input)
    record("unknown_attr", unknown_attr)
    record("wrong_attr_type", wrong_attr_type)
    with open(os.path.join(OUT, "errors.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


def import_semantics():
    """What import_graph_def does with _output_shapes and outer control dependencies."""
    with tf.Graph().as_default() as g:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        tf.identity(x, name="y")
        gd = g.as_graph_def(add_shapes=True)
    out = {}
    with tf.Graph().as_default() as g2:
        tf.import_graph_def(gd, name="")
        out["attrs_after_import"] = [sorted(n.attr) for n in g2.as_graph_def().node]
        c = tf.constant(1.0, name="c")
        with tf.control_dependencies([c]):
            tf.import_graph_def(gd, name="imp")
        out["nodes_under_control_dependencies"] = [
            [n.name, list(n.input)] for n in g2.as_graph_def().node]
    with open(os.path.join(OUT, "import_semantics.json"), "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)


STEPS = [graph_defs, frozen_graphs, frozen_loop, checkpoint, sharded_checkpoint, training_meta_graph, errors,
         import_semantics]

if __name__ == "__main__":
    # Optional arguments name the steps to rerun (default: all).
    os.makedirs(OUT, exist_ok=True)
    for step in STEPS:
        if len(sys.argv) < 2 or step.__name__ in sys.argv[1:]:
            step()
    print("recorded into", OUT)
