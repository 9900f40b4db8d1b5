"""Where each of TensorFlow's module paths is looked up in flowloom.

A TF module path maps to an ordered list of flowloom modules ("sources"); a name is taken
from the first source that has it. flowloom's own mapping (`flowloom.compat.module_map`, the
one `flowloom run` uses) comes first; after it, the test harness adds rules by prefix (an
`ops.X` module finds flowloom's op module `X` wherever the op library keeps it) and
flowloom's public namespaces, so that a test file imports even where `flowloom run` would
refuse a module. Nothing here defines TF behaviour: a name that
no source has resolves to a `Missing` placeholder whose use raises, so that test fails.
"""

import contextlib
import importlib
import pkgutil
import types

# TF module path -> flowloom modules searched first (in order).
EXPLICIT = {
    "tensorflow": ["flowloom"],
    "tensorflow.compat.v1": ["flowloom"],
    "tensorflow.python.framework.constant_op": ["flowloom.ops.array.constant_op", "flowloom"],
    "tensorflow.python.framework.dtypes": ["flowloom.framework.dtypes"],
    "tensorflow.python.framework.ops": ["flowloom.framework.ops", "flowloom.framework.graph"],
    "tensorflow.python.framework.errors": ["flowloom.framework.errors"],
    "tensorflow.python.framework.errors_impl": ["flowloom.framework.errors"],
    # TF's error-code enum (OK, CANCELLED, ..., INVALID_ARGUMENT): flowloom's errors module
    # holds the same constants.
    "tensorflow.core.lib.core.error_codes_pb2": ["flowloom.framework.errors"],
    # TF 1.15's config.proto holds RPCOptions; flowloom keeps it in its own file (as TF 2).
    "tensorflow.core.protobuf.config_pb2": ["flowloom.proto.config_pb2",
                                            "flowloom.proto.rpc_options_pb2"],
    "tensorflow.python.framework.tensor_shape": ["flowloom.framework.tensor_shape"],
    "tensorflow.python.framework.sparse_tensor": ["flowloom.framework.sparse_tensor"],
    "tensorflow.python.framework.tensor_util": ["flowloom.framework.tensor_util",
                                                "flowloom.framework.tensor_proto"],
    "tensorflow.python.framework.importer": ["flowloom.framework.importer"],
    "tensorflow.python.framework.graph_util": ["flowloom.framework.graph_util"],
    "tensorflow.python.framework.graph_util_impl": ["flowloom.framework.graph_util"],
    "tensorflow.python.framework.meta_graph": ["flowloom.framework.meta_graph"],
    "tensorflow.python.framework.device": ["flowloom.framework.device"],
    "tensorflow.python.framework.device_spec": ["flowloom.framework.device"],
    "tensorflow.python.framework.common_shapes": ["flowloom.framework.common_shapes"],
    "tensorflow.python.framework.random_seed": ["flowloom.ops.random_ops"],
    "tensorflow.python.framework.graph_io": ["flowloom.framework.graph_io"],
    "tensorflow.python.framework.versions": ["flowloom.framework.graph_def"],
    "tensorflow.python.client.session": ["flowloom.runtime.session"],
    "tensorflow.python.client.timeline": ["flowloom.client.timeline"],
    "tensorflow.python.platform.gfile": ["flowloom.gfile"],
    "tensorflow.python.platform.tf_logging": ["flowloom.logging"],
    "tensorflow.python.util.nest": ["flowloom.framework.nest"],
    "tensorflow.python.util.compat": ["flowloom.compat"],
    "tensorflow.python.ops.variables": ["flowloom.variables"],
    "tensorflow.python.ops.variable_scope": ["flowloom.variable_scope"],
    "tensorflow.python.ops.gradients": ["flowloom.gradients"],
    "tensorflow.python.ops.gradients_impl": ["flowloom.gradients",
                                             "flowloom.framework.gradients_impl"],
    "tensorflow.python.ops.gradients_util": ["flowloom.framework.gradients_impl"],
    "tensorflow.python.ops.gradient_checker": ["flowloom.test.gradient_checker"],
    "tensorflow.python.ops.custom_gradient": ["flowloom.framework.custom_gradient"],
    "tensorflow.python.ops.nn": ["flowloom.nn"],
    "tensorflow.python.ops.rnn_cell": ["flowloom.nn.rnn_cell"],
    "tensorflow.python.ops.losses.losses": ["flowloom.losses"],
    "tensorflow.python.ops.metrics": ["flowloom.metrics"],
    "tensorflow.python.summary.summary": ["flowloom.summary"],
    "tensorflow.python.summary.writer.writer": ["flowloom.summary.writer"],
    "tensorflow.python.lib.io.tf_record": ["flowloom.python_io", "flowloom.io"],
    "tensorflow.python.lib.io.file_io": ["flowloom.gfile"],
    "tensorflow.python.ops.io_ops": ["flowloom.ops.state.save_restore_ops",
                                     "flowloom.ops.state.save_restore_v1_ops",
                                     "flowloom.ops.data.file_ops"],
    "tensorflow.contrib.framework.python.framework.checkpoint_utils": [
        "flowloom.train.checkpoint_utils"],
}

