"""Subcommands of the `csp2sat` command line, one module each (see `csp2sat.cli`)."""
