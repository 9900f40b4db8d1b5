"""Queue runners survive a MetaGraphDef (QueueRunnerDef, encoded as TF encodes it)."""

import flowloom as tf
from flowloom.train.queue_runner_def import QueueRunnerDef


def test_queue_runner_def_wire_format():
    msg = QueueRunnerDef(queue_name="q", enqueue_op_name=["q/enq", "q/enq_1"],
                         close_op_name="q/Close", cancel_op_name="q/Close_1",
                         queue_closed_exception_types=[11])
    data = msg.SerializeToString()
    # Field 1..4 strings, field 5 packed enums (OUT_OF_RANGE = 11), as protobuf writes them.
    assert data == (b"\x0a\x01q" b"\x12\x05q/enq" b"\x12\x07q/enq_1" b"\x1a\x07q/Close"
                    b"\x22\x09q/Close_1" b"\x2a\x01\x0b")
    back = QueueRunnerDef.FromString(data)
    assert (back.queue_name, back.enqueue_op_name, back.close_op_name, back.cancel_op_name,
            back.queue_closed_exception_types) == ("q", ["q/enq", "q/enq_1"], "q/Close",
                                                   "q/Close_1", [11])


def test_queue_runners_round_trip_through_a_meta_graph():
    q = tf.train.string_input_producer(["a", "b", "c"], num_epochs=1, shuffle=False)
    x = q.dequeue()
    meta = tf.train.export_meta_graph()
    assert "queue_runners" in meta.collection_def
    tf.reset_default_graph()
    tf.train.import_meta_graph(meta)
    (qr,) = tf.get_collection(tf.GraphKeys.QUEUE_RUNNERS)
    assert qr.name == "input_producer"
    assert qr.queue_closed_exception_types == (tf.errors.OutOfRangeError,)
    d = tf.get_default_graph().get_tensor_by_name(x.name)
    with tf.Session() as sess:
        sess.run(tf.local_variables_initializer())
        coord = tf.train.Coordinator()
        threads = tf.train.start_queue_runners(sess, coord)
        try:
            assert [sess.run(d) for _ in range(3)] == [b"a", b"b", b"c"]
        finally:
            coord.request_stop()
            coord.join(threads, stop_grace_period_secs=5)
