"""tf.data.experimental.CsvDataset against TF 1.15's results (recorded with TF 1.15.5 on the
same files: the elements read, then the error that ends the iteration, if any)."""

import pytest

import flowloom as tf

TABLE = 'a,b,c,d\n1,2.5,x,7\n3,,"q,""r",8\n\n5,1e3,z,\n'


def _read(ds):
    nxt = ds.make_one_shot_iterator().get_next()
    out = []
    with tf.Session() as sess:
        while True:
            try:
                out.append(tuple(v.item() if hasattr(v, "item") else v for v in sess.run(nxt)))
            except tf.errors.OutOfRangeError:
                return out
            except tf.errors.InvalidArgumentError as e:
                return out + [e.message.splitlines()[0]]


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text(TABLE)
    return str(path)


FIRST_TWO = [(1, 2.5, b"x", 7), (3, 0.0, b'q,"r', 8)]


@pytest.mark.parametrize("defaults,kwargs,expected", [
    ([tf.int32, 0.0, tf.string, tf.int64], {},
     FIRST_TWO + ["Field 0 is required but missing in record!"]),
    ([0, "s"], {"select_cols": [0, 2]},
     [(1, b"x"), (3, b'q,"r'), "Expect 2 fields but have 1 in record"]),
    ([tf.int32, 0.0, tf.string, [9]], {"na_value": "x"},
     ["Field 2 is required but missing in record!"]),
    ([tf.int32, 0.0, tf.string, [9]], {"use_quote_delim": False},
     [(1, 2.5, b"x", 7), 'Field 3 in record is not a valid int32: ""r"']),
    ([0], {"select_cols": [7]}, ["Expect 1 fields but have 0 in record"]),
])
def test_records_defaults_quotes_and_errors_as_tf(table, defaults, kwargs, expected):
    assert _read(tf.data.experimental.CsvDataset([table], defaults, header=True,
                                                 **kwargs)) == expected


def test_short_long_and_unparsable_records(tmp_path):
    files = {"short": "1,2\n3\n", "long": "1,2,3\n", "bad": "1,x\n"}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    path = lambda name: str(tmp_path / name)  # noqa: E731
    assert _read(tf.contrib.data.CsvDataset([path("short")], [0, 0])) == [
        (1, 2), "Expect 2 fields but have 1 in record"]
    assert _read(tf.data.experimental.CsvDataset([path("long")], [0, 0])) == [
        "Expect 2 fields but have more in record"]
    assert _read(tf.data.experimental.CsvDataset([path("long")], [0, 0],
                                                 select_cols=[0, 1])) == [(1, 2)]
    assert _read(tf.data.experimental.CsvDataset([path("bad")], [0, 0])) == [
        "Field 1 in record is not a valid int32: x"]


def test_graph_and_build_time_checks_as_tf(table):
    g = tf.Graph()
    with g.as_default():
        ds = tf.data.experimental.CsvDataset([table], [tf.int32, 0.0], header=True,
                                             select_cols=[0, 1])
        assert [(o.name, o.type) for o in g.get_operations()] == [
            ("filenames", "Const"), ("compression_type", "Const"), ("Const", "Const"),
            ("record_defaults_1", "Const"), ("buffer_size", "Const"), ("header", "Const"),
            ("field_delim", "Const"), ("use_quote_delim", "Const"), ("na_value", "Const"),
            ("select_cols", "Const"), ("CSVDataset", "CSVDataset")]
        assert ds.output_types == (tf.int32, tf.float32)
        with pytest.raises(TypeError, match="Failed to convert"):
            tf.data.experimental.CsvDataset([table], [tf.int8])
        unsorted = tf.data.experimental.CsvDataset([table], [0, 0], select_cols=[1, 0])
    with g.as_default():
        assert _read(unsorted) == ["select_cols should be strictly increasing indices"]
