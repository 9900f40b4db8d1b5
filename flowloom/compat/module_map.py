"""Which flowloom module serves each TensorFlow module name (used by importer.py).

Resolution of a TF module name, first rule that applies:
1. MODULES: the flowloom module itself (`tensorflow.python.util.nest` is flowloom's nest).
2. VIEWS: a module assembled from flowloom sources searched in order, public namespaces first,
   then flowloom's own op modules (TF's internal modules mix both kinds of names).
3. UNAVAILABLE: TF modules flowloom deliberately lacks (TF2's API), with the reason.
4. `tensorflow.compat.v1[.x]` is `tensorflow[.x]`; `tensorflow.core.*.NAME_pb2` is
   flowloom.proto.NAME_pb2; `tensorflow.contrib.x` is flowloom.contrib.x.
5. `tensorflow.x.y` is the module flowloom reaches as `flowloom.x.y` (attribute or import).
6. A package that only holds mapped modules (`tensorflow.python.ops`) is an empty container.
Anything else has no counterpart: the import fails naming it.
"""

import importlib
import sys

_OPS = "flowloom.ops."
_ARRAY = ("flowloom", _OPS + "array.array_ops", _OPS + "array.manip_ops",
          _OPS + "array.slicing_ops", _OPS + "array.gather_ops", _OPS + "array.sequence_ops",
          _OPS + "array.broadcast_ops", _OPS + "array.search_ops", _OPS + "state.scatter_nd_ops",
          _OPS + "array.gradient_ops", _OPS + "array.parallel_concat_ops",
          _OPS + "math.segment_ops")
_MATH = ("flowloom", "flowloom.math", _OPS + "math.math_ops", _OPS + "math.matmul_ops",
         _OPS + "math.reduction_ops", _OPS + "math.unary_ops", _OPS + "math.scan_ops",
         _OPS + "math.segment_ops", _OPS + "math.special_math_ops", _OPS + "math.gamma_ops",
         _OPS + "math.indexed_slices_ops")
_NN = ("flowloom.nn", _OPS + "nn.nn_ops", _OPS + "nn.nn_impl", _OPS + "nn.activation_ops",
       _OPS + "nn.batch_norm_ops", _OPS + "nn.nn_loss_ops", _OPS + "nn.embedding_ops",
       _OPS + "nn.conv_grad_ops", _OPS + "nn.nn_v2", _OPS + "nn.sampled_losses",
       _OPS + "nn.depthwise_grad_ops", _OPS + "nn.batch_norm_grads")
_CONTROL = ("flowloom", _OPS + "control_flow.control_flow_ops", _OPS + "control_flow.cond",
            _OPS + "control_flow.while_loop", _OPS + "control_flow.switch_case",
            _OPS + "control_flow.control_flow_primitives", _OPS + "control_flow.control_flow_context")
_CELLS = ("flowloom.nn.rnn_cell", _OPS + "rnn.rnn_cell_impl", _OPS + "rnn.rnn_cell_wrappers")
_TRAIN = ("flowloom.train",)
_IMAGE = (_OPS + "image.resize_methods", "flowloom.image", _OPS + "image.image_ops",
          _OPS + "image.color_space_ops", _OPS + "image.quality_ops",
          _OPS + "image.resize_v2_ops", _OPS + "image.box_ops")
_MNIST = "flowloom.datasets.mnist"

