"""Graphs built under `tf.train.replica_device_setter`, run under TF 1.15
(tests/data/record_distributed_api.py) and flowloom (test_device_setter.py): each builder
takes the `tf` module and returns the graph; the record is every op's device."""

import re

TOWER_NAME = "tower"
BATCH = 4


def _activation_summary(tf, x):
    name = re.sub("%s_[0-9]*/" % TOWER_NAME, "", x.op.name)
    tf.summary.histogram(name + "/activations", x)
    tf.summary.scalar(name + "/sparsity", tf.nn.zero_fraction(x))


def _variable_on_cpu(tf, name, shape, initializer):
    with tf.device("/cpu:0"):
        return tf.get_variable(name, shape, initializer=initializer, dtype=tf.float32)


def _variable_with_weight_decay(tf, name, shape, stddev, wd):
    var = _variable_on_cpu(tf, name, shape, tf.truncated_normal_initializer(stddev=stddev))
    if wd is not None:
        weight_decay = tf.multiply(tf.nn.l2_loss(var), wd, name="weight_loss")
        tf.add_to_collection("losses", weight_decay)
    return var


def _conv(tf, name, x, shape):
    with tf.variable_scope(name) as scope:
        kernel = _variable_with_weight_decay(tf, "weights", shape, 5e-2, None)
        conv = tf.nn.conv2d(x, kernel, [1, 1, 1, 1], padding="SAME")
        biases = _variable_on_cpu(tf, "biases", shape[-1:], tf.constant_initializer(0.1))
        out = tf.nn.relu(tf.nn.bias_add(conv, biases), name=scope.name)
        _activation_summary(tf, out)
        return out


def _local(tf, name, x, shape, wd, relu=True):
    with tf.variable_scope(name) as scope:
        weights = _variable_with_weight_decay(tf, "weights", shape, 0.04, wd)
        biases = _variable_on_cpu(tf, "biases", shape[-1:], tf.constant_initializer(0.1))
        if relu:
            out = tf.nn.relu(tf.matmul(x, weights) + biases, name=scope.name)
        else:
            out = tf.add(tf.matmul(x, weights), biases, name=scope.name)
        _activation_summary(tf, out)
        return out


def _cifar_inference(tf, images):
    conv1 = _conv(tf, "conv1", images, [5, 5, 3, 8])
    pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool1")
    norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm1")
    conv2 = _conv(tf, "conv2", norm1, [5, 5, 8, 8])
    norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75, name="norm2")
    pool2 = tf.nn.max_pool(norm2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME",
                           name="pool2")
    reshape = tf.reshape(pool2, [BATCH, -1])
    dim = reshape.get_shape()[1].value
    local3 = _local(tf, "local3", reshape, [dim, 32], 0.004)
    local4 = _local(tf, "local4", local3, [32, 16], 0.004)
    return _local(tf, "softmax_linear", local4, [16, 10], 0.0, relu=False)


def _cifar_loss(tf, logits, labels):
    labels = tf.cast(labels, tf.int64)
    cross_entropy = tf.nn.sparse_softmax_cross_entropy_with_logits(
        labels=labels, logits=logits, name="cross_entropy_per_example")
    tf.add_to_collection("losses", tf.reduce_mean(cross_entropy, name="cross_entropy"))
    return tf.add_n(tf.get_collection("losses"), name="total_loss")


def _tower_loss(tf, scope, images, labels):
    _cifar_loss(tf, _cifar_inference(tf, images), labels)
    losses = tf.get_collection("losses", scope)
    total_loss = tf.add_n(losses, name="total_loss")
    for value in losses + [total_loss]:
        tf.summary.scalar(re.sub("%s_[0-9]*/" % TOWER_NAME, "", value.op.name), value)
    return total_loss


def _average_gradients(tf, tower_grads):
    average_grads = []
    for grad_and_vars in zip(*tower_grads):
        grads = [tf.expand_dims(g, 0) for g, _ in grad_and_vars]
        grad = tf.reduce_mean(tf.concat(axis=0, values=grads), 0)
        average_grads.append((grad, grad_and_vars[0][1]))
    return average_grads


