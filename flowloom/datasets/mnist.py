"""MNIST as TF1's tutorials read it (`tensorflow.examples.tutorials.mnist.input_data`).

`read_data_sets(train_dir)` reads the four standard MNIST files (gzipped IDX) from
`train_dir` and splits off a validation set; `DataSet.next_batch` hands out batches in TF's
order (a NumPy shuffle per epoch, seeded from the graph seed as TF seeds it). The files are
never downloaded: without them the error says which files to put where.
"""

import collections
import gzip
import os

import numpy as np

from flowloom.framework import dtypes
from flowloom.io import file_system

TRAIN_IMAGES = "train-images-idx3-ubyte.gz"
TRAIN_LABELS = "train-labels-idx1-ubyte.gz"
TEST_IMAGES = "t10k-images-idx3-ubyte.gz"
TEST_LABELS = "t10k-labels-idx1-ubyte.gz"
FILES = (TRAIN_IMAGES, TRAIN_LABELS, TEST_IMAGES, TEST_LABELS)
DEFAULT_SOURCE_URL = None  # accepted for TF's signature; flowloom never downloads

# IDX headers hold 32-bit counts; a real MNIST file has 60,000 28x28 images at most.
_MAX_ITEMS = 10_000_000
_MAX_SIDE = 4096

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(stream):
    data = stream.read(4)
    if len(data) != 4:
        raise ValueError("MNIST file ends inside its header")
    return int(np.frombuffer(data, dtype=">u4")[0])


def _read_exactly(stream, n, name):
    data = stream.read(n)
    if len(data) != n:
        raise ValueError(f"MNIST file {name} is truncated: wanted {n} bytes, found {len(data)}")
    return data


