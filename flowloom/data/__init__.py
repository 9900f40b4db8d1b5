"""tf.data: input pipelines (datasets and iterators) as graph ops."""

from flowloom.data import experimental
from flowloom.data.dataset import (Dataset, DatasetV1, FixedLengthRecordDataset, Options,
                                   TextLineDataset, TFRecordDataset)
from flowloom.data.iterator import (Iterator, get_output_classes, get_output_shapes,
                                    get_output_types, make_initializable_iterator,
                                    make_one_shot_iterator)
