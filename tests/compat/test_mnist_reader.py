"""The MNIST reader's errors (its batches are checked against TF in test_run_scripts.py)."""

import gzip
import os
import struct

import numpy as np
import pytest

from flowloom.datasets import mnist


def test_missing_files_say_which_and_where(tmp_path):
    with pytest.raises(FileNotFoundError) as info:
        mnist.read_data_sets(str(tmp_path))
    message = str(info.value)
    for name in mnist.FILES:
        assert name in message
    assert str(tmp_path) in message and "never downloads" in message


def _write(path, magic, dims, payload):
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">I", magic) + b"".join(struct.pack(">I", d) for d in dims))
        f.write(payload)


def test_bad_magic_and_truncated_files(tmp_path):
    path = tmp_path / "x.gz"
    _write(path, 2049, (2, 28, 28), b"")
    with open(path, "rb") as f, pytest.raises(ValueError, match="Invalid magic number 2049"):
        mnist.extract_images(f)
    _write(path, 2051, (2, 28, 28), b"\0" * 100)
    with open(path, "rb") as f, pytest.raises(ValueError, match="truncated"):
        mnist.extract_images(f)
    _write(path, 2051, (4_000_000_000, 28, 28), b"")
    with open(path, "rb") as f, pytest.raises(ValueError, match="more than an MNIST file"):
        mnist.extract_images(f)


def test_dataset_dtype_check_and_fake_data():
    with pytest.raises(TypeError, match="Invalid image dtype"):
        mnist.DataSet(np.zeros((1, 2, 2, 1), np.uint8), np.zeros(1), dtype="float64")
    fake = mnist.read_data_sets("unused", fake_data=True, one_hot=True)
    xs, ys = fake.train.next_batch(3, fake_data=True)
    assert len(xs) == 3 and ys[0] == [1] + [0] * 9
    assert not os.path.exists("unused")
