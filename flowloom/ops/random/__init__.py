"""Random ops with TF's graph-seed/op-seed rules."""
