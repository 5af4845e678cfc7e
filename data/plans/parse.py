"""A SPARQL query read into a plan, where its shape is one a plan can say (`Unparsed` names the block it lacks).

The query's algebra (rdflib) is taken apart into its modifiers (projection, DISTINCT, ORDER BY, LIMIT, GROUP BY,
aggregates, HAVING) and its pattern (triples, FILTERs, VALUES, OPTIONAL, NOT EXISTS, MINUS); `recognize.py` then
finds the domain blocks in the triples.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rdflib.term import Literal, URIRef, Variable

from nl2sparql.data.plans.model import Aggregate, Filter, Plan


class Unparsed(Exception):
    """The query has a shape no plan block says yet; the message names it."""


@dataclass
class Pattern:
    """The pattern part of a query, flattened: required triples, FILTER expressions, VALUES, and the groups under
    OPTIONAL, NOT EXISTS and MINUS (each a list of triples)."""

    triples: list[tuple] = field(default_factory=list)
    filters: list[Any] = field(default_factory=list)
    values: dict[Variable, list] = field(default_factory=dict)
    optional: list[list[tuple]] = field(default_factory=list)
    not_exists: list[list[tuple]] = field(default_factory=list)
    minus: list[list[tuple]] = field(default_factory=list)
    service: Pattern | None = None  # what is asked of CompL-it inside its SERVICE
    in_elita: set = field(default_factory=set)  # subjects of triples written inside ELITA's graph
    graph_var: Variable | None = None  # GRAPH ?g: a question about the graphs themselves
    graph_of: dict = field(default_factory=dict)  # triple → the named graph it was written in


@dataclass
class Modifiers:
    form: str = "select"
    projection: list[Variable] = field(default_factory=list)
    distinct: bool = False
    limit: int | None = None
    order: list[tuple[Any, bool]] = field(default_factory=list)
    group: list[Variable] | None = None
    aggregates: dict[Variable, Any] = field(default_factory=dict)  # __agg_n__ → rdflib aggregate
    named: dict[Variable, Variable] = field(default_factory=dict)  # output name → __agg_n__
    having: Any = None
    subquery: Any = None  # the algebra of a subquery the whole query counts


def _unwrap(node, mods: Modifiers):
    """Peel the modifiers off the top of the algebra; return the pattern node below them."""
    while True:
        name = node.name
        if name == "Slice":
            if node.start:
                raise Unparsed("an OFFSET")
            mods.limit = node.length
        elif name == "Distinct":
            mods.distinct = True
        elif name == "Project":
            mods.projection = list(node.PV)
        elif name == "OrderBy":
            mods.order = [(c.expr, c.order == "DESC") if hasattr(c, "order") else (c, False) for c in node.expr]
        elif name == "Extend" and isinstance(node.expr, Variable) and str(node.expr).startswith("__agg"):
            mods.named[node.var] = node.expr
        elif name == "Filter" and mods.group is None and _is_having(node):
            mods.having = node.expr
        elif name == "AggregateJoin":
            for aggregate in node.A:
                mods.aggregates[aggregate.res] = aggregate
        elif name == "Group":
            mods.group = list(node.expr or [])
        elif name == "Extend":
            raise Unparsed("a computed column (BIND or an expression in SELECT)")
        else:
            return node
        node = node.p


def _is_having(node) -> bool:
    return "__agg" in repr(node.expr)


def _walk(node, pattern: Pattern, inside: list[tuple] | None = None) -> None:
    triples = pattern.triples if inside is None else inside
    name = node.name
    if name == "BGP":
        triples.extend(node.triples)
    elif name == "Graph":
        if not isinstance(node.term, URIRef):
            if inside is not None or pattern.graph_var is not None:
                raise Unparsed("a graph variable inside another block")
            pattern.graph_var = node.term
        before = len(triples)
        _walk(node.p, pattern, inside)
        if str(node.term) == "http://w3id.org/elita":
            pattern.in_elita |= {t[0] for t in triples[before:]}
        for triple in triples[before:]:
            pattern.graph_of[tuple(triple)] = str(node.term)
    elif name == "Join":
        _walk(node.p1, pattern, inside)
        _walk(node.p2, pattern, inside)
    elif name == "Filter":
        _walk(node.p, pattern, inside)
        if inside is not None:
            raise Unparsed("a FILTER inside OPTIONAL, NOT EXISTS or MINUS")
        _filters(node.expr, pattern)
    elif name == "LeftJoin":
        _walk(node.p1, pattern, inside)
        if node.expr is not None and node.expr.name != "TrueFilter":
            raise Unparsed("an OPTIONAL with a FILTER")
        group: list[tuple] = []
        _walk(node.p2, pattern, group)
        pattern.optional.append(group)
    elif name == "Minus":
        _walk(node.p1, pattern, inside)
        group = []
        _walk(node.p2, pattern, group)
        pattern.minus.append(group)
    elif name == "ToMultiSet" and getattr(node.p, "name", "") == "values":
        for row in node.p.res:
            for var, value in row.items():
                pattern.values.setdefault(var, []).append(value)
    elif name == "ServiceGraphPattern":
        from rdflib.plugins.sparql.algebra import translateGroupGraphPattern

        from nl2sparql.data.plans.complit import COMPLIT

        if str(node.term) != COMPLIT or inside is not None or pattern.service is not None:
            raise Unparsed("a SERVICE other than one CompL-it block")
        pattern.service = Pattern()
        _walk(translateGroupGraphPattern(node.graph), pattern.service)
    elif name == "ToMultiSet":
        raise Unparsed("a subquery")
    else:
        raise Unparsed(f"a {name} pattern")


def _filters(expr, pattern: Pattern) -> None:
    name = getattr(expr, "name", "")
    if name == "ConditionalAndExpression":
        for part in [expr.expr, *expr.other]:
            _filters(part, pattern)
    elif name == "Builtin_NOTEXISTS":
        group: list[tuple] = []
        graph = expr.graph
        if getattr(graph, "part", None) is None:  # translated already: an algebra node
            _walk(graph, pattern, group)
        else:
            for part in graph.part:
                if part.name != "TriplesBlock":
                    raise Unparsed("a NOT EXISTS with more than triples")
                group.extend(tuple(t) for t in part.triples or [])
        pattern.not_exists.append(group)
    elif name == "Builtin_EXISTS" and (member := _membership(expr.graph)) is not None:
        pattern.triples.extend(member)  # one variable, tested: the same rows as a join
    else:
        pattern.filters.append(expr)


def _membership(graph) -> list[tuple] | None:
    """The triples of `FILTER EXISTS { <lexicon> lime:entry ?entry }` (constant subject and property), or None."""
    from rdflib import URIRef, Variable

    triples: list[tuple] = []
    try:
        if getattr(graph, "part", None) is None:  # translated already: an algebra node
            _walk(graph, Pattern(), triples)
        else:
            for part in graph.part:
                if part.name != "TriplesBlock":
                    return None
                triples.extend(tuple(t) for t in part.triples or [])
    except Unparsed:
        return None
    ok = triples and all(isinstance(s, URIRef) and str(p) == "http://www.w3.org/ns/lemon/lime#entry"
                         and isinstance(o, Variable) for s, p, o in map(tuple, triples))
    return [tuple(t) for t in triples] if ok else None


def read_query(sparql: str) -> tuple[Modifiers, Pattern]:
    from rdflib.plugins.sparql import prepareQuery

    try:
        algebra = prepareQuery(sparql).algebra
    except Exception as error:  # rdflib raises parser errors of several types
        raise Unparsed(f"a query rdflib cannot read ({type(error).__name__})") from None
    mods = Modifiers(form="ask" if algebra.name == "AskQuery" else "select")
    if algebra.name not in ("SelectQuery", "AskQuery"):
        raise Unparsed(f"a {algebra.name}")
    node = _unwrap(algebra.p, mods)
    if node.name == "ToMultiSet" and getattr(node.p, "name", "") != "values" and (not mods.group or _averaged(mods)):
        mods.subquery = node.p  # "how many words have at least ten senses": groups counted by an outer query
        return mods, Pattern()
    pattern = Pattern()
    _walk(node, pattern)
    return mods, pattern


AGGREGATE_NAMES = {"Aggregate_Count": "count", "Aggregate_Avg": "avg", "Aggregate_Min": "min", "Aggregate_Max": "max",
                   "Aggregate_Sum": "sum", "Aggregate_GroupConcat": "group_concat"}


def parse_plan(sparql: str) -> Plan:
    """The plan a query says; Unparsed with the missing block where no plan says it."""
    mods, pattern = read_query(sparql)
    if mods.subquery is not None:
        return _averaged_groups(mods) if _averaged(mods) else _counted_groups(mods)
    return _plan(mods, pattern)


def _averaged(mods: Modifiers) -> bool:
    shown = [mods.aggregates[k] for k in _shown_aggregates(mods)]
    return len(shown) == 1 and shown[0].name == "Aggregate_Avg" and isinstance(shown[0].vars, Variable)


def _averaged_groups(outer: Modifiers) -> Plan:
    """The mean of a subquery's per-group count, over all groups or per key, and only over the keys with a number of
    groups (an outer HAVING COUNT(*)): an `average_groups` plan."""
    (shown,) = [outer.aggregates[k] for k in _shown_aggregates(outer)]
    mods = Modifiers()
    inner = _unwrap(outer.subquery, mods)
    named = {str(n): k for n, k in mods.named.items()}
    if not mods.group or mods.having is not None or mods.order or mods.limit or outer.order or \
            str(shown.vars) not in named or len(_shown_aggregates(mods)) != 1:
        raise Unparsed("a subquery other than groups averaged")
    pattern = Pattern()
    _walk(inner, pattern)
    plan = _plan(mods, pattern)
    keys = {str(v) for v in mods.group}
    per = [v for v in (outer.group or []) if str(v) in keys]
    if len(per) != len(outer.group or []):
        raise Unparsed("an average per a key the groups do not have")
    from nl2sparql.data.plans.recognize import recognize

    role = recognize(pattern).role
    having = None
    if outer.having is not None:
        counted = outer.aggregates.get(getattr(outer.having, "expr", None))
        if counted is None or counted.name != "Aggregate_Count" or counted.vars != "*" or \
                not isinstance(getattr(outer.having, "other", None), Literal):
            raise Unparsed("a HAVING over averaged groups other than their number")
        having = Filter("groups", "value", float(outer.having.other.toPython()), outer.having.op)
    return plan.with_block(operator="average_groups", per=tuple(role(v) for v in per), having=having, distinct=True)


def _counted_groups(outer: Modifiers) -> Plan:
    """A count over a subquery's groups that pass its HAVING: a `count_groups` plan."""
    if outer.form != "select" or len(outer.aggregates) != 1 or outer.having is not None or outer.order:
        raise Unparsed("a subquery other than groups counted")
    (counted,) = outer.aggregates.values()
    if AGGREGATE_NAMES.get(counted.name) != "count":
        raise Unparsed("a subquery other than groups counted")
    mods = Modifiers()
    inner = _unwrap(outer.subquery, mods)
    if not mods.group or mods.having is None or _shown_aggregates(mods) or mods.order or mods.limit:
        raise Unparsed("a subquery other than groups counted")
    pattern = Pattern()
    _walk(inner, pattern)
    plan = _plan(mods, pattern)
    return plan.with_block(operator="count_groups", distinct=True)