# Test-environment plumbing: TF-internal calls whose answer in TF1 graph mode is fixed
# (TF2 is off, nothing executes eagerly, graph mode is the only mode) or that register TF's
# C++ shape functions (no meaning for flowloom).
PLUMBING = {
    "tensorflow.python.framework.ops._set_call_cpp_shape_fn": lambda fn: None,
    "tensorflow.python.eager.context.executing_eagerly": lambda: False,
    "tensorflow.python.eager.context.graph_mode": contextlib.nullcontext,
    "tensorflow.python.tf2.enabled": lambda: False,
}

# Public namespaces searched last, per family of TF paths (first match of the prefix wins).
_PUBLIC = ["flowloom", "flowloom.nn", "flowloom.train", "flowloom.math", "flowloom.linalg",
           "flowloom.sparse", "flowloom.strings", "flowloom.io", "flowloom.layers",
           "flowloom.summary", "flowloom.errors", "flowloom.test"]
_FAMILY_FIRST = [
    ("tensorflow.python.ops.nn", ["flowloom.nn"]),
    ("tensorflow.python.ops.rnn", ["flowloom.nn", "flowloom.nn.rnn_cell"]),
    ("tensorflow.python.training", ["flowloom.train"]),
    ("tensorflow.python.layers", ["flowloom.layers"]),
    ("tensorflow.python.summary", ["flowloom.summary"]),
    ("tensorflow.python.lib.io", ["flowloom.python_io", "flowloom.io"]),
]

# Paths of APIs that flowloom does not claim (eager execution, TF2, Keras): a test that
# touches a missing name here is reported as excluded with this reason, not as a failure.
UNCLAIMED = [
    ("tensorflow.python.eager", "eager execution (flowloom is graph mode only)"),
    ("tensorflow.python.keras", "Keras (flowloom does not claim tf.keras)"),
    ("tensorflow.python.distribute", "tf.distribute (TF2 strategies)"),
    ("tensorflow.python.tpu", "TPU"),
    ("tensorflow.python.compiler", "XLA"),
    ("tensorflow.python.ops.control_flow_ops.XLAControlFlowContext", "XLA"),
    ("tensorflow.python.ops.ragged", "ragged tensors (TF2 API)"),
    ("tensorflow.python.ops.gradient_checker_v2", "TF2 gradient checker (eager)"),
    ("tensorflow.python.ops.while_v2", "control flow v2 (TF2)"),
    ("tensorflow.python.ops.cond_v2", "control flow v2 (TF2)"),
    ("tensorflow.python.ops.control_flow_v2_toggles", "control flow v2 (TF2)"),
    ("tensorflow.python.training.tracking", "object-based checkpoints (TF2 tracking)"),
    ("tensorflow.python.tf2", "TF2 behaviour switch"),
    ("tensorflow.python.framework.type_spec", "TF2 type specs"),
    ("tensorflow.python.framework.tensor_spec", "TF2 type specs"),
    ("tensorflow.python.framework.indexed_slices.IndexedSlicesSpec", "TF2 type specs"),
    ("tensorflow.python.framework.sparse_tensor.SparseTensorSpec", "TF2 type specs"),
    ("tensorflow.python.framework.composite_tensor", "TF2 composite tensors"),
    ("tensorflow.python.framework.ops.convert_to_tensor_or_composite", "TF2 composite tensors"),
    ("tensorflow.python.autograph", "AutoGraph (flowloom does not convert Python code)"),
    ("tensorflow.python.ops.tensor_array_ops.TensorArraySpec", "TF2 type specs"),
    ("tensorflow.python.framework.test_util.run_functions_eagerly", "eager execution"),
]


