"""Concurrent execution: partitions in parallel, thread-safe Session.run, locking assigns,
error propagation between partitions, freeing of intermediates, tracing output."""

import json
import threading
import tracemalloc

import numpy as np
import pytest

import flowloom as tf
from flowloom.client import timeline
from flowloom.runtime import executor, parallel


def _config(cpus=2, **kwargs):
    return tf.ConfigProto(device_count={"CPU": cpus}, **kwargs)


def test_locking_assign_add_is_atomic_across_threads():
    v = tf.Variable(0.0, name="v")
    inc = tf.assign_add(v, 1.0, use_locking=True)
    with tf.Session() as sess:
        sess.run(v.initializer)

        def work():
            for _ in range(10000):
                sess.run(inc.op)

        threads = [threading.Thread(target=work) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert sess.run(v) == 80000.0


def test_concurrent_runs_of_a_multi_device_session():
    x = tf.placeholder(tf.float32, [])
    with tf.device("/cpu:1"):
        y = x * 2.0
    with tf.device("/cpu:0"):
        z = y + 1.0
    errors = []
    with tf.Session(config=_config(2)) as sess:
        def work(seed):
            for i in range(200):
                val = float(seed * 1000 + i)
                got = sess.run(z, {x: val})
                if got != val * 2 + 1:
                    errors.append((val, got))

        threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []


def test_partitions_overlap_in_time(monkeypatch):
    monkeypatch.setattr(parallel, "SEQUENTIAL_LIMIT_S", 0.0)  # always one thread per device
    # Each tower is a chain of matmuls (NumPy releases the GIL in them).
    a = np.ones([400, 400], np.float32)
    outs = []
    for i in range(2):
        with tf.device(f"/cpu:{i}"):
            h = tf.constant(a, name=f"a{i}")
            for _ in range(6):
                h = tf.matmul(h, h) * 1e-3
            outs.append(tf.reduce_sum(h))
    overlapped = False
    with tf.Session(config=_config(2)) as sess:
        for _ in range(5):  # a loaded machine may start one thread late: try a few runs
            md = tf.RunMetadata()
            sess.run(outs, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                     run_metadata=md)
            spans, threads = [], []
            for dev in md.step_stats.dev_stats:
                nodes = [n for n in dev.node_stats if " = MatMul(" in n.timeline_label]
                spans.append((min(n.all_start_micros for n in nodes),
                              max(n.all_start_micros + n.all_end_rel_micros for n in nodes)))
                threads.append({n.thread_id for n in dev.node_stats})
            assert not (threads[0] & threads[1])  # each device ran on its own thread
            (s0, e0), (s1, e1) = spans
            if s0 < e1 and s1 < e0:
                overlapped = True
                break
    assert overlapped


def test_error_on_one_device_aborts_the_other():
    x = tf.placeholder(tf.float32, [None])
    with tf.device("/cpu:1"):
        check = tf.assert_positive(x, message="x must be positive")
        with tf.control_dependencies([check]):
            y = tf.identity(x)
    with tf.device("/cpu:0"):
        z = y * 2.0
    with tf.Session(config=_config(2)) as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="x must be positive"):
            sess.run(z, {x: [-1.0]})
        np.testing.assert_array_equal(sess.run(z, {x: [1.0]}), [2.0])


def test_inter_op_parallelism_one_still_runs_cross_device_graphs():
    with tf.device("/cpu:1"):
        a = tf.constant(3.0) * 2.0
    with tf.device("/cpu:0"):
        b = a + 1.0
    with tf.device("/cpu:1"):
        c = b * 10.0
    with tf.Session(config=_config(2, inter_op_parallelism_threads=1)) as sess:
        assert sess.run(c) == 70.0


@pytest.mark.parametrize("cpus", [1, 2])
def test_intermediates_are_freed_after_their_last_consumer(cpus):
    n = 1 << 20  # 4 MiB per float32 intermediate
    x = tf.placeholder(tf.float32, [n])
    h = x
    for i in range(12):
        with tf.device(f"/cpu:{i % cpus}"):
            h = h + 1.0
    with tf.Session(config=_config(cpus)) as sess:
        feed = {x: np.zeros(n, np.float32)}
        sess.run(h, feed)
        tracemalloc.start()
        tracemalloc.reset_peak()
        out = sess.run(h, feed)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert out[0] == 12.0
    # Live set: the fed copy, one input and one output (plus the fetched result); twelve
    # intermediates kept alive would be 48 MiB.
    assert peak < 5 * 4 * n


