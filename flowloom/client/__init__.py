"""`tf.python.client` equivalents: the step-stats timeline."""
