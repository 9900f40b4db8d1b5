"""flowloom: TensorFlow 1.x graph mode on NumPy.  `import flowloom as tf`."""

import sys as _sys
import types as _types

from flowloom.framework import dtypes as _dtypes
from flowloom.framework import errors
from flowloom.framework.dtypes import (DType, as_dtype, bfloat16, bool_ as bool, complex64,
                                       complex128, double, float16, float32, float64, half,
                                       int8, int16, int32, int64, resource, string, uint8,
                                       uint16, uint32, uint64, variant, float32_ref, float64_ref,
                                       int32_ref, int64_ref, bool_ref)
from flowloom.framework.common_shapes import RegisterShape  # noqa: F401
from flowloom.framework.device import DeviceSpec
from flowloom.framework.graph import (Graph, GraphKeys, add_to_collection, add_to_collections,
                                      colocate_with, control_dependencies, device, get_collection,
                                      get_collection_ref, get_default_graph, get_name_scope,
                                      init_scope, name_scope, reset_default_graph)
from flowloom.framework.ops import (Operation, Tensor, convert_to_tensor,
                                    convert_to_tensor_or_indexed_slices,
                                    register_tensor_conversion_function)
from flowloom.framework.tensor_shape import Dimension, TensorShape, dimension_value
from flowloom.ops.array.array_ops import (boolean_mask, concat, constant, expand_dims, fill, gather,
                                    identity, newaxis, ones, ones_like, placeholder,
                                    placeholder_with_default, rank, reshape, shape, size, slice,
                                    squeeze, stack, stop_gradient, strided_slice, transpose,
                                    unstack, where, zeros, zeros_like)
from flowloom.ops.checks.check_ops import (assert_equal, assert_greater, assert_greater_equal,
                                    assert_less, assert_less_equal, assert_negative,
                                    assert_non_negative, assert_non_positive, assert_none_equal,
                                    assert_positive, assert_rank, assert_scalar, assert_type)
from flowloom.ops.checks.check_ops import (assert_integer, assert_near,  # noqa: E402
                                           assert_proper_iterable, assert_rank_at_least,
                                           assert_rank_in, assert_same_float_dtype,
                                           is_numeric_tensor)
from flowloom.ops.control_flow.control_flow_ops import group, no_op, tuple, with_dependencies
from flowloom.ops.control_flow.cond import case, cond
from flowloom.ops.control_flow.switch_case import switch_case  # noqa: E402
from flowloom.ops.array.search_ops import searchsorted  # noqa: E402
from flowloom.template import make_template  # noqa: E402
from flowloom.ops.state.scatter_nd_ops import (scatter_nd_add, scatter_nd_sub,  # noqa: E402
                                               scatter_nd_update, tensor_scatter_add,
                                               tensor_scatter_sub, tensor_scatter_update)
from flowloom.ops.control_flow.while_loop import while_loop
from flowloom.ops.control_flow.tensor_array_ops import TensorArray
from flowloom.ops.control_flow.functional_ops import foldl, foldr, map_fn, scan
from flowloom.ops.control_flow import control_flow_grad as _control_flow_grad  # registers the gradients
from flowloom.ops.control_flow import control_flow_context_io as _control_flow_context_io  # noqa: F401
from flowloom.framework import nest
from flowloom.ops.state.init_ops import (constant_initializer, glorot_normal_initializer,
                                   glorot_uniform_initializer, ones_initializer,
                                   random_normal_initializer, random_uniform_initializer,
                                   truncated_normal_initializer, variance_scaling_initializer,
                                   zeros_initializer)