def cifar10_towers(tf):
    """The CIFAR-10 multi-GPU trainer (two towers under /gpu:i, variables on /cpu:0) inside a
    round-robin replica_device_setter over two ps tasks."""
    graph = tf.Graph()
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            ps_tasks=2, worker_device="/job:worker/task:0")):
        global_step = tf.get_variable("global_step", [], initializer=tf.constant_initializer(0),
                                      trainable=False)
        lr = tf.train.exponential_decay(0.1, global_step, 1000, 0.1, staircase=True)
        opt = tf.train.GradientDescentOptimizer(lr)
        images = tf.random_uniform([BATCH, 24, 24, 3])
        labels = tf.random_uniform([BATCH], maxval=10, dtype=tf.int32)
        tower_grads = []
        with tf.variable_scope(tf.get_variable_scope()):
            for i in range(2):
                with tf.device("/gpu:%d" % i):
                    with tf.name_scope("%s_%d" % (TOWER_NAME, i)) as scope:
                        loss = _tower_loss(tf, scope, images, labels)
                        tf.get_variable_scope().reuse_variables()
                        summaries = tf.get_collection(tf.GraphKeys.SUMMARIES, scope)
                        tower_grads.append(opt.compute_gradients(loss))
        grads = _average_gradients(tf, tower_grads)
        summaries.append(tf.summary.scalar("learning_rate", lr))
        for grad, var in grads:
            summaries.append(tf.summary.histogram(var.op.name + "/gradients", grad))
        apply_gradient_op = opt.apply_gradients(grads, global_step=global_step)
        averages = tf.train.ExponentialMovingAverage(0.9999, global_step)
        averages_op = averages.apply(tf.trainable_variables())
        tf.group(apply_gradient_op, averages_op, name="train_op")
        tf.summary.merge(summaries)
        tf.global_variables_initializer()
    return graph


def wide_model(tf):
    """An embedding and dense layers of very different sizes, Adam, placed by the greedy
    byte-size strategy over three ps tasks."""
    graph = tf.Graph()
    with graph.as_default():
        strategy = tf.contrib.training.GreedyLoadBalancingStrategy(
            3, tf.contrib.training.byte_size_load_fn)
        with tf.device(tf.train.replica_device_setter(ps_tasks=3, ps_strategy=strategy)):
            global_step = tf.train.get_or_create_global_step()
            embedding = tf.get_variable("embedding", [500, 16])
            ids = tf.placeholder(tf.int32, [None, 5], name="ids")
            x = tf.reduce_sum(tf.nn.embedding_lookup(embedding, ids), 1)
            sizes = [16, 300, 7, 128, 64, 1, 250, 32]
            for i, units in enumerate(sizes[1:]):
                x = tf.layers.dense(x, units, activation=tf.nn.relu, name="dense%d" % i)
            scale = tf.get_variable("scale", [32], dtype=tf.float64,
                                    initializer=tf.ones_initializer())
            x = x * tf.cast(scale, tf.float32)
            # Resource variables weigh one byte each for byte_size_load_fn (a scalar handle).
            bias = tf.get_variable("res_bias", [32], use_resource=True,
                                   initializer=tf.zeros_initializer())
            gain = tf.get_variable("res_gain", [], use_resource=True,
                                   initializer=tf.ones_initializer())
            x = x * gain + bias
            loss = tf.reduce_mean(tf.square(x))
            tf.train.AdamOptimizer(0.01).minimize(loss, global_step=global_step)
            tf.global_variables_initializer()
    return graph