def unclaimed_reason(path):
    for prefix, reason in UNCLAIMED:
        if path == prefix or path.startswith(prefix + "."):
            return reason
    return compat_unavailable_reason(path)


_OP_MODULES = None


def _op_modules():
    """flowloom's op modules by leaf name, wherever the op library keeps them."""
    global _OP_MODULES
    if _OP_MODULES is None:
        import flowloom.ops as ops_pkg

        found = {}
        for info in pkgutil.walk_packages(ops_pkg.__path__, "flowloom.ops."):
            found.setdefault(info.name.rsplit(".", 1)[1], info.name)
        _OP_MODULES = found
    return _OP_MODULES


def _module_if_exists(name):
    """The module `name`: imported, or an attribute of its package (`flowloom.python_io`)."""
    try:
        return importlib.import_module(name)
    except ImportError:
        pass
    parent, _, leaf = name.rpartition(".")
    if not parent:
        return None
    package = _module_if_exists(parent)
    value = getattr(package, leaf, None) if package is not None else None
    return value if isinstance(value, types.ModuleType) else None


def _compat_sources(path):
    """(modules, renames) from flowloom.compat.module_map for `path`."""
    from flowloom.compat import module_map

    kind, target = module_map.lookup(path)
    if kind == "module":
        module = target if isinstance(target, types.ModuleType) else \
            module_map.resolve_source(target)
        return ([module] if module is not None else []), {}
    if kind == "view":
        sources, renames = target
        found = [module_map.resolve_source(s) for s in sources]
        return [m for m in found if m is not None], \
            {k: module_map.resolve_attribute(v) for k, v in renames.items()}
    return [], {}


def compat_unavailable_reason(path):
    from flowloom.compat import module_map

    for name, reason in module_map.UNAVAILABLE.items():
        if path == name or path.startswith(name + "."):
            return reason
    return None


def is_compat_package(path):
    from flowloom.compat import module_map

    return module_map.is_package(path)


def sources_for(path, package=False):
    """(modules, renames): where names of TF module `path` are looked up, in order.

    A TF package (`tensorflow.python.ops`) gets only its explicit sources: its other names
    are its submodules."""
    compat_modules, renames = _compat_sources(path)
    names = list(EXPLICIT.get(path, ()))
    if package:
        return _imported(compat_modules, names), renames
    leaf = path.rsplit(".", 1)[1] if "." in path else path
    if path.startswith("tensorflow.python.ops.") and not leaf.startswith("gen_"):
        if leaf in _op_modules():
            names.append(_op_modules()[leaf])
    for prefix, family in (("tensorflow.python.training.", "flowloom.train."),
                           ("tensorflow.python.layers.", "flowloom.layers."),
                           ("tensorflow.python.summary.", "flowloom.summary."),
                           ("tensorflow.python.framework.", "flowloom.framework.")):
        if path.startswith(prefix):
            names.append(family + path[len(prefix):])
    if path.startswith("tensorflow.core.") and leaf.endswith("_pb2"):
        names.append("flowloom.proto." + leaf)
    if path.startswith("tensorflow.python.") and not unclaimed_reason(path):
        for prefix, family in _FAMILY_FIRST:
            if path.startswith(prefix):
                names.extend(family)
                break
        names.extend(_PUBLIC)
    return _imported(compat_modules, names), renames


def _imported(modules, names):
    modules = list(modules)
    for name in dict.fromkeys(names):
        module = _module_if_exists(name)
        if module is not None and module not in modules:
            modules.append(module)
    return modules
