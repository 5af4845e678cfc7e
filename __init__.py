"""nl2sparql: questions in Italian or English to SPARQL over LiITA, compiled with DSPy.

Importing the package loads nothing heavy: models, indexes and stores are opened on first use.
"""

__version__ = "0.1.0"
