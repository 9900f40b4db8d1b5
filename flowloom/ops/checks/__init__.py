"""Assertions and debugging ops: tf.assert_*, Assert, Print, check_numerics."""
