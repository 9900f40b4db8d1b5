"""Feature-column cases run the same way under TF 1.15 (tests/data/record_feature_columns.py)
and flowloom (test_fc_vs_tf.py): each builds a graph from `tf` and returns its fetches.

Variables get deterministic initial values (`_init`) so that outputs compare exactly.
"""

import os

import numpy as np

STRINGS = ["", "a", "ab", "abc", "abcd", "hello world", "x" * 17, "y" * 33, "z" * 64,
           "w" * 65, "long" * 50, "\u00e9t\u00e9", "\u65e5\u672c\u8a9e", "tf", "feature_column",
           "0", "-1", "12345678901", "mixed Case 9", "\t tab"] + [f"word{i}" for i in range(40)]


def _random_strings(count=300):
    # Lengths 0..299 over ASCII, Latin-1, CJK and astral code points (4-byte UTF-8).
    rng = np.random.RandomState(1234)
    alphabet = [chr(c) for c in list(range(32, 127)) + [0xe9, 0x3b1, 0x65e5, 0x1f600]]
    return ["".join(alphabet[i] for i in rng.randint(0, len(alphabet), size=n))
            for n in range(count)]


def _init(tf):
    def initializer(shape, dtype=None, partition_info=None):
        n = int(np.prod(shape))
        values = (np.arange(n, dtype=np.float32).reshape(shape) % 7 - 3) / 10.0
        return tf.constant(values, dtype=tf.float32)
    return initializer


def case_hash_buckets(tf):
    out = {}
    for n in (1, 7, 100, 1 << 20, (1 << 62) + 11):
        out[f"b{n}"] = tf.string_to_hash_bucket_fast(tf.constant(STRINGS), n)
    out["random"] = tf.string_to_hash_bucket_fast(tf.constant(_random_strings()), 1 << 40)
    return {"out": out}


def case_vocabulary_file(tf):
    import tempfile

    fc = tf.feature_column
    path = os.path.join(tempfile.mkdtemp(), "vocab.txt")
    with open(path, "w", encoding="utf-8") as f:
        f.write("apple\nbanana\n\u00e9clair\ndate\n")
    ids_path = os.path.join(os.path.dirname(path), "ids.txt")
    with open(ids_path, "w") as f:
        f.write("10\n20\n30\n")
    a = fc.categorical_column_with_vocabulary_file("f", path, num_oov_buckets=3)
    b = fc.categorical_column_with_vocabulary_file("f", path, vocabulary_size=2,
                                                   default_value=1)
    c = fc.categorical_column_with_vocabulary_file("n", ids_path, dtype=tf.int64)
    feats = {"f": tf.constant([["banana", "kiwi"], ["\u00e9clair", "date"], ["fig", ""]]),
             "n": tf.constant([[20], [5], [10]], dtype=tf.int64)}
    return {"out": {"a": fc.input_layer(feats, [fc.indicator_column(a)]),
                    "b": fc.input_layer(feats, [fc.indicator_column(b)]),
                    "c": fc.input_layer(feats, [fc.indicator_column(c)])},
            "sizes": [a._num_buckets, b._num_buckets, c._num_buckets]}


def case_hash_column(tf):
    fc = tf.feature_column
    s = fc.categorical_column_with_hash_bucket("s", 97)
    i = fc.categorical_column_with_hash_bucket("i", 13, dtype=tf.int64)
    feats = {"s": tf.constant([STRINGS[1:21], STRINGS[21:41]]),
             "i": tf.constant([[1, -5, 123456789012], [0, 7, -1]], dtype=tf.int64)}
    return {"out": {"s": fc.input_layer(feats, [fc.indicator_column(s)]),
                    "i": fc.input_layer(feats, [fc.indicator_column(i)])}}


def case_cross(tf):
    fc = tf.feature_column
    age = fc.bucketized_column(fc.numeric_column("age"), [18., 25., 40.])
    voc = fc.categorical_column_with_vocabulary_list("c", ["r", "g", "b"], num_oov_buckets=2)
    x1 = fc.crossed_column(["s", age], 1000)
    x2 = fc.crossed_column(["s", voc, "t"], 5000, hash_key=42)
    x3 = fc.crossed_column([x1, "t"], 77)
    feats = {"age": tf.constant([[10.], [30.], [50.]]),
             "s": tf.constant([["a", "b"], ["hello", ""], ["\u65e5", "z" * 70]]),
             "c": tf.constant([["r"], ["q"], ["b"]]),
             "t": tf.SparseTensor([[0, 0], [1, 0], [1, 1], [2, 2]], ["u", "v", "w", "x"],
                                  [3, 3])}
    out = {}
    for name, col in (("x1", x1), ("x2", x2), ("x3", x3)):
        out[name] = fc.input_layer(feats, [fc.indicator_column(col)])
    cross = tf.sparse.cross_hashed([feats["t"], tf.constant([[3], [4], [5]], tf.int64)],
                                   num_buckets=0)
    out["raw_values"] = cross.values
    out["raw_indices"] = cross.indices
    strings = tf.sparse.cross([feats["s"], feats["t"]])
    out["str_values"] = strings.values
    return {"out": out, "names": [x1.name, x2.name, x3.name]}


