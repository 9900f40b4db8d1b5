"""`tf.train.summary_iterator` and the pre-1.0 `tf.train.SummaryWriter` name."""

from flowloom.io.events import summary_iterator
from flowloom.summary.writer import FileWriter

# TF 0.x called FileWriter `tf.train.SummaryWriter`; the seed programs still use it.
SummaryWriter = FileWriter

__all__ = ["SummaryWriter", "summary_iterator"]
