"""Each adapter's reader asks of a call exactly the names its adapter declares
(``RetryAdapter.keywords`` and ``forwarded``, reslint/libraries/): the declarations are what
tests/test_catalog_reality.py checks against the installed libraries, so a name a reader starts
to read without declaring it, or a declared name no reader reads any more, fails here.

The check drives ``read()`` (and ``receiver()``) on calls that pass every declared name, with
values that take each branch that asks further names (a false value and a true one; each of
backoff's wait generators), and compares what :class:`reslint.model.reader.Args` recorded for
that call with the declaration.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Iterator, List, Set, Tuple

import libcst as cst
import pytest

from reslint import libraries
from reslint.analysis.retry import Extractor
from reslint.config import Settings
from reslint.engine.filepass import parse_module
from reslint.libraries import backoff as backoff_adapter, celery as celery_adapter, redo as redo_adapter
from reslint.libraries.base import RetryAdapter, Site
from reslint.model.policy import RetriedKind, Role
from reslint.model.reader import Args, PolicyReader, recording
from reslint.semantics.context import Context, SemanticModel

#: values every declared name is given in turn: a false one and a true one take both sides of the
#: readers' branches on a value (celery's ``retry_backoff``, LangChain's ``wait_exponential_jitter``)
VALUES = ("False", "1")
#: branches chosen by a value the generic ones cannot spell: the wait generator backoff reads the
#: generator's own arguments for (source text of the value, from the adapter's table)
BRANCHES: Dict[str, List[Dict[str, str]]] = {
    qualname: [{"wait_gen": generator} for generator in backoff_adapter.WAIT_GENERATORS]
    for qualname in backoff_adapter.ADAPTER.spellings
}
#: celery's ``base=`` is read as a task class: the library's own keeps the other names readable
BRANCHES.update({qualname: [{celery_adapter.BASE_OPTION: "celery.Task"}]
                 for qualname in celery_adapter.ADAPTER.spellings})


def _entries() -> Iterator[Tuple[RetryAdapter, str]]:
    for adapter in libraries.ADAPTERS:
        for qualname in adapter.spellings:
            yield adapter, qualname


def declared(adapter: RetryAdapter, qualname: str) -> Tuple[str, ...]:
    return adapter.keywords.get(qualname, ()) + adapter.forwarded.get(qualname, ())


def _context(text: str) -> Context:
    ctx = Context(SemanticModel(parse_module(text)), Settings(root=Path(".")))
    ctx.retries = Extractor(ctx)
    return ctx


def asked(adapter: RetryAdapter, qualname: str, values: Dict[str, str]) -> Set[str]:
    """The names the reader asks of ``qualname(name=value, ...)``, in each role it is spelled in."""
    roots = {qualname.split(".")[0]} | {v.split(".")[0] for v in values.values() if "." in v}
    spelled = ", ".join(f"{name}={value}" for name, value in values.items())
    text = "".join(f"import {root}\n" for root in sorted(roots)) + f"{qualname}({spelled})\n"
    ctx = _context(text)
    statement = ctx.model.module_scope.node.body[-1]
    call = statement.body[0].value
    assert isinstance(call, cst.Call)
    out: Set[str] = set()
    for role in adapter.spellings[qualname]:
        site = Site(role, qualname, call, call, ctx.model.module_scope)
        with recording() as made:
            policy = adapter.read(site, PolicyReader(ctx))
            if policy is not None and adapter.retries_receiver:
                adapter.receiver(policy)
        out.update(name for args in made if args.call is call for name in args.asked)
    return out


def mismatch(adapter: RetryAdapter, qualname: str) -> Tuple[Set[str], Set[str]]:
    """(names the reader asks that are not declared, declared names it never asks)."""
    names = declared(adapter, qualname)
    found: Set[str] = set()
    for value in VALUES:
        for branch in BRANCHES.get(qualname, [{}]):
            found |= asked(adapter, qualname, {**{name: value for name in names}, **branch})
    return found - set(names), set(names) - found


@pytest.mark.parametrize("adapter, qualname", [pytest.param(a, q, id=q) for a, q in _entries()])
def test_a_reader_asks_exactly_the_names_its_adapter_declares(adapter: RetryAdapter, qualname: str):
    assert declared(adapter, qualname), f"{qualname}: its adapter declares no keywords (RetryAdapter.keywords)"
    undeclared, unread = mismatch(adapter, qualname)
    assert undeclared == set(), f"{qualname}: the reader reads names its adapter does not declare"
    assert unread == set(), f"{qualname}: the adapter declares names its reader never reads"


@pytest.mark.parametrize("adapter, qualname", [pytest.param(a, q, id=q) for a, q in _entries()])
def test_declarations_are_well_formed(adapter: RetryAdapter, qualname: str):
    keywords, forwarded = adapter.keywords.get(qualname, ()), adapter.forwarded.get(qualname, ())
    assert len(set(keywords)) == len(keywords) and len(set(forwarded)) == len(forwarded), qualname
    assert not set(keywords) & set(forwarded), f"{qualname}: a name is both a parameter and forwarded"
    assert set(adapter.keywords) | set(adapter.forwarded) <= set(adapter.spellings), adapter.name


def test_the_recorder_sees_names_asked_but_not_given():
    """What is asked counts whether or not the call passes it (``"giveup" in args`` asks)."""
    call = cst.parse_expression("f(a=1)")
    with recording() as made:
        args = Args(call)
        assert "b" not in args and args.expr("a") is not None and args.arg("c") is None
    assert made == [args] and args.asked == {"a", "b", "c"}
    assert Args(call).asked == set(), "outside recording() nothing is collected, and a new Args has asked nothing"


class _Drifted(RetryAdapter):
    """A reader that reads ``b`` (only when ``a`` is true) and an adapter that declares ``a`` and ``c``."""

    name = "drifted"
    spellings = {"drifted.retry": frozenset({Role.DECORATOR})}
    keywords = {"drifted.retry": ("a", "c")}

    def read(self, site: Site, reader: PolicyReader):
        args = Args(site.call)
        if reader.given(args, "a", False, site.scope):
            args.expr("b")
        return None


def test_the_check_catches_drift_both_ways():
    assert mismatch(_Drifted(), "drifted.retry") == ({"b"}, {"c"})


def test_redo_retrier_reads_no_retry_exceptions():
    """``redo.retrier`` takes no ``retry_exceptions`` (its loop's handler decides what is caught):
    the reader leaves it unread and keeps retrier's default, every exception."""
    ctx = _context("import redo\nredo.retrier(attempts=3, retry_exceptions=ValueError)\n")
    call = ctx.model.module_scope.node.body[-1].body[0].value
    adapter = redo_adapter.ADAPTER
    site = Site(next(iter(adapter.spellings["redo.retrier"])), "redo.retrier", call, call, ctx.model.module_scope)
    policy = adapter.read(site, PolicyReader(ctx))
    assert policy.attempts == 3
    assert policy.retried.kind is RetriedKind.TYPES and policy.retried.types == ("Exception",)
    # redo.retry takes it
    ctx = _context("import redo\nredo.retry(f, attempts=3, retry_exceptions=ValueError)\n")
    call = ctx.model.module_scope.node.body[-1].body[0].value
    site = Site(next(iter(adapter.spellings["redo.retry"])), "redo.retry", call, call, ctx.model.module_scope)
    assert adapter.read(site, PolicyReader(ctx)).retried.types == ("ValueError",)
