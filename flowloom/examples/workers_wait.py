"""The distributed-training seed: the chief initializes the variables while the other workers
wait for it, and a variable that only the chief's task ever initializes makes a worker wait
forever (here: until its deadline). Runs on an in-process cluster (no servers needed).

    python3 -m flowloom.examples.workers_wait
"""

import flowloom as tf
from flowloom.distributed.inprocess import InProcessCluster

CLUSTER = {"ps": ["ps0:2222"], "worker": ["worker0:2222", "worker1:2222"]}


def _graph(cluster, task_index, counter_collections):
    """One task's graph, as each task's process builds it: model variables on the ps, a
    per-worker counter on the worker's own task."""
    graph = tf.Graph()
    with graph.as_default():
        with tf.device(tf.train.replica_device_setter(
                cluster=cluster.spec, worker_device="/job:worker/task:%d" % task_index)):
            step = tf.train.get_or_create_global_step()
            weights = tf.get_variable("weights", [4], initializer=tf.ones_initializer())
            tf.train.GradientDescentOptimizer(0.1).minimize(tf.reduce_sum(weights ** 2),
                                                            global_step=step)
        with tf.device("/job:worker/task:%d" % task_index):
            tf.Variable(0, name="examples_seen", collections=counter_collections)
        ready = tf.report_uninitialized_variables()
        ready_for_local = tf.report_uninitialized_variables(tf.global_variables())
        local_init = tf.local_variables_initializer()
        init = tf.global_variables_initializer()
    manager = tf.train.SessionManager(
        ready_op=ready, ready_for_local_init_op=ready_for_local, local_init_op=local_init,
        graph=graph, recovery_wait_secs=0.1)
    return manager, init, step


def workers_wait_for_the_chief():
    """A per-worker variable in GLOBAL_VARIABLES hangs the other workers; LOCAL_VARIABLES
    fixes it."""
    for label, collections in [("GLOBAL_VARIABLES", None),
                               ("LOCAL_VARIABLES", [tf.GraphKeys.LOCAL_VARIABLES])]:
        cluster = InProcessCluster(CLUSTER)
        chief_manager, init, step = _graph(cluster, 0, collections)
        chief = chief_manager.prepare_session(cluster.target("worker", 0), init_op=init)
        print("counter in %s: the chief is ready at global step %d" % (label, chief.run(step)))
        worker_manager, _, step1 = _graph(cluster, 1, collections)
        try:
            worker = worker_manager.wait_for_session(cluster.target("worker", 1),
                                                     max_wait_secs=0.5)
            print("  worker 1 is ready at global step %d" % worker.run(step1))
        except tf.errors.DeadlineExceededError as e:
            print("  worker 1: %s: %s" % (type(e).__name__, e.message))


if __name__ == "__main__":
    tf.logging.set_verbosity(tf.logging.INFO)
    workers_wait_for_the_chief()
