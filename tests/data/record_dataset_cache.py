"""Writes a Dataset.cache(filename) file with TensorFlow 1.15, for flowloom to read back.

  $FLOWLOOM_TF1_PYTHON tests/data/record_dataset_cache.py   -> tests/data/dataset_cache_tf/
"""

import os
import shutil

import tensorflow as tf

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "dataset_cache_tf")


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    os.makedirs(OUT)
    ds = tf.data.Dataset.range(4).map(
        lambda x: (x * 7, tf.fill([2], tf.cast(x, tf.float32) / 2), tf.as_string(x)))
    ds = ds.cache(os.path.join(OUT, "cache"))
    nxt = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        try:
            while True:
                sess.run(nxt)
        except tf.errors.OutOfRangeError:
            pass
    print(sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
