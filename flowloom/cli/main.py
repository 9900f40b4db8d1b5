"""The `flowloom` command."""

import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="flowloom", description=__doc__)
    sub = parser.add_subparsers(dest="command")
    sub.add_parser("demo", help="run the demo")
    sub.add_parser("seeds", help="run the examples from the source documents")
    args, rest = parser.parse_known_args(argv)
    if args.command in ("demo", "seeds"):
        from flowloom.examples import seeds

        seeds.main()
        return 0
    parser.print_help()
    return 0 if args.command is None else 2


if __name__ == "__main__":
    sys.exit(main())
