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


def test_read_up_to_keys_name_each_record_of_odd_file_names(tmp_path):
    # TF's keys: the work unit's name, ':', the record's offset, for names holding '%',
    # digits and non-ASCII characters, across offsets of growing width.
    records = [bytes([i % 7]) * (i % 3 + 1) for i in range(40)] + [b"z" * 97] * 130
    raw = b"".join(tfrecord.encode_record(r) for r in records)
    offsets, at = [], 0
    for r in records:
        offsets.append(at)
        at += 16 + len(r)
    for name in ("p%d%%s.tfrecord", "9:1.tfrecord", "r\u00e9cords.tfrecord"):
        path = str(tmp_path / name)
        with open(path, "wb") as f:
            f.write(raw)
        g = tf.Graph()
        with g.as_default():
            files = tf.train.string_input_producer([path], num_epochs=1, shuffle=False)
            keys, values = tf.TFRecordReader().read_up_to(files, 64)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                coord = tf.train.Coordinator()
                threads = tf.train.start_queue_runners(sess, coord)
                got_keys, got_values = [], []
                try:
                    while True:
                        k, v = sess.run([keys, values])
                        got_keys += list(k)
                        got_values += list(v)
                except tf.errors.OutOfRangeError:
                    pass
                coord.request_stop()
                coord.join(threads)
        assert got_values == records
        assert got_keys == [f"{path}:{o}".encode() for o in offsets]
