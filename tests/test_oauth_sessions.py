"""requests-oauthlib's sessions are requests Sessions: their requests and their token exchanges
carry no default timeout (RES101), and a timeout passed to either is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from reslint.config import Settings
from reslint.engine.filepass import Linter
from reslint.engine.fixer import fix_text

HEAD = ("from requests_oauthlib import OAuth1Session, OAuth2Session\n"
        "from requests_oauthlib.oauth2_session import OAuth2Session as Session2\n\n\n")


def found(body):
    findings, errors = Linter(Settings(root=Path("."))).lint_text(HEAD + body, "m.py")
    assert errors == []
    return [(f.location.row - HEAD.count("\n"), f.message.split(" call ", 1)[0]) for f in findings
            if f.code == "RES101"]


@pytest.mark.parametrize(("call", "expected"), [
    ("OAuth2Session('id').fetch_token(TOKEN_URL, client_secret='s', authorization_response=url)",
     "`requests_oauthlib.OAuth2Session.fetch_token`"),
    ("OAuth2Session('id').refresh_token(TOKEN_URL)", "`requests_oauthlib.OAuth2Session.refresh_token`"),
    ("OAuth2Session('id').get('https://api.example.invalid/user')", "`requests_oauthlib.OAuth2Session.get`"),
    ("Session2('id').post('https://api.example.invalid/items', json={})", "`requests_oauthlib.OAuth2Session.post`"),
    ("OAuth1Session('key').fetch_request_token(TOKEN_URL)", "`requests_oauthlib.OAuth1Session.fetch_request_token`"),
    ("OAuth1Session('key').fetch_access_token(TOKEN_URL, verifier='v')",
     "`requests_oauthlib.OAuth1Session.fetch_access_token`"),
])
def test_an_oauth_session_call_with_no_timeout_is_reported(call, expected):
    body = f"TOKEN_URL = 'https://auth.example.invalid/token'\n\n\ndef f(url):\n    return {call}\n"
    assert found(body) == [(5, expected)]
    timed = body.replace(")\n", ", timeout=10)\n", 1) if call.endswith(")") else body
    assert found(timed) == []


def test_the_fix_passes_a_timeout_to_the_token_exchange():
    source = HEAD + "def f(url):\n    return OAuth1Session('key').fetch_access_token(url, verifier='v')\n"
    fixed = fix_text(Linter(Settings(root=Path("."))), source, "m.py", unsafe=True).text
    assert "fetch_access_token(url, verifier='v', timeout=10)" in fixed


def test_a_session_with_an_adapter_that_sets_a_timeout_mounted_is_not_reported():
    body = ("import requests\n\n\nclass TimeoutAdapter(requests.adapters.HTTPAdapter):\n"
            "    def send(self, request, **kwargs):\n        kwargs.setdefault('timeout', 10)\n"
            "        return super().send(request, **kwargs)\n\n\n"
            "def me(token):\n    session = OAuth2Session('id', token=token)\n"
            "    session.mount('https://', TimeoutAdapter())\n"
            "    return session.get('https://api.example.invalid/me')\n")
    assert found(body) == []