def case_input_layer(tf):
    fc = tf.feature_column
    price = fc.numeric_column("price", shape=[2], normalizer_fn=lambda x: x * 2.0)
    age = fc.bucketized_column(fc.numeric_column("age"), [0., 10., 20.])
    color = fc.categorical_column_with_vocabulary_list("color", ["R", "G", "B"])
    idc = fc.categorical_column_with_identity("id", 5, default_value=0)
    hashed = fc.categorical_column_with_hash_bucket("kw", 11)
    weighted = fc.weighted_categorical_column(
        fc.categorical_column_with_vocabulary_list("tag", ["t1", "t2", "t3"]), "tag_w")
    color2 = fc.categorical_column_with_vocabulary_list("color2", ["b", "y", "R"])
    shared = fc.shared_embedding_columns([color2, color], 3, initializer=_init(tf))
    cols = [price, age, fc.indicator_column(color), fc.embedding_column(hashed, 4, "sqrtn",
                                                                        _init(tf)),
            fc.embedding_column(weighted, 2, "sum", _init(tf)), fc.indicator_column(weighted),
            fc.embedding_column(idc, 2, "mean", _init(tf))] + shared
    feats = {"price": tf.constant([[1., 2.], [3., 4.], [5., 6.]]),
             "age": tf.constant([-1., 15., 25.]),
             "color": tf.SparseTensor([[0, 0], [0, 1], [2, 0]], ["G", "X", "B"], [3, 2]),
             "id": tf.constant([[1, 9], [-1, -1], [4, 2]], dtype=tf.int64),
             "kw": tf.constant([["a", "b", "c"], ["", "", ""], ["d", "", "e"]]),
             "tag": tf.constant([["t1", "t3"], ["t2", "t2"], ["zz", "t1"]]),
             "tag_w": tf.constant([[0.5, 2.0], [1.0, 3.0], [4.0, 0.25]]),
             "color2": tf.constant([["y"], ["R"], ["q"]])}
    out = {"dense": fc.input_layer(feats, cols)}
    return {"out": out, "init": True}


def case_linear_model(tf):
    fc = tf.feature_column
    price = fc.numeric_column("price")
    age = fc.bucketized_column(fc.numeric_column("age"), [0., 10.])
    kw = fc.categorical_column_with_hash_bucket("kw", 5)
    cross = fc.crossed_column(["kw", age], 6)
    feats = {"price": tf.constant([[1.], [2.]]), "age": tf.constant([[5.], [50.]]),
             "kw": tf.constant([["a", "b"], ["c", ""]])}
    out = {}
    for combiner in ("sum", "mean", "sqrtn"):
        with tf.variable_scope(combiner):
            out[combiner] = fc.linear_model(feats, [price, age, kw, cross], units=2,
                                            sparse_combiner=combiner)
    assigns = [v.assign(_init(tf)(v.shape.as_list()) + 0.1) for v in tf.global_variables()]
    return {"out": out, "before": assigns}


def case_linear_model_more_columns(tf):
    fc = tf.feature_column
    tag = fc.categorical_column_with_vocabulary_list("tag", ["t1", "t2", "t3"],
                                                     num_oov_buckets=1)
    weighted = fc.weighted_categorical_column(tag, "w")
    ident = fc.categorical_column_with_identity("i", 4)
    cols = [weighted, fc.indicator_column(ident), fc.embedding_column(
        ident, 2, initializer=_init(tf), max_norm=0.3),
        fc.numeric_column("n", shape=[2], normalizer_fn=lambda x: x - 1.0)]
    feats = {"tag": tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 1]], ["t1", "zz", "t3", "t2"],
                                    [3, 2]),
             "w": tf.SparseTensor([[0, 0], [0, 1], [1, 0], [2, 1]], [0.5, 2.0, -1.0, 3.0],
                                  [3, 2]),
             "i": tf.constant([[1, 3], [0, -1], [2, 2]], dtype=tf.int64),
             "n": tf.constant([[1., 2.], [3., 4.], [5., 6.]])}
    out = {"pred": fc.linear_model(feats, cols, units=3)}
    assigns = [v.assign(_init(tf)(v.shape.as_list()) + 0.05) for v in tf.global_variables()]
    dense = fc.input_layer(feats, [fc.embedding_column(ident, 2, initializer=_init(tf),
                                                       max_norm=0.3),
                                   fc.indicator_column(weighted)])
    out["dense"] = dense
    return {"out": out, "before": assigns}


