"""LangChain, MCP, LlamaIndex and Haystack: the model-call layer's timeouts, retry layers and
replayed tool calls (catalog: reslint/catalog/langchain.py, mcp.py, llama_index.py, haystack.py;
adapter: reslint/libraries/langchain.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from reslint.config import ConfigError, Settings, load_settings
from reslint.engine.runner import Runner

LANGCHAIN = ("import openai\nfrom langchain_openai import ChatOpenAI\n"
             "from langchain_core.runnables import RunnableRetry\n"
             "TRANSIENT = (openai.APIConnectionError, openai.APITimeoutError)\n")
MCP = ("from mcp import ClientSession\n"
       "from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential\n"
       "again = retry(retry=retry_if_exception_type(TimeoutError), stop=stop_after_attempt(3), "
       "wait=wait_random_exponential(max=5), reraise=True)\n")


def _findings(tmp_path: Path, source: str, config: str = ""):
    if config:
        (tmp_path / "pyproject.toml").write_text(config)
    (tmp_path / "m.py").write_text(source)
    settings = load_settings(tmp_path) if config else Settings(root=tmp_path)
    run = Runner(settings, use_cache=False).run([tmp_path])
    assert run.errors == []
    return [(f.location.row, f.code, f.message) for result in run.results for f in result.findings]


def _codes(found):
    return sorted((row, code) for row, code, _ in found)


# -- with_retry as a retry layer --------------------------------------------------------------
def test_with_retry_around_a_model_that_retries_multiplies_and_the_message_shows_the_product(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60, max_retries=4)\n"
                                            "chain = llm.with_retry(retry_if_exception_type=TRANSIENT, stop_after_attempt=2)\n")
    [(row, code, message)] = found
    assert (row, code) == (6, "RES301")
    assert "LangChain with_retry (2) → langchain_openai client (5): up to 10 calls" in message
    assert "`max_retries=0`" in message


def test_max_retries_zero_inside_leaves_one_layer(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60, max_retries=0)\n"
                                            "chain = llm.with_retry(retry_if_exception_type=TRANSIENT)\n")
    assert found == []


def test_runnable_retry_bound_to_a_model_is_the_same_layer(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60)\n"
                                            "r = RunnableRetry(bound=llm, retry_exception_types=TRANSIENT, max_attempt_number=4)\n")
    [(row, code, message)] = found
    assert (row, code) == (6, "RES301") and "(4) → langchain_openai client (3): up to 12 calls" in message


def test_a_model_reached_through_names_and_a_chain_is_found(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "from langchain_core.prompts import ChatPromptTemplate\n"
                                            "llm = ChatOpenAI(timeout=60)\n"
                                            "tools = llm.bind_tools([])\n"
                                            "chain = ChatPromptTemplate.from_messages([]) | tools\n"
                                            "safe = chain.with_retry(retry_if_exception_type=TRANSIENT)\n")
    assert _codes(found) == [(9, "RES301")]


def test_an_outer_retry_that_does_not_catch_the_sdk_errors_does_not_multiply(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60)\n"
                                            "chain = llm.with_retry(retry_if_exception_type=(TimeoutError,))\n")
    assert found == []


def test_with_retry_defaults_retry_every_exception(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60, max_retries=0)\nchain = llm.with_retry()\n")
    [(row, code, message)] = found
    assert (row, code) == (6, "RES204") and "retries every exception (the default predicate)" in message


@pytest.mark.parametrize("chain", [
    "llm.with_structured_output(dict).with_retry()",
    "llm.with_structured_output(dict).with_retry(stop_after_attempt=2).with_config({})",
    "llm.with_structured_output(dict).with_config({}).with_retry(retry_if_exception_type=(Exception,))",
])
def test_with_retry_on_structured_output_re_asks_and_its_catch_all_is_no_finding(tmp_path, chain):
    # a reply that does not parse raises OutputParserException, ValidationError or ValueError,
    # which only a broad predicate catches: re-asking is what this retry is for
    found = _findings(tmp_path, LANGCHAIN + f"llm = ChatOpenAI(timeout=60, max_retries=0)\nchain = {chain}\n")
    assert found == []


def test_with_retry_on_structured_output_reached_through_a_name(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60, max_retries=0)\n"
                                            "structured = llm.with_structured_output(dict)\n"
                                            "chain = structured.with_retry()\n")
    assert found == []


def test_with_retry_on_tools_or_a_plain_model_still_retries_every_exception(tmp_path):
    # bind_tools parses nothing: the catch-all re-sends auth and context-length errors
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60, max_retries=0)\n"
                                            "a = llm.bind_tools([]).with_retry()\n"
                                            "b = llm.with_config({}).with_retry()\n")
    assert _codes(found) == [(6, "RES204"), (7, "RES204")]


def test_with_retry_without_waits_and_with_many_attempts(tmp_path):
    found = _findings(tmp_path, LANGCHAIN + "llm = ChatOpenAI(timeout=60, max_retries=0)\n"
                                            "a = llm.with_retry(retry_if_exception_type=TRANSIENT, wait_exponential_jitter=False)\n"
                                            "b = llm.with_retry(retry_if_exception_type=TRANSIENT, stop_after_attempt=10)\n"
                                            "c = llm.with_retry(retry_if_exception_type=TRANSIENT, stop_after_attempt=3)\n")
    codes = _codes(found)
    assert (6, "RES205") in codes  # no wait at all between attempts
    assert (7, "RES202") in codes  # 9 jittered exponential waits: 1 + 2 + ... + 256 s, far past 60 s
    assert not [c for c in codes if c[0] == 8]  # 3 attempts: waits of about 2 s and 3 s
    message = next(m for row, code, m in found if (row, code) == (7, "RES202"))
    assert "cannot cap total time" in message


OUTER = ("from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, "
         "wait_random_exponential\n"
         "outer = retry(retry=retry_if_exception_type(TRANSIENT), wait=wait_random_exponential(max=5), "
         "stop=stop_after_attempt(3) | stop_after_delay(300), reraise=True)\n")


@pytest.mark.parametrize(("model", "run", "chain"), [
    # a with_retry runnable bound to a name, around a model that keeps its SDK's retries
    ("inner = ChatOpenAI(timeout=60).with_retry(retry_if_exception_type=TRANSIENT)\n", "inner.invoke(q)",
     "go (3) → LangChain with_retry (3) → langchain_openai client (3): up to 27 calls per go call"),
    # the SDK's retries off: two layers
    ("inner = ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=TRANSIENT)\n",
     "inner.invoke(q)", "go (3) → LangChain with_retry (3): up to 9 calls per go call"),
    # built where it runs
    ("", "ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=TRANSIENT).invoke(q)",
     "go (3) → LangChain with_retry (3): up to 9 calls per go call"),
    # spelled as the class
    ("inner = RunnableRetry(bound=ChatOpenAI(timeout=60, max_retries=0), retry_exception_types=TRANSIENT, "
     "max_attempt_number=4)\n", "inner.ainvoke(q)", "go (3) → LangChain with_retry (4): up to 12 calls per go call"),
    # in a chain, and run by batch (also retried by with_retry)
    ("inner = ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=TRANSIENT, "
     "stop_after_attempt=4)\nchain = prompt | inner\n", "chain.batch([q])",
     "go (3) → LangChain with_retry (4): up to 12 calls per go call"),
])
def test_a_with_retry_runnable_run_in_a_retry_is_a_layer_of_the_chain(tmp_path, model, run, chain):
    source = (LANGCHAIN + OUTER + "from langchain_core.prompts import ChatPromptTemplate\n"
              "prompt = ChatPromptTemplate.from_template('{q}')\n" + model +
              "@outer\ndef go(q):\n    return " + run + "\n")
    found = [f for f in _findings(tmp_path, source) if f[1] == "RES301"]
    row = source.count("\n")
    assert [r for r, _, _ in found][-1] == row
    assert f"retry layers multiply: {chain}, so one failing dependency" in found[-1][2]


@pytest.mark.parametrize("model, run", [
    # stream is RunnableBindingBase's: it runs the model once, outside the with_retry
    ("inner = ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=TRANSIENT)\n",
     "inner.stream(q)"),
    # one attempt: no retry
    ("inner = ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=TRANSIENT, "
     "stop_after_attempt=1)\n", "inner.invoke(q)"),
    # with_retry gives up with the last ValueError, which the outer retry does not catch
    ("inner = ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=(ValueError,))\n",
     "inner.invoke(q)"),
    ("", "ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=(ValueError,)).invoke(q)"),
])
def test_a_with_retry_runnable_that_adds_no_attempts_is_no_layer(tmp_path, model, run):
    source = LANGCHAIN + OUTER + model + "@outer\ndef go(q):\n    return " + run + "\n"
    assert [f for f in _findings(tmp_path, source) if f[1] == "RES301"] == []


def test_the_graph_shows_a_with_retry_runnable_between_the_outer_retry_and_the_model(tmp_path):
    from reslint import graph
    from reslint.analysis.callgraph import CallGraph

    (tmp_path / "m.py").write_text(LANGCHAIN + OUTER + "inner = ChatOpenAI(timeout=60).with_retry(retry_if_exception_type=TRANSIENT)\n"
                                   "@outer\ndef go(q):\n    return inner.invoke(q)\n")
    run = Runner(Settings(root=tmp_path), use_cache=False).run([tmp_path])
    text = graph.mermaid(CallGraph([r.summary for r in run.results if r.summary is not None]))
    nodes = {line.split("[")[0].strip(): line.split('"')[1].split("<br/>")[0] for line in text.splitlines()
             if '["' in line}
    edges = sorted((nodes[a], product, nodes[b]) for a, product, b in
                   (line.split() for line in text.splitlines() if "-->" in line))
    assert edges == [("LangChain with_retry", "-->|x9|", "langchain_openai client"),
                     ("go", "-->|x9|", "LangChain with_retry")]


@pytest.mark.parametrize("model, chain", [
    # a with_retry runnable built in another module: its layer and the model's inside it
    ("model = ChatOpenAI(timeout=60).with_retry(retry_if_exception_type=TRANSIENT)\n",
     "go (3) → LangChain with_retry (3) → langchain_openai client (3): up to 27 calls per go call"),
    # a chat model built there: its SDK's retries only
    ("model = ChatOpenAI(timeout=60)\n", "go (3) → langchain_openai client (3): up to 9 calls per go call"),
    # with_retry around a model that makes one attempt: one inner layer
    ("model = ChatOpenAI(timeout=60, max_retries=0).with_retry(retry_if_exception_type=TRANSIENT)\n",
     "go (3) → LangChain with_retry (3): up to 9 calls per go call"),
])
def test_a_model_object_imported_from_another_module_keeps_its_layers(tmp_path, model, chain):
    (tmp_path / "llm.py").write_text(LANGCHAIN + model)
    found = _findings(tmp_path, LANGCHAIN + OUTER + "from llm import model\n@outer\ndef go(q):\n"
                                "    return model.invoke(q)\n")
    outer = [text for row, code, text in found if code == "RES301" and "go (3)" in text]
    assert len(outer) == 1 and f"retry layers multiply: {chain}, so one failing dependency" in outer[0]


@pytest.mark.parametrize("run, chain", [
    ("stream(q)", "go (3) → langchain_openai client (3): up to 9 calls per go call"),  # outside the with_retry
    ("with_config(tags=['x'])", None),  # builds a runnable, sends nothing
    ("get_name()", None),
])
def test_an_imported_with_retry_runnable_retries_only_the_methods_its_retry_overrides(tmp_path, run, chain):
    (tmp_path / "llm.py").write_text(LANGCHAIN + "model = ChatOpenAI(timeout=60).with_retry("
                                                 "retry_if_exception_type=TRANSIENT)\n")
    source = LANGCHAIN + OUTER + "from llm import model\n@outer\ndef go(q):\n    return model." + run + "\n"
    outer = [text for row, code, text in _findings(tmp_path, source) if code == "RES301" and "go (3)" in text]
    (tmp_path / "llm.py").unlink()  # the same in one module
    local = LANGCHAIN + OUTER + "model = ChatOpenAI(timeout=60).with_retry(retry_if_exception_type=TRANSIENT)\n" + \
        "@outer\ndef go(q):\n    return model." + run + "\n"
    alone = [text for row, code, text in _findings(tmp_path, local) if code == "RES301" and "go (3)" in text]
    if chain is None:
        assert outer == alone == []
    else:
        assert len(outer) == len(alone) == 1 and chain in outer[0] and chain in alone[0]


def test_with_retry_is_recognised_only_in_files_that_import_langchain(tmp_path):
    found = _findings(tmp_path, "class Job:\n    def with_retry(self):\n        return self\n\n"
                                "job = Job().with_retry()\n")
    assert found == []


def test_sending_methods_only_are_retried_calls(tmp_path):
    source = (LANGCHAIN + "from tenacity import retry, retry_if_exception_type, stop_after_attempt, stop_after_delay, "
              "wait_random_exponential\n"
              "llm = ChatOpenAI(timeout=5)\n"
              "@retry(retry=retry_if_exception_type(TRANSIENT), stop=stop_after_attempt(3) | stop_after_delay(30), "
              "wait=wait_random_exponential(max=5))\n"
              "def go(q):\n"
              "    structured = llm.with_structured_output(dict)\n"
              "    n = llm.get_num_tokens(q)\n"
              "    return structured.invoke(q)\n")
    found = _findings(tmp_path, source)
    assert _codes(found) == [(11, "RES301")]  # the invoke, not the two methods that send nothing


# -- timeouts ---------------------------------------------------------------------------------
@pytest.mark.parametrize(("line", "expected"), [
    ("ChatOpenAI()", ["RES101"]),
    ("ChatOpenAI(timeout=120)", []),
    ("ChatOpenAI(request_timeout=120)", []),
    ("ChatOpenAI(timeout=None)", ["RES102"]),
    ("ChatOpenAI(timeout=600)", ["RES103"]),
    ("ChatOpenAI(**settings)", []),
])
def test_chat_model_timeouts_are_model_calls(tmp_path, line, expected):
    found = _findings(tmp_path, LANGCHAIN + f"settings = load()\nllm = {line}\n")
    assert [code for _, code, _ in found] == expected


def test_chat_model_fix_inserts_the_model_default(tmp_path):
    from reslint.engine.filepass import Linter
    from reslint.engine.fixer import fix_text

    fixed = fix_text(Linter(Settings(root=tmp_path)), LANGCHAIN + "llm = ChatOpenAI(model='m')\n", "m.py", unsafe=True)
    assert "llm = ChatOpenAI(model='m', timeout=120)\n" in fixed.text


# -- MCP tool calls (RES402) ------------------------------------------------------------------
TOOLS = (MCP + "@again\nasync def a(streams):\n    async with ClientSession(*streams, read_timeout_seconds=60) as s:\n"
         "        await s.call_tool('create_issue', {})\n"
         "        await s.call_tool('search_docs', {})\n"
         "        await s.call_tool(name='get_weather', arguments={})\n")


def test_tool_calls_in_a_retry_are_writes(tmp_path):
    found = _findings(tmp_path, TOOLS)
    assert _codes(found) == [(7, "RES402"), (8, "RES402"), (9, "RES402")]
    assert "MCP tool call `create_issue` (not declared in `read-only-tools`)" in found[0][2]


def test_declared_read_only_tools_are_not_writes(tmp_path):
    found = _findings(tmp_path, TOOLS, "[tool.reslint.catalog]\nread-only-tools = [\"search_*\", \"get_weather\"]\n")
    assert _codes(found) == [(7, "RES402")]


def test_a_tool_chosen_at_run_time_is_a_write(tmp_path):
    found = _findings(tmp_path, MCP + "@again\nasync def a(streams, name):\n"
                                      "    async with ClientSession(*streams, read_timeout_seconds=60) as s:\n"
                                      "        return await s.call_tool(name, {})\n",
                      "[tool.reslint.catalog]\nread-only-tools = [\"*_docs\"]\n")
    [(row, code, message)] = found
    assert (row, code) == (7, "RES402") and "the tool is chosen at run time" in message


def test_a_tool_call_outside_a_retry_is_not_reported(tmp_path):
    found = _findings(tmp_path, MCP + "async def a(streams):\n"
                                      "    async with ClientSession(*streams, read_timeout_seconds=60) as s:\n"
                                      "        return await s.call_tool('create_issue', {})\n")
    assert found == []


WRAPPER = (MCP + "async def invoke_tool(session: ClientSession, name, args):\n"
           "    return await session.call_tool(name, args)\n"
           "class Tools:\n"
           "    def __init__(self, session: ClientSession):\n"
           "        self.session = session\n"
           "    async def call(self, args, *, tool):\n"
           "        return await invoke_tool(self.session, tool, args)\n"
           "    async def run(self, name, args):\n"
           "        return await self.session.call_tool(name, args)\n")


@pytest.mark.parametrize(("call", "expected"), [
    ("invoke_tool(session, 'search_docs', {})", None),
    ("invoke_tool(session, name='search_docs', args={})", None),
    ("Tools(session).run('search_docs', {})", None),
    ("invoke_tool(session, 'create_issue', {})",
     (5, "MCP tool call `create_issue` (not declared in `read-only-tools`) in `invoke_tool()` runs under the go retry "
         "(3 attempts, through invoke_tool)")),
    ("Tools(session).run('create_issue', {})",  # a method's callers do not pass its self
     (12, "MCP tool call `create_issue` (not declared in `read-only-tools`) in `run()` runs under the go retry "
          "(3 attempts, through run)")),
    ("invoke_tool(session, pick(), {})",
     (5, "an MCP tool call (the tool is chosen at run time) in `invoke_tool()` runs under the go retry")),
    # the constant is passed one call further away: not followed
    ("Tools(session).call({}, tool='search_docs')",
     (5, "an MCP tool call (the tool is chosen at run time) in `invoke_tool()` runs under the go retry "
         "(3 attempts, through call → invoke_tool)")),
])
def test_a_tool_named_by_a_wrapper_s_parameter_is_judged_by_the_constant_a_retried_caller_passes(
        tmp_path, call, expected):
    found = _findings(tmp_path, WRAPPER + f"@again\nasync def go(session: ClientSession):\n    return await {call}\n",
                      "[tool.reslint.catalog]\nread-only-tools = [\"search_*\"]\n")
    found = [(row, text) for row, code, text in found if code == "RES402"]
    if expected is None:
        assert found == []
        return
    [(row, text)] = found
    assert (row, text[:len(expected[1])]) == expected


@pytest.mark.parametrize(("table", "error"), [
    ("read-only-tools = \"search\"\n", "`tool.reslint.catalog.read-only-tools` must be a list of names"),
    ("read-only-tools = [\"\"]\n", "`tool.reslint.catalog.read-only-tools` must be a list of names"),
])
def test_read_only_tools_are_validated(tmp_path, table, error):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint.catalog]\n" + table)
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    assert error in str(caught.value)


def test_read_only_tools_show_in_the_catalog_table(tmp_path):
    (tmp_path / "pyproject.toml").write_text("[tool.reslint.catalog]\nread-only-tools = [\"search_*\"]\n")
    catalog = load_settings(tmp_path).catalog
    assert catalog.to_table() == {"read-only-tools": ["search_*"]}
    assert catalog.read_only_tool("search_docs") and not catalog.read_only_tool("create_issue")


# -- LlamaIndex, Haystack -----------------------------------------------------------------------
def test_llama_index_and_haystack_models_retry_inside(tmp_path):
    source = ("import openai\nfrom llama_index.llms.openai import OpenAI\n"
              "from haystack.components.generators.chat import OpenAIChatGenerator\n"
              "from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential\n"
              "llm = OpenAI(model='m', max_retries=1)\ngen = OpenAIChatGenerator(max_retries=0)\n"
              "@retry(retry=retry_if_exception_type(openai.APIError), stop=stop_after_attempt(3), wait=wait_random_exponential(max=5))\n"
              "def go(q):\n    gen.run(messages=[q])\n    return llm.complete(q)\n")
    found = [f for f in _findings(tmp_path, source) if f[1] == "RES301"]
    assert [(row, code) for row, code, _ in found] == [(10, "RES301")]
    assert "go (3) → llama_index client (2): up to 6 calls" in found[0][2]


@pytest.mark.parametrize(("imported", "built", "run", "layer"), [
    ("from llama_index.llms.openai import OpenAIResponses", "OpenAIResponses(model='m'{})", "complete(q)",
     "llama_index client (4)"),
    ("from haystack.components.generators.chat import OpenAIResponsesChatGenerator",
     "OpenAIResponsesChatGenerator({})", "run(messages=[q])", "haystack client (6)"),
    ("from haystack.components.embedders import OpenAITextEmbedder", "OpenAITextEmbedder({})", "run(q)",
     "haystack client (6)"),
    ("from haystack.components.embedders import OpenAIDocumentEmbedder", "OpenAIDocumentEmbedder({})",
     "run(documents=[q])", "haystack client (6)"),
    ("from haystack.components.generators.chat import AzureOpenAIResponsesChatGenerator",
     "AzureOpenAIResponsesChatGenerator({})", "run(messages=[q])", "haystack client (6)"),
    ("from haystack.components.embedders import AzureOpenAITextEmbedder", "AzureOpenAITextEmbedder({})", "run(q)",
     "haystack client (6)"),
    ("from haystack.components.embedders import AzureOpenAIDocumentEmbedder", "AzureOpenAIDocumentEmbedder({})",
     "run(documents=[q])", "haystack client (6)"),
])
@pytest.mark.parametrize("off", [False, True])
def test_responses_models_and_embedders_retry_inside(tmp_path, imported, built, run, layer, off):
    model = built.format(", max_retries=0" if "model=" in built and off else "max_retries=0" if off else "")
    source = ("import openai\n" + imported + "\n"
              "from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_random_exponential\n"
              f"llm = {model}\n"
              "@retry(retry=retry_if_exception_type(openai.APIError), stop=stop_after_attempt(3), "
              "wait=wait_random_exponential(max=5))\n"
              f"def go(q):\n    return llm.{run}\n")
    found = [(row, text) for row, code, text in _findings(tmp_path, source) if code == "RES301"]
    if off:
        assert found == []
        return
    [(row, text)] = found
    assert row == 7 and f"go (3) → {layer}: up to " in text


def test_with_fallbacks_is_no_retry_layer_but_keeps_the_model_inside(tmp_path):
    """``primary.with_fallbacks([backup])`` calls another model on failure (not the same call again):
    no layer of its own, and a ``with_retry`` around it still retries the primary's SDK retries."""
    found = _findings(tmp_path, LANGCHAIN + "primary = ChatOpenAI(timeout=60)\n"
                                            "backup = ChatOpenAI(model='small', timeout=60, max_retries=0)\n"
                                            "both = primary.with_fallbacks([backup])\n"
                                            "safe = both.with_retry(retry_if_exception_type=TRANSIENT)\n")
    assert _codes(found) == [(8, "RES301")]


