"""FILTER expressions read as plan filters: the string tests on a written form (prefix, suffix, contains, regex,
length, exact or case-folded form), numbers compared with a value, an IRI's prefix; `!` negates one."""

from __future__ import annotations

from rdflib.term import Literal, Variable

from nl2sparql.data.plans.model import Filter
from nl2sparql.data.plans.parse import Unparsed

_STRING_TESTS = {"Builtin_STRSTARTS": "prefix", "Builtin_STRENDS": "suffix", "Builtin_CONTAINS": "contains"}


def _str_of(expr):
    """The variable inside STR(?v) (or a bare ?v, or either lower-cased)."""
    return _text_of(expr)[0]


def _text_of(expr) -> tuple:
    """(variable, folded) of ?v, STR(?v), LCASE(?v) or LCASE(STR(?v)); (None, False) for anything else."""
    if isinstance(expr, Variable):
        return expr, False
    name = getattr(expr, "name", "")
    if name == "Builtin_STR" and isinstance(expr.arg, Variable):
        return expr.arg, False
    if name == "Builtin_LCASE":
        inner, _ = _text_of(expr.arg)
        return inner, inner is not None
    return None, False


def read_filter(expr, found) -> list[Filter]:
    name = getattr(expr, "name", "")
    if name == "ConditionalAndExpression":
        return [f for part in [expr.expr, *expr.other] for f in read_filter(part, found)]
    if name == "UnaryNot":
        inner = read_filter(expr.expr, found)
        if len(inner) != 1:
            raise Unparsed("a negated FILTER of several conditions")
        f = inner[0]
        return [Filter(f.role, f.kind, f.value, f.op, not f.negated)]
    if name in _STRING_TESTS:
        var, fold = _text_of(expr.arg1)
        if var is None or not isinstance(expr.arg2, Literal):
            raise Unparsed(f"a {name[8:]} on an expression")
        role = found.role(var)
        kind = "iri_prefix" if role in ("lemma",) and name == "Builtin_STRSTARTS" else _STRING_TESTS[name]
        return [Filter(role, kind, str(expr.arg2), fold=fold)]
    if name == "Builtin_REGEX":
        var, fold = _text_of(expr.text)
        if var is None or expr.flags is not None or not isinstance(expr.pattern, Literal):
            raise Unparsed("a REGEX with flags or on an expression")
        return [Filter(found.role(var), "regex", str(expr.pattern), fold=fold)]
    if name == "RelationalExpression":
        return [_relation(expr, found)]
    raise Unparsed(f"a FILTER with {name or type(expr).__name__}")


def _number(term):
    """A literal, or a negative number written -0.7 (a unary minus on a literal)."""
    if getattr(term, "name", "") == "UnaryMinus" and isinstance(term.expr, Literal):
        return Literal(-term.expr.toPython())
    return term


def _relation(expr, found) -> Filter:
    left, op, right = expr.expr, expr.op, _number(expr.other)
    (left_var, left_fold), (right_var, right_fold) = _text_of(left), _text_of(right)
    if op == "=" and left_var is not None and right_var is not None and not (left_fold or right_fold):
        return Filter(found.role(left_var), "same_as", found.role(right_var))  # STR(?a) = STR(?b)
    if not isinstance(right, Literal):
        raise Unparsed("a comparison between two variables")
    inner = getattr(left, "name", "")
    if inner == "Builtin_STRLEN" and _str_of(left.arg) is not None:
        return Filter(found.role(_str_of(left.arg)), "length", float(right.toPython()), op)
    var, fold = _text_of(left)
    if inner in ("Builtin_LCASE", "Builtin_STR") and var is not None and op == "=":
        return Filter(found.role(var), "equals", str(right), fold=fold)
    if isinstance(left, Variable) and isinstance(right.toPython(), (int, float)) or (
            isinstance(left, Variable) and right.datatype and str(right.datatype).endswith(("decimal", "double"))):
        return Filter(found.role(left), "value", float(right.toPython()), op)
    raise Unparsed("a comparison the plan filters do not say")
