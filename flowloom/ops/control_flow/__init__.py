"""TF1 dataflow control flow: Switch/Merge/Enter/Exit, cond, while_loop, TensorArray, map_fn."""
