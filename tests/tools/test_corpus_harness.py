"""The corpus harness's own logic (tools/corpus): reading numbers and errors from program output,
comparing them, grouping blockers, applying manifest edits, running `before` steps. No corpus
program is run here (only two-line stand-in scripts)."""

import importlib.util
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.path.join(ROOT, "tools", "corpus")


def _load(name):
    spec = importlib.util.spec_from_file_location("corpus_" + name,
                                                  os.path.join(CORPUS, name + ".py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


compare = _load("compare")
common = _load("common")


def test_numbers_in_reads_printed_forms_and_skips_digits_inside_names():
    line = "Step 10, Minibatch Loss= 2.3740, acc=.5 lr 1e-05 x -3E+2 conv2d lab-10 nan inf"
    assert repr(compare.numbers_in(line)) == repr([10.0, 2.374, 0.5, 1e-05, -300.0,
                                                   float("nan"), float("inf")])
    assert compare.numbers_in("[[0.1 0.25]\n [3. 4.]]") == [0.1, 0.25, 3.0, 4.0]
    assert compare.numbers_in("conv2d lab-10 h1 W_2") == []


def test_final_numbers_takes_the_last_number_lines_and_honours_ignore():
    out = "start\nEpoch: 0001 cost= 2.29\nAccuracy: 0.28\nLabel: [3]\nOptimization Finished!\n\n"
    nums, text = compare.final_numbers(out, lines=2, ignore=["^Label"])
    assert nums == [1.0, 2.29, 0.28]
    assert text == "Epoch: 0001 cost= 2.29 | Accuracy: 0.28"
    assert compare.final_numbers("no numbers here\n") == ([], "")


def test_compare_numbers_tolerance_count_and_nan():
    assert compare.compare_numbers([1.0, 2.0005], [1.0, 2.0], rtol=1e-3) == "match"
    assert compare.compare_numbers([1.0, 2.1], [1.0, 2.0], rtol=1e-3) == "differ"
    assert compare.compare_numbers([1.0], [1.0, 2.0]) == "differ"
    assert compare.compare_numbers([], []) == "none"
    assert compare.compare_numbers([float("nan")], [float("nan")]) == "match"
    assert compare.compare_numbers([0.0], [float("nan")]) == "differ"
    assert compare.compare_numbers([0.0], [1e-6], rtol=0, atol=1e-5) == "match"


def test_first_error_takes_the_last_traceback_and_strips_module_paths():
    err = ("Traceback (most recent call last):\n  File \"a.py\", line 1, in <module>\n"
           "KeyError: 'x'\n\nDuring handling of the above exception, another exception "
           "occurred:\n\nTraceback (most recent call last):\n  File \"a.py\", line 3\n"
           "    foo()\ntensorflow.python.framework.errors_impl.InvalidArgumentError: "
           "Infinity in summary histogram\n")
    assert compare.first_error(err) == ("InvalidArgumentError", "Infinity in summary histogram")
    assert compare.first_error("just a warning\n") is None
    assert compare.first_error("Traceback (most recent call last):\n  x\nKeyboardInterrupt\n") \
        == ("KeyboardInterrupt", "")


def test_blocker_key_groups_missing_names_and_crashes():
    key = compare.blocker_key
    assert key("AttributeError", "module 'flowloom' has no attribute 'app'") == "missing: tf.app"
    assert key("AttributeError", "module 'flowloom.contrib' has no attribute 'rnn'") == \
        "missing: tf.contrib.rnn"
    assert key("ModuleNotFoundError", "No module named 'tensorflow.examples'") == \
        "missing module: tensorflow.examples"
    assert key("NoCounterpartError", "No module named 'tensorflow.contrib.factorization': flowloom "
               "has no counterpart") == "missing module: tensorflow.contrib.factorization"
    assert key("ImportError", "cannot import name 'rnn' from 'flowloom.contrib' (x.py)") == \
        "missing: tf.contrib.rnn"
    assert key("ValueError", "shapes (3, 784) and (10,) differ") == \
        key("ValueError", "shapes (5, 784) and (2,) differ")


def test_apply_edits_is_exact_and_fails_on_a_stale_manifest():
    src = "num_steps = 500\nfor i in xrange(10): pass\nxrange(2)\n"
    out = common.apply_edits(src, [["num_steps = 500", "num_steps = 5"], ["xrange", "range", 1]],
                             "t")
    assert out == "num_steps = 5\nfor i in range(10): pass\nxrange(2)\n"
    with pytest.raises(ValueError, match="not found"):
        common.apply_edits(src, [["num_steps = 50\n", "x"]], "t")


def test_manifest_is_well_formed():
    with open(common.MANIFEST) as f:
        doc = json.load(f)
    progs = doc["programs"]
    assert len(progs) >= 80
    assert len({p["repo"] for p in progs}) >= 7
    for p in progs:
        assert len(p["commit"]) == 40 and p["path"] and p["category"]
        assert all(len(e) in (2, 3) for e in p.get("edits", []))
        # a drift note explains a seeded program's numbers
        assert "drift_note" not in p or (p.get("seeded") and len(p["drift_note"]) > 40)


def test_report_lists_seeded_programs_that_drift_with_their_notes(monkeypatch):
    import sys

    monkeypatch.syspath_prepend(CORPUS)
    report = _load("report")
    sys.modules.pop("common", None)
    run = {"status": "ok", "numbers_text": "cost 1.5", "cpu": 1.0, "secs": 1.0}
    drift_id = "hunkim/10-7-mnist_nn_higher_level_API"  # a manifest entry with a drift_note
    results = [{"id": drift_id, "seeded": True, "numbers": "differ", "tf": run, "flowloom": run},
               {"id": "other", "seeded": True, "numbers": "match", "tf": run, "flowloom": run},
               {"id": "unexamined", "seeded": True, "numbers": "differ", "tf": run,
                "flowloom": run}]
    lines = report._drift_lines(results)
    assert len(lines) == 4 and lines[2].startswith("| " + drift_id) and "Adam" in lines[2]
    assert lines[3].startswith("| unexamined") and "not examined yet" in lines[3]
    assert report._drift_lines(results[1:2])[0].startswith("None")


def test_before_steps_run_first_in_their_folder_and_a_failure_is_the_result(tmp_path):
    import sys

    run = _load("run")
    (tmp_path / "conv").mkdir()
    (tmp_path / "read").mkdir()
    (tmp_path / "conv" / "convert.py").write_text("open('../read/data.txt', 'w').write('41')\n")
    (tmp_path / "read" / "reader.py").write_text("print(int(open('data.txt').read()) + 1)\n")
    entry = {"before": [{"path": "conv/convert.py", "args": []}]}
    res = run.run_steps([sys.executable], entry, str(tmp_path), str(tmp_path / "read" / "reader.py"),
                        str(tmp_path / "read"), 60)
    assert res["rc"] == 0 and res["stdout"].strip() == "42"
    (tmp_path / "conv" / "convert.py").write_text("raise SystemExit('no data')\n")
    res = run.run_steps([sys.executable], entry, str(tmp_path), str(tmp_path / "read" / "reader.py"),
                        str(tmp_path / "read"), 60)
    assert res["rc"] == 1 and res["stderr"].startswith("[before: conv/convert.py]")
