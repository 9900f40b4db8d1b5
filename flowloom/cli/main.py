"""The `flowloom` command."""

import argparse
import sys


_COMMANDS = ("run", "demo", "seeds")


def main(argv=None, script_by_default=False):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and (argv[0] == "run" or (script_by_default and argv[0] not in _COMMANDS
                                      and not argv[0].startswith("-"))):
        # Everything after the script belongs to the script, flags included.
        from flowloom.cli.run import run_script

        rest = argv[1:] if argv[0] == "run" else argv
        if not rest or rest[0].startswith("-"):
            sys.stderr.write("usage: flowloom run script.py [args...]\n")
            return 2
        return run_script(rest[0], rest[1:])
    parser = argparse.ArgumentParser(prog="flowloom", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("run", help="run a TF1 script with `import tensorflow` mapped onto flowloom")
    sub.add_parser("demo", help="train the multi-tower CNN on handwritten digits")
    sub.add_parser("seeds", help="run the examples from the source documents")
    args, rest = parser.parse_known_args(argv)
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


if __name__ == "__main__":
    sys.exit(main())
