"""`tf.train`: checkpoints (Saver, state file, readers) and the other training utilities."""

from flowloom.train.checkpoint_management import (checkpoint_exists, generate_checkpoint_state_proto,  # noqa: E501
                                                  get_checkpoint_mtimes, get_checkpoint_state,
                                                  latest_checkpoint, remove_checkpoint,
                                                  update_checkpoint_state, CheckpointState)
from flowloom.train.checkpoint_utils import (CheckpointReader, NewCheckpointReader,
                                             init_from_checkpoint, list_variables,
                                             load_checkpoint, load_variable)
from flowloom.train.saver import Saver, SaverDef
from flowloom.framework.meta_graph import export_meta_graph, import_meta_graph
from flowloom.framework.graph_io import write_graph
from flowloom.train.summary_io import SummaryWriter, summary_iterator  # noqa: F401
from flowloom.proto.example_pb2 import Example, SequenceExample  # noqa: F401
from flowloom.proto.feature_pb2 import (BytesList, Feature, FeatureList,  # noqa: F401
                                        FeatureLists, Features, FloatList, Int64List)
