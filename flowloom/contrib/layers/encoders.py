"""tf.contrib.layers.embed_sequence: an embedding matrix and its lookup."""

from flowloom.contrib.framework import variables as contrib_variables
from flowloom.ops.nn import embedding_ops
from flowloom.variable_scope import variable_scope


def embed_sequence(ids, vocab_size=None, embed_dim=None, unique=False, initializer=None,
                   regularizer=None, trainable=True, scope=None, reuse=None):
    """Maps a [batch, time] tensor of ids to [batch, time, embed_dim] embeddings through the
    model variable `<scope>/embeddings` [vocab_size, embed_dim] (scope `EmbedSequence`).

    Raises:
      ValueError: vocab_size or embed_dim missing when not reusing.
    """
    if not (reuse or (vocab_size and embed_dim)):
        raise ValueError("Must specify vocab size and embedding dimension when not reusing. Got "
                         "vocab_size=%s and embed_dim=%s" % (vocab_size, embed_dim))
    with variable_scope(scope, "EmbedSequence", [ids], reuse=reuse):
        shape = [vocab_size, embed_dim]
        if reuse and vocab_size is None or embed_dim is None:
            shape = None
        embeddings = contrib_variables.model_variable(
            "embeddings", shape=shape, initializer=initializer, regularizer=regularizer,
            trainable=trainable)
        if unique:
            raise NotImplementedError("tf.contrib.layers.embed_sequence(unique=True) "
                                      "(embedding_lookup_unique)")
        return embedding_ops.embedding_lookup(embeddings, ids)
