"""The TF unit-test harness's own logic: the module mapping, gen-op wrappers, the report."""

import json
import sys

import numpy as np
import pytest

import flowloom as tf
from flowloom.variables import VariableV2
from tools.tf_unittests import report
from tools.tf_unittests.shim import importer


@pytest.fixture
def shim():
    saved = {k: v for k, v in sys.modules.items() if k.split(".")[0] == "tensorflow"}
    finder = importer.install()
    yield
    sys.meta_path.remove(finder)
    for name in [k for k in sys.modules if k.split(".")[0] == "tensorflow"]:
        del sys.modules[name]
    sys.modules.update(saved)


def test_snake_names_follow_tfs_generator():
    assert importer._snake_name("MatMul") == "mat_mul"
    assert importer._snake_name("Conv2D") == "conv2d"
    assert importer._snake_name("Conv2DBackpropInput") == "conv2d_backprop_input"
    assert importer._snake_name("RefIdentity") == "ref_identity"
    assert importer._snake_name("BiasAddV1") == "bias_add_v1"


def test_paths_map_onto_flowloom(shim):
    from tensorflow.python.framework import dtypes
    from tensorflow.python.ops import array_ops, variables
    from tensorflow.python.platform import test

    assert array_ops.identity is tf.identity
    # TF 1.15's module-level Variable is the V2 class; tf.Variable is VariableV1.
    assert variables.VariableV1 is tf.Variable
    assert variables.Variable is VariableV2
    assert dtypes.float32 is tf.float32
    assert test.compute_gradient is tf.test.compute_gradient


def test_missing_names_fail_only_when_used(shim):
    from tensorflow.python.ops import array_ops  # noqa: F401
    from tensorflow.python.ops.array_ops import no_such_op_anywhere

    with pytest.raises(NotImplementedError, match="array_ops.no_such_op_anywhere"):
        no_such_op_anywhere(1)
    from tensorflow.python.eager import context

    with pytest.raises(NotImplementedError, match=r"unclaimed: eager"):
        context.eager_mode()


def test_gen_ops_build_registered_op_types(shim):
    from tensorflow.python.ops import gen_math_ops

    product = gen_math_ops.mat_mul([[1.0, 2.0]], [[3.0], [4.0]], transpose_a=False)
    assert product.op.type == "MatMul"
    with tf.Session() as sess:
        np.testing.assert_allclose(sess.run(product), [[11.0]])
    with pytest.raises(NotImplementedError):
        gen_math_ops.no_such_op_type()


def test_gen_ops_take_non_inferred_attrs_positionally(shim):
    from tensorflow.python.ops import gen_control_flow_ops  # noqa: F401 - via the shim

    with tf.Graph().as_default():
        x = tf.constant([1.0])
        entered = gen_control_flow_ops.enter(x, "frame", True)
        assert entered.op.get_attr("frame_name") == b"frame"  # TF's get_attr gives bytes
        assert entered.op.get_attr("is_constant") is True
        with pytest.raises(TypeError, match="multiple values"):
            gen_control_flow_ops.enter(x, "frame", frame_name="other")


def test_gen_ops_take_output_type_attrs_after_the_inputs(shim):
    from tensorflow.python.ops import gen_math_ops, gen_random_ops  # noqa: F401 - via the shim

    with tf.Graph().as_default():
        cast = gen_math_ops.cast(tf.constant([1.5]), tf.int32)
        assert cast.op.get_attr("DstT") == tf.int32
        uniform = gen_random_ops.random_uniform([2], tf.float64, 7)
        assert uniform.dtype == tf.float64 and uniform.op.get_attr("seed") == 7


def test_support_files_load_as_tf_wrote_them(shim, tmp_path, monkeypatch):
    helper = tmp_path / "helper_utils.py"
    helper.write_text("from tensorflow.python.ops import array_ops\n"
                      "def twice(x):\n    return array_ops.identity(x) * 2\n")
    monkeypatch.setenv("FLOWLOOM_TF_SUPPORT", json.dumps(
        {"tensorflow.python.training.helper_utils": str(helper)}))
    from tensorflow.python.training import helper_utils

    assert helper_utils.__file__ == str(helper)
    with tf.Graph().as_default(), tf.Session() as sess:
        assert sess.run(helper_utils.twice(tf.constant(3))) == 6


def test_support_entries_are_fetched_not_run():
    from tools.tf_unittests import fetch

    manifest = fetch.load_manifest()
    support = {e["path"] for e in manifest.get("support", [])}
    assert "tensorflow/python/training/saver_test_utils.py" in support
    assert not support & {e["path"] for e in manifest["files"]}
    assert support <= {e["path"] for e in fetch.all_entries(manifest)}


