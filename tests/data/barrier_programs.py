"""The Barrier op family (data_flow_ops.Barrier), run on TF 1.15 (record_barrier.py) and
flowloom (tests/ops/test_barrier.py). `program(tf, Barrier)`: per case, the fetched values
(bytes as str) or the error's class name; static shapes as lists."""

import re

import numpy as np


def _plain(v):
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    v = np.asarray(v)
    if v.dtype == object or v.dtype.kind == "S":
        return [x.decode() if isinstance(x, bytes) else x for x in v.reshape(-1).tolist()]
    return v.tolist()


def _steps(tf, build):
    """Runs each fetch of `build()` (a list) in turn, each giving its value or its error's
    class name; a run that would wait for ever ends after 1 s (DeadlineExceededError)."""
    out = []
    with tf.Graph().as_default():
        fetches = build()
        with tf.Session(config=tf.ConfigProto(operation_timeout_in_ms=1000)) as s:
            for f in fetches:
                try:
                    out.append(_plain(s.run(f)))
                except Exception as e:  # noqa: BLE001 - the recorded answer is the class
                    out.append(type(e).__name__)
    return out


def program(tf, Barrier):  # noqa: N803 - TF's class
    r = {}

    def documented():
        b = Barrier((tf.string, tf.int32), shapes=((), ()))
        idx, keys, vals = b.take_many(2)
        return [b.insert_many(0, keys=["k1", "k2"], values=["a", "b"]),
                b.insert_many(1, keys=["k1"], values=[1]),
                b.insert_many(0, keys=["k3"], values=["c"]),
                b.insert_many(1, keys=["k3"], values=[3]),
                [b.ready_size(), b.incomplete_size()],
                b.insert_many(1, keys=["k2"], values=[2]),
                [b.ready_size(), b.incomplete_size()],
                [idx, keys, vals[0], vals[1]],
                [b.ready_size(), b.incomplete_size()]]

    r["documented_order"] = _steps(tf, documented)

    def vectors():
        b = Barrier((tf.float32, tf.int64), shapes=((2,), ()))
        idx, keys, vals = b.take_many(3)
        return [b.insert_many(1, ["x", "y", "z"], [7, 8, 9]),
                b.insert_many(0, ["z", "x", "y"], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]),
                [idx, keys, vals[0], vals[1]],
                [b.ready_size(), b.incomplete_size()]]

    r["vectors_complete_in_one_batch"] = _steps(tf, vectors)

    def errors():
        b = Barrier(tf.float32, shapes=((),))
        b2 = Barrier((tf.float32, tf.float32), shapes=((), ()))
        return [b.insert_many(0, ["a"], [1.0]),
                b.ready_size(),
                b2.insert_many(0, ["a"], [1.0]),
                b2.insert_many(0, ["a"], [2.0]),  # component 0 of "a" is already set
                b2.insert_many(1, ["d"], [[1.0, 2.0]]),  # shape mismatch
                b2.insert_many(2, ["d"], [1.0]),  # no component 2
                [b2.ready_size(), b2.incomplete_size()]]

    r["errors"] = _steps(tf, errors)

    def closing():
        b = Barrier((tf.float32, tf.float32), shapes=((), ()))
        small = b.take_many(5, allow_small_batch=True)
        full = b.take_many(5)
        return [b.insert_many(0, ["a", "b", "c"], [1.0, 2.0, 3.0]),
                b.insert_many(1, ["a"], [10.0]),
                b.close(),
                b.insert_many(0, ["new"], [0.0]),  # a new key after close
                b.insert_many(1, ["b"], [20.0]),  # completing an existing key is allowed
                [b.ready_size(), b.incomplete_size()],
                full,
                [small[0], small[1], small[2][0], small[2][1]],
                [b.ready_size(), b.incomplete_size()],
                full]

    r["close"] = _steps(tf, closing)

    def cancelling():
        b = Barrier((tf.float32, tf.float32), shapes=((), ()))
        return [b.insert_many(0, ["a", "b"], [1.0, 2.0]),
                b.insert_many(1, ["a"], [10.0]),
                b.close(cancel_pending_enqueues=True),
                b.insert_many(1, ["b"], [20.0]),
                [b.ready_size(), b.incomplete_size()],
                b.take_many(1)[1],
                b.take_many(1)[1]]

    r["close_cancelling_pending"] = _steps(tf, cancelling)

    def shared():
        b1 = Barrier(tf.int32, shapes=((),), shared_name="sb", name="one")
        b2 = Barrier(tf.int32, shapes=((),), shared_name="sb", name="two")
        return [b1.insert_many(0, ["p", "q"], [1, 2]),
                [b2.ready_size(), b2.take_many(2)[2][0]]]

    r["shared_name"] = _steps(tf, shared)

    def handles():
        named = Barrier(tf.float32, shapes=((),), name="bb")
        shared = Barrier(tf.float32, shapes=((),), shared_name="sh")
        return [named.barrier_ref, shared.barrier_ref]

    # An unshared barrier is named `_<n>_<op name>` (n counts the process's resources).
    r["fetched_handles"] = [[re.sub(r"^_\d+_", "_N_", x) for x in h] for h in _steps(tf, handles)]

    with tf.Graph().as_default():
        b = Barrier((tf.float32, tf.int32), shapes=((3,), ()), name="bar")
        idx, keys, vals = b.take_many(4)
        sidx, _, svals = b.take_many(4, allow_small_batch=True)
        r["static"] = [b.barrier_ref.shape.as_list(), b.barrier_ref.dtype.name, b.name,
                       b.barrier_ref.op.type, idx.shape.as_list(), keys.shape.as_list(),
                       vals[0].shape.as_list(), vals[1].shape.as_list(),
                       sidx.shape.as_list(), svals[0].shape.as_list(),
                       b.insert_many(0, ["a"], [[1.0, 2.0, 3.0]]).name,
                       b.ready_size().shape.as_list(), b.ready_size().dtype.name,
                       b.close().type]
        u = Barrier(tf.float32)
        r["unknown_shapes"] = [str(u.take_many(2)[2][0].shape)]
        try:
            b.insert_many(1, ["b", "c"], [1])
            r["keys_and_values_differ"] = "built"
        except ValueError as e:
            r["keys_and_values_differ"] = str(e).split(" for '")[0]
        try:
            b.insert_many(1, [["b"]], [[1]])
            r["keys_not_a_vector"] = "built"
        except ValueError as e:
            r["keys_not_a_vector"] = str(e).split(" for '")[0]
        try:
            Barrier(tf.float32, shapes=((0,),))
            r["empty_shape"] = "built"
        except ValueError as e:
            r["empty_shape"] = str(e)
    return r
