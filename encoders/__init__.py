"""Pipeline stage "encode": CNF encoders of normalised constraints.

`cnf` holds the shared variable pool and the flat clause buffer, `order` the
order encoding of integer variables and linear comparisons, `alldifferent`
value-wise and pairwise encodings of alldifferent. Encoders see integer
variables, domains and linear literals only, never the syntax tree.
"""
