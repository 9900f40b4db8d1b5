"""tf.data.experimental's `TFRecordWriter` (a dataset of strings written to a TFRecord file)
and `SqlDataset` (the rows of a SQLite query), as TF 1.15 builds them.

    writer = tf.data.experimental.TFRecordWriter("/tmp/out.tfrecord")
    write_op = writer.write(tf.data.Dataset.from_tensor_slices(records))
    rows = tf.data.experimental.SqlDataset("sqlite", "/tmp/db.sqlite",
                                           "SELECT name, age FROM people", (tf.string, tf.int32))
"""

from flowloom.data import structure
from flowloom.data.dataset import Dataset
from flowloom.framework import dtypes, nest
from flowloom.framework.apply_op import apply_op
from flowloom.framework.ops import convert_to_tensor
from flowloom.ops.data import io_dataset_ops  # noqa: F401 - registers the ops


class TFRecordWriter:
    """Writes the elements of a dataset of scalar strings to one TFRecord file.

    Args:
      filename: the file's path (string tensor).
      compression_type: None or "" (none), "ZLIB" or "GZIP".
    """

    def __init__(self, filename, compression_type=None):
        self._filename = convert_to_tensor(filename, dtypes.string, name="filename")
        self._compression_type = convert_to_tensor(
            "" if compression_type is None else compression_type, dtypes.string,
            name="compression_type")

    def write(self, dataset):
        """The op (DatasetToTFRecord) that, when run, writes every element of `dataset`.

        Raises:
          TypeError: `dataset` is not a dataset of scalar strings.
        """
        if not isinstance(dataset, Dataset):
            raise TypeError("`dataset` must be a `tf.data.Dataset` object.")
        flat = structure.flatten(dataset.element_spec)
        if nest.is_nested(dataset.element_spec) or len(flat) != 1 or \
                flat[0].dtype != dtypes.string or not flat[0].shape.is_compatible_with([]):
            raise TypeError(f"`dataset` must produce scalar `DT_STRING` tensors whereas it "
                            f"produces shape {dataset.output_shapes} and types "
                            f"{dataset.output_types}")
        return apply_op("DatasetToTFRecord", (dataset._variant, self._filename,
                                              self._compression_type))


class SqlDataset(Dataset):
    """The rows of `query` run on a database, one element per row (a tuple of scalars of
    `output_types`).

    Args:
      driver_name: "sqlite" (the one database TF supports).
      data_source_name: the SQLite file's path (opened read-only).
      query: the SQL query.
      output_types: one dtype per column: tf.string, int8/16/32/64, uint8/16, bool,
        float64.
    """

    def __init__(self, driver_name, data_source_name, query, output_types):
        driver = convert_to_tensor(driver_name, dtypes.string, name="driver_name")
        source = convert_to_tensor(data_source_name, dtypes.string, name="data_source_name")
        query = convert_to_tensor(query, dtypes.string, name="query")
        spec = nest.map_structure(lambda t: structure.TensorSpec(t, []), output_types)
        variant = apply_op("SqlDataset", (driver, source, query),
                           **structure.op_attrs(spec)).outputs[0]
        super().__init__(variant, spec)
