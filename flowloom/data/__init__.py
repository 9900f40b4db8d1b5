"""`tf.data`, and the queue-based input pipelines of TF1 (queues.py, readers.py, input.py).

The queue classes and readers are exported as `tf.FIFOQueue`, `tf.TFRecordReader`, ...
and the producers and batching as `tf.train.*`; this package's own namespace is tf.data:
datasets and iterators as graph ops (dataset.py, iterator.py, functions.py).
"""

from flowloom.data import experimental
from flowloom.data.dataset import (Dataset, DatasetV1, FixedLengthRecordDataset, Options,
                                   TextLineDataset, TFRecordDataset)
from flowloom.data.iterator import (Iterator, get_output_classes, get_output_shapes,
                                    get_output_types, make_initializable_iterator,
                                    make_one_shot_iterator)
