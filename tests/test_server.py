"""`reslint server` end to end: a real LSP client (pytest-lsp) talking to the server over stdio.

Each test starts `python -m reslint server --no-cache` in a fresh process, initialises it on a
small project in a temporary directory, and drives it as an editor would: open, change and
save buffers, ask for code actions and hovers, pull diagnostics. No test measures time (the
latency figures are in benchmarks/lsp_latency.py); waits are bounded so a broken server fails
the test instead of hanging it.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

pytest_lsp = pytest.importorskip("pytest_lsp", reason="needs the test extra (pytest-lsp)")
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

pytestmark = pytest.mark.asyncio

SERVER = [sys.executable, "-m", "reslint", "server", "--no-cache"]
CASES = Path(__file__).resolve().parent / "fixtures" / "cases"
WAIT = 60  # seconds before a wait gives up (a loaded 2-core machine is slow, not stuck)

HELPER_GET = 'import requests\n\n\ndef send(x):\n    return requests.get("https://api/x", params=x, timeout=5)\n'
HELPER_POST = 'import requests\n\n\ndef send(x):\n    return requests.post("https://api/x", json=x, timeout=5)\n'
APP = textwrap.dedent("""\
    from tenacity import retry, stop_after_attempt, wait_random_exponential

    import helper


    @retry(stop=stop_after_attempt(3), wait=wait_random_exponential(max=10))
    def push(order):
        return helper.send(order)
    """)
RETRY = textwrap.dedent("""\
    import requests
    from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, wait_exponential


    @retry(retry=retry_if_exception_type(requests.ConnectionError), stop=stop_after_attempt(3) | stop_after_delay(30), wait=wait_exponential(max=5))
    def fetch(url):
        return requests.get(url)
    """)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER))
async def client(lsp_client: LanguageClient):
    lsp_client.registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams):  # the test client accepts the file watchers
        lsp_client.registrations = list(params.registrations)

    yield
    await lsp_client.shutdown_session()


# -- helpers -------------------------------------------------------------------------------------------------------
def project(tmp_path: Path, files: dict) -> Path:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "demo"\n', encoding="utf-8")
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def uri(path: Path) -> str:
    return path.resolve().as_uri()


async def start(client: LanguageClient, root: Path, spec: str = "visual-studio-code", options=None,
                capabilities=None) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=capabilities or client_capabilities(spec), root_uri=uri(root),
        workspace_folders=[types.WorkspaceFolder(uri=uri(root), name="demo")], initialization_options=options))


def open_file(client: LanguageClient, path: Path, text=None, version: int = 1) -> str:
    text = path.read_text(encoding="utf-8") if text is None else text
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=uri(path), language_id="python", version=version, text=text)))
    return uri(path)


def change(client: LanguageClient, document: str, text: str, version: int) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=document, version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def diagnostics(client: LanguageClient, document: str, wanted=lambda found: True):
    """The diagnostics of ``document`` once the server has some that satisfy ``wanted``: pushed
    ones, or pulled ones from a client that pulls (Neovim 0.10+)."""
    pull = client.capabilities.text_document.diagnostic is not None

    async def poll():
        while True:
            found = (await pulled(client, document)).items if pull else client.diagnostics.get(document)
            if found is not None and wanted(list(found)):
                return list(found)
            await asyncio.sleep(0.02)
    return await asyncio.wait_for(poll(), WAIT)


async def pulled(client: LanguageClient, document: str, previous=None):
    return await asyncio.wait_for(client.text_document_diagnostic_async(types.DocumentDiagnosticParams(
        text_document=types.TextDocumentIdentifier(uri=document), previous_result_id=previous)), WAIT)


def codes(found) -> list:
    return sorted(d.code for d in found)


async def actions(client: LanguageClient, document: str, diagnostic: types.Diagnostic, only=None):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=document), range=diagnostic.range,
        context=types.CodeActionContext(diagnostics=[diagnostic], only=only)))


def lsp_offset(text: str, position: types.Position) -> int:
    """The offset of a UTF-16 LSP position in ``text`` (written here, independent of the server)."""
    lines = re.split(r"(?<=\r\n)|(?<=\r)(?!\n)|(?<=\n)", text)
    start = sum(len(line) for line in lines[:position.line])
    units = 0
    line = lines[position.line] if position.line < len(lines) else ""
    for index, char in enumerate(line.rstrip("\r\n")):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line.rstrip("\r\n"))


def apply(text: str, edit: types.WorkspaceEdit, document: str) -> str:
    """Apply a workspace edit's changes of ``document`` to ``text``, as a client does."""
    edits = []
    for change_ in edit.document_changes or ():
        if change_.text_document.uri == document:
            edits.extend(change_.edits)
    edits.extend((edit.changes or {}).get(document, ()))
    spans = sorted(((lsp_offset(text, e.range.start), lsp_offset(text, e.range.end), e.new_text) for e in edits),
                   reverse=True)
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text


