"""Waiting for checkpoints (`tf.train.checkpoints_iterator`, `wait_for_new_checkpoint`): an
evaluator's loop over the checkpoints a trainer writes into a directory."""

import logging
import time

from flowloom.train import checkpoint_management

_log = logging.getLogger("tensorflow")


def wait_for_new_checkpoint(checkpoint_dir, last_checkpoint=None, seconds_to_sleep=1,
                            timeout=None):
    """The path of the latest checkpoint in `checkpoint_dir` once it differs from
    `last_checkpoint`; None if `timeout` seconds pass first (None: wait forever)."""
    _log.info("Waiting for new checkpoint at %s", checkpoint_dir)
    stop_time = time.time() + timeout if timeout is not None else None
    while True:
        path = checkpoint_management.latest_checkpoint(checkpoint_dir)
        if path is None or path == last_checkpoint:
            if stop_time is not None and time.time() + seconds_to_sleep > stop_time:
                return None
            time.sleep(seconds_to_sleep)
        else:
            _log.info("Found new checkpoint at %s", path)
            return path


def checkpoints_iterator(checkpoint_dir, min_interval_secs=0, timeout=None, timeout_fn=None):
    """Yields each new checkpoint of `checkpoint_dir` as it appears, at most one per
    `min_interval_secs`. After `timeout` seconds without one it stops, unless `timeout_fn`
    is given and returns False (then it keeps waiting).

    Example:
      for path in tf.train.checkpoints_iterator("/tmp/train", timeout=600):
          evaluate(path)
    """
    path = None
    while True:
        new_path = wait_for_new_checkpoint(checkpoint_dir, path, timeout=timeout)
        if new_path is None:
            if not timeout_fn:
                _log.info("Timed-out waiting for a checkpoint.")
                return
            if timeout_fn():
                return
            continue
        start = time.time()
        path = new_path
        yield path
        wait = start + min_interval_secs - time.time()
        if wait > 0:
            time.sleep(wait)
