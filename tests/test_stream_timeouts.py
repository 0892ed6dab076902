"""RES103 and streams: a client one function builds only to open streams has its read timeout bound
the silence between two events, so a long one is not excessive; every other use keeps the rule."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

from reslint.catalog import TIMEOUT_CALLS
from reslint.catalog.timeouts import STREAM_OPENERS
from reslint.config import Settings
from reslint.engine.filepass import Linter

SOURCE = '''\
import httpx
from httpx_sse import aconnect_sse, connect_sse


async def follow(url, payload):
    async with httpx.AsyncClient(timeout=1800.0) as client:
        async with client.stream("POST", url, json=payload) as response:
            async for line in response.aiter_lines():
                yield line


def events(url, data):
    with httpx.Client(timeout=httpx.Timeout(300.0, read=300.0)) as client:
        with connect_sse(client, method="POST", url=url, json=data) as source:
            yield from source.iter_sse()


async def async_events(url):
    client = httpx.AsyncClient(timeout=600)
    try:
        async with aconnect_sse(client, "GET", url) as source:
            async for event in source.aiter_sse():
                yield event
    finally:
        await client.aclose()


def fetch(url):
    with httpx.Client(timeout=300) as client:  # RES103: a plain request
        return client.get(url).json()


def mixed(url):
    with httpx.Client(timeout=300) as client:  # RES103: a request beside the stream
        client.post(url)
        with client.stream("GET", url) as r:
            return r.read()


def handed_out():
    client = httpx.Client(timeout=300)  # RES103: kept for later, used for anything
    return client


def handed_to_another(url, send):
    client = httpx.Client(timeout=300)  # RES103: passed to a function that is no stream opener
    return send(client, url)


def forever(url):
    with httpx.Client(timeout=None) as client:  # RES102: a silent stream then holds forever
        with client.stream("GET", url) as r:
            return r.read()
'''


def test_only_clients_that_open_nothing_but_streams_are_spared():
    found, errors = Linter(Settings(root=Path("."))).lint_text(SOURCE, "m.py")
    assert errors == []
    expected = sorted((row, line.split("# ")[1].split(":")[0])
                      for row, line in enumerate(SOURCE.splitlines(), 1) if "# RES" in line)
    assert sorted((f.location.row, f.code) for f in found) == expected
    assert len(expected) == 5


def test_the_stream_method_is_httpx_clients_own():
    httpx = pytest.importorskip("httpx")
    for name in ("httpx.Client", "httpx.AsyncClient"):
        spec = TIMEOUT_CALLS[name]
        cls = getattr(httpx, name.split(".")[1])
        for method in spec.stream_methods:
            params = list(inspect.signature(getattr(cls, method)).parameters)
            assert params[:3] == ["self", "method", "url"], (name, method, params)


def test_the_sse_openers_take_the_client_first():
    httpx_sse = pytest.importorskip("httpx_sse")
    for qualname in STREAM_OPENERS:
        params = list(inspect.signature(getattr(httpx_sse, qualname.rsplit(".", 1)[1])).parameters)
        assert params[:3] == ["client", "method", "url"], (qualname, params)