MODULES = {
    "tensorflow": "flowloom",
    "tensorflow.compat": "flowloom.compat",
    "tensorflow.python.framework.dtypes": "flowloom.framework.dtypes",
    "tensorflow.python.framework.tensor_shape": "flowloom.framework.tensor_shape",
    "tensorflow.python.framework.graph_util": "flowloom.framework.graph_util",
    "tensorflow.python.framework.graph_util_impl": "flowloom.framework.graph_util",
    "tensorflow.python.framework.graph_io": "flowloom.framework.graph_io",
    "tensorflow.python.framework.errors": "flowloom.framework.errors",
    "tensorflow.python.framework.errors_impl": "flowloom.framework.errors",
    "tensorflow.python.framework.meta_graph": "flowloom.framework.meta_graph",
    "tensorflow.python.framework.error_interpolation": "flowloom.framework.error_interpolation",
    "tensorflow.python.framework.device": "flowloom.framework.device",
    "tensorflow.python.framework.common_shapes": "flowloom.framework.common_shapes",
    "tensorflow.python.framework.indexed_slices": "flowloom.framework.indexed_slices",
    "tensorflow.python.framework.test_util": "flowloom.test.test_util",
    "tensorflow.python.grappler.tf_optimizer": "flowloom.runtime.grappler",
    "tensorflow.python.ops.gradient_checker": "flowloom.test.gradient_checker",
    "tensorflow.python.platform.gfile": "flowloom.gfile",
    "tensorflow.python.util.tf_inspect": "flowloom.framework.tf_inspect",
    "tensorflow.python.platform.tf_logging": "flowloom.platform.tf_logging",
    "tensorflow.python.platform.flags": "flowloom.platform.flags",
    "tensorflow.python.platform.app": "flowloom.platform.app",
    "tensorflow.python.platform.test": "flowloom.test",
    "tensorflow.python.client.timeline": "flowloom.client.timeline",
    "tensorflow.python.training.checkpoint_utils": "flowloom.train.checkpoint_utils",
    "tensorflow.python.training.checkpoint_management": "flowloom.train.checkpoint_management",
    "tensorflow.python.util.nest": "flowloom.framework.nest",
    "tensorflow.python.util.compat": "flowloom.compat",
    "tensorflow.python.util.object_identity": "flowloom.framework.object_identity",
    "tensorflow.python.util.deprecation": "flowloom.compat.deprecation",
    "tensorflow.python.tools.inspect_checkpoint": "flowloom.compat.inspect_checkpoint",
    "tensorflow.examples.tutorials.mnist.input_data": _MNIST,
    "tensorflow.contrib.learn.python.learn.datasets.mnist": _MNIST,
    # tf.estimator's internal paths (TF 1.x kept them under tensorflow.python.estimator).
    **{f"tensorflow.python.estimator.{m}": f"flowloom.estimator.{f}" for m, f in (
        ("estimator", "estimator"), ("model_fn", "model_fn"), ("run_config", "run_config"),
        ("training", "training"), ("exporter", "exporter"), ("util", "util"),
        ("mode_keys", "mode_keys"), ("export.export", "export.export"),
        ("export.export_output", "export.export_output"), ("export.export_lib", "export"),
        ("inputs.inputs", "inputs"), ("inputs.numpy_io", "inputs.numpy_io"),
        ("inputs.pandas_io", "inputs.pandas_io"),
        ("inputs.queues.feeding_functions", "inputs.feeding"))},
    "tensorflow.python.estimator.estimator_lib": "flowloom.estimator",
    "tensorflow.python.estimator.export": "flowloom.estimator.export",
    "tensorflow.python.estimator.inputs": "flowloom.estimator.inputs",
    "tensorflow.python.training.evaluation": "flowloom.train.evaluation",
    "tensorflow.python.training.warm_starting_util": "flowloom.estimator.warm_starting",
    # Replicated training (flowloom/distributed/, train/device_setter, sync replicas).
    "tensorflow.python.training.device_setter": "flowloom.train.device_setter",
    "tensorflow.python.training.sync_replicas_optimizer":
        "flowloom.train.sync_replicas_optimizer",
    "tensorflow.contrib.training.python.training.device_setter":
        "flowloom.contrib.training.device_setter",
    # Feature columns, lookup tables and canned estimators (featcol).
    "tensorflow.python.feature_column.feature_column": "flowloom.feature_column",
    "tensorflow.python.feature_column.feature_column_lib": "flowloom.feature_column",
    "tensorflow.python.ops.lookup_ops": "flowloom.ops.lookup.tables",
    **{f"tensorflow.python.estimator.canned.{m}": f"flowloom.estimator.canned.{m}"
       for m in ("dnn", "linear", "dnn_linear_combined", "optimizers", "parsing_utils")},
}

