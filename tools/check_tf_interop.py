"""Checks that real TensorFlow reads the files flowloom writes.

Not part of the test run (TF is no dependency). flowloom writes a bundle,
TFRecord files and an event file into a temporary directory; a separate TF
process (TF's protobuf schemas and flowloom's share symbol names, so they
cannot live in one process) reads them back and prints what it saw as JSON.

Usage (from the repository root):
  python tools/check_tf_interop.py [--tf-python PATH]  (default $FLOWLOOM_TF_PYTHON)
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from flowloom.io import bundle, events, tfrecord
from flowloom.proto import event_pb2, summary_pb2

TENSORS = {
    "dense/kernel": np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5,
    "global_step": np.array(1234, dtype=np.int64),
    "vocab": np.array([b"a", b"", b"\xffbytes"], dtype=object),
    "flags": np.array([[True], [False]]),
    "half": np.array([1.5, -2.0], dtype=np.float16),
    "counts": np.array([1, 2, 3], dtype=np.int32),
}
RECORDS = [b"", b"one", bytes(range(256)) * 4]

TF_READER = r"""
import json, sys
import tensorflow.compat.v1 as tf
tf.disable_v2_behavior()
prefix, record_dir, event_path = sys.argv[1:4]
reader = tf.train.load_checkpoint(prefix)
tensors = {}
for name, shape in reader.get_variable_to_shape_map().items():
    value = reader.get_tensor(name)
    tensors[name] = {"shape": list(shape), "dtype": str(value.dtype),
                     "value": [v.hex() if isinstance(v, bytes) else v
                               for v in value.reshape(-1).tolist()]}
records = {}
for compression in ["", "GZIP", "ZLIB"]:
    path = f"{record_dir}/r_{compression or 'NONE'}.tfrecord"
    records[compression] = [r.hex() for r in tf.io.tf_record_iterator(
        path, tf.io.TFRecordOptions(compression_type=compression))]
summaries = [(e.file_version, e.step, [(v.tag, v.simple_value) for v in e.summary.value])
             for e in tf.train.summary_iterator(event_path)]
print(json.dumps({"tensors": tensors, "records": records, "events": summaries}))
"""


def write_files(directory):
    prefix = os.path.join(directory, "ckpt", "model.ckpt-1234")
    bundle.write_bundle(prefix, TENSORS)
    for compression in ["", "GZIP", "ZLIB"]:
        path = os.path.join(directory, f"r_{compression or 'NONE'}.tfrecord")
        with tfrecord.TFRecordWriter(path, compression) as writer:
            for record in RECORDS:
                writer.write(record)
    with events.EventFileWriter(os.path.join(directory, "logs")) as writer:
        for step in range(3):
            value = summary_pb2.Summary.Value(tag="loss", simple_value=step / 2)
            writer.add_event(event_pb2.Event(step=step, summary=summary_pb2.Summary(value=[value])))
        event_path = writer.path
    return prefix, event_path


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tf-python", default=os.environ.get("FLOWLOOM_TF_PYTHON", ""))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        prefix, event_path = write_files(directory)
        env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="3")
        out = subprocess.run(
            [args.tf_python, "-c", TF_READER, prefix, directory, event_path],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        ).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    failures = []
    for name, array in TENSORS.items():
        got = seen["tensors"].get(name)
        flat = [v.hex() if isinstance(v, bytes) else v for v in array.reshape(-1).tolist()]
        if got is None or got["shape"] != list(array.shape) or got["value"] != flat:
            failures.append(f"tensor {name}: TF read {got}")
    for compression, records in seen["records"].items():
        if records != [r.hex() for r in RECORDS]:
            failures.append(f"records {compression or 'NONE'}: TF read {records}")
    expected_events = [["brain.Event:2", 0, []]] + [["", s, [["loss", s / 2]]] for s in range(3)]
    if seen["events"] != expected_events:
        failures.append(f"events: TF read {seen['events']}")
    if set(seen["tensors"]) != set(TENSORS):
        failures.append(f"tensor names: {sorted(seen['tensors'])}")
    for failure in failures:
        print("FAIL", failure)
    print(
        f"{len(TENSORS)} tensors, {len(seen['records'])} record files, "
        f"{len(seen['events'])} events read by TF: {'OK' if not failures else 'FAILED'}"
    )
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