def test_with_retry_around_a_function_runnable_follows_the_function(tmp_path):
    """``RunnableLambda(fn).with_retry()`` retries ``fn``: an SDK client inside it is a second layer
    (RES301 at the ``with_retry``), a tool call inside it is replayed (RES402 at the call)."""
    found = _findings(tmp_path, (
        "import openai\nfrom langchain_core.runnables import RunnableLambda\nfrom mcp import ClientSession\n"
        "client = openai.OpenAI(timeout=60)\n"
        "def complete(q):\n    return client.chat.completions.create(model='m', messages=[q])\n"
        "async def ticket(streams, title):\n"
        "    async with ClientSession(*streams, read_timeout_seconds=60) as s:\n"
        "        return await s.call_tool('create_issue', {'title': title})\n"
        "answer = RunnableLambda(complete).with_retry(retry_if_exception_type=(openai.APIConnectionError,))\n"
        "filed = RunnableLambda(ticket).with_retry(retry_if_exception_type=(TimeoutError,))\n"
        "single = RunnableLambda(complete).with_retry(retry_if_exception_type=(TimeoutError,))\n"))
    assert _codes(found) == [(9, "RES402"), (10, "RES301")]  # `single` catches none of the SDK errors
    assert "LangChain with_retry (3) → openai client (3): up to 9 calls" in found[1][2]


