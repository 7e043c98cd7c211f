"""`python -m csp2sat ...` runs the same command line as the `csp2sat` command."""

import sys

from csp2sat.cli import main

sys.exit(main())
