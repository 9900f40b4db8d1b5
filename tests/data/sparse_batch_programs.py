"""Programs run on TF 1.15 (record_sparse_batch.py) and on flowloom
(tests/input_pipelines/test_sparse_batching.py): SparseTensors through tf.train.batch and
friends (the SparseTensorsMap ops), tf.dynamic_partition, and shape/size/rank of sparse
inputs. Each is called as `prog(tf, sparse_map)`: `tf` is the module under test and
`sparse_map` holds its add_sparse_to_tensors_map, add_many_sparse_to_tensors_map and
take_many_sparse_from_tensors_map (TF keeps them private in sparse_ops). Each returns plain
JSON data."""

import numpy as np


def _v(x):
    if hasattr(x, "indices") and hasattr(x, "dense_shape"):
        return {"indices": _v(x.indices), "values": _v(x.values),
                "dense_shape": _v(x.dense_shape)}
    if isinstance(x, (list, tuple)):
        return [_v(e) for e in x]
    if isinstance(x, np.ndarray):
        if x.dtype == object:
            return [e.decode() if isinstance(e, bytes) else e for e in x.tolist()]
        return x.tolist()
    if isinstance(x, (np.generic,)):
        return x.item()
    if isinstance(x, bytes):
        return x.decode()
    return x


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the class is what is compared
        return type(e).__name__
    return None


def _graph(g):
    return [[op.name, op.type, [t.name for t in op.inputs],
             sorted(c.name for c in op.control_inputs)] for op in g.get_operations()]


def _sparse_counter(tf, counter, zero64):
    return tf.SparseTensor(indices=tf.reshape(tf.stack([zero64, zero64 + 1]), [2, 1]),
                           values=tf.cast(tf.stack([counter, -counter]), tf.float32),
                           dense_shape=[2])


def _drain(tf, sess, fetch, limit=20):
    out = []
    for _ in range(limit):
        try:
            out.append(_v(sess.run(fetch)))
        except tf.errors.OutOfRangeError:
            out.append("OutOfRange")
            break
    return out


def prog_batch_one_thread(tf, sparse_map):
    with tf.Graph().as_default() as g, tf.Session() as sess:
        zero64 = tf.constant(0, dtype=tf.int64)
        counter = tf.Variable(zero64).count_up_to(6)
        sp = _sparse_counter(tf, counter, zero64)
        batched = tf.train.batch([counter, sp, "s"], batch_size=3)
        shapes = [batched[1].indices.shape.as_list(), batched[1].dense_shape.shape.as_list()]
        sess.run(tf.global_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        values = _drain(tf, sess, batched)
        coord.request_stop()
        coord.join(threads)
        return {"graph": _graph(g), "shapes": shapes, "values": values}


def prog_batch_enqueue_many_keep(tf, sparse_map):
    with tf.Graph().as_default() as g, tf.Session() as sess:
        sp = tf.SparseTensor(indices=[[0, 0], [0, 2], [2, 1], [3, 0]], values=[1., 2., 3., 4.],
                             dense_shape=[4, 3])
        keep = tf.placeholder(tf.bool, [])
        batched = tf.train.maybe_batch([sp], keep_input=keep, batch_size=4,
                                       enqueue_many=True)
        per_row = tf.train.maybe_batch([sp, tf.constant([10, 20, 30, 40])],
                                       keep_input=[True, False, True, True], batch_size=3,
                                       enqueue_many=True)
        enqueues = [qr.enqueue_ops[0] for qr in tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)]
        sess.run(enqueues[0], {keep: True})
        sess.run(enqueues[0], {keep: False})
        sess.run(enqueues[1])
        return {"graph": _graph(g), "kept": _v(sess.run(batched)),
                "per_row": _v(sess.run(per_row)),
                "static": batched.dense_shape.shape.as_list()}