# -- diagnostics ---------------------------------------------------------------------------------------------------
async def test_open_file_reports_res101(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"app.py": "import requests\n\nrequests.get(url)\n"})
    result = await start(client, root)
    assert result.capabilities.diagnostic_provider.inter_file_dependencies is True
    document = open_file(client, root / "app.py")
    (found,) = await diagnostics(client, document)
    assert found.code == "RES101"
    assert found.source == "reslint"
    assert found.severity == types.DiagnosticSeverity.Error
    assert found.message.startswith("`requests.get` call has no timeout")
    assert found.range == types.Range(start=types.Position(line=2, character=0),
                                      end=types.Position(line=2, character=17))
    assert found.code_description.href.endswith("/rules/RES101-missing-timeout.md")

    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=document), position=types.Position(line=2, character=4)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert "**RES101** `missing-timeout`" in hover.contents.value
    assert "**What it does**" in hover.contents.value  # the rule book's text, shipped with reslint
    assert "reslint rule RES101" in hover.contents.value


@pytest.mark.parametrize("spec, units", [
    ("visual-studio-code", lambda s: len(s.encode("utf-16-le")) // 2),  # LSP's default, UTF-16
    ("emacs", len),  # eglot offers UTF-32 first: code points
    ("neovim@v0.11", lambda s: len(s.encode("utf-8"))),  # Neovim offers UTF-8 first
])
async def test_ranges_use_the_negotiated_position_encoding(client: LanguageClient, tmp_path, spec, units):
    line = 'label = "😀 ünïcode 😀"; requests.get(url)'
    root = project(tmp_path, {"app.py": f"import requests\n\n{line}\n"})
    await start(client, root, spec)
    (found,) = await diagnostics(client, open_file(client, root / "app.py"))
    start_at = line.index("requests.get")
    assert (found.range.start.line, found.range.start.character) == (2, units(line[:start_at]))
    assert (found.range.end.line, found.range.end.character) == (2, units(line))


async def test_pull_diagnostics(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"app.py": "import requests\n\nrequests.get(url)\n"})
    await start(client, root, "neovim@v0.11")  # Neovim 0.10+ pulls
    document = open_file(client, root / "app.py")
    report = await pulled(client, document)
    assert report.kind == "full"
    assert codes(report.items) == ["RES101"]
    again = await pulled(client, document, report.result_id)
    assert again.kind == "unchanged" and again.result_id == report.result_id
    change(client, document, "import requests\n\nrequests.get(url, timeout=5)\n", 2)
    fixed = await pulled(client, document, report.result_id)
    assert fixed.kind == "full" and not fixed.items
    assert document not in client.diagnostics  # a client that pulls is not pushed to as well


# -- code actions --------------------------------------------------------------------------------------------------
async def test_quick_fix_edit_makes_the_diagnostic_go_away(client: LanguageClient, tmp_path):
    text = "import requests\n\nrequests.get(url)\n"
    root = project(tmp_path, {"app.py": text})
    await start(client, root, options={"unsafeFixes": True})
    document = open_file(client, root / "app.py")
    (found,) = await diagnostics(client, document)
    offered = await actions(client, document, found)
    titles = [action.title for action in offered]
    assert "reslint (RES101): Add `timeout=10` (unsafe fix)" in titles
    assert "Suppress RES101 with `# noqa: RES101`" in titles
    fix = next(a for a in offered if a.title.startswith("reslint (RES101)"))
    assert fix.kind == types.CodeActionKind.QuickFix and fix.diagnostics[0].code == "RES101"

    fixed = apply(text, fix.edit, document)
    assert fixed == "import requests\n\nrequests.get(url, timeout=10)\n"
    change(client, document, fixed, 2)
    assert await diagnostics(client, document, lambda found: not found) == []

    noqa = next(a for a in offered if a.title.startswith("Suppress"))
    suppressed = apply(text, noqa.edit, document)
    assert suppressed == "import requests\n\nrequests.get(url)  # noqa: RES101\n"
    change(client, document, text, 3)
    await diagnostics(client, document, lambda found: codes(found) == ["RES101"])
    change(client, document, suppressed, 4)
    assert await diagnostics(client, document, lambda found: not found) == []  # used, so no RES900 either


