import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from flowloom.framework import errors
from flowloom.io import bundle
from flowloom.proto import types_pb2


def reference_tensors():
    """The tensors of data/tf_savev2/ckpt (see data/make_reference_data.py)."""
    return {
        "a/float": np.arange(6, dtype=np.float32).reshape(2, 3) / 4,
        "b/int64": np.array([1, -2, 3 << 40], dtype=np.int64),
        "c/string": np.array([[b"hello", b""], [b"\x00\xff", b"world" * 3]], dtype=object),
        "d/scalar_double": np.array(2.5, dtype=np.float64),
        "e/bool": np.array([True, False, True]),
        "f/int32": np.array([7], dtype=np.int32),
        "g/uint8_empty": np.zeros([0, 4], dtype=np.uint8),
    }


def _assert_same(actual, expected):
    assert actual.shape == expected.shape
    if expected.dtype == object:
        assert actual.dtype == object and actual.tolist() == expected.tolist()
    else:
        assert actual.dtype == expected.dtype
        np.testing.assert_array_equal(actual, expected)


def test_reads_tf_saver_checkpoint(data_path):
    reader = bundle.BundleReader(data_path("tf_saver", "model.ckpt"))
    assert reader.list() == {
        "weights": (types_pb2.DT_FLOAT, (2, 2)),
        "global_step": (types_pb2.DT_INT64, ()),
        "vocab": (types_pb2.DT_STRING, (2,)),
        "layer/bias": (types_pb2.DT_FLOAT, (3,)),
    }
    values = bundle.read_bundle(data_path("tf_saver", "model.ckpt"))
    _assert_same(values["weights"], np.array([[1.0, 2.0], [3.0, 4.5]], np.float32))
    _assert_same(values["global_step"], np.array(42, np.int64))
    _assert_same(values["vocab"], np.array([b"alpha", b"beta"], object))
    _assert_same(values["layer/bias"], np.array([0.5, -0.25, 8.0], np.float32))


def test_reads_tf_save_v2_bundle(data_path):
    values = bundle.read_bundle(data_path("tf_savev2", "ckpt"))
    expected = reference_tensors()
    assert sorted(values) == sorted(expected)
    for name in expected:
        _assert_same(values[name], expected[name])


def test_written_files_are_byte_identical_to_tf(tmp_path, data_path):
    bundle.write_bundle(tmp_path / "ckpt", reference_tensors())
    for suffix in (".index", ".data-00000-of-00001"):
        with open(data_path("tf_savev2", "ckpt" + suffix), "rb") as f:
            assert (tmp_path / ("ckpt" + suffix)).read_bytes() == f.read(), suffix


def test_round_trip_all_dtypes(tmp_path):
    tensors = {
        f"t_{np.dtype(dt).name}": (np.arange(12) % 3).astype(dt).reshape(3, 4)
        for dt in [
            np.float16,
            np.float32,
            np.float64,
            np.int8,
            np.int16,
            np.int32,
            np.int64,
            np.uint8,
            np.uint16,
            np.uint32,
            np.uint64,
            np.complex64,
            np.complex128,
            bool,
        ]
    }
    tensors["unicode"] = np.array(["héllo", "wörld"])
    tensors["bytes_fixed"] = np.array([b"ab", b"c"])
    tensors["nested/scope/scalar"] = np.float32(3.0)
    bundle.write_bundle(tmp_path / "sub" / "ckpt", tensors)
    values = bundle.read_bundle(tmp_path / "sub" / "ckpt")
    for name, array in tensors.items():
        array = np.asarray(array)
        if array.dtype.kind in "SU":
            assert values[name].tolist() == [
                s.encode() if isinstance(s, str) else s for s in array.tolist()
            ]
        else:
            _assert_same(values[name], array)
    assert sorted(os.listdir(tmp_path / "sub")) == ["ckpt.data-00000-of-00001", "ckpt.index"]


def test_missing_tensor_and_files(tmp_path):
    bundle.write_bundle(tmp_path / "ckpt", {"a": np.zeros(2)})
    reader = bundle.BundleReader(tmp_path / "ckpt")
    assert "a" in reader and "b" not in reader
    with pytest.raises(errors.NotFoundError, match="Key b not found"):
        reader.get("b")
    os.remove(tmp_path / "ckpt.data-00000-of-00001")
    with pytest.raises(errors.NotFoundError):
        reader.get("a")
    with pytest.raises(errors.NotFoundError):
        bundle.BundleReader(tmp_path / "absent")


def test_bad_names_and_dtypes(tmp_path):
    with pytest.raises(errors.InvalidArgumentError):
        bundle.write_bundle(tmp_path / "c", {"": np.zeros(1)})
    with pytest.raises(TypeError):
        bundle.write_bundle(tmp_path / "c", {"x": np.array([np.datetime64("2020-01-01")])})
    assert not (tmp_path / "c.index").exists()


def test_corrupt_data_is_data_loss(tmp_path):
    bundle.write_bundle(tmp_path / "ckpt", {"w": np.ones(4, np.float32)})
    path = tmp_path / "ckpt.data-00000-of-00001"
    data = bytearray(path.read_bytes())
    data[5] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(errors.DataLossError, match="Checksum does not match for tensor w"):
        bundle.read_bundle(tmp_path / "ckpt")
    path.write_bytes(bytes(data[:10]))
    with pytest.raises(errors.DataLossError, match="runs past the end"):
        bundle.read_bundle(tmp_path / "ckpt")


def _read_or_error(prefix):
    try:
        return bundle.read_bundle(prefix)
    except (errors.DataLossError, errors.InvalidArgumentError) as e:
        assert str(e)
        return None


FUZZ = settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@FUZZ
@given(
    which=st.sampled_from([".index", ".data-00000-of-00001"]),
    truncate=st.booleans(),
    data=st.data(),
)
def test_fuzz_damaged_bundle_is_data_loss(tmp_path, which, truncate, data):
    prefix = tmp_path / "ckpt"
    bundle.write_bundle(prefix, reference_tensors())
    path = tmp_path / ("ckpt" + which)
    raw = bytearray(path.read_bytes())
    position = data.draw(st.integers(0, len(raw) - 1))
    if truncate:
        raw = raw[:position]
    else:
        raw[position] ^= data.draw(st.integers(1, 255))
    path.write_bytes(bytes(raw))
    result = _read_or_error(prefix)
    if result is not None:
        # Only the footer's zero padding (unchecked, as in TF) may change unnoticed.
        assert which == ".index" and not truncate and len(raw) - 48 < position < len(raw) - 8
        assert sorted(result) == sorted(reference_tensors())


@FUZZ
@given(strings=st.lists(st.binary(max_size=20), min_size=1, max_size=6), data=st.data())
def test_fuzz_string_tensor_damage(tmp_path, strings, data):
    prefix = tmp_path / "s"
    bundle.write_bundle(prefix, {"s": np.array(strings + [b""], dtype=object)})
    path = tmp_path / "s.data-00000-of-00001"
    raw = bytearray(path.read_bytes())
    raw[data.draw(st.integers(0, len(raw) - 1))] ^= data.draw(st.integers(1, 255))
    path.write_bytes(bytes(raw))
    assert _read_or_error(prefix) is None