def test_data_files_are_fetched_by_blob_and_laid_out_as_runfiles(tmp_path, monkeypatch):
    import os

    from tools.tf_unittests import fetch

    manifest = fetch.load_manifest()
    data = {e["path"] for e in manifest.get("data", [])}
    assert "tensorflow/core/lib/png/testdata/lena_gray.png" in data
    assert data <= {e["path"] for e in fetch.all_entries(manifest)}
    # A binary data file is written as fetched, checked against its git blob id.
    payload = bytes(range(256)) * 3
    entry = {"path": "tensorflow/core/lib/x/testdata/t.bin", "blob": fetch.blob_id(payload)}
    small = {"repo": "r", "commit": "c", "files": [], "data": [entry]}
    monkeypatch.setattr(fetch, "_from_github", lambda repo, commit, path: payload)
    cache = tmp_path / "cache"
    assert fetch.fetch(small, str(cache), log=lambda msg: None) == 1
    assert (cache / entry["path"]).read_bytes() == payload
    entry["blob"] = "0" * 40
    (cache / entry["path"]).unlink()
    with pytest.raises(ValueError, match="differs from the manifest"):
        fetch.fetch(small, str(cache), log=lambda msg: None)
    # Tests read them by TF's source-tree path from the working directory, and through
    # test.test_src_dir_path under $TEST_SRCDIR.
    (cache / entry["path"]).write_bytes(payload)
    srcdir, cwd = fetch.runfiles(str(cache), str(tmp_path / "work"))
    assert open(os.path.join(cwd, entry["path"]), "rb").read() == payload
    monkeypatch.setenv("TEST_SRCDIR", srcdir)
    assert open(tf.test.test_src_dir_path("core/lib/x/testdata/t.bin"), "rb").read() == payload


def test_contrib_framework_variables_path(shim):
    from tensorflow.contrib.framework.python.ops import variables as contrib_vars

    with tf.Graph().as_default():
        assert contrib_vars.get_or_create_global_step().op.name == "global_step"


def test_patching_a_mapped_module_patches_flowloom_and_restores(shim):
    from unittest import mock

    from flowloom.ops.random import random_ops as fl_random_ops
    from tensorflow.python.ops import random_ops

    original = fl_random_ops.truncated_normal
    with mock.patch.object(random_ops, "truncated_normal", wraps=original) as patched:
        assert fl_random_ops.truncated_normal is patched
        with tf.Graph().as_default():
            tf.variance_scaling_initializer(distribution="normal")([3, 3])
        assert patched.called
    assert fl_random_ops.truncated_normal is original
    assert random_ops.truncated_normal is original


def test_summary_separates_excluded_from_failed():
    records = [
        {"event": "collected", "count": 5},
        {"test": "A.testPass", "outcome": "passed"},
        {"test": "A.testFail", "outcome": "failed", "message": "AssertionError: 3 != 4"},
        {"test": "A.testGpu", "outcome": "skipped",
         "message": "Skipped: excluded: GPU-only (run_gpu_only)"},
        {"test": "A.testEager", "outcome": "failed", "message":
         "NotImplementedError: flowloom has no tensorflow.python.eager.context.eager_mode "
         "[tf-shim unclaimed: eager execution (flowloom is graph mode only)]"},
        {"test": "A.testTorn", "outcome": "passed"},
        {"test": "A.testTorn", "outcome": "teardown_error", "message": "ValueError: x"},
    ]
    s = report.summarize({"path": "p_test.py", "group": "listed"}, records)
    assert (s["passed"], s["failed"], s["errored"], s["excluded"], s["fair"]) == (1, 1, 1, 2, 3)
    assert s["excluded_reasons"]["GPU-only (run_gpu_only)"] == 1
    assert [f["cause"] for f in s["failures"]] == ["AssertionError: N != N", "ValueError: x"]


def test_an_import_failure_counts_every_test_method_as_errored():
    source = "class T(object):\n  def testA(self):\n    pass\n  def testB(self):\n    pass\n"
    records = [{"event": "collect_error", "message": "E   ImportError: no"}]
    s = report.summarize({"path": "p_test.py"}, records,
                         static_count=report.count_test_methods(source))
    assert (s["collected"], s["errored"], s["fair"], s["rate"]) == (2, 2, 2, 0.0)
    assert s["status"].startswith("collection error")


def test_tests_without_a_result_count_as_errored():
    records = [{"event": "collected", "count": 3}, {"test": "A.testPass", "outcome": "passed"}]
    s = report.account_for_unreported(report.summarize({"path": "p_test.py"}, records))
    assert (s["passed"], s["errored"], s["fair"], s["status"]) == (1, 2, 3, "ended early")
    assert report.account_for_unreported(s)["errored"] == 2


