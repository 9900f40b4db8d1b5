"""Writes a GraphDef holding tf.data pipelines with TensorFlow 1.15, and the values TF fetches
from it, for flowloom to import and run (tests/input_data/test_dataset_graphdef.py).

  $FLOWLOOM_TF1_PYTHON tests/data/record_dataset_graphdef.py
      -> tests/data/dataset_graphdef_tf1.pb, tests/data/dataset_graphdef_tf1.json
"""

import json
import os

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with tf.Graph().as_default() as g:
        k = tf.constant(3, tf.int64, name="k")
        ds = tf.data.Dataset.range(4).flat_map(
            lambda x: tf.data.Dataset.range(x).map(lambda y: y * k + x))
        ds = ds.filter(lambda v: tf.equal(v % 2, 0)).interleave(
            lambda v: tf.data.Dataset.from_tensors(v).repeat(2), cycle_length=2).batch(2)
        it = ds.make_initializable_iterator()
        tf.identity(it.get_next(), name="output")
        one_shot = tf.data.Dataset.from_tensor_slices(([1.0, 2.0, 3.0], [4, 5, 6])).map(
            lambda a, b: a * tf.cast(b, tf.float32)).make_one_shot_iterator()
        tf.identity(one_shot.get_next(), name="output2")
        with open(os.path.join(HERE, "dataset_graphdef_tf1.pb"), "wb") as f:
            f.write(g.as_graph_def().SerializeToString())
        with tf.Session() as sess:
            sess.run(it.initializer)
            batches = [sess.run("output:0").tolist() for _ in range(2)]
            products = [float(sess.run("output2:0")) for _ in range(3)]
            for name in ("output:0", "output2:0"):
                try:
                    sess.run(name)
                except tf.errors.OutOfRangeError:
                    pass
                else:
                    raise AssertionError(name + " did not end")
    record = {"initializer": it.initializer.name, "output": batches, "output2": products,
              "tf_version": tf.__version__}
    with open(os.path.join(HERE, "dataset_graphdef_tf1.json"), "w") as f:
        json.dump(record, f, indent=1)
    print(record)


if __name__ == "__main__":
    main()
