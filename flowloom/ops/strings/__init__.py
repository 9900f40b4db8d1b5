"""String ops (tf.strings)."""
