import os
import re

import pytest

from flowloom.framework import errors
from flowloom.io import events
from flowloom.proto import event_pb2, summary_pb2


def _tf_event_file(data_path):
    directory = data_path("tf_events")
    (name,) = os.listdir(directory)
    return os.path.join(directory, name)


def test_reads_tf_event_file(data_path):
    read = list(events.summary_iterator(_tf_event_file(data_path)))
    assert read[0].file_version == "brain.Event:2"
    scalars = [
        (e.step, e.summary.value[0].tag, e.summary.value[0].simple_value)
        for e in read
        if e.HasField("summary")
    ]
    assert scalars == [(0, "loss", 1.0), (1, "loss", 0.5), (2, "loss", pytest.approx(1 / 3))]
    assert any(e.HasField("graph_def") for e in read)


def test_writer_round_trip(tmp_path):
    writer = events.EventFileWriter(tmp_path / "logs", filename_suffix=".v2")
    summary = summary_pb2.Summary(value=[summary_pb2.Summary.Value(tag="acc", simple_value=0.75)])
    writer.add_event(event_pb2.Event(step=7, wall_time=1.5, summary=summary))
    writer.flush()
    (name,) = os.listdir(tmp_path / "logs")
    assert re.fullmatch(r"events\.out\.tfevents\.\d{10}\..+\.v2", name)
    assert writer.path == str(tmp_path / "logs" / name)
    read = list(events.summary_iterator(writer.path))  # readable before close
    assert read[0].file_version == "brain.Event:2" and read[0].wall_time > 0
    assert read[1].step == 7 and read[1].summary.value[0].simple_value == 0.75
    writer.close()
    with pytest.raises(errors.FailedPreconditionError):
        writer.add_event(event_pb2.Event())


def test_reopen_starts_a_new_file(tmp_path, monkeypatch):
    writer = events.EventFileWriter(tmp_path)
    first = writer.path
    writer.close()
    monkeypatch.setattr(events.time, "time", lambda: 4102444800.0)  # a later second
    writer.reopen()
    assert writer.path != first
    writer.close()
    assert len(os.listdir(tmp_path)) == 2


def test_non_event_record_is_data_loss(tmp_path):
    from flowloom.io.tfrecord import TFRecordWriter

    path = tmp_path / "events.out.tfevents.0.bad"
    with TFRecordWriter(path) as writer:
        writer.write(b"\xff\xff\xff")
    with pytest.raises(errors.DataLossError, match="offset 0 is not an Event"):
        list(events.summary_iterator(path))
