"""Writes CIFAR-10-format binary files (1 label byte + 3072 pixel bytes, depth-major) from data
that ships with the tools, so the CIFAR-10 programs run with nothing downloaded.

The images are scikit-learn's bundled 8x8 digits (labels 0-9) scaled up to 32x32 and tinted
per class into three channels; without scikit-learn, procedurally drawn class patterns.

    python3 -m flowloom.examples.cifar10_format /tmp/cifar10_data

writes /tmp/cifar10_data/cifar-10-batches-bin/data_batch_{1..5}.bin and test_batch.bin.
"""

import os
import sys

import numpy as np

RECORD_BYTES = 1 + 32 * 32 * 3


def _digits():
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        return None
    d = load_digits()
    return d.images.astype(np.float32) / 16.0, d.target.astype(np.int64)


def _patterns(n, rng):
    """Class k: a bar at angle k*18 degrees through a noisy 8x8 field."""
    labels = rng.integers(0, 10, n)
    yy, xx = np.mgrid[0:8, 0:8].astype(np.float32) - 3.5
    images = np.empty((n, 8, 8), np.float32)
    for i, k in enumerate(labels):
        angle = np.pi * k / 10.0
        dist = np.abs(xx * np.sin(angle) - yy * np.cos(angle))
        images[i] = np.clip(1.2 - dist / 1.5, 0, 1) + rng.normal(0, 0.1, (8, 8))
    return np.clip(images, 0, 1), labels


def cifar_records(images, labels, rng):
    """CIFAR-10 records: each 8x8 image upscaled x4, tinted per class, with pixel noise."""
    n = len(labels)
    big = np.repeat(np.repeat(images, 4, axis=1), 4, axis=2)  # n, 32, 32
    tint = np.stack([0.6 + 0.4 * np.cos(labels * 0.7 + c) for c in range(3)], axis=1)  # n, 3
    rgb = big[:, None, :, :] * tint[:, :, None, None] * 230.0  # depth-major: n, 3, 32, 32
    rgb += rng.uniform(0, 25, rgb.shape)
    pixels = np.clip(rgb, 0, 255).astype(np.uint8).reshape(n, 3072)
    out = np.empty((n, RECORD_BYTES), np.uint8)
    out[:, 0] = labels.astype(np.uint8)
    out[:, 1:] = pixels
    return out


def write_cifar10_binaries(data_dir, seed=0, test_fraction=0.2):
    """Writes data_batch_1..5.bin and test_batch.bin under data_dir/cifar-10-batches-bin.

    Returns:
      (directory, number of train records, number of test records).
    """
    rng = np.random.default_rng(seed)
    data = _digits()
    images, labels = data if data is not None else _patterns(1800, rng)
    order = rng.permutation(len(labels))
    images, labels = images[order], labels[order]
    n_test = int(len(labels) * test_fraction)
    records = cifar_records(images, labels, rng)
    out = os.path.join(data_dir, "cifar-10-batches-bin")
    os.makedirs(out, exist_ok=True)
    train = records[n_test:]
    for i, part in enumerate(np.array_split(train, 5)):
        with open(os.path.join(out, f"data_batch_{i + 1}.bin"), "wb") as f:
            f.write(part.tobytes())
    with open(os.path.join(out, "test_batch.bin"), "wb") as f:
        f.write(records[:n_test].tobytes())
    return out, len(train), n_test


if __name__ == "__main__":
    where, n_train, n_test = write_cifar10_binaries(sys.argv[1] if len(sys.argv) > 1 else
                                                    "/tmp/cifar10_data")
    print(f"wrote {n_train} train and {n_test} test records to {where}")
