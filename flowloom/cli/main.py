"""The `flowloom` command."""

import argparse
import sys


def main(argv=None):
    parser = argparse.ArgumentParser(prog="flowloom", description=__doc__)
    sub = parser.add_subparsers(dest="command")
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
