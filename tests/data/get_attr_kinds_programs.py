"""What Operation.get_attr gives for each attr kind, run on TF 1.15 (record_get_attr_kinds.py)
and flowloom (tests/framework/test_get_attr_kinds.py): per case, the Python type's name of the
value (of each element for lists) and its value in a comparable form.

`program(tf, raw_call)`: `raw_call(args, Tout, f)` builds a PartitionedCall op (TF's
gen_functional_ops.partitioned_call) whose `f` attr is a Defun.
"""


def _describe(value, tf=None):
    if isinstance(value, list):
        return [_describe(v, tf) for v in value]
    kind = type(value).__name__
    if kind == "TensorProto":  # its values (TF and flowloom may encode them differently)
        return [kind, tf.make_ndarray(value).tolist()]
    if hasattr(value, "SerializeToString"):
        return [kind, str(value)]
    if kind == "DType":
        return [kind, value.name]
    return [kind, value.decode() if isinstance(value, bytes) else value]


def program(tf, raw_call, defun):
    r = {}
    with tf.Graph().as_default():
        p = tf.placeholder(tf.float32, [None, 3], name="p")
        r["placeholder_shape"] = _describe(p.op.get_attr("shape"))
        r["placeholder_dtype"] = _describe(p.op.get_attr("dtype"))
        c = tf.constant([1, 2], name="c")
        r["const_value"] = _describe(c.op.get_attr("value"), tf)
        ex = tf.parse_example(tf.placeholder(tf.string, [None]), {
            "a": tf.FixedLenFeature([2], tf.float32), "b": tf.FixedLenFeature([], tf.int64)})
        op = ex["a"].op
        r["dense_shapes"] = _describe(op.get_attr("dense_shapes"))
        r["tdense"] = _describe(op.get_attr("Tdense"))
        r["split_num"] = _describe(tf.split(p, 3, axis=1)[0].op.get_attr("num_split"))

        @defun(tf.float32, func_name="Twice")
        def twice(x):
            return x * 2.0

        call = raw_call([p], [tf.float32], twice)
        call_op = call[0].op if isinstance(call, (list, tuple)) else call.op
        r["func"] = _describe(call_op.get_attr("f"))
        r["func_in_library"] = "Twice" in [f.signature.name for f in
                                           tf.get_default_graph().as_graph_def().library.function]
    return r