def small_mlp(tf):
    """A two-layer MLP with a cluster dictionary, a worker task device, gradient descent,
    CIFAR-style loss averages behind tf.identity, and a Saver."""
    graph = tf.Graph()
    cluster = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222"]}
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device="/job:worker/task:1")):
        global_step = tf.train.get_or_create_global_step()
        x = tf.placeholder(tf.float32, [None, 8], name="x")
        y = tf.placeholder(tf.int32, [None], name="y")
        w1 = tf.Variable(tf.truncated_normal([8, 16], stddev=0.1), name="w1")
        b1 = tf.Variable(tf.zeros([16]), name="b1")
        w2 = tf.Variable(tf.truncated_normal([16, 4], stddev=0.1), name="w2")
        b2 = tf.Variable(tf.zeros([4]), name="b2")
        hidden = tf.nn.relu(tf.matmul(x, w1) + b1)
        logits = tf.matmul(hidden, w2) + b2
        loss = tf.reduce_mean(tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=y, logits=logits), name="loss")
        loss_averages = tf.train.ExponentialMovingAverage(0.9, name="avg")
        loss_averages_op = loss_averages.apply([loss])
        with tf.control_dependencies([loss_averages_op]):
            loss = tf.identity(loss)
        tf.train.GradientDescentOptimizer(0.5).minimize(loss, global_step=global_step)
        tf.global_variables_initializer()
        tf.local_variables_initializer()
        tf.train.Saver()
    return graph


