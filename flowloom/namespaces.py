"""The namespaces TF 1.13+ added (tf.math, tf.linalg, tf.random, tf.strings, tf.sparse, tf.io,
tf.initializers, tf.debugging, tf.manip, tf.dtypes, tf.config), with TF 1.15's member names
(tf.config: the options flowloom applies, framework/config.py).

Each table lists TF 1.15's names: `name` (the same object as flowloom's top-level `name`),
`name=target` (flowloom's `target`, dotted from the top level, or `module:attr`). A name
whose target flowloom lacks is absent (AttributeError naming it as not implemented): no
plausible stand-ins. Targets are looked up when first used, so names that other parts of
flowloom add later (tf.image, queues) appear here by themselves.
"""

import importlib
import types

_MATH = "flowloom.ops.math.composite_math"
_LINALG = "flowloom.ops.math.linalg_ops"
_TEXT = "flowloom.ops.strings.text_ops"
_UNICODE = "flowloom.ops.strings.unicode_ops"
_CONFIG = "flowloom.framework.config"
_SETS = "flowloom.ops.sets.set_ops"

TABLES = {
    "math": """
abs accumulate_n acos acosh add add_n angle argmax argmin asin asinh atan atan2 atanh
bessel_i0=? bessel_i0e=flowloom.ops.math.special_math_ops:bessel_i0e bessel_i1=? bessel_i1e=flowloom.ops.math.special_math_ops:bessel_i1e betainc bincount ceil confusion_matrix conj
cos cosh count_nonzero cumprod cumsum cumulative_logsumexp=? digamma divide
divide_no_nan=div_no_nan equal erf erfc exp expm1 floor floordiv floormod greater greater_equal
igamma igammac imag in_top_k=nn.in_top_k invert_permutation is_finite is_inf is_nan
is_non_decreasing is_strictly_increasing l2_normalize=nn.l2_normalize lbeta less less_equal
lgamma log log1p log_sigmoid log_softmax=nn.log_softmax logical_and logical_not logical_or
logical_xor maximum minimum mod multiply multiply_no_nan=flowloom.ops.math.special_math_ops:mul_no_nan
negative nextafter=flowloom.ops.math.extra_math_ops:nextafter not_equal polygamma polyval=flowloom.ops.math.extra_math_ops:polyval pow real reciprocal reciprocal_no_nan=flowloom.ops.math.extra_math_ops:reciprocal_no_nan
reduce_all reduce_any reduce_euclidean_norm=flowloom.ops.math.reduction_ops:reduce_euclidean_norm reduce_logsumexp reduce_max reduce_mean reduce_min
reduce_prod reduce_std=%(m)s:reduce_std reduce_sum reduce_variance=%(m)s:reduce_variance rint
round rsqrt scalar_mul segment_max segment_mean segment_min segment_prod segment_sum sigmoid
sign sin sinh softmax=nn.softmax softplus=nn.softplus softsign=nn.softsign sqrt square
squared_difference subtract tan tanh top_k=nn.top_k truediv unsorted_segment_max
unsorted_segment_mean unsorted_segment_min unsorted_segment_prod unsorted_segment_sqrt_n
unsorted_segment_sum xdivy=flowloom.ops.math.special_math_ops:xdivy
xlogy=flowloom.ops.math.special_math_ops:xlogy zero_fraction=nn.zero_fraction zeta
""",
    "linalg": """
adjoint=%(l)s:adjoint band_part=matrix_band_part cholesky cholesky_solve cross
det=matrix_determinant diag=matrix_diag diag_part=matrix_diag_part eigh=self_adjoint_eig
eigvalsh=self_adjoint_eigvals einsum expm=? eye global_norm inv=matrix_inverse
l2_normalize=nn.l2_normalize logdet=%(l)s:logdet logm=? lstsq=matrix_solve_ls lu=?
matmul matrix_rank=? matrix_transpose matvec=%(l)s:matvec norm normalize=? pinv=? qr
set_diag=matrix_set_diag slogdet=%(l)s:log_matrix_determinant solve=matrix_solve
sqrtm=matrix_square_root svd tensor_diag=diag tensor_diag_part=diag_part tensordot trace
transpose=matrix_transpose triangular_solve=matrix_triangular_solve tridiagonal_matmul=?
tridiagonal_solve=?
""",
    "random": """
all_candidate_sampler=nn.all_candidate_sampler categorical=?
fixed_unigram_candidate_sampler=nn.fixed_unigram_candidate_sampler gamma=random_gamma get_seed
learned_unigram_candidate_sampler=nn.learned_unigram_candidate_sampler
log_uniform_candidate_sampler=nn.log_uniform_candidate_sampler multinomial normal=random_normal
poisson=random_poisson set_random_seed shuffle=random_shuffle stateless_categorical=?
stateless_multinomial=? stateless_normal=? stateless_truncated_normal=? stateless_uniform=?
truncated_normal uniform=random_uniform uniform_candidate_sampler=nn.uniform_candidate_sampler
""",
    "strings": """
as_string bytes_split=%(t)s:bytes_split format=flowloom.ops.checks.tensor_format:string_format
join=string_join length=%(t)s:string_length lower=%(t)s:lower
ngrams=flowloom.ops.strings.ngram_ops:ngrams reduce_join
regex_full_match=flowloom.ops.strings.string_ops:regex_full_match regex_replace
split=flowloom.ops.strings.split_ops:strings_split
strip=string_strip substr to_hash_bucket=string_to_hash_bucket
to_hash_bucket_fast=string_to_hash_bucket_fast to_hash_bucket_strong=string_to_hash_bucket_strong
to_number=string_to_number unicode_decode=%(u)s:unicode_decode
unicode_decode_with_offsets=%(u)s:unicode_decode_with_offsets
unicode_encode=%(u)s:unicode_encode unicode_script=? unicode_split=%(u)s:unicode_split
unicode_split_with_offsets=%(u)s:unicode_split_with_offsets
unicode_transcode=%(u)s:unicode_transcode
unsorted_segment_join=flowloom.ops.strings.join_ops:unsorted_segment_join upper=%(t)s:upper
""",
    "sparse": """
SparseConditionalAccumulator SparseTensor add=sparse_add concat=sparse_concat cross=sparse_cross
cross_hashed=sparse_cross_hashed expand_dims=? eye=? fill_empty_rows=sparse_fill_empty_rows from_dense=?
mask=sparse_mask matmul=sparse_tensor_dense_matmul maximum=sparse_maximum merge=sparse_merge
minimum=sparse_minimum placeholder=sparse_placeholder reduce_max=sparse_reduce_max
reduce_max_sparse=sparse_reduce_max_sparse reduce_sum=sparse_reduce_sum
reduce_sum_sparse=sparse_reduce_sum_sparse reorder=sparse_reorder reset_shape=sparse_reset_shape
reshape=sparse_reshape retain=sparse_retain segment_mean=sparse_segment_mean
segment_sqrt_n=sparse_segment_sqrt_n segment_sum=sparse_segment_sum slice=sparse_slice
softmax=sparse_softmax sparse_dense_matmul=sparse_tensor_dense_matmul split=sparse_split
to_dense=sparse_tensor_to_dense to_indicator=sparse_to_indicator transpose=sparse_transpose
""",
    "io": """
FixedLenFeature FixedLenSequenceFeature PaddingFIFOQueue PriorityQueue QueueBase
RandomShuffleQueue SparseFeature VarLenFeature decode_and_crop_jpeg=image.decode_and_crop_jpeg
decode_base64 decode_bmp=image.decode_bmp decode_compressed decode_csv decode_gif=image.decode_gif
decode_image=image.decode_image decode_jpeg=image.decode_jpeg decode_json_example
decode_png=image.decode_png decode_proto=? decode_raw deserialize_many_sparse encode_base64
encode_jpeg=image.encode_jpeg encode_proto=? extract_jpeg_shape=image.extract_jpeg_shape
is_jpeg=image.is_jpeg match_filenames_once=train.match_filenames_once matching_files
parse_example parse_sequence_example=flowloom.ops.parsing.sequence_example_ops:parse_sequence_example
parse_single_example parse_single_sequence_example
parse_tensor read_file serialize_many_sparse serialize_sparse serialize_tensor write_file
""",
    "initializers": """
constant=constant_initializer global_variables=global_variables_initializer
glorot_normal=glorot_normal_initializer glorot_uniform=glorot_uniform_initializer
he_normal=flowloom.ops.state.init_ops:he_normal he_uniform=flowloom.ops.state.init_ops:he_uniform
identity=flowloom.ops.state.init_ops:identity_initializer
lecun_normal=flowloom.ops.state.init_ops:lecun_normal
lecun_uniform=flowloom.ops.state.init_ops:lecun_uniform
local_variables=local_variables_initializer ones=ones_initializer
orthogonal=orthogonal_initializer random_normal=random_normal_initializer
random_uniform=random_uniform_initializer tables_initializer
truncated_normal=truncated_normal_initializer uniform_unit_scaling=uniform_unit_scaling_initializer
variables=variables_initializer variance_scaling=variance_scaling_initializer
zeros=zeros_initializer
""",
    "debugging": """
Assert assert_all_finite=verify_tensor_all_finite assert_equal assert_greater
assert_greater_equal assert_integer assert_less assert_less_equal assert_near assert_negative
assert_non_negative assert_non_positive assert_none_equal assert_positive assert_proper_iterable
assert_rank assert_rank_at_least assert_rank_in assert_same_float_dtype assert_scalar
assert_shapes=flowloom.ops.checks.check_shapes:assert_shapes assert_type check_numerics get_log_device_placement=? is_finite is_inf is_nan
is_non_decreasing is_numeric_tensor is_strictly_increasing set_log_device_placement=?
""",
    "dtypes": """
DType QUANTIZED_DTYPES=flowloom.framework.dtypes:QUANTIZED_DTYPES as_dtype as_string bfloat16
bool cast complex complex128 complex64 double float16 float32 float64 half int16 int32 int64
int8 qint16 qint32 qint8 quint16 quint8 resource saturate_cast string uint16 uint32 uint64
uint8 variant
""",
    "sets": """
difference=%(s)s:set_difference intersection=%(s)s:set_intersection set_difference=%(s)s:set_difference
set_intersection=%(s)s:set_intersection set_size=%(s)s:set_size set_union=%(s)s:set_union
size=%(s)s:set_size union=%(s)s:set_union
""",
    "config": """
get_soft_device_placement=%(c)s:get_soft_device_placement optimizer=%(c)s:optimizer
set_soft_device_placement=%(c)s:set_soft_device_placement threading=%(c)s:threading
""",
    "manip": """
batch_to_space_nd gather_nd reshape reverse roll scatter_nd space_to_batch_nd tile
""",
}


