"""``reslint graph``: the retry layers of a project and the call chains between them.

Renders the project pass's view as Mermaid (GitHub renders it in Markdown) or
Graphviz DOT: one node per retry layer, labelled with its attempts and time cap;
an edge from an outer layer to each inner layer it reaches, labelled with the
product of the two layers' attempts; amplified paths (nested layers) drawn in red.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from reslint.analysis.callgraph import CallGraph, Hop
from reslint.output.terminal import visible


def _layers(graph: CallGraph) -> Dict[Tuple[str, int], Hop]:
    nodes = {}
    for summary in graph.summaries:
        for layer in summary.layers:
            nodes[(summary.path, layer.id)] = Hop(summary.path, layer)
    return nodes


def _edges(graph: CallGraph) -> List[Tuple[Hop, Hop, str]]:
    """(outer, inner, product) per pair of layers next to each other in some chain: the product
    is of those two layers alone (middle (3) → inner (3) is x9 however many layers call middle),
    as RES301 reports the pair; ``?`` when a count is unknown, ``∞`` when a layer has no end."""
    edges = {}
    for nesting in graph.nestings():
        chain = nesting.chain
        for outer, inner in zip(chain, chain[1:]):
            counts = (outer.layer.attempts, inner.layer.attempts)
            product = "∞" if 0 in counts else "?" if min(counts) < 0 else str(counts[0] * counts[1])
            edges[((outer.path, outer.layer.id), (inner.path, inner.layer.id))] = (outer, inner, product)
    return sorted(edges.values(), key=lambda e: (e[0].path, e[0].layer.row, e[1].path, e[1].layer.row))


def _label(hop: Hop) -> List[str]:
    layer = hop.layer
    attempts = "unbounded" if layer.attempts == 0 else "? attempts" if layer.attempts < 0 else \
        f"{layer.attempts} attempts"
    parts = [layer.label, f"{hop.path}:{layer.row}", attempts + (f", {layer.cap}" if layer.cap else "")]
    # file names and labels come from the checkout: a newline would end the graph statement
    # and an escape sequence would reach the terminal, so both are shown as escapes
    return [visible(part) for part in parts]


def _ids(nodes) -> Dict[Tuple[str, int], str]:
    return {key: f"L{index}" for index, key in enumerate(sorted(nodes, key=lambda k: (k[0], nodes[k].layer.row)))}


def _mermaid_text(text: str) -> str:
    """Text for a quoted Mermaid label: Mermaid renders labels as HTML, so ``<``, ``>``, ``&`` and
    ``"`` are written as its entity codes (mermaid.js.org, flowchart syntax, "Entity codes")."""
    for char, code in (("&", "#amp;"), ("<", "#lt;"), (">", "#gt;"), ('"', "#quot;")):
        text = text.replace(char, code)
    return text


def mermaid(graph: CallGraph) -> str:
    nodes = _layers(graph)
    ids = _ids(nodes)
    lines = ["flowchart LR"]
    for key, node_id in ids.items():
        text = "<br/>".join(_mermaid_text(part) for part in _label(nodes[key]))
        lines.append(f'  {node_id}["{text}"]')
    edges = _edges(graph)
    for outer, inner, product in edges:
        lines.append(f"  {ids[(outer.path, outer.layer.id)]} -->|x{product}| {ids[(inner.path, inner.layer.id)]}")
    for index in range(len(edges)):
        lines.append(f"  linkStyle {index} stroke:#d00,stroke-width:2px")
    return "\n".join(lines) + "\n"


def dot(graph: CallGraph) -> str:
    nodes = _layers(graph)
    ids = _ids(nodes)
    lines = ["digraph retry_layers {", "  rankdir=LR;", "  node [shape=box, fontname=Helvetica];"]
    for key, node_id in ids.items():
        text = "\\n".join(part.replace("\\", "\\\\").replace('"', '\\"') for part in _label(nodes[key]))
        lines.append(f'  {node_id} [label="{text}"];')
    for outer, inner, product in _edges(graph):
        lines.append(f'  {ids[(outer.path, outer.layer.id)]} -> {ids[(inner.path, inner.layer.id)]} '
                     f'[label="x{product}", color=red, penwidth=2];')
    lines.append("}")
    return "\n".join(lines) + "\n"