def test_a_session_known_by_its_parameter_annotation(tmp_path):
    found = _findings(tmp_path, MCP + "from typing import Optional\n"
                                      "@again\nasync def a(session: ClientSession):\n    return await session.call_tool('create_issue', {})\n"
                                      "@again\nasync def b(session: Optional[ClientSession]):\n    return await session.call_tool('close_issue', {})\n"
                                      "@again\nasync def c(session):\n    return await session.call_tool('create_issue', {})\n"
                                      "@again\nasync def d(session: dict):\n    return await session.call_tool('create_issue', {})\n")
    assert _codes(found) == [(7, "RES402"), (10, "RES402")]  # an unannotated or other parameter is unknown


@pytest.mark.parametrize(("init", "reported"), [
    ("def __init__(self, session: ClientSession):\n        self.session = session\n", True),
    ("def __init__(self, read, write):\n        self.session = ClientSession(read, write, read_timeout_seconds=60)\n",
     True),
    # an annotation of several types, or none, or of another type: unknown
    ("def __init__(self, session: Optional[ClientSession]):\n        self.session = session\n", False),
    ("def __init__(self, session: 'ClientSession | None'):\n        self.session = session\n", False),
    ("def __init__(self, session):\n        self.session = session\n", False),
    ("def __init__(self, session: dict):\n        self.session = session\n", False),
    # the parameter bound again before it is stored
    ("def __init__(self, session: ClientSession):\n        session = wrap(session)\n        self.session = session\n",
     False),
])
def test_a_session_stored_from_an_annotated_parameter_has_the_annotation_s_type(tmp_path, init, reported):
    found = _findings(tmp_path, MCP + "from typing import Optional\nclass Agent:\n    " + init +
                      "    @again\n    async def act(self):\n        return await self.session.call_tool('create_issue', {})\n")
    row = MCP.count("\n") + init.count("\n") + 5
    assert [(r, code) for r, code in _codes(found) if code == "RES402"] == ([(row, "RES402")] if reported else [])


