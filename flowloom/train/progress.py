"""A progress bar for training loops whose step budget is known (flowloom's own; TF has none).

`ProgressBarHook` redraws one line on a terminal: the global step out of the last step, the
share done, steps/s (as StepCounterHook measures them: global-step increments over elapsed
time), examples/s when the batch size is given, and the time left.

    [#########...............]  375/1000  37%  12.4 steps/s  1587 examples/s  ETA 0:50

`tf.train.MonitoredTrainingSession` adds one by itself when its hooks hold a StopAtStepHook
and standard error is a terminal (set FLOWLOOM_PROGRESS=0 to turn that off, =1 to draw on a
stream that is not a terminal); the bar takes its budget from that hook.
"""

import os
import sys
import time

from flowloom.train.session_run_hook import SessionRunArgs, SessionRunHook


def wanted(stream=None):
    """Whether MonitoredTrainingSession adds a progress bar (FLOWLOOM_PROGRESS, a terminal)."""
    setting = os.environ.get("FLOWLOOM_PROGRESS", "").strip()
    if setting in ("0", "1"):
        return setting == "1"
    stream = stream or sys.stderr
    return bool(getattr(stream, "isatty", lambda: False)())


def _clock(seconds):
    seconds = int(max(seconds, 0))
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m}:{s:02d}"


class ProgressBarHook(SessionRunHook):
    """Draws the training's progress toward a last step.

    Args:
      last_step: the global step that ends training, or None to read it from `stop_hook`.
      stop_hook: a StopAtStepHook whose last step is the budget (known once its session
        exists, for `num_steps`).
      examples_per_step: the batch size (summed over towers), to show examples/s.
      every_n_secs: the least time between two redraws.
      stream: where to draw (default: standard error).
      width: the bar's width in characters.
    """

    def __init__(self, last_step=None, stop_hook=None, examples_per_step=None,
                 every_n_secs=0.5, stream=None, width=24):
        if last_step is None and stop_hook is None:
            raise ValueError("ProgressBarHook needs last_step or a StopAtStepHook")
        self._last_step = last_step
        self._stop_hook = stop_hook
        self._examples = examples_per_step
        self._every = every_n_secs
        self._stream = stream
        self._width = width
        self._drawn = False

    def begin(self):
        from flowloom.train.training_util import get_global_step

        self._global_step = get_global_step()
        if self._global_step is None:
            raise RuntimeError("Global step should be created to use ProgressBarHook.")
        self._start = None

    def before_run(self, run_context):
        return SessionRunArgs(self._global_step)

    def after_run(self, run_context, run_values):
        step = int(run_values.results) + 1  # the step the train op has just taken
        now = time.time()
        if self._start is None:
            self._start, self._first, self._shown_at = now, step, 0.0
            return
        if now - self._shown_at >= self._every:
            self._shown_at = now
            self._draw(step, now)

    def end(self, session):
        if self._drawn:
            self._write("\n")

    def _budget(self):
        if self._last_step is None and self._stop_hook is not None:
            return getattr(self._stop_hook, "_last_step", None)
        return self._last_step

    def line(self, step, elapsed, steps_done):
        """The text of the bar at `step`, `steps_done` steps after `elapsed` seconds."""
        last = self._budget()
        rate = steps_done / elapsed if elapsed > 0 else 0.0
        parts = []
        if last:
            done = min(max(step / last, 0.0), 1.0)
            filled = int(round(done * self._width))
            parts.append("[" + "#" * filled + "." * (self._width - filled) + "]")
            parts.append(f"{step:>{len(str(last))}}/{last}")
            parts.append(f"{done:4.0%}")
        else:
            parts.append(f"step {step}")
        parts.append(f"{rate:.1f} steps/s")
        if self._examples:
            parts.append(f"{rate * self._examples:.0f} examples/s")
        if last and rate > 0:
            parts.append("ETA " + _clock((last - step) / rate))
        return "  ".join(parts)

    def _draw(self, step, now):
        self._write("\r" + self.line(step, now - self._start, step - self._first) + "\x1b[K")
        self._drawn = True

    def _write(self, text):
        stream = self._stream or sys.stderr
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):
            pass  # a closed terminal does not stop training
