import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flowloom.framework import errors
from flowloom.io import table
from flowloom.io.table_block import parse_block


def _items(n, value_size=10):
    return [(b"key%06d" % i, bytes([i % 256]) * value_size) for i in range(n)]


@pytest.mark.parametrize("block_size,restart_interval", [(262144, 16), (64, 1), (200, 3), (1, 16)])
def test_round_trip_and_lookup(block_size, restart_interval):
    items = [(b"", b"header")] + _items(500)
    data = table.build_table(items, block_size=block_size, block_restart_interval=restart_interval)
    reader = table.Table(data)
    assert list(reader.items()) == items
    for key, value in items[::37]:
        assert reader.get(key) == value
    assert reader.get(b"key0000005") is None  # between keys
    assert reader.get(b"zzz", b"default") == b"default"
    assert reader.get(b"key") is None  # before the first key


def test_empty_table():
    reader = table.Table(table.build_table([]))
    assert list(reader.items()) == []
    assert reader.get(b"x") is None


def test_footer_layout():
    data = table.build_table([(b"a", b"1")])
    assert data[-8:] == bytes.fromhex("57fb808b247547db")  # 0xdb4775248b80fb57, little-endian
    # Each block + 5-byte trailer: data (entry 5, restarts 8), empty metaindex
    # (restarts 8), index (key "b" -> handle (0, 13): entry 6, restarts 8); footer.
    assert data[13] == table.NO_COMPRESSION
    assert len(data) == (13 + 5) + (8 + 5) + (14 + 5) + 48


def test_index_uses_shortest_separators():
    items = [(b"the quick brown fox", b"v" * 100), (b"the who", b"w")]
    reader = table.Table(table.build_table(items, block_size=50))
    assert reader._index_keys == [b"the r", b"u"]


def test_keys_must_increase():
    import io

    builder = table.TableBuilder(io.BytesIO())
    builder.add(b"b", b"")
    with pytest.raises(errors.InvalidArgumentError, match="increase"):
        builder.add(b"a", b"")


def test_reads_tf_written_index(data_path):
    reader = table.Table.open(data_path("tf_savev2", "ckpt.index"))
    keys = [key for key, _ in reader.items()]
    assert keys[0] == b"" and keys[1:] == sorted(keys[1:]) and b"c/string" in keys


def test_snappy_block_is_not_implemented():
    from flowloom.io import crc32c

    data = bytearray(table.build_table([(b"a", b"1")]))
    # The data block comes first: 5 bytes of entry, 8 of restarts; then its trailer.
    contents_end = 13
    data[contents_end] = table.SNAPPY_COMPRESSION
    checksum = crc32c.mask(crc32c.crc32c(bytes(data[: contents_end + 1])))
    data[contents_end + 1 : contents_end + 5] = checksum.to_bytes(4, "little")
    with pytest.raises(NotImplementedError, match="snappy"):
        list(table.Table(bytes(data)).items())


@pytest.mark.parametrize("damage", ["short", "magic", "crc", "handle"])
def test_corruption_is_data_loss(damage):
    data = bytearray(table.build_table(_items(20)))
    if damage == "short":
        data = data[:40]
    elif damage == "magic":
        data[-1] ^= 0xFF
    elif damage == "crc":
        data[3] ^= 0x10
    else:
        data[-48] = 0xFF  # metaindex offset varint now runs on
        data[-47:-40] = b"\xff" * 7
    with pytest.raises(errors.DataLossError, match="corrupted table"):
        table.Table(bytes(data), name="t.index")
        list(table.Table(bytes(data)).items())


def _read_fully(data):
    try:
        reader = table.Table(data)
        entries = list(reader.items())
        for key, _ in entries[:5]:
            reader.get(key)
        return entries
    except errors.DataLossError as e:
        assert str(e)
        return None


FUZZ = settings(max_examples=300, deadline=None)


@FUZZ
@given(
    entries=st.dictionaries(st.binary(max_size=12), st.binary(max_size=30), max_size=30),
    data=st.data(),
)
def test_fuzz_mutations_are_data_loss(entries, data):
    items = sorted(entries.items())
    raw = bytearray(table.build_table(items, block_size=64))
    assert _read_fully(bytes(raw)) == items
    position = data.draw(st.integers(0, len(raw) - 1))
    raw[position] ^= data.draw(st.integers(1, 255))
    result = _read_fully(bytes(raw))
    # Padding bytes of the footer are not checked, as in TF.
    assert result is None or result == items


@FUZZ
@given(
    entries=st.dictionaries(st.binary(max_size=12), st.binary(max_size=30), max_size=30),
    data=st.data(),
)
def test_fuzz_truncation_is_data_loss(entries, data):
    raw = table.build_table(sorted(entries.items()), block_size=64)
    assert _read_fully(raw[: data.draw(st.integers(0, len(raw) - 1))]) is None


@FUZZ
@given(raw=st.binary(max_size=200))
def test_fuzz_block_parser(raw):
    try:
        parse_block(raw)
    except errors.DataLossError as e:
        assert str(e)
