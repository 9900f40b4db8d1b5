"""`tf.train`: optimizers, schedules, the global step, moving averages, checkpoints.

Names are imported when first used (flowloom/lazy_names.py): add new ones to the table.
"""

from flowloom import lazy_names as _lazy_names

_TABLE = _lazy_names.parse({
    "flowloom.train.adam": "AdamOptimizer",
    "flowloom.train.adaptive": "AdadeltaOptimizer AdagradOptimizer RMSPropOptimizer",
    "flowloom.train.ftrl": "FtrlOptimizer",
    "flowloom.train.gradient_descent": "GradientDescentOptimizer MomentumOptimizer",
    "flowloom.train.proximal_gradient_descent": "ProximalGradientDescentOptimizer",
    "flowloom.train.learning_rate_decay": (
        "cosine_decay cosine_decay_restarts exponential_decay inverse_time_decay "
        "linear_cosine_decay natural_exp_decay noisy_linear_cosine_decay piecewise_constant "
        "polynomial_decay"),
    "flowloom.train.moving_averages": "ExponentialMovingAverage assign_moving_average",
    "flowloom.train.optimizer": "Optimizer",
    "flowloom.train.training_util": (
        "assert_global_step create_global_step get_global_step get_or_create_global_step "
        "global_step"),
    "flowloom.train.checkpoint_management": (
        "checkpoint_exists generate_checkpoint_state_proto get_checkpoint_mtimes "
        "get_checkpoint_state latest_checkpoint remove_checkpoint update_checkpoint_state "
        "CheckpointState"),
    "flowloom.train.checkpoint_utils": (
        "CheckpointReader NewCheckpointReader init_from_checkpoint list_variables "
        "load_checkpoint load_variable"),
    "flowloom.train.checkpoint_wait": "checkpoints_iterator",
    "flowloom.train.saver": "Saver SaverDef",
    "flowloom.framework.meta_graph": "export_meta_graph import_meta_graph",
    "flowloom.framework.graph_io": "write_graph",
    "flowloom.train.summary_io": "SummaryWriter summary_iterator",
    "flowloom.proto.example_pb2": "Example SequenceExample",
    "flowloom.proto.feature_pb2": (
        "BytesList Feature FeatureList FeatureLists Features FloatList Int64List"),
    "flowloom.train.device_setter": "replica_device_setter",
    "flowloom.train.progress": "ProgressBarHook",
    "flowloom.train.sync_replicas_optimizer": "SyncReplicasOptimizer",
    # Queue runners, the Coordinator, input producers, batching and the managed training loop
    # (flowloom/data/pipeline_names.py TRAIN_NAMES).
    "flowloom.train.coordinator": "Coordinator LooperThread",
    "flowloom.train.queue_runner": "QueueRunner add_queue_runner start_queue_runners",
    "flowloom.data.input": (
        "batch batch_join input_producer limit_epochs match_filenames_once maybe_batch "
        "maybe_batch_join maybe_shuffle_batch maybe_shuffle_batch_join range_input_producer "
        "shuffle_batch shuffle_batch_join slice_input_producer string_input_producer"),
    "flowloom.train.session_run_hook": (
        "SessionRunHook SessionRunArgs SessionRunContext SessionRunValues"),
    "flowloom.train.basic_session_run_hooks": (
        "StopAtStepHook CheckpointSaverHook CheckpointSaverListener SummarySaverHook "
        "LoggingTensorHook NanTensorHook NanLossDuringTrainingError StepCounterHook FinalOpsHook "
        "FeedFnHook ProfilerHook GlobalStepWaiterHook SecondOrStepTimer"),
    "flowloom.train.monitored_session": (
        "MonitoredSession SingularMonitoredSession MonitoredTrainingSession ChiefSessionCreator "
        "WorkerSessionCreator SessionCreator"),
    "flowloom.train.scaffold": "Scaffold",
    "flowloom.train.session_manager": "SessionManager",
    "flowloom.train.supervisor": "Supervisor",
    # Distributed training (flowloom/distributed/names.py TRAIN_NAMES).
    "flowloom.distributed.cluster_spec": "ClusterSpec",
    "flowloom.proto.cluster_pb2": "ClusterDef JobDef",
    "flowloom.distributed.server": "Server ServerDef",
})

# The package's modules (attributes of the package, as after an eager import of them all).
_SUBMODULES = (
    "adam adaptive basic_session_run_hooks checkpoint_management checkpoint_utils coordinator "
    "device_setter ftrl gradient_descent learning_rate_decay monitored_session moving_averages "
    "optimizer progress queue_runner queue_runner_def saveables saver scaffold session_manager "
    "session_run_hook summary_io supervisor sync_replicas_optimizer training_util").split()

__getattr__, __dir__, _load_everything = _lazy_names.attach(
    __name__, _TABLE, submodules=_SUBMODULES)