VIEWS = {
    # tensorflow.python.framework
    "tensorflow.python.framework.ops": ("flowloom", "flowloom.framework.graph",
                                        "flowloom.framework.ops",
                                        "flowloom.framework.op_construction",
                                        "flowloom.framework.indexed_slices",
                                        "flowloom.framework.op_stats",
                                        "flowloom.framework.gradients_impl"),
    "tensorflow.python.framework.constant_op": (_OPS + "array.constant_op", "flowloom",
                                                _OPS + "array.array_ops"),
    "tensorflow.python.framework.tensor_util": (
        ("flowloom.framework.tensor_util", "flowloom"),
        {"MakeNdarray": "flowloom:make_ndarray"}),
    "tensorflow.python.framework.sparse_tensor": ("flowloom.framework.sparse_tensor",
                                                  "flowloom"),
    "tensorflow.python.framework.random_seed": (_OPS + "random.random_ops", "flowloom"),
    "tensorflow.python.framework.importer": ("flowloom", "flowloom.framework.importer"),
    # tensorflow.python.ops
    "tensorflow.python.ops.array_ops": _ARRAY,
    "tensorflow.python.ops.gen_array_ops": _ARRAY,
    "tensorflow.python.ops.math_ops": _MATH,
    "tensorflow.python.ops.gen_math_ops": _MATH,
    "tensorflow.python.ops.nn": _NN,
    "tensorflow.python.ops.nn_ops": _NN,
    "tensorflow.python.ops.gen_nn_ops": (_NN, {"max_pool_v2": _OPS + "nn.nn_v2:max_pool_v2_op"}),
    "tensorflow.python.ops.nn_impl": _NN,
    "tensorflow.python.ops.init_ops": ("flowloom", "flowloom.initializers",
                                       _OPS + "state.init_ops"),
    "tensorflow.python.ops.variable_scope": ("flowloom.variable_scope", "flowloom"),
    # TF 1.15's module-level `Variable` is the V2 class (it makes resource variables);
    # `VariableV1` is tf.Variable.
    "tensorflow.python.ops.variables": (
        ("flowloom.variables", "flowloom"),
        {"Variable": "flowloom.variables:VariableV2", "VariableV1": "flowloom.variables:Variable"}),
    "tensorflow.python.compat.compat": ("flowloom.compat.forward_compat",),
    "tensorflow.contrib.framework.python.ops.variables": ("flowloom.contrib.framework.variables",
                                                          "flowloom.contrib.framework"),
    "tensorflow.python.ops.resource_variable_ops": ("flowloom.resource_variable",
                                                    _OPS + "state.resource_variable_ops"),
    "tensorflow.python.ops.rnn": ("flowloom.nn", _OPS + "rnn.rnn"),
    "tensorflow.python.ops.rnn_cell": _CELLS,
    "tensorflow.python.ops.rnn_cell_impl": _CELLS,
    "tensorflow.python.ops.control_flow_ops": _CONTROL,
    "tensorflow.python.ops.state_ops": ("flowloom", _OPS + "state.state_ops",
                                        _OPS + "state.scatter_nd_ops"),
    "tensorflow.python.ops.gen_state_ops": ("flowloom", _OPS + "state.state_ops",
                                            _OPS + "state.temporary_variable_ops"),
    "tensorflow.python.ops.clip_ops": ("flowloom", _OPS + "math.clip_ops"),
    "tensorflow.python.ops.embedding_ops": ("flowloom.nn", _OPS + "nn.embedding_ops"),
    "tensorflow.python.ops.random_ops": ("flowloom", "flowloom.random", _OPS + "random.random_ops",
                                         _OPS + "random.random_sampling_ops"),
    "tensorflow.python.ops.data_flow_ops": ("flowloom", _OPS + "array.data_flow_ops",
                                            _OPS + "control_flow.tensor_array_ops",
                                            "flowloom.data.accumulators",
                                            "flowloom.data.barrier"),
    "tensorflow.python.training.server_lib": ("flowloom.train",
                                              "flowloom.distributed.cluster_spec"),
    "tensorflow.python.ops.tensor_array_ops": ("flowloom",
                                               _OPS + "control_flow.tensor_array_ops"),
    "tensorflow.python.ops.tensor_array_grad": (_OPS + "control_flow.tensor_array_ops",),
    "tensorflow.python.ops.functional_ops": ("flowloom", _OPS + "control_flow.functional_ops",
                                             "flowloom.graph_function.functional_call_ops"),
    "tensorflow.python.framework.function": ("flowloom.graph_function.defun",),
    "tensorflow.python.data.ops.iterator_ops": ("flowloom.data.iterator", "flowloom.data"),
    "tensorflow.python.data.ops.dataset_ops": ("flowloom.data.dataset", "flowloom.data.iterator",
                                              "flowloom.data"),
    "tensorflow.python.data.ops.readers": ("flowloom.data.dataset", "flowloom.data"),
    "tensorflow.python.ops.logging_ops": ("flowloom", _OPS + "checks.logging_ops"),
    "tensorflow.python.ops.check_ops": ("flowloom", "flowloom.debugging",
                                        _OPS + "checks.check_ops"),
    "tensorflow.python.ops.sparse_ops": ("flowloom", "flowloom.sparse",
                                         _OPS + "array.sparse_ops"),
    "tensorflow.python.ops.string_ops": ("flowloom", "flowloom.strings",
                                         _OPS + "strings.string_ops",
                                         _OPS + "checks.tensor_format"),
    "tensorflow.python.ops.parsing_ops": (_OPS + "parsing.serialized_ops", "flowloom",
                                          _OPS + "parsing.parsing_ops",
                                          _OPS + "parsing.sequence_example_ops"),
    "tensorflow.python.ops.special_math_ops": ("flowloom", _OPS + "math.special_math_ops"),
    "tensorflow.python.ops.numerics": ("flowloom", _OPS + "checks.numerics"),
    "tensorflow.python.ops.bitwise_ops": ("flowloom.bitwise", _OPS + "math.special_math_ops"),
    "tensorflow.python.ops.gen_bitwise_ops": ("flowloom.bitwise",
                                              _OPS + "math.special_math_ops"),
    "tensorflow.python.ops.standard_ops": ("flowloom",),
    "tensorflow.python.ops.partitioned_variables": ("flowloom.partitioned_variables", "flowloom"),
    "tensorflow.python.ops.template": ("flowloom.template", "flowloom"),
    "tensorflow.python.ops.gradients": ("flowloom", "flowloom.framework.gradients_impl"),
    "tensorflow.python.ops.gradients_impl": ("flowloom", "flowloom.framework.gradients_impl",
                                             "flowloom.framework.gradient_helpers"),
    "tensorflow.python.ops.custom_gradient": ("flowloom.framework.custom_gradient",
                                              "flowloom.framework.gradient_helpers"),
    "tensorflow.python.ops.summary_ops": ("flowloom.summary", _OPS + "summary.summary_ops"),
    "tensorflow.python.ops.losses": ("flowloom.losses",),
    "tensorflow.python.ops.losses.losses": ("flowloom.losses",),
    "tensorflow.python.ops.image_ops": _IMAGE,
    "tensorflow.python.ops.image_ops_impl": _IMAGE,
    "tensorflow.python.ops.metrics": ("flowloom.metrics",),
    "tensorflow.python.ops.sets": (_OPS + "sets.set_ops",),
    "tensorflow.python.ops.sets_impl": (_OPS + "sets.set_ops",),
    "tensorflow.python.ops.gen_set_ops": (_OPS + "sets.set_ops",),
    # Imported for their side effect (registering gradients): flowloom has them registered.
    "tensorflow.python.ops.array_grad": ("flowloom",),
    "tensorflow.python.ops.math_grad": ("flowloom",),
    "tensorflow.python.ops.nn_grad": ("flowloom", _OPS + "nn.batch_norm_grads"),
    # tensorflow.python.platform, client, training, util, layers, summary, lib.io
    "tensorflow.python.platform.googletest": ("flowloom.test",),
    "tensorflow.python.client.session": ("flowloom.runtime.session", "flowloom"),
    "tensorflow.python.client.device_lib": ("flowloom.client.device_lib",),
    "tensorflow.python.framework.func_graph": ("flowloom.graph_function.func_graph",),
    "tensorflow.python.pywrap_tensorflow": _TRAIN + ("flowloom.framework.pywrap_types",),
    "tensorflow.python.training.training": _TRAIN,
    "tensorflow.python.training.saver": ("flowloom.train.saver",) + _TRAIN,
    "tensorflow.python.training.optimizer": ("flowloom.train.optimizer",) + _TRAIN,
    "tensorflow.python.training.moving_averages": ("flowloom.train.moving_averages",) + _TRAIN,
    "tensorflow.python.training.training_util": ("flowloom.train.training_util",) + _TRAIN,
    "tensorflow.python.training.learning_rate_decay": (
        "flowloom.train.learning_rate_decay",) + _TRAIN,
    "tensorflow.python.training.input": ("flowloom.data.input",) + _TRAIN,
    "tensorflow.python.training.adam": ("flowloom.train.adam",) + _TRAIN,
    "tensorflow.python.training.gradient_descent": ("flowloom.train.gradient_descent",) + _TRAIN,
    **{f"tensorflow.python.training.{m}": _TRAIN for m in (
        "momentum", "adagrad", "adadelta", "rmsprop", "ftrl", "session_run_hook",
        "basic_session_run_hooks", "monitored_session", "queue_runner", "queue_runner_impl",
        "coordinator", "slot_creator", "summary_io", "server_lib",
        "sync_replicas_optimizer", "supervisor")},
    "tensorflow.python.layers.layers": ("flowloom.layers",),
    "tensorflow.python.layers.core": ("flowloom.layers.core", "flowloom.layers"),
    "tensorflow.python.layers.base": ("flowloom.layers.base", "flowloom.layers"),
    "tensorflow.python.layers.convolutional": ("flowloom.layers.convolutional",
                                               "flowloom.layers"),
    "tensorflow.python.layers.normalization": ("flowloom.layers.normalization",
                                               "flowloom.layers"),
    "tensorflow.python.layers.pooling": ("flowloom.layers",),
    "tensorflow.python.summary.summary": ("flowloom.summary",),
    "tensorflow.python.summary.writer.writer": ("flowloom.summary",),
    "tensorflow.python.summary.summary_iterator": _TRAIN,
    "tensorflow.python.lib.io.file_io": (("flowloom.gfile",), {
        "FileIO": "flowloom.gfile:GFile", "file_exists": "flowloom.gfile:Exists",
        "is_directory": "flowloom.gfile:IsDirectory",
        "recursive_create_dir": "flowloom.gfile:MakeDirs",
        "create_dir": "flowloom.gfile:MkDir", "get_matching_files": "flowloom.gfile:Glob",
        "list_directory": "flowloom.gfile:ListDirectory",
        "delete_file": "flowloom.gfile:Remove",
        "delete_recursively": "flowloom.gfile:DeleteRecursively",
        "rename": "flowloom.gfile:Rename", "copy": "flowloom.gfile:Copy",
        "stat": "flowloom.gfile:Stat", "walk": "flowloom.gfile:Walk"}),
    "tensorflow.python.lib.io.tf_record": ("flowloom.python_io", "flowloom.io"),
}

