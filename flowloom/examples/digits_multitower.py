"""Trains a small CNN on handwritten digits, written the way TF1's multi-tower CIFAR-10
tutorial is written: one tower per device under `tower_N` name scopes, variables shared
through variable-scope reuse, averaged gradients, loss averages kept with
ExponentialMovingAverage and read through `tf.identity` under `control_dependencies`.

Data: scikit-learn's bundled 8x8 digits (1,797 images; nothing is downloaded).

    python3 dev.py demo                  # or: python3 -m flowloom.examples.digits_multitower
"""

import argparse
import os
import sys
import time

import numpy as np

import flowloom as tf

NUM_CLASSES = 10
MOVING_AVERAGE_DECAY = 0.999


# -- the model (cifar10.py style) -------------------------------------------------------------
def _variable_on_cpu(name, shape, initializer):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)


def _variable_with_weight_decay(name, shape, stddev, wd):
    var = _variable_on_cpu(name, shape, tf.truncated_normal_initializer(stddev=stddev))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def _activation_summary(x):
    tf.summary.histogram(x.op.name + "/activations", x)
    tf.summary.scalar(x.op.name + "/sparsity", tf.nn.zero_fraction(x))


def inference(images):
    """images: [batch, 8, 8, 1] → logits [batch, 10]."""
    with tf.variable_scope("conv1") as scope:
        kernel = _variable_with_weight_decay("weights", [3, 3, 1, 32], 0.1, None)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu("biases", [32], tf.constant_initializer(0.0))
        conv1 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
        _activation_summary(conv1)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    with tf.variable_scope("conv2") as scope:
        kernel = _variable_with_weight_decay("weights", [3, 3, 32, 64], 0.05, None)
        conv = tf.nn.conv2d(norm1, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu("biases", [64], tf.constant_initializer(0.1))
        conv2 = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
        _activation_summary(conv2)
    pool2 = tf.nn.max_pool(conv2, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool2")
    with tf.variable_scope("local3") as scope:
        reshape = tf.reshape(pool2, [-1, 2 * 2 * 64])
        weights = _variable_with_weight_decay("weights", [256, 128], 0.05, 0.001)
        biases = _variable_on_cpu("biases", [128], tf.constant_initializer(0.1))
        local3 = tf.nn.relu(tf.matmul(reshape, weights) + biases, name=scope.name)
        _activation_summary(local3)
    with tf.variable_scope("softmax_linear") as scope:
        weights = _variable_with_weight_decay("weights", [128, NUM_CLASSES], 1 / 128.0, None)
        biases = _variable_on_cpu("biases", [NUM_CLASSES], tf.constant_initializer(0.0))
        softmax_linear = tf.add(tf.matmul(local3, weights), biases, name=scope.name)
        _activation_summary(softmax_linear)
    return softmax_linear


def loss(logits, labels):
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.cast(labels, tf.int64), logits=logits, name="cross_entropy_per_example")
    cross_entropy_mean = tf.reduce_mean(cross_entropy, name="cross_entropy")
    tf.add_to_collection("losses", cross_entropy_mean)
    return tf.add_n(tf.get_collection("losses"), name="total_loss")


def tower_loss(scope, images, labels):
    """The total loss of one tower; its loss averages are updated before it is read."""
    logits = inference(images)
    _ = loss(logits, labels)
    losses = tf.get_collection("losses", scope)
    total_loss = tf.add_n(losses, name="total_loss")
    # The towers after the first run with reuse=True; the loss averages are per tower, so
    # their shadow variables are created under AUTO_REUSE (TF1's reuse rules, as in TF).
    with tf.variable_scope(tf.get_variable_scope(), reuse=tf.AUTO_REUSE):
        loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
        loss_averages_op = loss_averages.apply(losses + [total_loss])
    for l in losses + [total_loss]:
        loss_name = l.op.name[len(scope):] if l.op.name.startswith(scope) else l.op.name
        tf.summary.scalar(loss_name + " (raw)", l)
        tf.summary.scalar(loss_name, loss_averages.average(l))
    # Without the identity the averages would never be updated: `total_loss = total_loss`
    # inside the block adds no node, so nothing would depend on loss_averages_op.
    with tf.control_dependencies([loss_averages_op]):
        total_loss = tf.identity(total_loss)
    return total_loss, logits


def average_gradients(tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


# -- data ---------------------------------------------------------------------------------------
def load_digits(seed=0):
    """The 8x8 digits, scaled to [0, 1], split 80/20 into train and held-out test."""
    try:
        from sklearn.datasets import load_digits as sk_load
    except ImportError:
        sys.exit("The demo needs scikit-learn (for its bundled digits): pip install "
                 "'flowloom[demo]' or run `python3 dev.py demo`.")
    data = sk_load()
    images = (data.images / 16.0).astype(np.float32)[..., None]
    labels = data.target.astype(np.int32)
    order = np.random.RandomState(seed).permutation(len(labels))
    images, labels = images[order], labels[order]
    n_test = len(labels) // 5
    return (images[n_test:], labels[n_test:]), (images[:n_test], labels[:n_test])


# -- training -------------------------------------------------------------------------------------
def _progress(step, total, loss_value, examples_per_sec, width=30):
    done = int(width * step / total)
    bar = "#" * done + "-" * (width - done)
    line = (f"[{bar}] step {step:4d}/{total}  loss {loss_value:7.4f}  "
            f"{examples_per_sec:7.0f} examples/s")
    if sys.stdout.isatty():
        sys.stdout.write("\r" + line)
    elif step % 100 == 0 or step == total:
        sys.stdout.write(line + "\n")
    sys.stdout.flush()


def train(num_towers=2, batch_size=32, max_steps=600, logdir="runs/digits", seed=1,
          quiet=False):
    """Builds the multi-tower graph, trains it, and returns the held-out accuracy."""
    (train_x, train_y), (test_x, test_y) = load_digits()
    tf.reset_default_graph()
    tf.set_random_seed(seed)
    rng = np.random.RandomState(seed)
    with tf.device("/cpu:0"):
        global_step = tf.train.get_or_create_global_step()
        lr = tf.train.exponential_decay(0.1, global_step, 300, 0.5, staircase=True)
        opt = tf.train.MomentumOptimizer(lr, 0.9)
        tower_grads = []
        feeds = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(num_towers):
                with tf.device("/cpu:%d" % i):
                    with tf.name_scope("tower_%d" % i) as scope:
                        images = tf.placeholder(tf.float32, [None, 8, 8, 1], name="images")
                        labels = tf.placeholder(tf.int32, [None], name="labels")
                        feeds.append((images, labels))
                        total_loss, logits = tower_loss(scope, images, labels)
                        tf.get_variable_scope().reuse_variables()
                        summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                        grads = opt.compute_gradients(total_loss)
                        tower_grads.append(grads)
                        if i == 0:
                            eval_images, eval_logits, tower0_loss = images, logits, total_loss
        grads = average_gradients(tower_grads)
        summaries.append(tf.summary.scalar("learning_rate", lr))
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        variable_averages = tf.train.ExponentialMovingAverage(MOVING_AVERAGE_DECAY, global_step)
        variables_averages_op = variable_averages.apply(tf.trainable_variables())
        train_op = tf.group(apply_gradient_op, variables_averages_op)
        predictions = tf.argmax(eval_logits, 1)
        saver = tf.train.Saver(tf.global_variables())
        summary_op = tf.summary.merge(summaries)
        init = tf.global_variables_initializer()

    config = tf.ConfigProto(device_count={"CPU": num_towers}, allow_soft_placement=True)
    os.makedirs(logdir, exist_ok=True)
    with tf.Session(config=config) as sess:
        sess.run(init)
        writer = tf.summary.FileWriter(logdir, sess.graph)
        per_step = batch_size * num_towers
        start = time.time()
        loss_value = float("nan")
        for step in range(1, max_steps + 1):
            feed = {}
            for images, labels in feeds:
                idx = rng.randint(0, len(train_y), batch_size)
                feed[images] = train_x[idx]
                feed[labels] = train_y[idx]
            t0 = time.time()
            _, loss_value = sess.run([train_op, tower0_loss], feed_dict=feed)
            dt = time.time() - t0
            if not np.isfinite(loss_value):
                raise RuntimeError("Model diverged with loss = NaN")
            if step % 50 == 0 or step == max_steps:
                writer.add_summary(sess.run(summary_op, feed_dict=feed), step)
            if not quiet:
                _progress(step, max_steps, float(loss_value), per_step / max(dt, 1e-9))
        elapsed = time.time() - start
        if not quiet and sys.stdout.isatty():
            sys.stdout.write("\n")
        pred = sess.run(predictions, {eval_images: test_x})
        accuracy = float(np.mean(pred == test_y))
        checkpoint = saver.save(sess, os.path.join(logdir, "model.ckpt"), global_step=max_steps)
        writer.close()
    if not quiet:
        print(f"trained {max_steps} steps on {num_towers} tower(s) in {elapsed:.1f} s "
              f"({max_steps * per_step / elapsed:.0f} examples/s)")
        print(f"held-out accuracy: {accuracy * 100:.2f}% on {len(test_y)} digits")
        print(f"logs: {logdir} (tensorboard --logdir {logdir}); checkpoint: {checkpoint}")
    return accuracy


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--towers", type=int, default=2)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--steps", type=int, default=600)
    ap.add_argument("--logdir", default="runs/digits")
    args = ap.parse_args(argv)
    train(args.towers, args.batch_size, args.steps, args.logdir)


if __name__ == "__main__":
    main()
