"""parallel_interleave through tf.data.experimental and tf.contrib.data, and tf.contrib.data's
own names, against TF 1.15 (tests/data/interleave_tf1.json): the deterministic order for
sloppy=False over cycle/block/prefetch/buffer settings, the same elements for sloppy=True,
TF's argument errors."""

import json
import os
import sys

import pytest

import flowloom as tf

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import interleave_cases  # noqa: E402

RECORDED = json.load(open(os.path.join(DATA, "interleave_tf1.json")))["cases"]


@pytest.mark.parametrize("module", ["experimental", "contrib"])
def test_parallel_interleave_as_tensorflow(module):
    api = tf.data.experimental if module == "experimental" else tf.contrib.data
    got = interleave_cases.observe(tf, api)
    differ = {k: (got[k], v) for k, v in RECORDED["interleave"].items() if got.get(k) != v}
    assert differ == {}


def test_contrib_data_names_as_tensorflow():
    assert interleave_cases.observe_contrib(tf) == RECORDED["contrib"]


def test_contrib_data_names_flowloom_lacks_say_so():
    with pytest.raises(NotImplementedError, match="tf.contrib.data.LMDBDataset"):
        tf.contrib.data.LMDBDataset  # noqa: B018
