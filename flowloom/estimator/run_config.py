"""`tf.estimator.RunConfig`: where and how often an Estimator saves, logs and summarizes."""

import copy
import json
import os

_USE_DEFAULT = object()
_DEFAULT_REPLACEABLE_LIST = [
    "model_dir", "tf_random_seed", "save_summary_steps", "save_checkpoints_steps",
    "save_checkpoints_secs", "session_config", "keep_checkpoint_max",
    "keep_checkpoint_every_n_hours", "log_step_count_steps", "train_distribute", "device_fn",
    "protocol", "eval_distribute", "experimental_distribute",
    "experimental_max_worker_delay_secs", "session_creation_timeout_secs"]
_SAVE_CKPT_ERR = "`save_checkpoints_steps` and `save_checkpoints_secs` cannot be both set."


class TaskType:
    MASTER = "master"
    PS = "ps"
    WORKER = "worker"
    CHIEF = "chief"
    EVALUATOR = "evaluator"


def get_default_session_config():
    """The ConfigProto an Estimator uses when RunConfig gives none (TF's: soft placement,
    one meta-optimizer iteration)."""
    from flowloom.proto.config_pb2 import ConfigProto, GraphOptions
    from flowloom.proto.rewriter_config_pb2 import RewriterConfig

    rewrite = RewriterConfig(meta_optimizer_iterations=RewriterConfig.ONE)
    return ConfigProto(allow_soft_placement=True,
                       graph_options=GraphOptions(rewrite_options=rewrite))


class RunConfig:
    """Configuration of an Estimator run.

    Example:
      config = tf.estimator.RunConfig(model_dir="/tmp/m", save_checkpoints_steps=100,
                                      keep_checkpoint_max=3, tf_random_seed=1)
      estimator = tf.estimator.Estimator(model_fn, config=config)

    Args:
      model_dir: directory of checkpoints, summaries and the graph.
      tf_random_seed: the graph-level random seed of every graph the Estimator builds.
      save_summary_steps: summaries every this many steps.
      save_checkpoints_steps, save_checkpoints_secs: checkpoint frequency (at most one; the
        default is every 600 seconds).
      session_config: a `tf.ConfigProto` for the sessions.
      keep_checkpoint_max, keep_checkpoint_every_n_hours: the Saver's retention.
      log_step_count_steps: loss and global_step/sec logged every this many steps.
      train_distribute, eval_distribute, experimental_distribute, device_fn, protocol,
        experimental_max_worker_delay_secs, session_creation_timeout_secs: as in TF.

    Raises:
      ValueError: both checkpoint frequencies are set, or `model_dir` is empty.
      NotImplementedError: TF_CONFIG names a cluster (distributed Estimators).
    """

    def __init__(self, model_dir=None, tf_random_seed=None, save_summary_steps=100,
                 save_checkpoints_steps=_USE_DEFAULT, save_checkpoints_secs=_USE_DEFAULT,
                 session_config=None, keep_checkpoint_max=5,
                 keep_checkpoint_every_n_hours=10000, log_step_count_steps=100,
                 train_distribute=None, device_fn=None, protocol=None, eval_distribute=None,
                 experimental_distribute=None, experimental_max_worker_delay_secs=None,
                 session_creation_timeout_secs=7200):
        if save_checkpoints_steps is _USE_DEFAULT and save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_steps, save_checkpoints_secs = None, 600
        elif save_checkpoints_secs is _USE_DEFAULT:
            save_checkpoints_secs = None
        elif save_checkpoints_steps is _USE_DEFAULT:
            save_checkpoints_steps = None
        elif save_checkpoints_steps is not None and save_checkpoints_secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
        tf_config = json.loads(os.environ.get("TF_CONFIG", "{}"))
        model_dir = _get_model_dir(tf_config, _path_to_str(model_dir))
        RunConfig._replace(
            self, allowed_properties_list=_DEFAULT_REPLACEABLE_LIST, model_dir=model_dir,
            tf_random_seed=tf_random_seed, save_summary_steps=save_summary_steps,
            save_checkpoints_steps=save_checkpoints_steps,
            save_checkpoints_secs=save_checkpoints_secs, session_config=session_config,
            keep_checkpoint_max=keep_checkpoint_max,
            keep_checkpoint_every_n_hours=keep_checkpoint_every_n_hours,
            log_step_count_steps=log_step_count_steps, train_distribute=train_distribute,
            device_fn=device_fn, protocol=protocol, eval_distribute=eval_distribute,
            experimental_distribute=experimental_distribute,
            experimental_max_worker_delay_secs=experimental_max_worker_delay_secs,
            session_creation_timeout_secs=session_creation_timeout_secs)
        if train_distribute or eval_distribute or experimental_distribute:
            raise NotImplementedError("RunConfig with a distribution strategy "
                                      "(train_distribute/eval_distribute)")
        self._init_local_setting(tf_config)

    def _init_local_setting(self, tf_config):
        if tf_config.get("cluster"):
            raise NotImplementedError("RunConfig from a TF_CONFIG cluster (distributed "
                                      "Estimator training)")
        task_env = tf_config.get("task", {})
        self._service = tf_config.get("service")
        self._cluster_spec = _empty_cluster_spec()
        self._task_type = task_env.get("type", TaskType.WORKER)
        self._task_id = int(task_env.get("index", 0))
        self._global_id_in_cluster = 0
        if self._task_type != TaskType.WORKER:
            raise ValueError('If "cluster" is not set in TF_CONFIG, task type must be WORKER.')
        if self._task_id != 0:
            raise ValueError('If "cluster" is not set in TF_CONFIG, task index must be 0.')
        self._master = tf_config.get("session_master", "")
        self._evaluation_master = tf_config.get("eval_session_master", "")
        self._is_chief = True
        self._num_ps_replicas = 0
        self._num_worker_replicas = 1

    def replace(self, **kwargs):
        """A copy of this config with the named properties replaced.

        Raises:
          ValueError: a property that cannot be replaced, or both checkpoint frequencies.
        """
        return RunConfig._replace(copy.deepcopy(self),
                                  allowed_properties_list=_DEFAULT_REPLACEABLE_LIST, **kwargs)

    @staticmethod
    def _replace(config, allowed_properties_list=None, **kwargs):
        allowed_properties_list = allowed_properties_list or []
        for key, new_value in kwargs.items():
            if key not in allowed_properties_list:
                raise ValueError(f"Replacing {key} is not supported. Allowed properties are "
                                 f"{allowed_properties_list}.")
            setattr(config, "_" + key, new_value)
        _validate_save_ckpt_with_replaced_keys(config, kwargs.keys())
        _validate_properties(config)
        return config


