"""flowloom: TensorFlow 1.x graph mode on NumPy.  `import flowloom as tf`.

Namespaces and op families are imported when first used (PEP 562; flowloom/lazy_names.py):
`import flowloom` is quick, `tf.nn` imports flowloom.nn, `tf.concat` the array op family.
`dir(tf)` lists every name from the start; whatever looks an op type up by name (GraphDef
import, gradients, MetaGraphs) imports its family through flowloom/framework/lazy_registry.py.
FLOWLOOM_EAGER_IMPORT=1 imports everything at `import flowloom`.

To add public names, add them to the table below under the module that defines them.
"""

import os as _os
import sys as _sys

from flowloom import lazy_names as _lazy_names

_TABLE = _lazy_names.parse({
    "flowloom.framework": "errors nest graph_util",
    "flowloom.framework.dtypes": (
        "DType as_dtype bfloat16 bool=bool_ complex64 complex128 double float16 float32 "
        "float64 half int8 int16 int32 int64 resource string uint8 uint16 uint32 uint64 "
        "variant float32_ref float64_ref int32_ref int64_ref bool_ref qint8 quint8 qint16 "
        "quint16 qint32"),
    "flowloom.framework.common_shapes": "RegisterShape",
    "flowloom.framework.device": "DeviceSpec",
    # op_construction attaches TF's NodeDef constructors and helpers to these classes
    "flowloom.framework.op_construction": "Graph Operation Tensor",
    "flowloom.framework.container": "container",
    "flowloom.variable_creator": "variable_creator_scope",
    "flowloom.framework.graph": (
        "GraphKeys add_to_collection add_to_collections colocate_with "
        "control_dependencies device get_collection get_collection_ref get_default_graph "
        "get_name_scope init_scope name_scope reset_default_graph"),
    "flowloom.framework.ops": (
        "convert_to_tensor convert_to_tensor_or_indexed_slices "
        "register_tensor_conversion_function"),
    "flowloom.framework.tensor_shape": "Dimension TensorShape dimension_value",
    "flowloom.ops.array.array_ops": (
        "boolean_mask concat constant expand_dims fill gather identity newaxis ones ones_like "
        "placeholder placeholder_with_default rank reshape shape size slice squeeze stack "
        "stop_gradient strided_slice transpose unstack where zeros zeros_like gather_nd "
        "one_hot pad reverse reverse_v2 scatter_nd sequence_mask split tile where_v2 "
        "identity_n invert_permutation setdiff1d"),
    "flowloom.ops.checks.check_ops": (
        "assert_equal assert_greater assert_greater_equal assert_less assert_less_equal "
        "assert_negative assert_non_negative assert_non_positive assert_none_equal "
        "assert_positive assert_rank assert_scalar assert_type assert_integer assert_near "
        "assert_proper_iterable assert_rank_at_least assert_rank_in assert_same_float_dtype "
        "is_numeric_tensor"),
    "flowloom.ops.control_flow.control_flow_ops": "group no_op tuple with_dependencies",
    "flowloom.ops.control_flow.cond": "case cond",
    "flowloom.ops.control_flow.switch_case": "switch_case",
    "flowloom.ops.array.search_ops": "searchsorted",
    "flowloom.template": "make_template",
    "flowloom.ops.state.scatter_nd_ops": (
        "scatter_nd_add scatter_nd_sub scatter_nd_update tensor_scatter_add "
        "tensor_scatter_sub tensor_scatter_update"),
    "flowloom.ops.control_flow.while_loop": "while_loop",
    "flowloom.ops.control_flow.tensor_array_ops": "TensorArray",
    "flowloom.ops.control_flow.functional_ops": "foldl foldr map_fn scan",
    "flowloom.ops.state.init_ops": (
        "constant_initializer glorot_normal_initializer glorot_uniform_initializer "
        "ones_initializer random_normal_initializer random_uniform_initializer "
        "truncated_normal_initializer variance_scaling_initializer zeros_initializer "
        "identity_initializer orthogonal_initializer uniform_unit_scaling_initializer"),
    "flowloom.ops.checks.logging_ops": "Assert=Assert_ Print=Print_ check_numerics print=print_v2",
    "flowloom.ops.math.math_ops": (
        "abs acos add add_n asin atan atan2 cast ceil cos cosh count_nonzero div div_no_nan "
        "divide equal erf exp expm1 floor floordiv floormod greater greater_equal is_finite "
        "is_inf is_nan less less_equal log log1p logical_and logical_not logical_or "
        "logical_xor matmul maximum minimum mod multiply negative not_equal pow realdiv "
        "reciprocal reduce_all reduce_any reduce_max reduce_mean reduce_min reduce_prod "
        "reduce_sum rint round rsqrt saturate_cast sigmoid sign sin sinh sqrt square "
        "squared_difference subtract tan tanh to_float to_int32 to_int64 truediv truncatediv "
        "truncatemod range=range_ arg_max arg_min argmax argmin cumsum segment_mean "
        "segment_sum unsorted_segment_sum acosh asinh atanh digamma erfc lgamma"),
    "flowloom.ops.math.gamma_ops": "betainc igamma igammac polygamma zeta",
    "flowloom.ops.random.random_ops": "random_normal random_uniform set_random_seed truncated_normal",
    "flowloom.ops.state.state_ops": "assign assign_add assign_sub scatter_add scatter_sub scatter_update count_up_to "
                                   "scatter_mul scatter_div scatter_min scatter_max",
    "flowloom.runtime.session": "InteractiveSession Session get_default_session",
    "flowloom.variable_scope": (
        "AUTO_REUSE VariableScope get_local_variable get_variable get_variable_scope "
        "variable_op_scope variable_scope"),
    "flowloom.variables": (
        "Variable all_variables assert_variables_initialized global_variables "
        "global_variables_initializer initialize_all_variables initialize_local_variables "
        "is_variable_initialized local_variables local_variables_initializer model_variables "
        "moving_average_variables report_uninitialized_variables trainable_variables "
        "variables_initializer disable_resource_variables enable_resource_variables "
        "resource_variables_enabled"),
    "flowloom.variable_enums": "VariableAggregation VariableSynchronization",
    "flowloom.gradients": (
        "AggregationMethod IndexedSlices NotDifferentiable RegisterGradient "
        "UnconnectedGradients custom_gradient gradients hessians no_gradient"),
    "flowloom.ops.checks.numerics": "add_check_numerics_ops",
    "flowloom.ops.math.clip_ops": (
        "clip_by_average_norm clip_by_global_norm clip_by_norm clip_by_value global_norm"),
    "flowloom.ops.random.random_sampling_ops": "multinomial random_shuffle",
    "flowloom.ops.image.image_ops": "random_crop",
    "flowloom.summary.summary": (
        "audio_summary histogram_summary image_summary merge_all_summaries merge_summary "
        "scalar_summary"),
    "flowloom.version": (
        "COMPILER_VERSION CXX11_ABI_FLAG GIT_VERSION GRAPH_DEF_VERSION "
        "GRAPH_DEF_VERSION_MIN_CONSUMER GRAPH_DEF_VERSION_MIN_PRODUCER MONOLITHIC_BUILD "
        "VERSION"),
    "flowloom.proto.config_pb2": "ConfigProto GPUOptions GraphOptions OptimizerOptions RunMetadata RunOptions",
    "flowloom.framework.importer": "import_graph_def",
    "flowloom.framework.tensor_proto": "make_tensor_proto=from_numpy",
    "flowloom.framework.tensor_util": "make_ndarray",
    "flowloom.proto.attr_value_pb2": "AttrValue NameAttrList",
    "flowloom.proto.graph_pb2": "GraphDef",
    "flowloom.proto.meta_graph_pb2": "MetaGraphDef",
    "flowloom.proto.node_def_pb2": "NodeDef",
    "flowloom.proto.tensor_pb2": "TensorProto",
    "flowloom.proto.versions_pb2": "VersionDef",
    "flowloom.framework.sparse_tensor": "SparseTensor SparseTensorValue sparse_placeholder",
    "flowloom.ops.parsing.parsing_ops": (
        "FixedLenFeature FixedLenSequenceFeature SparseFeature VarLenFeature parse_example "
        "parse_single_example"),
    "flowloom.ops.parsing.decode_ops": "decode_csv decode_raw",
    "flowloom.ops.parsing.serialized_ops": "decode_json_example parse_tensor serialize_tensor",
    "flowloom.proto.event_pb2": "Event SessionLog",
    "flowloom.proto.summary_pb2": "HistogramProto Summary SummaryMetadata",
    "flowloom.ops.array.sparse_ops": "sparse_tensor_to_dense sparse_to_dense",
    "flowloom.ops.array.sequence_ops": "reverse_sequence",
    "flowloom.ops.math.linalg_ops": (
        "cholesky cholesky_solve diag diag_part eye matrix_band_part matrix_determinant "
        "matrix_diag matrix_diag_part matrix_inverse matrix_set_diag matrix_solve "
        "matrix_transpose matrix_triangular_solve qr self_adjoint_eig self_adjoint_eigvals "
        "svd trace log_matrix_determinant cross"),
    "flowloom.ops.math.einsum_ops": "einsum tensordot",
    "flowloom.ops.math.composite_math": (
        "accumulate_n floor_div is_non_decreasing is_strictly_increasing lbeta log_sigmoid "
        "norm reduce_logsumexp scalar_mul"),
    "flowloom.ops.math.sort_ops": "argsort sort",
    "flowloom.ops.math.histogram_ops": "bincount histogram_fixed_width histogram_fixed_width_bins",
    "flowloom.ops.math.scan_ops": "cumprod",
    "flowloom.ops.math.segment_ops": (
        "unique unique_with_counts unsorted_segment_max unsorted_segment_min "
        "unsorted_segment_prod"),
    "flowloom.ops.math.segment_reduction_ops": (
        "segment_max segment_min segment_prod sparse_segment_mean sparse_segment_sqrt_n "
        "sparse_segment_sum unsorted_segment_mean unsorted_segment_sqrt_n"),
    "flowloom.ops.array.grid_ops": "lin_space meshgrid roll",
    "flowloom.ops.array.broadcast_ops": (
        "broadcast_to broadcast_dynamic_shape broadcast_static_shape"),
    "flowloom.ops.checks.shape_checks": "ensure_shape",
    "flowloom.ops.script.script_ops": "numpy_function py_func py_function",
    "flowloom.ops.array.edit_distance_ops": "edit_distance",
    "flowloom.metrics.metrics_impl": "confusion_matrix",
    "flowloom.ops.math.unary_ops": "conj",
    "flowloom.ops.math.complex_ops": "angle complex imag real",
    "flowloom.platform": "app flags logging=tf_logging",
    "flowloom.platform.tf_logging": "get_logger",
    "flowloom.compat.importer": "install_as_tensorflow",
    "flowloom.explain": "explain",
    "flowloom.data.accumulators": "ConditionalAccumulator ConditionalAccumulatorBase SparseConditionalAccumulator",
    "flowloom.ops.lookup.tables": "tables_initializer",
    "flowloom.ops.strings.hash_ops": (
        "as_string string_to_hash_bucket string_to_hash_bucket_fast "
        "string_to_hash_bucket_strong"),
    "flowloom.ops.strings.join_ops": "reduce_join",
    "flowloom.ops.strings.number_ops": "string_to_number",
    "flowloom.ops.strings.split_ops": "string_split",
    "flowloom.ops.strings.string_ops": "regex_replace string_join substr",
    "flowloom.ops.strings.text_ops": "decode_base64 encode_base64 string_strip",
    "flowloom.ops.array.sparse_cross_ops": "sparse_cross sparse_cross_hashed",
    "flowloom.ops.array.sparse_reshape_ops": "sparse_fill_empty_rows sparse_reshape sparse_retain",
    "flowloom.ops.array.data_flow_ops": "dynamic_partition dynamic_stitch",
    "flowloom.ops.array.array_extra_ops": "guarantee_const repeat",
    "flowloom.ops.array.parallel_concat_ops": "parallel_stack",
    "flowloom.ops.array.sparse_reorder_ops": "sparse_merge sparse_reorder",
    "flowloom.ops.array.sparse_add_ops": "sparse_add",
    "flowloom.ops.array.sparse_concat_ops": "sparse_concat",
    "flowloom.ops.math.sparse_dense_matmul_ops": "sparse_tensor_dense_matmul",
    "flowloom.ops.parsing.sequence_example_ops": "parse_single_sequence_example",
    "flowloom.partitioned_variables": (
        "create_partitioned_variables fixed_size_partitioner min_max_variable_partitioner "
        "variable_axis_size_partitioner"),
    # aliases TF1 programs use, and the TF 1.13+ spellings
    "flowloom.ops.math.math_ops#aliases": "mul=multiply sub=subtract neg=negative",
    "flowloom.ops.array.grid_ops#aliases": "linspace=lin_space",
    "flowloom.ops.lookup.tables#aliases": "initialize_all_tables=tables_initializer",
    # queues and readers (flowloom/data/pipeline_names.py __all__)
    "flowloom.data.pipeline_names": (
        "FIFOQueue PaddingFIFOQueue PriorityQueue QueueBase RandomShuffleQueue "
        "FixedLengthRecordReader IdentityReader LMDBReader ReaderBase TextLineReader "
        "TFRecordReader WholeFileReader matching_files"),
    "flowloom.ops.data.file_ops": "read_file write_file",
    "flowloom.version#dunders": (
        "__git_version__=GIT_VERSION __compiler_version__=COMPILER_VERSION "
        "__cxx11_abi_flag__=CXX11_ABI_FLAG __monolithic_build__=MONOLITHIC_BUILD"),
})