@pytest.mark.parametrize("deadline, reported", [
    ("asyncio.timeout(30)", False),  # the session is opened, used and closed inside the deadline
    ("asyncio.timeout(None)", True),  # no deadline
    ("contextlib.nullcontext()", True),
])
def test_a_session_opened_inside_a_deadline_is_bounded_by_it(tmp_path, deadline, reported):
    source = ("import asyncio\nimport contextlib\n\nfrom mcp import ClientSession, stdio_client\n\n\n"
              "async def list_tools(params):\n"
              f"    async with {deadline}:\n"
              "        async with stdio_client(params) as (read, write):\n"
              "            async with ClientSession(read, write) as session:\n"
              "                await session.initialize()\n"
              "                return await session.list_tools()\n")
    assert (_codes(_findings(tmp_path, source)) == [(10, "RES101")]) is reported


def test_a_session_built_inside_a_deadline_but_kept_is_not_bounded_by_it(tmp_path):
    source = ("import asyncio\n\nfrom mcp import ClientSession, stdio_client\n\n\n"
              "class Client:\n    async def connect(self, params):\n"
              "        async with asyncio.timeout(30):\n"
              "            read, write = await self.stack.enter_async_context(stdio_client(params))\n"
              "            self.session = ClientSession(read, write)\n"
              "            await self.session.initialize()\n")
    assert _codes(_findings(tmp_path, source)) == [(10, "RES101")]


