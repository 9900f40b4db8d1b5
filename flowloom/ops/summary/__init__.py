"""Summary ops (TensorBoard)."""
