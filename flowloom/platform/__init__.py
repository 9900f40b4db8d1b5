"""TF1's platform helpers: `tf.logging`, `tf.flags`, `tf.app`, `tf.gfile` aliases."""
