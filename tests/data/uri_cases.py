"""Paths with a scheme through every consumer of the file-system layer (recorded by
record_uri.py, checked by tests/io/test_file_systems.py): `file://` paths work where plain paths
do, a path of a scheme with no file system is TF's UnimplementedError."""

import os

import numpy as np

# A scheme no TF build registers: every consumer must refuse it the same way.
UNKNOWN = "foo://bucket"


def _run(out, key, fn, workdir):
    try:
        value = fn()
        out[key] = {"value": _plain(value, workdir)}
    except Exception as e:  # class and text are what is compared
        out[key] = {"error": type(e).__name__, "message": _text(e, workdir)}


def _text(e, workdir):
    msg = getattr(e, "message", None) or str(e)
    # The op-context suffix (which node, where defined) differs by build: the text is compared.
    msg = msg.split("\n\t [[")[0].replace("[_Derived_]", "")
    return msg.replace(workdir, "{abs}")


def _plain(value, workdir):
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        return value.replace(workdir, "{abs}")
    if isinstance(value, np.ndarray):
        return _plain(value.tolist(), workdir)
    if isinstance(value, (list, tuple)):
        return [_plain(v, workdir) for v in value]
    if isinstance(value, (np.generic,)):
        return _plain(value.item(), workdir)
    return value


def _session_run(tf, build):
    with tf.Graph().as_default():
        fetches = build()
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            return sess.run(fetches)


def _dataset_values(tf, make):
    with tf.Graph().as_default():
        nxt = tf.data.make_one_shot_iterator(make()).get_next()
        out = []
        with tf.Session() as sess:
            while True:
                try:
                    out.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return out


def _reader_values(tf, reader_fn, filename, n):
    with tf.Graph().as_default():
        queue = tf.FIFOQueue(4, tf.string)
        enq = queue.enqueue_many([[filename]])
        close = queue.close()
        key, value = reader_fn().read(queue)
        with tf.Session() as sess:
            sess.run(enq)
            sess.run(close)
            return [sess.run([key, value]) for _ in range(n)]


def _saver(tf, prefix, restore=None):
    with tf.Graph().as_default():
        v = tf.Variable(3.0, name="v")
        saver = tf.train.Saver()
        with tf.Session() as sess:
            if restore:
                saver.restore(sess, restore)
                return float(sess.run(v))
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, prefix, global_step=1)


def _file_writer(tf, logdir):
    with tf.Graph().as_default():
        writer = tf.summary.FileWriter(logdir)
        writer.add_summary(tf.Summary(value=[tf.Summary.Value(tag="x", simple_value=1.0)]), 1)
        writer.close()
        return sorted(n.split(".")[0] for n in tf.gfile.ListDirectory(logdir))


def _saved_model(tf, export_dir):
    with tf.Graph().as_default():
        tf.Variable(2.0, name="w")
        builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            builder.add_meta_graph_and_variables(sess, ["serve"])
        builder.save()
    with tf.Graph().as_default():
        with tf.Session() as sess:
            tf.saved_model.loader.load(sess, ["serve"], export_dir)
            return float(sess.run("w:0"))


