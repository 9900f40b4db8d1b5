"""SyncReplicasOptimizer on an in-process cluster: TF's own two-worker scenario (values after
each step, the wasted second step, the backup worker), and synchronous training equal to
single-process training on the combined batch."""

import threading

import numpy as np
import pytest

import flowloom as tf
from flowloom.distributed.inprocess import InProcessCluster

# Closing the chief ends its queue runner's waiting take with CancelledError, which the
# thread reports to the already joined coordinator (as in TF).
pytestmark = pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")


def _session(cluster, worker_id, is_chief, hooks):
    return tf.train.MonitoredTrainingSession(master=cluster.target("worker", worker_id),
                                             is_chief=is_chief, hooks=hooks,
                                             stop_grace_period_secs=0.2)


def _tf_test_workers(cluster, num_workers, replicas_to_aggregate):
    """The workers of TF's sync_replicas_optimizer_test (get_workers), one graph each."""
    sessions, graphs, train_ops = [], [], []
    for worker_id in range(num_workers):
        graph = tf.Graph()
        with graph.as_default():
            with tf.device("/job:ps/task:0"):
                global_step = tf.Variable(0, name="global_step", trainable=False)
                var_0 = tf.Variable(0.0, name="v0")
            with tf.device("/job:ps/task:1"):
                var_1 = tf.Variable(1.0, name="v1")
                var_sparse = tf.Variable([[3.0], [4.0]], name="v_sparse")
            with tf.device("/job:worker/task:%d" % worker_id):
                grads_0 = tf.constant(0.1 + worker_id * 0.2)
                grads_1 = tf.constant(0.9 + worker_id * 0.2)
                grads_sparse = tf.IndexedSlices(
                    tf.constant([0.1 + worker_id * 0.2], shape=[1, 1]), tf.constant([1]),
                    tf.constant([2, 1]))
                opt = tf.train.SyncReplicasOptimizer(
                    tf.train.GradientDescentOptimizer(2.0),
                    replicas_to_aggregate=replicas_to_aggregate,
                    total_num_replicas=num_workers)
                train_op = opt.apply_gradients(
                    zip([grads_0, grads_1, grads_sparse], [var_0, var_1, var_sparse]),
                    global_step=global_step)
                hook = opt.make_session_run_hook(worker_id == 0, num_tokens=num_workers)
            sessions.append(_session(cluster, worker_id, worker_id == 0, [hook]))
        graphs.append(graph)
        train_ops.append(train_op)
    return sessions, graphs, train_ops


def _wait_for(sess, tensor, value):
    for _ in range(500):
        if sess.run(tensor) == value:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{tensor.name} never reached {value}")


def _run_all(sessions, train_ops, which):
    threads = [threading.Thread(target=sessions[i].run, args=(train_ops[i],)) for i in which]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not any(t.is_alive() for t in threads)


def test_tf_two_workers():
    cluster = InProcessCluster({"ps": ["ps0:1", "ps1:1"], "worker": ["w0:1", "w1:1"]})
    sessions, graphs, train_ops = _tf_test_workers(cluster, 2, 2)
    g0, g1 = graphs
    var_0 = g1.get_tensor_by_name("v0:0")
    var_1 = g1.get_tensor_by_name("v1:0")
    var_sparse = g1.get_tensor_by_name("v_sparse:0")
    local_0 = g0.get_tensor_by_name("sync_rep_local_step:0")
    local_1 = g1.get_tensor_by_name("sync_rep_local_step:0")
    step = g1.get_tensor_by_name("global_step:0")
    try:
        assert sessions[1].run(step) == 0 and sessions[1].run(local_1) == 0
        # Initial tokens: the first step runs one worker after the other.
        sessions[0].run(train_ops[0])
        sessions[1].run(train_ops[1])
        _wait_for(sessions[1], step, 1)
        np.testing.assert_allclose(sessions[1].run(var_0), 0 - (0.1 + 0.3) / 2 * 2.0,
                                   rtol=1e-6)
        np.testing.assert_allclose(sessions[1].run(var_1), 1 - (0.9 + 1.1) / 2 * 2.0,
                                   rtol=1e-6)
        np.testing.assert_allclose(sessions[1].run(var_sparse),
                                   [[3.0], [4.0 - (0.1 + 0.3) / 2 * 2.0]], rtol=1e-6)
        assert sessions[0].run(local_0) == 0 and sessions[1].run(local_1) == 0
        # The second step's gradients are stale (local step 0 < 1): dropped.
        sessions[0].run(train_ops[0])
        sessions[1].run(train_ops[1])
        assert sessions[1].run(step) == 1
        assert sessions[0].run(local_0) == 1 and sessions[1].run(local_1) == 1
        np.testing.assert_allclose(sessions[1].run(var_0), -0.4, rtol=1e-6)
        # No tokens left: both workers must run together.
        _run_all(sessions, train_ops, [0, 1])
        assert sessions[1].run(step) == 2
        np.testing.assert_allclose(sessions[1].run(var_0), 0 - 2 * (0.1 + 0.3) / 2 * 2.0,
                                   rtol=1e-6)
        np.testing.assert_allclose(sessions[1].run(var_1), 1 - 2 * (0.9 + 1.1) / 2 * 2.0,
                                   rtol=1e-6)
    finally:
        for s in reversed(sessions):
            s.close()


