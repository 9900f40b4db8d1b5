"""Byte-level file formats: CRC32C, TFRecord, SSTable, tensor bundles, event files."""
