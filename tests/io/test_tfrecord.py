import os
import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowloom.framework import errors
from flowloom.io import tfrecord

# The payloads of the reference files (see data/make_reference_data.py).
TF_PAYLOADS = [b"", b"first", b"x" * 300, bytes(range(256))]
COMPRESSIONS = [("plain.tfrecord", ""), ("gzip.tfrecord", "GZIP"), ("zlib.tfrecord", "ZLIB")]


@pytest.mark.parametrize("file_name,compression", COMPRESSIONS)
def test_reads_tf_files(data_path, file_name, compression):
    options = tfrecord.TFRecordOptions(compression_type=compression)
    assert list(tfrecord.tf_record_iterator(data_path(file_name), options)) == TF_PAYLOADS


def test_uncompressed_bytes_identical_to_tf(tmp_path, data_path):
    path = tmp_path / "out.tfrecord"
    with tfrecord.TFRecordWriter(path) as writer:
        for payload in TF_PAYLOADS:
            writer.write(payload)
    with open(data_path("plain.tfrecord"), "rb") as f:
        assert path.read_bytes() == f.read()


@pytest.mark.parametrize(
    "compression", ["", "GZIP", "ZLIB", None, tfrecord.TFRecordCompressionType.GZIP]
)
def test_round_trip(tmp_path, compression):
    path = tmp_path / "r.tfrecord"
    records = [bytes([i]) * i for i in range(50)]
    with tfrecord.TFRecordWriter(path, compression) as writer:
        for record in records:
            writer.write(record)
        writer.flush()
    assert list(tfrecord.tf_record_iterator(path, compression)) == records


def test_flush_makes_compressed_records_readable_before_close(tmp_path):
    path = tmp_path / "r.gz"
    writer = tfrecord.TFRecordWriter(path, "GZIP")
    writer.write(b"a")
    writer.flush()
    # A stream without its end is truncated: the record is there, then DataLoss.
    with pytest.raises(errors.DataLossError, match="truncated"):
        list(tfrecord.tf_record_iterator(path, "GZIP"))
    writer.close()
    assert list(tfrecord.tf_record_iterator(path, "GZIP")) == [b"a"]


def test_crash_safe_file_appears_only_on_close(tmp_path):
    path = tmp_path / "safe.tfrecord"
    writer = tfrecord.TFRecordWriter(path, crash_safe=True)
    writer.write(b"payload")
    assert not path.exists()
    writer.close()
    assert list(tfrecord.tf_record_iterator(path)) == [b"payload"]
    assert os.listdir(tmp_path) == ["safe.tfrecord"]


def test_crash_safe_writer_leaves_nothing_on_error(tmp_path):
    with pytest.raises(RuntimeError), tfrecord.TFRecordWriter(tmp_path / "x", crash_safe=True) as w:
        w.write(b"partial")
        raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []


def test_bad_compression_type():
    with pytest.raises(ValueError, match="compression_type"):
        tfrecord.TFRecordOptions.get_compression_type_string("LZ4")


def test_missing_file_is_not_found(tmp_path):
    with pytest.raises(errors.NotFoundError):
        list(tfrecord.tf_record_iterator(tmp_path / "absent"))


def _plain_file(tmp_path, records=(b"abc", b"defgh")):
    path = tmp_path / "f.tfrecord"
    path.write_bytes(b"".join(tfrecord.encode_record(r) for r in records))
    return path


def test_corrupt_data_error_is_tfs(tmp_path):
    # TF 1.15's RecordReader names the offset of the record's data (19 + 12 header bytes).
    path = _plain_file(tmp_path)
    data = bytearray(path.read_bytes())
    data[len(tfrecord.encode_record(b"abc")) + 12] ^= 1  # first data byte of record 2
    path.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match=r"^corrupted record at 31$"):
        list(tfrecord.tf_record_iterator(path))


def test_huge_length_field_is_data_loss_not_allocation(tmp_path):
    length = struct.pack("<Q", 1 << 62)
    header = length + struct.pack("<I", tfrecord.crc32c.masked_crc32c(length))
    path = tmp_path / "huge"
    path.write_bytes(header + b"tiny")
    with pytest.raises(errors.DataLossError, match="truncated record at 0"):
        list(tfrecord.tf_record_iterator(path))


def test_truncated_file(tmp_path):
    path = _plain_file(tmp_path)
    data = path.read_bytes()
    path.write_bytes(data[:-1])
    with pytest.raises(errors.DataLossError, match="truncated"):
        list(tfrecord.tf_record_iterator(path))


def _read_all_or_data_loss(path, options=None):
    try:
        return list(tfrecord.tf_record_iterator(path, options))
    except errors.DataLossError as e:
        assert str(e)
        return None


FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(records=st.lists(st.binary(max_size=40), min_size=1, max_size=5), data=st.data())
def test_fuzz_any_single_byte_change_is_data_loss(tmp_path, records, data):
    raw = bytearray(b"".join(tfrecord.encode_record(r) for r in records))
    position = data.draw(st.integers(0, len(raw) - 1))
    raw[position] ^= data.draw(st.integers(1, 255))
    path = tmp_path / "fuzz"
    path.write_bytes(bytes(raw))
    with pytest.raises(errors.DataLossError):
        list(tfrecord.tf_record_iterator(path))


@FUZZ
@given(records=st.lists(st.binary(max_size=40), min_size=1, max_size=5), data=st.data())
def test_fuzz_truncation_is_data_loss(tmp_path, records, data):
    raw = b"".join(tfrecord.encode_record(r) for r in records)
    cut = data.draw(st.integers(1, len(raw) - 1))
    path = tmp_path / "fuzz"
    path.write_bytes(raw[:cut])
    result = _read_all_or_data_loss(path)
    # A cut exactly on a record boundary is a valid shorter file.
    assert result is None or result == records[: len(result)]


@FUZZ
@given(
    compression=st.sampled_from(["GZIP", "ZLIB"]), payload=st.binary(max_size=200), data=st.data()
)
def test_fuzz_compressed_damage_is_data_loss(tmp_path, compression, payload, data):
    path = tmp_path / "fuzz"
    with tfrecord.TFRecordWriter(path, compression) as writer:
        writer.write(payload)
    raw = bytearray(path.read_bytes())
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw) - 1))]
    else:
        raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
    path.write_bytes(bytes(raw))
    result = _read_all_or_data_loss(path, compression)
    # Damage to gzip header fields zlib ignores (mtime, OS) can leave the records intact.
    assert result is None or result == [payload] or result == []


@FUZZ
@given(raw=st.binary(max_size=120))
def test_fuzz_arbitrary_bytes(tmp_path, raw):
    path = tmp_path / "fuzz"
    path.write_bytes(raw)
    for options in (None, "GZIP", "ZLIB"):
        _read_all_or_data_loss(path, options)
