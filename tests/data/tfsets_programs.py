"""Programs run on TF 1.15 (record_tfsets.py writes tfsets_tf.json) and on flowloom
(tests/ops/test_tfsets_vs_tf.py): the set ops (tf.sets) with their checks, SparseTensorDenseMatMul
and its gradient, the *_at_k metrics, and the training functions of TF 1.15's training tests.
Each entry is a value (nested lists), a static shape, or [error class, first line of the
message]."""

import numpy as np


def _value(x):
    if isinstance(x, (list, tuple)) or type(x).__name__ == "SparseTensorValue":
        return [_value(v) for v in x]
    x = np.asarray(x)
    if x.dtype.kind == "f":
        return [None if np.isnan(v) else float(v) for v in x.reshape(-1)] + [list(x.shape)]
    if x.dtype.kind == "O":
        return [v.decode() if isinstance(v, bytes) else v for v in x.reshape(-1).tolist()]
    return x.tolist()


def _run(s, fn):
    try:
        return _value(s.run(fn()))
    except Exception as e:  # noqa: BLE001 - the class and message are what is compared
        message = getattr(e, "message", None) or str(e)
        return [type(e).__name__, message.split("\n")[0]]


def _build(fn):
    try:
        fn()
        return "built"
    except Exception as e:  # noqa: BLE001
        return [type(e).__name__, str(e).split("\n")[0]]


def _shape(t):
    return None if t.shape.ndims is None else t.shape.as_list()


def _sparse_shapes(st):
    return [_shape(st.indices), _shape(st.values), _shape(st.dense_shape)]


