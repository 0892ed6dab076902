"""``reslint server``: the Language Server (LSP 3.17 over stdio, on pygls and lsprotocol).

What it offers a client:

- diagnostics for every open Python buffer: pushed (``textDocument/publishDiagnostics``)
  after open, change and save, or pulled (``textDocument/diagnostic``, with
  ``interFileDependencies``: RES105/RES301/RES401/RES402 depend on other files) by a client
  that can pull, which is then not pushed to; each with the rule code, severity,
  message, the rule page as ``codeDescription``, and the other end of a call chain as
  related information;
- code actions: each finding's fix as a quick fix (an unsafe one only with
  ``unsafeFixes``, and labelled so), "Suppress RESnnn with ``# noqa: RESnnn``", and
  ``source.fixAll.reslint``, which applies the safe fixes (the unsafe ones too only
  with ``unsafeFixes``) until stable, as ``reslint check --fix`` does;
- hover on a finding: its message and the rule's text, from the rule book shipped with
  reslint (offline).

Changes are debounced on both edges: the first change after a quiet spell of
:data:`DEBOUNCE_SECONDS` is linted at once, later ones once the buffers have been quiet
that long, and the changes that arrive while a lint runs are folded into one more lint
when it ends. Linting runs on a thread of its own, so the server answers other requests
meanwhile; an outcome for a text that has changed since is not published.

Settings: ``initializationOptions`` (or ``workspace/didChangeConfiguration``
``settings``, flat or under ``reslint``) may hold ``{"unsafeFixes": true}``; the
``[tool.reslint]`` table is read as ``reslint check`` reads it in the workspace folder,
and read again when a ``pyproject.toml`` or ``.gitignore`` changes (the client is asked
to watch them, and Python files, where it can be).
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from reslint import __version__
from reslint.config import find_project_root
from reslint.engine.fixer import applicable
from reslint.server import convert
from reslint.server.convert import FIX_ALL, Client
from reslint.server.project import Checked, Project
from reslint.server.text import UTF16, TextLines

logger = logging.getLogger("reslint.server")

#: how long the buffers must be quiet before a change that follows another is linted (seconds)
DEBOUNCE_SECONDS = 0.05
PYTHON_SUFFIXES = (".py", ".pyi")
#: files whose change reloads the settings and the list of files
CONFIG_FILES = ("pyproject.toml", ".gitignore")
#: what the client is asked to watch (when it can be asked)
WATCHED = ("**/*.py", "**/*.pyi", "**/pyproject.toml", "**/.gitignore")

#: what a job on the lint thread returns: its value, and problems to show the user once
Job = Tuple[Any, List[str]]


@dataclass
class Options:
    """How the server runs: ``unsafe_fixes`` offers unsafe fixes (quick fixes and fix-all);
    ``use_cache``/``cache_dir`` as for ``reslint check``; ``debounce`` in seconds."""

    unsafe_fixes: bool = False
    use_cache: bool = True
    cache_dir: Optional[Path] = None
    debounce: float = DEBOUNCE_SECONDS


#: the key prefix of a project for a file outside every workspace folder (see ``folder_of``)
STANDALONE = "\0standalone:"


class Workspace:
    """The projects of the workspace; every method runs on the lint thread (one thread:
    a :class:`~reslint.engine.filepass.Linter` is not thread-safe). Methods return a :data:`Job`."""

    def __init__(self, options: Options):
        self.options = options
        self.projects: Dict[str, Project] = {}  # folder -> project

    def project(self, folder: str) -> Project:
        """The project of a workspace folder, or of a :data:`STANDALONE` key (a file outside
        every workspace folder)."""
        if folder not in self.projects:
            self.projects[folder] = self._new(folder)
        return self.projects[folder]

    def _new(self, folder: str) -> Project:
        if folder.startswith(STANDALONE):  # lint the buffers alone: no walk, no cache written there
            return Project(Path(folder[len(STANDALONE):]), use_cache=False, walk=False)
        return Project(Path(folder), self.options.use_cache, self.options.cache_dir)

    @staticmethod
    def problems(project: Project) -> List[str]:
        """What the user should know about a project: a configuration that cannot be used,
        internal errors of its files on disk."""
        problems = [f"reslint: configuration error, using the defaults: {project.config_error}"] \
            if project.config_error else []
        return problems + [f"reslint: {error}" for error in project.errors]

    def warm(self, folder: str) -> Job:
        project = self.project(folder)
        project.warm()
        return None, self.problems(project)

    def check(self, groups: Dict[str, Dict[str, str]]) -> Job:
        """Check each project's buffers (folder -> {path: text}): (outcomes by path, problems)."""
        outcome: Dict[str, Checked] = {}
        problems: List[str] = []
        for folder, buffers in groups.items():
            project = self.project(folder)
            outcome.update(project.check(buffers))
            problems.extend(self.problems(project))
        problems.extend(f"reslint: {error}" for checked in outcome.values() for error in checked.errors)
        return outcome, problems

    def files_changed(self, changes: List[Tuple[str, bool]]) -> Job:
        """Files changed on disk: (absolute path, created or deleted). A configuration file
        reloads the projects it can affect (those it is in, and those below its directory)."""
        for path, created_or_deleted in changes:
            name = os.path.basename(path)
            below = os.path.dirname(path).rstrip(os.sep) + os.sep
            for folder, project in list(self.projects.items()):
                if name in CONFIG_FILES and (project.owns(path) or folder.startswith(below)):
                    self.projects[folder] = self._new(folder)
                elif name.endswith(PYTHON_SUFFIXES) and project.owns(path):
                    project.forget([path], created_or_deleted=created_or_deleted)
        return None, []

    def rescan(self) -> Job:
        """Read the settings and every file on disk again, through the cache (for a client
        that cannot watch files: any of them may have changed unseen)."""
        for folder in list(self.projects):
            self.projects[folder] = self._new(folder)
        return None, []

    def fix_all(self, folder: str, checked: Checked, unsafe: bool) -> Job:
        fixed, error = self.project(folder).fix_all(checked.path, checked.text, checked.findings, unsafe)
        return fixed, [f"reslint: {error}"] if error else []