from flowloom.ops.checks.logging_ops import Assert_ as Assert
from flowloom.ops.checks.logging_ops import Print_ as Print
from flowloom.ops.checks.logging_ops import check_numerics
from flowloom.ops.checks.logging_ops import print_v2 as print  # noqa: A001 - tf.print
from flowloom.ops.math.math_ops import (abs, acos, add, add_n, asin, atan, atan2, cast, ceil, cos,
                                   cosh, count_nonzero, div, div_no_nan, divide, equal, erf, exp,
                                   expm1, floor, floordiv, floormod, greater, greater_equal,
                                   is_finite, is_inf, is_nan, less, less_equal, log, log1p,
                                   logical_and, logical_not, logical_or, logical_xor, matmul,
                                   maximum, minimum, mod, multiply, negative, not_equal, pow,
                                   realdiv, reciprocal, reduce_all, reduce_any, reduce_max,
                                   reduce_mean, reduce_min, reduce_prod, reduce_sum, rint, round,
                                   rsqrt, saturate_cast, sigmoid, sign, sin, sinh, sqrt, square,
                                   squared_difference, subtract, tan, tanh, to_float, to_int32,
                                   to_int64, truediv, truncatediv, truncatemod)
from flowloom.ops.math.math_ops import range_ as range  # noqa: A001 - tf.range
from flowloom.ops.random.random_ops import (random_normal, random_uniform, set_random_seed,
                                     truncated_normal)
from flowloom.ops.state.state_ops import (assign, assign_add, assign_sub, scatter_add,
                                    scatter_sub, scatter_update)
from flowloom.runtime.session import (InteractiveSession, Session, get_default_session)
from flowloom.variable_scope import (AUTO_REUSE, VariableScope, get_local_variable,
                                     get_variable, get_variable_scope, variable_op_scope,
                                     variable_scope)
from flowloom.variables import (Variable, all_variables, assert_variables_initialized,
                                global_variables,
                                global_variables_initializer, initialize_all_variables,
                                initialize_local_variables, is_variable_initialized,
                                local_variables, local_variables_initializer, model_variables,
                                moving_average_variables, report_uninitialized_variables,
                                trainable_variables, variables_initializer)
from flowloom.variable_enums import VariableAggregation, VariableSynchronization  # noqa: E402
from flowloom.variables import (disable_resource_variables,  # noqa: E402
                                enable_resource_variables, resource_variables_enabled)
import flowloom.resource_variable  # noqa: E402,F401  (registers ResourceVariable conversion)
from flowloom.partitioned_variables import (  # noqa: E402
    create_partitioned_variables, fixed_size_partitioner, min_max_variable_partitioner,
    variable_axis_size_partitioner)

from flowloom import layers, nn
from flowloom.gradients import (AggregationMethod, IndexedSlices, NotDifferentiable,
                                RegisterGradient, UnconnectedGradients, custom_gradient,
                                gradients, hessians, no_gradient)
# -- training op library (branch `ops`) --
from flowloom.ops.array.array_ops import (gather_nd, one_hot, pad, reverse, reverse_v2,  # noqa: E402
                                    scatter_nd, sequence_mask, split, tile, where_v2)
from flowloom.ops.math.math_ops import (arg_max, arg_min, argmax, argmin, cumsum,  # noqa: E402
                                   segment_mean, segment_sum, unsorted_segment_sum)
from flowloom.ops.math.clip_ops import (clip_by_global_norm, clip_by_norm,  # noqa: E402
                                   clip_by_value, global_norm)
from flowloom.ops.random.random_sampling_ops import multinomial, random_shuffle  # noqa: E402
from flowloom import losses  # noqa: E402
from flowloom import bitwise  # noqa: E402
from flowloom import image  # noqa: E402 - tf.image
from flowloom.ops.image.image_ops import random_crop  # noqa: E402
from flowloom.ops.math.math_ops import acosh, asinh, atanh, digamma, erfc, lgamma  # noqa: E402
from flowloom import test  # noqa: E402 - tf.test
from flowloom import train  # noqa: E402 - tf.train
from flowloom import summary
from flowloom.summary.summary import (audio_summary, histogram_summary, image_summary,
                                      merge_all_summaries, merge_summary, scalar_summary)

