"""MonitoredSession.run_step_fn and StepContext (found by TF 1.15's monitored_session_test)."""

import pytest

import flowloom as tf


class _CountingHook(tf.train.SessionRunHook):
    def __init__(self):
        self.calls = 0

    def before_run(self, run_context):
        self.calls += 1


def test_step_fn_raw_and_hooked_runs_and_request_stop():
    with tf.Graph().as_default():
        c = tf.placeholder(tf.float32)
        v, w = c + 4.0, c + 0.5
        hook = _CountingHook()
        results = []

        def step_fn(step_context):
            a = step_context.session.run(v, feed_dict={c: 0.5})
            if a <= 4.5:
                results.append(step_context.run_with_hooks(w, feed_dict={c: 0.1}))
                step_context.request_stop()
            return a

        with tf.train.MonitoredSession(hooks=[hook]) as session:
            while not session.should_stop():
                session.run_step_fn(step_fn)
        assert results == [pytest.approx(0.6)] and hook.calls == 1


def test_step_fn_signature_checked_and_methods_allowed():
    with tf.Graph().as_default():
        x = tf.constant(3)

        class Model:
            def step(self, step_context):
                return step_context.session.run(x)

        with tf.train.MonitoredSession() as session:
            assert session.run_step_fn(Model().step) == 3
            with pytest.raises(ValueError, match="may either have one `step_context`"):
                session.run_step_fn(lambda ctx, extra: None)


def test_step_fn_recovers_from_preemption():
    with tf.Graph().as_default():
        x = tf.constant(1)
        attempts = []

        def step_fn(step_context):
            attempts.append(1)
            if len(attempts) == 1:
                raise tf.errors.AbortedError(None, None, "preempted")
            return step_context.run_with_hooks(x)

        with tf.train.MonitoredSession() as session:
            assert session.run_step_fn(step_fn) == 1
        assert len(attempts) == 2
