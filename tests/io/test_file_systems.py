"""Paths with a scheme, through the file-system registry, against TF 1.15 (uri_tf1.json):
`file://` paths work in every consumer as plain paths do; a scheme with no file system is
UnimplementedError("File system scheme 'foo' not implemented (file: '...')")."""

import json
import os
import sys

import pytest

import flowloom as tf
from flowloom.framework import errors
from flowloom.io import file_system

DATA = os.path.join(os.path.dirname(__file__), "..", "data")
sys.path.insert(0, DATA)
import uri_cases  # noqa: E402

RECORDED = json.load(open(os.path.join(DATA, "uri_tf1.json")))["cases"]


@pytest.fixture(scope="module")
def observed(tmp_path_factory):
    work = os.path.realpath(str(tmp_path_factory.mktemp("uri")))
    cwd = os.getcwd()
    os.chdir(work)
    try:
        out = uri_cases.observe(tf, work)
        out.update(uri_cases.observe_glob(tf, work))
        out.update(uri_cases.observe_gfile_local(tf, work))
        out.update(uri_cases.observe_list_files(tf, work))
        return out
    finally:
        os.chdir(cwd)


@pytest.mark.parametrize("case", sorted(RECORDED))
def test_consumer_as_tensorflow(observed, case):
    assert observed[case] == RECORDED[case]


@pytest.mark.parametrize("name,want", [
    ("file:///tmp/a", ("file", "", "/tmp/a")),
    ("file://localhost/tmp/a", ("file", "localhost", "/tmp/a")),
    ("gs://bucket/dir/x", ("gs", "bucket", "/dir/x")),
    ("gs://bucket", ("gs", "bucket", "")),
    ("/tmp/a", ("", "", "/tmp/a")),
    ("file:relative", ("", "", "file:relative")),   # no "://": a plain path
    ("1ab://x/y", ("", "", "1ab://x/y")),           # a scheme starts with a letter
    ("a.b3://h/p", ("a.b3", "h", "/p")),
    ("a-b://h/p", ("", "", "a-b://h/p")),
])
def test_parse_uri_as_tensorflow(name, want):
    assert file_system.parse_uri(name) == want


@pytest.mark.parametrize("scheme", ["gs", "hdfs", "s3", "ram", "FILE", "http"])
def test_schemes_without_a_file_system(tmp_path, scheme, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = f"{scheme}://bucket/dir/x"
    want = f"File system scheme '{scheme}' not implemented (file: '{path}')"
    for fn in (tf.io.gfile.makedirs, tf.io.gfile.exists, tf.gfile.MkDir, tf.io.gfile.remove):
        with pytest.raises(errors.UnimplementedError) as e:
            fn(path)
        assert e.value.message == want
    assert os.listdir(tmp_path) == []        # nothing local was made ("gs:" before)


class _CountingFileSystem(file_system.LocalFileSystem):
    """`mem://bucket/p` names served from a local directory, counting the names it was asked
    for: a consumer that bypassed the registry would find nothing under `mem://`."""

    def __init__(self, root):
        self.root, self.names = root, []

    def local_path(self, name):
        self.names.append(name)
        scheme, host, path = file_system.parse_uri(name)
        assert (scheme, host) == ("mem", "bucket"), name
        return self.root + path


def test_a_registered_scheme_serves_every_consumer(tmp_path, monkeypatch):
    """Every consumer reaches files only through the registry: a file system registered under
    a new scheme gives each of them what the local one gives for `file://` (TF 1.15's
    values), with the scheme in every path it returns."""
    work = os.path.realpath(str(tmp_path))
    counting = _CountingFileSystem(work)
    monkeypatch.setitem(file_system._registry, "mem", counting)
    monkeypatch.chdir(tmp_path)
    got = uri_cases.observe(tf, work, roots={"file": "mem://bucket"})
    want = {k: v for k, v in RECORDED.items() if k.startswith("file ")}
    text = json.dumps(got).replace("mem://bucket", "file://{abs}")
    assert json.loads(text) == want
    assert len(counting.names) > 100
