"""`tf.nn.rnn_cell`: the TF1 RNN cells."""

from flowloom.ops.rnn_cell_impl import (BasicLSTMCell, BasicRNNCell, DeviceWrapper,  # noqa: F401
                                        DropoutWrapper, GRUCell, LayerRNNCell, LSTMCell,
                                        LSTMStateTuple, MultiRNNCell, ResidualWrapper,
                                        RNNCell)