def test_a_green_thread_deadline_does_not_bound_a_client_kept_after_it(tmp_path):
    source = ("import gevent\nimport redis\n\n\nclass Cache:\n    def open(self):\n"
              "        with gevent.Timeout(5):\n            self.cache = redis.Redis(host='cache')\n")
    assert (8, "RES101") in _codes(_findings(tmp_path, source))


def test_a_deadline_around_a_function_definition_does_not_bound_its_clients(tmp_path):
    source = ("import asyncio\n\nfrom mcp import ClientSession, stdio_client\n\n\n"
              "async def make(params):\n    async with asyncio.timeout(30):\n"
              "        async def later():\n            async with stdio_client(params) as (read, write):\n"
              "                async with ClientSession(read, write) as session:\n"
              "                    return await session.list_tools()\n        return later\n")
    assert (10, "RES101") in _codes(_findings(tmp_path, source))


@pytest.mark.parametrize("items, reported", [
    # one statement: the session is entered inside the deadline and left before it ends
    ("asyncio.timeout(30), ClientSession(read, write) as session", False),
    # the other order: the session is entered first, so it outlives the deadline
    ("ClientSession(read, write) as session, asyncio.timeout(30)", True),
])
def test_a_session_opened_in_the_same_statement_as_the_deadline(tmp_path, items, reported):
    source = ("import asyncio\n\nfrom mcp import ClientSession, stdio_client\n\n\n"
              "async def list_tools(params):\n"
              "    async with stdio_client(params) as (read, write):\n"
              f"        async with {items}:\n"
              "            await session.initialize()\n"
              "            return await session.list_tools()\n")
    assert _codes(_findings(tmp_path, source)) == ([(8, "RES101")] if reported else [])