def observe(tf, workdir, roots=None):
    """What each consumer gives for a `file://` path and for an unknown scheme (or for the
    {label: root} of `roots`)."""
    out = {}
    for label, root in (roots or {"file": "file://" + workdir, "unknown": UNKNOWN}).items():
        def p(name, root=root):
            return root + "/" + name

        def g(key, fn):
            _run(out, f"{label} {key}", fn, workdir)

        gfile = tf.io.gfile
        g("gfile.makedirs", lambda: gfile.makedirs(p("d/e")))
        g("gfile.mkdir", lambda: gfile.mkdir(p("m")))
        g("gfile.exists", lambda: gfile.exists(p("d/e")))
        g("gfile.isdir", lambda: gfile.isdir(p("d")))
        g("gfile.write", lambda: gfile.GFile(p("d/f.txt"), "w").write("a\nbc\n"))
        g("gfile.read", lambda: tf.gfile.GFile(p("d/f.txt")).read())
        g("gfile.size", lambda: gfile.GFile(p("d/f.txt")).size())
        g("gfile.stat", lambda: gfile.stat(p("d/f.txt")).length)
        g("gfile.listdir", lambda: sorted(gfile.listdir(p("d"))))
        g("gfile.glob", lambda: gfile.glob(p("d/*.txt")))
        g("gfile.copy", lambda: gfile.copy(p("d/f.txt"), p("d/g.txt")))
        g("gfile.rename", lambda: gfile.rename(p("d/g.txt"), p("d/h.txt")))
        g("gfile.walk", lambda: [(d, sorted(s), sorted(f)) for d, s, f in gfile.walk(p("d"))])
        g("gfile.remove", lambda: gfile.remove(p("d/h.txt")))
        g("gfile.write_string", lambda: tf.gfile.GFile(p("d/w.txt"), "wb").write(b"xyz"))
        g("gfile.rmtree", lambda: gfile.rmtree(p("m")))
        g("gfile.exists_after", lambda: gfile.exists(p("m")))
        g("tf_record.write", lambda: _write_records(tf, p("d/r.tfrecord")))
        g("tf_record.iterator", lambda: list(tf.io.tf_record_iterator(p("d/r.tfrecord"))))
        g("TFRecordDataset", lambda: _dataset_values(
            tf, lambda: tf.data.TFRecordDataset([p("d/r.tfrecord")])))
        g("TextLineDataset", lambda: _dataset_values(
            tf, lambda: tf.data.TextLineDataset(p("d/f.txt"))))
        g("FixedLengthRecordDataset", lambda: _dataset_values(
            tf, lambda: tf.data.FixedLengthRecordDataset(p("d/f.txt"), 2, header_bytes=1)))
        g("list_files", lambda: sorted(_dataset_values(
            tf, lambda: tf.data.Dataset.list_files(p("d/*.txt"), shuffle=False))))
        g("matching_files", lambda: _session_run(
            tf, lambda: tf.io.matching_files(p("d/*.txt"))))
        g("read_file", lambda: _session_run(tf, lambda: tf.io.read_file(p("d/f.txt"))))
        g("write_file", lambda: _session_run(
            tf, lambda: tf.io.write_file(p("d/wf.txt"), "hello")))
        g("TFRecordReader", lambda: _reader_values(
            tf, tf.TFRecordReader, p("d/r.tfrecord"), 2))
        g("TextLineReader", lambda: _reader_values(tf, tf.TextLineReader, p("d/f.txt"), 2))
        g("FixedLengthRecordReader", lambda: _reader_values(
            tf, lambda: tf.FixedLengthRecordReader(2, header_bytes=1), p("d/f.txt"), 2))
        g("WholeFileReader", lambda: _reader_values(tf, tf.WholeFileReader, p("d/f.txt"), 1))
        g("Saver.save", lambda: _saver(tf, p("ckpt/model")))
        g("latest_checkpoint", lambda: tf.train.latest_checkpoint(p("ckpt")))
        g("Saver.restore", lambda: _saver(tf, None, restore=p("ckpt/model-1")))
        g("list_variables", lambda: tf.train.list_variables(p("ckpt")))
        g("checkpoint_exists", lambda: tf.train.checkpoint_exists(p("ckpt/model-1")))
        g("NewCheckpointReader", lambda: tf.train.NewCheckpointReader(
            p("ckpt/model-1")).get_tensor("v").tolist())
        g("write_graph", lambda: tf.train.write_graph(tf.GraphDef(), p("graphs"), "g.pbtxt"))
        g("import_meta_graph", lambda: _import_meta(tf, p("ckpt/model-1.meta")))
        g("FileWriter", lambda: _file_writer(tf, p("events")))
        g("SavedModel", lambda: _saved_model(tf, p("export")))
    return out


def _write_records(tf, path):
    with tf.io.TFRecordWriter(path) as w:
        w.write(b"one")
        w.write(b"two")
    return "ok"


def _import_meta(tf, path):
    with tf.Graph().as_default():
        saver = tf.train.import_meta_graph(path)
        return type(saver).__name__


def main_dir():
    return os.path.dirname(os.path.abspath(__file__))


GLOB_PATTERNS = ["d/*.txt", "d/*", "*/", "*/a.txt", "*/*/x.txt", "[bd]*", "[!b]*", "b.tx?",
                 "d/a.txt", "zz/*.txt", "zz", "d/", "*", ".*", "d/e/", "./*.txt", "../w/b.txt",
                 "d//a.txt", "d/e/../a.txt", "**/x.txt", "d\\*.txt", "d/e*/x.txt", "", "b.txt/*",
                 "{abs}/d/*.txt", "file://{abs}/d/[a-c].txt", "{abs}/*/e"]


def observe_glob(tf, workdir):
    """tf.io.gfile.glob (sorted: TF keeps the directory's order) and MatchingFiles of
    GLOB_PATTERNS, run in `workdir`/w holding b.txt, .hidden.txt, d/a.txt, d/e/x.txt."""
    root = os.path.join(workdir, "w")
    os.makedirs(os.path.join(root, "d", "e"))
    for name in ("b.txt", ".hidden.txt", "d/a.txt", "d/e/x.txt"):
        with open(os.path.join(root, name), "w") as f:
            f.write("x")
    cwd = os.getcwd()
    os.chdir(root)
    out = {}
    try:
        for pattern in GLOB_PATTERNS:
            pattern = pattern.replace("{abs}", root)
            key = pattern.replace(root, "{abs}")
            _run(out, f"glob {key}", lambda p=pattern: sorted(tf.io.gfile.glob(p)), root)
            _run(out, f"matching_files {key}", lambda p=pattern: _session_run(
                tf, lambda: tf.io.matching_files(p)), root)
    finally:
        os.chdir(cwd)
    return out


