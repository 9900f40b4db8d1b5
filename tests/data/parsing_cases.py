"""Example-parsing and decoding programs that run unchanged on TensorFlow and flowloom.

Each `case_*(tf)` builds ops in the default graph and returns (fetches, feed_dict), where
fetches is a dict of tensors (or SparseTensors). `record_parsing.py` runs them on TF 2.21
(compat.v1) and stores values, tensor names and error messages in parsing_tf.npz /
parsing_tf.json; tests/ops/test_parsing.py runs them on flowloom and compares.
"""

import os

import numpy as np

TFRECORD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples_tf.tfrecord.gz")


def _example(tf, **features):
    """A serialized Example; values: list of float/int/bytes, or None for an empty Feature."""
    feature = {}
    for key, values in features.items():
        if values is None:
            feature[key] = tf.train.Feature()
        elif isinstance(values[0], float):
            feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=values))
        elif isinstance(values[0], int):
            feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=values))
        else:
            feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=values))
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _config(tf):
    return {
        "a": tf.FixedLenFeature([2], tf.float32, default_value=[0.5, -0.5]),
        "b": tf.FixedLenFeature([], tf.int64),
        "s": tf.FixedLenFeature([], tf.string, default_value="none"),
        "m": tf.FixedLenFeature([2, 2], tf.int64, default_value=[[1, 2], [3, 4]]),
        "v": tf.VarLenFeature(tf.int64),
        "w": tf.VarLenFeature(tf.string),
        "f": tf.VarLenFeature(tf.float32),
        "q": tf.FixedLenSequenceFeature([2], tf.float32, allow_missing=True,
                                        default_value=-1.0),
        "r": tf.FixedLenSequenceFeature([], tf.string, allow_missing=True),
    }