# tf.<name> = the flowloom subpackage or module of that name
_SUBMODULES = (
    "bitwise compat contrib data estimator feature_column gfile image io layers lookup losses "
    "metrics nn saved_model summary test train version "
    # flowloom's own packages, attributes of the module as for any imported subpackage
    "distributed framework graph_function namespaces ops partitioned_variables platform proto "
    "resource_variable runtime template variable_creator variable_enums variable_init_guard "
    "variable_store variables").split()


def _python_io(module):
    from flowloom import io

    python_io = _types_module("flowloom.python_io")
    for name in ("TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType",
                 "tf_record_iterator"):
        setattr(python_io, name, getattr(io, name))
    return python_io


def _queue(module):
    from flowloom.data import pipeline_names

    return pipeline_names.queue_namespace()


def _types_module(name):
    import types

    return types.ModuleType(name)


def _namespace(name):
    def make(module):
        from flowloom import namespaces

        return namespaces.namespace(name, module)
    return make


_FACTORIES = {name: _namespace(name) for name in (
    "math", "linalg", "random", "strings", "sparse", "initializers", "debugging", "manip",
    "dtypes", "config", "sets")}
_FACTORIES.update(python_io=_python_io, queue=_queue, flowloom=lambda module: module,
                  __version__=lambda module: module.version.FLOWLOOM_VERSION)

