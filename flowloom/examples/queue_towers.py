"""A TF1 training program in the style of TF's CIFAR-10 tutorial, fed by queues.

filename queue -> FixedLengthRecordReader -> decode_raw -> distortions -> shuffle_batch
(queue-runner threads) -> one tower per device (`/gpu:N` soft-placed on the CPUs) with shared
variables -> averaged gradients, moving averages -> MonitoredTrainingSession with hooks
(checkpoints, StopAtStepHook, NanTensorHook, a logger). Killed and restarted, it resumes from
its latest checkpoint. `--eval` restores the moving-average shadow variables and reports
precision @ 1 over the test file, read once (num_epochs=1) until OutOfRangeError.

    python3 -m flowloom.examples.cifar10_format /tmp/cifar_data
    python3 -m flowloom.examples.queue_towers --data_dir /tmp/cifar_data --train_dir /tmp/t
    python3 -m flowloom.examples.queue_towers --data_dir /tmp/cifar_data --train_dir /tmp/t --eval
"""

import argparse
import os
import sys
import time

import flowloom as tf

IMAGE = 24
CLASSES = 10
RECORD = 1 + 32 * 32 * 3


def read_record(filename_queue):
    reader = tf.FixedLengthRecordReader(record_bytes=RECORD)
    key, value = reader.read(filename_queue)
    record = tf.decode_raw(value, tf.uint8)
    label = tf.cast(tf.strided_slice(record, [0], [1]), tf.int32)
    depth_major = tf.reshape(tf.strided_slice(record, [1], [RECORD]), [3, 32, 32])
    return tf.cast(tf.transpose(depth_major, [1, 2, 0]), tf.float32), label


def inputs(data_dir, batch_size, train):
    names = ([f"data_batch_{i}.bin" for i in range(1, 6)] if train else ["test_batch.bin"])
    files = [os.path.join(data_dir, "cifar-10-batches-bin", n) for n in names]
    for f in files:
        if not tf.gfile.Exists(f):
            raise ValueError("Failed to find file: " + f)
    queue = tf.train.string_input_producer(files, num_epochs=None if train else 1,
                                           shuffle=train)
    image, label = read_record(queue)
    if train:
        image = tf.random_crop(image, [IMAGE, IMAGE, 3])
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_brightness(image, max_delta=30)
    else:
        image = tf.image.resize_image_with_crop_or_pad(image, IMAGE, IMAGE)
    image = tf.image.per_image_standardization(image)
    image.set_shape([IMAGE, IMAGE, 3])
    label.set_shape([1])
    if train:
        images, labels = tf.train.shuffle_batch([image, label], batch_size=batch_size,
                                                num_threads=2, capacity=200 + 3 * batch_size,
                                                min_after_dequeue=200)
    else:
        images, labels = tf.train.batch([image, label], batch_size=batch_size, num_threads=1,
                                        capacity=4 * batch_size,
                                        allow_smaller_final_batch=True)
    tf.summary.image("images", images)
    return images, tf.reshape(labels, [-1])


def _variable(name, shape, stddev, wd=None):
    with tf.device("/cpu:0"):
        var = tf.get_variable(name, shape, initializer=tf.truncated_normal_initializer(
            stddev=stddev))
    if wd:
        tf.add_to_collection("losses", tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss"))
    return var


def _bias(name, shape, value):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=tf.constant_initializer(value))


def inference(images):
    with tf.variable_scope("conv1") as scope:
        kernel = _variable("weights", [5, 5, 3, 16], 5e-2)
        conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding="SAME")
        conv1 = tf.nn.relu(tf.nn.bias_add(conv, _bias("biases", [16], 0.0)), name=scope.name)
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    with tf.variable_scope("local3") as scope:
        flat = tf.reshape(norm1, [tf.shape(norm1)[0], 12 * 12 * 16])
        weights = _variable("weights", [12 * 12 * 16, 64], 0.04, wd=0.004)
        local3 = tf.nn.relu(tf.matmul(flat, weights) + _bias("biases", [64], 0.1),
                            name=scope.name)
    with tf.variable_scope("softmax_linear") as scope:
        weights = _variable("weights", [64, CLASSES], 1 / 64.0)
        return tf.add(tf.matmul(local3, weights), _bias("biases", [CLASSES], 0.0),
                      name=scope.name)


