"""`tf.nn.rnn_cell`: the TF1 RNN cells."""

from flowloom.ops.rnn.rnn_cell_impl import (  # noqa: F401
                                        BasicLSTMCell,
                                        BasicRNNCell,
                                        DeviceWrapper,
                                        DropoutWrapper,
                                        GRUCell,
                                        LayerRNNCell,
                                        LSTMCell,
                                        LSTMStateTuple,
                                        MultiRNNCell,
                                        ResidualWrapper,
                                        RNNCell,
)
