"""CNF encodings of integer variables and constraints (order encoding and friends)."""