async def test_unsafe_fixes_only_when_configured_and_fix_all_applies_the_safe_ones(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"app.py": RETRY})
    await start(client, root)  # no unsafeFixes: RES101's fix (adding a timeout) is unsafe
    document = open_file(client, root / "app.py")
    found = await diagnostics(client, document, lambda found: codes(found) == ["RES101", "RES201"])
    timeout = next(d for d in found if d.code == "RES101")
    titles = [a.title for a in await actions(client, document, timeout)]
    assert titles == ["Suppress RES101 with `# noqa: RES101`", "reslint: Fix all auto-fixable problems"]
    jitter = next(d for d in found if d.code == "RES201")
    titles = [a.title for a in await actions(client, document, jitter, only=[types.CodeActionKind.QuickFix])]
    assert titles == ["reslint (RES201): Use `wait_random_exponential` with the same bounds (full jitter)",
                      "Suppress RES201 with `# noqa: RES201`"]

    (fix_all,) = await actions(client, document, jitter, only=[types.CodeActionKind.SourceFixAll])
    assert fix_all.kind == "source.fixAll.reslint"
    if fix_all.edit is None:  # VS Code resolves the edit when it applies the action
        fix_all = await client.code_action_resolve_async(fix_all)
    fixed = apply(RETRY, fix_all.edit, document)
    assert "wait=wait_random_exponential(max=5)" in fixed
    assert "requests.get(url)\n" in fixed  # the unsafe fix is not applied
    change(client, document, fixed, 2)
    await diagnostics(client, document, lambda found: codes(found) == ["RES101"])


@pytest.mark.parametrize("spec", ["neovim@v0.11", "emacs"])  # resolves the edit later; wants it at once
async def test_fix_all_applies_unsafe_fixes_when_configured(client: LanguageClient, tmp_path, spec):
    root = project(tmp_path, {"app.py": RETRY})
    await start(client, root, spec, options={"unsafeFixes": True})
    document = open_file(client, root / "app.py")
    found = await diagnostics(client, document, lambda found: codes(found) == ["RES101", "RES201"])
    (fix_all,) = await actions(client, document, found[0], only=[types.CodeActionKind.SourceFixAll])
    assert (fix_all.edit is None) == (spec == "neovim@v0.11")
    if fix_all.edit is None:
        fix_all = await client.code_action_resolve_async(fix_all)
    fixed = apply(RETRY, fix_all.edit, document)
    assert "wait=wait_random_exponential(max=5)" in fixed and "requests.get(url, timeout=10)" in fixed


# -- the project -------------------------------------------------------------------------------------------------
async def test_editing_a_helper_shows_the_res402_its_callers_retry_causes(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"helper.py": HELPER_GET, "app.py": APP})
    await start(client, root)
    document = open_file(client, root / "helper.py")
    assert await diagnostics(client, document) == []  # a GET replayed by the retry is fine
    change(client, document, HELPER_POST, 2)  # not saved: the buffer is linted, app.py read from disk
    (found,) = await diagnostics(client, document, lambda found: found)
    assert found.code == "RES402"
    assert found.message.startswith("HTTP POST in `send()` runs under the push retry (3 attempts, through send)")
    assert found.range.start == types.Position(line=4, character=11)
    (related,) = found.related_information
    assert related.message == "push: 3 attempts"
    change(client, document, HELPER_GET, 3)
    assert await diagnostics(client, document, lambda found: not found) == []


async def test_a_nested_retry_points_at_the_inner_layer_in_the_other_module(client: LanguageClient, tmp_path):
    shutil.copytree(CASES / "nested_cross_module" / "shop", tmp_path / "shop")
    root = project(tmp_path, {})
    await start(client, root)
    inventory = root / "shop" / "inventory.py"
    document = open_file(client, inventory)
    (found,) = await diagnostics(client, document, lambda found: found)
    assert found.code == "RES301"
    assert found.message.startswith("retry layers multiply: stock_level (4) → fetch_json (3): up to 12 calls")
    assert [(r.location.uri, r.location.range.start.line) for r in found.related_information] == [
        (document, 8), (uri(root / "shop" / "http_layer.py"), 11)]


async def test_editing_the_caller_updates_the_open_helper(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"helper.py": HELPER_POST, "app.py": APP.replace("@retry", "# @retry")})
    await start(client, root)
    helper = open_file(client, root / "helper.py")
    app = open_file(client, root / "app.py")
    assert await diagnostics(client, helper) == []
    change(client, app, APP, 2)  # the retry comes back: the helper's POST is retried
    await diagnostics(client, helper, lambda found: codes(found) == ["RES402"])