def _make_property(name):
    return property(lambda self: getattr(self, "_" + name), doc=f"The `{name}` setting.")


for _name in _DEFAULT_REPLACEABLE_LIST + [
        "cluster_spec", "evaluation_master", "is_chief", "master", "num_ps_replicas",
        "num_worker_replicas", "task_id", "task_type", "global_id_in_cluster", "service"]:
    setattr(RunConfig, _name, _make_property(_name))
del _name


def _empty_cluster_spec():
    """`tf.train.ClusterSpec({})` where flowloom has ClusterSpec, else None (both falsy)."""
    import flowloom.train as train

    cluster_spec = getattr(train, "ClusterSpec", None)
    return cluster_spec({}) if cluster_spec is not None else None


def _path_to_str(path):
    if path is None:
        return None
    path = os.fspath(path)
    return path.decode() if isinstance(path, bytes) else path


def _get_model_dir(tf_config, model_dir):
    if model_dir == "":
        raise ValueError("model_dir should be non-empty.")
    in_config = tf_config.get("model_dir")
    if in_config == "":
        raise ValueError("model_dir in TF_CONFIG should be non-empty.")
    if in_config and model_dir and in_config != model_dir:
        raise ValueError(
            "`model_dir` provided in RunConfig construct, if set, must have the same value as "
            f"the model_dir in TF_CONFIG. model_dir: {model_dir}\nTF_CONFIG[\"model_dir\"]: "
            f"{in_config}.\n")
    return model_dir or in_config


def _validate_save_ckpt_with_replaced_keys(config, replaced_keys):
    steps, secs = config._save_checkpoints_steps, config._save_checkpoints_secs
    if "save_checkpoints_steps" in replaced_keys and "save_checkpoints_secs" in replaced_keys:
        if steps is not None and secs is not None:
            raise ValueError(_SAVE_CKPT_ERR)
    elif "save_checkpoints_steps" in replaced_keys and steps is not None:
        config._save_checkpoints_secs = None
    elif "save_checkpoints_secs" in replaced_keys and secs is not None:
        config._save_checkpoints_steps = None


def _validate(config, key, check, message):
    value = getattr(config, "_" + key, None)
    if value is not None and not check(value):
        raise ValueError(message)


def _validate_properties(config):
    from flowloom.proto.config_pb2 import ConfigProto

    _validate(config, "model_dir", lambda d: d, "model_dir should be non-empty")
    _validate(config, "save_summary_steps", lambda s: s >= 0,
              "save_summary_steps should be >= 0")
    _validate(config, "save_checkpoints_steps", lambda s: s >= 0,
              "save_checkpoints_steps should be >= 0")
    _validate(config, "save_checkpoints_secs", lambda s: s >= 0,
              "save_checkpoints_secs should be >= 0")
    _validate(config, "session_config", lambda sc: isinstance(sc, ConfigProto),
              "session_config must be instance of ConfigProto")
    _validate(config, "keep_checkpoint_max", lambda k: k >= 0,
              "keep_checkpoint_max should be >= 0")
    _validate(config, "keep_checkpoint_every_n_hours", lambda k: k > 0,
              "keep_checkpoint_every_n_hours should be > 0")
    _validate(config, "log_step_count_steps", lambda n: n > 0,
              "log_step_count_steps should be > 0")
    _validate(config, "tf_random_seed", lambda seed: isinstance(seed, int),
              "tf_random_seed must be integer.")
    _validate(config, "session_creation_timeout_secs", lambda t: t > 0,
              "session_creation_timeout_secs should be > 0")
    _validate(config, "device_fn", callable, "device_fn must be callable with exactly one "
              "argument \"op\".")
    _validate(config, "protocol", lambda p: p in ("grpc", "grpc+verbs"),
              "protocol should be grpc or grpc+verbs")