def tower_loss(scope, images, labels):
    logits = inference(images)
    xent = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=tf.cast(labels, tf.int64), logits=logits), name="cross_entropy")
    tf.add_to_collection("losses", xent)
    return tf.add_n(tf.get_collection("losses", scope), name="total_loss")


def average_gradients(tower_grads):
    averaged = []
    for grad_and_vars in zip(*tower_grads):
        grads = tf.concat([tf.expand_dims(g, 0) for g, _ in grad_and_vars], 0)
        averaged.append((tf.reduce_mean(grads, 0), grad_and_vars[0][1]))
    return averaged


def train(flags):
    with tf.Graph().as_default(), tf.device("/cpu:0"):
        global_step = tf.train.get_or_create_global_step()
        opt = tf.train.GradientDescentOptimizer(flags.learning_rate)
        images, labels = inputs(flags.data_dir, flags.batch_size * flags.towers, True)
        split_images = tf.split(images, flags.towers)
        split_labels = tf.split(labels, flags.towers)
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(flags.towers):
                with tf.device(f"/gpu:{i}"), tf.name_scope(f"tower_{i}") as scope:
                    loss = tower_loss(scope, split_images[i], split_labels[i])
                    tf.get_variable_scope().reuse_variables()
                    tower_grads.append(opt.compute_gradients(loss))
        apply_op = opt.apply_gradients(average_gradients(tower_grads), global_step=global_step)
        ema = tf.train.ExponentialMovingAverage(0.99, global_step)
        train_op = tf.group(apply_op, ema.apply(tf.trainable_variables()))
        tf.summary.scalar("loss", loss)

        class LoggerHook(tf.train.SessionRunHook):
            def begin(self):
                self._start = time.time()

            def before_run(self, run_context):
                return tf.train.SessionRunArgs([loss, global_step])

            def after_run(self, run_context, run_values):
                loss_value, step = run_values.results
                if step % flags.log_every == 0:
                    now = time.time()
                    rate = flags.log_every * flags.batch_size * flags.towers / (now - self._start)
                    self._start = now
                    print(f"step {step}, loss = {loss_value:.3f} ({rate:.1f} examples/sec)",
                          flush=True)

        config = tf.ConfigProto(allow_soft_placement=True, device_count={"CPU": flags.towers})
        with tf.train.MonitoredTrainingSession(
                checkpoint_dir=flags.train_dir, save_checkpoint_steps=flags.save_every,
                save_summaries_steps=flags.save_every, log_step_count_steps=flags.log_every,
                hooks=[tf.train.StopAtStepHook(last_step=flags.max_steps),
                       tf.train.NanTensorHook(loss), LoggerHook()],
                config=config) as sess:
            while not sess.should_stop():
                sess.run(train_op)
    return 0


def evaluate(flags):
    with tf.Graph().as_default():
        images, labels = inputs(flags.data_dir, flags.batch_size, False)
        logits = inference(images)
        top_k = tf.nn.in_top_k(logits, labels, 1)
        ema = tf.train.ExponentialMovingAverage(0.99)
        saver = tf.train.Saver(ema.variables_to_restore())
        with tf.Session() as sess:
            ckpt = tf.train.get_checkpoint_state(flags.train_dir)
            if not (ckpt and ckpt.model_checkpoint_path):
                print("No checkpoint file found")
                return 1
            saver.restore(sess, ckpt.model_checkpoint_path)
            sess.run(tf.local_variables_initializer())
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            correct = total = 0
            try:
                while not coord.should_stop():
                    hits = sess.run(top_k)
                    correct += int(hits.sum())
                    total += len(hits)
            except tf.errors.OutOfRangeError:
                pass
            finally:
                coord.request_stop()
                coord.join(threads, stop_grace_period_secs=10)
        print(f"precision @ 1 = {correct / max(total, 1):.3f} ({total} examples)", flush=True)
    return 0


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--data_dir", default="/tmp/cifar10_data")
    p.add_argument("--train_dir", default="/tmp/queue_towers")
    p.add_argument("--max_steps", type=int, default=300)
    p.add_argument("--batch_size", type=int, default=32, help="per tower")
    p.add_argument("--towers", type=int, default=2)
    p.add_argument("--learning_rate", type=float, default=0.05)
    p.add_argument("--save_every", type=int, default=50)
    p.add_argument("--log_every", type=int, default=10)
    p.add_argument("--eval", action="store_true")
    flags = p.parse_args(argv)
    return evaluate(flags) if flags.eval else train(flags)


if __name__ == "__main__":
    sys.exit(main())
