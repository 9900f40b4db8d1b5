"""tf.test.TestCase run by tf.test.main: which tests pass, which fail, the exit status."""
import collections

import numpy as np
import tensorflow as tf

Pair = collections.namedtuple("Pair", ["a", "b"])


class Checks(tf.test.TestCase):

    def testCachedSessionEval(self):
        with self.cached_session() as sess:
            x = tf.constant([1.0, 2.0])
            self.assertAllClose(sess.run(x * 2), [2.0, 4.0])
            self.assertAllEqual(x.eval(), [1.0, 2.0])
            self.assertIs(sess, tf.get_default_session())

    def testCachedSessionIsReused(self):
        with self.cached_session() as s1:
            pass
        with self.cached_session() as s2:
            pass
        self.assertIs(s1, s2)

    def testSessionIsNew(self):
        with self.cached_session() as s1:
            pass
        with self.session() as s2:
            self.assertIsNot(s1, s2)

    def testTestSession(self):
        with self.test_session():
            self.assertAllEqual(tf.add(1, 2).eval(), 3)

    def testEvaluate(self):
        v = tf.Variable(3.0)
        with self.cached_session():
            self.evaluate(tf.global_variables_initializer())
            self.assertEqual(self.evaluate(v * 2), 6.0)
            out = self.evaluate({"a": v, "b": [v + 1]})
            self.assertAllClose(out, {"a": 3.0, "b": [4.0]})

    def testAllCloseStructures(self):
        self.assertAllClose(Pair(a=np.ones(2), b=[1.0, 2.0]), Pair(a=[1, 1], b=[1.0, 2.0]))
        self.assertAllClose({"x": 1.0, "y": [2.0]}, {"x": 1.0 + 1e-7, "y": [2.0]})
        self.assertNotAllClose([1.0], [1.1])

    def testAllCloseFails(self):
        self.assertAllClose([1.0, 2.0], [1.0, 2.1])

    def testAllCloseShapeMismatchFails(self):
        self.assertAllClose([1.0, 2.0], [[1.0, 2.0]])

    def testAllCloseAccordingToType(self):
        self.assertAllCloseAccordingToType(np.float16([1.0]), np.float16([1.0005]))
        self.assertAllCloseAccordingToType(np.float32([1.0]), np.float32([1.0000005]))

    def testAllCloseAccordingToTypeFails(self):
        self.assertAllCloseAccordingToType(np.float64([1.0]), np.float64([1.0005]))

    def testAllEqualNan(self):
        self.assertAllEqual([np.nan, 1.0], [np.nan, 1.0])
        self.assertNotAllEqual([1, 2], [1, 3])

    def testAllEqualFails(self):
        self.assertAllEqual([1, 2], [1, 3])

    def testNear(self):
        self.assertNear(1.0, 1.05, 0.1)
        self.assertArrayNear([1.0, 2.0], [1.01, 2.01], 0.05)

    def testNearFails(self):
        self.assertNear(1.0, 1.5, 0.1)

    def testRaisesOpError(self):
        x = tf.placeholder(tf.float32)
        with self.cached_session() as sess:
            with self.assertRaisesOpError("must feed a value"):
                sess.run(x)

    def testRaisesWithPredicateMatch(self):
        with self.assertRaisesWithPredicateMatch(ValueError, "must be equal"):
            tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3]))
        with self.assertRaisesWithPredicateMatch(ValueError, lambda e: "Dimensions" in str(e)):
            tf.matmul(tf.zeros([2, 3]), tf.zeros([2, 3]))

    def testRaisesOpErrorNotRaisedFails(self):
        with self.assertRaisesOpError("anything"):
            pass

    def testShapeAndDevice(self):
        self.assertShapeEqual(np.zeros([2, 3]), tf.zeros([2, 3]))
        self.assertDeviceEqual("/cpu:0", "/device:CPU:0")
        self.assertDeviceEqual("/job:a/task:1/gpu:0", "/job:a/task:1/device:GPU:0")

    def testRanges(self):
        self.assertAllInRange([1, 2, 3], 1, 3)
        self.assertAllInSet([1, 2, 2], {1, 2})
        self.assertAllGreater([2, 3], 1)
        self.assertAllLessEqual([2, 3], 3)
        self.assertDTypeEqual(np.float32([1]), np.float32)

    def testRangeFails(self):
        self.assertAllInRange([1, 2, 3], 1, 3, open_upper_bound=True)

    def testTempDir(self):
        import os
        self.assertTrue(os.path.isdir(self.get_temp_dir()))
        self.assertTrue(os.path.isdir(tf.test.get_temp_dir()))

    def testFreshGraphAndSeeds(self):
        self.assertEqual(len(tf.get_default_graph().get_operations()), 0)
        self.assertEqual(tf.get_default_graph().seed, 87654321)
        self.assertEqual(np.random.randint(1000000), np.random.RandomState(87654321).randint(1000000))

    def testGradientError(self):
        x = tf.placeholder(tf.float64, [3])
        y = tf.reduce_sum(x * x)
        with self.cached_session():
            err = tf.test.compute_gradient_error(x, [3], y, [], x_init_value=np.array([1., 2., 3.]))
        self.assertLess(err, 1e-4)

    def testProtoEquals(self):
        g = tf.GraphDef()
        g.node.add(name="a", op="Const")
        self.assertProtoEquals('node { name: "a" op: "Const" }', g)

    def testQueries(self):
        self.assertIsInstance(tf.test.is_built_with_cuda(), bool)
        self.assertIsInstance(tf.test.is_gpu_available(), bool)
        self.assertEqual(tf.test.gpu_device_name() != "", tf.test.is_gpu_available())


if __name__ == "__main__":
    tf.test.main()
