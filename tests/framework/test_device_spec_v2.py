"""DeviceSpecV2.parse_from_string returns a new spec, as TF 1.15's (the spec is immutable)."""

import pytest

import flowloom as tf
from flowloom.framework.device import DeviceSpecV2


def test_parse_from_string_returns_a_new_spec():
    d = DeviceSpecV2()
    e = d.parse_from_string("/job:foo/replica:0/cpu:0")
    assert d.to_string() == "" and e.to_string() == "/job:foo/replica:0/device:CPU:0"
    assert isinstance(e, DeviceSpecV2)
    with pytest.raises(ValueError, match="Cannot specify multiple"):
        e.parse_from_string("/job:muu/device:GPU:2/cpu:0")
    with pytest.raises(AttributeError):
        e.job = "bar"
    assert tf.DeviceSpec.from_string("/gpu:1").device_index == 1
