"""Byte-level file formats, independent of the graph.

  crc32c       CRC32C and TF's masked CRC
  tfrecord     TFRecord framing (TFRecordWriter, tf_record_iterator, TFRecordOptions)
  table        LevelDB-format tables (checkpoint .index files)
  bundle       V2 checkpoints at array level (write_bundle, read_bundle, BundleReader)
  events       TensorBoard event files (EventFileWriter, summary_iterator)
  atomic_file  crash-safe writes (temp file, fsync, rename)
"""
