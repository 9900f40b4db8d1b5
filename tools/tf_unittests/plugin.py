"""pytest plugin used by run.py for one TF test file: installs the shim, applies the
manifest's exclusions, bounds each test's time, and writes one JSON line per test outcome.

Environment: FLOWLOOM_TF_RESULTS (the JSON-lines file to append to), FLOWLOOM_TF_EXCLUDE
(a JSON object {"Class.test": reason} for this file), FLOWLOOM_TF_TEST_TIMEOUT (seconds),
FLOWLOOM_TF_SLOW (a JSON object {"Class.test": {"seconds": S, "reason": ...}}: the tests of
this file whose own code waits longer than the default limit, e.g. a fixed 30 s sleep).
"""

import json
import os
import signal
import threading

import pytest

from tools.tf_unittests.shim import importer

_RESULTS = os.environ.get("FLOWLOOM_TF_RESULTS")
_EXCLUDE = json.loads(os.environ.get("FLOWLOOM_TF_EXCLUDE") or "{}")
_TIMEOUT = int(os.environ.get("FLOWLOOM_TF_TEST_TIMEOUT") or 60)
_SLOW = json.loads(os.environ.get("FLOWLOOM_TF_SLOW") or "{}")


class TestTimeout(Exception):
    """A test ran past FLOWLOOM_TF_TEST_TIMEOUT seconds."""


def test_key(nodeid):
    """'path::Class::testName[param]' -> 'Class.testName[param]'."""
    parts = nodeid.split("::")[1:]
    return ".".join(parts)


def _write(record):
    if _RESULTS:
        with open(_RESULTS, "a") as f:
            f.write(json.dumps(record) + "\n")


# NumPy 1.24 and 2.0 removed the aliases TF 1.15's tests use (np.object, np.bool, np.string_,
# np.NINF, np.NaN, ...); the test environment restores them with their NumPy 1.x values
# (flowloom itself does not use them). Changes of NumPy's semantics that no alias can undo
# are the manifest's `edits` (fetch.py applies them to the cached files).
_NUMPY_ALIASES = {"object": object, "bool": bool, "int": int, "float": float,
                  "complex": complex, "str": str, "long": int, "unicode": str,
                  "string_": "bytes_", "unicode_": "str_", "float_": "float64",
                  "complex_": "complex128", "NINF": -float("inf"), "PINF": float("inf"),
                  "NaN": float("nan"), "Inf": float("inf"), "Infinity": float("inf"),
                  "infty": float("inf")}


def pytest_configure(config):
    import numpy as np

    for name, value in _NUMPY_ALIASES.items():
        if name not in np.__dict__:
            setattr(np, name, getattr(np, value) if isinstance(value, str) else value)
    if np.lib.NumpyVersion(np.__version__) >= "2.0.0":
        # NumPy 2 writes scalars as `np.False_`, `np.float32(4.0)`; TF 1.15's tests match
        # messages written by NumPy 1.x ("False is not true"): NumPy's own legacy mode.
        np.set_printoptions(legacy="1.25")
    _numpy_reshape_newshape(np)
    if "asfarray" not in np.__dict__:
        # NumPy 2.0 removed np.asfarray (TF 1.15's tests use it): its NumPy 1.x definition.
        np.asfarray = lambda a, dtype=np.float64: np.asarray(
            a, dtype=dtype if np.issubdtype(dtype, np.inexact) else np.float64)
    _absl_id_as_in_tf_1_15()
    importer.install()
    importer.COLLECTING[0] = True


def _numpy_reshape_newshape(np):
    """NumPy 2.1 dropped np.reshape's `newshape=` keyword, which TF 1.15's tests use; the
    test environment accepts it again (flowloom itself does not use it)."""
    import inspect

    original = np.reshape
    if "newshape" in inspect.signature(original).parameters:
        return

    def reshape(a, *args, newshape=None, **kwargs):
        if newshape is not None:
            args = (newshape,) + args
        return original(a, *args, **kwargs)

    reshape.__doc__ = original.__doc__
    np.reshape = reshape


def _absl_id_as_in_tf_1_15():
    """absl-py >= 0.10 appends the parameters to TestCase.id() ("testCase0 (0)"); the absl
    that TF 1.15 ran with did not, and its tests build op names from id() (a space is not a
    valid scope name). The test environment restores the old id()."""
    try:
        from absl.testing import parameterized
    except ImportError:
        return
    import unittest

    parameterized.TestCase.id = unittest.TestCase.id


def pytest_collection_finish(session):
    importer.COLLECTING[0] = False


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config):
    # Threads a test left running (queue runners, coordinators) must not keep the process
    # alive past its results: they are written, so leave now.
    import sys

    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def pytest_collection_modifyitems(session, config, items):
    # TestCase.test_session is a helper that unittest's name rule also collects; TF's runner
    # (unittest) collects TestCase methods only, not module functions named test_* (helpers
    # such as graph_util_test's device function).
    items[:] = [item for item in items if item.name != "test_session"
                and getattr(item, "cls", None) is not None]
    for item in items:
        key = test_key(item.nodeid)
        reason = _EXCLUDE.get(key) or _EXCLUDE.get(key.split("[")[0])
        if reason:
            item.add_marker(pytest.mark.skip(reason=f"excluded: {reason}"))
    _write({"event": "collected", "count": len(items)})


def _limit(item):
    """The time limit of one test: the default, or the manifest's for a slow test."""
    key = test_key(item.nodeid)
    slow = _SLOW.get(key) or _SLOW.get(key.split("[")[0])
    return max(_TIMEOUT, int(slow["seconds"])) if slow else _TIMEOUT


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    use_alarm = threading.current_thread() is threading.main_thread()
    if use_alarm:
        limit = _limit(item)

        def _on_alarm(signum, frame):
            raise TestTimeout(f"test ran past {limit} s")

        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.alarm(limit)
    try:
        yield
    finally:
        if use_alarm:
            signal.alarm(0)
            signal.signal(signal.SIGALRM, previous)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    # Isolation between tests: a test that failed inside an InteractiveSession or a
    # `with sess.as_default()` must not make every later test's setUp fail.
    from flowloom.framework import graph as graph_lib
    from flowloom.runtime import session as session_lib

    stack = session_lib._default_session_stack.stack
    while stack:
        sess = stack.pop()
        try:
            sess.close()
        except Exception:  # noqa: BLE001 - best effort; the test already reported
            pass
    graph_lib._default_graph_stack.reset()


def _message(report):
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message
    if isinstance(report.longrepr, tuple):
        return str(report.longrepr[2])
    return str(report.longrepr)


def pytest_runtest_logreport(report):
    key = test_key(report.nodeid)
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.passed:
            _write({"test": key, "outcome": "passed"})
        elif report.skipped:
            _write({"test": key, "outcome": "skipped", "message": _message(report)})
        else:
            outcome = "failed" if report.when == "call" else "error"
            _write({"test": key, "outcome": outcome, "message": _message(report)[:2000]})
    elif report.when == "teardown" and report.failed:
        _write({"test": key, "outcome": "teardown_error", "message": _message(report)[:2000]})


def pytest_collectreport(report):
    if report.failed:
        _write({"event": "collect_error", "message": _message(report)[-3000:]})