def _batch(tf):
    full = _example(tf, a=[1.0, 2.0], b=[7], s=[b"hi"], m=[5, 6, 7, 8], v=[1, -2, 2**40],
                    w=[b"x", b"", b"zz"], f=[0.25], q=[1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
                    r=[b"p", b"q"])
    partial = _example(tf, b=[-1], q=[9.0, 8.0], extra=[b"ignored"])
    empties = _example(tf, a=None, b=[3], v=None, q=None, r=None)
    # Two Examples concatenated parse as one; for a repeated key the last value wins.
    merged = _example(tf, b=[1], v=[10]) + _example(tf, b=[2], w=[b"second"])
    return [full, partial, empties, merged]


def case_seed_parse_example(tf):
    """The seed document's snippet (000_*.txt), with its `,/` typos fixed for Python 3."""
    serialized_tf_example = tf.placeholder(tf.string, name='tf_example')
    feature_configs = {'image': tf.FixedLenFeature(shape=[256], dtype=tf.float32),
                       'text': tf.FixedLenFeature(shape=[128], dtype=tf.string),
                       'label': tf.FixedLenFeature(shape=[128], dtype=tf.string), }
    tf_example = tf.parse_example(serialized_tf_example, feature_configs)
    image = tf.identity(tf_example['image'], name='image')
    text = tf.identity(tf_example['text'], name='text')
    label = tf.identity(tf_example['text'], name='label')
    rng = np.random.RandomState(5)
    examples = [_example(tf, image=[float(x) for x in rng.uniform(size=256)],
                         text=[b"t%d_%d" % (k, i) for i in range(128)],
                         label=[b"l%d" % i for i in range(128)]) for k in range(2)]
    return {"image": image, "text": text, "label": label}, {serialized_tf_example: examples}


def case_batch(tf):
    serialized = tf.placeholder(tf.string, [None], name="serialized")
    return tf.parse_example(serialized, _config(tf)), {serialized: _batch(tf)}


def case_batch_unknown_rank(tf):
    serialized = tf.placeholder(tf.string)
    return tf.parse_example(serialized, _config(tf), name="parse"), \
        {serialized: _batch(tf)[:2]}


def case_empty_batch(tf):
    serialized = tf.placeholder(tf.string, [None])
    config = {"v": tf.VarLenFeature(tf.float32),
              "q": tf.FixedLenSequenceFeature([3], tf.int64, allow_missing=True),
              "a": tf.FixedLenFeature([2], tf.float32, default_value=[1.0, 2.0])}
    return tf.parse_example(serialized, config), {serialized: np.zeros([0], object)}


def _single(index):
    def case(tf):
        serialized = tf.placeholder(tf.string, [])
        return tf.parse_single_example(serialized, _config(tf)), \
            {serialized: _batch(tf)[index]}
    case.__name__ = f"case_single_{index}"
    return case


case_single_0, case_single_1, case_single_2, case_single_3 = (_single(i) for i in range(4))


def case_io_parse_single_example_constant(tf):
    parsed = tf.io.parse_single_example(
        _example(tf, b=[4], v=[3, 1]),
        {"b": tf.io.FixedLenFeature([], tf.int64), "v": tf.io.VarLenFeature(tf.int64)})
    return parsed, {}


def _error(**examples_kwargs):
    def case(tf):
        serialized = tf.placeholder(tf.string, [None])
        example = _example(tf, **examples_kwargs) if "raw" not in examples_kwargs \
            else examples_kwargs["raw"]
        good = _example(tf, b=[1])
        return tf.parse_example(serialized, _config(tf)), {serialized: [good, example]}
    return case


case_error_wrong_type = _error(b=[1.5])
case_error_wrong_count = _error(b=[1, 2])
case_error_missing_required = _error(a=[1.0, 2.0])
case_error_sequence_stride = _error(b=[1], q=[1.0, 2.0, 3.0])
case_error_sparse_type = _error(b=[1], v=[1.0])
case_error_sparse_string_type = _error(b=[1], w=[5])
case_error_matrix_count = _error(b=[1], m=[1, 2, 3])


def case_error_named_example(tf):
    serialized = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(serialized, _config(tf), example_names=["first", "second"])
    return parsed, {serialized: [_example(tf, b=[1]), _example(tf, b=[b"str"])]}


def case_tfrecord_file_written_by_tf(tf):
    """A GZIP TFRecord file of Examples written by TF (record_parsing.py), read and parsed."""
    options = tf.python_io.TFRecordOptions(tf.python_io.TFRecordCompressionType.GZIP)
    records = list(tf.python_io.tf_record_iterator(TFRECORD, options))
    serialized = tf.placeholder(tf.string, [None])
    return tf.io.parse_example(serialized, _config(tf)), {serialized: records}


def case_varlen_to_dense(tf):
    serialized = tf.placeholder(tf.string, [None])
    parsed = tf.parse_example(serialized, _config(tf))
    return {"v": tf.sparse_tensor_to_dense(parsed["v"]),
            "w": tf.sparse.to_dense(parsed["w"], default_value="?", name="words"),
            "f": tf.sparse.to_dense(parsed["f"], default_value=-1.0)}, \
        {serialized: _batch(tf)}


def case_sparse_to_dense_error_order(tf):
    sp = tf.SparseTensor([[1, 0], [0, 1]], [1.0, 2.0], [2, 4])
    return {"d": tf.sparse_tensor_to_dense(sp)}, {}


def case_sparse_to_dense_error_bounds(tf):
    sp = tf.SparseTensor([[0, 1], [2, 1]], [1, 2], [2, 4])
    return {"d": tf.sparse.to_dense(sp, validate_indices=False)}, {}


def case_decode_raw(tf):
    data = tf.constant([b"\x01\x00\x02\x00\xff\xff", b"\x00\x01\x00\x02\x80\x00"])
    return {"le": tf.decode_raw(data, tf.int16),
            "be": tf.decode_raw(data, tf.int16, little_endian=False),
            "u8": tf.decode_raw(data, tf.uint8),
            "f32": tf.decode_raw(tf.constant([[b"\x00\x00\x80\x3f"], [b"\x00\x00\x00\xc0"]]),
                                 tf.float32),
            "f64": tf.io.decode_raw(tf.constant(b"\x00" * 7 + b"\x40"), tf.float64)}, {}


def case_decode_raw_error_sizes(tf):
    return {"x": tf.decode_raw(tf.constant([b"\x01\x00", b"\x01"]), tf.uint8)}, {}


def case_decode_raw_error_multiple(tf):
    return {"x": tf.decode_raw(tf.constant([b"\x01\x00\x03"]), tf.int16)}, {}


def case_decode_csv(tf):
    records = tf.constant(['1,"a,""b""",2.5,7', ',x,,', '-3,"",1e3,NA', '  4 ,y,-inf,9'])
    cols = tf.decode_csv(records, [[0], ["dflt"], [1.5], tf.constant([-1], tf.int64)],
                         na_value="NA")
    return {f"c{i}": c for i, c in enumerate(cols)}, {}


def case_decode_csv_select_and_delim(tf):
    records = tf.constant([["a|1|x|2.0"], ["b|2|y|"]])
    cols = tf.decode_csv(records, [[""], [0.0]], field_delim="|", select_cols=[0, 3])
    return {"c0": cols[0], "c1": cols[1]}, {}


def _csv_error(record, defaults):
    def case(tf):
        cols = tf.decode_csv(tf.constant([record]), defaults(tf))
        return {f"c{i}": c for i, c in enumerate(cols)}, {}
    return case


case_csv_error_count = _csv_error("1,2", lambda tf: [[0], [0], [0]])
case_csv_error_required = _csv_error("1,,3", lambda tf: [[0], tf.constant([], tf.int32), [0]])
case_csv_error_int = _csv_error("1,x", lambda tf: [[0], [0]])
case_csv_error_float = _csv_error("1.5.2", lambda tf: [[0.0]])
case_csv_error_quote = _csv_error('"ab"c,1', lambda tf: [[""], [0]])
case_csv_error_unquoted = _csv_error('a"b,1', lambda tf: [[""], [0]])

CASES = sorted((name, fn) for name, fn in globals().items() if name.startswith("case_"))
