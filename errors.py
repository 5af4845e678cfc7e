"""The one exception hierarchy of nl2sparql: every message is one line saying what was wrong and what to do."""


def first_line(error: BaseException) -> str:
    """The first line of an exception's message (its type name when the message is empty)."""
    return (str(error).splitlines() or [type(error).__name__])[0]


class Nl2SparqlError(Exception):
    """Base class for every error nl2sparql raises on purpose."""


class QueryRejected(Nl2SparqlError):
    """The query is well-formed but not allowed (an Update, a SERVICE to a foreign endpoint)."""


class QuerySyntaxError(Nl2SparqlError):
    """The query text is not valid SPARQL 1.1."""


class EndpointError(Nl2SparqlError):
    """The endpoint could not be reached or failed while answering."""


class StoreNotFound(EndpointError):
    """The embedded store has not been built yet."""


class BuildError(Nl2SparqlError):
    """The knowledge-base build could not read or load its sources."""


class DatasetError(Nl2SparqlError):
    """The curated dataset is missing, malformed, or fails its checks."""


class LMConfigError(Nl2SparqlError):
    """A language model cannot be set up: unknown name, missing API key, missing local weights."""


class ModelCrashed(LMConfigError):
    """A local model loads but dies (a crash inside llama.cpp) when it generates on this machine."""


class LMServerError(LMConfigError):
    """The shared LM server (`--lm-server`) cannot be reached, stopped answering, or serves another adapter."""


class ArtifactError(Nl2SparqlError):
    """A compiled program cannot be found or loaded: unknown version, corrupt manifest, incompatible save."""


class InputError(Nl2SparqlError):
    """A tool or option got a value of the wrong type, size or range."""


class QuestionRejected(InputError):
    """The question is empty, has no words, is too long or holds control characters: refused before any LM call."""
