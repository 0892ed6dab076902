"""MCP (the Model Context Protocol's Python SDK, ``mcp``): the client session's read timeout and
its tool calls.

Read in mcp 2.3.0, mcp/client/session.py:

- ``ClientSession(read_stream, write_stream, read_timeout_seconds=None, ...)``: with no read
  timeout a request (a tool call) waits for its response forever (``send_request`` uses
  ``request_read_timeout_seconds`` if given, else the session's; ``None`` sets no deadline). An
  HTTP transport may bound the stream itself (``streamablehttp_client(sse_read_timeout=300)``);
  stdio does not.
- ``ClientSession.call_tool(name, arguments=None, read_timeout_seconds=None, progress_callback=None,
  *, meta=None)``: ``read_timeout_seconds`` replaces the session's for one call (``None``: the
  session's).

A tool call runs code on the server whose effects the client cannot see (the server's
``ToolAnnotations.readOnlyHint``/``idempotentHint`` are hints it sends at run time): retrying one
is a replayed write (RES402) unless the project declares the tool read-only
(``[tool.reslint.catalog] read-only-tools``). Tool calls are judged against the model-call
timeout ceiling: an agent's tool may run for minutes.
"""

from __future__ import annotations

from typing import Tuple

from reslint.catalog.model import INHERITED, MODEL, TimeoutParam, TimeoutSpec

#: transports whose read stream has no read timeout of its own: mcp/client/stdio.py ``stdio_client``
#: (a subprocess's stdout). The HTTP transports bound each read: ``sse_client(sse_read_timeout=300.0)``
#: (mcp/client/sse.py) and ``streamable_http_client``'s default client (mcp/shared/_httpx_utils.py
#: ``MCP_DEFAULT_SSE_READ_TIMEOUT = 300.0``), within the model-call ceiling.
UNBOUNDED_TRANSPORTS = ("mcp.stdio_client",)

SRC = "mcp/client/session.py ClientSession(read_stream, write_stream, read_timeout_seconds=None) (mcp 2.3.0)"

TIMEOUTS: Tuple[TimeoutSpec, ...] = (
    TimeoutSpec("mcp.ClientSession", (TimeoutParam("read_timeout_seconds", 2),), None, SRC,
                "an MCP ClientSession has no read timeout by default, and a stdio transport has none either: a tool "
                "call to a stuck server waits forever", carrier=True, category=MODEL,
                streams_from=("read_stream", 0, UNBOUNDED_TRANSPORTS)),
    # None here means "the session's timeout", not "no timeout"
    TimeoutSpec("mcp.ClientSession.call_tool", (TimeoutParam("read_timeout_seconds", 2),), INHERITED,
                SRC + "; call_tool(name, arguments=None, read_timeout_seconds=None)", disable_values=(),
                category=MODEL),
)

#: tool calls: qualified name -> position of the tool's name argument
TOOL_CALLS = {"mcp.ClientSession.call_tool": 0}
