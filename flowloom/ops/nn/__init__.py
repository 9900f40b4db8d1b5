"""Neural-network ops: convolutions, pooling, activations, losses, normalization, embeddings."""
