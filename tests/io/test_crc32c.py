import numpy as np
import pytest

from flowloom.io import crc32c

# Vectors from RFC 3720 (iSCSI), appendix B.4, and the usual check value.
VECTORS = [
    (b"", 0x00000000),
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
    (bytes(range(31, -1, -1)), 0x113FDB5C),
]


@pytest.mark.parametrize(
    "extend", [crc32c._extend_python, crc32c.crc32c], ids=["python", "default"]
)
@pytest.mark.parametrize("data,expected", VECTORS)
def test_known_vectors(extend, data, expected):
    assert (
        extend(0, data) == expected if extend is crc32c._extend_python else extend(data) == expected
    )


def test_extend_equals_whole():
    data = bytes(range(256)) * 3
    for cut in (0, 1, 100, 767, 768):
        partial = crc32c.crc32c(data[:cut])
        assert crc32c.crc32c(data[cut:], partial) == crc32c.crc32c(data)
        assert crc32c._extend_python(
            crc32c._extend_python(0, data[:cut]), data[cut:]
        ) == crc32c.crc32c(data)


def test_mask_matches_tf_definition_and_inverts():
    for value in (0, 1, 0xE3069283, 0xFFFFFFFF, 0x12345678):
        expected = ((((value >> 15) | (value << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
        assert crc32c.mask(value) == expected
        assert crc32c.unmask(crc32c.mask(value)) == value
        assert crc32c.mask(value) != value


def test_masked_crc32c_accepts_memoryview():
    assert crc32c.masked_crc32c(memoryview(b"123456789")) == crc32c.mask(0xE3069283)


def test_files_are_identical_with_the_python_fallback(monkeypatch, data_path, tmp_path):
    from flowloom.io import tfrecord

    monkeypatch.setattr(crc32c, "_extend", crc32c._extend_python)
    records = [b"", b"first", b"x" * 300, bytes(range(256))]
    path = tmp_path / "r"
    with tfrecord.TFRecordWriter(path) as writer:
        for record in records:
            writer.write(record)
    with open(data_path("plain.tfrecord"), "rb") as f:
        assert path.read_bytes() == f.read()


@pytest.mark.parametrize("length", [0, 1, 3, 4, 37, 300, 4096, 65539])
def test_concatenated_value_is_the_crc_of_the_joined_records(length):
    rng = np.random.default_rng(length)
    records = [rng.bytes(length) for _ in range(crc32c.MAX_COMBINED)]
    sums = np.array([crc32c.value(r) for r in records], np.uint32)
    for k in (1, 2, 3, 64, crc32c.MAX_COMBINED - 1, crc32c.MAX_COMBINED):
        assert crc32c.concatenated_value(sums[:k], length) == crc32c.crc32c(
            b"".join(records[:k]))
        if length <= 300:
            assert crc32c.concatenated_value(sums[-k:], length) == crc32c._extend_python(
                0, b"".join(records[-k:]))


def test_concatenated_value_takes_1_to_max_combined_sums():
    for k in (0, crc32c.MAX_COMBINED + 1):
        with pytest.raises(ValueError, match="combines 1 to"):
            crc32c.concatenated_value(np.zeros(k, np.uint32), 10)
