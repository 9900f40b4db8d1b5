"""`tf.contrib.rnn`: the TF1 RNN cells and drivers under their contrib names."""

from flowloom.ops.rnn.rnn import static_bidirectional_rnn, static_rnn  # noqa: F401
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
