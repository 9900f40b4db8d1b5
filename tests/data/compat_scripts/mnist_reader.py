"""input_data.read_data_sets on small MNIST-format files: shapes, dtypes, batches, epochs."""
import gzip
import os
import shutil
import struct
import sys
import tempfile

import numpy as np
import tensorflow as tf
from tensorflow.examples.tutorials.mnist import input_data


def write_idx(path, magic, dims, data):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims))
        f.write(data.astype(np.uint8).tobytes())


folder = tempfile.mkdtemp()
rng = np.random.RandomState(0)
for prefix, n in (("train", 30), ("t10k", 7)):
    write_idx(os.path.join(folder, prefix + "-images-idx3-ubyte.gz"), 2051, (n, 28, 28),
              rng.randint(0, 256, size=(n, 28, 28)))
    write_idx(os.path.join(folder, prefix + "-labels-idx1-ubyte.gz"), 2049, (n,),
              rng.randint(0, 10, size=n))
os.chdir(folder)
tf.set_random_seed(1234)
mnist = input_data.read_data_sets(".", one_hot=True, validation_size=5)
for name in ("train", "validation", "test"):
    ds = getattr(mnist, name)
    print(name, ds.num_examples, ds.images.shape, ds.images.dtype, ds.labels.shape,
          ds.labels.dtype, round(float(ds.images.astype(np.float64).sum()), 3))
for _ in range(6):
    xs, ys = mnist.train.next_batch(11)
    print("batch", xs.shape, round(float(xs.astype(np.float64).sum()), 3), ys.argmax(1).tolist(),
          mnist.train.epochs_completed)
xs, ys = mnist.test.next_batch(4, shuffle=False)
print("unshuffled", ys.argmax(1).tolist())
raw = input_data.read_data_sets(".", dtype=tf.uint8, reshape=False, validation_size=0)
print("raw", raw.train.images.shape, raw.train.images.dtype, raw.train.labels[:5].tolist(),
      int(raw.train.images.max()))
try:
    input_data.read_data_sets(".", validation_size=31)
except ValueError as e:
    print("ValueError", e)
os.chdir(os.path.dirname(folder))
shutil.rmtree(folder)
sys.stdout.flush()