def extract_images(f):
    """Reads a gzipped IDX image file (an open binary file) into a [n, rows, cols, 1] uint8 array.

    Raises:
      ValueError: if the magic number is not 2051 or the file is truncated.
    """
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2051:
            raise ValueError("Invalid magic number %d in MNIST image file: %s" % (magic, f.name))
        num_images, rows, cols = _read32(stream), _read32(stream), _read32(stream)
        if num_images > _MAX_ITEMS or rows > _MAX_SIDE or cols > _MAX_SIDE:
            raise ValueError(f"MNIST image file {f.name} claims {num_images} images of "
                             f"{rows}x{cols}, more than an MNIST file holds")
        buf = _read_exactly(stream, rows * cols * num_images, f.name)
    return np.frombuffer(buf, dtype=np.uint8).reshape(num_images, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    """Class labels [n] -> one-hot float64 vectors [n, num_classes]."""
    num_labels = labels_dense.shape[0]
    one_hot = np.zeros((num_labels, num_classes))
    one_hot.flat[np.arange(num_labels) * num_classes + labels_dense.ravel()] = 1
    return one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    """Reads a gzipped IDX label file into a [n] uint8 array (or [n, num_classes] one-hot).

    Raises:
      ValueError: if the magic number is not 2049 or the file is truncated.
    """
    print("Extracting", f.name)
    with gzip.GzipFile(fileobj=f) as stream:
        magic = _read32(stream)
        if magic != 2049:
            raise ValueError("Invalid magic number %d in MNIST label file: %s" % (magic, f.name))
        num_items = _read32(stream)
        if num_items > _MAX_ITEMS:
            raise ValueError(f"MNIST label file {f.name} claims {num_items} labels")
        labels = np.frombuffer(_read_exactly(stream, num_items, f.name), dtype=np.uint8)
    return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet:
    """Images and labels with TF's batching (`mnist.train.next_batch(100)`).

    Args:
      images: [n, rows, cols, 1] uint8 images.
      labels: [n] labels or [n, 10] one-hot labels.
      fake_data: hand out constant fake examples instead (TF's testing mode).
      one_hot: with fake_data, whether the fake labels are one-hot.
      dtype: `tf.float32` (pixels scaled to [0, 1]) or `tf.uint8` (pixels as stored).
      reshape: flatten each image to a [rows * cols] vector.
      seed: seeds NumPy's shuffle together with the graph seed, as TF does.
    """

    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype=dtypes.float32,
                 reshape=True, seed=None):
        from flowloom.ops.random.random_ops import get_seed  # noqa: PLC0415

        seed1, seed2 = get_seed(seed)
        # TF seeds NumPy here: with a graph seed set, the batches are reproducible.
        np.random.seed(seed1 if seed is None else seed2)
        dtype = dtypes.as_dtype(dtype).base_dtype
        if dtype not in (dtypes.uint8, dtypes.float32):
            raise TypeError("Invalid image dtype %r, expected uint8 or float32" % dtype)
        if fake_data:
            self._num_examples = 10000
            self.one_hot = one_hot
        else:
            if images.shape[0] != labels.shape[0]:
                raise ValueError("images.shape: %s labels.shape: %s" % (images.shape,
                                                                         labels.shape))
            self._num_examples = images.shape[0]
            if reshape:
                if images.shape[3] != 1:
                    raise ValueError("reshape needs single-channel images, got shape %s"
                                     % (images.shape,))
                images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
            if dtype == dtypes.float32:
                images = np.multiply(images.astype(np.float32), 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        """Returns the next `batch_size` (images, labels), reshuffling at each new epoch."""
        if fake_data:
            fake_image = [1] * 784
            fake_label = [1] + [0] * 9 if self.one_hot else 0
            return ([fake_image for _ in range(batch_size)],
                    [fake_label for _ in range(batch_size)])
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            perm0 = np.arange(self._num_examples)
            np.random.shuffle(perm0)
            self._images = self.images[perm0]
            self._labels = self.labels[perm0]
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest = self._num_examples - start
            images_rest = self._images[start:self._num_examples]
            labels_rest = self._labels[start:self._num_examples]
            if shuffle:
                perm = np.arange(self._num_examples)
                np.random.shuffle(perm)
                self._images = self.images[perm]
                self._labels = self.labels[perm]
            self._index_in_epoch = batch_size - rest
            end = self._index_in_epoch
            return (np.concatenate((images_rest, self._images[0:end]), axis=0),
                    np.concatenate((labels_rest, self._labels[0:end]), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


def _missing_files_error(train_dir, missing):
    return FileNotFoundError(
        f"MNIST files not found in {os.path.abspath(train_dir)!r}: missing "
        f"{', '.join(missing)}. Put the four standard MNIST files ({', '.join(FILES)}, as "
        "a TF1 'MNIST_data' folder holds them) into that folder. flowloom never downloads.")


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=dtypes.float32,
                   reshape=True, validation_size=5000, seed=None,
                   source_url=DEFAULT_SOURCE_URL):
    """Reads MNIST from `train_dir` into `Datasets(train, validation, test)`.

    Args:
      train_dir: the folder holding train-images-idx3-ubyte.gz, train-labels-idx1-ubyte.gz,
        t10k-images-idx3-ubyte.gz and t10k-labels-idx1-ubyte.gz.
      fake_data: constant fake data sets instead (no files read).
      one_hot: labels as one-hot [n, 10] float vectors instead of class numbers.
      dtype: `tf.float32` (pixels in [0, 1]) or `tf.uint8`.
      reshape: images as [n, 784] instead of [n, 28, 28, 1].
      validation_size: how many of the first training examples form the validation set.
      seed: the shuffle seed (with the graph seed, as TF's).
      source_url: accepted for TF's signature; nothing is downloaded.

    Raises:
      FileNotFoundError: if a file is missing, naming the files and the folder.
      ValueError: if validation_size is out of range or a file is not MNIST's format.
    """
    del source_url
    if fake_data:
        def fake():
            return DataSet([], [], fake_data=True, one_hot=one_hot, dtype=dtype, seed=seed)
        return Datasets(train=fake(), validation=fake(), test=fake())
    missing = [f for f in FILES if not file_system.isfile(os.path.join(train_dir, f))]
    if missing:
        raise _missing_files_error(train_dir, missing)

    def read(name, extract, **kwargs):
        with file_system.open_file(os.path.join(train_dir, name), "rb") as f:
            return extract(f, **kwargs)

    train_images = read(TRAIN_IMAGES, extract_images)
    train_labels = read(TRAIN_LABELS, extract_labels, one_hot=one_hot)
    test_images = read(TEST_IMAGES, extract_images)
    test_labels = read(TEST_LABELS, extract_labels, one_hot=one_hot)
    if not 0 <= validation_size <= len(train_images):
        raise ValueError("Validation size should be between 0 and {}. Received: {}.".format(
            len(train_images), validation_size))
    validation_images = train_images[:validation_size]
    validation_labels = train_labels[:validation_size]
    train_images = train_images[validation_size:]
    train_labels = train_labels[validation_size:]
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    train = DataSet(train_images, train_labels, **options)
    validation = DataSet(validation_images, validation_labels, **options)
    test = DataSet(test_images, test_labels, **options)
    return Datasets(train=train, validation=validation, test=test)


def load_mnist(train_dir="MNIST-data"):
    """`read_data_sets(train_dir)`."""
    return read_data_sets(train_dir)
