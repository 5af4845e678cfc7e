"""Query plans: a LiITA query as domain blocks that compile to SPARQL, read back as words, and parse from it."""