async def test_a_changed_pyproject_reloads_the_settings(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"app.py": "import requests\n\nrequests.get(url)\n"})
    await start(client, root)
    document = open_file(client, root / "app.py")
    await diagnostics(client, document, lambda found: codes(found) == ["RES101"])
    assert [r.method for r in client.registrations] == [types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    (root / "pyproject.toml").write_text('[project]\nname = "demo"\n\n[tool.reslint]\nignore = ["RES101"]\n',
                                         encoding="utf-8")
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=uri(root / "pyproject.toml"), type=types.FileChangeType.Changed)]))
    assert await diagnostics(client, document, lambda found: not found) == []


async def test_a_client_that_cannot_watch_files_gets_the_settings_read_again_on_save(client: LanguageClient,
                                                                                       tmp_path):
    root = project(tmp_path, {"app.py": "import requests\n\nrequests.get(url)\n"})
    await start(client, root, "neovim@v0.11")  # no dynamic registration of file watchers
    document = open_file(client, root / "app.py")
    await diagnostics(client, document, lambda found: codes(found) == ["RES101"])
    assert client.registrations == []
    (root / "pyproject.toml").write_text('[tool.reslint]\nignore = ["RES101"]\n', encoding="utf-8")
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=document)))
    assert await diagnostics(client, document, lambda found: not found) == []


# -- robustness ----------------------------------------------------------------------------------------------------
async def test_a_syntax_error_is_res000_and_the_server_keeps_serving(client: LanguageClient, tmp_path):
    root = project(tmp_path, {"app.py": "import requests\n\n\ndef f(:\n    requests.get(url)\n"})
    await start(client, root)
    document = open_file(client, root / "app.py")
    (found,) = await diagnostics(client, document)
    assert found.code == "RES000" and found.message.startswith("cannot parse")
    assert found.range.start.line == 3
    offered = await actions(client, document, found)
    assert not offered  # no fix, and no `# noqa` (a file that does not parse has no comments to read)
    change(client, document, "import requests\n\n\ndef f():\n    requests.get(url)\n", 2)
    await diagnostics(client, document, lambda found: codes(found) == ["RES101"])


def big_module(lines: int) -> str:
    """A module of about ``lines`` lines: retried fetchers with findings, and plain code."""
    parts = ["import requests\nfrom tenacity import retry, stop_after_attempt, wait_exponential\n\n\n"]
    index = 0
    while sum(part.count("\n") for part in parts) < lines:
        parts.append(textwrap.dedent(f"""\
            @retry(stop=stop_after_attempt(3), wait=wait_exponential())
            def fetch_{index}(url, params):
                data = dict(params)
                data["page"] = {index}
                response = requests.get(url, params=data)
                response.raise_for_status()
                return response.json()


            def total_{index}(items):
                count = 0
                for item in items:
                    count += item.get("n", 0)
                return count


            """))
        index += 1
    return "".join(parts)


async def test_a_5000_line_file_gets_diagnostics_without_blocking_other_requests(client: LanguageClient, tmp_path):
    big = big_module(5000)
    assert big.count("\n") >= 5000
    root = project(tmp_path, {"app.py": "import requests\n\nrequests.get(url)\n", "big.py": big})
    await start(client, root)
    small = open_file(client, root / "app.py")
    await diagnostics(client, small)
    large = open_file(client, root / "big.py")
    hover = await asyncio.wait_for(client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=small), position=types.Position(line=2, character=4))), WAIT)
    assert "RES101" in hover.contents.value
    assert large not in client.diagnostics  # answered while the large file was still being linted
    found = await diagnostics(client, large)
    assert len([d for d in found if d.code == "RES101"]) == big.count("requests.get(url, params=data)")


async def test_a_workspace_folder_reached_through_a_link_gets_diagnostics(client: LanguageClient, tmp_path):
    """The editor names the folder and its files by the linked path (macOS's /tmp, a linked
    home directory); the project's settings resolve it."""
    (tmp_path / "real").mkdir()
    real = project(tmp_path / "real", {"helper.py": HELPER_POST, "app.py": APP, "get.py": RETRY})
    link = tmp_path / "link"
    link.symlink_to(real, target_is_directory=True)
    await client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=link.as_uri(),
        workspace_folders=[types.WorkspaceFolder(uri=link.as_uri(), name="demo")]))
    document = link.as_uri() + "/get.py"
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=document, language_id="python", version=1, text=(real / "get.py").read_text(encoding="utf-8"))))
    found = await diagnostics(client, document, lambda found: "RES101" in codes(found))
    assert "RES101" in codes(found)
    helper = link.as_uri() + "/helper.py"  # the POST that app.py's retry replays: across modules
    client.text_document_did_open(types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(
        uri=helper, language_id="python", version=1, text=HELPER_POST)))
    assert codes(await diagnostics(client, helper, lambda found: found)) == ["RES402"]