# tf.version and TF 1.15's release constants (flowloom/version.py says which version is which)
from flowloom import version  # noqa: E402
from flowloom.version import (COMPILER_VERSION, CXX11_ABI_FLAG, GIT_VERSION,  # noqa: E402
                              GRAPH_DEF_VERSION, GRAPH_DEF_VERSION_MIN_CONSUMER,
                              GRAPH_DEF_VERSION_MIN_PRODUCER, MONOLITHIC_BUILD, VERSION)

__version__ = version.FLOWLOOM_VERSION
__git_version__ = GIT_VERSION
__compiler_version__ = COMPILER_VERSION
__cxx11_abi_flag__ = CXX11_ABI_FLAG
__monolithic_build__ = MONOLITHIC_BUILD

# Aliases TF1 programs use.
dtypes = _dtypes
mul = multiply
sub = subtract
neg = negative


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


from flowloom.proto.config_pb2 import (ConfigProto, GPUOptions, GraphOptions,  # noqa: E402
                                       OptimizerOptions, RunMetadata, RunOptions)


# tf.compat.v1 is flowloom itself (flowloom/compat also holds the `tensorflow` import mapping).
from flowloom import compat  # noqa: E402

initializers = _types.ModuleType("flowloom.initializers")
for _n in ("constant", "zeros", "ones", "random_normal", "random_uniform", "truncated_normal",
           "glorot_uniform", "glorot_normal", "variance_scaling"):
    setattr(initializers, _n, globals()[_n + "_initializer"])
initializers.global_variables = global_variables_initializer
initializers.local_variables = local_variables_initializer
initializers.variables = variables_initializer

debugging = _types.ModuleType("flowloom.debugging")
for _n in ("assert_equal", "assert_less", "assert_greater", "assert_rank", "check_numerics",
           "assert_none_equal", "assert_less_equal", "assert_greater_equal", "assert_positive",
           "assert_non_negative", "assert_type", "Assert"):
    setattr(debugging, _n, globals()[_n])
for _n in ("assert_integer", "assert_near", "assert_proper_iterable", "assert_rank_at_least",
           "assert_rank_in", "assert_same_float_dtype", "is_numeric_tensor", "assert_negative",
           "assert_non_positive", "assert_scalar"):
    setattr(debugging, _n, globals()[_n])
from flowloom.ops.checks.check_shapes import assert_shapes as _assert_shapes  # noqa: E402
debugging.assert_shapes = _assert_shapes

# -- GraphDef, import/export, checkpoints (flowloom/framework/graph_def.py and friends) --------
from flowloom.framework.importer import import_graph_def  # noqa: E402
from flowloom.framework import op_construction as _op_construction  # noqa: E402,F401
from flowloom.framework.tensor_proto import from_numpy as make_tensor_proto  # noqa: E402
from flowloom.framework.tensor_proto import to_numpy as make_ndarray  # noqa: E402
from flowloom.proto.attr_value_pb2 import AttrValue, NameAttrList  # noqa: E402,F811
from flowloom.proto.graph_pb2 import GraphDef  # noqa: E402
from flowloom.proto.meta_graph_pb2 import MetaGraphDef  # noqa: E402
from flowloom.proto.node_def_pb2 import NodeDef  # noqa: E402
from flowloom.proto.tensor_pb2 import TensorProto  # noqa: E402
from flowloom.proto.versions_pb2 import VersionDef  # noqa: E402
import flowloom.ops.state.save_restore_ops  # noqa: E402,F401 - registers SaveV2/RestoreV2
from flowloom import gfile  # noqa: E402
from flowloom.framework import graph_util  # noqa: E402
from flowloom.framework.graph_io import write_graph as _write_graph  # noqa: E402
import flowloom.io as _io_package  # noqa: E402

