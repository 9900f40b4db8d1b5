"""Records what TF 1.15 does with tests/data/mutable_table_program.py into
tests/data/mutable_table_ckpt/: its checkpoint (ckpt.index, ckpt.data-00000-of-00001) and
tf.json (lookup results before and after a restore, static shapes, the Saver's SaveV2 tensor
names, the checkpoint's variable-to-shape map, the table entries as saved, and the error a
value of the wrong shape gives).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_mutable_table_ckpt.py
"""

import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import mutable_table_program as program  # noqa: E402

OUT = os.path.join(HERE, "mutable_table_ckpt")


def listable(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode() for v in value.ravel()]
    return value.tolist()


def entries(reader, name):
    """The (key, value) pairs a table saved, sorted by key."""
    keys = listable(reader.get_tensor(name + "-keys"))
    values = listable(reader.get_tensor(name + "-values"))
    return sorted([k, v] for k, v in zip(keys, values))


def main():
    import tensorflow as tf

    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    prefix = os.path.join(OUT, "ckpt")
    record = {}
    with tf.Graph().as_default() as graph, tf.Session() as sess:
        ops, queries, saver = program.build(tf)
        for name in ("init", "insert_words", "remove_b", "insert_vecs"):
            sess.run(ops[name])
        try:
            sess.run(ops["bad_insert"])
        except tf.errors.InvalidArgumentError as e:
            record["bad_insert_error"] = e.message.split("\n")[0]
        record["before"] = {k: listable(v) for k, v in sess.run(queries).items()}
        record["static_shapes"] = program.static_shapes(queries)
        record["save_tensor_names"] = listable(
            sess.run(graph.get_operation_by_name("save/SaveV2").inputs[1]))
        saver.save(sess, prefix, write_meta_graph=False, write_state=False)
    reader = tf.train.NewCheckpointReader(prefix)
    record["shapes"] = {k: list(v) for k, v in reader.get_variable_to_shape_map().items()}
    record["entries"] = {"words": entries(reader, "words"), "vecs": entries(reader, "vecs")}
    with tf.Graph().as_default(), tf.Session() as sess:
        ops, queries, saver = program.build(tf)
        fresh = {k: q for k, q in queries.items() if k != "v"}
        record["fresh"] = {k: listable(v) for k, v in sess.run(fresh).items()}
        saver.restore(sess, prefix)
        record["restored"] = {k: listable(v) for k, v in sess.run(queries).items()}
    with open(os.path.join(OUT, "tf.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print(json.dumps(record, sort_keys=True))


if __name__ == "__main__":
    main()
