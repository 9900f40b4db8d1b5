"""Runs every benchmark in bench/ one after the other (`python3 dev.py bench`).

Each script compares flowloom with real TensorFlow (run in a subprocess when a TensorFlow
install is named by FLOWLOOM_TF_PYTHON or --tf-python) and with plain NumPy where that
makes sense. Pass script names to run only those: `python3 dev.py bench core mlp_step`.
"""

import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ORDER = ["core", "run_overhead", "mlp_step", "cnn_step", "devices", "while_loop", "lstm_step",
         "lint_overhead"]


def main(argv):
    wanted = argv or [n for n in ORDER if os.path.exists(os.path.join(HERE, n + ".py"))]
    failed = []
    for name in wanted:
        print(f"\n=== bench/{name}.py", flush=True)
        rc = subprocess.call([sys.executable, os.path.join(HERE, name + ".py")],
                             cwd=os.path.dirname(HERE))
        if rc:
            failed.append(name)
    if failed:
        print("\nfailed:", ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
