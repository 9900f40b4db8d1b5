"""Attrs that TensorFlow added to op types after 1.15.

flowloom's op types have TF 2's signatures where TF 2 extended TF 1.15's (a new attr with a
default). TF 1.15's importer refuses a NodeDef naming an attr its op type does not have, so a
NodeDef leaves these attrs out while they hold their default value: TensorFlow 1.15 then reads
flowloom's GraphDefs, and flowloom and TF 2 fill the default back in when they read them. A
non-default value (which TF 1.15 cannot express) is written as it is.
"""

ADDED_AFTER_TF1 = {
    "ApplyFtrl": ("multiply_linear_by_lr",),
    "ApplyFtrlV2": ("multiply_linear_by_lr",),
    "ResourceApplyFtrl": ("multiply_linear_by_lr",),
    "ResourceApplyFtrlV2": ("multiply_linear_by_lr",),
    "SparseApplyFtrl": ("multiply_linear_by_lr",),
    "SparseApplyFtrlV2": ("multiply_linear_by_lr",),
    "ResourceSparseApplyFtrl": ("multiply_linear_by_lr",),
    "ResourceSparseApplyFtrlV2": ("multiply_linear_by_lr",),
    "ConcatOffset": ("shape_type",),
    "DepthwiseConv2dNative": ("explicit_paddings",),
    "DepthwiseConv2dNativeBackpropFilter": ("explicit_paddings",),
    "DepthwiseConv2dNativeBackpropInput": ("explicit_paddings",),
    "FusedBatchNormV3": ("exponential_avg_factor",),
    "MatMul": ("grad_a", "grad_b"),
    "MaxPool": ("explicit_paddings",),
    "MaxPoolGrad": ("explicit_paddings",),
    "MergeV2Checkpoints": ("allow_missing_files",),
    "TopKV2": ("Tk", "index_type"),
    # flowloom's one-shot iterator counts its dataset input (TF 1.15's has none: N = 0).
    "OneShotIterator": ("N",),
}


def omitted(op_type, key, value, default):
    """Whether a NodeDef of `op_type` leaves attr `key` (holding `value`) out."""
    added = ADDED_AFTER_TF1.get(op_type)
    if added is None or key not in added:
        return False
    if isinstance(value, (list, tuple)) or isinstance(default, (list, tuple)):
        return list(value or ()) == list(default or ())
    return value == default
