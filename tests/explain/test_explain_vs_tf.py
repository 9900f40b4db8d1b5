"""The copies flowloom explain reports are the _Send/_Recv pairs TensorFlow makes.

TF's pairs for the device scenarios (seed 000's variable read on another device, the
CIFAR-10 towers, ...) were recorded by tests/data/record_devices.py.
"""

import os
import re
import sys

import pytest

import flowloom as tf
from flowloom.explain.report import explain_plan
from flowloom.framework import observers

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "runtime"))
import device_scenarios  # noqa: E402
import tf_data  # noqa: E402

DATA = tf_data.load()["scenarios"]


def _tf_pair(src, send, recv):
    arg = re.match(r"_arg_(.*)_0_\d+$", src)  # a fed tensor: TF's _Arg node
    return (arg.group(1) if arg else src, send, recv)


def _ours(tr):
    return (re.sub(r":0$", "", tr.tensor_name), tr.src.replace(
        "/job:localhost/replica:0/task:0", ""), tr.dst.replace("/job:localhost/replica:0/task:0",
                                                               ""))


@pytest.mark.parametrize("name", sorted(DATA))
def test_explained_copies_equal_tensorflows_pairs(name):
    tf.reset_default_graph()
    fetches, feed = device_scenarios.SCENARIOS[name](tf)
    seen = []

    def on_run(session, plan, feeds, fetch_tensors, targets, seconds):
        seen.append(explain_plan(session, plan, feeds, fetch_tensors, targets, seconds))

    config = tf.ConfigProto(device_count={"CPU": 2}, allow_soft_placement=True)
    with tf.Session(config=config) as sess:
        sess.run(tf.global_variables_initializer())
        observers.session_run.append(on_run)
        try:
            sess.run(fetches, feed)
        finally:
            observers.session_run.remove(on_run)
    ex = seen[-1]
    assert sorted(_ours(t) for t in ex.transfers) == \
        sorted(_tf_pair(*p) for p in DATA[name]["pairs"])
    if name == "cifar_towers":
        text = str(ex)
        assert "7 _Send/_Recv pair(s)" in text
        assert "conv1/weights/read:0: CPU:0 -> CPU:1, read there by tower_1/conv1/Conv2D" in text