@pytest.mark.parametrize("default, reported", [
    ("30", False),  # a caller-given deadline, 30 s unless the caller says otherwise
    ("None", True),  # no deadline unless the caller gives one
    ("TIMEOUT", True),  # a default reslint cannot read: not known to be finite
])
def test_a_deadline_read_from_a_parameter_with_a_numeric_default_bounds_the_session(tmp_path, default, reported):
    source = ("import asyncio\n\nfrom mcp import ClientSession, stdio_client\n\n\n"
              f"async def list_tools(params, timeout={default}):\n"
              "    async with asyncio.timeout(timeout):\n"
              "        async with stdio_client(params) as (read, write):\n"
              "            async with ClientSession(read, write) as session:\n"
              "                return await session.list_tools()\n")
    assert _codes(_findings(tmp_path, source)) == ([(9, "RES101")] if reported else [])


def test_a_deadline_known_only_by_its_default_is_no_measure_for_res104(tmp_path):
    """A caller may pass a longer deadline than the default, so the inner 20 s is not known to
    outlive it; a literal deadline still is."""
    source = ("import asyncio\n\nimport httpx\n\nclient = httpx.AsyncClient(timeout=3.0)\n\n\n"
              "async def reserve(sku, deadline_s=5):\n    async with asyncio.timeout(deadline_s):\n"
              "        return await client.put(f'/r/{sku}', timeout=20.0)\n\n\n"
              "async def reserve_now(sku):\n    async with asyncio.timeout(5):\n"
              "        return await client.put(f'/r/{sku}', timeout=20.0)\n")
    assert _codes(_findings(tmp_path, source)) == [(15, "RES104")]


def test_a_deadline_known_only_by_its_default_caps_no_loop_inside_it(tmp_path):
    source = ("import asyncio\n\nimport httpx\n\nclient = httpx.AsyncClient(timeout=3.0)\n\n\n"
              "async def reserve(sku, deadline_s=5):\n    async with asyncio.timeout(deadline_s):\n"
              "        for attempt in range(3):\n            try:\n"
              "                return await client.put(f'/r/{sku}', timeout=20.0)\n"
              "            except httpx.ConnectError:\n                await asyncio.sleep(1)\n")
    assert "RES104" not in {code for _, code in _codes(_findings(tmp_path, source))}
