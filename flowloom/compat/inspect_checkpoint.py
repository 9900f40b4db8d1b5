"""`tensorflow.python.tools.inspect_checkpoint`: printing what a checkpoint holds, as TF's tool
prints it (`print_tensors_in_checkpoint_file`)."""

import re

import numpy as np

from flowloom.train.checkpoint_utils import NewCheckpointReader


def _count_total_params(reader, count_exclude_pattern=""):
    var_to_shape_map = reader.get_variable_to_shape_map()
    if count_exclude_pattern:
        regex = re.compile(count_exclude_pattern)
        kept = {}
        excluded_tensors = excluded_params = 0
        for name, shape in var_to_shape_map.items():
            if regex.search(name):
                excluded_tensors += 1
                excluded_params += np.prod(shape)
            else:
                kept[name] = shape
        var_to_shape_map = kept
        print("# Excluding %d tensors (%d params) that match %s when counting." % (
            excluded_tensors, excluded_params, count_exclude_pattern))
    return np.sum([np.prod(shape) for shape in var_to_shape_map.values()], dtype=np.int64)


def print_tensors_in_checkpoint_file(file_name, tensor_name, all_tensors,
                                     all_tensor_names=False, count_exclude_pattern=""):
    """Prints the tensors of the checkpoint `file_name` (a prefix), then the parameter count.

    Args:
      file_name: the checkpoint prefix.
      tensor_name: one tensor to print, or "" / None for the list of names, dtypes and shapes.
      all_tensors: print every tensor's name and value.
      all_tensor_names: print every tensor's name.
      count_exclude_pattern: a regex of names left out of the parameter count.
    """
    try:
        reader = NewCheckpointReader(file_name)
        if all_tensors or all_tensor_names:
            for key in sorted(reader.get_variable_to_shape_map()):
                print("tensor_name: ", key)
                if all_tensors:
                    print(reader.get_tensor(key))
        elif not tensor_name:
            text = reader.debug_string()
            print(text.decode("utf-8") if isinstance(text, bytes) else text)
        else:
            print("tensor_name: ", tensor_name)
            print(reader.get_tensor(tensor_name))
        print("# Total number of params: %d" % _count_total_params(
            reader, count_exclude_pattern=count_exclude_pattern))
    except Exception as e:  # noqa: BLE001 - TF's tool prints the error instead of raising
        print(str(e))
        if "Data loss" in str(e) and any(s in file_name for s in (".index", ".meta", ".data")):
            proposed = ".".join(file_name.split(".")[0:-1])
            print("\nIt's likely that this is a V2 checkpoint and you need to provide the "
                  "filename\n*prefix*.  Try removing the '.' and extension.  Try:\n"
                  f"inspect checkpoint --file_name = {proposed}")
