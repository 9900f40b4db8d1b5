"""tf.gfile / tf.io.gfile on the local file system, with TF's error classes."""

import pytest

import flowloom as tf
from flowloom.framework import errors


def test_files_and_directories(tmp_path):
    gfile = tf.gfile
    root = str(tmp_path / "a")
    gfile.MakeDirs(root + "/b/c")
    gfile.MakeDirs(root + "/b/c")  # existing is fine
    gfile.MkDir(root + "/b")  # existing is fine too (TF 1.15; tests/data/uri_tf1.json)
    with pytest.raises(errors.NotFoundError):
        gfile.MkDir(root + "/x/y")
    with gfile.GFile(root + "/b/f.txt", "w") as f:
        f.write("line1\nline2\n")
    with gfile.GFile(root + "/b/f.txt", "rb") as f:
        assert f.read() == b"line1\nline2\n"
        assert f.size() == 12
    with gfile.Open(root + "/b/f.txt") as f:
        assert list(f) == ["line1\n", "line2\n"]
    with pytest.raises(errors.NotFoundError):
        gfile.GFile(root + "/nope").read()
    assert gfile.Exists(root + "/b/f.txt") and gfile.IsDirectory(root + "/b")
    assert sorted(gfile.ListDirectory(root + "/b")) == ["c", "f.txt"]
    assert gfile.Glob(root + "/b/*.txt") == [root + "/b/f.txt"]
    gfile.Copy(root + "/b/f.txt", root + "/g.txt")
    with pytest.raises(errors.AlreadyExistsError):
        gfile.Copy(root + "/b/f.txt", root + "/g.txt")
    gfile.Rename(root + "/g.txt", root + "/h.txt")
    assert gfile.Stat(root + "/h.txt").length == 12 and not gfile.Stat(root).length is None
    assert [d for d, _, _ in gfile.Walk(root)] == [root, root + "/b", root + "/b/c"]
    gfile.Remove(root + "/h.txt")
    with pytest.raises(errors.NotFoundError):
        gfile.Remove(root + "/h.txt")
    with pytest.raises(errors.NotFoundError):
        gfile.ListDirectory(root + "/h")
    gfile.DeleteRecursively(root)
    assert not tf.io.gfile.exists(root)
    assert tf.io.gfile.GFile is gfile.GFile