def case_parse_example(tf):
    fc = tf.feature_column
    cols = [fc.numeric_column("n", shape=[2], default_value=[1., 2.]),
            fc.embedding_column(fc.categorical_column_with_vocabulary_list(
                "v", ["a", "b", "c"], num_oov_buckets=1), 2, initializer=_init(tf)),
            fc.indicator_column(fc.categorical_column_with_identity("i", 4))]
    spec = fc.make_parse_example_spec(cols)
    examples = []
    for n, v, i in (([3., 4.], [b"a", b"zz"], [1, 3]), (None, [], [2]), ([5., 6.], [b"c"], [])):
        feature = {"v": tf.train.Feature(bytes_list=tf.train.BytesList(value=v)),
                   "i": tf.train.Feature(int64_list=tf.train.Int64List(value=i))}
        if n is not None:
            feature["n"] = tf.train.Feature(float_list=tf.train.FloatList(value=n))
        examples.append(tf.train.Example(features=tf.train.Features(feature=feature))
                        .SerializeToString())
    parsed = tf.parse_example(tf.constant(examples), spec)
    return {"out": {"dense": fc.input_layer(parsed, cols)}, "init": True,
            "spec": sorted(spec)}


def _errors(tf):
    fc = tf.feature_column
    num = fc.numeric_column("x")
    cat = fc.categorical_column_with_hash_bucket("h", 5)
    return {
        "hash_size_0": lambda: fc.categorical_column_with_hash_bucket("h", 0),
        "hash_float_dtype": lambda: fc.categorical_column_with_hash_bucket("h", 3, tf.float32),
        "vocab_empty": lambda: fc.categorical_column_with_vocabulary_list("v", []),
        "vocab_duplicate": lambda: fc.categorical_column_with_vocabulary_list("v", ["a", "a"]),
        "vocab_oov_and_default": lambda: fc.categorical_column_with_vocabulary_list(
            "v", ["a"], default_value=0, num_oov_buckets=1),
        "identity_0": lambda: fc.categorical_column_with_identity("i", 0),
        "identity_default": lambda: fc.categorical_column_with_identity("i", 3, 5),
        "numeric_string": lambda: fc.numeric_column("x", dtype=tf.string),
        "numeric_bad_shape": lambda: fc.numeric_column("x", shape=[0]),
        "numeric_bad_default": lambda: fc.numeric_column("x", shape=[2], default_value=[1.]),
        "bucketize_unsorted": lambda: fc.bucketized_column(num, [2., 1.]),
        "bucketize_not_numeric": lambda: fc.bucketized_column(cat, [1.]),
        "embedding_dim_0": lambda: fc.embedding_column(cat, 0),
        "cross_one_key": lambda: fc.crossed_column(["a"], 10),
        "cross_hashed": lambda: fc.crossed_column([cat, "b"], 10),
        "cross_size_1": lambda: fc.crossed_column(["a", "b"], 1),
        "input_layer_categorical": lambda: fc.input_layer({"h": tf.constant([["a"]])}, [cat]),
        "input_layer_duplicate": lambda: fc.input_layer({"x": tf.constant([[1.]])},
                                                        [num, fc.numeric_column("x")]),
        "numeric_sparse_input": lambda: fc.input_layer(
            {"x": tf.SparseTensor([[0, 0]], [1.], [1, 1])}, [num]),
        "hash_float_input": lambda: fc.input_layer({"h": tf.constant([[1.]])},
                                                   [fc.indicator_column(cat)]),
        "missing_feature": lambda: fc.input_layer({"y": tf.constant([[1.]])}, [num]),
        "shared_mixed_types": lambda: fc.shared_embedding_columns(
            [cat, fc.categorical_column_with_identity("i", 5)], 2),
        "parse_spec_conflict": lambda: fc.make_parse_example_spec(
            [num, fc.numeric_column("x", shape=[2])]),
    }


def record_errors(tf):
    """The exception class each bad call raises (None when it raises nothing)."""
    result = {}
    for name, call in sorted(_errors(tf).items()):
        tf.reset_default_graph()
        try:
            call()
            result[name] = None
        except Exception as e:  # noqa: BLE001 - the class is the record
            result[name] = type(e).__name__
    return result


CASES = {name[len("case_"):]: fn for name, fn in sorted(globals().items())
         if name.startswith("case_")}


def run(tf, fn):
    """The case's fetched values (a dict of arrays), its variables' names and shapes."""
    spec = fn(tf)
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        sess.run(tf.tables_initializer())
        if spec.get("before"):
            sess.run(spec["before"])
        values = sess.run(spec["out"])
    variables = {v.op.name: v.shape.as_list() for v in tf.global_variables()}
    return values, variables, {k: v for k, v in spec.items()
                               if k not in ("out", "init", "before")}
