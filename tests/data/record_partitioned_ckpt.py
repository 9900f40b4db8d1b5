"""Records TF 1.15's checkpoints of partitioned variables (tests/data/partitioned_ckpt_program.py)
into tests/data/partitioned_ckpt/:

  plain/ckpt.*     Saver().save of the program (one bundle)
  sharded/ckpt.*   Saver(sharded=True).save with the parts of model/emb on two CPU devices
                   (two bundles merged by MergeV2Checkpoints: slices of one tensor in both)
  tf.json          what TF's graph and reader say: the SaveV2 op's tensor_names and
                   shape_and_slices, the reader's variable-to-shape map and full values; and
                   the partitions TF's partitioners choose (PARTITIONER_CASES) with the part
                   names and slice specs get_variable makes

    FLOWLOOM_TF1_PYTHON=/path/to/tf1.15/python
    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_partitioned_ckpt.py

With `--restore PREFIX` it instead restores the checkpoint PREFIX (written by flowloom) into
the program's graph with TF 1.15 and prints the variables' full values as JSON (the test
tests/train/test_partitioned_checkpoint.py runs this when FLOWLOOM_TF1_PYTHON is set).
"""

import json
import os
import shutil
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import partitioned_ckpt_program as program  # noqa: E402

OUT = os.path.join(HERE, "partitioned_ckpt")


def _tf():
    import tensorflow.compat.v1 as tf

    return tf


def _listable(value):
    value = np.asarray(value)
    if value.dtype == object:
        return [v.decode() for v in value.ravel()]
    return value.ravel().tolist()


def record_plain(tf):
    target = os.path.join(OUT, "plain")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    graph = tf.Graph()
    with graph.as_default(), tf.Session(graph=graph) as sess:
        program.build(tf)
        saver = tf.train.Saver()
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(target, "ckpt"), write_meta_graph=False,
                   write_state=False)
        save_op = graph.get_operation_by_name("save/SaveV2")
        names = sess.run(save_op.inputs[1])
        specs = sess.run(save_op.inputs[2])
        inputs = [t.name for t in save_op.inputs[3:]]
    reader = tf.train.NewCheckpointReader(os.path.join(target, "ckpt"))
    return {"tensor_names": [n.decode() for n in names],
            "shape_and_slices": [s.decode() for s in specs], "save_inputs": inputs,
            "shape_map": {k: list(v) for k, v in reader.get_variable_to_shape_map().items()},
            "full_values": {k: _listable(reader.get_tensor(k))
                            for k, dtype in reader.get_variable_to_dtype_map().items()
                            # TF 1.15's reader cannot get strings; big is checked by shape
                            if dtype != tf.string and k != "model/big"}}


def _two_devices(op):
    return "/cpu:1" if "model/emb/part_1" in op.name or "model/emb/part_2" in op.name \
        else "/cpu:0"


def record_sharded(tf):
    target = os.path.join(OUT, "sharded")
    shutil.rmtree(target, ignore_errors=True)
    os.makedirs(target)
    graph = tf.Graph()
    config = tf.ConfigProto(device_count={"CPU": 2})
    with graph.as_default(), tf.Session(graph=graph, config=config) as sess:
        with tf.device(_two_devices):
            program.build(tf)
        saver = tf.train.Saver(sharded=True)
        sess.run(tf.global_variables_initializer())
        saver.save(sess, os.path.join(target, "ckpt"), write_meta_graph=False,
                   write_state=False)
    return sorted(os.listdir(target))


# (partitioner, its arguments, variable shape, dtype)
PARTITIONER_CASES = [
    ("fixed_size_partitioner", [3], [10, 4], "float32"),
    ("fixed_size_partitioner", [5, 1], [4, 3], "float32"),
    ("fixed_size_partitioner", [16], [7], "int64"),
    ("variable_axis_size_partitioner", [64], [40, 3], "float32"),
    ("variable_axis_size_partitioner", [100, 1, 16, 2], [5, 30], "float64"),
    ("variable_axis_size_partitioner", [1000], [4, 9], "string"),
    ("min_max_variable_partitioner", [8, 0, 64], [100, 2], "float32"),
    ("min_max_variable_partitioner", [3, 1, 16], [2, 50], "int32"),
    ("min_max_variable_partitioner", [50, 0, 1 << 10], [7, 3], "float32"),
]


def record_partitioners(tf):
    out = []
    for i, (fn, args, shape, dtype) in enumerate(PARTITIONER_CASES):
        graph = tf.Graph()
        with graph.as_default():
            partitioner = getattr(tf, fn)(*args)
            dtype_ = tf.as_dtype(dtype)
            parts = partitioner(shape=tf.TensorShape(shape), dtype=dtype_)
            var = tf.get_variable("v%d" % i, shape=shape, dtype=dtype_, partitioner=partitioner)
            pieces = list(var) if type(var).__name__ == "PartitionedVariable" else [var]
            out.append({"partitions": list(parts), "names": [v.name for v in pieces],
                        "specs": [v._save_slice_info.spec if v._save_slice_info else ""
                                  for v in pieces]})
    return out


def restore(tf, prefix, parts):
    graph = tf.Graph()
    with graph.as_default(), tf.Session(graph=graph) as sess:
        variables = program.build(tf, parts)
        tf.train.Saver().restore(sess, prefix)
        values = {name: _listable(sess.run(tf.convert_to_tensor(var)))
                  for name, var in variables.items()}
    print(json.dumps(values))


def main():
    tf = _tf()
    if sys.argv[1:2] == ["--restore"]:
        parts = json.loads(sys.argv[3]) if len(sys.argv) > 3 else None
        restore(tf, sys.argv[2], parts)
        return
    result = {"tf_version": tf.VERSION, "plain": record_plain(tf),
              "partitioners": record_partitioners(tf),
              "sharded_files": record_sharded(tf)}
    with open(os.path.join(OUT, "tf.json"), "w") as f:
        json.dump(result, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
