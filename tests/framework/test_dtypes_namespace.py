"""tf.dtypes is TF 1.15's namespace, not flowloom's dtype module."""

import flowloom as tf

# dir(tf.dtypes) of TF 1.15.5, public names.
TF_1_15_DTYPES = [
    "DType", "QUANTIZED_DTYPES", "as_dtype", "as_string", "bfloat16", "bool", "cast", "complex",
    "complex128", "complex64", "double", "float16", "float32", "float64", "half", "int16",
    "int32", "int64", "int8", "qint16", "qint32", "qint8", "quint16", "quint8", "resource",
    "saturate_cast", "string", "uint16", "uint32", "uint64", "uint8", "variant"]


def test_tf_dtypes_has_tf_1_15s_names():
    assert [n for n in dir(tf.dtypes) if not n.startswith("_")] == TF_1_15_DTYPES
    assert tf.dtypes.cast is tf.cast and tf.dtypes.bool is tf.bool
    assert tf.dtypes.as_dtype("float") is tf.float32
    assert tf.qint8 in tf.dtypes.QUANTIZED_DTYPES and tf.float32 not in tf.dtypes.QUANTIZED_DTYPES
    assert len(tf.dtypes.QUANTIZED_DTYPES) == 10  # five types and their references, as TF


def test_tf_dtypes_functions_build_ops():
    with tf.Graph().as_default():
        x = tf.dtypes.cast(tf.constant([1.5, 2.5]), tf.dtypes.int32)
        z = tf.dtypes.complex(tf.constant(1.0), tf.constant(2.0))
        with tf.Session() as sess:
            xv, zv = sess.run([x, z])
    assert xv.tolist() == [1, 2] and zv == 1 + 2j


def test_dtype_from_enum_and_every_reference_type():
    from flowloom.framework import dtypes

    assert dtypes.DType(1) == tf.float32 and dtypes.DType(104).name == "uint8_ref"
    assert dtypes.uint8_ref is dtypes.as_dtype("uint8_ref") and dtypes.double_ref is tf.float64_ref
    assert dtypes._TYPE_TO_STRING[7] == "string"
    for enum, name in dtypes._TYPE_TO_STRING.items():
        ctor, args = dtypes.DType(enum).__reduce__()
        assert ctor(*args).as_datatype_enum == enum and args == (name,)