__getattr__, __dir__, _load_everything = _lazy_names.attach(
    __name__, _TABLE, _FACTORIES, _SUBMODULES)


def disable_v2_behavior():
    """Accepted and ignored: flowloom is graph mode only."""


def disable_eager_execution():
    """Accepted and ignored: flowloom is graph mode only."""


def enable_v2_behavior():
    raise NotImplementedError("flowloom implements TF1 graph mode only (enable_v2_behavior)")


def enable_eager_execution(*args, **kwargs):
    raise NotImplementedError("flowloom implements TF1 graph mode only (eager execution)")


def executing_eagerly():
    return False


def disable_v2_tensorshape():
    """Accepted: flowloom's TensorShape is TF1's."""


def disable_control_flow_v2():
    """Accepted: flowloom builds TF1 dataflow control flow."""


def disable_tensor_equality():
    """Accepted: tensors compare by identity, as in TF1."""


def get_seed(op_seed):
    from flowloom.ops.random.random_ops import get_seed as _get_seed

    return _get_seed(op_seed)


if _os.environ.get("FLOWLOOM_EAGER_IMPORT", "0") not in ("", "0"):
    _load_everything()

# flowloom explains itself: tf.explain(run_metadata); FLOWLOOM_EXPLAIN=1 prints every plan's
# report when it first runs (flowloom/explain).
if _os.environ.get("FLOWLOOM_EXPLAIN", "0") not in ("", "0"):
    from flowloom.explain import env as _explain_env

    _explain_env.install(_os.environ["FLOWLOOM_EXPLAIN"])
