"""The event writer of `FileWriter(session=...)`: events go through a summary writer resource
held by the session (TF 1.15's EventFileWriterV2), shared with every other writer of the same
log directory in that session, `tf.contrib.summary.create_file_writer`'s included."""


from flowloom.framework import dtypes
from flowloom.framework.graph import name_scope
from flowloom.io import file_system


class EventFileWriterV2:
    """Writes `Event` protos by running ImportEvent / FlushSummaryWriter / CloseSummaryWriter
    ops, added to `session.graph` when it is made, in `session`.

    Args:
      session: the Session holding the shared writer resource.
      logdir: directory of the event file (created if missing).
      max_queue, flush_secs, filename_suffix: used only when the resource is created here.
    """

    def __init__(self, session, logdir, max_queue=10, flush_secs=120, filename_suffix=""):
        from flowloom.ops.array.array_ops import constant, placeholder_with_default
        from flowloom.ops.summary import summary_ops_v2

        self._session = session
        self._logdir = logdir
        self._closed = False
        file_system.makedirs(self._logdir, exist_ok=True)
        with session.graph.as_default(), name_scope("filewriter"):
            file_writer = summary_ops_v2.create_file_writer(
                logdir=self._logdir, max_queue=max_queue, flush_millis=flush_secs * 1000,
                filename_suffix=filename_suffix)
            with summary_ops_v2.always_record_summaries(), file_writer.as_default():
                self._event_placeholder = placeholder_with_default(
                    constant("unused", dtypes.string), shape=[])
                self._add_event_op = summary_ops_v2.import_event(self._event_placeholder)
            self._init_op = file_writer.init()
            self._flush_op = file_writer.flush()
            self._close_op = file_writer.close()
        self._session.run(self._init_op)

    def get_logdir(self):
        """The directory events are written to."""
        return self._logdir

    def reopen(self):
        """After `close()`: a new event file (the writer resource is created again)."""
        if self._closed:
            self._closed = False
            self._session.run(self._init_op)

    def add_event(self, event):
        """Writes `event` (nothing when closed)."""
        if not self._closed:
            self._session.run(self._add_event_op,
                              feed_dict={self._event_placeholder: event.SerializeToString()})

    def flush(self):
        """Flushes the shared writer (NotFoundError once it is closed)."""
        self._session.run(self._flush_op)

    def close(self):
        """Flushes and closes the shared writer."""
        if not self._closed:
            self.flush()
            self._session.run(self._close_op)
            self._closed = True