# tf.io is the flowloom.io package: it carries tf.io's public names too.
_io_package.gfile = gfile
_io_package.write_graph = _write_graph

# Examples, records and sparse tensors (tf.parse_example, tf.io, tf.python_io).
from flowloom.framework.sparse_tensor import (SparseTensor, SparseTensorValue,  # noqa: E402
                                              sparse_placeholder)
from flowloom.ops.parsing.parsing_ops import (FixedLenFeature, FixedLenSequenceFeature,  # noqa: E402
                                      SparseFeature, VarLenFeature, parse_example,
                                      parse_single_example)
from flowloom.ops.parsing.decode_ops import decode_csv, decode_raw  # noqa: E402
from flowloom.ops.parsing.serialized_ops import (decode_json_example, parse_tensor,  # noqa: E402
                                                 serialize_tensor)
import flowloom.ops.parsing.parse_example_v1  # noqa: E402,F401 - registers ParseExample (TF 1.x graphs)
from flowloom import io  # noqa: E402 - also the public tf.io namespace

python_io = _types.ModuleType("flowloom.python_io")
python_io.TFRecordWriter = io.TFRecordWriter
python_io.TFRecordOptions = io.TFRecordOptions
python_io.TFRecordCompressionType = io.TFRecordCompressionType
python_io.tf_record_iterator = io.tf_record_iterator
from flowloom.proto.event_pb2 import Event, SessionLog  # noqa: E402
from flowloom.proto.summary_pb2 import (HistogramProto, Summary,  # noqa: E402
                                        SummaryMetadata)
from flowloom.ops.array.sparse_ops import sparse_tensor_to_dense, sparse_to_dense  # noqa: E402

sparse = _types.ModuleType("flowloom.sparse")
sparse.SparseTensor = SparseTensor
sparse.to_dense = sparse_tensor_to_dense
sparse.placeholder = sparse_placeholder
import flowloom.ops.strings.string_ops  # noqa: E402,F401 - registers StringJoin/StaticRegexFullMatch

# Recurrent networks: tf.reverse_sequence, and tf.contrib.rnn as an alias of the TF1 cells.
from flowloom.ops.array.sequence_ops import reverse_sequence  # noqa: E402
from flowloom import contrib  # noqa: E402

# -- The rest of the TF1 top level and the 1.13+ namespaces (branch `api`) -----------------------
from flowloom.ops.math.linalg_ops import (cholesky, cholesky_solve, diag, diag_part,  # noqa: E402
                                          eye, matrix_band_part, matrix_determinant,
                                          matrix_diag, matrix_diag_part, matrix_inverse,
                                          matrix_set_diag, matrix_solve, matrix_transpose,
                                          matrix_triangular_solve, qr, self_adjoint_eig,
                                          self_adjoint_eigvals, svd, trace)
from flowloom.ops.math.linalg_ops import log_matrix_determinant  # noqa: E402,F401
from flowloom.ops.math.einsum_ops import einsum, tensordot  # noqa: E402
from flowloom.ops.math.composite_math import (accumulate_n, floor_div,  # noqa: E402
                                              is_non_decreasing, is_strictly_increasing, lbeta,
                                              log_sigmoid, norm, reduce_logsumexp, scalar_mul)
from flowloom.ops.math.sort_ops import argsort, sort  # noqa: E402
from flowloom.ops.math.histogram_ops import (bincount, histogram_fixed_width,  # noqa: E402
                                             histogram_fixed_width_bins)
from flowloom.ops.math.scan_ops import cumprod  # noqa: E402
from flowloom.ops.math.segment_ops import unique, unique_with_counts  # noqa: E402
from flowloom.ops.array.grid_ops import lin_space, meshgrid, roll  # noqa: E402
from flowloom.ops.array.broadcast_ops import broadcast_to  # noqa: E402
from flowloom.ops.array.array_ops import identity_n, invert_permutation, setdiff1d  # noqa: E402
from flowloom.ops.checks.shape_checks import ensure_shape  # noqa: E402
from flowloom.ops.state.state_ops import count_up_to  # noqa: E402
from flowloom.ops.state.init_ops import identity_initializer, orthogonal_initializer  # noqa
from flowloom.ops.script.script_ops import numpy_function, py_func, py_function  # noqa: E402

