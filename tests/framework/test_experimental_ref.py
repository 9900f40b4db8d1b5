"""Tensor/Variable.experimental_ref(): identity-keyed references (TF 1.15's ops_test)."""

import flowloom as tf


def test_refs_compare_and_hash_by_identity():
    with tf.Graph().as_default():
        x1 = tf.constant(3)
        y = tf.constant(3)
        w = tf.Variable(5)
        assert x1.experimental_ref() == x1.experimental_ref()
        assert x1.experimental_ref() != y.experimental_ref()
        assert w.experimental_ref() == w.experimental_ref()
        assert x1.experimental_ref().deref() is x1 and w.experimental_ref().deref() is w
        refs = {x1.experimental_ref(), x1.experimental_ref(), y.experimental_ref(),
                w.experimental_ref()}
        assert len(refs) == 3 and y.experimental_ref() in refs
