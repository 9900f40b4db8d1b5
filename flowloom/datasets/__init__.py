"""Readers of the standard data sets TF1 tutorials load (from local files; nothing is downloaded)."""
