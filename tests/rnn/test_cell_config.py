"""RNN cells' get_config/from_config round trip and tracked sub-cells
(`_checkpoint_dependencies`), as TF 1.15's rnn_cell_test checks them
(test*WrapperSerialization, testDropout, testDeviceWrapper, testBasicLSTMCell)."""

import pytest

import flowloom as tf
from flowloom.ops.rnn import rnn_cell_impl as cells
from flowloom.ops.rnn import rnn_cell_wrappers as wrappers


@pytest.mark.parametrize("cls,args", [(wrappers.DeviceWrapper, ("/cpu:0",)),
                                      (wrappers.DropoutWrapper, ()),
                                      (wrappers.ResidualWrapper, ())])
def test_wrapper_config_round_trip(cls, args):
    wrapper = cls(cells.LSTMCell(10, activation=tf.nn.relu), *args)
    config = wrapper.get_config()
    assert config["cell"]["class_name"] == "LSTMCell"
    assert config["cell"]["config"]["activation"] == "relu"
    (name, dep), = wrapper._checkpoint_dependencies
    assert name == "cell" and dep is wrapper.cell
    copy = dict(config)
    copy["cell"] = cells.LSTMCell.from_config(copy["cell"]["config"])
    again = cls.from_config(copy)
    assert isinstance(again, cls) and again.get_config() == config
    assert cls.from_config(config).get_config() == config  # a nested cell dict, too


def test_multi_rnn_cell_tracks_its_cells_and_functions_are_not_serialized():
    m = cells.MultiRNNCell([cells.GRUCell(2) for _ in range(2)])
    assert [d.name for d in m._checkpoint_dependencies] == ["cell-0", "cell-1"]
    assert [c["class_name"] for c in m.get_config()["cells"]] == ["GRUCell", "GRUCell"]
    with pytest.raises(NotImplementedError, match="Python functions"):
        wrappers.ResidualWrapper(cells.GRUCell(2), residual_fn=lambda i, o: i + o).get_config()


def test_weights_follow_the_variables_trainability_and_default_dtype():
    def not_trainable(getter, *args, **kwargs):
        kwargs["trainable"] = False
        return getter(*args, **kwargs)
    with tf.variable_scope("root", custom_getter=not_trainable):
        cell = cells.BasicRNNCell(2)
        cell(tf.zeros([1, 2]), tf.zeros([1, 2]))
    assert not cell.trainable_variables
    assert [v.name for v in cell.non_trainable_variables] == [
        "root/basic_rnn_cell/kernel:0", "root/basic_rnn_cell/bias:0"]
    lstm = cells.LSTMCell(10)
    lstm.build(tf.ones([10, 50]).get_shape())  # built directly: float32 weights
    assert lstm._bias.dtype.base_dtype == tf.float32


def test_cells_built_directly_open_their_own_scopes():
    names = []
    for cls in (cells.BasicRNNCell, cells.BasicRNNCell, cells.GRUCell):
        cell = cls(3, dtype=tf.float64)
        cell.build(tf.TensorShape((5, 7)))
        state = cell.get_initial_state(inputs=None, batch_size=5, dtype=tf.float64)
        out, _ = cell(tf.zeros((5, 7), tf.float64), state)
        assert out.shape.as_list() == [5, 3]
        names.append(cell.trainable_variables[0].name)
    assert names[:2] == ["basic_rnn_cell/kernel:0", "basic_rnn_cell_1/kernel:0"]
    assert names[2].startswith("gru_cell/")
