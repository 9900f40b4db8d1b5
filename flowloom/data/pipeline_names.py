"""The names the queue-based pipelines add to the top-level `tf` namespace and to `tf.train`."""

import types

from flowloom.data.queues import (FIFOQueue, PaddingFIFOQueue, PriorityQueue, QueueBase,
                                  RandomShuffleQueue)
from flowloom.data.readers import (FixedLengthRecordReader, IdentityReader, LMDBReader,
                                   ReaderBase, TextLineReader, TFRecordReader, WholeFileReader)
from flowloom.ops.data.file_ops import matching_files

__all__ = ["FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase", "RandomShuffleQueue",
           "FixedLengthRecordReader", "IdentityReader", "LMDBReader", "ReaderBase",
           "TextLineReader", "TFRecordReader", "WholeFileReader", "matching_files"]

# tf.train names (flowloom/train/__init__.py imports them with one line).
TRAIN_NAMES = ["Coordinator", "LooperThread", "QueueRunner", "add_queue_runner",
               "start_queue_runners", "batch", "batch_join", "input_producer", "limit_epochs",
               "match_filenames_once", "maybe_batch", "maybe_batch_join", "maybe_shuffle_batch",
               "maybe_shuffle_batch_join", "range_input_producer", "shuffle_batch",
               "shuffle_batch_join", "slice_input_producer", "string_input_producer",
               # the managed training loop (flowloom/train/)
               "SessionRunHook", "SessionRunArgs", "SessionRunContext", "SessionRunValues",
               "StopAtStepHook", "CheckpointSaverHook", "CheckpointSaverListener",
               "SummarySaverHook", "LoggingTensorHook", "NanTensorHook",
               "NanLossDuringTrainingError", "StepCounterHook", "FinalOpsHook", "FeedFnHook",
               "ProfilerHook", "GlobalStepWaiterHook", "SecondOrStepTimer", "MonitoredSession",
               "SingularMonitoredSession", "MonitoredTrainingSession", "Scaffold",
               "SessionManager", "ChiefSessionCreator", "WorkerSessionCreator",
               "SessionCreator", "Supervisor"]


def train_names():
    """{name: object} of the pipeline names of `tf.train`."""
    import importlib

    modules = [importlib.import_module(m) for m in (
        "flowloom.train.coordinator", "flowloom.train.queue_runner", "flowloom.data.input",
        "flowloom.train.session_run_hook", "flowloom.train.basic_session_run_hooks",
        "flowloom.train.monitored_session", "flowloom.train.scaffold",
        "flowloom.train.session_manager", "flowloom.train.supervisor")]
    out = {}
    for name in TRAIN_NAMES:
        for mod in modules:
            if hasattr(mod, name):
                out[name] = getattr(mod, name)
                break
    return out


def queue_namespace():
    """`tf.queue`: the queue classes."""
    ns = types.ModuleType("flowloom.queue")
    for name in ("FIFOQueue", "PaddingFIFOQueue", "PriorityQueue", "QueueBase",
                 "RandomShuffleQueue"):
        setattr(ns, name, globals()[name])
    return ns
