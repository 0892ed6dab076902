"""RES103 and streams: a stream's read timeout bounds the silence between two events, so a long read
phase is not excessive on a stream request or on a client one function builds only to open streams;
a long connect (or one number for every phase), and every other use of the client, keep the rule."""

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

LONG_READ = httpx.Timeout(10.0, read=1800.0)


async def follow(url, payload):
    async with httpx.AsyncClient(timeout=LONG_READ) as client:
        async with client.stream("POST", url, json=payload) as response:
            async for line in response.aiter_lines():
                yield line


def events(url, data):
    with httpx.Client(timeout=httpx.Timeout(10.0, read=300.0)) as client:
        with connect_sse(client=client, method="POST", url=url, json=data) as source:
            yield from source.iter_sse()


async def async_events(url):
    client = httpx.AsyncClient(timeout=httpx.Timeout(5.0, read=600.0))
    try:
        async def opened():
            async with aconnect_sse(client, "GET", url) as source:
                async for event in source.aiter_sse():
                    yield event
        async for event in opened():
            yield event
    finally:
        await client.aclose()


def per_request(url):
    with httpx.stream("GET", url, timeout=httpx.Timeout(10.0, read=600.0)) as r:
        yield from r.iter_lines()


def whole_number(url):
    with httpx.Client(timeout=300) as client:  # RES103: 300 s to connect too
        with client.stream("GET", url) as r:
            return r.read()


def long_connect(url):
    client = httpx.Client(timeout=httpx.Timeout(10.0, connect=300.0, read=300.0))  # RES103: connect
    with client.stream("GET", url) as r:
        return r.read()


def per_request_number(url):
    with httpx.stream("GET", url, timeout=300) as r:  # RES103: every phase
        return r.read()


def fetch(url):
    with httpx.Client(timeout=LONG_READ) as client:  # RES103: a plain request
        return client.get(url).json()


def mixed(url):
    with httpx.Client(timeout=LONG_READ) as client:  # RES103: a request beside the stream
        client.post(url)
        with client.stream("GET", url) as r:
            return r.read()


def handed_out():
    client = httpx.Client(timeout=LONG_READ)  # RES103: kept for later, used for anything
    return client


def handed_to_another(url, send):
    client = httpx.Client(timeout=LONG_READ)  # RES103: passed to a function that is no stream opener
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
    assert len(expected) == 8


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