def sets_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        ind = [[0, 0], [0, 1], [0, 2], [1, 0], [2, 0], [2, 1], [2, 2], [2, 3]]
        for dtype in (tf.int32, tf.int64, tf.uint8, tf.string):
            vals = [9, 1, 9, 3, 5, 5, 2, 7]
            vals = [str(v) for v in vals] if dtype == tf.string else vals
            sp = tf.SparseTensor(ind, tf.constant(vals, dtype), [4, 5])
            dense = [[1, 9, 9, 0], [4, 3, 3, 3], [7, 7, 6, 5], [8, 8, 8, 8]]
            dense = tf.constant([[str(v) for v in r] for r in dense] if dtype == tf.string
                                else dense, dtype)
            name = dtype.name
            out[f"size_{name}"] = _run(s, lambda: tf.sets.set_size(sp))
            for op in ("set_intersection", "set_union"):
                fn = getattr(tf.sets, op)
                out[f"{op}_dd_{name}"] = _run(s, lambda: fn(dense, dense[::-1]))
                out[f"{op}_ds_{name}"] = _run(s, lambda: fn(dense, sp))
                out[f"{op}_sd_{name}"] = _run(s, lambda: fn(sp, dense))
                out[f"{op}_ss_{name}"] = _run(s, lambda: fn(sp, sp))
            for aminusb in (True, False):
                out[f"diff_ds_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(dense, sp, aminusb=aminusb))
                out[f"diff_sd_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(sp, dense, aminusb=aminusb))
                out[f"diff_dd_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(dense, tf.reverse(dense, [1]),
                                                      aminusb=aminusb))
                out[f"diff_dd_rows_{aminusb}_{name}"] = _run(
                    s, lambda: tf.sets.set_difference(dense, dense[::-1], aminusb=aminusb))
        a3 = tf.SparseTensor([[0, 0, 0], [0, 1, 1], [1, 0, 2], [1, 1, 0]], [1, 2, 3, 4],
                             [2, 2, 3])
        b3 = tf.SparseTensor([[0, 1, 0], [1, 1, 0], [1, 1, 3]], [2, 5, 4], [2, 2, 4])
        out["union_3d"] = _run(s, lambda: tf.sets.union(a3, b3))
        out["size_3d"] = _run(s, lambda: tf.sets.size(a3))
        out["intersection_3d_shapes"] = _sparse_shapes(tf.sets.intersection(a3, b3))
        out["dd_shapes"] = _sparse_shapes(tf.sets.intersection(tf.zeros([2, 3, 4], tf.int32),
                                                               tf.zeros([2, 3, 2], tf.int32)))
        out["ds_shapes"] = _sparse_shapes(tf.sets.intersection(tf.zeros([2, 3, 4], tf.int32),
                                                               b3))
        out["size_shape"] = _shape(tf.sets.set_size(a3))
        bad_order = tf.SparseTensor([[0, 1], [0, 0]], [1, 2], [2, 2])
        repeated = tf.SparseTensor([[0, 1], [0, 1]], [1, 2], [2, 2])
        out_of_bounds = tf.SparseTensor([[0, 1], [0, 5]], [1, 2], [2, 2])
        good = tf.SparseTensor([[0, 0], [1, 1]], [1, 2], [2, 2])
        for key, st in (("order", bad_order), ("repeated", repeated), ("bounds", out_of_bounds)):
            out[f"size_bad_{key}"] = _run(s, lambda: tf.sets.set_size(st))
            out[f"ss_bad_first_{key}"] = _run(s, lambda: tf.sets.set_union(st, good))
            out[f"ss_bad_second_{key}"] = _run(s, lambda: tf.sets.set_union(good, st))
            out[f"ds_bad_{key}"] = _run(s, lambda: tf.sets.set_union([[1, 2], [3, 4]], st))
        out["dd_mismatch"] = _run(s, lambda: tf.sets.set_union(
            tf.placeholder_with_default([[1, 2], [3, 4]], [None, 2]), [[1, 2]]))
        out["ds_mismatch"] = _run(s, lambda: tf.sets.set_union(
            tf.placeholder_with_default([[1, 2], [3, 4], [5, 6]], None), good))
        out["ss_mismatch"] = _run(s, lambda: tf.sets.set_union(
            good, tf.SparseTensor([[0, 0]], [1], [3, 2])))
        rank1 = tf.SparseTensor([[0], [1]], [1, 2], [2])
        out["size_rank1"] = _run(s, lambda: tf.sets.set_size(rank1))
        out["dd_rank1_build"] = _build(lambda: tf.sets.set_union([1, 2], [1, 2]))
        out["ss_rank1_build"] = _build(lambda: tf.sets.set_union(rank1, rank1))
        out["dd_rank_mismatch_build"] = _build(lambda: tf.sets.set_union([[1, 2]], [[[1, 2]]]))
        out["dd_group_mismatch_build"] = _build(lambda: tf.sets.set_union([[1, 2]],
                                                                          [[1], [2]]))
        out["float_type"] = _build(lambda: tf.sets.set_union([[1.0]], [[1.0]]))
        out["types_differ"] = _build(lambda: tf.sets.set_union(
            tf.constant([[1]], tf.int32), tf.constant([[1]], tf.int64)))
        out["size_dense"] = _build(lambda: tf.sets.set_size([[1, 2]]))
        out["size_float"] = _build(lambda: tf.sets.set_size(
            tf.SparseTensor([[0, 0]], [1.0], [1, 1])))
        out["empty"] = _run(s, lambda: tf.sets.set_intersection(
            tf.SparseTensor(tf.zeros([0, 2], tf.int64), tf.zeros([0], tf.int32), [3, 2]),
            tf.constant([[1, 2], [3, 4], [5, 6]])))
        out["contrib_size"] = _run(s, lambda: tf.contrib.metrics.set_size(good))
    return out


def _metric(tf, fn):
    """(update value, value, local variable names) of a fresh streaming metric, or the error
    building it."""
    with tf.Graph().as_default(), tf.Session() as s:
        try:
            value, update = fn()
        except Exception as e:  # noqa: BLE001
            return [type(e).__name__, str(e).split("\n")[0]]
        s.run(tf.local_variables_initializer())
        runs = [_run(s, lambda: update), _run(s, lambda: value), _run(s, lambda: update)]
        for i, got in enumerate(runs):
            if isinstance(got, list) and got[:1] == ["InvalidArgumentError"]:
                # several Asserts fail in one run: which one is reported is up to the scheduler
                runs[i] = [got[0], got[1].split(" [values.shape=]")[0]]
        return runs + [sorted(v.op.name for v in tf.local_variables())]


def metrics_program(tf):
    out = {}
    logits = [[0.1, 0.3, 0.2, 0.4, 0.0, 0.9], [0.3, 0.1, 0.6, 0.0, 0.8, 0.2],
              [0.5, 0.4, 0.3, 0.2, 0.1, 0.05]]
    dense_labels = [[1, 3, -1], [0, 4, 2], [5, 7, 1]]
    sparse = ([[0, 0], [0, 1], [1, 0], [2, 0], [2, 1]], [3, 5, 4, 0, 9], [3, 2])
    single = [3, 2, 0]
    for k in (1, 2, 3, 5):
        for cid in (None, 0, 3, 4, 8):
            for key, labels in (("dense", dense_labels), ("sparse", sparse),
                                ("single", single)):
                def lab():
                    if key == "sparse":
                        return tf.SparseTensor(*sparse)
                    return tf.constant(labels, tf.int64)
                for name in ("precision_at_k", "recall_at_k"):
                    out[f"{name}_{key}_k{k}_c{cid}"] = _metric(tf, lambda: getattr(
                        tf.metrics, name)(lab(), tf.constant(logits), k, class_id=cid))
                if cid is None:
                    out[f"ap_{key}_k{k}"] = _metric(
                        tf, lambda: tf.metrics.average_precision_at_k(lab(), tf.constant(logits),
                                                                      k))
                    out[f"ap_w_{key}_k{k}"] = _metric(
                        tf, lambda: tf.metrics.average_precision_at_k(
                            lab(), tf.constant(logits), k,
                            weights=tf.constant([[1.0], [0.5], [0.0]])))
    out["precision_top_k"] = _metric(tf, lambda: tf.metrics.precision_at_top_k(
        tf.constant(dense_labels, tf.int64), tf.constant([[5, 3], [4, 2], [0, 1]]), k=2))
    out["recall_top_k_weighted"] = _metric(tf, lambda: tf.metrics.recall_at_top_k(
        tf.constant(dense_labels, tf.int64), tf.constant([[5, 3], [4, 2], [0, 1]]),
        weights=[2.0, 1.0, 0.5]))
    out["precision_weights_rank"] = _metric(tf, lambda: tf.metrics.precision_at_k(
        tf.constant(dense_labels, tf.int64), tf.constant(logits), 2,
        weights=tf.constant([[[1.0]]])))
    out["recall_weights_bad"] = _metric(tf, lambda: tf.metrics.recall_at_k(
        tf.constant(dense_labels, tf.int64), tf.constant(logits), 2,
        weights=tf.constant([1.0, 2.0])))
    out["ap_bad_k"] = _metric(tf, lambda: tf.metrics.average_precision_at_k(
        tf.constant(dense_labels, tf.int64), tf.constant(logits), 0))
    out["sparse_precision_at_k"] = _metric(tf, lambda: tf.metrics.sparse_precision_at_k(
        tf.constant(dense_labels, tf.int64), tf.constant(logits), 2))
    out["sparse_ap_at_k"] = _metric(tf, lambda: tf.metrics.sparse_average_precision_at_k(
        tf.constant(dense_labels, tf.int64), tf.constant(logits), 2))
    return out


def sparse_concat_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        a = tf.SparseTensor([[0, 2], [1, 0], [1, 1]], ["a", "b", "c"], [2, 3])
        b = tf.SparseTensor([[0, 1], [0, 2]], ["d", "e"], [2, 4])
        c = tf.SparseTensor([[0, 0], [2, 1]], ["f", "g"], [3, 2])
        out["axis1"] = _run(s, lambda: tf.sparse_concat(1, [a, b]))
        out["axis_neg"] = _run(s, lambda: tf.sparse_concat(-1, [a, b, a]))
        out["axis0"] = _run(s, lambda: tf.sparse_concat(0, [a, a]))
        out["mismatch"] = _run(s, lambda: tf.sparse_concat(0, [a, b]))
        out["expand"] = _run(s, lambda: tf.sparse_concat(1, [a, c], expand_nonconcat_dim=True))
        out["bad_axis"] = _run(s, lambda: tf.sparse_concat(2, [a, b]))
        out["rank"] = _run(s, lambda: tf.sparse_concat(
            0, [a, tf.SparseTensor([[0, 0, 0]], ["x"], [1, 1, 1])]))
        out["one"] = _run(s, lambda: tf.sparse_concat(0, [a]))
        out["shapes"] = _sparse_shapes(tf.sparse_concat(1, [a, b]))
        out["dynamic_shapes"] = _sparse_shapes(tf.sparse_concat(1, [
            a, tf.SparseTensor(tf.placeholder_with_default(b.indices, [None, 2]),
                               b.values, tf.placeholder_with_default(b.dense_shape, [2]))]))
        out["not_sparse"] = _build(lambda: tf.sparse_concat(1, [a, [[1]]]))
    return out


def sparse_matmul_program(tf):
    out = {}
    a_ind = [[0, 1], [1, 0], [1, 2], [2, 2]]
    a_val = np.array([2.0, -1.0, 0.5, 3.0], np.float32)
    b = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.0
    with tf.Graph().as_default(), tf.Session() as s:
        sp = tf.SparseTensor(a_ind, a_val, [3, 3])
        for adj_a in (False, True):
            for adj_b in (False, True):
                rhs = b[:, :3].T if adj_b else b[:, :3]
                out[f"product_{adj_a}_{adj_b}"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(
                    sp, rhs, adjoint_a=adj_a, adjoint_b=adj_b))
        out["wide"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(sp, np.tile(b, (1, 20))))
        out["int32_indices"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(
            tf.SparseTensor(tf.constant(a_ind, tf.int64), a_val, [3, 3]), b))
        out["int32_values"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(
            tf.SparseTensor(a_ind, [1, 2, 3, 4], [3, 3]), b.astype(np.int32)))
        csp = tf.SparseTensor(a_ind, a_val.astype(np.complex64) * (1 + 2j), [3, 3])
        cb = (b + 1j * b[::-1]).astype(np.complex64)[:, :3]
        # adjoint_a of complex values: TF 1.15's CPU kernel does not conjugate (its
        # MaybeConj is the identity; TF 2.x conjugates): flowloom conjugates, checked against
        # NumPy in test_tfsets_vs_tf.py, so only adjoint_a=False is recorded here.
        for adj_a in (False,):
            for adj_b in (False, True):
                out[f"complex_{adj_a}_{adj_b}"] = _run(s, lambda: tf.math.real(
                    tf.sparse_tensor_dense_matmul(csp, cb, adjoint_a=adj_a,
                                                  adjoint_b=adj_b)))
                out[f"complex_imag_{adj_a}_{adj_b}"] = _run(s, lambda: tf.math.imag(
                    tf.sparse_tensor_dense_matmul(csp, cb, adjoint_a=adj_a,
                                                  adjoint_b=adj_b)))
        bad = tf.SparseTensor([[1, 10]], [10.0], [3, 2])
        out["bad_k"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(bad, np.ones([2, 5],
                                                                               np.float32)))
        out["bad_m"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(
            bad, np.ones([3, 5], np.float32), adjoint_a=True))
        out["bad_inner"] = _run(s, lambda: tf.sparse_tensor_dense_matmul(
            tf.SparseTensor(a_ind, a_val, tf.placeholder_with_default(
                np.array([3, 4], np.int64), [2])), b))
        out["static_mismatch"] = _build(lambda: tf.sparse_tensor_dense_matmul(
            tf.SparseTensor(a_ind, a_val, [3, 5]), b))
        out["shape"] = _shape(tf.sparse_tensor_dense_matmul(sp, b))
        out["shape_adjoint"] = _shape(tf.sparse_tensor_dense_matmul(
            tf.SparseTensor(a_ind, a_val, [3, 7]), b.T, adjoint_a=True, adjoint_b=True))
        out["shape_unknown"] = _shape(tf.sparse_tensor_dense_matmul(
            tf.SparseTensor(a_ind, a_val, tf.placeholder(tf.int64)), b))
        out["op_name"] = tf.sparse_tensor_dense_matmul(sp, b).op.name
        out["sparse_matmul_alias"] = _run(s, lambda: tf.sparse.matmul(sp, b))
        values = tf.constant(a_val)
        dense = tf.constant(b[:, :3])
        for adj_a in (False, True):
            for adj_b in (False, True):
                prod = tf.sparse_tensor_dense_matmul(tf.SparseTensor(a_ind, values, [3, 3]),
                                                     dense, adjoint_a=adj_a, adjoint_b=adj_b)
                loss = tf.reduce_sum(prod * tf.constant(np.arange(9.0, dtype=np.float32)
                                                        .reshape(3, 3)))
                out[f"grad_{adj_a}_{adj_b}"] = _run(s, lambda: tf.gradients(loss,
                                                                             [values, dense]))
        cprod = tf.sparse_tensor_dense_matmul(csp, cb)
        out["complex_grad"] = _build(lambda: tf.gradients(tf.reduce_sum(tf.math.real(cprod)),
                                                          [csp.values]))
    return out


def training_program(tf):
    out = {}
    with tf.Graph().as_default(), tf.Session() as s:
        x_int = tf.Variable(0, dtype=tf.int32)
        x_int64 = tf.Variable(2, dtype=tf.int64)
        x = tf.Variable(0.5)
        out["pc_float_boundaries_int_x"] = _build(lambda: tf.train.piecewise_constant(
            x_int, [-1.0, 1.0], [1, 2, 3]))
        out["pc_mixed_values"] = _build(lambda: tf.train.piecewise_constant(
            x, [-1.0, 1.0], [1.0, 2, 3]))
        out["pc_lengths"] = _build(lambda: tf.train.piecewise_constant(x, [-1.0], [1.0]))
        out["pc_lengths_and_dtype"] = _build(lambda: tf.train.piecewise_constant(
            x_int, [1.0], [1.0]))
        s.run(tf.global_variables_initializer())
        out["pc_int_boundaries_int64_x"] = _run(s, lambda: tf.train.piecewise_constant(
            x_int64, [1, 2, 3], [0.4, 0.5, 0.6, 0.7]))
        out["pc_ref"] = _run(s, lambda: tf.train.piecewise_constant(
            x.op.outputs[0], [1.0, 2.0], [1, 2, 3]))
        for step in (0, 250, 999, 1500):
            out[f"noisy_no_variance_{step}"] = _run(
                s, lambda: tf.train.noisy_linear_cosine_decay(
                    1.0, step, 1000, initial_variance=0.0, alpha=0.1, beta=1e-3,
                    num_periods=2))
            out[f"noisy_shape_{step}"] = _shape(tf.train.noisy_linear_cosine_decay(
                0.5, step, 1000))
        out["noisy_no_step"] = _build(lambda: tf.train.noisy_linear_cosine_decay(1.0, None,
                                                                                  10))
        t = tf.convert_to_tensor(1.0)
        sgd = tf.train.GradientDescentOptimizer(3.0)
        grads = sgd.compute_gradients(t * t, [t])
        out["tensor_grads"] = _run(s, lambda: [g for g, _ in grads])
        out["tensor_var_is_tensor"] = grads[0][1] is t
        out["apply_to_tensor"] = _build(lambda: sgd.apply_gradients(grads))
    for paths in (None, [], ["model-2"], ["/x/model-1", "model-0"]):
        given = None if paths is None else list(paths)
        state = tf.train.generate_checkpoint_state_proto("/tmp/d", "/tmp/d/model-0",
                                                         all_model_checkpoint_paths=given)
        out[f"state_{paths}"] = [list(state.all_model_checkpoint_paths), given]
    given = ["model-1", "d/model-2"]
    state = tf.train.generate_checkpoint_state_proto("d", "d/model-3", given)
    out["state_relative"] = [state.model_checkpoint_path,
                             list(state.all_model_checkpoint_paths), given]
    return out


def init_from_checkpoint_program(tf):
    import shutil
    import tempfile

    out = {}
    ckpt_dir = tempfile.mkdtemp(prefix="tfsets_ckpt_")
    with tf.Graph().as_default(), tf.Session() as s:
        tf.Variable(np.arange(12.0, dtype=np.float32).reshape(4, 3), name="var1")
        with tf.variable_scope("useful_scope"):
            tf.Variable(np.arange(3.0, dtype=np.float32), name="var2")
        s.run(tf.global_variables_initializer())
        tf.train.Saver().save(s, ckpt_dir + "/model", global_step=0)

    def errors_of(assignment):
        with tf.Graph().as_default():
            with tf.variable_scope("some_scope"):
                tf.get_variable("my1", [4, 3])
                tf.get_variable("other", [5, 5])
            got = _build(lambda: tf.train.init_from_checkpoint(ckpt_dir, assignment))
            # the directory is made per run; the checkpoint's map prints in reader order
            return [got[0], got[1].replace(ckpt_dir, "CKPT").split(" checkpoint {")[0]]

    out["missing_in_ckpt"] = errors_of({"no_var": "some_scope/my1"})
    out["missing_in_graph"] = errors_of({"var1": "some_scope/no_var"})[:1]
    out["shape_mismatch"] = errors_of({"var1": "some_scope/other"})[:1]
    out["scope_to_name"] = errors_of({"useful_scope": "some_scope/"})
    out["scope_missing_vars"] = errors_of({"useful_scope/": "some_scope/"})[:1]
    with tf.Graph().as_default() as g, tf.Session() as s:
        with tf.variable_scope("p"):
            part = tf.get_variable("w", [4, 3], partitioner=tf.fixed_size_partitioner(2))
        res = tf.get_variable("r", [3], use_resource=True)
        with tf.name_scope("init"):
            tf.train.init_from_checkpoint(ckpt_dir, {"var1": "p/w", "useful_scope/var2": res})
        s.run(tf.global_variables_initializer())
        out["partitioned"] = _run(s, lambda: tf.convert_to_tensor(part))
        out["resource"] = _run(s, lambda: res.read_value())
        out["ops"] = sorted((op.name, op.type) for op in g.get_operations()
                            if op.name.startswith("init/"))
    shutil.rmtree(ckpt_dir, ignore_errors=True)
    return out


def run_options_program(tf):
    """The RunOptions a MonitoredSession's hooks see after merging theirs with the caller's."""

    class Hook(tf.train.SessionRunHook):
        def __init__(self, trace_level, timeout, partition_graphs, node, oom):
            self.args = (trace_level, timeout, partition_graphs, node, oom)
            self.seen = []

        def before_run(self, run_context):
            trace_level, timeout, partition_graphs, node, oom = self.args
            options = tf.RunOptions(trace_level=trace_level, timeout_in_ms=timeout,
                                    output_partition_graphs=partition_graphs,
                                    report_tensor_allocations_upon_oom=oom)
            options.debug_options.debug_tensor_watch_opts.add(
                node_name=node, output_slot=0, debug_ops=["DebugIdentity"])
            return tf.train.SessionRunArgs(None, None, options=options)

        def after_run(self, run_context, run_values):
            o = run_values.options
            self.seen.append([o.trace_level, o.timeout_in_ms, o.output_partition_graphs,
                              o.report_tensor_allocations_upon_oom,
                              [w.node_name for w in o.debug_options.debug_tensor_watch_opts],
                              len(run_values.run_metadata.partition_graphs) > 0])

    out = {}
    with tf.Graph().as_default():
        c = tf.constant(42, name="my_const")
        tf.constant(24, name="my_const_2")
        a, b = Hook(2, 30000, False, "my_const", False), Hook(3, 60000, True, "my_const_2", True)
        with tf.train.MonitoredSession(hooks=[a, b]) as sess:
            out["value"] = int(sess.run(c))
            caller = tf.RunOptions(trace_level=1, timeout_in_ms=100)
            caller.debug_options.debug_tensor_watch_opts.add(node_name="my_const_2")
            sess.run(c, options=caller)
        out["hooks"] = [a.seen, b.seen]
    return out


def recovery_program(tf):
    """A non-preemption error reported to the coordinator: should_stop turns True (no new
    session), and close raises it."""

    class StopWithError(tf.train.SessionRunHook):
        def after_create_session(self, session, coord):
            self.coord = coord

        def after_run(self, run_context, run_values):
            try:
                raise tf.errors.UnknownError(None, None, "fatal inside the coordinator")
            except tf.errors.UnknownError as e:
                self.coord.request_stop(e)

    out = {}
    with tf.Graph().as_default():
        c = tf.constant(0)
        v = tf.identity(c)
        sess = tf.train.MonitoredSession(hooks=[StopWithError()])
        out["run"] = int(sess.run(v, feed_dict={c: 42}))
        try:
            out["should_stop"] = bool(sess.should_stop())
        except Exception as e:  # noqa: BLE001
            out["should_stop"] = [type(e).__name__, str(e)]
        out["close"] = _build(sess.close)
    return out


def program(tf):
    return {"sets": sets_program(tf), "metrics": metrics_program(tf),
            "sparse_concat": sparse_concat_program(tf),
            "sparse_matmul": sparse_matmul_program(tf), "training": training_program(tf),
            "init_from_checkpoint": init_from_checkpoint_program(tf),
            "run_options": run_options_program(tf), "recovery": recovery_program(tf)}
