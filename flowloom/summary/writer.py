"""`tf.summary.FileWriter`: Summary, graph and run-metadata protos to a TensorBoard event file."""

import atexit
import os
import threading
import time
import warnings
import weakref

from flowloom.framework.graph import Graph, get_default_graph
from flowloom.io.events import EventFileWriter
from flowloom.proto import event_pb2, graph_pb2, meta_graph_pb2, summary_pb2
from flowloom.io import file_system


_open_writers = weakref.WeakSet()
# Where plugin assets go under a log directory (TF's name).
_PLUGINS_DIR = "plugins"


@atexit.register
def _flush_open_writers():
    # A FileWriter never closed still has all its events on disk when the program ends,
    # as TF's writer delivers them at exit.
    for writer in list(_open_writers):
        try:
            writer.flush()
        except Exception:  # noqa: BLE001 - exiting: one broken writer must not stop the rest
            pass


class _SyncingEventFileWriter(EventFileWriter):
    """An EventFileWriter for FileWriter: a flush also fsyncs (a flushed event survives a
    crash, as with TF's EventsWriter::Flush), and a background thread flushes every
    `flush_secs` even when no new events come, as TF's writer thread does."""

    def __init__(self, logdir, max_queue=10, flush_secs=120, filename_suffix=None):
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._flusher = None
        super().__init__(logdir, max_queue, flush_secs, filename_suffix)
        self._start_flusher()
        _open_writers.add(self)

    def _start_flusher(self):
        self._stop = threading.Event()
        self._flusher = threading.Thread(target=self._flush_periodically,
                                         args=(self._stop,), daemon=True,
                                         name="FileWriterFlusher")
        self._flusher.start()

    def _flush_periodically(self, stop):
        while not stop.wait(self._flush_secs):
            self.flush()

    def add_event(self, event):
        with self._lock:
            super().add_event(event)

    def flush(self):
        with self._lock:
            super().flush()
            if self._writer is not None and self._writer._file is not None:
                os.fsync(self._writer._file.fileno())

    def close(self):
        self._stop.set()
        with self._lock:
            self.flush()
            super().close()

    def reopen(self):
        with self._lock:
            if self._writer is not None:
                return
            super().reopen()
        self._start_flusher()


def _graph_def_of(graph):
    return graph.as_graph_def(add_shapes=True)


