"""`tf.contrib`: only `tf.contrib.rnn` (TF1 programs name the RNN cells through it)."""

from flowloom.contrib import rnn  # noqa: F401
