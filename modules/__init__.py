"""DSPy modules: the three LM steps, deterministic fixes, the composed NL2SPARQL program, and the LMs."""
