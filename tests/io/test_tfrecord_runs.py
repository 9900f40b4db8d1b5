"""Uncompressed TFRecord framing of runs of equal-length records (tfrecord.PlainRecords)
against a record-by-record reference written here: the same records, then the same error
at the same offset, for damaged and truncated files (TF 1.15's RecordReader texts: a bad
length checksum names the record's offset, a bad data checksum the data's)."""

import struct

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowloom.framework import errors
from flowloom.io import crc32c, tfrecord


def _reference(raw):
    """(records, error text or None) of TFRecord bytes, one record at a time."""
    out, pos = [], 0
    while pos < len(raw):
        if len(raw) - pos < 12:
            return out, None  # a partial header ends the file cleanly (TF 1.15's RecordReader)
        length, length_crc = struct.unpack_from("<QI", raw, pos)
        if crc32c.masked_crc32c(raw[pos:pos + 8]) != length_crc:
            return out, f"corrupted record at {pos}"
        if len(raw) - pos < 16 + length:
            return out, f"truncated record at {pos}"
        data = raw[pos + 12:pos + 12 + length]
        if crc32c.masked_crc32c(data) != struct.unpack_from("<I", raw, pos + 12 + length)[0]:
            return out, f"corrupted record at {pos + 12}"
        out.append((pos, data))
        pos += 16 + length
    return out, None


def _framed(path, chunk):
    """(records, error text or None) through PlainRecords.take(chunk) calls."""
    records = tfrecord.open_plain(path)
    offsets, datas = [], []
    try:
        while records.take(chunk, offsets, datas) == chunk:
            pass
    except errors.DataLossError as e:
        return list(zip(offsets, datas)), str(e)
    finally:
        records.close()
    return list(zip(offsets, datas)), None


def _check(tmp_path, raw, chunk):
    path = tmp_path / "runs.tfrecord"
    path.write_bytes(bytes(raw))
    want_records, want_error = _reference(bytes(raw))
    got_records, got_error = _framed(path, chunk)
    assert got_records == want_records
    if want_error is None:
        assert got_error is None
    else:
        assert got_error == want_error
    # the generator over the same framing agrees
    try:
        assert list(tfrecord.read_records(path)) == want_records
        assert want_error is None
    except errors.DataLossError as e:
        assert str(e) == want_error


FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])
# few distinct lengths, so runs of equal-length records are common; NULs at either end of
# a record are its own bytes
RECORDS = st.lists(st.sampled_from([b"", b"a", b"xyz", b"0123456789", b"q" * 40, b"r" * 40,
                                    b"\0", b"x\0\0", b"\0yz", b"\0" * 40]),
                   min_size=0, max_size=40)


@pytest.fixture(params=["per_record", "combined"])
def sums(request, monkeypatch):
    """Data checksums of runs checked record by record, or (every run of two or more) as
    one CRC32C of the joined records against their combined stored sums."""
    if request.param == "combined":
        monkeypatch.setattr(tfrecord, "_COMBINED_RUN", 2)
        monkeypatch.setattr(tfrecord, "_COMBINED_AFTER", 0)
    return request.param


@FUZZ
@given(records=RECORDS, chunk=st.integers(1, 50), data=st.data())
def test_damage_in_runs_is_found_where_the_reference_finds_it(tmp_path, sums, records, chunk,
                                                               data):
    raw = bytearray(b"".join(tfrecord.encode_record(r) for r in records))
    if raw and data.draw(st.booleans()):
        raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
    if raw and data.draw(st.booleans()):
        raw = raw[:data.draw(st.integers(0, len(raw)))]
    _check(tmp_path, raw, chunk)


@pytest.mark.parametrize("what", ["data", "length", "header_crc", "footer"])
def test_one_bad_record_in_a_long_run(tmp_path, sums, what):
    records = [bytes([i % 256]) * 300 for i in range(1000)]
    raw = bytearray(b"".join(tfrecord.encode_record(r) for r in records))
    at = 316 * 617
    offset = {"data": 20, "length": 0, "header_crc": 9, "footer": 314}[what]
    raw[at + offset] ^= 0x40
    _check(tmp_path, raw, 128)
    got, error = _framed(tmp_path / "runs.tfrecord", 128)
    named = at + 12 if what in ("data", "footer") else at  # a data checksum names the data
    assert len(got) == 617 and error == f"corrupted record at {named}"


def test_runs_across_block_boundaries(tmp_path, sums):
    # records of two lengths alternating in long runs, over several 1 MiB blocks
    records = [(b"a" * 1000 if (i // 700) % 2 else b"b" * 777) for i in range(5000)]
    raw = b"".join(tfrecord.encode_record(r) for r in records)
    assert len(raw) > 3 * (1 << 20)
    _check(tmp_path, raw, 128)
    _check(tmp_path, raw[:-3], 100)


def test_every_single_bit_flip_in_a_combined_run_is_found(tmp_path, monkeypatch):
    # runs of 200 records of 37 bytes (checked as one in pieces of crc32c.MAX_COMBINED):
    # each flip of one bit of one record's data or stored sum names that record
    monkeypatch.setattr(tfrecord, "_COMBINED_AFTER", 0)
    records = [bytes([(i * 7 + j) % 256 for j in range(37)]) for i in range(200)]
    clean = b"".join(tfrecord.encode_record(r) for r in records)
    stride = 16 + 37
    for record in (0, 63, 127, 128, 199):
        for at in list(range(12, 12 + 37 + 4)):
            for bit in (0, 5, 7):
                raw = bytearray(clean)
                raw[record * stride + at] ^= 1 << bit
                path = tmp_path / "flip.tfrecord"
                path.write_bytes(bytes(raw))
                got, error = _framed(path, 256)
                assert len(got) == record
                assert error == f"corrupted record at {record * stride + 12}"


def test_records_larger_than_a_block_and_a_buffer_that_shrinks_back(tmp_path):
    records = [b"s" * 100, b"L" * (3 << 20), b"t" * 100, b"u" * 100, b"M" * ((1 << 20) - 5)]
    raw = b"".join(tfrecord.encode_record(r) for r in records) * 2
    _check(tmp_path, raw, 1)
    _check(tmp_path, raw, 3)
    _check(tmp_path, raw[:-7], 2)
