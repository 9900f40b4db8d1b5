"""tf.layers.BatchNormalization (one and several axes, fused, renorm, ghost batches,
adjustment) and tf.layers.Layer's names, conditional updates and losses give what TF 1.15
gave (tests/data/layers_bn_tf.json, made by tests/data/record_layers_bn.py)."""

import copy
import json
import os
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.layers import base

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
sys.path.insert(0, DATA)
import layers_bn_programs  # noqa: E402

with open(os.path.join(DATA, "layers_bn_tf.json")) as f:
    EXPECTED = json.load(f)

GOT = json.loads(json.dumps(layers_bn_programs.program(tf)))


@pytest.mark.parametrize("case", sorted(k for k in EXPECTED if k != "facts"))
def test_batch_normalization_matches_tf_1_15(case):
    want, got = EXPECTED[case], GOT[case]
    assert (got["names"], got["n_updates"], got["fused"]) == \
        (want["names"], want["n_updates"], want["fused"])
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-3, atol=2e-3)
    for name in want["names"]:
        np.testing.assert_allclose(got["vars"][name], want["vars"][name], rtol=1e-3,
                                   atol=2e-3, err_msg=name)


def test_layer_facts_match_tf_1_15():
    assert GOT["facts"] == EXPECTED["facts"]


def test_updates_conditional_on_inputs():
    class Counting(base.Layer):
        def build(self, input_shape):
            self.a = self.add_variable("a", (), tf.float32, trainable=False)
            self.add_update(tf.assign_add(self.a, 1.0))
            self.built = True

        def call(self, inputs):
            self.add_update(tf.assign_add(self.a, inputs), inputs=True)
            self.add_loss(inputs, inputs=True)
            return inputs + 1

    with tf.Graph().as_default():
        layer = Counting()
        x = tf.placeholder(tf.float32, ())
        mid = x + 1
        out = layer.apply(mid)
        assert [len(layer.get_updates_for(v)) for v in (None, [x], [mid], [out])] == \
            [1, 1, 1, 0]
        assert [len(layer.get_losses_for(v)) for v in (None, [x], [mid], [out])] == \
            [0, 1, 1, 0]
        assert len(tf.get_collection(tf.GraphKeys.UPDATE_OPS)) == 2


def test_scope_names_deep_copy_and_errors():
    with tf.Graph().as_default():
        class PrivateLayer(base.Layer):
            pass
        x = tf.zeros([2])
        layers = [PrivateLayer(), PrivateLayer(), PrivateLayer(name="n"), PrivateLayer(name="n")]
        for layer in layers:
            layer.apply(x)
        assert [layer._scope.name for layer in layers] == \
            ["private_layer", "private_layer_1", "n", "n_1"]
        clone = copy.deepcopy(layers[0])
        assert clone._scope.name == "private_layer" and clone.name == layers[0].name
        with pytest.raises(ValueError, match="ON_READ only for non-trainable"):
            layers[0].add_variable("v", [1], synchronization=tf.VariableSynchronization.ON_READ,
                                   trainable=True)
        with pytest.raises(ValueError, match="isn't built"):
            tf.layers.Dense(3).count_params()
        with pytest.raises(ValueError, match="`kernel_size` argument must be a tuple of 2"):
            tf.layers.Conv2D(2, (1, 2, 3))
