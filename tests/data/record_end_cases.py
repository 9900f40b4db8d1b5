"""Record files at their end (recorded by record_uri.py, checked by tests/io/test_record_ends.py):
TFRecord files that end inside a record, fixed-length files whose body is not whole records,
text files' last lines and carriage returns; which records each reader yields, how it ends."""

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


def _values(tf, make):
    with tf.Graph().as_default():
        nxt = tf.data.make_one_shot_iterator(make()).get_next()
        out = []
        with tf.Session() as sess:
            try:
                while True:
                    out.append(sess.run(nxt).decode("latin-1"))
            except tf.errors.OutOfRangeError:
                return out
            except Exception as e:  # noqa: BLE001 - the outcome is recorded
                return out + [type(e).__name__ + ": " + _message(e)]


def _message(e):
    return (getattr(e, "message", None) or str(e)).split("\n\t [[")[0]


def _read_all(tf, make_reader, path):
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(3, tf.string)
        enq = queue.enqueue_many([[path]])
        close = queue.close()
        _, value = make_reader().read(queue)
        out = []
        with tf.Session() as sess:
            sess.run(enq)
            sess.run(close)
            try:
                for _ in range(6):
                    out.append(sess.run(value).decode("latin-1"))
            except tf.errors.OutOfRangeError:
                return out
            except Exception as e:  # noqa: BLE001
                return out + [type(e).__name__ + ": " + _message(e)]
        return out


FIXED = {"body5": (b"abcde", 0, 2, 0), "hf": (b"HHabcdefF", 2, 3, 1),
         "ragged_hf": (b"HHabcdeF", 2, 3, 1), "shorter_than_header": (b"HH", 2, 3, 1),
         "empty": (b"", 0, 2, 0), "header_footer_only": (b"HHH", 2, 3, 1)}
TEXT = {"no_final_newline": b"a\nb", "crlf": b"a\r\nb\r\n", "blank": b"\n\n", "empty": b"",
        "inner_cr": b"a\rb"}


def observe_fixed_and_text(tf, directory):
    """FixedLengthRecordDataset/Reader and TextLineDataset/Reader at a file's end (plain,
    GZIP, ZLIB; the readers of text plain only)."""
    out = {}
    for compression in ("", "GZIP", "ZLIB"):
        label = compression or "plain"

        def write(name, data, compression=compression):
            if compression == "GZIP":
                data = gzip.compress(data)
            elif compression == "ZLIB":
                data = zlib.compress(data)
            path = os.path.join(directory, f"{name}_{label}")
            with open(path, "wb") as f:
                f.write(data)
            return path

        for name, (data, header, record, footer) in FIXED.items():
            path = write("fixed_" + name, data)
            kwargs = dict(header_bytes=header, footer_bytes=footer)
            extra = dict(compression_type=compression) if compression else {}
            out[f"FixedLengthRecordDataset {name} {label}"] = [
                v.replace(directory, "{abs}") for v in _values(
                    tf, lambda: tf.data.FixedLengthRecordDataset(path, record, **kwargs,
                                                                 **extra))]
            reader_extra = dict(encoding=compression) if compression else {}
            out[f"FixedLengthRecordReader {name} {label}"] = _read_all(
                tf, lambda: tf.FixedLengthRecordReader(record, **kwargs, **reader_extra), path)
        for name, data in TEXT.items():
            path = write("text_" + name, data)
            out[f"TextLineDataset {name} {label}"] = _values(
                tf, lambda: tf.data.TextLineDataset(path, compression_type=compression or None))
            if not compression:
                out[f"TextLineReader {name} {label}"] = _read_all(tf, tf.TextLineReader, path)
    return out
