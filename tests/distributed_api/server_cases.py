"""Programs on in-process servers (`tf.train.Server.create_local_server()`, a local cluster of
several tasks in one process), run under flowloom and recorded under TF 1.15
(tests/data/record_server_lib.py -> tests/data/server_lib_tf1.json).

`run(tf, make_cluster)` returns [[label, outcome], ...]; an outcome is a value or the name
of the error class raised. `make_cluster(tf, num_workers, num_ps)` gives (workers, ps) whose
`target` sessions take: TF's own servers under TF, flowloom's in-process cluster under
flowloom.
"""

import threading
import time


def _outcome(fn):
    try:
        value = fn()
    except Exception as e:  # noqa: BLE001 - the class is the outcome
        return type(e).__name__
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        value = [v.tolist() if hasattr(v, "tolist") else v for v in value]
    return value


def run(tf, make_cluster):
    out = []
    s1 = tf.train.Server.create_local_server()
    s2 = tf.train.Server.create_local_server()
    out.append(["two_servers_two_targets", s1.target != s2.target])
    out.append(["same_address", _outcome(
        lambda: tf.train.Server({"local_2": [s1.target[len("grpc://"):]]}))])
    with tf.Graph().as_default():
        with tf.device("/job:local"):  # create_local_server's job
            lv = tf.Variable(1, name="lv")
            ladd = lv + 1
        with tf.Session(s1.target) as sess:
            sess.run(lv.initializer)
            out.append(["job_local", _outcome(lambda: sess.run(ladd))])
    with tf.Graph().as_default():
        with tf.device("/job:foo/task:3"):
            nowhere = tf.constant(1) + 1
        with tf.Session(s1.target) as sess:
            out.append(["job_unknown", _outcome(lambda: sess.run(nowhere))])
    out.append(["no_port", _outcome(
        lambda: tf.train.Server({"local": ["localhost"]}, job_name="local", task_index=0))])

    with tf.Graph().as_default():
        with tf.container("test0"):
            v0 = tf.Variable(1.0, name="v0")
        v1 = tf.Variable(2.0, name="v1")
        a = tf.Session(s1.target)
        a.run(tf.global_variables_initializer())
        b = tf.Session(s1.target)
        out.append(["shared_by_sessions", _outcome(lambda: b.run([v0, v1]))])
        out.append(["other_server", _outcome(lambda: tf.Session(s2.target).run(v1))])
        iso = tf.Session(s1.target, config=tf.ConfigProto(isolate_session_state=True))
        out.append(["isolated", _outcome(lambda: iso.run(v1))])
        tf.Session.reset(s1.target, ["test1"])
        c = tf.Session(s1.target)
        out.append(["reset_other_container", _outcome(lambda: c.run([v0, v1]))])
        tf.Session.reset(s1.target, ["test0"])
        c = tf.Session(s1.target)
        out.append(["reset_test0_v0", _outcome(lambda: c.run(v0))])
        out.append(["reset_test0_v1", _outcome(lambda: c.run(v1))])
    out.append(["reset_unknown_target", _outcome(lambda: tf.Session.reset("nonexistent"))])
    out.append(["reset_no_server", _outcome(lambda: tf.Session.reset(
        "grpc://localhost:0", ["x"], config=tf.ConfigProto(operation_timeout_in_ms=5)))])

    with tf.Graph().as_default():
        w = tf.Variable([1, 2, 3], name="w")
        with tf.Session(s2.target) as sess:
            sess.run(w.initializer)
    with tf.Graph().as_default():
        w = tf.Variable([4, 5, 6], name="w")
        with tf.Session(s2.target) as sess:
            out.append(["shared_by_graphs", _outcome(lambda: sess.run(w))])
    with tf.Graph().as_default():
        w = tf.Variable(86, name="w")
        with tf.Session(s2.target) as sess:
            out.append(["other_shape_init", _outcome(lambda: sess.run(w.initializer))])

    with tf.Graph().as_default():
        q = tf.FIFOQueue(10, [tf.float32])
        dequeue = q.dequeue()
        sess = tf.Session(s1.target)
        result = []

        def blocked():
            try:
                sess.run(dequeue)
                result.append("returned")
            except tf.errors.OpError as e:
                result.append(type(e).__name__)
                result.append("Session::Close" in e.message)

        thread = threading.Thread(target=blocked)
        thread.start()
        time.sleep(0.5)
        sess.close()
        thread.join(30)
        out.append(["close_cancels_dequeue", result])
        with tf.Session(s1.target) as sess:
            out.append(["run_timeout", _outcome(lambda: sess.run(
                dequeue, options=tf.RunOptions(timeout_in_ms=300)))])

    workers, ps = make_cluster(tf, 2, 1)
    with tf.Graph().as_default():
        with tf.device("/job:ps/task:0"):
            pv = tf.Variable(7.0, name="pv")
        with tf.device("/job:worker/task:0"):
            wv = tf.Variable(8.0, name="wv")
        with tf.device("/job:worker/task:1"):
            total = pv + wv
        with tf.Session(workers[0].target) as sess:
            sess.run(tf.global_variables_initializer())
        with tf.Session(workers[1].target) as sess:
            out.append(["cluster_shared_vars", _outcome(lambda: sess.run(total))])
        tf.Session.reset(workers[1].target)
        with tf.Session(workers[0].target) as sess:
            out.append(["cluster_reset", _outcome(lambda: sess.run(pv))])
    return out


def resource_placement(tf):
    """Where a local session of 3 CPUs runs the ops of a TensorArray written on /cpu:1 and
    read on /cpu:2, a resource variable read on another CPU, and an Assign placed on another
    CPU than its variable: {node name: "CPU:n"} from the step stats, and each op's device
    and colocation groups in the graph."""
    with tf.Graph().as_default() as g:
        ta = tf.TensorArray(dtype=tf.float32, size=2)
        with tf.device("/cpu:1"):
            ta = ta.write(0, 1.0)
        with tf.device("/cpu:2"):
            ta = ta.write(1, 2.0)
            r = ta.read(0)
        with tf.device("/cpu:0"):
            rv = tf.get_variable("rv", initializer=5.0, use_resource=True)
        with tf.device("/cpu:2"):
            read = rv.read_value() * 2.0
        with tf.device("/cpu:1"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/cpu:2"):
            assign = tf.assign(v, 3.0)
        reads = [op.name for op in g.get_operations() if op.type == "ReadVariableOp"]
        graph = [[op.name, op.device, [c.decode() for c in op.colocation_groups()]]
                 for op in g.get_operations() if "TensorArray" in op.name]
        config = tf.ConfigProto(device_count={"CPU": 3})
        with tf.Session(config=config) as sess:
            sess.run(tf.global_variables_initializer())
            meta = tf.RunMetadata()
            sess.run([ta.flow, r, read, assign],
                     options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=meta)
    wanted = {ta.flow.op.name, r.op.name, "TensorArray", "rv", read.op.inputs[0].op.name, "v",
              assign.op.name} | set(reads)
    ran = {}
    for d in meta.step_stats.dev_stats:
        for n in d.node_stats:
            if n.node_name in wanted:
                ran[n.node_name] = d.device.rsplit("/device:", 1)[-1]
    return {"ran": ran, "graph": graph}
