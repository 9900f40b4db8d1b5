"""`tf.estimator`: Estimators, their specs and configs, exports, and input functions.

    estimator = tf.estimator.Estimator(model_fn, model_dir="/tmp/m", params={"units": 10})
    estimator.train(input_fn=lambda: dataset, steps=100)
    metrics = estimator.evaluate(input_fn=eval_input_fn)
    for prediction in estimator.predict(input_fn=predict_input_fn):
        ...
    estimator.export_saved_model("/tmp/export", serving_input_receiver_fn)
"""

from flowloom.estimator import experimental, export, inputs, tpu  # noqa: F401
from flowloom.estimator.estimator import Estimator  # noqa: F401
from flowloom.estimator.extenders import add_metrics  # noqa: F401
from flowloom.estimator.mode_keys import ModeKeys  # noqa: F401
from flowloom.estimator.model_fn import EstimatorSpec  # noqa: F401
from flowloom.estimator.run_config import RunConfig  # noqa: F401
from flowloom.estimator.training import (EvalSpec, TrainSpec,  # noqa: F401
                                         train_and_evaluate)
from flowloom.estimator.exporter import (BestExporter, Exporter,  # noqa: F401
                                         FinalExporter, LatestExporter)
from flowloom.estimator.warm_starting import VocabInfo, WarmStartSettings  # noqa: F401
from flowloom.train.basic_session_run_hooks import (  # noqa: F401
    CheckpointSaverHook, CheckpointSaverListener, FeedFnHook, FinalOpsHook,
    GlobalStepWaiterHook, LoggingTensorHook, NanLossDuringTrainingError, NanTensorHook,
    ProfilerHook, SecondOrStepTimer, StepCounterHook, StopAtStepHook, SummarySaverHook)
from flowloom.train.session_run_hook import (SessionRunArgs, SessionRunContext,  # noqa: F401
                                             SessionRunHook, SessionRunValues)

# The canned estimators (flowloom/estimator/canned, written over feature columns) join this
# namespace from their own module when it is there.
try:
    from flowloom.estimator.canned import *  # noqa: F401,F403
except ImportError as _e:  # only a canned package that does not exist is skipped
    if _e.name != "flowloom.estimator.canned":
        raise
