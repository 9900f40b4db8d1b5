"""`tf.app`: `tf.app.run()` runs `main(argv)` after parsing the flags, as TF 1.x did."""

import sys as _sys

from absl import app as _absl_app

from flowloom.platform import flags


def _parse_flags_tolerate_undef(argv):
    # TF 1.x hands unknown flags on to main instead of failing on them.
    return flags.FLAGS(_sys.argv if argv is None else argv, known_only=True)


def run(main=None, argv=None):
    """Runs `main(argv)` with the flags parsed, then exits with main's return value.

    Args:
      main: the function to run; `__main__.main` when None.
      argv: the command line; `sys.argv` when None. Flags defined with `tf.flags` are
        parsed from it and the rest (program name first) is passed to `main`.

    Raises:
      SystemExit: always, as `sys.exit(main(argv))`.
    """
    main = main or _sys.modules["__main__"].main
    _absl_app.run(main=main, argv=argv, flags_parser=_parse_flags_tolerate_undef)
