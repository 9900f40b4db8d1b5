"""Parsing ops: tf.train.Example parsing, DecodeRaw, DecodeCSV."""
