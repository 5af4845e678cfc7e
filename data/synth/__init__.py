"""Synthetic training pairs from the knowledge base: generated from rules, executed, kept when meaningful,
put into Italian and English words (`nl2sparql data synth`)."""
