"""`tf.estimator.inputs`: input functions over NumPy arrays and pandas DataFrames."""

from flowloom.estimator.inputs.numpy_io import numpy_input_fn  # noqa: F401
from flowloom.estimator.inputs.pandas_io import pandas_input_fn  # noqa: F401
