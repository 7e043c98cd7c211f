"""`python -m csp2sat ...` runs the same command line as the `csp2sat` command."""

from csp2sat.cli import entry

entry()