def test_tf_1_15_config_pb2_holds_rpc_options(shim):
    from tensorflow.core.protobuf import config_pb2

    config = config_pb2.ConfigProto(rpc_options=config_pb2.RPCOptions(
        use_rpc_for_inprocess_master=True))
    assert config.rpc_options.use_rpc_for_inprocess_master


def test_slow_tests_get_the_manifests_limit(tmp_path):
    from tools.tf_unittests import run

    source = ("import time, unittest\n"
              "class T(unittest.TestCase):\n"
              "  def testSlow(self):\n    time.sleep(2.5)\n"
              "  def testHangs(self):\n    time.sleep(2.5)\n")
    (tmp_path / "p_test.py").write_text(source)
    s = run.run_file({"path": "p_test.py", "group": "listed"}, str(tmp_path), {}, 120, 1,
                     sys.executable, slow={"T.testSlow": {"seconds": 20, "reason": "sleeps"}})
    assert (s["passed"], s["failed"]) == (1, 1)
    assert [f["test"] for f in s["failures"]] == ["T.testHangs"]
    assert "past 1 s" in s["failures"][0]["message"]


def test_edits_replace_exactly_the_recorded_count():
    from tools.tf_unittests import fetch

    text = b"  return x[ix]\n  y = x[ix]\n"
    edit = {"old": "x[ix]", "new": "x[tuple(ix)]", "count": 2, "why": "NumPy 1.23"}
    assert fetch.apply_edits(text, [edit]) == b"  return x[tuple(ix)]\n  y = x[tuple(ix)]\n"
    with pytest.raises(ValueError, match="occurs 2 times, the manifest expects 1"):
        fetch.apply_edits(text, [dict(edit, count=1)])
    with pytest.raises(ValueError, match="occurs 0 times"):
        fetch.apply_edits(text, [dict(edit, old="x[iy]")])


def test_edited_copies_come_from_tfs_unchanged_text_only(tmp_path):
    from tools.tf_unittests import fetch

    source = b"def f(x, ix):\n  return x[ix]\n"
    (tmp_path / "t_test.py").write_bytes(source)
    entry = {"path": "t_test.py", "blob": fetch.blob_id(source)}
    edits = [{"old": "x[ix]", "new": "x[tuple(ix)]", "why": "NumPy 1.23"}]
    assert fetch.edited_text(entry, str(tmp_path), edits) == source.replace(
        b"x[ix]", b"x[tuple(ix)]")
    assert (tmp_path / "t_test.py").read_bytes() == source  # the cache is never edited
    (tmp_path / "t_test.py").write_bytes(source + b"# changed\n")
    with pytest.raises(ValueError, match="not the manifest's blob"):
        fetch.edited_text(entry, str(tmp_path), edits)


def test_manifest_edits_name_files_and_reasons():
    from tools.tf_unittests import fetch

    manifest = fetch.load_manifest()
    paths = {e["path"] for e in manifest["files"]}
    for path, edits in manifest["edits"].items():
        assert path in paths
        for edit in edits:
            assert edit["old"] != edit["new"] and edit["why"] and edit.get("count", 1) >= 1
    data = {"tag": "v", "repo": "r", "commit": "c" * 40, "files": [], "not_run": [],
            "totals": report.totals([]),
            "edits": {p: [e["why"] for e in v] for p, v in manifest["edits"].items()}}
    md = report.markdown(data)
    assert "## Edits of TF's test code (NumPy 2)" in md
    assert "kernel_tests/scan_ops_test.py`: NumPy 1.23 stopped taking a list of slices" in md


def test_tests_see_warnings_under_pythons_default_filters(tmp_path):
    # TF's runner leaves Python's filters as they are: a test counting the warnings of a
    # block sees a UserWarning, not a DeprecationWarning.
    from tools.tf_unittests import run

    source = ("import unittest, warnings\n"
              "class T(unittest.TestCase):\n"
              "  def testUser(self):\n"
              "    with warnings.catch_warnings(record=True) as w:\n"
              "      warnings.warn('seen')\n"
              "    self.assertEqual(1, len(w))\n"
              "  def testDeprecation(self):\n"
              "    with warnings.catch_warnings(record=True) as w:\n"
              "      warnings.warn('hidden', DeprecationWarning)\n"
              "    self.assertEqual(0, len(w))\n")
    (tmp_path / "w_test.py").write_text(source)
    s = run.run_file({"path": "w_test.py", "group": "listed"}, str(tmp_path), {}, 120, 30,
                     sys.executable)
    assert (s["passed"], s["failed"]) == (2, 0), s["failures"]
