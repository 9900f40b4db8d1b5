"""Records TF 1.15's V1 checkpoint of tests/data/v1_ckpt_program.py into tests/data/v1_ckpt/:
the checkpoint file `ckpt` (one table file) and tf.json (the path Saver.save returned, the
reader's variable-to-shape map and debug string, its values (the error it gives for a sliced
tensor), the restored values, and the error for a missing tensor).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_v1_ckpt.py
"""

import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import v1_ckpt_program as program  # noqa: E402

OUT = os.path.join(HERE, "v1_ckpt")


def listable(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.hex() for v in value.ravel()]
    if value.dtype.kind == "c":
        return [[v.real, v.imag] for v in value.ravel().tolist()]
    return value.tolist()


def main():
    import tensorflow.compat.v1 as tf

    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    prefix = os.path.join(OUT, "ckpt")
    record = {}
    with tf.Graph().as_default(), tf.Session() as sess:
        _, saver = program.build(tf)
        sess.run(tf.global_variables_initializer())
        record["saved_path"] = os.path.basename(
            saver.save(sess, prefix, write_meta_graph=False, write_state=False))
    record["files"] = sorted(os.listdir(OUT))
    reader = tf.train.NewCheckpointReader(prefix)
    record["shapes"] = {k: list(v) for k, v in reader.get_variable_to_shape_map().items()}
    record["dtypes"] = {k: v.name for k, v in reader.get_variable_to_dtype_map().items()}
    record["debug_string"] = reader.debug_string().decode()
    record["values"], record["get_errors"] = {}, {}
    for k in record["shapes"]:
        try:
            record["values"][k] = listable(reader.get_tensor(k))
        except tf.errors.OpError as e:
            record["get_errors"][k] = [type(e).__name__, str(e)]
    try:
        reader.get_tensor("nope")
    except tf.errors.NotFoundError as e:
        record["missing_error"] = str(e)
    zeros = {k: np.array([b"?"] * v.size, object).reshape(v.shape) if v.dtype == object
             else np.zeros_like(v) for k, v in program.VALUES.items()}
    with tf.Graph().as_default(), tf.Session() as sess:
        variables, saver = program.build(tf, zeros)
        saver.restore(sess, prefix)
        record["restored"] = {k: listable(sess.run(v)) for k, v in variables.items()
                              if k != "part"}
        record["restored"]["part"] = listable(sess.run(variables["part"].as_tensor()))
    with open(os.path.join(OUT, "tf.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print(json.dumps(record, sort_keys=True)[:3000])


if __name__ == "__main__":
    main()
