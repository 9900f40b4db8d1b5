"""What a Saver saves: its `var_list` turned into SaveableObjects (saveable_object.py), one
per variable, slice of a partitioned variable, or custom saveable (a lookup table).

The names are TF's: a variable's op name, or the full name of the partitioned variable a
slice belongs to (its SaveSliceInfo), each slice written with its spec ("10 3 0,4:0,3"); a
SaveableObject under its own name. An object with `_gather_saveables_for_checkpoint` (TF's
trackable protocol) is saved through the variables or saveables it returns.
"""

from flowloom.framework.ops import Tensor
from flowloom.train.saveable_object import (ReferenceVariableSaveable,
                                            ResourceVariableSaveable, SaveableObject)

# The key under which a trackable object returns the value that stands for itself.
VARIABLE_VALUE_KEY = "VARIABLE_VALUE"
_VARIABLE_OPS = ("Variable", "VariableV2", "AutoReloadVariable", "VarHandleOp",
                 "ReadVariableOp", "Identity")


def _is_trackable(obj):
    from flowloom.variables import Variable

    return hasattr(obj, "_gather_saveables_for_checkpoint") and not isinstance(obj, Variable)


def _variable_saveable(var, spec, name):
    """The SaveableObject of one variable, variable tensor or resource handle."""
    from flowloom.resource_variable import is_resource_target
    from flowloom.variables import Variable

    if is_resource_target(var) or (isinstance(var, Tensor) and
                                   var._op._type == "ReadVariableOp"):
        return ResourceVariableSaveable(var, spec, name)
    if isinstance(var, Variable) or (isinstance(var, Tensor) and (
            var._dtype.is_ref_dtype or var._op._type in _VARIABLE_OPS)):
        return ReferenceVariableSaveable(var, spec, name)
    raise TypeError(f"Variable to save is not a Variable: {var!r}")


def _slice_saveables(name, slices):
    """The Saveables of a list of slices of one partitioned variable `name`."""
    from flowloom.variables import Variable

    out, full_name = [], None
    for var in slices:
        if not isinstance(var, Variable):
            raise ValueError(f"Slices must all be Variables: {var}")
        info = var._get_save_slice_info()
        if not info:
            raise ValueError(f"Slices must all be slices: {var}")
        if full_name is None:
            full_name = info.full_name
        elif full_name != info.full_name:
            raise ValueError(f"Slices must all be from the same tensor: {full_name} != "
                             f"{info.full_name}")
        out.append(_variable_saveable(var, info.spec, name))
    return out


def _saveables_for(var, name):
    """The SaveableObjects that save `var` under `name` (TF's saveable_objects_for_op)."""
    from flowloom.partitioned_variables import PartitionedVariable

    if not isinstance(name, str):
        raise TypeError("names_to_saveables must be a dict mapping string names to trackable "
                        f"operations. Name is not a string: {name!r}")
    if isinstance(var, SaveableObject):
        return [var]
    if isinstance(var, PartitionedVariable):
        var = list(var)
    if isinstance(var, (list, tuple)):
        return _slice_saveables(name, var)
    if _is_trackable(var):
        out = []
        for attr, factory in var._gather_saveables_for_checkpoint().items():
            full_name = name if attr == VARIABLE_VALUE_KEY else f"{name}_{attr}"
            item = factory(full_name) if callable(factory) else factory
            out.extend(_saveables_for(item, item.name))
        return out
    return [_variable_saveable(var, "", name)]


def _checkpoint_name(var):
    """The name a variable or saveable is saved under when listed (not keyed)."""
    from flowloom.variables import Variable

    if isinstance(var, SaveableObject):
        return var.name
    ref = var._variable if isinstance(var, Variable) else getattr(var, "_handle", var)
    op = ref._op
    if op._type == "ReadVariableOp":
        op = op._inputs[0]._op
    return op._name


def _names_to_variables(var_list):
    """A list of variables -> {checkpoint name: variable, or list of slices}, as TF's
    op_list_to_dict: slices gather under their full name, the others under their op name."""
    from flowloom.partitioned_variables import PartitionedVariable
    from flowloom.variables import Variable

    if not isinstance(var_list, (list, tuple, set)):
        raise TypeError(f"Variables to save should be passed in a dict or a list: {var_list}")
    flat = []
    for var in var_list:
        flat.extend(var if isinstance(var, (list, tuple)) else [var])
    by_name, seen = {}, set()
    for var in sorted(flat, key=lambda v: v.name):
        if id(var) in seen:
            continue
        seen.add(id(var))
        if isinstance(var, SaveableObject):
            by_name[var.name] = var
        elif _is_trackable(var):
            items = [f() if callable(f) else f
                     for f in var._gather_saveables_for_checkpoint().values()]
            by_name.update(_names_to_variables(items))
        elif isinstance(var, PartitionedVariable):
            if var.name in by_name:
                raise ValueError(f"At least two variables have the same name: {var.name}")
            by_name[var.name] = var
        elif isinstance(var, Variable) and var._get_save_slice_info():
            name = var._get_save_slice_info().full_name
            if name in by_name and not isinstance(by_name[name], list):
                raise ValueError(f"Mixing slices and non-slices with the same name: {name}")
            by_name.setdefault(name, []).append(var)
        elif isinstance(var, (Variable, Tensor)):
            name = _checkpoint_name(var)
            if name in by_name:
                raise ValueError(f"At least two variables have the same name: {name}")
            by_name[name] = var
        else:
            raise TypeError(f"Variable to save is not a Variable: {var!r}")
    return by_name


def saveables(var_list):
    """`var_list` (list or dict) -> [SaveableObject] sorted by checkpoint name, as TF orders
    them (the slices of one variable in the order listed; a PartitionedVariable's by offset).

    Raises:
      TypeError: for a key that is not a string or an entry that is not a variable.
      ValueError: for two variables of one name, one variable under two names, or slices
        that are not slices of one variable.
    """
    if isinstance(var_list, dict):
        for name in var_list:
            if not isinstance(name, str):
                raise TypeError(f"var_list keys must be strings, got {name!r}")
        by_name = dict(var_list)
    else:
        by_name = _names_to_variables(var_list)
    out, seen = [], {}
    for name in sorted(by_name):
        for item in _saveables_for(by_name[name], name):
            key = id(item.op)
            if key in seen:
                raise ValueError(f"The same saveable will be restored with two names: "
                                 f"{seen[key]} and {name}")
            seen[key] = name
            out.append(item)
    return out


def make_concat_for_collections(graph):
    """Builds the full value of each PartitionedVariable in a collection that has none yet
    (a meta graph's collections name it by that op), as TF's Saver does."""
    from flowloom.partitioned_variables import PartitionedVariable

    for key in graph.get_all_collection_keys():
        for item in graph.get_collection(key):
            if isinstance(item, PartitionedVariable):
                try:
                    graph.get_operation_by_name(item.name)
                except KeyError:
                    item.as_tensor()
