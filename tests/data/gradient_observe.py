"""Runs one recorded tf.gradients program on a `tf` module (TensorFlow or flowloom).

Shared by record_gradients.py (on TensorFlow) and tests/test_gradients.py (on flowloom), so
both observe the programs the same way.
"""


def run_gradient_program(tf, np, source):
    """Executes `source` (which defines `grads`, and optionally `feed` and `extra`).

    Returns:
      (names, ops, values): the gradient tensors' names (a list for IndexedSlices, None for
      no gradient), the [name, type] of every op under `gradients`, and the fetched values.
    """
    g = tf.Graph()
    with g.as_default():
        scope = {"tf": tf, "np": np}
        exec(source, scope)  # noqa: S102 - the project's own recorded programs
        grads = scope["grads"]
        feed = {g.get_tensor_by_name(k + ":0"): v for k, v in scope.get("feed", {}).items()}
        names, fetch = [], []
        for t in grads:
            if t is None:
                names.append(None)
            elif isinstance(t, tf.IndexedSlices):
                names.append(["IndexedSlices", t.values.name, t.indices.name,
                              t.dense_shape.name])
                fetch.append(t)
            else:
                names.append(t.name)
                fetch.append(t)
        ops = [[op.name, op.type] for op in g.get_operations() if op.name.startswith("gradients")]
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            values = sess.run(fetch + scope.get("extra", []), feed)
        return names, ops, values
