"""The cached re-run's shortcuts answer exactly as the longer ways they replace (issue 13's speed
item): the decoders' fast cases."""

from __future__ import annotations

import dataclasses
import enum
from typing import Dict, FrozenSet, Optional, Tuple

import pytest

from reslint.diagnostics import Applicability, Edit, Finding, Fix, Location
from reslint.serial import Invalid, decoder, encode


# -- the decoders' fast cases reject what the slow ones rejected -------------------------------
class Colour(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


@dataclasses.dataclass(frozen=True)
class Leaf:
    name: str
    weight: float = 0.0


@dataclasses.dataclass(frozen=True)
class Node:
    label: Optional[str]
    colour: Colour
    leaf: Optional[Leaf]
    ids: Tuple[int, ...]
    pair: Tuple[int, str]
    tags: FrozenSet[str] = frozenset()
    children: Tuple[Leaf, ...] = ()
    named: Dict[str, Leaf] = dataclasses.field(default_factory=dict)


SAMPLE = Node("n", Colour.BLUE, Leaf("l", 1.5), (1, 2), (3, "x"), frozenset({"b", "a"}),
              (Leaf("c"), Leaf("d", 2.0)), {"k": Leaf("v")})


def test_a_round_trip_gives_equal_values():
    data = encode(SAMPLE)
    decoded = decoder(Node)(data)
    assert decoded == SAMPLE and type(decoded.ids) is tuple and type(decoded.tags) is frozenset
    assert decoded.colour is Colour.BLUE and encode(decoded) == data
    empty = decoder(Node)(["n", "red", None, [], [0, ""], [], [], {}])
    assert empty.leaf is None and empty.ids == () and empty.tags == frozenset() and empty.children == ()


def test_decoding_leaves_the_parsed_json_as_it_was():
    data = encode(SAMPLE)
    before = repr(data)
    decoder(Node)(data)
    assert repr(data) == before


@pytest.mark.parametrize("index, value", [
    (0, 5),  # an int where Optional[str] is declared
    (1, "green"),  # no such member
    (1, ["red"]),  # unhashable: not a member either
    (1, None),
    (2, "leaf"),  # neither None nor a Leaf
    (2, ["l", "heavy"]),  # a Leaf whose weight is not a number
    (2, ["l", 1.0, "extra"]),
    (3, [1, True]),  # a bool is not an int
    (3, [1, None]),
    (3, {"a": 1}),
    (4, [3]),  # a fixed tuple of the wrong length
    (4, [True, "x"]),
    (4, ["x", 3]),
    (5, [1]),
    (6, [None]),
    (6, [["c", 0.0], "d"]),
    (7, {"k": None}),
    (7, [["v", 0.0]]),
])
def test_a_value_of_another_shape_is_invalid(index, value):
    data = encode(SAMPLE)
    data[index] = value
    with pytest.raises(Invalid):
        decoder(Node)(data)


@pytest.mark.parametrize("data", [None, {}, "x", [], ["n"], encode(SAMPLE) + [None]])
def test_a_dataclass_of_another_arity_or_kind_is_invalid(data):
    with pytest.raises(Invalid):
        decoder(Node)(data)


def test_a_finding_with_a_fix_round_trips_and_a_wrong_applicability_is_invalid():
    at, end = Location(3, 5), Location(3, 9)
    finding = Finding("RES101", "missing-timeout", "error", "m", "a.py", at, end,
                      Fix("Add `timeout=10`", Applicability.UNSAFE, (Edit(10, 10, ", timeout=10", end, end),)), 3)
    data = encode(finding)
    assert decoder(Finding)(data) == finding and decoder(Finding)(encode(finding)).fix.applicability is \
        Applicability.UNSAFE
    data[7][1] = "sometimes"
    with pytest.raises(Invalid):
        decoder(Finding)(data)
