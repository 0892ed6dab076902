"""Plain data to JSON and back, checked against the declared types on the way back.

The cache stores findings and module summaries, which are frozen dataclasses of primitives
(:mod:`reslint.diagnostics`, :mod:`reslint.analysis.facts`). Pickle would rebuild them, but
unpickling runs whatever a crafted file names, and the cache lives in the checked repository.
So the cache holds JSON, which can only ever yield dicts, lists, strings, numbers, booleans and
``None``, and :func:`decoder` rebuilds the dataclasses from that, checking every value against
the type its field declares. Anything that does not fit raises :class:`Invalid`, which the
cache treats as a miss.

Encoding (:func:`encode`): a dataclass is the list of its field values in declaration order
(the trailing fields that hold their default left out; decoding gives them their default), an
enum its value, a tuple, list or frozenset a list, a dict with string keys an object.
Supported declared types: ``int``, ``float``, ``str``, ``bool``, ``None``, ``Optional[X]``,
``Tuple[X, ...]``, ``Tuple[X, Y]``, ``List[X]``, ``FrozenSet[X]``, ``Dict[str, X]``, string
enums and dataclasses whose fields have such types.
"""

from __future__ import annotations

import dataclasses
import enum
import operator
import typing
from typing import Any, Callable, Dict, Tuple

Decoder = Callable[[Any], Any]


class Invalid(ValueError):
    """A JSON value that does not have the declared shape."""


