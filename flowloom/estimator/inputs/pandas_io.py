"""`tf.estimator.inputs.pandas_input_fn`: an input_fn over a pandas DataFrame (pandas is
optional; the function raises TypeError without it, as TF's does)."""

import uuid

import numpy as np


def _get_unique_target_key(features, target_column_name):
    if target_column_name in features:
        target_column_name += "_" + str(uuid.uuid4())
    return target_column_name


def pandas_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                    queue_capacity=1000, num_threads=1, target_column="target"):
    """An input_fn that feeds the columns of DataFrame `x` (and Series/DataFrame `y`).

    Example:
      input_fn = tf.estimator.inputs.pandas_input_fn(df, df.pop("label"), shuffle=False)

    Returns:
      A function that returns (features dict, labels) or the features dict.

    Raises:
      TypeError: pandas is not installed, or `target_column` is not a string.
      ValueError: `shuffle` not a bool, `target_column` already a column, or indexes of x
        and y differ.
    """
    try:
        import pandas as pd  # noqa: PLC0415 - optional dependency
    except ImportError:
        raise TypeError("pandas_input_fn should not be called without pandas installed") from None
    from flowloom.estimator.inputs.feeding import enqueue_data

    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         "recommended to set it as True for training); got {}".format(shuffle))
    if not isinstance(target_column, str):
        raise TypeError("target_column must be a string type")
    x = x.copy()
    y_columns = None
    if y is not None:
        if target_column in x:
            raise ValueError("Cannot use name %s for target column: DataFrame already has a "
                             "column with that name: %s" % (target_column, x.columns))
        if not np.array_equal(x.index, y.index):
            raise ValueError("Index for x and y are mismatched.\nIndex for x: %s\n"
                             "Index for y: %s\n" % (x.index, y.index))
        if isinstance(y, pd.DataFrame):
            y_columns = [(column, _get_unique_target_key(x, column)) for column in list(y)]
            target_column = [v for _, v in y_columns]
            x[target_column] = y
        else:
            x[target_column] = y
    if queue_capacity is None:
        queue_capacity = 4 * len(x) if shuffle else len(x)
    min_after_dequeue = max(queue_capacity / 4, 1)

    def input_fn():
        queue = enqueue_data(x, queue_capacity, shuffle=shuffle,
                             min_after_dequeue=min_after_dequeue, num_threads=num_threads,
                             enqueue_size=batch_size, num_epochs=num_epochs)
        features = (queue.dequeue_many(batch_size) if num_epochs is None
                    else queue.dequeue_up_to(batch_size))
        features = dict(zip(list(x.columns), list(features)[1:]))
        if y is None:
            return features
        if isinstance(target_column, list):
            keys = [k for k, _ in y_columns]
            return features, {k: features.pop(c) for k, c in zip(keys, target_column)}
        return features, features.pop(target_column)
    return input_fn
