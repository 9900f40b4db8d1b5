"""TF's checkpoint names for the canned estimators' variables, so checkpoints go both ways.

TF's canned estimators create their model variables partitioned (one partition,
`.../part_0`) and name each optimizer slot in the checkpoint by cutting the slot variable's
name at the length of its primary's `part_0` name: a slot created under the variable scope
`dnn` becomes `dnn/hiddenlayer_0/kernel/t_0/Adagrad`, one under `linear`
`linear/linear_model/x/weights/part_0/Ftrl`, one created outside any scope
`dnn/logits/kernel/Adagrad`. flowloom's variables are not partitioned; the Saver here writes and
reads them under those names, so TF's checkpoints resume training in flowloom and flowloom's
restore in TF.
"""

_PART = "/part_0/"


def tf_slot_key(primary_name, slot_name):
    """The checkpoint name TF gives the slot `slot_name` of the partitioned `primary_name`."""
    at = slot_name.rfind(primary_name + "/")
    if at < 0:
        return slot_name
    prefix, tail = slot_name[:at], slot_name[at + len(primary_name) + 1:]
    full = prefix + primary_name + _PART + tail
    return primary_name + "/" + full[len(primary_name) + len(_PART):]


def checkpoint_var_list(optimizers):
    """{checkpoint name: variable} of the graph's global variables with TF's slot names."""
    from flowloom.variables import global_variables

    names = {}
    slots = {}
    for opt in optimizers:
        for name in opt.get_slot_names():
            for var in global_variables():
                slot = opt.get_slot(var, name)
                if slot is not None:
                    slots[slot] = tf_slot_key(var.op.name, slot.op.name)
    for var in global_variables():
        info = var._get_save_slice_info() if hasattr(var, "_get_save_slice_info") else None
        if info:
            # A slice of a partitioned variable (or of its slot): saved as TF saves it, one
            # slice of the full name.
            names.setdefault(info.full_name, []).append(var)
        else:
            names[slots.get(var, var.op.name)] = var
    return names


def with_tf_checkpoint_names(spec, optimizers, config):
    """`spec` with a Scaffold whose Saver uses TF's checkpoint names (as the Estimator's
    default Saver is built: sharded, relative paths, the RunConfig's retention)."""
    from flowloom.train.saver import Saver
    from flowloom.train.scaffold import Scaffold

    if spec.scaffold is not None and spec.scaffold.saver is not None:
        return spec
    keep = getattr(config, "keep_checkpoint_max", 5) if config is not None else 5
    hours = getattr(config, "keep_checkpoint_every_n_hours", 10000) if config is not None \
        else 10000
    saver = Saver(var_list=checkpoint_var_list(optimizers), sharded=True, max_to_keep=keep,
                  keep_checkpoint_every_n_hours=hours,
                  save_relative_paths=True)
    return spec._replace(scaffold=Scaffold(saver=saver, copy_from_scaffold=spec.scaffold))