def test_tf_three_workers_one_backup():
    cluster = InProcessCluster({"ps": ["ps0:1", "ps1:1"],
                                "worker": ["w0:1", "w1:1", "w2:1"]})
    sessions, graphs, train_ops = _tf_test_workers(cluster, 3, 2)
    g1 = graphs[1]
    var_0 = g1.get_tensor_by_name("v0:0")
    step = g1.get_tensor_by_name("global_step:0")
    local_1 = g1.get_tensor_by_name("sync_rep_local_step:0")
    var_1 = g1.get_tensor_by_name("v1:0")
    try:
        # Two of the three gradients are aggregated: workers 0 and 2 finish first.
        sessions[0].run(train_ops[0])
        sessions[2].run(train_ops[2])
        _wait_for(sessions[1], step, 1)
        np.testing.assert_allclose(sessions[1].run(var_0), 0 - (0.1 + 0.5) / 2 * 2.0,
                                   rtol=1e-6)
        np.testing.assert_allclose(sessions[1].run(var_1), 1 - (0.9 + 1.3) / 2 * 2.0,
                                   rtol=1e-6)
        # Worker 1's gradient is stale, and so is everyone's next one (local step 0).
        sessions[1].run(train_ops[1])
        for i in range(3):
            sessions[i].run(train_ops[i])
        assert sessions[1].run(step) == 1 and sessions[1].run(local_1) == 1
        thread_0 = threading.Thread(target=sessions[0].run, args=(train_ops[0],))
        thread_0.start()
        threading.Event().wait(0.1)
        assert sessions[1].run(step) == 1  # worker 0 waits for a second gradient
        _run_all(sessions, train_ops, [1])
        thread_0.join(20)
        assert sessions[1].run(step) == 2
        np.testing.assert_allclose(sessions[1].run(var_0), -0.6 - (0.1 + 0.3) / 2 * 2.0,
                                   rtol=1e-6)
        np.testing.assert_allclose(sessions[1].run(var_1), -1.2 - (0.9 + 1.1) / 2 * 2.0,
                                   rtol=1e-6)
    finally:
        for s in reversed(sessions):
            s.close()


def _mlp(x, y):
    w1 = tf.get_variable("w1", initializer=np.linspace(-1, 1, 12).reshape(4, 3)
                         .astype(np.float32))
    b1 = tf.get_variable("b1", initializer=np.full([3], 0.1, np.float32))
    w2 = tf.get_variable("w2", initializer=np.linspace(1, -1, 6).reshape(3, 2)
                         .astype(np.float32))
    hidden = tf.nn.tanh(tf.matmul(x, w1) + b1)
    return tf.reduce_mean(tf.square(tf.matmul(hidden, w2) - y))


def _batches(rounds, replicas, size=5):
    rng = np.random.RandomState(7)
    xs = rng.randn(rounds, replicas, size, 4).astype(np.float32)
    ys = rng.randn(rounds, replicas, size, 2).astype(np.float32)
    return xs, ys