UNAVAILABLE = {
    "tensorflow.compat.v2": "flowloom implements TensorFlow 1.x graph mode "
                            "(tensorflow.compat.v1); the TF2 API is not available",
    "tensorflow.keras": "flowloom has no Keras (tf.keras); use tf.layers",
    "tensorflow.python.keras": "flowloom has no Keras (tf.keras); use tf.layers",
    "tensorflow.python.eager": "flowloom is graph mode only (no eager execution)",
}

_ROOT = "tensorflow."


def _known_packages():
    """Every proper prefix of a mapped name (the TF packages that hold mapped modules)."""
    out = set()
    for name in (*MODULES, *VIEWS):
        parts = name.split(".")
        out.update(".".join(parts[:i]) for i in range(2, len(parts)))
    return out


_PACKAGES = _known_packages()


def is_package(fullname):
    """Whether mapped TF modules live under `fullname`."""
    return fullname in _PACKAGES


def resolve_source(dotted):
    """The flowloom module named `dotted` (imported, or reached by attributes), or None."""
    if dotted in sys.modules:
        return sys.modules[dotted]
    try:
        return importlib.import_module(dotted)
    except ModuleNotFoundError as e:
        if e.name is None or not dotted.startswith(e.name):
            raise  # a module that exists failed to import something else: a real bug
    head, _, rest = dotted.partition(".")
    obj = importlib.import_module(head)
    for part in rest.split(".") if rest else ():
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def resolve_attribute(spec):
    """`"flowloom.gfile:Exists"` -> the object."""
    module, _, attr = spec.partition(":")
    return getattr(resolve_source(module), attr)


