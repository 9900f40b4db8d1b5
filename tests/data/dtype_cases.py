"""The dtype arguments recorded by record_dtypes.py and checked by tests/framework/test_dtype_names.py.

AS_DTYPE: expressions (over `np`) handed to `tf.as_dtype`; the recording keeps the DType's name
or the exception class. API_CASES: small programs over `tf` and `np` that take a dtype as a
string; each sets `result` (a tensor) and `run` (whether its value is deterministic to record).
"""

AS_DTYPE = [
    # TF's names, its aliases and their reference forms.
    '"float"', '"float32"', '"double"', '"float64"', '"half"', '"float16"', '"bfloat16"',
    '"int8"', '"int16"', '"int32"', '"int64"', '"uint8"', '"uint16"', '"uint32"', '"uint64"',
    '"bool"', '"string"', '"complex64"', '"complex128"', '"qint8"', '"quint8"', '"qint16"',
    '"quint16"', '"qint32"', '"resource"', '"variant"', '"float_ref"', '"double_ref"',
    '"half_ref"', '"float32_ref"', '"int32_ref"', '"string_ref"', '"bool_ref"',
    # Names TF does not accept.
    '"Float32"', '"float128"', '"int"', '"str"', '"f4"', '"<f4"', '"i8"', '"object"', '""',
    '"tf.float32"', '"DT_FLOAT"',
    # Python types.
    'float', 'bool', 'object', 'int', 'str', 'bytes', 'complex',
    # NumPy types and dtypes.
    'np.float16', 'np.float32', 'np.float64', 'np.int8', 'np.int16', 'np.int32', 'np.int64',
    'np.uint8', 'np.uint16', 'np.uint32', 'np.uint64', 'np.bool_', 'np.complex64',
    'np.complex128', 'np.object_', 'np.str_', 'np.bytes_', 'np.intc', 'np.longlong',
    'np.dtype("float32")', 'np.dtype(">f4")', 'np.dtype("int64")', 'np.dtype("U5")',
    'np.dtype("S3")', 'np.dtype("O")', 'np.dtype("bool")', 'np.longdouble',
    'np.dtype([("qint8", np.int8)])', 'np.zeros(2, np.int16)',
    # DataType enum numbers.
    '1', '2', '3', '7', '10', '101', '119', '0', '24', '200', '-1',
    # Other values.
    'None', '[1]', '1.0',
]

API_CASES = {
    "placeholder": 'result = tf.placeholder("float", [None, 784]); run = False',
    "placeholder_int": 'result = tf.placeholder("int32", [None]); run = False',
    "placeholder_string": 'result = tf.placeholder("string"); run = False',
    "placeholder_bool": 'result = tf.placeholder("bool", []); run = False',
    "placeholder_uint8": 'result = tf.placeholder("uint8", [2, 2]); run = False',
    "placeholder_numpy": 'result = tf.placeholder(np.float64, [3]); run = False',
    "placeholder_python_float": 'result = tf.placeholder(float, [3]); run = False',
    "cast_float": 'result = tf.cast([1, 2], "float"); run = True',
    "cast_double": 'result = tf.cast([1.5, 2.5], "double"); run = True',
    "cast_int64": 'result = tf.cast([1.7, -2.7], "int64"); run = True',
    "cast_bool": 'result = tf.cast([0, 3], "bool"); run = True',
    "cast_half": 'result = tf.cast([1.25], "half"); run = True',
    "cast_complex64": 'result = tf.cast([1.0, 2.0], "complex64"); run = True',
    "zeros": 'result = tf.zeros([2], "int32"); run = True',
    "ones": 'result = tf.ones([2], dtype="double"); run = True',
    "constant": 'result = tf.constant(1, dtype="float"); run = True',
    "constant_uint8": 'result = tf.constant([250, 3], dtype="uint8"); run = True',
    "variable": (
        'v = tf.Variable([1, 2], dtype="float64")\n'
        'result = v.read_value()\nrun = True'),
    "get_variable": (
        'v = tf.get_variable("v", [2], dtype="float", initializer=tf.zeros_initializer())\n'
        'result = tf.identity(v)\nrun = True'),
    "get_variable_initializer_dtype": (
        'v = tf.get_variable("v", [2], initializer=tf.constant_initializer(2, dtype="float"))\n'
        'result = tf.identity(v)\nrun = True'),
    "get_variable_double": (
        'v = tf.get_variable("v", [3], dtype="double",\n'
        '                    initializer=tf.truncated_normal_initializer(stddev=0.1))\n'
        'result = tf.identity(v)\nrun = False'),
    "random_normal": 'result = tf.random_normal([2], dtype="float64"); run = False',
    "truncated_normal_half": 'result = tf.truncated_normal([2], dtype="half"); run = False',
    "random_uniform_double": 'result = tf.random_uniform([3], dtype="double"); run = False',
    "range": 'result = tf.range(3, dtype="float"); run = True',
    "one_hot": 'result = tf.one_hot([1, 0], 3, dtype="float"); run = True',
    "argmax": 'result = tf.argmax([1, 3, 2], output_type="int32"); run = True',
    "convert_to_tensor": 'result = tf.convert_to_tensor([1.0], dtype="float"); run = True',
    "zeros_like": 'result = tf.zeros_like([1, 2], dtype="float"); run = True',
    "ones_like": 'result = tf.ones_like([1, 2], dtype="float"); run = True',
    "sparse_placeholder": 'result = tf.sparse_placeholder("float").values; run = False',
    "shape_out_type": 'result = tf.shape(tf.zeros([2, 3]), out_type="int64"); run = True',
    "sequence_mask": 'result = tf.sequence_mask([1, 2], 3, dtype="float"); run = True',
    "tensor_array": (
        'ta = tf.TensorArray("float", size=2).write(0, 1.0).write(1, 2.0)\n'
        'result = ta.stack()\nrun = True'),
    "dense_float_input": (
        'x = tf.placeholder("float", [None, 3])\n'
        'result = tf.layers.dense(x, 2)\nrun = False'),
    "dtype_equals_name": 'result = tf.constant(tf.float32 == "float"); run = True',
    "dtype_equals_numpy": 'result = tf.constant(tf.int64 == np.int64); run = True',
    "as_dtype_ref_base": 'result = tf.constant(tf.as_dtype("float_ref").base_dtype.name); run = True',
}
