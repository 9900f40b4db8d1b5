"""DeviceSpec parsing and `tf.device` scope merging give TF's `op.device` strings."""

import pytest

import flowloom as tf
import tf_data

DATA = tf_data.load()["names"]


def _scope_arg(s):
    if isinstance(s, dict):
        return tf.DeviceSpec(**s)
    if isinstance(s, list) and s[0] == "fn":
        return lambda op: s[1]
    if isinstance(s, list):
        spec = tf.DeviceSpec(**s[1])
        return lambda op: spec
    return s


@pytest.mark.parametrize("case", DATA["scopes"], ids=lambda c: repr(c["scopes"]))
def test_nested_device_scopes_match_tf(case):
    g = tf.Graph()
    with g.as_default():
        ctxs = [tf.device(_scope_arg(s)) for s in case["scopes"]]
        for c in ctxs:
            c.__enter__()
        x = tf.constant(1.0)
        for c in reversed(ctxs):
            c.__exit__(None, None, None)
    assert x.op.device == case["device"]


@pytest.mark.parametrize("text", sorted(DATA["specs"]))
def test_device_spec_parse_matches_tf(text):
    d = tf.DeviceSpec.from_string(text)
    assert [d.to_string(), d.job, d.replica, d.task, d.device_type,
            d.device_index] == DATA["specs"][text]


@pytest.mark.parametrize("bad, message", [
    ("/foo:1", "Unknown attribute: 'foo' in '/foo:1'"),  # TF 1.15's words
    ("/cpu:0/gpu:1", "Cannot specify multiple device types: /cpu:0/gpu:1"),
    ("cpu:x", "invalid literal")])
def test_bad_device_specs_raise_value_error(bad, message):
    with pytest.raises(ValueError, match=message):
        tf.DeviceSpec.from_string(bad)


def test_merge_keeps_fields_the_other_leaves_unset():
    a = tf.DeviceSpec.from_string("/job:worker/task:1/cpu:0")
    assert a.make_merged_spec(tf.DeviceSpec.from_string("/gpu:2")).to_string() == \
        "/job:worker/task:1/device:GPU:2"
    assert a.make_merged_spec(tf.DeviceSpec(device_type="GPU")).to_string() == \
        "/job:worker/task:1/device:GPU:0"


def test_colocate_with_takes_the_variable_device_and_group():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:1"):
            v = tf.Variable(1.0, name="v")
        with tf.device("/cpu:0"):
            with tf.colocate_with(v.op):
                r = tf.identity(v, name="r")
    assert r.op.device == "/device:CPU:1"
    assert r.op.get_attr("_class") == [b"loc:@v"]  # bytes, as TF
    assert v.initializer.device == "/device:CPU:1"
