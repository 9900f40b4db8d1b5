"""`tf.summary` (TF1): summary ops, FileWriter, and the Summary/Event protos."""

from flowloom.proto.event_pb2 import Event, SessionLog, TaggedRunMetadata
from flowloom.proto.summary_pb2 import Summary, SummaryDescription, SummaryMetadata
from flowloom.summary.summary import (
                                      audio,
                                      get_summary_description,
                                      histogram,
                                      image,
                                      merge,
                                      merge_all,
                                      scalar,
                                      tensor_summary,
                                      text,
)
from flowloom.summary.writer import FileWriter, FileWriterCache

__all__ = ["Event", "FileWriter", "FileWriterCache", "SessionLog", "Summary",
           "SummaryDescription", "SummaryMetadata", "TaggedRunMetadata", "audio",
           "get_summary_description", "histogram", "image", "merge", "merge_all", "scalar",
           "tensor_summary", "text"]