def test_sync_training_equals_combined_batch():
    replicas, rounds = 2, 5
    xs, ys = _batches(rounds, replicas)
    cluster = InProcessCluster({"ps": ["ps0:1"], "worker": ["w%d:1" % i
                                                          for i in range(replicas)]})
    sessions, feeds, train_ops, graphs = [], [], [], []
    for i in range(replicas):
        graph = tf.Graph()
        with graph.as_default(), tf.device(tf.train.replica_device_setter(
                cluster=cluster.spec, worker_device="/job:worker/task:%d" % i)):
            step = tf.train.get_or_create_global_step()
            x = tf.placeholder(tf.float32, [None, 4])
            y = tf.placeholder(tf.float32, [None, 2])
            opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(0.3),
                                                 replicas_to_aggregate=replicas)
            train = opt.minimize(_mlp(x, y), global_step=step)
            hook = opt.make_session_run_hook(i == 0)
            sessions.append(_session(cluster, i, i == 0, [hook]))
        graphs.append(graph)
        feeds.append((x, y))
        train_ops.append(train)
    try:
        for r in range(rounds):
            threads = [threading.Thread(target=sessions[i].run, args=(train_ops[i],), kwargs={
                "feed_dict": {feeds[i][0]: xs[r, i], feeds[i][1]: ys[r, i]}})
                for i in range(replicas)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(20)
            assert not any(t.is_alive() for t in threads)
            if r == 0:
                # The first round ran on the initial tokens: its update must be in before
                # the next round computes (TF's test waits the same way).
                _wait_for(sessions[0], graphs[0].get_tensor_by_name("global_step:0"), 1)
        with graphs[0].as_default():
            names = ["w1:0", "b1:0", "w2:0"]
            got = sessions[0].run([graphs[0].get_tensor_by_name(n) for n in names])
            assert sessions[0].run(tf.train.get_global_step()) == rounds - 1
    finally:
        for s in reversed(sessions):
            s.close()
    # The reference: one process, the replicas' batches concatenated; round 1's gradients
    # are computed on the initial variables and the second round's are stale (TF's initial
    # tokens), so the useful rounds are all but the second.
    graph = tf.Graph()
    with graph.as_default():
        x = tf.placeholder(tf.float32, [None, 4])
        y = tf.placeholder(tf.float32, [None, 2])
        train = tf.train.GradientDescentOptimizer(0.3).minimize(_mlp(x, y))
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            for r in [0] + list(range(2, rounds)):
                sess.run(train, {x: np.concatenate(xs[r]), y: np.concatenate(ys[r])})
            want = sess.run([graph.get_tensor_by_name(n) for n in names])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=0, atol=1e-5)


def test_errors():
    with pytest.raises(ValueError, match="Global step is required"):
        v = tf.Variable(1.0)
        tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(1.0), 2) \
            .apply_gradients([(tf.constant(1.0), v)])
    opt = tf.train.SyncReplicasOptimizer(tf.train.GradientDescentOptimizer(1.0), 2)
    with pytest.raises(ValueError, match="after apply_gradients"):
        opt.get_chief_queue_runner()
    acc = tf.ConditionalAccumulator(tf.float32, shape=[2])
    with pytest.raises(ValueError):
        acc.apply_grad([1.0, 2.0, 3.0])
    take = acc.take_grad(0)
    with tf.Session() as sess, pytest.raises(tf.errors.InvalidArgumentError,
                                             match="num_required must be positive"):
        sess.run(take)


def _comparable(case):
    label, outcome, text = case
    if outcome != "ok" and text.startswith("No OpKernel was registered"):
        # TF's message goes on with the op's creation site and every attr.
        text = text.split(" used by node")[0]
    return [label, outcome, text]


def test_accumulators_match_tf1():
    import json
    import os

    from tests.distributed_api import accumulator_cases

    path = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                        "distributed_api_tf1.json")
    with open(path) as f:
        expected = json.load(f)["accumulators"]
    got = accumulator_cases.run(tf)
    assert [_comparable(c) for c in got] == [_comparable(c) for c in expected]
