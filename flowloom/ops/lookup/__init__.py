"""Lookup tables: the HashTable ops and the tf.lookup / tf.contrib.lookup Python API."""
