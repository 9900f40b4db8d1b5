"""TFRecordOptions' zlib settings, validation and nesting, and a closed writer's errors
(TF 1.15's tf_record behaviour)."""

import zlib

import pytest

import flowloom as tf
from flowloom.io.tfrecord import (TFRecordCompressionType, TFRecordOptions, TFRecordWriter,
                                  tf_record_iterator)

RECORDS = [b"x" * 5000, bytes(range(256)) * 40, b"y" * 3000]


def _size(tmp_path, name, options):
    path = str(tmp_path / name)
    with TFRecordWriter(path, options) as w:
        for r in RECORDS:
            w.write(r)
    assert list(tf_record_iterator(path, options)) == RECORDS
    with open(path, "rb") as f:
        return len(f.read())


def test_options_validate_and_nest():
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions()) == ""
    assert TFRecordOptions.get_compression_type_string(TFRecordOptions("")) == ""
    zlib_t = TFRecordCompressionType.ZLIB
    assert TFRecordOptions.get_compression_type_string(
        TFRecordOptions(TFRecordOptions(zlib_t))) == "ZLIB"
    for bad in (5, "BZ2"):
        with pytest.raises(ValueError, match="Not a valid compression_type"):
            TFRecordOptions(bad)


def test_zlib_settings_change_the_stream(tmp_path):
    base = _size(tmp_path, "a", TFRecordOptions("ZLIB"))
    assert _size(tmp_path, "b", TFRecordOptions("ZLIB", compression_level=6)) == base
    assert _size(tmp_path, "c", TFRecordOptions("ZLIB", compression_level=0)) > base
    flushed = TFRecordOptions("ZLIB", flush_mode=zlib.Z_FULL_FLUSH, input_buffer_size=1000)
    assert _size(tmp_path, "d", flushed) > base
    assert _size(tmp_path, "e", TFRecordOptions(
        "GZIP", compression_strategy=zlib.Z_HUFFMAN_ONLY)) > _size(tmp_path, "f", "GZIP")


@pytest.mark.parametrize("compression", ["", "ZLIB", "GZIP"])
def test_closed_writer_refuses_writes_and_flushes(tmp_path, compression):
    w = TFRecordWriter(str(tmp_path / "r"), TFRecordOptions(compression))
    w.write(b"record 0")
    w.close()
    w.close()  # a second close does nothing
    with pytest.raises(tf.errors.FailedPreconditionError):
        w.write(b"record 1")
    with pytest.raises(tf.errors.FailedPreconditionError):
        w.flush()
    assert list(tf_record_iterator(str(tmp_path / "r"), TFRecordOptions(compression))) == \
        [b"record 0"]
