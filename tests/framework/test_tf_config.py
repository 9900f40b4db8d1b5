"""tf.config's process-wide options reach sessions made without a ConfigProto (as TF 1.15.5:
its Session(config=None) takes the runtime context's ConfigProto)."""

import pytest

import flowloom as tf
from flowloom.framework import config as config_lib
from flowloom.proto import config_pb2, rewriter_config_pb2


@pytest.fixture(autouse=True)
def fresh_options():
    saved = (dict(config_lib._optimizer_options), dict(config_lib._settings))
    config_lib._optimizer_options.clear()
    yield
    config_lib._optimizer_options.clear()
    config_lib._optimizer_options.update(saved[0])
    config_lib._settings.update(saved[1])


def test_no_options_no_config():
    with tf.Graph().as_default():
        assert tf.Session()._config is None


def test_optimizer_options_reach_new_sessions():
    tf.config.optimizer.set_experimental_options({"min_graph_nodes": -1,
                                                  "constant_folding": False})
    # TF 1.15.5 reports the set toggles and both bools:
    assert tf.config.optimizer.get_experimental_options() == {
        "constant_folding": False, "disable_model_pruning": False,
        "disable_meta_optimizer": False, "min_graph_nodes": -1}
    with tf.Graph().as_default():
        sess = tf.Session()
        rewrite = sess._config.graph_options.rewrite_options
        assert rewrite.min_graph_nodes == -1
        assert rewrite.constant_folding == rewriter_config_pb2.RewriterConfig.OFF
        assert sess.run(tf.constant(2.0) * 3.0) == 6.0
        given = config_pb2.ConfigProto(allow_soft_placement=True)
        assert tf.Session(config=given)._config is given  # a given config is kept as is


def test_threading_and_soft_placement():
    assert tf.config.threading.get_intra_op_parallelism_threads() == 0
    assert tf.config.get_soft_device_placement() is False
    tf.config.threading.set_inter_op_parallelism_threads(2)
    tf.config.set_soft_device_placement(True)
    with tf.Graph().as_default():
        config = tf.Session()._config
    assert config.inter_op_parallelism_threads == 2 and config.allow_soft_placement
    assert tf.config.threading.get_inter_op_parallelism_threads() == 2
