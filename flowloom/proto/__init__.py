"""Protobuf schemas, wire-compatible with TensorFlow's (package `tensorflow`)."""
