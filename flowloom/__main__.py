"""`python -m flowloom script.py [args...]` runs a TF1 script on flowloom (as `flowloom run`);
`python -m flowloom COMMAND` runs one of the `flowloom` commands."""

import sys

from flowloom.cli.main import main

sys.exit(main(sys.argv[1:], script_by_default=True))
