"""nl2sparql: questions in Italian or English to SPARQL over LiITA, compiled with DSPy.

Importing the package loads nothing heavy: models, indexes and stores are opened on first use.
"""

__version__ = "0.1.0"


def load(version: str = "latest", **options):
    """A ready program: `nl2sparql.load("latest")("Quali lemmi esprimono tristezza?")` → SPARQL and rows.

    See `nl2sparql.artifacts.load.load` for the options (lm, endpoint, store, settings).
    """
    from nl2sparql.artifacts.load import load as _load

    return _load(version, **options)
