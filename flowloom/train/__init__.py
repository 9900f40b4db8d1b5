"""`tf.train`: optimizers, schedules, the global step, moving averages, checkpoints."""

from flowloom.train.adam import AdamOptimizer  # noqa: F401
from flowloom.train.adaptive import (AdadeltaOptimizer, AdagradOptimizer,  # noqa: F401
                                     RMSPropOptimizer)
from flowloom.train.ftrl import FtrlOptimizer  # noqa: F401
from flowloom.train.gradient_descent import (GradientDescentOptimizer,  # noqa: F401
                                             MomentumOptimizer)
from flowloom.train.learning_rate_decay import (cosine_decay,  # noqa: F401
                                                cosine_decay_restarts, exponential_decay,
                                                inverse_time_decay, linear_cosine_decay,
                                                natural_exp_decay, piecewise_constant,
                                                polynomial_decay)
from flowloom.train.moving_averages import (ExponentialMovingAverage,  # noqa: F401
                                            assign_moving_average)
from flowloom.train.optimizer import Optimizer  # noqa: F401
from flowloom.train.training_util import (assert_global_step, create_global_step,  # noqa: F401
                                          get_global_step, get_or_create_global_step,
                                          global_step)

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

# Queue runners, the Coordinator, input producers and batching (flowloom/data/input.py).
from flowloom.data.pipeline_names import train_names as _pipeline_train_names
globals().update(_pipeline_train_names())
queue_runner = __import__("flowloom.train.queue_runner", fromlist=["_"])

# Distributed training: ClusterSpec, ClusterDef (flowloom/distributed/names.py).
from flowloom.distributed.names import train_names as _distributed_train_names
globals().update(_distributed_train_names())
from flowloom.train.device_setter import replica_device_setter  # noqa: E402,F401
from flowloom.train.progress import ProgressBarHook  # noqa: E402,F401
from flowloom.train.sync_replicas_optimizer import SyncReplicasOptimizer  # noqa: E402,F401
