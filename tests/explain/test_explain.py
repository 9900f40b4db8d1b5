"""flowloom explain: why ops ran, what was pruned and fed, and what crossed devices."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import flowloom as tf
from flowloom.explain import explain, graph_html
from flowloom.explain.report import explain_plan
from flowloom.explain.static import explain_graph_def
from flowloom.framework import observers


def _seed_graph():
    """A variable on /cpu:1 read by three ops on /cpu:0 (seed 000: one copy, not three)."""
    with tf.device("/cpu:1"):
        w = tf.Variable(tf.ones([2, 2]), name="w")
    with tf.device("/cpu:0"):
        a = tf.matmul(w, w, name="a")
        b = tf.add(w, 1.0, name="b")
        c = tf.reduce_sum(w, name="c")
        out = tf.add_n([a, b, c * tf.ones([2, 2])], name="out")
    return w, out


def _capture(sess, fetches, feed_dict=None):
    seen = []

    def on_run(session, plan, feeds, fetch_tensors, targets, seconds):
        seen.append(explain_plan(session, plan, feeds, fetch_tensors, targets, seconds))

    observers.session_run.append(on_run)
    try:
        value = sess.run(fetches, feed_dict)
    finally:
        observers.session_run.remove(on_run)
    return value, seen[-1]


def test_one_copy_per_tensor_and_destination_device():
    tf.reset_default_graph()
    w, out = _seed_graph()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(w.initializer)
        _, ex = _capture(sess, out)
    assert [(t.tensor_name, t.src[-5:], t.dst[-5:]) for t in ex.transfers] == \
        [("w/read:0", "CPU:1", "CPU:0")]
    assert ex.transfers[0].consumers == ["a", "b", "c"]
    assert ex.why["out"] == (None, "fetch", "out:0")
    assert ex.why["a"] == ("out", "data", "a:0")
    assert ex.variable_uses["w"] == [("w/read", "read", ex.ran["w/read"][1])]
    text = str(ex)
    assert "1 _Send/_Recv pair(s)" in text and "read there by a, b, c" in text


def test_pruned_stateful_op_and_control_edges():
    tf.reset_default_graph()
    x = tf.Variable(0.0, name="x")
    inc = tf.assign_add(x, 1.0, name="inc")
    with tf.control_dependencies([inc]):
        y_bad = x
        y = tf.identity(x, name="y")
    with tf.Session() as sess:
        sess.run(x.initializer)
        _, bad = _capture(sess, y_bad)
        _, good = _capture(sess, y)
    assert bad.stateful_pruned == ["inc"] and "NOT RUN: inc (AssignAdd)" in str(bad)
    assert good.why["inc"] == ("y", "control", None) and good.stateful_pruned == []
    assert ("inc", "updated", good.ran["inc"][1]) in good.variable_uses["x"]


def test_feeds_cut_their_producers():
    tf.reset_default_graph()
    a = tf.constant(2.0, name="a")
    b = tf.square(a, name="b")
    c = tf.add(b, 1.0, name="c")
    with tf.Session() as sess:
        value, ex = _capture(sess, c, {b: 10.0})
    assert value == 11.0
    assert ex.cut_by_feed == {"b:0": ["b", "a"]}
    assert ex.pruned["b"] == "its output is fed"
    assert "feed b:0 cuts 2 op(s) upstream: b, a" in str(ex)


def test_explain_from_run_metadata():
    tf.reset_default_graph()
    w, out = _seed_graph()
    opts = tf.RunOptions(trace_level=tf.RunOptions.FULL_TRACE, output_partition_graphs=True)
    md = tf.RunMetadata()
    with tf.Session(config=tf.ConfigProto(device_count={"CPU": 2})) as sess:
        sess.run(w.initializer)
        sess.run(out, options=opts, run_metadata=md)
    ex = explain(md)
    assert set(ex.ran) >= {"out", "a", "b", "c", "w/read", "w"}
    assert ex.why["out"][1] == "fetch"
    assert [(t.tensor_name, t.consumers) for t in ex.transfers] == \
        [("w/read:0", ["a", "b", "c"])]
    with pytest.raises(ValueError, match="FULL_TRACE"):
        explain(tf.RunMetadata())


def test_env_variable_prints_each_plan_once(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text("import flowloom as tf\nx = tf.constant(1.0)\ny = tf.identity(x, name='y')\n"
                    "with tf.Session() as s:\n    for _ in range(3):\n        s.run(y)\n")
    env = dict(os.environ, FLOWLOOM_EXPLAIN="1")
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr.count("Session.run: fetches ['y:0']") == 1
    assert "fetch y:0: y (Identity)" in out.stderr
    env["FLOWLOOM_EXPLAIN"] = "all"
    out = subprocess.run([sys.executable, str(prog)], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.stderr.count("Session.run: fetches ['y:0']") == 3


def _tower_graph_def():
    g = tf.Graph()
    with g.as_default():
        with tf.device("/cpu:0"):
            w = tf.get_variable("w", [4, 3], initializer=tf.ones_initializer())
        losses = []
        for i in range(2):
            with tf.device(f"/cpu:{i}"), tf.name_scope(f"tower_{i}"):
                x = tf.placeholder(tf.float32, [None, 4], name="x")
                losses.append(tf.reduce_sum(tf.matmul(x, w)))
        tf.add_n(losses, name="total")
    return g.as_graph_def()


def test_static_explain_of_a_graph_def(tmp_path):
    ex, graph = explain_graph_def(_tower_graph_def(), ["total"], ["tower_0/x", "tower_1/x"])
    pairs = sorted((t.tensor_name, t.src[-5:], t.dst[-5:]) for t in ex.transfers)
    assert pairs == [("tower_1/Sum:0", "CPU:1", "CPU:0"), ("w/read:0", "CPU:0", "CPU:1")]
    assert ex.pruned["tower_0/x"] == "its output is fed"
    assert "w/Assign" not in ex.stateful_pruned  # an initializer not running is normal
    path = tmp_path / "g.pb"
    path.write_bytes(_tower_graph_def().SerializeToString())
    out = subprocess.run([sys.executable, "-m", "flowloom.cli.main", "explain", str(path),
                          "--fetch", "total", "--feed", "tower_0/x", "--feed", "tower_1/x",
                          "--format", "json", "--html", str(tmp_path / "g.html")],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert len(report["transfers"]) == 2 and report["why"]["total"]["edge"] == "fetch"
    page = (tmp_path / "g.html").read_text()
    assert page.count('class="transfer"') == 2 and 'data-name="total"' in page


def _browser():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


@pytest.mark.skipif(_browser() is None, reason="no Chromium (apt-get install chromium)")
def test_the_drawing_in_a_real_browser(tmp_path):
    image = pytest.importorskip("PIL.Image")
    ex, graph = explain_graph_def(_tower_graph_def(), ["total"], ["tower_0/x", "tower_1/x"])
    page = tmp_path / "plan.html"
    page.write_text(graph_html.render(ex, graph))
    shot = tmp_path / "plan.png"
    subprocess.run([_browser(), "--headless", "--no-sandbox", "--disable-gpu",
                    "--disable-quic", "--no-first-run", "--disable-background-networking",
                    "--disable-component-update", "--disable-sync",
                    f"--user-data-dir={tmp_path / 'profile'}", "--window-size=2200,900",
                    f"--screenshot={shot}", page.as_uri()],
                   capture_output=True, timeout=120, check=False)
    assert shot.exists(), "Chromium wrote no screenshot"
    pixels = image.open(shot).convert("RGB")
    pixels = pixels.crop((0, 100, pixels.width, pixels.height))  # the drawing, not the legend
    colours = {c for _, c in pixels.getcolors(maxcolors=1 << 20)}

    def rgb(hex_colour):
        return tuple(int(hex_colour[i:i + 2], 16) for i in (1, 3, 5))

    assert rgb(graph_html.FETCH_BORDER) in colours      # the fetched op's border
    assert rgb(graph_html.TRANSFER_COLOUR) in colours   # the Send/Recv nodes
    assert rgb(graph_html.DEVICE_COLOURS[1]) in colours  # ops on a second device


def test_static_explain_of_a_saved_model():
    from flowloom.explain.static import load_graph_def

    saved = os.path.join(os.path.dirname(__file__), "..", "data", "saved_models", "mlp")
    ex, _ = explain_graph_def(load_graph_def(saved), ["probs"], ["x"])
    assert ex.why["probs"] == (None, "fetch", "probs:0")
    assert ex.pruned["x"] == "its output is fed"
    assert "dense/kernel" in ex.variable_uses