def observe_gfile_local(tf, workdir):
    """gfile's answers on local paths, errors included, in `workdir`/g holding d/e/ and
    d/f.txt ("abc\\ndef\\n")."""
    root = os.path.join(workdir, "g")
    os.makedirs(os.path.join(root, "d", "e"))
    with open(os.path.join(root, "d", "f.txt"), "w") as f:
        f.write("abc\ndef\n")
    g = tf.io.gfile

    def seek_tell(f):
        return [f.read(2), f.tell(), f.seek(1), f.read(2)]

    cases = {
        "read missing": lambda: g.GFile("nope.txt").read(),
        "read dir": lambda: g.GFile("d").read(),
        "write into missing dir": lambda: g.GFile("zz/f.txt", "w").write("x"),
        "mkdir existing": lambda: g.mkdir("d"),
        "mkdir existing file": lambda: tf.gfile.MkDir("d/f.txt"),
        "mkdir no parent": lambda: g.mkdir("zz/y"),
        "makedirs over file": lambda: g.makedirs("d/f.txt/x"),
        "makedirs file": lambda: g.makedirs("d/f.txt"),
        "remove missing": lambda: g.remove("nope"),
        "remove dir": lambda: g.remove("d/e"),
        "rename missing": lambda: g.rename("nope", "x"),
        "rename onto existing": lambda: g.rename("d/f.txt", "d/f.txt"),
        "copy missing": lambda: g.copy("nope", "x"),
        "copy onto existing": lambda: g.copy("d/f.txt", "d/f.txt"),
        "stat missing": lambda: g.stat("nope"),
        "stat dir": lambda: [g.stat("d").is_directory, g.stat("d").length > 0],
        "listdir file": lambda: g.listdir("d/f.txt"),
        "listdir missing": lambda: g.listdir("nope"),
        "rmtree missing": lambda: g.rmtree("nope"),
        "walk missing": lambda: list(g.walk("nope")),
        "exists empty": lambda: g.exists(""),
        "isdir empty": lambda: g.isdir(""),
        "glob empty": lambda: g.glob(""),
        "GFile bad mode": lambda: g.GFile("d/f.txt", "x").read(),
        "readline": lambda: [g.GFile("d/f.txt").readline(), g.GFile("d/f.txt").readlines()],
        "read n": lambda: g.GFile("d/f.txt").read(2),
        "iter": lambda: list(g.GFile("d/f.txt")),
        "Open write then read": lambda: [tf.gfile.Open("d/n.txt", "w").write("q"),
                                         tf.gfile.Open("d/n.txt").read()],
        "append": lambda: [g.GFile("d/n.txt", "a").write("r"), g.GFile("d/n.txt").read()],
        "size missing": lambda: g.GFile("nope3").size(),
        "write on read handle": lambda: g.GFile("d/f.txt", "r").write("x"),
        "read on write handle": lambda: g.GFile("d/w.txt", "w").read(),
        "tell/seek": lambda: seek_tell(g.GFile("d/f.txt")),
        "rename dir over nonempty": lambda: g.rename("d/e", "d", overwrite=True),
    }
    cwd = os.getcwd()
    os.chdir(root)
    out = {}
    try:
        for name, fn in cases.items():
            _run(out, f"local {name}", fn, root)
    finally:
        os.chdir(cwd)
    return out


def observe_list_files(tf, workdir):
    """Dataset.list_files matching when the iterator starts (files made after the graph),
    several patterns (all names sorted together, duplicates kept), seeded shuffles, and the
    Assert of a pattern that matches nothing (an initializable iterator: TF 1.15's one-shot
    iterator drops that control dependency and just ends)."""
    root = os.path.join(workdir, "lf")
    os.makedirs(root)
    cwd = os.getcwd()
    os.chdir(root)
    out = {}

    def values(make, initializable=False):
        with tf.Graph().as_default():
            ds = make()
            it = (tf.data.make_initializable_iterator(ds) if initializable
                  else tf.data.make_one_shot_iterator(ds))
            for name in ("a.txt", "b.txt", "c.csv"):  # made after the dataset was built
                with open(name, "w") as f:
                    f.write("x")
            nxt = it.get_next()
            got = []
            with tf.Session() as sess:
                if initializable:
                    sess.run(it.initializer)
                try:
                    while True:
                        got.append(sess.run(nxt))
                except tf.errors.OutOfRangeError:
                    return got

    try:
        cases = {
            "list_files unshuffled": lambda: values(
                lambda: tf.data.Dataset.list_files("*.txt", shuffle=False)),
            "list_files two patterns": lambda: values(
                lambda: tf.data.Dataset.list_files(["*.txt", "a*"], shuffle=False)),
            "list_files shuffled seed 3": lambda: values(
                lambda: tf.data.Dataset.list_files(["*.txt", "a*", "*.csv"], seed=3)),
            "list_files no match": lambda: values(
                lambda: tf.data.Dataset.list_files("nomatch*.q", seed=1), initializable=True),
            "matching_files two patterns": lambda: _session_run(
                tf, lambda: tf.io.matching_files(["*.csv", "*.txt", "a.*"])),
        }
        for name, fn in cases.items():
            _run(out, name, fn, root)
    finally:
        os.chdir(cwd)
    return out
