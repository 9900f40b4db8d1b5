"""Variables' ops and initializers, optimizer apply ops, checkpoint save/restore ops."""
