"""tf.test.TestCase in-process: sessions, evaluate, comparisons (TF's verdicts on the same
checks are in tests/data/compat_scripts/test_case.py, compared in test_run_scripts.py)."""

import numpy as np

import flowloom as tf


class TestCaseBehaviour(tf.test.TestCase):

    def testCachedSessionRefusesAnotherGraph(self):
        with self.cached_session():
            pass
        with self.assertRaisesRegex(ValueError, "graph used to get the cached session"):
            with self.cached_session(graph=tf.Graph()):
                pass

    def testSessionPinsToCpuAndSetsDefaults(self):
        with self.session() as sess:
            x = tf.constant(1.0)
            self.assertIs(tf.get_default_session(), sess)
            self.assertEqual(x.device, "/device:CPU:0")
            self.assertTrue(sess._config.allow_soft_placement)

    def testEvaluateWithoutSession(self):
        self.assertAllEqual(self.evaluate(tf.constant([1, 2]) + 1), [2, 3])

    def testAssertAllCloseMessages(self):
        with self.assertRaisesRegex(AssertionError, "not close where"):
            self.assertAllClose(np.array([1.0, 2.0]), np.array([1.0, 3.0]))
        with self.assertRaisesRegex(ValueError, "Can't compare dict to non-dict"):
            self.assertAllClose({"a": 1}, [1])

    def testAssertRaisesOpErrorPredicate(self):
        x = tf.placeholder(tf.float32)
        with self.cached_session() as sess:
            with self.assertRaisesOpError(lambda e: isinstance(e, tf.errors.InvalidArgumentError)):
                sess.run(x)

    def testCheckedThreadReportsErrors(self):
        def boom():
            raise RuntimeError("in the thread")
        t = self.checkedThread(boom)
        t.start()
        with self.assertRaisesRegex(AssertionError, "in the thread"):
            t.join()


def test_equal_graph_def():
    g1 = tf.Graph()
    with g1.as_default():
        tf.constant(1.0, name="a")
        tf.constant(2.0, name="b")
    g2 = tf.Graph()
    with g2.as_default():
        tf.constant(2.0, name="b")
        tf.constant(1.0, name="a")
    tf.test.assert_equal_graph_def(g1.as_graph_def(), g2.as_graph_def())
    g3 = tf.Graph()
    with g3.as_default():
        tf.constant(3.0, name="a")
        tf.constant(2.0, name="b")
    try:
        tf.test.assert_equal_graph_def(g1.as_graph_def(), g3.as_graph_def())
    except AssertionError as e:
        assert "'a'" in str(e)
    else:
        raise AssertionError("different graphs compared equal")
