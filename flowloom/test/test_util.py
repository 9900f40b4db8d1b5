"""`tf.test.TestCase` (TF's `test_util.TensorFlowTestCase`) and the test helpers TF1 tests use.

A TestCase is an `absltest.TestCase` (as TF's is) that starts each test on a fresh default
graph with TF's test seeds, hands out sessions (`session`, `cached_session`, `test_session`),
evaluates tensors (`evaluate`) and compares arrays with TF's tolerances and messages.
"""

import contextlib
import math
import random
import re
import tempfile
import threading

import numpy as np
from absl.testing import absltest
from google.protobuf import message as _pb_message
from google.protobuf import text_format

from flowloom.framework import device as _device
from flowloom.framework import errors
from flowloom.framework import graph as _graph
from flowloom.framework.op_versions import set_producer_version  # noqa: F401 - TF's helper
from flowloom.framework.ops import Tensor
from flowloom.platform import tf_logging
from flowloom.ops.random.random_ops import DEFAULT_GRAPH_SEED, set_random_seed
from flowloom.proto import config_pb2
from flowloom.runtime import devices as _devices
from flowloom.runtime.session import Session, get_default_session
from flowloom.test.capture import CaptureWritesMixin

_temp_dir = None


def _object_array(items):
    out = np.empty(len(items), dtype=object)
    for i, item in enumerate(items):
        out[i] = item
    return out


def get_temp_dir():
    """Returns a temporary directory for this test process (`tf.test.get_temp_dir`)."""
    global _temp_dir
    if _temp_dir is None:
        _temp_dir = tempfile.mkdtemp(prefix="flowloom_test_")
    return _temp_dir


def _prepare_config(config, force_gpu):
    """The session config TF's tests use: the caller's, with soft placement unless force_gpu."""
    out = config_pb2.ConfigProto()
    if config is not None:
        out.CopyFrom(config)
    out.allow_soft_placement = not force_gpu
    return out


class _CheckedThread:
    """A thread whose exception fails the test when it is joined (`checkedThread`)."""

    def __init__(self, testcase, target, args=None, kwargs=None):
        self._testcase = testcase
        self._target = target
        self._args = () if args is None else args
        self._kwargs = {} if kwargs is None else kwargs
        self._thread = threading.Thread(target=self._protected_run)
        self._exception = None

    def _protected_run(self):
        try:
            self._target(*self._args, **self._kwargs)
        except Exception as e:  # noqa: BLE001 - reported to the test at join()
            self._exception = e

    def start(self):
        self._thread.start()

    def join(self):
        self._thread.join()
        if self._exception is not None:
            self._testcase.fail("Error in checkedThread: %s" % str(self._exception))

    def is_alive(self):
        return self._thread.is_alive()


class ErrorLoggingSession(Session):
    """A Session that logs the errors of its runs (TF's test sessions do), then raises them."""

    def run(self, *args, **kwargs):
        try:
            return super().run(*args, **kwargs)
        except Exception as e:
            # OutOfRangeError ends input pipelines; TF leaves it out of the log.
            if not isinstance(e, errors.OutOfRangeError):
                tf_logging.error(str(e))
            raise



def _quantized_as_base(array):
    """A quantized value (qint8, ...: a one-field structured dtype) viewed as its integers, so
    it compares with plain numbers as it did under the NumPy TF 1.x was built with."""
    names = array.dtype.names
    if names is not None and len(names) == 1:
        return array[names[0]]
    return array

