"""Saver.save on a full disk, and the modes of the files it writes.

A full disk is injected where the bytes go (flowloom.io.atomic_file._open_temp, the writer of
every crash-safe file) or at fsync: the save raises ResourceExhaustedError (TF's class for
ENOSPC), leaves no temporary file, and the previous checkpoint stays the latest and restores.
Files are created with the process umask (0644 under umask 022), as TF creates them.
"""

import errno
import os
import stat

import numpy as np
import pytest

import flowloom as tf
from flowloom.io import atomic_file


class _FullDisk:
    """A file object that fails with ENOSPC once `budget` bytes have been written."""

    def __init__(self, file, budget):
        self._file = file
        self._budget = budget

    def write(self, data):
        self._budget -= len(data)
        if self._budget < 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        return self._file.write(data)

    def __getattr__(self, name):
        return getattr(self._file, name)


def _leftovers(directory):
    return [os.path.join(d, f) for d, _, files in os.walk(directory) for f in files
            if f.endswith(".tmp")]


def _model():
    w = tf.Variable(np.arange(1000, dtype=np.float32), name="w")
    step = tf.Variable(0, dtype=tf.int64, name="step")
    return w, step, tf.assign_add(step, 1)


@pytest.mark.parametrize("sharded", [False, True])
@pytest.mark.parametrize("budget", [0, 100, 3000])
def test_full_disk_during_save(tmp_path, monkeypatch, sharded, budget):
    w, step, inc = _model()
    saver = tf.train.Saver(sharded=sharded)
    prefix = str(tmp_path / "model.ckpt")
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())
        first = saver.save(sess, prefix, global_step=1)
        sess.run(inc)
        real_open = atomic_file._open_temp
        monkeypatch.setattr(atomic_file, "_open_temp",
                            lambda fd: _FullDisk(real_open(fd), budget))
        with pytest.raises(tf.errors.ResourceExhaustedError):
            saver.save(sess, prefix, global_step=2)
        monkeypatch.setattr(atomic_file, "_open_temp", real_open)
        assert _leftovers(tmp_path) == []
        assert tf.train.latest_checkpoint(str(tmp_path)) == first
        saver.restore(sess, first)
        assert sess.run(step) == 0


def test_full_disk_at_fsync(tmp_path, monkeypatch):
    _model()
    saver = tf.train.Saver()
    with tf.Session() as sess:
        sess.run(tf.global_variables_initializer())

        def no_space(fd):
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(os, "fsync", no_space)
        with pytest.raises(tf.errors.ResourceExhaustedError) as info:
            saver.save(sess, str(tmp_path / "model.ckpt"))
        assert "No space left on device" in info.value.message
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_files_get_the_umask_mode(tmp_path, umask, mode):
    _model()
    saver = tf.train.Saver()
    old = os.umask(umask)
    try:
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            saver.save(sess, str(tmp_path / "model.ckpt"))
            tf.train.write_graph(sess.graph_def, str(tmp_path), "graph.pbtxt")
    finally:
        os.umask(old)
    files = sorted(f for f in os.listdir(tmp_path))
    assert {"checkpoint", "graph.pbtxt", "model.ckpt.index", "model.ckpt.meta",
            "model.ckpt.data-00000-of-00001"} <= set(files)
    for f in files:
        assert stat.S_IMODE(os.stat(tmp_path / f).st_mode) == mode, f