def sync_replicas(tf):
    """SyncReplicasOptimizer over Momentum with a sparse (embedding) gradient and variable
    averages, under a round-robin replica_device_setter over two ps tasks."""
    graph = tf.Graph()
    cluster = {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222"]}
    with graph.as_default(), tf.device(tf.train.replica_device_setter(
            cluster=cluster, worker_device="/job:worker/task:0")):
        global_step = tf.train.get_or_create_global_step()
        ids = tf.placeholder(tf.int32, [None], name="ids")
        y = tf.placeholder(tf.float32, [None, 2], name="y")
        embedding = tf.get_variable("embedding", [10, 4])
        w = tf.get_variable("w", [4, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        logits = tf.matmul(tf.nn.embedding_lookup(embedding, ids), w) + b
        loss = tf.reduce_mean(tf.square(logits - y))
        averages = tf.train.ExponentialMovingAverage(0.99, global_step)
        opt = tf.train.SyncReplicasOptimizer(
            tf.train.MomentumOptimizer(0.1, 0.9), replicas_to_aggregate=2,
            total_num_replicas=2, variable_averages=averages,
            variables_to_average=tf.trainable_variables())
        opt.minimize(loss, global_step=global_step)
        opt.get_init_tokens_op()
        opt.make_session_run_hook(True).begin()
        tf.global_variables_initializer()
    return graph


def _semantics(tf):
    """Small cases of device merging and of each branch of the device chooser."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device("/job:worker/task:1"):
            with tf.device("/gpu:0"):
                tf.constant(1.0, name="outer_job_inner_gpu")
            with tf.device("/job:ps"):
                tf.constant(1.0, name="inner_job_overrides")
            with tf.device(None):
                tf.constant(1.0, name="device_none")
        with tf.device("/cpu:0"), tf.device(lambda op: "/job:ps/cpu:1"):
            tf.constant(1.0, name="fn_string_not_canonical")
        with tf.device(lambda op: "/job:ps/cpu:1"):
            tf.constant(1.0, name="fn_only_string")
        with tf.device("/gpu:1"), tf.device(lambda op: ""):
            tf.constant(1.0, name="fn_empty_then_merge")
        with tf.device(lambda op: tf.DeviceSpec(job="w", device_type="GPU", device_index=2)):
            tf.constant(1.0, name="fn_devicespec")
        with tf.device("/device:GPU:*"):
            tf.constant(1.0, name="any_gpu")
        setter = tf.train.replica_device_setter(ps_tasks=3)
        with tf.device(setter):
            tf.Variable(1.0, name="rr0")
            with tf.device("/job:worker"):
                tf.Variable(1.0, name="job_differs_no_task")
            with tf.device("/job:ps/task:7"):
                tf.Variable(1.0, name="ps_task_kept")
            with tf.device("/job:ps"):
                tf.Variable(1.0, name="ps_job_same")
            with tf.device("/gpu:1"):
                tf.Variable(1.0, name="rr_gpu")
                tf.constant(1.0, name="worker_gpu")
            with tf.device(None):
                tf.constant(1.0, name="setter_stopped")
        with tf.device(tf.train.replica_device_setter(
                ps_tasks=2, ps_device="/job:ps/device:CPU:0", worker_device="",
                merge_devices=False)):
            tf.Variable(1.0, name="no_merge_cpu")
            with tf.device("/job:foo/gpu:3"):
                tf.Variable(1.0, name="no_merge_kept")
                tf.constant(1.0, name="no_merge_const_kept")
        with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_device="/device:CPU:0",
                                                      ps_ops=["VariableV2", "Const"])):
            tf.Variable(1.0, name="ps_no_job")
            tf.constant(1.0, name="const_as_ps_op")
        random = tf.contrib.training.RandomStrategy(5, seed=3)
        with tf.device(tf.train.replica_device_setter(ps_tasks=5, ps_strategy=random)):
            for i in range(6):
                tf.Variable(float(i), name="random%d" % i)
        spec = tf.train.ClusterSpec({"ps": ["a:1", "b:1", "c:1"], "worker": ["w:1"]})
        with tf.device(tf.train.replica_device_setter(cluster=spec)):
            for i in range(4):
                tf.Variable(float(i), name="cluster%d" % i)
    return graph


def none_setters(tf):
    """The cases where replica_device_setter returns None or raises."""
    out = []
    for label, kwargs in [("no_ps_tasks", {}),
                          ("cluster_without_ps", {"cluster": {"worker": ["w:1"]}}),
                          ("cluster_other_ps_job", {"cluster": {"ps": ["a:1"]},
                                                    "ps_device": "/job:params"}),
                          ("strategy_not_callable", {"ps_tasks": 1, "ps_strategy": 3})]:
        try:
            out.append([label, "ok", repr(tf.train.replica_device_setter(**kwargs))])
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append([label, type(e).__name__, str(e)])
    for label, fn in [("fn_returns_none", lambda op: None), ("fn_returns_int", lambda op: 3)]:
        try:
            with tf.Graph().as_default(), tf.device(fn):
                out.append([label, "ok", tf.constant(1.0).op.device])
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append([label, type(e).__name__, str(e)])
    return out


def device_specs(tf):
    """DeviceSpec parsing and merging: [[case, result or error class + message], ...]."""
    out = []
    strings = ["/job:ps/task:0/device:CPU:0", "/cpu:1", "gpu:2", "/job:worker/replica:1/task:3",
               "/device:CPU:*", "/job:a/device:gpu:0", "CPU:0", "/task:1/gpu:0", "",
               "/job:ps/task:0/cpu:0/gpu:1", "/badfield:1"]
    for text in strings:
        try:
            out.append(["parse " + text, tf.DeviceSpec.from_string(text).to_string()])
        except Exception as e:  # noqa: BLE001 - the error is the result
            out.append(["parse " + text, type(e).__name__ + ": " + str(e)])
    pairs = [("/job:ps/task:0", "/cpu:1"), ("/job:ps/task:0/cpu:0", "/job:worker/gpu:1"),
             ("/device:GPU:*", "/gpu:1"), ("/gpu:1", "/device:GPU:*"), ("/replica:3", "/task:2"),
             ("/job:worker/task:1/device:CPU:0", "")]
    for base, other in pairs:
        merged = tf.DeviceSpec.from_string(base).make_merged_spec(
            tf.DeviceSpec.from_string(other))
        out.append(["merge %s + %s" % (base, other), merged.to_string()])
        graph = tf.Graph()
        with graph.as_default(), tf.device(base), tf.device(other):
            out.append(["nested %s > %s" % (base, other), tf.constant(1.0).op.device])
    return out


GRAPHS = {"cifar10_towers": cifar10_towers, "wide_model": wide_model, "small_mlp": small_mlp,
          "semantics": _semantics, "sync_replicas": sync_replicas}
TF2_GRAPHS = ("cifar10_towers", "small_mlp")


def placements(graph):
    """[[op name, op type, op.device], ...] in creation order."""
    return [[op.name, op.type, op.device] for op in graph.get_operations()]
