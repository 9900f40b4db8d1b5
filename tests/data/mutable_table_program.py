"""A TF1 program with mutable hash tables and a Saver, run by TF 1.15
(tests/data/record_mutable_table_ckpt.py) and by flowloom (tests/ops/test_mutable_tables.py)."""


def build(tf):
    """The graph: two MutableHashTables (scalar and vector values), a variable, a Saver."""
    words = tf.contrib.lookup.MutableHashTable(tf.string, tf.float32, default_value=-1.0,
                                               name="words")
    vecs = tf.contrib.lookup.MutableHashTable(tf.int64, tf.float32, default_value=[0.0, 0.5],
                                              name="vecs")
    v = tf.Variable([1.0, 2.0], name="v")
    ops = {
        "insert_words": words.insert(tf.constant(["a", "b", "c"]),
                                     tf.constant([1.0, 2.0, 3.0])),
        "remove_b": words.remove(tf.constant(["b"])),
        "insert_vecs": vecs.insert(tf.constant([5, 7], tf.int64),
                                   tf.constant([[1.0, 2.0], [3.0, 4.0]])),
        "bad_insert": vecs.insert(tf.constant([9], tf.int64), tf.constant([[1.0, 2.0, 3.0]])),
        "init": tf.global_variables_initializer(),
    }
    queries = {
        "words": words.lookup(tf.constant(["a", "b", "zz", "c"])),
        "vecs": vecs.lookup(tf.constant([[7], [8]], tf.int64)),
        "words_size": words.size(),
        "vecs_size": vecs.size(),
        "v": v.value(),
    }
    saver = tf.train.Saver()
    return ops, queries, saver


def static_shapes(queries):
    """The static shapes of the query tensors (None for an unknown dimension or rank)."""
    out = {}
    for name, tensor in queries.items():
        shape = tensor.get_shape()
        out[name] = None if shape.ndims is None else [d.value if hasattr(d, "value") else d
                                                      for d in shape]
    return out