def _flowloom_path(rest):
    """flowloom's module at `flowloom.<rest>` (for TF's `tensorflow.<rest>`), or None."""
    obj = resolve_source("flowloom." + rest)
    return obj if obj is not None and hasattr(obj, "__name__") and _is_module(obj) else None


def _is_module(obj):
    import types  # noqa: PLC0415

    return isinstance(obj, types.ModuleType)


def lookup(fullname):
    """How TF module `fullname` is served: ("module", target), ("view", (sources, renames)),
    ("container", None) or ("missing", reason)."""
    if fullname in MODULES:
        return "module", MODULES[fullname]
    if fullname in VIEWS:
        entry = VIEWS[fullname]
        if len(entry) == 2 and isinstance(entry[1], dict):
            return "view", entry
        return "view", (entry, {})
    for name, reason in UNAVAILABLE.items():
        if fullname == name or fullname.startswith(name + "."):
            return "missing", reason
    if fullname == "tensorflow.compat.v1":
        return "module", "flowloom"
    if fullname.startswith("tensorflow.compat.v1."):
        return lookup(_ROOT + fullname[len("tensorflow.compat.v1."):])
    parts = fullname.split(".")
    if parts[1] == "core" and parts[-1].endswith("_pb2"):
        proto = resolve_source("flowloom.proto." + parts[-1])
        if proto is not None:
            return "module", proto
    elif parts[1] not in ("python", "core", "examples", "tools"):
        found = _flowloom_path(fullname[len(_ROOT):])
        if found is not None:
            return "module", found
    if fullname in _PACKAGES or fullname in ("tensorflow.core", "tensorflow.core.framework",
                                             "tensorflow.core.protobuf", "tensorflow.core.util",
                                             "tensorflow.core.example"):
        if fullname == "tensorflow.examples":
            return "module", "flowloom.examples"  # keeps flowloom.examples the package
        return "container", None
    return "missing", "flowloom has no counterpart of this TensorFlow module"
