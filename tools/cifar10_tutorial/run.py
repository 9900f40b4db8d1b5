"""Runs TF's CIFAR-10 tutorial on flowloom, on CIFAR-10-format files made from bundled data.

    FLOWLOOM_CIFAR10_TUTORIAL=/path/to/tutorial/files python3 tools/cifar10_tutorial/run.py \
        [--set single_device|multi_tower] [--steps 60] [--batch_size 32] [--work DIR]

The tutorial's files (see manifest.json for repository, commits and the harness's edits) are
read from FLOWLOOM_CIFAR10_TUTORIAL; without it the script says so and exits 0 ("skipped").
Each program runs in its own process with `import tensorflow` mapped to flowloom; the last
line printed is a JSON summary (steps trained, precision @ 1 of the evaluation).
"""

import argparse
import json
import os
import re
import runpy
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MANIFEST = json.load(open(os.path.join(HERE, "manifest.json")))


def _install_tensorflow():
    sys.path.insert(0, ROOT)
    from flowloom.compat.importer import install_as_tensorflow

    install_as_tensorflow()
    import tensorflow as tf

    return tf


def _six_if_missing():
    """The tutorial imports six (xrange, urllib); Python 3 has both: a stand-in if six is not
    installed."""
    try:
        import six  # noqa: F401
    except ImportError:
        import types
        import urllib

        six = types.ModuleType("six")
        moves = types.ModuleType("six.moves")
        moves.xrange = range
        moves.urllib = urllib
        six.moves = moves
        sys.modules["six"] = six
        sys.modules["six.moves"] = moves


def _stage(args):
    """Inside the child process: import the tutorial's modules, apply the edits, run one
    program as __main__."""
    tf = _install_tensorflow()
    _six_if_missing()
    sys.path.insert(0, args.tutorial)
    counts = json.loads(args.counts)
    own_flags = ["--data_dir", args.data_dir, "--batch_size", str(args.batch_size)]
    saved_argv = sys.argv
    sys.argv = [os.path.join(args.tutorial, "cifar10.py")] + \
        (own_flags if args.set == "single_device" else [])
    import cifar10_input

    cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = counts["train"]
    cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = counts["test"]
    import cifar10

    cifar10.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = counts["train"]
    cifar10.NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = counts["test"]
    cifar10.maybe_download_and_extract = lambda: None
    if args.set == "multi_tower":
        base = tf.ConfigProto

        def config(*a, **kw):
            kw.setdefault("device_count", {"CPU": 2})
            kw["allow_soft_placement"] = True
            return base(*a, **kw)

        tf.ConfigProto = config
    script = os.path.join(args.tutorial, args.program)
    if args.program == "cifar10_eval.py":
        extra = ["--checkpoint_dir", args.train_dir, "--eval_dir", args.eval_dir,
                 "--num_examples", str(counts["test"]), "--run_once", "True"]
    elif args.program == "cifar10_multi_gpu_train.py":
        extra = ["--train_dir", args.train_dir, "--max_steps", str(args.steps),
                 "--num_gpus", "2"]
    else:
        extra = ["--train_dir", args.train_dir, "--max_steps", str(args.steps)]
    sys.argv = [script] + own_flags + extra
    del saved_argv
    runpy.run_path(script, run_name="__main__")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--tutorial", default=os.environ.get("FLOWLOOM_CIFAR10_TUTORIAL"))
    p.add_argument("--set", default="single_device", choices=sorted(MANIFEST["sets"]))
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--batch_size", type=int, default=32)
    p.add_argument("--work", default=None)
    p.add_argument("--stage", default=None)
    p.add_argument("--program", default=None)
    p.add_argument("--counts", default=None)
    p.add_argument("--data_dir", default=None)
    p.add_argument("--train_dir", default=None)
    p.add_argument("--eval_dir", default=None)
    args = p.parse_args()
    if args.stage:
        return _stage(args)
    if not args.tutorial:
        print("skipped: set FLOWLOOM_CIFAR10_TUTORIAL to a directory holding the tutorial's "
              "files (tools/cifar10_tutorial/manifest.json lists them)")
        return 0
    files = MANIFEST["sets"][args.set]["files"]
    missing = [f for f in files if not os.path.exists(os.path.join(args.tutorial, f))]
    if missing:
        print(f"skipped: {args.tutorial} lacks {', '.join(missing)}")
        return 0
    sys.path.insert(0, ROOT)
    from flowloom.examples.cifar10_format import write_cifar10_binaries

    work = args.work or tempfile.mkdtemp(prefix="cifar10_tutorial_")
    data_dir = os.path.join(work, "data")
    _, n_train, n_test = write_cifar10_binaries(data_dir)
    counts = json.dumps({"train": n_train, "test": n_test})
    train_dir, eval_dir = os.path.join(work, "train"), os.path.join(work, "eval")
    summary = {"set": args.set, "work": work}
    programs = MANIFEST["sets"][args.set]["programs"]
    if args.set == "multi_tower":
        programs = programs + ["cifar10_eval.py"]
    for program in programs:
        cmd = [sys.executable, os.path.abspath(__file__), "--stage", "run", "--program", program,
               "--tutorial", args.tutorial, "--set", args.set, "--steps", str(args.steps),
               "--batch_size", str(args.batch_size), "--counts", counts,
               "--data_dir", data_dir, "--train_dir", train_dir, "--eval_dir", eval_dir]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        sys.stdout.write(proc.stdout)
        sys.stderr.write(proc.stderr[-4000:])
        summary[program] = {"returncode": proc.returncode}
        m = re.findall(r"precision @ 1 = ([0-9.]+)", proc.stdout)
        if m:
            summary[program]["precision_at_1"] = float(m[-1])
        steps = re.findall(r"step (\d+), loss = ([0-9.]+)", proc.stdout)
        if steps:
            summary[program]["last_logged"] = [int(steps[-1][0]), float(steps[-1][1])]
        if proc.returncode != 0:
            break
    print(json.dumps(summary))
    return 0 if all(v.get("returncode") == 0 for v in summary.values()
                    if isinstance(v, dict)) else 1


if __name__ == "__main__":
    sys.exit(main())
