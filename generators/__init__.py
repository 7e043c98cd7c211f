"""Puzzle genres: readers of puzzle text, `.csp` generators, decoders and drawings (see `generators.base`)."""
