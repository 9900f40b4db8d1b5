"""tf.train.replica_device_setter placements equal TF's (recorded from TF 1.15 and TF 2.x
compat.v1: every op's device in the CIFAR-10 multi-tower graph, a wide model under the greedy
strategy, a small MLP and small merging cases; tests/data/distributed_api_tf{1,2}.json)."""

import json
import os

import pytest

import flowloom as tf
from tests.distributed_api import placement_graphs
from tests.tf_reference import as_tf2_op_type

RECORD = os.path.join(os.path.dirname(os.path.dirname(__file__)), "data",
                      "distributed_api_tf1.json")


def _record(name="distributed_api_tf1.json"):
    with open(os.path.join(os.path.dirname(RECORD), name)) as f:
        return json.load(f)


# Of TF's ops, how many flowloom builds with the same name and type (the rest are op-building
# differences outside the device setter: TF 1.15's Add vs AddV2, its tf.cond in zero_fraction,
# gradient graphs). A drop means graphs got further from TF's.
COVERAGE_FLOOR = {("tf1", "cifar10_towers"): 686, ("tf1", "wide_model"): 540,
                  ("tf1", "small_mlp"): 122, ("tf1", "semantics"): 84,
                  ("tf1", "sync_replicas"): 206,
                  ("tf2", "cifar10_towers"): 702, ("tf2", "small_mlp"): 132}
PS_TYPES = ("VariableV2", "VarHandleOp")


def _compare(expected, got):
    by_name = {r[0]: r for r in got}
    common = [r for r in expected if r[0] in by_name and by_name[r[0]][1] == r[1]]
    wrong = [(r, by_name[r[0]][2]) for r in common if by_name[r[0]][2] != r[2]]
    return common, wrong


@pytest.mark.parametrize("record,name", sorted(COVERAGE_FLOOR))
def test_placements_match_tf(record, name):
    expected = _record("distributed_api_%s.json" % record)["placements"][name]
    got = placement_graphs.placements(placement_graphs.GRAPHS[name](tf))
    if record == "tf2":  # TF 2.21's math_ops.add builds AddV2, TF 1.15's (flowloom's) Add
        got = [[r[0], as_tf2_op_type(r[1])] + list(r[2:]) for r in got]
    common, wrong = _compare(expected, got)
    assert not wrong, f"{len(wrong)} of {len(common)} ops differ from TF, first: {wrong[:5]}"
    assert len(common) >= COVERAGE_FLOOR[(record, name)]
    # Every variable TF creates exists in flowloom's graph (so every placement is checked).
    names = {r[0] for r in common}
    assert [r[0] for r in expected if r[1] in PS_TYPES and r[0] not in names] == []


def test_none_and_errors_match_tf1():
    assert placement_graphs.none_setters(tf) == _record()["none_setters"]


def test_greedy_balances_bytes():
    strategy = tf.contrib.training.GreedyLoadBalancingStrategy(
        2, tf.contrib.training.byte_size_load_fn)
    with tf.device(tf.train.replica_device_setter(ps_tasks=2, ps_strategy=strategy)):
        big = tf.Variable(tf.zeros([100, 10]), name="big")
        small = [tf.Variable(tf.zeros([10]), name="s%d" % i) for i in range(3)]
    assert big.device == "/job:ps/task:0"
    assert [v.device for v in small] == ["/job:ps/task:1"] * 3


def test_byte_size_load_fn_needs_one_output():
    a, b = tf.split(tf.zeros([4]), 2)
    with pytest.raises(ValueError, match="must have a single output"):
        tf.contrib.training.byte_size_load_fn(a.op)


def test_node_def_is_accepted():
    setter = tf.train.replica_device_setter(ps_tasks=2)
    node = tf.Variable(1.0).op.node_def
    node.device = ""
    assert setter(node) == "/job:ps/task:0"


def test_device_spec_parsing_and_merging_match_tf1():
    expected = _record()["device_specs"]
    got = placement_graphs.device_specs(tf)
    assert [c[0] for c in got] == [c[0] for c in expected]
    for (label, want), (_, have) in zip(expected, got):
        assert have == want, label
