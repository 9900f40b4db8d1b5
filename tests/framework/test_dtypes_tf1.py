"""DataType enums and dtype ranges as TF 1.15 has them (its dtypes_test): every value of
types.proto's DataType is a DType, and bfloat16 (no NumPy type) has its own range."""

import pytest

import flowloom as tf
from flowloom.framework import dtypes
from flowloom.proto import types_pb2


def test_every_datatype_of_types_proto_is_a_dtype():
    values = [v for v in types_pb2.DataType.values() if v != types_pb2.DT_INVALID]
    # TF 1.15's types.proto: 1..23 and their refs 101..123 (no TF 2.x float8/int4 values)
    assert sorted(values) == list(range(1, 24)) + list(range(101, 124))
    for value in values:
        assert dtypes.DType(value).as_datatype_enum == value
        assert dtypes.as_dtype(value).as_datatype_enum == value
    names = [dtypes.as_dtype(v).name for v in values]
    assert len(set(names)) == len(names)


def test_a_tf2_only_enum_is_refused():
    with pytest.raises(TypeError):
        dtypes.DType(24)


def test_bfloat16_range_is_tf_1_15s():
    # TF 1.15: bfloat16.min/max are -/+0x1.FEp127 (float32's exponent, 7 mantissa bits)
    assert tf.bfloat16.min == -3.3895313892515355e+38 == float.fromhex("-0x1.FEp127")
    assert tf.bfloat16.max == float.fromhex("0x1.FEp127")
    assert dtypes.as_dtype(types_pb2.DT_BFLOAT16_REF).max == float.fromhex("0x1.FEp127")