def _target(aggregate, role) -> str:
    """The role an aggregate is over (`*` for every row); Unparsed for an expression such as MAX(STRLEN(…))."""
    if aggregate.vars == "*":
        return "*"
    if not isinstance(aggregate.vars, Variable):
        raise Unparsed("an aggregate over an expression (MAX(STRLEN(…)))")
    return role(aggregate.vars)


def _shown_aggregates(mods: Modifiers) -> list:
    """The aggregates the query shows (a group key shown beside them is a SAMPLE rdflib adds, not one of them)."""
    return [k for n, k in mods.named.items()
            if not (mods.aggregates[k].name == "Aggregate_Sample" and mods.aggregates[k].vars == n)]


def _plan(mods: Modifiers, pattern: Pattern) -> Plan:
    from nl2sparql.data.plans.recognize import recognize

    found = recognize(pattern)
    role = found.role

    aggregates = []
    for name, key in mods.named.items():
        aggregate = mods.aggregates[key]
        if aggregate.name == "Aggregate_Sample" and aggregate.vars == name:
            continue  # a group key shown beside the aggregates
        func = AGGREGATE_NAMES.get(aggregate.name)
        if func is None:
            raise Unparsed(f"an aggregate {aggregate.name}")
        aggregates.append(Aggregate(func, _target(aggregate, role), str(name), bool(aggregate.distinct)))
    if mods.having is not None and not _shown_aggregates(mods):  # a subquery's HAVING on an aggregate not shown
        hidden = mods.aggregates.get(getattr(mods.having, "expr", None))
        if hidden is not None and AGGREGATE_NAMES.get(hidden.name):
            aggregates.append(Aggregate(AGGREGATE_NAMES[hidden.name], _target(hidden, role), "count",
                                        bool(hidden.distinct)))
            mods.named[Variable("count")] = mods.having.expr
    names = {a.name for a in aggregates}
    having = _having(mods, aggregates) if mods.having is not None else None
    order = []
    for expr, descending in mods.order:
        if not isinstance(expr, Variable):
            raise Unparsed("an ORDER BY on an expression")
        order.append((str(expr) if str(expr) in names else role(expr), descending))
    if mods.form == "ask":
        operator, columns = "ask", ()
    elif mods.aggregates:
        keys = [role(v) for v in (mods.group or [])]
        shown = [role(v) for v in mods.projection if str(v) not in names]
        if sorted(shown) != sorted(keys):
            raise Unparsed("a column that is not a group key beside an aggregate")
        operator, columns = ("group" if keys else "count"), tuple(keys)
    else:
        operator, columns = "list", tuple(role(v) for v in mods.projection)
    return Plan(words=found.words, senses=found.senses, meta=found.meta, joins=tuple(found.joins), filters=tuple(found.filters), columns=columns,
                optional_roles=tuple(found.optional_roles), operator=operator, aggregates=tuple(aggregates),
                having=having, order=tuple(order), limit=mods.limit, distinct=mods.distinct or operator != "list")


def _having(mods: Modifiers, aggregates: list[Aggregate]) -> Filter:
    expr = mods.having
    if getattr(expr, "name", "") != "RelationalExpression" or not (
            isinstance(expr.other, Literal) or expr.other in mods.aggregates):
        raise Unparsed("a HAVING other than an aggregate compared with a number")

    def shown(key) -> Aggregate | None:
        inner = mods.aggregates.get(key)
        return next((a for a in aggregates if inner is not None and
                     mods.aggregates[mods.named[Variable(a.name)]].vars == inner.vars and
                     a.distinct == bool(inner.distinct) and AGGREGATE_NAMES.get(inner.name) == a.func), None)
    match = shown(expr.expr)
    if match is None:
        raise Unparsed("a HAVING on an aggregate that is not shown")
    if not isinstance(expr.other, Literal):  # "più traduzioni siciliane che parmigiane": one count against another
        other = shown(expr.other)
        if other is None:
            raise Unparsed("a HAVING on an aggregate that is not shown")
        return Filter(match.name, "compare", other.name, expr.op)
    return Filter(match.name, "value", float(expr.other.toPython()), expr.op)