class FileWriter:
    """Writes `Summary` protos and events to an event file in `logdir` (TF1's FileWriter).

    The constructor creates a new event file; `add_summary` and the other `add_*` methods
    append events to it. Events are visible to readers once flushed (every `flush_secs`, on
    `flush()` and on `close()`); a flushed event is on disk.

    Args:
      logdir: directory of the event file, created if missing.
      graph: a `Graph` (or `GraphDef`) written as the first graph event, followed by its
        MetaGraphDef.
      max_queue: accepted for compatibility (events are written as they come).
      flush_secs: seconds between automatic flushes.
      graph_def: deprecated spelling of `graph` (a `GraphDef` or `Graph`).
      filename_suffix: appended to the event file's name.
      session: a Session whose summary writer resource for `logdir` (shared with the
        session's other writers of `logdir`) writes the events.

    Example:
      writer = tf.summary.FileWriter('/tmp/logs', sess.graph)
      writer.add_summary(sess.run(merged), global_step=step)
      writer.close()
    """

    def __init__(self, logdir, graph=None, max_queue=10, flush_secs=120, graph_def=None,
                 filename_suffix=None, session=None):
        if session is not None:
            from flowloom.summary.event_file_writer_v2 import EventFileWriterV2

            self.event_writer = EventFileWriterV2(session, logdir, max_queue, flush_secs,
                                                  filename_suffix)
        else:
            self.event_writer = _SyncingEventFileWriter(logdir, max_queue, flush_secs,
                                                        filename_suffix)
        self._closed = False
        self._session_run_tags = {}
        self._seen_summary_tags = set()
        if graph is not None or graph_def is not None:
            self.add_graph(graph=graph, graph_def=graph_def)
            # Like TF, also write the MetaGraphDef of that graph.
            from flowloom.framework.meta_graph import export_meta_graph

            as_def = _graph_def_of(graph) if isinstance(graph, Graph) else graph
            if isinstance(graph_def, Graph):
                graph_def = _graph_def_of(graph_def)
            self.add_meta_graph(export_meta_graph(graph_def=graph_def or as_def))

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close()

    def get_logdir(self):
        """Returns the directory where event files are written."""
        return self.event_writer.get_logdir()

    def _warn_if_closed(self):
        if self._closed:
            warnings.warn("Attempting to use a closed FileWriter. The operation will be a noop "
                          "unless the FileWriter is explicitly reopened.")
            return True
        return False

    def _add_event(self, event, step):
        event.wall_time = time.time()
        if step is not None:
            event.step = int(step)
        self.add_event(event)

    def add_event(self, event):
        """Adds an `Event` proto to the event file (a no-op, with a warning, when closed)."""
        if self._warn_if_closed():
            return
        self.event_writer.add_event(event)

    def add_summary(self, summary, global_step=None):
        """Adds a `Summary` to the event file.

        Args:
          summary: a `Summary` proto, or its serialization (what a summary op outputs).
          global_step: optional step recorded with the summary.

        Raises:
          DecodeError: if `summary` is bytes that do not parse as a Summary.
        """
        if isinstance(summary, bytes):
            summary = summary_pb2.Summary.FromString(summary)
        else:
            copy = summary_pb2.Summary()
            copy.CopyFrom(summary)
            summary = copy
        # Like TF: a tag's metadata is written with its first value only.
        for value in summary.value:
            if not value.HasField("metadata"):
                continue
            if value.tag in self._seen_summary_tags:
                value.ClearField("metadata")
                continue
            self._seen_summary_tags.add(value.tag)
        self._add_event(event_pb2.Event(summary=summary), global_step)

    def add_session_log(self, session_log, global_step=None):
        """Adds a `SessionLog` (START, STOP, CHECKPOINT) event."""
        self._add_event(event_pb2.Event(session_log=session_log), global_step)

    def add_graph(self, graph, global_step=None, graph_def=None):
        """Adds a graph event, which TensorBoard's Graphs tab shows.

        Args:
          graph: a `Graph` (written with its output shapes) or a `GraphDef`.
          global_step: optional step.
          graph_def: deprecated: a `GraphDef` or `Graph`.

        Raises:
          ValueError: if both `graph` and `graph_def` are given.
          TypeError: if the graph is neither a `Graph` nor a `GraphDef`.
        """
        if graph is not None and graph_def is not None:
            raise ValueError("Please pass only graph, or graph_def (deprecated), but not both.")
        if isinstance(graph, Graph) or isinstance(graph_def, Graph):
            true_graph_def = _graph_def_of(graph if isinstance(graph, Graph) else graph_def)
            if isinstance(graph, Graph):
                self._write_plugin_assets(graph)
        elif isinstance(graph, graph_pb2.GraphDef) or isinstance(graph_def, graph_pb2.GraphDef):
            true_graph_def = graph if isinstance(graph, graph_pb2.GraphDef) else graph_def
        else:
            raise TypeError("The passed graph must be an instance of `Graph` or the deprecated "
                            "`GraphDef`")
        event = event_pb2.Event(graph_def=true_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def _write_plugin_assets(self, graph):
        from flowloom.summary.plugin_asset import get_all_plugin_assets

        for container in get_all_plugin_assets(graph):
            plugin_dir = os.path.join(self.get_logdir(), _PLUGINS_DIR, container.plugin_name)
            file_system.makedirs(plugin_dir, exist_ok=True)
            for asset_name, content in container.assets().items():
                mode = "wb" if isinstance(content, bytes) else "w"
                with file_system.open_file(os.path.join(plugin_dir, asset_name), mode) as f:
                    f.write(content)

    def add_meta_graph(self, meta_graph_def, global_step=None):
        """Adds a `MetaGraphDef` event."""
        if not isinstance(meta_graph_def, meta_graph_pb2.MetaGraphDef):
            raise TypeError("meta_graph_def must be type MetaGraphDef, saw type: %s"
                            % type(meta_graph_def))
        event = event_pb2.Event(meta_graph_def=meta_graph_def.SerializeToString())
        self._add_event(event, global_step)

    def add_run_metadata(self, run_metadata, tag, global_step=None):
        """Adds a `RunMetadata` (step stats) under `tag`, shown in TensorBoard's graph tab.

        Raises:
          ValueError: if `tag` was already used by this writer.
        """
        if tag in self._session_run_tags:
            raise ValueError("The provided tag was already used for this event type")
        self._session_run_tags[tag] = True
        tagged = event_pb2.TaggedRunMetadata(tag=tag,
                                             run_metadata=run_metadata.SerializeToString())
        self._add_event(event_pb2.Event(tagged_run_metadata=tagged), global_step)

    def flush(self):
        """Writes pending events to disk (and fsyncs the file)."""
        if self._warn_if_closed():
            return
        self.event_writer.flush()

    def close(self):
        """Flushes and closes the event file; `reopen()` starts a new one."""
        self.event_writer.close()
        self._closed = True

    def reopen(self):
        """Reopens a closed writer, with a new event file in the same directory."""
        self.event_writer.reopen()
        self._closed = False


class FileWriterCache:
    """One shared `FileWriter` per log directory (`tf.summary.FileWriterCache`)."""

    _cache = {}
    _lock = threading.RLock()

    @staticmethod
    def clear():
        """Closes and forgets every cached writer."""
        with FileWriterCache._lock:
            for writer in FileWriterCache._cache.values():
                writer.close()
            FileWriterCache._cache = {}

    @staticmethod
    def get(logdir):
        """Returns the `FileWriter` of `logdir`, creating it (with the default graph)."""
        with FileWriterCache._lock:
            writer = FileWriterCache._cache.get(logdir)
            if writer is None:
                writer = FileWriter(logdir, graph=get_default_graph())
                FileWriterCache._cache[logdir] = writer
            return writer
