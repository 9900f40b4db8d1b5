"""`tf.test.TestCase.captureWritesToStream`: what a block writes to a stream's file descriptor."""

import contextlib
import os
import tempfile


class CapturedWrites:
    """The text written to a stream inside `captureWritesToStream`; read with contents()."""

    def __init__(self, capture_location):
        self.capture_location = capture_location

    def contents(self):
        """The captured text."""
        with open(self.capture_location) as f:
            return f.read()


class CaptureWritesMixin:
    """Adds TF's captureWritesToStream to a TestCase."""

    @contextlib.contextmanager
    def captureWritesToStream(self, stream):  # noqa: N802 - TF's name
        """Redirects the file descriptor of `stream` (e.g. sys.stderr) into a temporary file
        for the block; yields a CapturedWrites.

        Example:
          with self.captureWritesToStream(sys.stderr) as printed:
            sess.run(tf.print("x"))
          self.assertIn("x", printed.contents())
        """
        stream.flush()
        fd = stream.fileno()
        fd_tmp, path = tempfile.mkstemp(dir=self.get_temp_dir())
        saved = os.dup(fd)
        os.dup2(fd_tmp, fd)
        try:
            yield CapturedWrites(path)
        finally:
            stream.flush()
            os.dup2(saved, fd)
            os.close(saved)
            os.close(fd_tmp)
