"""Image standardization fusion (a stage of `remapping`): per_image_standardization's ops run
as one `_FusedImageStandardization` step, with the values of the separate ops."""

import numpy as np
import pytest

import flowloom as tf
from flowloom.proto.rewriter_config_pb2 import RewriterConfig
from flowloom.runtime import rewrites

OFF = RewriterConfig.OFF
acts = pytest.mark.skipif(rewrites.ALL_OFF, reason="FLOWLOOM_REWRITES=0: no rewrite acts")
# The images include infinities and NaNs: the separate ops' kernels warn of them.
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")


def _config(**toggles):
    return tf.ConfigProto(graph_options=tf.GraphOptions(
        rewrite_options=RewriterConfig(**toggles)))


def _runs(config, fetches, feeds):
    """Each feed's fetched values (the plan interpreted, then compiled), the partition
    graph's node types by name, and the plan."""
    with tf.Session(config=config) as sess:
        md = tf.RunMetadata()
        sess.run(fetches, feeds[0], options=tf.RunOptions(output_partition_graphs=True),
                 run_metadata=md)
        values = [sess.run(fetches, f) for f in feeds]
        nodes = {n.name: n.op for g in md.partition_graphs for n in g.node}
        plan = list(sess._plan_cache.values())[-1]
    return values, nodes, plan


def _same_bits(a, b):
    if isinstance(a, list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same_bits(u, v)
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert (a.view(np.uint8) == b.view(np.uint8)).all()


def _images(rng, shape, n):
    out = []
    for k in range(n):
        kind = k % 6
        if kind == 0:
            x = rng.uniform(0, 255, shape)
        elif kind == 1:
            x = rng.randn(*shape) * rng.choice([1e-3, 1.0, 1e4])
        elif kind == 2:
            x = np.full(shape, rng.randn())  # no spread: the stddev floor divides
        elif kind == 3:
            x = rng.randn(*shape) * 3e37  # squares overflow to inf
        elif kind == 4:
            x = rng.randn(*shape)
            x.flat[rng.randint(x.size)] = rng.choice([np.nan, np.inf, -np.inf])
        else:
            x = np.round(rng.uniform(-2, 2, shape) * 8) / 8  # many ties
        out.append(x.astype(np.float32))
    return out


def _compare(build, shape, n=24, seed=0, **toggles):
    """The nodes and plan with the fusion on, after checking that every image's values are
    the separate ops' bit for bit (remapping off)."""
    x = tf.placeholder(tf.float32, [None] * len(shape))
    y = build(x)
    feeds = [{x: v} for v in _images(np.random.RandomState(seed), shape, n)]
    on, nodes, plan = _runs(_config(**toggles), y, feeds)
    off, off_nodes, _ = _runs(_config(remapping=OFF, **toggles), y, feeds)
    assert "_FusedImageStandardization" not in off_nodes.values()
    for a, b in zip(on, off):
        _same_bits(a, b)
    return nodes, plan


@acts
@pytest.mark.parametrize("shape", [(24, 24, 3), (5, 7, 1), (1, 1, 4), (3, 9, 13, 3), (2, 1, 1, 1)])
def test_standardization_runs_as_one_step_with_the_same_bits(shape):
    nodes, plan = _compare(lambda x: tf.image.per_image_standardization(x), shape)
    fused = [n for n, t in nodes.items() if t == "_FusedImageStandardization"]
    assert fused == ["per_image_standardization"]
    assert not {"Mean", "Sqrt", "Maximum", "RealDiv", "Abs"} & set(nodes.values())


@acts
def test_before_subgraph_elimination_the_two_subs_fuse_too():
    nodes, _ = _compare(lambda x: tf.image.per_image_standardization(x), (6, 5, 3),
                        common_subgraph_elimination=OFF)
    assert nodes["per_image_standardization"] == "_FusedImageStandardization"
    assert "Sub" not in nodes.values()


@acts
def test_after_contrast_in_a_pipeline():
    def build(x):
        image = tf.image.adjust_contrast(x, 1.7)
        return tf.image.per_image_standardization(image)
    nodes, _ = _compare(build, (24, 24, 3), n=12)
    assert nodes["per_image_standardization"] == "_FusedImageStandardization"


@acts
def test_a_value_seen_outside_keeps_the_ops():
    def build(x):
        y = tf.image.per_image_standardization(x)
        mean = tf.get_default_graph().get_tensor_by_name("per_image_standardization/Mean:0")
        return [y, mean]
    nodes, _ = _compare(build, (4, 4, 3), n=6)
    assert "_FusedImageStandardization" not in nodes.values()
    assert nodes["per_image_standardization"] == "_FusedElementwise"


@acts
def test_other_divisions_are_not_taken_for_it():
    def build(x):
        mean = tf.reduce_mean(x, axis=[-1, -2, -3], keepdims=True)
        centered = x - mean
        var = tf.reduce_mean(tf.square(tf.abs(centered)), axis=[-1, -2], keepdims=True)
        return centered / tf.maximum(tf.sqrt(var), 0.5)  # a different axes for var
    nodes, _ = _compare(build, (4, 5, 3), n=6)
    assert "_FusedImageStandardization" not in nodes.values()


@acts
def _failing_run(config):
    # The rank is known only when the image is fed: a 2-D image fails the first Mean.
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32)
        mean = tf.reduce_mean(x, axis=[-1, -2, -3], keepdims=True, name="m")
        centered = x - mean
        var = tf.reduce_mean(tf.square(tf.abs(centered)), axis=[-1, -2, -3], keepdims=True)
        y = tf.divide(centered, tf.maximum(tf.sqrt(var), 0.25), name="y")
        with tf.Session(config=config) as sess:
            md = tf.RunMetadata()
            good = sess.run(y, {x: np.ones((2, 3, 1), np.float32)},
                            options=tf.RunOptions(output_partition_graphs=True),
                            run_metadata=md)
            nodes = {n.name: n.op for g in md.partition_graphs for n in g.node}
            for _ in range(2):  # the plan interpreted, then compiled
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    sess.run(y, {x: np.ones((2, 3), np.float32)})
    return good, nodes, e.value


@acts
def test_a_failing_member_is_reported_as_that_op():
    good_on, nodes, err_on = _failing_run(None)
    good_off, _, err_off = _failing_run(_config(remapping=OFF))
    assert nodes["y"] == "_FusedImageStandardization"
    _same_bits(good_on, good_off)
    assert err_on.op.name == err_off.op.name == "m"
    assert err_on.message == err_off.message


def test_the_kernel_alone_equals_the_members_kernels():
    from flowloom.ops.image import fused_standardization as fs

    rng = np.random.RandomState(1)
    for t in range(200):
        shape = tuple(int(d) for d in rng.randint(1, 12, size=rng.randint(3, 5)))
        x = _images(rng, shape, 6)[t % 6]
        axes = np.array([-1, -2, -3], np.int32)
        floor = np.float32(1.0 / np.sqrt(np.prod(shape[-3:])))
        floor = (floor, np.array(floor), np.array([np.nan], np.float32), np.float32(0))[t % 4]
        want = fs._run_members(np, x, axes, floor)
        axis = tuple(range(x.ndim - 3, x.ndim))  # all of a 3-D image's: the scalar path
        _same_bits(fs.standardize(x, axis, floor), want)
