"""The progress bar of training loops with a known step budget (flowloom/train/progress.py)."""

import io

import flowloom as tf
from flowloom.train import progress


def test_line_shows_share_rates_and_time_left():
    hook = tf.train.ProgressBarHook(last_step=1000, examples_per_step=128, width=10)
    assert hook.line(375, 30.0, 372) == (
        "[####......]   375/1000   38%  12.4 steps/s  1587 examples/s  ETA 0:50")
    assert tf.train.ProgressBarHook(last_step=10).line(10, 1.0, 0).startswith(
        "[########################]  10/10  100%  0.0 steps/s")


def test_monitored_training_session_draws_toward_the_stop_hooks_budget(monkeypatch, capsys):
    monkeypatch.setenv("FLOWLOOM_PROGRESS", "1")
    ticks = iter(range(1000))
    monkeypatch.setattr(progress.time, "time", lambda: float(next(ticks)))
    with tf.Graph().as_default():
        step = tf.train.get_or_create_global_step()
        train = tf.assign_add(step, 1)
        with tf.train.MonitoredTrainingSession(
                hooks=[tf.train.StopAtStepHook(num_steps=6)]) as sess:
            while not sess.should_stop():
                sess.run(train)
    err = capsys.readouterr().err
    assert "\r[" in err and "6/6  100%" in err and err.endswith("\n")
    assert "1.0 steps/s" in err


def test_no_bar_off_a_terminal_or_without_a_budget(monkeypatch):
    monkeypatch.delenv("FLOWLOOM_PROGRESS", raising=False)
    assert not progress.wanted(io.StringIO())
    monkeypatch.setenv("FLOWLOOM_PROGRESS", "0")
    hooks = [tf.train.StopAtStepHook(last_step=3)]
    from flowloom.train.monitored_session import _add_progress_bar

    _add_progress_bar(hooks)
    assert len(hooks) == 1
    monkeypatch.setenv("FLOWLOOM_PROGRESS", "1")
    _add_progress_bar(hooks)
    assert isinstance(hooks[-1], tf.train.ProgressBarHook)
    nothing = []
    _add_progress_bar(nothing)
    assert nothing == []