def encode(value: Any) -> Any:
    """``value`` as JSON-ready data (see the module docstring for the shape). Raises
    ``TypeError`` for a value of a type it cannot encode."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    writer = _WRITERS.get(kind)
    if writer is None:
        writer = _WRITERS[kind] = _writer(kind)
    return writer(value)


_SCALARS = frozenset({str, int, float, bool, type(None)})
_WRITERS: Dict[type, Callable[[Any], Any]] = {}


def _writer(kind: type) -> Callable[[Any], Any]:
    """The encoder of one type (built once per type: a warm run encodes tens of thousands)."""
    if issubclass(kind, enum.Enum):
        return lambda value: value.value
    if issubclass(kind, (tuple, list)):
        return lambda value: [item if type(item) in _SCALARS else encode(item) for item in value]
    if issubclass(kind, frozenset):
        return lambda value: [encode(item) for item in sorted(value)]
    if issubclass(kind, dict):
        return lambda value: {key: item if type(item) in _SCALARS else encode(item) for key, item in value.items()}
    if dataclasses.is_dataclass(kind):
        return _dataclass_writer(kind)
    raise TypeError(f"cannot encode {kind.__name__}")


def _dataclass_writer(kind: type) -> Callable[[Any], list]:
    """A dataclass as the list of its field values, the trailing ones that hold their default
    left out when they are two or more (most call sites of a module summary are a callee, a
    caller and seven defaults; a list short of one field only would cost its decoding more than
    it saves)."""
    names = _field_names(kind)
    fields = operator.attrgetter(*names)
    defaults = [default for default, _ in _defaults(kind)]
    required = _required(defaults)

    def write(value: Any) -> list:
        values = fields(value) if len(names) > 1 else (fields(value),)
        end = len(values)
        while end > required and type(values[end - 1]) is type(defaults[end - 1]) \
                and values[end - 1] == defaults[end - 1]:
            end -= 1
        if end > len(values) - 2:
            end = len(values)
        return [item if type(item) in _SCALARS else encode(item) for item in values[:end]]
    return write


_FIELDS: Dict[type, tuple] = {}
_DECODERS: Dict[Any, Decoder] = {}


def _field_names(cls: type) -> tuple:
    names = _FIELDS.get(cls)
    if names is None:
        names = _FIELDS[cls] = tuple(f.name for f in dataclasses.fields(cls))
    return names


_REQUIRED = object()  # the default of a field that has none
#: default factories whose values can be shared (``field(default_factory=tuple)``)
_IMMUTABLE = frozenset({tuple, frozenset, str, int, float, bool, bytes})


def _defaults(cls: type) -> list:
    """(default, factory) of each field: the value the class gives it when not passed (its
    factory's for a ``default_factory``), or :data:`_REQUIRED`; factory ``None`` for a plain default."""
    out = []
    for f in dataclasses.fields(cls):
        if f.default_factory is not dataclasses.MISSING:
            out.append((f.default_factory(), f.default_factory))
        else:
            out.append((_REQUIRED if f.default is dataclasses.MISSING else f.default, None))
    return out


def decoder(declared: Any) -> Decoder:
    """A function that turns JSON data back into a value of type ``declared``; it raises
    :class:`Invalid` for data of another shape. Raises ``TypeError`` for a type it cannot decode
    (a programming error, not bad data)."""
    found = _DECODERS.get(declared)
    if found is None:
        found = _DECODERS[declared] = _build(declared)
    return found


def _build(declared: Any) -> Decoder:
    if declared is type(None) or declared is None:
        return _NONE
    if declared is bool:
        return _BOOL
    if declared is int:
        return _integer
    if declared is float:
        return _number
    if declared is str:
        return _STR
    if isinstance(declared, type) and issubclass(declared, enum.Enum):
        return _enum(declared)
    if isinstance(declared, type) and dataclasses.is_dataclass(declared):
        return _dataclass(declared)
    origin, args = typing.get_origin(declared), typing.get_args(declared)
    if origin is typing.Union:
        return _union([decoder(arg) for arg in args])
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return _sequence(decoder(args[0]), tuple)
        return _fixed_tuple([decoder(arg) for arg in args])
    if origin is list:
        return _sequence(decoder(args[0]), list)
    if origin is frozenset:
        return _sequence(decoder(args[0]), frozenset)
    if origin is dict and args and args[0] is str:
        return _mapping(decoder(args[1]))
    raise TypeError(f"cannot decode {declared!r}")


def _exact(kind: type) -> Decoder:
    def decode(data: Any) -> Any:
        if type(data) is not kind:
            raise Invalid(f"expected {kind.__name__}, got {type(data).__name__}")
        return data
    return decode


def _integer(data: Any) -> int:
    if type(data) is not int:  # bool is an int subclass: not accepted
        raise Invalid(f"expected int, got {type(data).__name__}")
    return data


def _number(data: Any) -> float:
    if type(data) not in (int, float):
        raise Invalid(f"expected a number, got {type(data).__name__}")
    return float(data)


_STR = _exact(str)
_BOOL = _exact(bool)
_NONE = _exact(type(None))
#: decoders that are a plain type test, and the types they accept
_PRIMITIVE: Dict[Decoder, frozenset] = {_STR: frozenset({str}), _BOOL: frozenset({bool}),
                                        _integer: frozenset({int}), _NONE: frozenset({type(None)})}


def _enum(kind: type) -> Decoder:
    members = {member.value: member for member in kind}  # as kind(data) finds them, without its overhead

    def decode(data: Any) -> Any:
        try:
            return members[data]
        except (KeyError, TypeError):  # TypeError: a list or an object, unhashable
            raise Invalid(f"not a {kind.__name__}: {data!r}") from None
    return decode


def _union(options: list) -> Decoder:
    if all(option in _PRIMITIVE for option in options):  # Optional[str] and the like
        accepted = frozenset().union(*(_PRIMITIVE[option] for option in options))

        def test(data: Any) -> Any:
            if type(data) not in accepted:
                raise Invalid(f"unexpected {type(data).__name__}")
            return data
        _PRIMITIVE[test] = accepted
        return test
    # only the None decoder accepts None: an Optional field that is None (most are) is
    # answered without trying, and failing, the other alternatives first
    optional = _NONE in options
    others = [option for option in options if option is not _NONE]

    def decode(data: Any) -> Any:
        if data is None and optional:
            return None
        for option in others:
            try:
                return option(data)
            except Invalid:
                continue
        raise Invalid(f"no alternative fits {type(data).__name__}")
    return decode


def _sequence(item: Decoder, kind: type) -> Decoder:
    primitive = _PRIMITIVE.get(item)

    def decode(data: Any) -> Any:
        if type(data) is not list:
            raise Invalid(f"expected a list, got {type(data).__name__}")
        if not data:  # most are
            return kind()
        if primitive is not None:  # the common case, checked without a call per item
            if not all(map(primitive.__contains__, map(type, data))):
                raise Invalid("a list item of another type")
            return kind(data)
        return kind(map(item, data))
    return decode


def _fixed_tuple(items: list) -> Decoder:
    accepted = None  # the types of each position, when all are primitive (a signature)
    if all(item in _PRIMITIVE for item in items):
        accepted = tuple(_PRIMITIVE[item] for item in items)

    def decode(data: Any) -> tuple:
        if type(data) is not list or len(data) != len(items):
            raise Invalid(f"expected a list of {len(items)}")
        if accepted is not None:
            if not all(map(operator.contains, accepted, map(type, data))):
                raise Invalid("a tuple item of another type")
            return tuple(data)
        return tuple([item(element) for item, element in zip(items, data)])
    return decode


def _mapping(item: Decoder) -> Decoder:
    def decode(data: Any) -> dict:
        if type(data) is not dict:
            raise Invalid(f"expected an object, got {type(data).__name__}")
        return {key: item(value) for key, value in data.items()}
    return decode


#: every type JSON yields: what a field whose own decoder checks it may hold (see _layout)
_JSON_TYPES = frozenset({dict, list, str, int, float, bool, type(None)})


def _dataclass(cls: type) -> Decoder:
    hints = typing.get_type_hints(cls)
    names = _field_names(cls)
    kinds = [hints[name] for name in names]
    layout: list = []  # (accepted types, nested decoders), on first use: dataclasses may refer to each other
    defaults = _defaults(cls)
    required = _required([default for default, _ in defaults])
    tails = {length: _tail(names, defaults, length) for length in range(required, len(names))}
    new = object.__new__
    contains = operator.contains

    def decode(data: Any) -> Any:
        if not layout:
            layout.extend(_layout(kinds))
        accepted, nested = layout
        if type(data) is not list or not all(map(contains, accepted, map(type, data))):
            raise Invalid(f"expected {cls.__name__} as a list of its fields' declared types")
        size = len(data)
        if size != len(names) and not required <= size < len(names):
            raise Invalid(f"expected {cls.__name__} as a list of {required} to {len(names)} values")
        if nested:
            data = data[:]  # the parsed JSON stays as read (the stat index writes it back)
            for index, part in nested:
                if index >= size:
                    break
                data[index] = part(data[index])
        # The fields are all checked, and these classes are plain frozen dataclasses with no
        # __post_init__ (see _check_plain): filling __dict__ gives what __init__ would, at a
        # third of the cost of a frozen __init__ (a warm run decodes tens of thousands).
        obj = new(cls)
        fields = obj.__dict__
        if size == len(names):
            fields.update(zip(names, data))
            return obj
        template, made = tails[size]  # the trailing defaults left out (see _dataclass_writer)
        fields.update(template)  # every field, in order: those given are set next
        fields.update(zip(names, data))
        for name, factory in made:
            fields[name] = factory()
        return obj
    _check_plain(cls)
    return decode


def _required(defaults: list) -> int:
    """How many leading fields a list must hold: up to the last one without a default."""
    return max((index + 1 for index, default in enumerate(defaults) if default is _REQUIRED), default=0)


def _tail(names: tuple, defaults: list, length: int) -> Tuple[dict, tuple]:
    """What fills a dataclass given as a list of ``length`` values: (a dict of every field, in
    order, with the defaults of those after ``length``, and (name, factory) of those whose
    factory must make a new value each time: a dict or a list is not shared between objects)."""
    template, made = {}, []
    for index, (name, (default, factory)) in enumerate(zip(names, defaults)):
        shared = index >= length and (factory is None or factory in _IMMUTABLE)
        template[name] = default if shared else None
        if index >= length and not shared:
            made.append((name, factory))
    return template, tuple(made)


def _layout(kinds: list) -> Tuple[tuple, tuple]:
    """How a dataclass decoder checks its fields: (the accepted types of each field, (index,
    decoder) of each field that is not a plain type test). The types of all fields are tested in
    one pass; those others are then decoded, which checks them in full."""
    decoders = [decoder(kind) for kind in kinds]
    accepted = tuple(_PRIMITIVE.get(part, _JSON_TYPES) for part in decoders)
    nested = tuple((index, part) for index, part in enumerate(decoders) if part not in _PRIMITIVE)
    return accepted, nested


def _check_plain(cls: type) -> None:
    """Refuse (``TypeError``) a dataclass whose construction does more than set its fields."""
    if hasattr(cls, "__post_init__") or getattr(cls, "__slots__", None):
        raise TypeError(f"{cls.__name__} is not a plain dataclass: cannot be decoded")
