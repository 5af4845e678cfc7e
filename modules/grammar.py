"""A GBNF grammar for the SPARQL the local model may write, so that llama.cpp cannot sample a query that
does not parse (as PICARD did for SQL).

The grammar covers the SPARQL 1.1 query subset our dataset and the live endpoint use: SELECT/ASK, PREFIX,
GRAPH, SERVICE (CompL-it only), OPTIONAL, MINUS, UNION, FILTER (EXISTS), BIND, VALUES, subqueries,
property paths, blank-node property lists, aggregates, GROUP BY/HAVING/ORDER BY/LIMIT/OFFSET. Prefixed
names are the terms of the ontology catalog (`data/ontology.json`) and PREFIX lines bind only its
prefixes, so the words come from the catalog, written once; the structure rules below are written here
only. `chat_sparql_grammar` wraps the query in DSPy's ChatAdapter output format.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

from nl2sparql.kb.vocab import COMPLIT_SERVICE, STANDARD_PREFIXES

ONTOLOGY_FILE = Path(__file__).resolve().parents[1] / "data" / "ontology.json"

# The sentence DSPy's ChatAdapter ends a request with when `sparql` is the one output field.
_ASKS_FOR_SPARQL = re.compile(r"starting with the field `\[\[ ## sparql ## \]\]`, and then ending with the "
                              r"marker for `\[\[ ## completed ## \]\]`")

FUNCTIONS = ("STR", "LANG", "LANGMATCHES", "DATATYPE", "IRI", "URI", "ABS", "CEIL", "FLOOR", "ROUND", "CONCAT",
             "STRLEN", "UCASE", "LCASE", "CONTAINS", "STRSTARTS", "STRENDS", "STRBEFORE", "STRAFTER", "SUBSTR",
             "REPLACE", "REGEX", "COALESCE", "IF", "STRLANG", "STRDT", "sameTerm", "isIRI", "isURI", "isBLANK",
             "isLITERAL", "isNUMERIC", "BOUND", "ENCODE_FOR_URI")
AGGREGATES = ("COUNT", "SUM", "MIN", "MAX", "AVG", "SAMPLE")

# The structure of a query. `ws` is optional white space, `sp` required; each rule leaves the space around it
# to its caller, so no two `ws` meet (which would make the grammar ambiguous and slow to sample).
_RULES = r"""
query ::= prologue (select-query | ask-query)
prologue ::= (prefix-decl sp)*
select-query ::= select-clause sp where-clause modifiers
ask-query ::= "ASK" sp where-clause
select-clause ::= "SELECT" (sp ("DISTINCT" | "REDUCED"))? (sp "*" | (sp projection)+)
projection ::= var | "(" ws expr sp "AS" sp var ws ")"
where-clause ::= ("WHERE" ws)? group
modifiers ::= (sp group-by)? (sp having)? (sp order-by)? (sp limit-offset)?
group-by ::= "GROUP" sp "BY" (sp group-key)+
group-key ::= var | builtin | "(" ws expr (sp "AS" sp var)? ws ")"
having ::= "HAVING" keyword-constraint+
order-by ::= "ORDER" sp "BY" (sp order-key)+
order-key ::= ("ASC" | "DESC") ws "(" ws expr ws ")" | var | constraint
limit-offset ::= "LIMIT" sp integer (sp "OFFSET" sp integer)? | "OFFSET" sp integer (sp "LIMIT" sp integer)?
group ::= "{" ws ((sub-select | group-body) ws)? "}"
sub-select ::= select-clause sp where-clause modifiers
group-body ::= triples-block (sp pattern-part)* | pattern-part (sp pattern-part)*
pattern-part ::= not-triples (ws ".")? (sp triples-block)?
triples-block ::= subject-and-properties (ws "." (sp triples-block)?)?
subject-and-properties ::= subject sp property-list | blank-node-list (ws property-list)?
subject ::= var | iri
property-list ::= verb sp object-list (ws ";" (ws verb sp object-list)?)*
verb ::= var | path
path ::= path-sequence (ws "|" ws path-sequence)*
path-sequence ::= path-step (ws "/" ws path-step)*
path-step ::= "^"? path-primary ("*" | "+" | "?")?
path-primary ::= iri | "a" | "(" ws path ws ")"
object-list ::= object (ws "," ws object)*
object ::= var | iri | literal | blank-node-list
blank-node-list ::= "[" ws property-list ws "]"
not-triples ::= group-or-union | "OPTIONAL" ws group | "MINUS" ws group | "GRAPH" sp (var | iri) ws group | service | "FILTER" keyword-constraint | bind | values
group-or-union ::= group (ws "UNION" ws group)*
service ::= "SERVICE" (sp "SILENT")? ws "<" complit ">" ws group
bind ::= "BIND" ws "(" ws expr sp "AS" sp var ws ")"
values ::= "VALUES" ws (var ws "{" ws (value (sp value)* ws)? "}" | "(" ws var (sp var)* ws ")" ws "{" ws ("(" ws value (sp value)* ws ")" ws)* "}")
value ::= iri | literal | "UNDEF"
constraint ::= bracketed | builtin | iri ws arguments
keyword-constraint ::= ws bracketed | sp builtin | sp iri ws arguments
bracketed ::= "(" ws expr ws ")"
expr ::= and-expr (ws "||" ws and-expr)*
and-expr ::= relation (ws "&&" ws relation)*
relation ::= sum (ws ("=" | "!=" | "<=" | ">=" | "<" | ">") ws sum | sp ("NOT" sp)? "IN" ws "(" ws (expr (ws "," ws expr)* ws)? ")")?
sum ::= product (ws ("+" | "-") ws product)*
product ::= unary (ws ("*" | "/") ws unary)*
unary ::= ("!" ws | "-" ws | "+" ws)? primary
primary ::= bracketed | builtin | aggregate | iri (ws arguments)? | literal | var
arguments ::= "(" ws (expr (ws "," ws expr)* ws)? ")"
builtin ::= function ws arguments | ("NOT" sp)? "EXISTS" ws group
aggregate ::= aggregate-name ws "(" ws ("DISTINCT" sp)? (expr | "*") ws ")" | "GROUP_CONCAT" ws "(" ws ("DISTINCT" sp)? expr (ws ";" ws ("SEPARATOR" | "separator") ws "=" ws string)? ws ")"
iri ::= iriref | pname
iriref ::= "<http" "s"? "://" [^<>"{}|^`\\ \t\n]{1,200} ">"
var ::= "?" [A-Za-z_] [A-Za-z0-9_]{0,48}
literal ::= string ("@" [a-zA-Z]{1,8} ("-" [a-zA-Z0-9]{1,8})? | "^^" iri)? | number | "true" | "false"
string ::= "\"" ([^"\\\n] | "\\" [tbnrf"'\\])* "\"" | "'" ([^'\\\n] | "\\" [tbnrf"'\\])* "'"
number ::= [0-9]{1,12} ("." [0-9]{1,12})? ([eE] [+-]? [0-9]{1,3})?
integer ::= [0-9]{1,9}
ws ::= [ \t\n]{0,40}
sp ::= [ \t\n]{1,40}
"""


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _alternatives(options: list[str]) -> str:
    return " | ".join(_literal(o) for o in options)


def sparql_rules(prefixes: dict[str, str], terms: list[str]) -> str:
    """The GBNF rules of a query (root rule `query`) over these prefixes and prefixed names."""
    bindings = [f"{name}: <{iri}>" for name, iri in sorted(prefixes.items())]
    names = sorted(set(terms))
    generated = [f"prefix-decl ::= \"PREFIX\" sp ({_alternatives(bindings)})",
                 f"pname ::= {_alternatives(names)}",
                 f"function ::= {_alternatives(sorted(FUNCTIONS, key=lambda f: (-len(f), f)))}",
                 f"aggregate-name ::= {_alternatives(list(AGGREGATES))}",
                 f"complit ::= {_literal(COMPLIT_SERVICE)}"]
    return _RULES.strip() + "\n" + "\n".join(generated) + "\n"


def chat_sparql_grammar(prefixes: dict[str, str], terms: list[str]) -> str:
    """The whole answer as DSPy's ChatAdapter expects it: the `sparql` field, the query, the end marker."""
    root = 'root ::= "[[ ## sparql ## ]]\\n" query "\\n\\n[[ ## completed ## ]]"'
    return root + "\n" + sparql_rules(prefixes, terms)


@functools.lru_cache(maxsize=2)
def catalog_grammar(path: Path = ONTOLOGY_FILE) -> str:
    """The chat grammar over the ontology catalog: its prefixes (plus the standard ones) and its terms."""
    data = json.loads(path.read_text(encoding="utf-8"))
    prefixes = {**STANDARD_PREFIXES, **data["prefixes"]}
    terms = [term["id"] for term in data["terms"]]
    terms += [f"{name}:{local}" for name, local in (("rdf", "type"), ("rdfs", "label"), ("owl", "Class"))]
    return chat_sparql_grammar(prefixes, terms)


# The relevance step's answer (signatures/scope.py): a yes or no, nothing else.
SCOPE_GRAMMAR = 'root ::= "[[ ## in_scope ## ]]\\n" ("True" | "False") "\\n\\n[[ ## completed ## ]]"'
_ASKS_FOR_SCOPE = re.compile(r"starting with the field `\[\[ ## in_scope ## \]\]`")


def asks_for_scope(messages: list[dict]) -> bool:
    """Whether a chat request is the relevance step's (the `in_scope` field first, in ChatAdapter's format)."""
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    return bool(last_user and _ASKS_FOR_SCOPE.search(last_user.get("content") or ""))


def asks_for_sparql(messages: list[dict]) -> bool:
    """Whether a chat request asks for the `sparql` field alone, in ChatAdapter's format (generate, repair)."""
    last_user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    return bool(last_user and _ASKS_FOR_SPARQL.search(last_user.get("content") or ""))


class GrammarChecker:
    """Whether llama.cpp's own grammar engine accepts a text, token by token as a model would write it.

    `llama` is a `llama_cpp.Llama` (`vocab_only=True` is enough): the text is tokenized with its vocabulary,
    and each token is offered to a grammar sampler before it is accepted, so a rejected token is seen, not
    raised inside llama.cpp.
    """

    def __init__(self, llama, grammar: str, root: str = "root") -> None:
        import llama_cpp

        self._api = llama_cpp
        self._llama = llama
        self._vocab = llama_cpp.llama_model_get_vocab(llama._model.model)
        self._grammar = grammar.encode()
        self._root = root.encode()
        self._eos = llama_cpp.llama_vocab_eos(self._vocab)

    def accepts(self, text: str) -> bool:
        api = self._api
        sampler = api.llama_sampler_init_grammar(self._vocab, self._grammar, self._root)
        if not sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        try:
            for token in [*self._llama.tokenize(text.encode(), add_bos=False, special=False), self._eos]:
                if not self._allowed(sampler, token):
                    return False
                if token != self._eos:
                    api.llama_sampler_accept(sampler, token)
            return True
        finally:
            api.llama_sampler_free(sampler)

    def _allowed(self, sampler, token: int) -> bool:
        import ctypes

        api = self._api
        data = (api.llama_token_data * 1)(api.llama_token_data(token, 0.0, 0.0))
        candidates = api.llama_token_data_array(data, 1, -1, False)
        api.llama_sampler_apply(sampler, ctypes.byref(candidates))
        return data[0].logit != float("-inf")


# Candidates tested one by one (in score order) before the grammar is applied once to the whole vocabulary.
# One token costs ~15 µs through ctypes and the whole-vocabulary pass ~90 ms, so a handful of refusals is
# cheap and a model that insists on what the grammar forbids costs one C pass, never a walk of 151,936 tokens.
FALLBACK_AFTER = 32


class GreedyGrammar:
    """Greedy decoding under a grammar that checks only the tokens greedy decoding would pick.

    llama.cpp's grammar sampler tests every token of the vocabulary (151,936 for Qwen2.5) at every step,
    which here cost more than the model itself. For greedy decoding it is enough to test the best-scoring
    token and, only when the grammar refuses it, the next ones in order; after `fallback_after` refusals the
    grammar is applied once to the whole vocabulary and the best allowed token is taken: the token the full
    test would have chosen, either way. Used as a llama-cpp-python logits processor, one per completion; every
    other token is masked, so the greedy sampler takes the one chosen here. After `stop_at` (a
    `time.perf_counter()` value) the end-of-text token is chosen, which ends the completion.
    """

    def __init__(self, llama, grammar: str, root: str = "root", *, fallback_after: int = FALLBACK_AFTER,
                 stop_at: float | None = None) -> None:
        import llama_cpp

        self._api = llama_cpp
        vocab = llama_cpp.llama_model_get_vocab(llama._model.model)
        self._sampler = llama_cpp.llama_sampler_init_grammar(vocab, grammar.encode(), root.encode())
        if not self._sampler:
            raise ValueError("llama.cpp could not parse the grammar")
        self._eos = llama_cpp.llama_vocab_eos(vocab)
        self._one = (llama_cpp.llama_token_data * 1)()
        self._fallback_after = max(1, fallback_after)
        self._stop_at = stop_at
        self.refused = 0  # choices the grammar turned down (the best token, or every one of a sample's top-k)
        self.fallback_seconds = 0.0  # time spent finding the allowed token after such a refusal
        self.full_passes = 0  # whole-vocabulary grammar passes
        self.cut = False  # the completion was ended at `stop_at`

    def __call__(self, input_ids, scores):
        import time

        import numpy as np

        logits = np.asarray(scores)
        if self._stop_at is not None and time.perf_counter() > self._stop_at:
            self.cut, choice = True, self._eos
        else:
            choice = self._pick(logits)
            self._api.llama_sampler_accept(self._sampler, choice)
        masked = np.full_like(logits, -np.inf)
        masked[choice] = logits[choice] if np.isfinite(logits[choice]) else 0.0
        return masked

    def _pick(self, logits) -> int:
        import numpy as np

        choice = int(np.argmax(logits))
        if self._allowed(choice):
            return choice
        return self._best_allowed(logits)

    def _best_allowed(self, logits) -> int:
        """The best-scoring token the grammar allows (end-of-text when none is): the next `fallback_after`
        candidates one by one, then one pass of the grammar over the whole vocabulary."""
        import time

        import numpy as np

        started = time.perf_counter()
        self.refused += 1
        try:
            n = min(self._fallback_after, logits.shape[0])
            top = np.argpartition(-logits, n - 1)[:n]
            for token in top[np.lexsort((top, -logits[top]))]:  # by score, then by id (as a stable argsort)
                if self._allowed(int(token)):
                    return int(token)
            return self._best_of_all(logits)
        finally:
            self.fallback_seconds += time.perf_counter() - started

    def _best_of_all(self, logits) -> int:
        """The best-scoring allowed token after one grammar pass over the whole vocabulary (ties: lowest id)."""
        import numpy as np

        self.full_passes += 1
        allowed = self.allowed_mask(logits.shape[0])
        return int(np.argmax(np.where(allowed, logits, -np.inf))) if allowed.any() else self._eos

    def allowed_mask(self, n_vocab: int):
        """Which of the tokens 0..n_vocab-1 the grammar allows now, in one llama.cpp pass."""
        import ctypes

        import numpy as np

        api = self._api
        data = np.zeros(n_vocab, dtype=np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)]))
        data["id"] = np.arange(n_vocab, dtype=np.int32)
        candidates = api.llama_token_data_array(data.ctypes.data_as(ctypes.POINTER(api.llama_token_data)),
                                                n_vocab, -1, False)
        api.llama_sampler_apply(self._sampler, ctypes.byref(candidates))
        mask = np.zeros(n_vocab, dtype=bool)
        size = min(int(candidates.size), n_vocab)  # llama.cpp marks refusals in place, never reorders
        mask[data["id"][:size]] = data["logit"][:size] != -np.inf
        return mask

    def _allowed(self, token: int) -> bool:
        import ctypes

        api = self._api
        self._one[0] = api.llama_token_data(token, 0.0, 0.0)
        candidates = api.llama_token_data_array(self._one, 1, -1, False)
        api.llama_sampler_apply(self._sampler, ctypes.byref(candidates))
        return self._one[0].logit != float("-inf")

    def close(self) -> None:
        if self._sampler:
            self._api.llama_sampler_free(self._sampler)
            self._sampler = None


class SampledGrammar(GreedyGrammar):
    """Sampling at a temperature under the grammar, as cheaply as the greedy check: the top-k tokens are ranked
    by a Gumbel-max draw (logit / temperature + Gumbel noise) and the first one the grammar allows is taken,
    which is a sample from the allowed tokens' renormalised distribution. When the grammar refuses all k, one
    pass over the whole vocabulary gives the best allowed token. Each completion has its own seed."""

    def __init__(self, llama, grammar: str, *, temperature: float, seed: int, top_k: int = 40,
                 root: str = "root", **options) -> None:
        import numpy as np

        super().__init__(llama, grammar, root, **options)
        self._temperature = temperature
        self._top_k = top_k
        self._rng = np.random.default_rng(seed)

    def _pick(self, logits) -> int:
        import time

        import numpy as np

        k = min(self._top_k, logits.shape[0])
        top = np.argpartition(-logits, k - 1)[:k]
        keys = logits[top] / self._temperature + self._rng.gumbel(size=k)
        started = time.perf_counter()
        for token in top[np.argsort(-keys, kind="stable")]:
            if self._allowed(int(token)):
                return int(token)
        self.refused += 1
        choice = self._best_of_all(logits)
        self.fallback_seconds += time.perf_counter() - started
        return choice