def prog_batch_join_and_shuffle(tf, sparse_map):
    with tf.Graph().as_default() as g, tf.Session() as sess:
        a = tf.SparseTensor(indices=[[0], [2]], values=[1, 2], dense_shape=[3])
        b = tf.SparseTensor(indices=[[1]], values=[7], dense_shape=[5])
        joined = tf.train.batch_join([[a], [b]], batch_size=2)
        shuffled = tf.train.shuffle_batch([a], batch_size=2, capacity=10, min_after_dequeue=0,
                                          seed=3)
        join_runner, shuffle_runner = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
        for op in join_runner.enqueue_ops + shuffle_runner.enqueue_ops * 3:
            sess.run(op)
        got = sess.run(joined)
        rows = sorted(tuple(int(x) for x in r) for r in got.indices.tolist())
        mismatch = _err(lambda: tf.train.batch_join([[a], [tf.constant([1, 2, 3])]], 2))
        return {"graph": _graph(g), "join_rows": rows,
                "join_shape": _v(got.dense_shape), "shuffled": _v(sess.run(shuffled)),
                "mismatch": mismatch}


def prog_sparse_map_errors(tf, sparse_map):
    out = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        sp = tf.SparseTensor(indices=[[0, 1], [1, 0]], values=[1.0, 2.0], dense_shape=[2, 2])
        handles = sparse_map.add_many_sparse_to_tensors_map(sp)
        restored = sparse_map.take_many_sparse_from_tensors_map(
            sparse_map_op=handles.op, sparse_handles=handles, rank=2)
        out["roundtrip"] = _v(sess.run(restored))
        h = sess.run(handles)
        out["handles"] = _v(h)
        take = sparse_map.take_many_sparse_from_tensors_map(
            sparse_map_op=handles.op, sparse_handles=tf.constant([0, 99], tf.int64))
        out["missing"] = _err(lambda: sess.run(take))
        bad_order = tf.SparseTensor(indices=[[1, 0], [0, 1]], values=[1.0, 2.0],
                                    dense_shape=[2, 2])
        out["unsorted"] = _err(lambda: sess.run(
            sparse_map.add_many_sparse_to_tensors_map(bad_order)))
        rank1 = tf.SparseTensor(indices=[[1]], values=[1.0], dense_shape=[3])
        out["rank1"] = _err(lambda: sess.run(sparse_map.add_many_sparse_to_tensors_map(rank1)))
        out["not_op"] = _err(lambda: sparse_map.take_many_sparse_from_tensors_map(
            sparse_map_op=handles, sparse_handles=handles))
    return out


def prog_dynamic_partition(tf, sparse_map):
    with tf.Graph().as_default(), tf.Session() as sess:
        data = tf.constant([[1., 2.], [3., 4.], [5., 6.], [7., 8.]])
        parts = tf.dynamic_partition(data, [1, 0, 1, 2], 3)
        grads = tf.gradients([parts[0] * 2.0, parts[1] * 3.0], data)[0]
        which = tf.placeholder(tf.int32, [4])
        bad = tf.dynamic_partition(data, which, 2)
        out = {"parts": _v(sess.run(parts)), "grad": _v(sess.run(grads)),
               "shapes": [p.shape.as_list() for p in parts],
               "out_of_range": _err(lambda: sess.run(bad, {which: [0, 1, 2, 0]})),
               "build_error": _err(lambda: tf.dynamic_partition(data, [[0, 1]], 2))}
    return out


def prog_sparse_shape_size_rank(tf, sparse_map):
    with tf.Graph().as_default() as g, tf.Session() as sess:
        value = tf.SparseTensorValue(indices=((0, 1), (1, 0)), values=(42, 24),
                                     dense_shape=(2, 3))
        sp = tf.SparseTensor.from_value(value)
        fetched = [sess.run(f(x)) for x in (value, sp) for f in (tf.shape, tf.size, tf.rank)]
        return {"values": _v(fetched), "graph": [op.type for op in g.get_operations()]}


PROGRAMS = [prog_batch_one_thread, prog_batch_enqueue_many_keep, prog_batch_join_and_shuffle,
            prog_sparse_map_errors, prog_dynamic_partition, prog_sparse_shape_size_rank]
