"""TensorBoard event files: TFRecord files of `Event` protos.

A file is named `events.out.tfevents.<10-digit unix time>.<hostname><suffix>`
and starts with an Event whose `file_version` is "brain.Event:2".
"""

import os
import socket
import time

from google.protobuf.message import DecodeError

from flowloom.framework import errors
from flowloom.io.tfrecord import TFRecordWriter, read_records
from flowloom.proto import event_pb2
from flowloom.io import file_system

FILE_VERSION = "brain.Event:2"


def event_filename(logdir, timestamp=None, hostname=None, suffix=""):
    """Returns the path TF's EventsWriter would use for a new event file.

    Args:
      logdir: directory of the file.
      timestamp: unix time (default: now).
      hostname: default: this machine's name.
      suffix: appended to the file name.
    """
    timestamp = int(time.time() if timestamp is None else timestamp)
    hostname = socket.gethostname() if hostname is None else hostname
    return os.path.join(
        os.fspath(logdir), f"events.out.tfevents.{timestamp:010d}.{hostname}{suffix}"
    )


class EventFileWriter:
    """Writes `Event` protos to a new event file in `logdir`.

    Events go to the file as they are added (the file is not crash-safe, so
    TensorBoard can read it while it grows); `flush()` makes them visible, and
    a flush also happens on `add_event` once `flush_secs` have passed.

    Args:
      logdir: directory, created if missing.
      max_queue: accepted for TF compatibility; events are not queued.
      flush_secs: seconds between automatic flushes.
      filename_suffix: appended to the event file name.

    Example:
      writer = EventFileWriter("/tmp/logs")
      writer.add_event(event_pb2.Event(step=1, summary=summary))
      writer.close()
    """

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._logdir = os.fspath(logdir)
        if self._logdir:  # "" is the current directory, as in TF
            file_system.makedirs(self._logdir, exist_ok=True)
        self._flush_secs = flush_secs
        self._filename_suffix = filename_suffix or ""
        self._writer = None
        self._open()

    def _open(self):
        # Like TF, the file name and the version event carry whole seconds.
        now = int(time.time())
        self._path = event_filename(self._logdir, now, suffix=self._filename_suffix)
        self._writer = TFRecordWriter(self._path)
        self._last_flush = now
        self._write(event_pb2.Event(wall_time=float(now), file_version=FILE_VERSION))
        self.flush()

    def _write(self, event):
        self._writer.write(event.SerializeToString())

    def get_logdir(self):
        """Returns the directory event files are written to."""
        return self._logdir

    @property
    def path(self):
        """The path of the current event file."""
        return self._path

    def add_event(self, event):
        """Appends an `Event` proto.

        Args:
          event: an `event_pb2.Event`.

        Raises:
          FailedPreconditionError: if the writer is closed.
        """
        if self._writer is None:
            raise errors.FailedPreconditionError(None, None, "EventFileWriter is closed")
        self._write(event)
        if time.time() - self._last_flush >= self._flush_secs:
            self.flush()

    def flush(self):
        """Pushes written events to the file."""
        if self._writer is not None:
            self._writer.flush()
            self._last_flush = time.time()

    def close(self):
        """Flushes and closes the file; `reopen()` starts a new one."""
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def reopen(self):
        """Opens a new event file after `close()`; does nothing if open."""
        if self._writer is None:
            self._open()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()


def summary_iterator(path):
    """Yields the `Event` protos of an event file (`tf.train.summary_iterator`).

    Args:
      path: an event file.

    Yields:
      `event_pb2.Event` protos, in file order.

    Raises:
      DataLossError: on a corrupt or truncated record, or a record that is not
        an Event.
    """
    for offset, record in read_records(path):
        try:
            yield event_pb2.Event.FromString(record)
        except (DecodeError, RuntimeError, ValueError):
            raise errors.DataLossError(
                None, None, f"{path}: record at offset {offset} is not an Event proto"
            ) from None