def test_step_stats_list_each_op_with_device_and_bytes():
    with tf.device("/cpu:1"):
        v = tf.Variable(np.zeros([2, 3], np.float32), name="v")
    with tf.device("/cpu:0"):
        a = tf.add(v, 1.0, name="a")
    with tf.Session(config=_config(2)) as sess:
        sess.run(v.initializer)
        md = tf.RunMetadata()
        sess.run(a, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                 run_metadata=md)
    by_dev = {d.device: {n.node_name: n for n in d.node_stats} for d in md.step_stats.dev_stats}
    cpu0 = by_dev["/job:localhost/replica:0/task:0/device:CPU:0"]
    cpu1 = by_dev["/job:localhost/replica:0/task:0/device:CPU:1"]
    assert {"v", "v/read"} <= set(cpu1) and {"a", "a/y"} <= set(cpu0)
    recv = [n.node_name for n in cpu0.values() if n.timeline_label.startswith(
        n.node_name + " = _Recv(")]
    assert len(recv) == 1 and recv[0].startswith("v/read/_")
    assert cpu0["a"].timeline_label == f"a = {a.op.type}({recv[0]}, a/y)"
    out = cpu0["a"].output[0].tensor_description
    assert out.allocation_description.requested_bytes == 24
    assert [d.size for d in out.shape.dim] == [2, 3]
    assert any(n.timeline_label.split(" = ")[1].startswith("_Recv") for n in cpu0.values())
    trace = json.loads(timeline.Timeline(md.step_stats).generate_chrome_trace_format())
    names = {e["args"]["name"] for e in trace["traceEvents"] if e.get("ph") == "X"}
    assert {"v", "v/read", "a"} <= names
    assert any(e.get("ph") == "s" for e in trace["traceEvents"])  # Send -> Recv arrow
    procs = [e["args"]["name"] for e in trace["traceEvents"] if e.get("name") == "process_name"]
    assert len(procs) == 2


def test_single_device_trace_and_fast_path_agree():
    x = tf.Variable(0.0)
    inc = tf.assign_add(x, 1.0)
    with tf.control_dependencies([inc]):
        y = tf.identity(x)
    with tf.Session() as sess:
        sess.run(x.initializer)
        assert sess.run(y) == 1.0
        md = tf.RunMetadata()
        assert sess.run(y, options=tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE),
                        run_metadata=md) == 2.0
        assert sess.run(y) == 3.0  # the traced run did not disturb the fast plan
        assert len(md.step_stats.dev_stats) == 1


def test_debug_env_prints_ops_devices_and_copies(monkeypatch, capsys):
    monkeypatch.setattr(executor, "_DEBUG", 1)
    monkeypatch.setattr(parallel, "_DEBUG", 1)
    with tf.device("/cpu:1"):
        a = tf.constant(2.0, name="two")
    with tf.device("/cpu:0"):
        b = tf.multiply(a, 3.0, name="times3")
    with tf.Session(config=_config(2)) as sess:
        assert sess.run(b) == 6.0
    err = capsys.readouterr().err
    assert "times3" in err and "device:CPU:0" in err
    assert "two:0" in err and "CPU:1 -> /job:localhost/replica:0/task:0/device:CPU:0" in err


def test_control_flow_partition_goes_to_the_dataflow_hook(monkeypatch):
    # A partition with a control-flow op type is routed to runtime/dataflow.py.
    from flowloom.runtime import partitioner

    part = partitioner.Partition(None, [], has_control_flow=True)
    calls = []
    fake = type("dataflow", (), {"run_partition": staticmethod(
        lambda p, vals, rdv, ctx: calls.append(p))})
    import flowloom.runtime

    monkeypatch.setitem(__import__("sys").modules, "flowloom.runtime.dataflow", fake)
    monkeypatch.setattr(flowloom.runtime, "dataflow", fake, raising=False)
    ctx = parallel.RunContext([], None, threading.Semaphore(1), None)
    parallel.run_partition(part, ctx)
    assert calls == [part]


def test_prune_follows_a_loop_back_edge_after_the_loop():
    from flowloom.framework import op_def

    if op_def.get("NextIteration") is None:
        pytest.skip("needs the control-flow op types (branch cf)")
    i = tf.constant(0)
    r = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [i])
    order = executor.prune([r.op], set())
    types = [op.type for op in order]
    assert "NextIteration" in types and "Merge" in types


def test_small_multi_device_plans_switch_to_one_thread_and_back(monkeypatch):
    with tf.device("/cpu:1"):
        v = tf.Variable(np.arange(4, dtype=np.float32), name="v")
        inc = tf.assign_add(v, np.ones(4, np.float32))
    with tf.device("/cpu:0"):
        with tf.control_dependencies([inc]):
            out = tf.identity(v.read_value()) * 2.0
    with tf.Session(config=_config(2)) as sess:
        sess.run(v.initializer)
        monkeypatch.setattr(parallel, "SEQUENTIAL_LIMIT_S", 60.0)  # every run counts as fast
        first = sess.run(out)
        pplan = next(p for key, p in sess._plan_cache.items() if out in key[1]).partitioned
        assert pplan.sequential is not None and pplan.run_sequentially
        second = sess.run(out)  # on this thread, in the global order
        monkeypatch.setattr(parallel, "SEQUENTIAL_LIMIT_S", 0.0)  # every run counts as slow
        third = sess.run(out)
        assert not pplan.run_sequentially
        fourth = sess.run(out)  # concurrent again
    for k, got in enumerate([first, second, third, fourth]):
        np.testing.assert_array_equal(got, (np.arange(4) + k + 1) * 2)
