"""Records what TF 1.15 does with tests/data/variable_updates_program.py into
tests/data/variable_updates_tf.json (what updates return; what reads of a variable see).

    TF_CPP_MIN_LOG_LEVEL=3 $FLOWLOOM_TF1_PYTHON tests/data/record_variable_updates.py
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import variable_updates_program as program  # noqa: E402


def main():
    import tensorflow.compat.v1 as tf

    record = {name: getattr(program, name)(tf)
              for name in ("cond_assign_in_loop", "aliased_reads", "resource_update_results")}
    with open(os.path.join(HERE, "variable_updates_tf.json"), "w") as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print(json.dumps(record, sort_keys=True)[:3000])


if __name__ == "__main__":
    main()
