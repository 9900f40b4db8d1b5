"""`tf.estimator.inputs.numpy_input_fn`: an input_fn over NumPy arrays, fed through a queue
as TF 1.15 does (FIFO in order, or a RandomShuffleQueue from a random start)."""

import collections

import numpy as np

_TARGET_KEY = "__target_key__"


def _get_unique_target_key(features):
    target_key = _TARGET_KEY
    while target_key in features:
        target_key += "_n"
    return target_key


def _validate_and_convert_features(x):
    if isinstance(x, dict):
        if not x:
            raise ValueError("x cannot be an empty dict")
        return collections.OrderedDict(sorted(x.items(), key=lambda t: t[0]))
    if isinstance(x, np.ndarray):
        if x.size == 0:
            raise ValueError("x cannot be an empty array")
        return collections.OrderedDict({"__direct_np_input__": x})
    raise TypeError(f"x must be a dict or array; got {type(x).__name__}")


def numpy_input_fn(x, y=None, batch_size=128, num_epochs=1, shuffle=None,
                   queue_capacity=1000, num_threads=1):
    """An input_fn that feeds dicts of NumPy arrays (or one array) into the model.

    With `num_epochs` set, the last batch may be smaller (`dequeue_up_to`) and the input
    ends (OutOfRangeError) after the epochs; with None it repeats forever in full batches.

    Example:
      input_fn = tf.estimator.inputs.numpy_input_fn(
          x={"x": train_x}, y=train_y, batch_size=32, num_epochs=None, shuffle=True)
      estimator.train(input_fn, steps=1000)

    Args:
      x: dict of feature name -> array, or one array (the features are then a Tensor).
      y: array or dict of arrays of labels, or None.
      batch_size: rows per batch.
      num_epochs: passes over the data (None: forever).
      shuffle: whether to shuffle the rows (must be given).
      queue_capacity: the queue's size.
      num_threads: feeding threads (epochs are counted per thread).

    Returns:
      A function that returns (features, labels) or features.

    Raises:
      ValueError: `shuffle` not a bool, empty inputs, keys in both x and y, lengths differ.
      TypeError: `x` is neither a dict nor an array.
    """
    from flowloom.estimator.inputs.feeding import enqueue_data

    if not isinstance(shuffle, bool):
        raise ValueError("shuffle must be provided and explicitly set as boolean (it is "
                         "recommended to set it as True for training); got {}".format(shuffle))

    def input_fn():
        data = _validate_and_convert_features(x)
        feature_keys = list(data.keys())
        if y is None:
            target_keys = None
        elif isinstance(y, dict):
            if not y:
                raise ValueError("y cannot be empty dict, use None instead.")
            ordered_y = collections.OrderedDict(sorted(y.items(), key=lambda t: t[0]))
            target_keys = list(ordered_y.keys())
            duplicate_keys = set(feature_keys).intersection(set(target_keys))
            if duplicate_keys:
                raise ValueError("{} duplicate keys are found in both x and y: {}".format(
                    len(duplicate_keys), duplicate_keys))
            data.update(ordered_y)
        else:
            target_keys = _get_unique_target_key(data)
            data[target_keys] = y
        if len({v.shape[0] for v in data.values()}) != 1:
            shape_of_x = {k: data[k].shape for k in feature_keys}
            if target_keys is None:
                shape_of_y = None
            elif isinstance(target_keys, str):
                shape_of_y = y.shape
            else:
                shape_of_y = {k: data[k].shape for k in target_keys}
            raise ValueError("Length of tensors in x and y is mismatched. All elements in x "
                             "and y must have the same length.\nShapes in x: {}\nShapes in y: "
                             "{}\n".format(shape_of_x, shape_of_y))
        queue = enqueue_data(data, queue_capacity, shuffle=shuffle, num_threads=num_threads,
                             enqueue_size=batch_size, num_epochs=num_epochs)
        batch = (queue.dequeue_many(batch_size) if num_epochs is None
                 else queue.dequeue_up_to(batch_size))
        batch = list(batch)
        if batch:
            batch.pop(0)
        if isinstance(x, np.ndarray):
            features = batch[0]
        else:
            features = dict(zip(feature_keys, batch[:len(feature_keys)]))
        if target_keys is None:
            return features
        if isinstance(target_keys, str):
            return features, batch[-1]
        return features, dict(zip(target_keys, batch[-len(target_keys):]))
    return input_fn
