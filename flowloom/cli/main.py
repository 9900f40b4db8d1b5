"""The `flowloom` command."""

import argparse
import sys


_RUN_USAGE = ("usage: flowloom run script.py [args...]\n\n"
              "Runs a TF1 script with `import tensorflow` (and tensorflow.compat.v1, "
              "tensorflow.contrib.*,\ntensorflow.python.*, ...) mapped onto flowloom; "
              "the arguments after the script are its own.")
_COMMANDS = ("run", "demo", "seeds", "lint", "explain", "inspect", "launch")


def main(argv=None, script_by_default=False):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and (argv[0] == "run" or (script_by_default and argv[0] not in _COMMANDS
                                      and not argv[0].startswith("-"))):
        # Everything after the script belongs to the script, flags included.
        from flowloom.cli.run import run_script

        rest = argv[1:] if argv[0] == "run" else argv
        if rest and rest[0] in ("-h", "--help"):
            print(_RUN_USAGE)
            return 0
        if not rest or rest[0].startswith("-"):
            sys.stderr.write(_RUN_USAGE + "\n")
            return 2
        return run_script(rest[0], rest[1:])
    parser = argparse.ArgumentParser(prog="flowloom", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run a TF1 script with `import tensorflow` mapped onto flowloom")
    sub.add_parser("demo", help="train the multi-tower CNN on handwritten digits")
    sub.add_parser("seeds", help="run the examples from the source documents")
    inspect = sub.add_parser("inspect", help="show what a SavedModel, checkpoint, GraphDef, "
                             "event file or TFRecord file holds")
    inspect.add_argument("path")
    inspect.add_argument("--values", action="store_true", help="print checkpoint values")
    inspect.add_argument("--run", action="store_true", help="run a SavedModel signature")
    inspect.add_argument("--signature", default="serving_default")
    inspect.add_argument("--tag_set", default="serve", help="comma-separated tags")
    inspect.add_argument("--input", action="append", default=[],
                         help="name=file.npy (or file.npz[key]) for --run")
    lint = sub.add_parser("lint", help="run a TF1 script and report the mistakes TF is silent "
                          "about (exit status 1 when there are findings)")
    lint.add_argument("--format", choices=["text", "json"], default="text")
    lint.add_argument("--output", help="write the report to this file instead of stdout")
    lint.add_argument("script")
    lint.add_argument("args", nargs=argparse.REMAINDER)
    launch = sub.add_parser("launch", help="start a cluster's ps and worker tasks of a TF1 "
                            "script on this machine (each with --job_name/--task_index/"
                            "--ps_hosts/--worker_hosts) and stream their output")
    launch.add_argument("--ps", type=int, default=1, help="number of ps tasks")
    launch.add_argument("--workers", type=int, default=2, help="number of worker tasks")
    launch.add_argument("script")
    launch.add_argument("args", nargs=argparse.REMAINDER)
    explain = sub.add_parser("explain", help="why each op of a run runs, where, and what is "
                             "copied between devices, for a GraphDef/MetaGraphDef file")
    explain.add_argument("graph", help="a .pb/.pbtxt GraphDef, a .meta MetaGraphDef or a "
                         "SavedModel directory")
    explain.add_argument("--fetch", action="append", required=True, help="op or tensor name")
    explain.add_argument("--feed", action="append", default=[], help="tensor name to feed")
    explain.add_argument("--format", choices=["text", "json"], default="text")
    explain.add_argument("--html", help="also write the drawing of the plan to this file")
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["lint"]:
        args = parser.parse_args(argv)  # everything after the script is the script's
        return _lint(args)
    if argv[:1] == ["launch"]:
        from flowloom.distributed.launch import launch as launch_cluster

        args = parser.parse_args(argv)
        return launch_cluster(args.script, args.args, args.ps, args.workers)
    args, rest = parser.parse_known_args(argv)
    if args.command == "inspect":
        return _inspect(args)
    if args.command == "explain":
        return _explain(args)
    if args.command == "demo":
        from flowloom.examples import digits_multitower

        digits_multitower.main(rest)
        return 0
    if args.command == "seeds":
        from flowloom.examples import seeds

        seeds.main()
        return 0
    parser.print_help()
    return 0 if args.command is None else 2


def _lint(args):
    import json

    from flowloom.explain.lint import lint_script

    findings, error = lint_script(args.script, args.args)
    if args.format == "json":
        report = json.dumps({"findings": [f.to_dict() for f in findings],
                             "error": None if error is None else repr(error)}, indent=2)
    else:
        lines = [str(f) for f in findings]
        if error is not None:
            lines.append(f"the script ended with {type(error).__name__}: {error}")
        lines.append(f"{len(findings)} finding(s)")
        report = "\n".join(lines)
    if args.output:
        with open(args.output, "w") as f:
            f.write(report + "\n")
    else:
        print(report)
    return 1 if findings or error is not None else 0


def _explain(args):
    import json

    from flowloom.explain import graph_html
    from flowloom.explain.static import explain_graph_def, load_graph_def

    ex, graph = explain_graph_def(load_graph_def(args.graph), args.fetch, args.feed)
    print(json.dumps(ex.to_dict(), indent=2) if args.format == "json" else ex)
    if args.html:
        from flowloom.io.atomic_file import write_atomic

        write_atomic(args.html, graph_html.render(ex, graph, f"flowloom explain {args.graph}")
                     .encode("utf-8"))
    return 0


def _inspect(args):
    from flowloom.cli import inspect

    if args.run:
        inputs = dict(inspect.load_input(spec) for spec in args.input)
        outputs = inspect.run_signature(args.path, args.signature, inputs,
                                        tuple(args.tag_set.split(",")))
        for name in sorted(outputs):
            print(f"{name}: {outputs[name]!r}")
        return 0
    for line in inspect.describe(args.path, values=args.values):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