from flowloom import metrics  # noqa: E402
from flowloom.ops.math.linalg_ops import cross  # noqa: E402
from flowloom.ops.array.edit_distance_ops import edit_distance  # noqa: E402
from flowloom.metrics.metrics_impl import confusion_matrix  # noqa: E402

linspace = lin_space
from flowloom import namespaces as _namespaces  # noqa: E402

_namespaces.install(_sys.modules[__name__])

# issue 10 (hardening)
from flowloom.ops.math.unary_ops import conj  # noqa: E402

# -- compat: quantized dtypes; tf.app, tf.flags, tf.logging, tf.test; install_as_tensorflow ----
from flowloom.framework.dtypes import qint8, quint8, qint16, quint16, qint32  # noqa: E402
from flowloom.platform import app, flags  # noqa: E402
from flowloom.platform import tf_logging as logging  # noqa: E402
from flowloom.platform.tf_logging import get_logger  # noqa: E402
app.flags = flags
from flowloom.compat.importer import install_as_tensorflow  # noqa: E402

# flowloom explains itself: tf.explain(run_metadata); FLOWLOOM_EXPLAIN=1 prints every plan's
# report when it first runs (flowloom/explain).
from flowloom.explain import explain  # noqa: E402

if __import__("os").environ.get("FLOWLOOM_EXPLAIN", "0") not in ("", "0"):
    from flowloom.explain import env as _explain_env

    _explain_env.install(__import__("os").environ["FLOWLOOM_EXPLAIN"])

# SavedModels: tf.saved_model (builder, loader, signatures; flowloom/saved_model).
from flowloom import saved_model  # noqa: E402

# Input pipelines (flowloom/data/): queues and readers; tf.queue.
from flowloom.data import pipeline_names as _pipeline_names  # noqa: E402
from flowloom.data.pipeline_names import *  # noqa: E402,F401,F403
queue = _pipeline_names.queue_namespace()
# Gradient accumulators (flowloom/data/accumulators.py).
from flowloom.data.accumulators import (ConditionalAccumulator,  # noqa: E402,F401
                                        ConditionalAccumulatorBase,
                                        SparseConditionalAccumulator)

# tf.data: datasets and iterators as graph ops (flowloom/data).
from flowloom import data  # noqa: E402

# Lookup tables, hashing, bucketizing and crossing (branch `featcol`): tf.lookup, tf.contrib.lookup.
from flowloom import lookup  # noqa: E402
from flowloom.ops.lookup.tables import tables_initializer  # noqa: E402
from flowloom.ops.strings.hash_ops import as_string, string_to_hash_bucket_fast  # noqa: E402
from flowloom.ops.array.sparse_cross_ops import sparse_cross, sparse_cross_hashed  # noqa: E402,F401
from flowloom.ops.array.sparse_reshape_ops import (sparse_fill_empty_rows,  # noqa: E402
                                                   sparse_reshape, sparse_retain)
from flowloom.ops.array import sparse_map_ops  # noqa: E402,F401 - SparseTensorsMap op types
from flowloom.ops.array.data_flow_ops import dynamic_partition, dynamic_stitch  # noqa: E402
initialize_all_tables = tables_initializer
from flowloom import feature_column  # noqa: E402 - tf.feature_column

# tf.estimator: Estimator, specs, RunConfig, exports, input functions (flowloom/estimator).
from flowloom import estimator  # noqa: E402

# Graph functions (flowloom/graph_function): function.Defun, FunctionDef libraries, If/While/For.
import flowloom.graph_function  # noqa: E402,F401
