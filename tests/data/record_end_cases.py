"""TFRecord files that end inside a record (recorded by record_uri.py --ends, checked by
tests/io/test_record_ends.py): which records each reader yields, and how it ends."""

import gzip
import os
import struct
import zlib

def _crc32c(data):
    # Bitwise CRC-32C (Castagnoli), enough for a few short records; needs no package.
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def _masked_crc(data):
    crc = _crc32c(data)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _record(data):
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", _masked_crc(length)) + data
            + struct.pack("<I", _masked_crc(data)))


def tails():
    """Bytes after two whole records: a partial header, a header with no data, partial data,
    data with no footer, a partial footer."""
    whole = _record(b"third")
    return {
        "none": b"",
        "header_1": whole[:1],
        "header_8": whole[:8],
        "header_11": whole[:11],
        "header_only": whole[:12],
        "data_3": whole[:15],
        "data_no_footer": whole[:17],
        "footer_2": whole[:19],
    }


def files(directory):
    """{(tail, compression): path} of two records ("one", "two") and the tail."""
    out = {}
    body = _record(b"one") + _record(b"two")
    for tail, extra in tails().items():
        for compression in ("", "ZLIB", "GZIP"):
            data = body + extra
            if compression == "ZLIB":
                data = zlib.compress(data)
            elif compression == "GZIP":
                data = gzip.compress(data)
            path = os.path.join(directory, f"{tail}_{compression or 'plain'}.tfrecord")
            with open(path, "wb") as f:
                f.write(data)
            out[(tail, compression)] = path
    return out


def _outcome(values, error):
    out = {"records": [v.decode() for v in values]}
    if error is not None:
        out["error"] = type(error).__name__
        msg = getattr(error, "message", None) or str(error)
        out["message"] = msg.split("\n\t [[")[0]
    return out


def observe(tf, directory):
    out = {}
    for (tail, compression), path in sorted(files(directory).items()):
        key = f"{tail} {compression or 'plain'}"
        values, error = [], None
        try:
            options = tf.io.TFRecordOptions(compression) if compression else None
            for v in tf.io.tf_record_iterator(path, options):
                values.append(v)
        except Exception as e:  # noqa: BLE001 - the outcome is recorded
            error = e
        out[f"tf_record_iterator {key}"] = _outcome(values, error)

        values, error = [], None
        with tf.Graph().as_default():
            nxt = tf.data.make_one_shot_iterator(
                tf.data.TFRecordDataset(path, compression_type=compression)).get_next()
            with tf.Session() as sess:
                try:
                    for _ in range(5):
                        values.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    pass
                except Exception as e:  # noqa: BLE001
                    error = e
        out[f"TFRecordDataset {key}"] = _outcome(values, error)

        values, error = [], None
        with tf.Graph().as_default():
            queue = tf.FIFOQueue(4, tf.string)
            enq = queue.enqueue_many([[path]])
            close = queue.close()
            options = tf.io.TFRecordOptions(compression) if compression else None
            _, value = tf.TFRecordReader(options=options).read(queue)
            with tf.Session() as sess:
                sess.run(enq)
                sess.run(close)
                try:
                    for _ in range(5):
                        values.append(sess.run(value))
                except tf.errors.OutOfRangeError:
                    pass
                except Exception as e:  # noqa: BLE001
                    error = e
        out[f"TFRecordReader {key}"] = _outcome(values, error)
    return out
