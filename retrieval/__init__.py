"""Retrieval: deterministic pattern analysis, the hybrid example retriever, constraint and ontology catalogs."""
