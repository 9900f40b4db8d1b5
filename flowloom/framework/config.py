"""Process-wide runtime options (TF 1.15's `tf.config`): what a Session made without a
ConfigProto runs with.

TF keeps these options in its runtime context and gives a `Session(config=None)` the
ConfigProto they make; flowloom does the same (`session_config`). Options set after a session
was made apply to sessions made later.

    tf.config.optimizer.set_experimental_options({"constant_folding": False})
    sess = tf.Session()   # its config has rewrite_options.constant_folding = OFF
"""

import threading as _threading_lib
import types


_lock = _threading_lib.Lock()
_optimizer_options = {}
_settings = {"intra_op_parallelism_threads": None, "inter_op_parallelism_threads": None,
             "allow_soft_placement": None}

# TF's optimizer options: on/off toggles (RewriterConfig.Toggle fields) and plain values.
_TOGGLES = ("layout_optimizer", "constant_folding", "shape_optimization", "remapping",
            "arithmetic_optimization", "dependency_optimization", "loop_optimization",
            "function_optimization", "debug_stripper", "scoped_allocator_optimization",
            "pin_to_host_optimization", "implementation_selector", "auto_mixed_precision")
_BOOLS = ("disable_model_pruning", "disable_meta_optimizer")


def session_config():
    """The ConfigProto a Session made without one gets: None when no option was set (a
    session then runs as with an empty ConfigProto)."""
    with _lock:
        options = dict(_optimizer_options)
        settings = {k: v for k, v in _settings.items() if v is not None}
    if not options and not settings:
        return None
    from flowloom.proto import config_pb2, rewriter_config_pb2  # protobuf on use

    config = config_pb2.ConfigProto()
    for key, value in settings.items():
        setattr(config, key, value)
    rewrite = config.graph_options.rewrite_options
    for key, value in options.items():
        if key in _TOGGLES:
            setattr(rewrite, key, rewriter_config_pb2.RewriterConfig.ON if value
                    else rewriter_config_pb2.RewriterConfig.OFF)
        elif key in _BOOLS:
            setattr(rewrite, key, bool(value))
        elif key == "min_graph_nodes":
            rewrite.min_graph_nodes = value
    return config


def set_optimizer_experimental_options(options):
    """Sets graph optimizer options (`tf.config.optimizer.set_experimental_options`).

    Args:
      options: a dict of option name to value: the on/off rewrites (`constant_folding`,
        `arithmetic_optimization`, `dependency_optimization`, `remapping`, ...: True or
        False), `disable_model_pruning`, `disable_meta_optimizer` (bools) and
        `min_graph_nodes` (an int). Unknown names are ignored, as by TF.
    """
    with _lock:
        _optimizer_options.update(options)


def get_optimizer_experimental_options():
    """The optimizer options set so far, as TF reports them (only those not at default)."""
    from flowloom.proto import config_pb2, rewriter_config_pb2  # protobuf on use

    config = session_config() or config_pb2.ConfigProto()
    rewrite = config.graph_options.rewrite_options
    out = {}
    for key in _TOGGLES:
        value = getattr(rewrite, key)
        if value != rewriter_config_pb2.RewriterConfig.DEFAULT:
            out[key] = value == rewriter_config_pb2.RewriterConfig.ON
    for key in _BOOLS:
        out[key] = getattr(rewrite, key)
    if rewrite.min_graph_nodes != 0:
        out["min_graph_nodes"] = rewrite.min_graph_nodes
    return out


def _setter(key):
    def set_value(value):
        with _lock:
            _settings[key] = value
    return set_value


def _getter(key, default):
    def get_value():
        value = _settings[key]
        return default if value is None else value
    return get_value


set_intra_op_parallelism_threads = _setter("intra_op_parallelism_threads")
get_intra_op_parallelism_threads = _getter("intra_op_parallelism_threads", 0)
set_inter_op_parallelism_threads = _setter("inter_op_parallelism_threads")
get_inter_op_parallelism_threads = _getter("inter_op_parallelism_threads", 0)
set_soft_device_placement = _setter("allow_soft_placement")
get_soft_device_placement = _getter("allow_soft_placement", False)  # graph mode's default

# tf.config.optimizer and tf.config.threading.
optimizer = types.ModuleType("flowloom.config.optimizer")
optimizer.set_experimental_options = set_optimizer_experimental_options
optimizer.get_experimental_options = get_optimizer_experimental_options
threading = types.ModuleType("flowloom.config.threading")
for _name in ("set_intra_op_parallelism_threads", "get_intra_op_parallelism_threads",
              "set_inter_op_parallelism_threads", "get_inter_op_parallelism_threads"):
    setattr(threading, _name, globals()[_name])