class Session:
    """The server's state and handlers. pygls calls the handlers on its event loop; the
    :class:`Workspace` lives on :attr:`executor`'s one thread."""

    def __init__(self, server: LanguageServer, options: Options):
        self.server = server
        self.options = options
        self.client = Client()
        self.workspace = Workspace(options)
        self.executor = ThreadPoolExecutor(1, thread_name_prefix="reslint-lint")
        self.folders: List[str] = []  # workspace folders, longest first
        self.python: Dict[str, str] = {}  # uri -> path of each open Python buffer
        self.checked: Dict[str, Checked] = {}  # uri -> the last outcome of its buffer
        self.published: Dict[str, Tuple[str, list]] = {}  # uri -> (result id, diagnostics)
        self.pull = False  # the client pulls diagnostics (and is not pushed to)
        self.refresh = False  # the client takes `workspace/diagnostic/refresh`
        self.watching = False  # the client watches files for the server
        self.resolve_edits = False  # the client resolves a code action's edit when it applies it
        self.versions = False  # the client takes the buffer's version with pushed diagnostics
        self._timer: Optional[asyncio.TimerHandle] = None
        self._running = False
        self._again: Optional[float] = None  # a lint was asked for while one ran: its delay
        self._last_change = float("-inf")  # loop time of the last change of a buffer
        self._waiters: List[asyncio.Future] = []
        self._shown: set = set()
        self._closed = False
        self._failed = False  # the last lint raised (a bug in reslint)

    # -- set-up --------------------------------------------------------------------------------------
    def register(self) -> None:
        """Register the handlers with pygls (its capabilities are derived from them)."""
        def feature(name, options=None):
            return lambda method: self.server.feature(name, options)(_handler(method))

        feature(types.INITIALIZE)(self.initialize)
        feature(types.INITIALIZED)(self.initialized)
        feature(types.SHUTDOWN)(self.shutdown)
        feature(types.TEXT_DOCUMENT_DID_OPEN)(self.did_open)
        feature(types.TEXT_DOCUMENT_DID_CHANGE)(self.did_change)
        feature(types.TEXT_DOCUMENT_DID_SAVE, types.SaveOptions(include_text=False))(self.did_save)
        feature(types.TEXT_DOCUMENT_DID_CLOSE)(self.did_close)
        feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(self.did_change_watched_files)
        feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)(self.did_change_configuration)
        feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)(self.did_change_workspace_folders)
        feature(types.TEXT_DOCUMENT_DIAGNOSTIC, types.DiagnosticOptions(
            identifier=convert.SOURCE, inter_file_dependencies=True, workspace_diagnostics=False))(self.diagnostic)
        feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
            code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL], resolve_provider=True))(self.code_action)
        feature(types.CODE_ACTION_RESOLVE)(self.resolve_code_action)
        feature(types.TEXT_DOCUMENT_HOVER)(self.hover)

    def initialize(self, params: types.InitializeParams) -> None:
        """Read the client's capabilities, workspace folders and options."""
        self._capabilities(params.capabilities)
        folders = [to_fs_path(f.uri) for f in params.workspace_folders or ()]
        if not folders and (params.root_uri or params.root_path):
            folders = [to_fs_path(params.root_uri) if params.root_uri else params.root_path]
        self._set_folders(folders)
        self._configure(params.initialization_options)

    def _capabilities(self, capabilities: types.ClientCapabilities) -> None:
        """What the client can do: pull diagnostics, watch files, resolve code actions, and
        what its diagnostics and edits can hold."""
        text, workspace = capabilities.text_document, capabilities.workspace
        self.pull = text is not None and text.diagnostic is not None
        self.refresh = bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)
        self.watching = bool(workspace and workspace.did_change_watched_files
                             and workspace.did_change_watched_files.dynamic_registration)
        action = text.code_action if text is not None else None
        self.resolve_edits = bool(action and action.resolve_support and "edit" in action.resolve_support.properties)
        report = (text.diagnostic if self.pull else text.publish_diagnostics) if text is not None else None
        self.versions = bool(not self.pull and report and report.version_support)
        self.client = Client(
            related=bool(report and report.related_information),
            code_description=bool(report and report.code_description_support),
            tags=bool(report and report.tag_support is not None),
            versioned_edits=bool(workspace and workspace.workspace_edit and workspace.workspace_edit.document_changes))

    def _set_folders(self, folders) -> None:
        self.folders = sorted({_canonical(f) for f in folders if f}, key=len, reverse=True)

    def initialized(self, params: types.InitializedParams) -> None:
        """Take the negotiated position encoding, ask the client to watch files (when it can),
        and warm the projects of the workspace folders."""
        encoding = self.server.workspace.position_encoding
        self.client.encoding = getattr(encoding, "value", encoding) or UTF16
        if self.watching:
            watchers = [types.FileSystemWatcher(glob_pattern=glob) for glob in WATCHED]
            registration = types.Registration(
                id="reslint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))
            sent = self.server.client_register_capability(types.RegistrationParams(registrations=[registration]))
            sent.add_done_callback(self._registered)
        for folder in self.folders:
            self._submit(self.workspace.warm, folder)

    def _registered(self, future) -> None:
        """A client that refused to watch files: rescan on save instead."""
        if future.cancelled() or future.exception() is not None:
            self.watching = False

    def shutdown(self, params: None) -> None:
        self._closed = True
        self.executor.shutdown(wait=False, cancel_futures=True)

    def _configure(self, settings: Any) -> None:
        """Apply client settings: ``{"unsafeFixes": bool}``, flat or under ``"reslint"``."""
        if isinstance(settings, dict) and isinstance(settings.get("reslint"), dict):
            settings = settings["reslint"]
        if isinstance(settings, dict) and isinstance(settings.get("unsafeFixes"), bool):
            self.options.unsafe_fixes = settings["unsafeFixes"]

    # -- the lint thread -----------------------------------------------------------------------------
    def folder_of(self, path: str) -> str:
        """The workspace folder holding ``path``, else a :data:`STANDALONE` key for its
        directory: a file opened from outside the workspace (a library's source reached by
        go-to-definition) is linted alone, with its configuration, without walking, linting
        or caching the directory around it (a site-packages would cost minutes)."""
        for folder in self.folders:
            if path == folder or path.startswith(folder.rstrip(os.sep) + os.sep):
                return folder
        directory = os.path.dirname(path)
        if not self.folders:  # no workspace at all: the project `reslint check` would find
            root = find_project_root(Path(directory))
            if root is not None:
                return str(root)
        return STANDALONE + directory

    def _submit(self, job, *args) -> "asyncio.Future":
        """Queue ``job(*args)`` (a :data:`Job`) on the lint thread at once (jobs run in the
        order they are queued); the returned future gives its value, and its problems are shown."""
        value = asyncio.get_running_loop().create_future()
        if self._closed:  # after `shutdown`: nothing runs any more
            value.cancel()
            return value
        future = asyncio.get_running_loop().run_in_executor(self.executor, job, *args)

        def done(finished: "asyncio.Future") -> None:
            if finished.cancelled():
                value.cancel()
                return
            error = finished.exception()
            if error is not None:
                logger.error("internal error: %r", error)
                self._show(f"reslint: internal error: {type(error).__name__}: {error}; please report this bug")
                value.set_exception(error)
                return
            result, problems = finished.result()
            for problem in problems:
                self._show(problem)
            value.set_result(result)

        future.add_done_callback(done)
        value.add_done_callback(lambda f: f.cancelled() or f.exception())  # a failure nobody awaits is shown
        return value

    def _show(self, message: str) -> None:
        """Show a problem to the user once per session (not again at every keystroke)."""
        if message in self._shown:
            return
        self._shown.add(message)
        self.server.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))

    # -- documents -----------------------------------------------------------------------------------
    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        document = params.text_document
        path = _path(document.uri)
        if path is None:  # an unsaved new buffer (`untitled:`): linted as a file in the first folder
            base = self.folders[0] if self.folders else os.getcwd()
            path = os.path.join(base, unquote(document.uri.rsplit("/", 1)[-1].split(":")[-1]) or "untitled")
        if document.language_id == "python" or path.endswith(PYTHON_SUFFIXES):
            self.python[document.uri] = path
            self._schedule(0.0)

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        if params.text_document.uri not in self.python:
            return
        now = asyncio.get_running_loop().time()
        quiet = now - self._last_change >= self.options.debounce
        self._last_change = now
        self._schedule(0.0 if quiet else self.options.debounce)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        path = _path(params.text_document.uri)
        if path is None:
            return
        self._submit(self.workspace.files_changed, [(path, False)])
        if not self.watching and path.endswith(PYTHON_SUFFIXES):
            self._submit(self.workspace.rescan)  # other files may have changed too, unseen
        self._schedule(0.0)

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        uri = params.text_document.uri
        path = self.python.pop(uri, None)
        self.checked.pop(uri, None)
        if self.published.pop(uri, None) is not None and not self.pull:
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
        if path is not None:
            self._submit(self.workspace.files_changed, [(path, False)])  # its file on disk counts again
            self._schedule(0.0)

    def did_change_watched_files(self, params: types.DidChangeWatchedFilesParams) -> None:
        changes = [(path, change.type != types.FileChangeType.Changed) for change in params.changes
                   for path in (_path(change.uri),) if path is not None]
        if changes:
            self._submit(self.workspace.files_changed, changes)
            self._schedule(0.0)

    def did_change_configuration(self, params: types.DidChangeConfigurationParams) -> None:
        self._configure(params.settings)
        self.published.clear()  # which fixes are offered may have changed
        self._schedule(0.0)

    def did_change_workspace_folders(self, params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = {_canonical(to_fs_path(f.uri)) for f in params.event.removed or ()}
        added = [_canonical(to_fs_path(f.uri)) for f in params.event.added or ()]
        self._set_folders([f for f in self.folders if f not in removed] + added)
        for folder in added:
            self._submit(self.workspace.warm, os.path.abspath(folder))
        self._schedule(0.0)

    def _document(self, uri: str):
        """pygls's open document for ``uri`` (``None`` when it is not open)."""
        return self.server.workspace.text_documents.get(unquote(uri))

    def _text_of(self, path: str) -> Optional[str]:
        """The text of the open buffer of ``path``, if one is open."""
        for uri, open_path in self.python.items():
            document = self._document(uri) if open_path == path else None
            if document is not None:
                return document.source
        return None

    # -- linting -------------------------------------------------------------------------------------
    def _schedule(self, delay: float) -> None:
        """Lint the open buffers in ``delay`` seconds (a later call moves the time); while a
        lint runs, once more when it ends."""
        if self._running:
            self._again = delay if self._again is None else min(self._again, delay)
            return
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(delay, self._start)

    def _start(self) -> None:
        self._timer = None
        self._running = True
        asyncio.ensure_future(self._pass())

    async def _pass(self) -> None:
        """Lint every open buffer once, then publish what changed (push), or ask a client that
        pulls to pull again when a buffer's findings changed without an edit of its own."""
        snapshot = {uri: document.source for uri in self.python for document in (self._document(uri),)
                    if document is not None}
        groups: Dict[str, Dict[str, str]] = {}
        for uri, text in snapshot.items():
            path = self.python[uri]
            groups.setdefault(self.folder_of(path), {})[path] = text
        outcome: Dict[str, Checked] = {}
        self._failed = False
        try:
            outcome = await self._submit(self.workspace.check, groups)
        except Exception:  # noqa: BLE001 - shown by _submit; the server goes on
            self._failed = True
        finally:
            self._running = False
        elsewhere = False
        for uri, text in snapshot.items():
            checked = outcome.get(self.python.get(uri, ""))
            if checked is not None:
                elsewhere |= self._publish(uri, text, checked)
        if elsewhere and self.pull and self.refresh:
            self.server.workspace_diagnostic_refresh(None)
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
        if self._again is not None:  # changes came while linting: lint once more, when quiet
            asked, self._again = self._again, None
            quiet = self._last_change + self.options.debounce - asyncio.get_running_loop().time()
            self._schedule(0.0 if asked == 0.0 else max(0.0, quiet))

    def _publish(self, uri: str, text: str, checked: Checked) -> bool:
        """Keep a buffer's outcome and push its diagnostics if they changed (unless its text
        changed since: another lint is coming). Whether they changed with the same text."""
        previous = self.checked.get(uri)
        self.checked[uri] = checked
        document = self._document(uri)
        if document is None or document.source != text:
            return False
        diagnostics = self._diagnostics(checked)
        known = self.published.get(uri)
        if known is not None and known[1] == diagnostics:
            return False
        self.published[uri] = (convert.result_id(diagnostics), diagnostics)
        if not self.pull:
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=document.version if self.versions else None))
        return previous is not None and previous.text == text

    def _diagnostics(self, checked: Checked) -> List[types.Diagnostic]:
        return convert.Diagnostics(self.client, checked, self._text_of).all()

    async def fresh(self, uri: str) -> Optional[Checked]:
        """The outcome of a buffer's current text, waiting for a lint when it is not known yet;
        ``None`` for a buffer that is not an open Python file."""
        for _ in range(100):  # each round is one lint; a buffer edited faster than that still ends
            document = self._document(uri)
            if uri not in self.python or document is None:
                return None
            checked = self.checked.get(uri)
            if checked is not None and checked.text == document.source:
                return checked
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            self._schedule(0.0)
            await waiter
            if self._failed:  # a bug, shown already: answer with what is known
                break
        return self.checked.get(uri)

    # -- requests ------------------------------------------------------------------------------------
    async def diagnostic(self, params: types.DocumentDiagnosticParams):
        """``textDocument/diagnostic``: the buffer's diagnostics, or "unchanged" when the client
        has them already (``previousResultId``)."""
        uri = params.text_document.uri
        checked = await self.fresh(uri)
        if checked is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[], result_id="none")
        diagnostics = self._diagnostics(checked)
        known = self.published.get(uri)
        if known is None or known[1] != diagnostics:
            known = self.published[uri] = (convert.result_id(diagnostics), diagnostics)
        if params.previous_result_id == known[0]:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=known[0])
        return types.RelatedFullDocumentDiagnosticReport(items=known[1], result_id=known[0])

    async def code_action(self, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
        """Quick fixes and ``# noqa`` actions for the findings in the range, and fix-all."""
        uri = params.text_document.uri
        checked = await self.fresh(uri)
        if checked is None:
            return None
        document = self._document(uri)
        version = document.version if document is not None else None
        lines = TextLines(checked.text, self.client.encoding)
        start = lines.offset((params.range.start.line, params.range.start.character))
        end = lines.offset((params.range.end.line, params.range.end.character))
        only, unsafe = params.context.only, self.options.unsafe_fixes
        diagnostics = convert.Diagnostics(self.client, checked, self._text_of)
        actions: List[types.CodeAction] = []
        for finding in checked.findings:
            first, last = convert.span(lines, finding)
            if first > end or last < start or not convert.kind_matches(types.CodeActionKind.QuickFix, only):
                continue
            diagnostic = diagnostics.diagnostic(finding)
            if applicable(finding, unsafe):
                actions.append(convert.quick_fix(self.client, uri, version, lines, finding, diagnostic))
            noqa = convert.noqa_action(self.client, uri, version, lines, finding, diagnostic)
            if noqa is not None:
                actions.append(noqa)
        if convert.kind_matches(FIX_ALL, only) and any(applicable(f, unsafe) for f in checked.findings):
            action = types.CodeAction(title=convert.FIX_ALL_TITLE, kind=FIX_ALL,
                                      data={"uri": uri, "text": convert.digest(checked.text)})
            actions.append(action if self.resolve_edits else await self.resolve_code_action(action))
        return actions

    async def resolve_code_action(self, action: types.CodeAction) -> types.CodeAction:
        """Fill in fix-all's edit: the safe fixes (and the unsafe ones with ``unsafeFixes``)
        applied until stable, as ``reslint check --fix`` does, as one edit of the buffer; no
        edit when the buffer changed since the action was offered."""
        data = action.data if isinstance(action.data, dict) else {}
        uri = data.get("uri")
        checked = await self.fresh(uri) if isinstance(uri, str) else None
        if checked is None or data.get("text") != convert.digest(checked.text):
            return action
        fixed = await self._submit(self.workspace.fix_all, self.folder_of(checked.path), checked,
                                   self.options.unsafe_fixes)
        edit = convert.replacement(TextLines(checked.text, self.client.encoding), fixed) if fixed else None
        if edit is not None:
            document = self._document(uri)
            action.edit = convert.workspace_edit(self.client, uri, document.version if document else None, [edit])
        return action

    async def hover(self, params: types.HoverParams) -> Optional[types.Hover]:
        """The findings under the cursor: their messages and their rules' text (offline)."""
        checked = await self.fresh(params.text_document.uri)
        if checked is None:
            return None
        lines = TextLines(checked.text, self.client.encoding)
        text = convert.hover_text(checked, lines, lines.offset((params.position.line, params.position.character)))
        if text is None:
            return None
        return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def _handler(method):
    """A plain function calling a bound method (pygls marks its handlers with attributes)."""
    if asyncio.iscoroutinefunction(method):
        async def handler(params):
            return await method(params)
    else:
        def handler(params):
            return method(params)
    handler.__doc__ = method.__doc__
    return handler


def _canonical(path: str) -> str:
    """``path`` absolute with every symbolic link resolved: the settings and the walk of a
    project resolve its root, so a workspace folder or buffer reached through a link (macOS's
    ``/tmp``, a linked home directory) must be named the same way to be found in it."""
    return os.path.realpath(path)


def _path(uri: str) -> Optional[str]:
    """The canonical path (:func:`_canonical`) of a ``file:`` uri, else ``None``."""
    if not uri.startswith("file:"):
        return None
    path = to_fs_path(uri)
    return _canonical(path) if path else None


def serve(options: Options) -> None:
    """Serve one client over stdin/stdout until it exits. Nothing else may read stdin or
    write to stdout (they carry the protocol): ``print`` goes to stderr while it runs."""
    import sys

    # the protocol gets its own descriptors; 0 and 1 become /dev/null and stderr, so that
    # nothing else (a worker process, a C library) can read a request or write into a reply
    stdin = os.fdopen(os.dup(sys.stdin.fileno()), "rb")
    stdout = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    with open(os.devnull, "rb") as null:
        os.dup2(null.fileno(), sys.stdin.fileno())
    sys.stdout.flush()
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    sys.stdout = sys.stderr
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr, format="%(name)s: %(message)s")
    server = LanguageServer("reslint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Full)
    Session(server, options).register()
    server.start_io(stdin, stdout)
