"""Runs TF's CIFAR-10 tutorial on flowloom, on CIFAR-10-format files made from bundled data.

    FLOWLOOM_CIFAR10_TUTORIAL=/path/to/tutorial/files python3 tools/cifar10_tutorial/run.py \
        [--set single_device|multi_tower] [--steps 60] [--batch_size 32] [--work DIR]

The tutorial's files (see manifest.json for repository, commits and the harness's edits) are
read from FLOWLOOM_CIFAR10_TUTORIAL (the multi_tower set's, whose cifar10.py is of another era,
from its multi_tower/ subdirectory); without it the script says so and exits 0 ("skipped").
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


def _wrap_tower_loop_in_root_variable_scope(text):
    """The fix tensorflow/models later made to cifar10_multi_gpu_train.py: the tower loop runs
    inside `with tf.variable_scope(tf.get_variable_scope()):`, so the towers' reuse=True ends
    with the loop. Raises ValueError when the file does not have the expected loop."""
    lines = text.split("\n")
    start = next((i for i, line in enumerate(lines)
                  if line.strip() == "for i in xrange(FLAGS.num_gpus):"), None)
    if start is None:
        raise ValueError("cifar10_multi_gpu_train.py has no `for i in xrange(FLAGS.num_gpus):`")
    indent = lines[start][:len(lines[start]) - len(lines[start].lstrip())]
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or
                                lines[end].startswith(indent + " ")):
        end += 1
    body = ["  " + line if line.strip() else line for line in lines[start:end]]
    wrapped = [indent + "with tf.variable_scope(tf.get_variable_scope()):"] + body
    return "\n".join(lines[:start] + wrapped + lines[end:])


_SOURCE_EDITS = {"wrap_tower_loop_in_root_variable_scope":
                 _wrap_tower_loop_in_root_variable_scope}


def _edited_copy(tutorial, set_name, work):
    """A copy of a set's files in `work` with the manifest's source_edits applied (the fetched
    files stay as they are). Returns the copy's directory."""
    edits = MANIFEST["sets"][set_name].get("source_edits", [])
    out = os.path.join(work, "tutorial_" + set_name)
    os.makedirs(out, exist_ok=True)
    for name in MANIFEST["sets"][set_name]["files"]:
        with open(os.path.join(tutorial, name)) as f:
            text = f.read()
        for edit in edits:
            if edit["file"] == name:
                text = _SOURCE_EDITS[edit["edit"]](text)
        with open(os.path.join(out, name), "w") as f:
            f.write(text)
    return out


def _set_dir(tutorial, set_name, program=None):
    """Where a set's files are: the multi_tower set's own files (cifar10.py of the tf.app.flags
    era) in tutorial/multi_tower when that exists; its evaluation is the argparse-era
    cifar10_eval.py of the single_device set, which restores the same variable names."""
    own = os.path.join(tutorial, set_name)
    if set_name == "multi_tower" and program != "cifar10_eval.py" and os.path.isdir(own):
        return own
    return tutorial


def _stage(args):
    """Inside the child process: import the tutorial's modules, apply the edits, run one
    program as __main__."""
    tf = _install_tensorflow()
    _six_if_missing()
    tutorial = args.files if args.files and args.program != "cifar10_eval.py" else \
        _set_dir(args.tutorial, args.set, args.program)
    sys.path.insert(0, tutorial)
    counts = json.loads(args.counts)
    own_flags = ["--data_dir", args.data_dir, "--batch_size", str(args.batch_size)]
    saved_argv = sys.argv
    argparse_era = tutorial == args.tutorial or args.set == "single_device"
    sys.argv = [os.path.join(tutorial, "cifar10.py")] + (own_flags if argparse_era else [])
    import cifar10_input

    cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = counts["train"]
    cifar10_input.NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = counts["test"]
    import cifar10

    cifar10.NUM_EXAMPLES_PER_EPOCH_FOR_TRAIN = counts["train"]
    cifar10.NUM_EXAMPLES_PER_EPOCH_FOR_EVAL = counts["test"]
    cifar10.maybe_download_and_extract = lambda: None
    if args.program == "cifar10_multi_gpu_train.py":
        base = tf.ConfigProto

        def config(*a, **kw):
            kw.setdefault("device_count", {"CPU": 2})
            kw["allow_soft_placement"] = True
            return base(*a, **kw)

        tf.ConfigProto = config
        base_device = tf.device

        def device(name_or_function):
            # /gpu:N -> /cpu:N: one tower per CPU device (TF's soft placement would put every
            # tower on /cpu:0).
            if isinstance(name_or_function, str):
                name_or_function = re.sub(r"/(?:device:)?gpu:(\d+)", r"/cpu:\1",
                                          name_or_function, flags=re.IGNORECASE)
            return base_device(name_or_function)

        tf.device = device
    script = os.path.join(tutorial, args.program)
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
    p.add_argument("--unchanged", action="store_true",
                   help="run the files as fetched, without the manifest's source_edits")
    p.add_argument("--files", default=None)
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
    where = _set_dir(args.tutorial, args.set)
    missing = [f for f in files if not os.path.exists(os.path.join(where, f))]
    if args.set == "multi_tower":
        missing += [f for f in MANIFEST["sets"]["single_device"]["files"]
                    if not os.path.exists(os.path.join(args.tutorial, f))]
    if missing:
        print(f"skipped: {where} lacks {', '.join(missing)}")
        return 0
    sys.path.insert(0, ROOT)
    from flowloom.examples.cifar10_format import write_cifar10_binaries

    work = args.work or tempfile.mkdtemp(prefix="cifar10_tutorial_")
    data_dir = os.path.join(work, "data")
    _, n_train, n_test = write_cifar10_binaries(data_dir)
    counts = json.dumps({"train": n_train, "test": n_test})
    files_dir = where
    if MANIFEST["sets"][args.set].get("source_edits") and not args.unchanged:
        files_dir = _edited_copy(where, args.set, work)
    train_dir, eval_dir = os.path.join(work, "train"), os.path.join(work, "eval")
    summary = {"set": args.set, "work": work, "source_edits": [
        e["edit"] for e in MANIFEST["sets"][args.set].get("source_edits", [])
        if not args.unchanged]}
    programs = MANIFEST["sets"][args.set]["programs"]
    if args.set == "multi_tower":
        programs = programs + ["cifar10_eval.py"]
    for program in programs:
        cmd = [sys.executable, os.path.abspath(__file__), "--stage", "run", "--program", program,
               "--tutorial", args.tutorial, "--files", files_dir, "--set", args.set, "--steps", str(args.steps),
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