class TensorFlowTestCase(CaptureWritesMixin, absltest.TestCase):
    """Base class for tests that build and run graphs (`tf.test.TestCase`).

    Example:

    ```python
    class SquareTest(tf.test.TestCase):
        def testSquare(self):
            with self.cached_session():
                x = tf.square([2, 3])
                self.assertAllEqual(x.eval(), [4, 9])
    ```
    """

    def __init__(self, methodName="runTest"):  # noqa: N803 - unittest's name
        super().__init__(methodName)
        self._threads = []
        self._tempdir = None
        self._cached_session = None
        self._cached_key = None

    def setUp(self):
        self._clear_cached_session()
        random.seed(DEFAULT_GRAPH_SEED)
        np.random.seed(DEFAULT_GRAPH_SEED)
        _graph.reset_default_graph()
        set_random_seed(DEFAULT_GRAPH_SEED)

    def tearDown(self):
        for thread in self._threads:
            if thread.is_alive():
                self.fail("A checkedThread was not joined")
        self._clear_cached_session()

    def _clear_cached_session(self):
        if self._cached_session is not None:
            self._cached_session.close()
            self._cached_session = None
            self._cached_key = None

    def get_temp_dir(self):
        """Returns a temporary directory unique to this test."""
        if not self._tempdir:
            self._tempdir = tempfile.mkdtemp(dir=get_temp_dir())
        return self._tempdir

    # -- sessions ------------------------------------------------------------------------
    def _create_session(self, graph, config, force_gpu):
        return ErrorLoggingSession(graph=graph, config=_prepare_config(config, force_gpu))

    @contextlib.contextmanager
    def _constrain_devices_and_set_default(self, sess, use_gpu, force_gpu):
        with sess.graph.as_default(), sess.as_default():
            if force_gpu:
                with sess.graph.device(gpu_device_name() or "/device:GPU:0"):
                    yield sess
            elif use_gpu:
                yield sess
            else:
                with sess.graph.device("/device:CPU:0"):
                    yield sess

    def _get_cached_session(self, graph, config, force_gpu, crash_if_inconsistent_args):
        if self._cached_session is None:
            self._cached_session = self._create_session(graph, config, force_gpu)
            self._cached_key = (graph, config, force_gpu)
            return self._cached_session
        cached_graph, cached_config, cached_force_gpu = self._cached_key
        if crash_if_inconsistent_args:
            for what, now, then in (("graph", graph, cached_graph),
                                    ("config", config, cached_config),
                                    ("force_gpu", force_gpu, cached_force_gpu)):
                if now is not then and not (what == "force_gpu" and now == then):
                    raise ValueError(
                        f"The {what} used to get the cached session is different than the one "
                        "that was used to create the session. Maybe create a new session with "
                        "self.session()")
        return self._cached_session

    @contextlib.contextmanager
    def session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """A new session, its graph the default graph, for the `with` block.

        Args:
          graph: the graph to run (the default graph when None).
          config: a `ConfigProto`; soft placement is turned on unless `force_gpu`.
          use_gpu: when False, ops are pinned to `/device:CPU:0`.
          force_gpu: pin ops to the first GPU.

        Yields:
          The `Session`.
        """
        with self._create_session(graph, config, force_gpu) as sess:
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu):
                yield sess

    @contextlib.contextmanager
    def cached_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """The session this test reuses (created on first use), as the default session.

        Raises:
          ValueError: if `graph`, `config` or `force_gpu` differ from the first call's.
        """
        sess = self._get_cached_session(graph, config, force_gpu,
                                        crash_if_inconsistent_args=True)
        with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
            yield cached

    def test_session(self, graph=None, config=None, use_gpu=False, force_gpu=False):
        """Deprecated TF1 form: the cached session when `graph` is None, else a new one.

        (unittest collects it as a test by its name; run that way it skips, as TF's does.)
        """
        if self.id().endswith(".test_session"):
            self.skipTest("Not a test.")
        return self._test_session(graph, config, use_gpu, force_gpu)

    @contextlib.contextmanager
    def _test_session(self, graph, config, use_gpu, force_gpu):
        if graph is None:
            sess = self._get_cached_session(graph, config, force_gpu,
                                            crash_if_inconsistent_args=False)
            with self._constrain_devices_and_set_default(sess, use_gpu, force_gpu) as cached:
                yield cached
        else:
            with self.session(graph, config, use_gpu, force_gpu) as sess:
                yield sess

    def evaluate(self, tensors):
        """Runs `tensors` (any nested structure) in the default session, or the cached one."""
        sess = get_default_session()
        if sess is None:
            with self.test_session() as sess:
                return sess.run(tensors)
        return sess.run(tensors)

    def checkedThread(self, target, args=None, kwargs=None):  # noqa: N802 - TF's name
        """A thread running `target`; an exception in it fails the test at `join()`."""
        thread = _CheckedThread(self, target, args, kwargs)
        self._threads.append(thread)
        return thread

    # -- comparisons -----------------------------------------------------------------
    def _GetNdArray(self, a):  # noqa: N802 - TF's name
        if isinstance(a, Tensor):
            a = self.evaluate(a)
        if not isinstance(a, np.ndarray):
            try:
                a = np.array(a)
            except ValueError:
                # A ragged nested list ([[[1]], 1, [1]]): an object array of its top-level
                # items, as the NumPy TF 1.15 ran on made it, compared item by item.
                a = _object_array(a)
        return a

    def assertNear(self, f1, f2, err, msg=None):  # noqa: N802
        """Asserts |f1 - f2| <= err."""
        self.assertTrue(f1 == f2 or math.fabs(f1 - f2) <= err,
                        "%f != %f +/- %f%s" % (f1, f2, err,
                                               " (%s)" % msg if msg is not None else ""))

    def assertArrayNear(self, farray1, farray2, err, msg=None):  # noqa: N802
        """Asserts two float lists have the same length and are elementwise within `err`."""
        self.assertEqual(len(farray1), len(farray2), msg=msg)
        for f1, f2 in zip(farray1, farray2):
            self.assertNear(float(f1), float(f2), err, msg=msg)

    def assertNDArrayNear(self, ndarray1, ndarray2, err, msg=None):  # noqa: N802
        """Asserts the L2 norm of `ndarray1 - ndarray2` is below `err`."""
        self.assertTrue(np.linalg.norm(ndarray1 - ndarray2) < err, msg=msg)

    def _assert_array_like_all_close(self, a, b, rtol, atol, msg):
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if a.shape != b.shape and (b.ndim <= 3 or b.size < 500):
            mismatch = "Shape mismatch: expected %s, got %s with contents %s." % (
                a.shape, b.shape, b)
        else:
            mismatch = "Shape mismatch: expected %s, got %s." % (a.shape, b.shape)
        self.assertEqual(a.shape, b.shape, mismatch)
        msgs = [msg]
        if not np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True):
            cond = np.logical_or(np.abs(a - b) > atol + rtol * np.abs(b),
                                 np.isnan(a) != np.isnan(b))
            if a.ndim:
                x, y = a[np.where(cond)], b[np.where(cond)]
                msgs.append("not close where = {}".format(np.where(cond)))
            else:
                x, y = a, b
            msgs.append("not close lhs = {}".format(x))
            msgs.append("not close rhs = {}".format(y))
            msgs.append("not close dif = {}".format(np.abs(x - y)))
            msgs.append("not close tol = {}".format(atol + rtol * np.abs(y)))
            msgs.append("dtype = {}, shape = {}".format(a.dtype, a.shape))
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol,
                                       err_msg="\n".join(str(m) for m in msgs), equal_nan=True)

    def _assert_all_close_recursive(self, a, b, rtol, atol, path, msg):
        path = path or []
        path_str = (("[" + "][".join(str(p) for p in path) + "]") if path else "")
        msg = msg if msg else ""
        if isinstance(a, dict) or isinstance(b, dict):
            if not (isinstance(a, dict) and isinstance(b, dict)):
                raise ValueError("Can't compare dict to non-dict, a%s: %s, b%s: %s. %s" % (
                    path_str, a, path_str, b, msg))
            self.assertItemsEqual(a.keys(), b.keys(),
                                  "mismatched keys: a%s has keys %s, but b%s has keys %s. %s"
                                  % (path_str, a.keys(), path_str, b.keys(), msg))
            for k in a:
                self._assert_all_close_recursive(a[k], b[k], rtol, atol, path + [k], msg)
        elif isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and not (
                _is_array_like(a) and _is_array_like(b)):
            self.assertEqual(len(a), len(b),
                             "Length of a%s is %d but length of b%s is %d. %s" % (
                                 path_str, len(a), path_str, len(b), msg))
            for i, (a_e, b_e) in enumerate(zip(a, b)):
                self._assert_all_close_recursive(a_e, b_e, rtol, atol, path + [i], msg)
        else:
            try:
                self._assert_array_like_all_close(
                    a, b, rtol=rtol, atol=atol,
                    msg="Mismatched value: a%s is different from b%s. %s" % (
                        path_str, path_str, msg))
            except TypeError as e:
                raise TypeError("Error: a%s has %s, but b%s has %s. %s" % (
                    path_str, type(a), path_str, type(b), msg)) from e

    def assertAllClose(self, a, b, rtol=1e-6, atol=1e-6, msg=None):  # noqa: N802
        """Asserts two structures of arrays (lists, tuples, dicts, namedtuples) are close.

        Elementwise `|a - b| <= atol + rtol * |b|`, NaNs equal to NaNs, shapes equal.

        Raises:
          AssertionError: naming the first mismatching entry and where it differs.
        """
        self._assert_all_close_recursive(a, b, rtol=rtol, atol=atol, path=None, msg=msg)

    def assertAllCloseAccordingToType(self, a, b, rtol=1e-6, atol=1e-6,  # noqa: N802
                                      float_rtol=1e-6, float_atol=1e-6, half_rtol=1e-3,
                                      half_atol=1e-3, bfloat16_rtol=1e-2, bfloat16_atol=1e-2,
                                      msg=None):
        """`assertAllClose` with tolerances widened for float32/complex64 and float16."""
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if np.float32 in (a.dtype, b.dtype) or np.complex64 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, float_rtol), max(atol, float_atol)
        if np.float16 in (a.dtype, b.dtype):
            rtol, atol = max(rtol, half_rtol), max(atol, half_atol)
        self.assertAllClose(a, b, rtol=rtol, atol=atol, msg=msg)

    def assertNotAllClose(self, a, b, **kwargs):  # noqa: N802
        """Asserts `a` and `b` differ somewhere (the negation of `assertAllClose`)."""
        try:
            self.assertAllClose(a, b, **kwargs)
        except AssertionError:
            return
        raise AssertionError("The two values are close at all elements")

    def assertAllEqual(self, a, b, msg=None):  # noqa: N802
        """Asserts two arrays (or array-likes) have the same shape and elements (NaN == NaN)."""
        msg = msg if msg else ""
        a = self._GetNdArray(a)
        b = self._GetNdArray(b)
        if b.ndim <= 3 or b.size < 500:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s."
                             " Contents: %r. \n%s." % (a.shape, b.shape, b, msg))
        else:
            self.assertEqual(a.shape, b.shape, "Shape mismatch: expected %s, got %s. %s"
                             % (a.shape, b.shape, msg))
        a, b = _quantized_as_base(a), _quantized_as_base(b)
        same = a == b
        if a.dtype in (np.float16, np.float32, np.float64):
            same = np.logical_or(same, np.logical_and(np.isnan(a), np.isnan(b)))
        if not np.all(same):
            msgs = [msg]
            diff = np.logical_not(same)
            if a.ndim:
                x, y = a[np.where(diff)], b[np.where(diff)]
                msgs.append("not equal where = {}".format(np.where(diff)))
            else:
                x, y = a, b
            msgs.append("not equal lhs = {}".format(x))
            msgs.append("not equal rhs = {}".format(y))
            np.testing.assert_array_equal(a, b, err_msg="\n".join(msgs))

    def assertNotAllEqual(self, a, b, msg=None):  # noqa: N802
        """Asserts `a` and `b` differ in at least one element."""
        try:
            self.assertAllEqual(a, b)
        except AssertionError:
            return
        raise AssertionError("The two values are equal at all elements. %s" % msg)

    def assertAllGreater(self, a, comparison_target):  # noqa: N802
        """Asserts every element of `a` is greater than `comparison_target`."""
        self.assertGreater(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLess(self, a, comparison_target):  # noqa: N802
        """Asserts every element of `a` is less than `comparison_target`."""
        self.assertLess(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllGreaterEqual(self, a, comparison_target):  # noqa: N802
        """Asserts every element of `a` is at least `comparison_target`."""
        self.assertGreaterEqual(np.min(self._GetNdArray(a)), comparison_target)

    def assertAllLessEqual(self, a, comparison_target):  # noqa: N802
        """Asserts every element of `a` is at most `comparison_target`."""
        self.assertLessEqual(np.max(self._GetNdArray(a)), comparison_target)

    def assertAllInRange(self, target, lower_bound, upper_bound,  # noqa: N802
                         open_lower_bound=False, open_upper_bound=False):
        """Asserts every element of `target` lies in the (closed by default) range."""
        target = self._GetNdArray(target)
        if not (np.issubdtype(target.dtype, np.floating)
                or np.issubdtype(target.dtype, np.integer)):
            raise AssertionError("The value of %s does not have an ordered numeric type, "
                                 "instead it has type: %s" % (target, target.dtype))
        flat = target.flatten().tolist()
        below = [v < lower_bound or (open_lower_bound and v == lower_bound) for v in flat]
        above = [v > upper_bound or (open_upper_bound and v == upper_bound) for v in flat]
        outside = [i for i, (lo, hi) in enumerate(zip(below, above)) if lo or hi]
        if outside:
            rng = "%s%s, %s%s" % ("(" if open_lower_bound else "[", lower_bound, upper_bound,
                                  ")" if open_upper_bound else "]")
            raise AssertionError("%d of the %d element(s) are outside the range %s. Subscript(s)"
                                 " and value(s) of the offending elements:\n%s" % (
                                     len(outside), len(flat), rng,
                                     "\n".join("%d: %s" % (i, flat[i]) for i in outside)))

    def assertAllInSet(self, target, expected_set):  # noqa: N802
        """Asserts every element of `target` is in `expected_set`."""
        target = self._GetNdArray(target)
        diff = np.setdiff1d(target.flatten(), list(expected_set))
        if np.size(diff):
            raise AssertionError("%d unique element(s) are not in the set %s: %s" % (
                np.size(diff), expected_set, diff))

    def assertDTypeEqual(self, target, expected_dtype):  # noqa: N802
        """Asserts the NumPy dtype of `target` (or of each array in a list) is `expected_dtype`."""
        arrays = target if isinstance(target, list) else [target]
        for arr in arrays:
            self.assertEqual(self._GetNdArray(arr).dtype, expected_dtype)

    def assertShapeEqual(self, np_array, tf_tensor, msg=None):  # noqa: N802
        """Asserts a NumPy array's shape equals a Tensor's static shape."""
        if not isinstance(np_array, (np.ndarray, np.generic)):
            raise TypeError("np_array must be a Numpy ndarray or Numpy scalar")
        if not isinstance(tf_tensor, Tensor):
            raise TypeError("tf_tensor must be a Tensor")
        self.assertAllEqual(np_array.shape, tf_tensor.get_shape().as_list(), msg=msg)

    def assertDeviceEqual(self, device1, device2, msg=None):  # noqa: N802
        """Asserts two device strings name the same device once canonicalised."""
        device1 = _device.canonical_name(device1)
        device2 = _device.canonical_name(device2)
        self.assertEqual(device1, device2,
                         "Devices %s and %s are not equal. %s" % (device1, device2, msg))

    def assertStartsWith(self, actual, expected_start, msg=None):  # noqa: N802
        """Asserts `actual` starts with `expected_start`."""
        if not actual.startswith(expected_start):
            fail_msg = "%r does not start with %r" % (actual, expected_start)
            fail_msg += " : %r" % msg if msg else ""
            self.fail(fail_msg)

    def assertProtoEquals(self, expected_message_maybe_ascii, message, msg=None):  # noqa: N802
        """Asserts a protobuf equals another, or the text-format string of one (floats equal
        to 6 decimals, doubles to 7, as TF compares them)."""
        if isinstance(expected_message_maybe_ascii, type(message)):
            expected = expected_message_maybe_ascii
        elif isinstance(expected_message_maybe_ascii, str):
            expected = type(message)()
            text_format.Merge(expected_message_maybe_ascii, expected)
        elif isinstance(expected_message_maybe_ascii, _pb_message.Message):
            raise AssertionError("Can't compare protos of different types %s and %s. %s" % (
                type(expected_message_maybe_ascii), type(message), msg))
        else:
            raise AssertionError("Can't compare protos of type %s and %s. %s" % (
                type(expected_message_maybe_ascii), type(message), msg))
        if expected != message:
            # As TF: protos that differ compare again with their floats and doubles rounded.
            from flowloom.test.test_util_protos import normalized_numbers  # noqa: PLC0415

            self.assertMultiLineEqual(text_format.MessageToString(normalized_numbers(expected)),
                                      text_format.MessageToString(normalized_numbers(message)),
                                      msg)

    def assertProtoEqualsVersion(self, expected, actual, producer=None,  # noqa: N802
                                 min_consumer=None, msg=None):
        """assertProtoEquals for a GraphDef whose text lacks its `versions` field."""
        from flowloom.framework import graph_def  # noqa: PLC0415

        producer = graph_def.GRAPH_DEF_VERSION if producer is None else producer
        if min_consumer is None:
            min_consumer = graph_def.GRAPH_DEF_VERSION_MIN_CONSUMER
        expected = "versions { producer: %d min_consumer: %d };\n%s" % (
            producer, min_consumer, expected)
        self.assertProtoEquals(expected, actual, msg=msg)

    @contextlib.contextmanager
    def assertRaisesWithPredicateMatch(self, exception_type,  # noqa: N802
                                       expected_err_re_or_predicate):
        """Asserts the block raises `exception_type` whose message matches (or predicate).

        For an `OpError`, the message searched is its message followed by the failing op's
        name, as TF builds it.
        """
        if callable(expected_err_re_or_predicate):
            predicate = expected_err_re_or_predicate
        else:
            def predicate(e):
                err_str = e.message if isinstance(e, errors.OpError) else str(e)
                op = e.op if isinstance(e, errors.OpError) else None
                if op is not None:
                    err_str += "\nCaused by: " + op.name
                tf_logging.info("Searching within error strings: '%s' within '%s'",
                                expected_err_re_or_predicate, err_str)
                return re.search(expected_err_re_or_predicate, err_str)
        try:
            yield
            self.fail(exception_type.__name__ + " not raised")
        except Exception as e:  # noqa: BLE001 - checked against the expectation below
            if not isinstance(e, exception_type) or not predicate(e):
                raise AssertionError("Exception of type %s: %s" % (str(type(e)), str(e))) from e

    def assertRaisesOpError(self, expected_err_re_or_predicate):  # noqa: N802
        """Asserts the block raises a `tf.errors.OpError` matching the regex (or predicate)."""
        return self.assertRaisesWithPredicateMatch(errors.OpError, expected_err_re_or_predicate)


def _is_array_like(x):
    """True for a list/tuple that is one array of numbers rather than a structure."""
    try:
        arr = np.asarray(x)
    except (ValueError, TypeError):
        return False
    return arr.dtype != object


def is_gpu_available(cuda_only=False, min_cuda_compute_capability=None):
    """Whether a GPU device is present (CuPy finds a CUDA device).

    Args:
      cuda_only: accepted for TF's signature (flowloom's GPUs are CUDA devices).
      min_cuda_compute_capability: a (major, minor) pair the GPU must reach, or None.
    """
    gpus = [d for d in _devices.local_devices() if d.device_type == "GPU"]
    if not gpus:
        return False
    if min_cuda_compute_capability is None:
        return True
    return any(_compute_capability(d) >= tuple(min_cuda_compute_capability)
               for d in gpus)


def _compute_capability(device):
    import cupy  # noqa: PLC0415 - present whenever a GPU device is

    cc = cupy.cuda.Device(device.cuda_id).compute_capability  # e.g. "90"
    return int(cc[:-1]), int(cc[-1])


def is_built_with_cuda():
    """Whether flowloom can use CUDA GPUs here (CuPy is installed)."""
    import importlib.util  # noqa: PLC0415

    return importlib.util.find_spec("cupy") is not None


def is_built_with_rocm():
    """flowloom has no ROCm backend: False."""
    return False


def is_built_with_gpu_support():
    """Whether any GPU backend is available (CUDA through CuPy)."""
    return is_built_with_cuda() or is_built_with_rocm()


def gpu_device_name():
    """`/device:GPU:0` if a GPU device is present, else the empty string."""
    for d in _devices.local_devices():
        if d.device_type == "GPU":
            return "/device:GPU:%d" % d.index
    return ""


def run_deprecated_v1(func=None):
    """TF's marker for graph-mode (TF1) tests: flowloom is graph mode, the test runs as is."""
    return func if func is not None else (lambda f: f)


def run_v1_only(reason, func=None):
    """TF's marker for TF1-only tests: they run as they are."""
    if not isinstance(reason, str):
        raise ValueError("'reason' should be string, got {}".format(type(reason)))
    return func if func is not None else (lambda f: f)


def run_in_graph_and_eager_modes(func=None, config=None, use_gpu=True, reset_test=True,
                                 assert_no_eager_garbage=False):
    """TF's two-mode test decorator: flowloom has only graph mode, so the graph run is made."""
    del config, use_gpu, reset_test, assert_no_eager_garbage
    return func if func is not None else (lambda f: f)


def run_all_in_graph_and_eager_modes(cls):
    """Class form of `run_in_graph_and_eager_modes`: the class, unchanged."""
    return cls


deprecated_graph_mode_only = run_deprecated_v1


def _node_summary(node):
    data = [i for i in node.input if not i.startswith("^")]
    control = sorted(i for i in node.input if i.startswith("^"))
    attrs = {k: v.SerializeToString(deterministic=True) for k, v in node.attr.items()}
    return node.op, data, control, node.device, attrs


def assert_equal_graph_def(actual, expected, checkpoint_v2=False, hash_table_shared_name=False):
    """Asserts two GraphDefs hold the same nodes (order of nodes and control inputs ignored).

    Raises:
      TypeError: if either is not a GraphDef.
      AssertionError: naming the first node that differs.
    """
    from flowloom.proto import graph_pb2  # noqa: PLC0415

    del checkpoint_v2, hash_table_shared_name
    for what, g in (("actual", actual), ("expected", expected)):
        if not isinstance(g, graph_pb2.GraphDef):
            raise TypeError("Expected tf.GraphDef for %s, got %s" % (what, type(g).__name__))
    a = {n.name: n for n in actual.node}
    e = {n.name: n for n in expected.node}
    for name in e:
        if name not in a:
            raise AssertionError("Did not find expected node '%s'" % name)
    for name in a:
        if name not in e:
            raise AssertionError("Found unexpected node '%s'" % name)
        if _node_summary(a[name]) != _node_summary(e[name]):
            raise AssertionError("Node named '%s' differs: actual\n%s\nexpected\n%s" % (
                name, text_format.MessageToString(a[name]),
                text_format.MessageToString(e[name])))


def create_local_cluster(num_workers, num_ps, protocol="grpc", worker_config=None,
                         ps_config=None):
    """TF's local cluster for tests, in this process (flowloom/distributed/inprocess.py)."""
    from flowloom.distributed import inprocess

    return inprocess.create_local_cluster(num_workers, num_ps, protocol, worker_config,
                                          ps_config)


from flowloom.test.test_util_protos import assert_meta_graph_protos_equal  # noqa: E402,F401
