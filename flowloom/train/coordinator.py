"""`tf.train.Coordinator`: lets threads stop together and hands their errors to the main one."""

import contextlib
import logging
import sys
import threading
import time

from flowloom.framework import errors

_log = logging.getLogger("flowloom")


class Coordinator:
    """A coordinator for threads (`tf.train.Coordinator`).

    Threads loop `while not coord.should_stop()`; any thread may `request_stop()`, with an
    exception to report; `join()` waits for the registered threads and re-raises the first
    exception reported. OutOfRangeError (by default) stops cleanly without being re-raised.

    Example:
      coord = tf.train.Coordinator()
      threads = tf.train.start_queue_runners(sess, coord=coord)
      try:
          while not coord.should_stop():
              sess.run(train_op)
      except Exception as e:
          coord.request_stop(e)
      finally:
          coord.request_stop()
          coord.join(threads)
    """

    def __init__(self, clean_stop_exception_types=None):
        if clean_stop_exception_types is None:
            clean_stop_exception_types = (errors.OutOfRangeError,)
        self._clean_stop_exception_types = tuple(clean_stop_exception_types)
        self._lock = threading.Lock()
        self._stop_event = threading.Event()
        self._exc_info_to_raise = None
        self._joined = False
        self._registered_threads = set()

    def _filter_exception(self, ex):
        exc = ex[1] if isinstance(ex, tuple) else ex
        if isinstance(exc, self._clean_stop_exception_types):
            return None
        return ex

    def request_stop(self, ex=None):
        """Asks the threads to stop; `ex` (an exception or an exc_info tuple) is reported.

        Raises:
          The exception `ex`, when the coordinator was already joined.
        """
        with self._lock:
            ex = self._filter_exception(ex)
            if self._joined:
                # Nobody will join again to see it: raise it here.
                if isinstance(ex, tuple):
                    raise ex[1].with_traceback(ex[2])
                if ex is not None:
                    raise ex
            if self._stop_event.is_set():
                return
            if ex is not None and self._exc_info_to_raise is None:
                if isinstance(ex, tuple):
                    _log.info("Error reported to Coordinator: %s", ex[1])
                    self._exc_info_to_raise = ex
                else:
                    _log.info("Error reported to Coordinator: %s, %s", type(ex), ex)
                    info = sys.exc_info()
                    if info[1] is not ex:
                        info = (type(ex), ex, ex.__traceback__)
                    self._exc_info_to_raise = info
                if (len(self._exc_info_to_raise) != 3 or not self._exc_info_to_raise[0] or
                        not self._exc_info_to_raise[1]):
                    try:
                        raise ValueError("ex must be a tuple or sys.exc_info must return the "
                                         f"current exception: {self._exc_info_to_raise}")
                    except ValueError:
                        self._exc_info_to_raise = sys.exc_info()
            self._stop_event.set()

    def clear_stop(self):
        """Forgets a stop request and its exception, so the threads can be started again."""
        with self._lock:
            self._joined = False
            self._exc_info_to_raise = None
            if self._stop_event.is_set():
                self._stop_event.clear()

    def should_stop(self):
        """True once a stop was requested."""
        return self._stop_event.is_set()

    @contextlib.contextmanager
    def stop_on_exception(self):
        """A block whose exceptions are reported through `request_stop` (and swallowed)."""
        try:
            yield
        except:  # noqa: E722 - TF reports everything, including KeyboardInterrupt
            self.request_stop(ex=sys.exc_info())

    def wait_for_stop(self, timeout=None):
        """Waits until a stop is requested (at most `timeout` seconds); returns should_stop()."""
        return self._stop_event.wait(timeout)

    def register_thread(self, thread):
        """Adds `thread` to those `join()` waits for."""
        with self._lock:
            self._registered_threads.add(thread)

    def join(self, threads=None, stop_grace_period_secs=120, ignore_live_threads=False):
        """Waits for the threads to stop, then re-raises the first reported exception.

        Args:
          threads: threads to wait for, in addition to the registered ones.
          stop_grace_period_secs: how long threads may run on after a stop request.
          ignore_live_threads: log, instead of raising, threads still alive after the grace.

        Raises:
          The exception passed to `request_stop`, or RuntimeError naming the threads still
          running after the grace period.
        """
        with self._lock:
            if threads is None:
                threads = self._registered_threads
            else:
                threads = self._registered_threads.union(set(threads))
            threads = list(threads)
        while any(t.is_alive() for t in threads) and not self.wait_for_stop(1.0):
            pass
        stop_wait = 0.001
        while any(t.is_alive() for t in threads) and stop_grace_period_secs >= 0.0:
            time.sleep(stop_wait)
            stop_grace_period_secs -= stop_wait
            stop_wait = max(min(2 * stop_wait, stop_grace_period_secs), 0.001)
        stragglers = [t.name for t in threads if t.is_alive()]
        with self._lock:
            self._joined = True
            self._registered_threads = set()
            if self._exc_info_to_raise:
                _, value, tb = self._exc_info_to_raise
                raise value.with_traceback(tb)
            if stragglers:
                if ignore_live_threads:
                    _log.info("Coordinator stopped with threads still running: %s",
                              " ".join(stragglers))
                else:
                    raise RuntimeError("Coordinator stopped with threads still running: "
                                       + " ".join(stragglers))

    @property
    def joined(self):
        return self._joined

    def raise_requested_exception(self):
        """Re-raises the reported exception, if there is one."""
        with self._lock:
            if self._exc_info_to_raise:
                _, value, tb = self._exc_info_to_raise
                raise value.with_traceback(tb)

    def loop(self, timer_interval_secs, target, args=None, kwargs=None):
        """Starts a LooperThread calling `target(*args, **kwargs)` every interval."""
        looper = LooperThread(self, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper


class LooperThread(threading.Thread):
    """A thread that runs code repeatedly, optionally on a timer, until its coordinator
    stops (`tf.train.LooperThread`)."""

    def __init__(self, coord, timer_interval_secs, target=None, args=None, kwargs=None):
        if not isinstance(coord, Coordinator):
            raise ValueError(f"'coord' argument must be a Coordinator: {coord}")
        super().__init__()
        self.daemon = True
        self._coord = coord
        self._timer_interval_secs = timer_interval_secs
        self._target = target
        if self._target:
            self._args = args or ()
            self._kwargs = kwargs or {}
        elif args or kwargs:
            raise ValueError("'args' and 'kwargs' argument require that you also pass 'target'")
        self._coord.register_thread(self)

    @staticmethod
    def loop(coord, timer_interval_secs, target, args=None, kwargs=None):
        looper = LooperThread(coord, timer_interval_secs, target=target, args=args,
                              kwargs=kwargs)
        looper.start()
        return looper

    def run(self):
        with self._coord.stop_on_exception():
            self.start_loop()
            if self._timer_interval_secs is None:
                while not self._coord.should_stop():
                    self.run_loop()
            else:
                next_timer_time = time.time()
                while not self._coord.wait_for_stop(next_timer_time - time.time()):
                    next_timer_time += self._timer_interval_secs
                    self.run_loop()
            self.stop_loop()

    def start_loop(self):
        """Called once when the thread starts."""

    def stop_loop(self):
        """Called once when the thread ends."""

    def run_loop(self):
        """Called at each iteration."""
        if self._target:
            self._target(*self._args, **self._kwargs)
