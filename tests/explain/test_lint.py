"""flowloom lint: each rule fires on a minimal program and is silent on its fixed twin."""

import json
import subprocess
import sys
import textwrap

import pytest

import flowloom as tf
from flowloom.examples import seeds
from flowloom.explain.lint import Linter, lint_script

HEADER = "import tensorflow as tf\n"


def lint_source(tmp_path, source, name="prog.py"):
    path = tmp_path / name
    path.write_text(HEADER + textwrap.dedent(source))
    tf.reset_default_graph()
    findings, error = lint_script(str(path))
    assert error is None, error
    return findings


def codes(findings):
    return sorted(f.code for f in findings)


CASES = {
    "FL101": ("""
        x = tf.Variable(0.0)
        inc = tf.assign_add(x, 1)
        with tf.control_dependencies([inc]):
            pass
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(x)
        """, """
        x = tf.Variable(0.0)
        inc = tf.assign_add(x, 1)
        with tf.control_dependencies([inc]):
            y = tf.identity(x)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            s.run(y)
        """),
    "FL201": ("""
        x = tf.constant(1.0)
        with tf.Session() as s:
            for i in range(5):
                s.run(tf.add(x, float(i)))
        """, """
        x = tf.constant(1.0)
        i = tf.placeholder(tf.float32, [])
        y = tf.add(x, i)
        tf.get_default_graph().finalize()
        with tf.Session() as s:
            for k in range(5):
                s.run(y, {i: float(k)})
        """),
    "FL401": ("""
        with tf.name_scope("layer1"):
            w = tf.get_variable("w", [2])
            y = w * 2.0
        """, """
        with tf.variable_scope("layer1"):
            w = tf.get_variable("w", [2])
            y = w * 2.0
        """),
    "FL501": ("""
        a = tf.Variable(1.0)
        init = tf.global_variables_initializer()
        b = tf.Variable(2.0)
        with tf.Session() as s:
            s.run(init)
            s.run(a)
        """, """
        a = tf.Variable(1.0)
        b = tf.Variable(2.0)
        init = tf.global_variables_initializer()
        with tf.Session() as s:
            s.run(init)
            s.run(a + b)
        """),
    "FL503": ("""
        x = tf.constant(1.0)
        tf.summary.scalar("x", x)
        with tf.Session() as s:
            s.run(x)
        """, """
        import tempfile
        x = tf.constant(1.0)
        tf.summary.scalar("x", x)
        merged = tf.summary.merge_all()
        with tf.Session() as s:
            w = tf.summary.FileWriter(tempfile.mkdtemp())
            w.add_summary(s.run(merged), 0)
            w.close()
        """),
    "FL504": ("""
        x = tf.constant(1.0)
        merged = tf.summary.merge([tf.summary.scalar("x", x)])
        with tf.Session() as s:
            s.run(merged)
        """, """
        import tempfile
        x = tf.constant(1.0)
        merged = tf.summary.merge([tf.summary.scalar("x", x)])
        with tf.Session() as s:
            w = tf.summary.FileWriter(tempfile.mkdtemp())
            w.add_summary(s.run(merged), 0)
            w.close()
        """),
    "FL505": ("""
        import tempfile
        d = tempfile.mkdtemp()
        v = tf.Variable(1.0)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for step in range(3):
                tf.train.Saver().save(s, d + "/model", global_step=step)
        """, """
        import tempfile
        d = tempfile.mkdtemp()
        v = tf.Variable(1.0)
        saver = tf.train.Saver()
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            for step in range(3):
                saver.save(s, d + "/model", global_step=step)
        """),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_rule_fires_and_its_fix_is_clean(tmp_path, code):
    bad, good = CASES[code]
    found = lint_source(tmp_path, bad)
    assert code in codes(found), [str(f) for f in found]
    hit = next(f for f in found if f.code == code)
    assert hit.path.endswith("prog.py") and hit.line > 1 and hit.fix
    assert lint_source(tmp_path, good, "fixed.py") == []


def test_the_seed_snippet_y_equals_x(tmp_path):
    found = lint_source(tmp_path, """
        x = tf.Variable(0.0)
        x_plus_1 = tf.assign_add(x, 1)
        with tf.control_dependencies([x_plus_1]):
            y = x
        init = tf.initialize_all_variables()
        with tf.Session() as session:
            init.run()
            for i in range(5):
                print(y.eval())
        """)
    assert codes(found) == ["FL102", "FL301", "FL502"]
    rebind = next(f for f in found if f.code == "FL102")
    assert rebind.line == 5 and "tf.identity" in rebind.fix and "'y'" in rebind.message
    assert "tf.global_variables_initializer" in next(f for f in found if f.code == "FL502").fix


def test_deprecated_names(tmp_path):
    found = lint_source(tmp_path, """
        import tempfile
        x = tf.constant(1.0)
        s1 = tf.scalar_summary("x", x)
        m = tf.merge_all_summaries()
        w = tf.train.SummaryWriter(tempfile.mkdtemp())
        with tf.Session() as s:
            w.add_summary(s.run(m), 0)
        w.close()
        """)
    msgs = [f.message for f in found if f.code == "FL502"]
    assert len(msgs) == 3, msgs
    assert any("SummaryWriter" in m for m in msgs)


SEED_EXPECTED = {
    # The document's snippets call tf.initialize_all_variables, as the document does.
    "control_dependencies_without_identity": ["FL102", "FL301", "FL502"],
    "control_dependencies_with_identity": ["FL502"],
    "name_scope_names": [],
    "variable_scope_default_name": [],
    "sharing_variables": [],
    "assertion_pattern": [],
    # TF 0.x summary names, as the document has them; its merged summary is only printed.
    "conv_layer_identity_activation": ["FL502"] * 6 + ["FL504"],
    "rnn_initial_state_named": [],
    "parse_example_named_features": [],
}


@pytest.mark.parametrize("name", sorted(SEED_EXPECTED))
def test_seed_snippets_give_exactly_the_expected_findings(name, capsys):
    tf.reset_default_graph()
    linter = Linter()
    with linter.watching():
        getattr(seeds, name)()
    assert codes(linter.findings()) == SEED_EXPECTED[name], \
        [str(f) for f in linter.findings()]


def test_cli_json_and_exit_status(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(HEADER + "x = tf.Variable(0.0)\ninc = tf.assign_add(x, 1)\n"
                   "with tf.control_dependencies([inc]):\n    pass\n")
    good = tmp_path / "good.py"
    good.write_text(HEADER + "print(tf.constant(1.0))\n")
    run = [sys.executable, "-m", "flowloom.cli.main", "lint", "--format", "json"]
    out = subprocess.run(run + [str(bad)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1, out.stderr
    report = json.loads(out.stdout)
    assert [f["code"] for f in report["findings"]] == ["FL101"]
    assert report["findings"][0]["line"] == 4
    out = subprocess.run(run + [str(good)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_script_arguments_reach_the_script(tmp_path):
    prog = tmp_path / "args.py"
    prog.write_text("import sys\nassert sys.argv[1:] == ['--steps', '3'], sys.argv\n")
    out = subprocess.run([sys.executable, "-m", "flowloom.cli.main", "lint", str(prog),
                          "--steps", "3"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr


def test_ops_built_once_after_a_run_are_not_a_growing_graph(tmp_path):
    # An evaluation built after training, line by line, is not a loop that grows the graph.
    found = lint_source(tmp_path, """
        x = tf.constant([1.0, 2.0])
        with tf.Session() as s:
            s.run(x)
            s.run(tf.reduce_sum(x))
            s.run(tf.reduce_max(x))
            s.run(tf.reduce_min(x))
        """)
    assert found == []


def test_summaries_flowloom_adds_itself_are_not_reported(tmp_path):
    found = lint_source(tmp_path, """
        q = tf.train.string_input_producer(["a", "b"], shuffle=False)  # adds a summary
        x = tf.constant(1.0)
        with tf.Session() as s:
            s.run(x)
        """)
    assert found == []


def test_a_saver_built_once_after_initializing_is_fine(tmp_path):
    found = lint_source(tmp_path, """
        import tempfile
        v = tf.Variable(1.0)
        with tf.Session() as s:
            s.run(tf.global_variables_initializer())
            saver = tf.train.Saver()
            for step in range(3):
                s.run(v)
            saver.save(s, tempfile.mkdtemp() + "/m")
        """)
    assert found == []
