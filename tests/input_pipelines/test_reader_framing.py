"""TFRecordReader.read_up_to over a damaged file, as TF 1.15 behaves (observed with TF
1.15.5 on the same file: the batch before the bad record comes out, then every later read
fails with DataLossError at that record; the records read before it in the failing call
are counted as produced; the work unit is never finished)."""

import flowloom as tf
from flowloom.io import tfrecord


def test_read_up_to_stops_at_a_bad_record_and_stays_there(tmp_path):
    raw = bytearray(b"".join(tfrecord.encode_record(bytes([i]) * 20) for i in range(10)))
    raw[36 * 5 + 15] ^= 1  # a data byte of record 5 (records are 36 bytes framed)
    path = str(tmp_path / "bad.tfrecord")
    with open(path, "wb") as f:
        f.write(bytes(raw))
    g = tf.Graph()
    with g.as_default():
        files = tf.train.string_input_producer([path, path], shuffle=False)
        reader = tf.TFRecordReader()
        keys, values = reader.read_up_to(files, 3)
        produced, finished = reader.num_records_produced(), reader.num_work_units_completed()
        with tf.Session() as sess:
            coord = tf.train.Coordinator()
            threads = tf.train.start_queue_runners(sess, coord)
            k, v = sess.run([keys, values])
            assert [x.decode() for x in k] == [f"{path}:{36 * i}" for i in range(3)]
            assert list(v) == [bytes([i]) * 20 for i in range(3)]
            assert sess.run([produced, finished]) == [3, 0]
            for _ in range(3):
                try:
                    sess.run(keys)
                    raise AssertionError("no DataLossError")
                except tf.errors.DataLossError as e:
                    assert e.message.splitlines()[0] == "corrupted record at 192"  # as TF 1.15: the data's offset
                assert sess.run([produced, finished]) == [5, 0]
            coord.request_stop()
            coord.join(threads)