def _parse(text):
    table = {}
    for item in (text % {"m": _MATH, "l": _LINALG, "c": _CONFIG, "s": _SETS,
                         "t": _TEXT, "u": _UNICODE}).split():
        name, _, target = item.partition("=")
        table[name] = target or name
    return table


class Namespace(types.ModuleType):
    """A TF namespace whose members are looked up in flowloom when first used."""

    def __init__(self, name, table, root):
        super().__init__(f"flowloom.{name}")
        self._tf_name = name
        self._table = table
        self._root = root

    def _resolve(self, target):
        if target == "?":
            return None
        if ":" in target:
            module, _, attr = target.partition(":")
            return getattr(importlib.import_module(module), attr, None)
        obj = self._root
        for part in target.split("."):
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj

    def __getattr__(self, name):
        if name.startswith("__") or name not in self._table:
            raise AttributeError(f"module 'tf.{self._tf_name}' has no attribute '{name}'")
        obj = self._resolve(self._table[name])
        if obj is None:
            raise AttributeError(f"tf.{self._tf_name}.{name} is not implemented in flowloom")
        setattr(self, name, obj)
        return obj

    def __dir__(self):
        present = [n for n in self._table if self._resolve(self._table[n]) is not None]
        return sorted(set(present) | {n for n in self.__dict__ if not n.startswith("_")})


def extend(module, tf_name):
    """Gives an existing module (the tf.io package) the table's names, resolved lazily."""
    import sys

    helper = Namespace(tf_name, _parse(TABLES[tf_name]), sys.modules["flowloom"])
    previous = vars(module).get("__getattr__")

    def module_getattr(name):
        if previous is not None:
            try:
                return previous(name)
            except AttributeError:
                pass
        return getattr(helper, name)
    module.__getattr__ = module_getattr


def namespace(name, root):
    """The namespace tf.`name` (tf.math, tf.linalg, ...) over the flowloom module `root`."""
    return Namespace(name, _parse(TABLES[name]), root)
