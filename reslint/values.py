"""Numbers that may be unknown or unbounded, and the one arithmetic on them.

Every static value reslint reads is one of three things: a number (``int`` or
``float``; seconds, counts), ``None`` (no bound: "retries forever", "no time
cap") or :data:`UNKNOWN` (the code does not say). Rules never report an unknown
value as the fault, so the arithmetic keeps the two apart:

- an unknown operand makes the result unknown (:func:`add`, :func:`mul`,
  :func:`clamp`, :func:`largest`);
- an unbounded operand makes a sum or product unbounded, and an unbounded value
  clamped by a cap is the cap;
- :func:`tighter_cap` and :func:`looser_cap` combine two caps (``stop_a | stop_b``
  and ``stop_a & stop_b``).

Constant folding of source expressions (:func:`arithmetic`, used by the
semantic model and the loop analysis) lives here too: it is the same kind of
value, evaluated without ever building a huge integer.

This module is the bottom layer: it imports nothing of reslint.
"""

from __future__ import annotations

import math
from typing import Union

import libcst as cst


class _Unknown:
    """The value of an expression that cannot be resolved statically."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "UNKNOWN"

    def __bool__(self) -> bool:
        return False


UNKNOWN = _Unknown()

#: a number (seconds or a count), ``None`` for "no bound", or :data:`UNKNOWN`
Number = Union[int, float, None, _Unknown]

#: integers wider than this are kept as floats (``1e+301``, or ``inf`` beyond the float range):
#: an exact 10**400 cannot be formatted with ``:g`` nor compared cheaply, and tells no more
MAX_INT_BITS = 1000

#: the largest exponent a wait schedule is raised to: ``2.0 ** 200`` s is already far beyond any
#: cap or budget, and a finite bound keeps ``attempts × wait`` sums finite (an ``inf`` wait
#: would read as "unbounded", which a capped schedule is not)
MAX_SCHEDULE_EXPONENT = 200


def spelled_as_constant(name: str) -> bool:
    """Whether ``name`` is spelled as a constant (PEP 8: ``MAX_ATTEMPTS``, ``_DEFAULT_TIMEOUT``)."""
    return name.upper() == name and any(c.isalpha() for c in name)


def is_number(value) -> bool:
    """Whether ``value`` is a known number (``bool`` is not one)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def plus_one(retries: Number) -> Number:
    """Attempts from a number of retries (``None``, no bound, and UNKNOWN stay as they are)."""
    return retries + 1 if is_number(retries) else retries


def whole(value):
    """A count (attempts, retries) read from a constant: an int (``10 ** 100`` stays exact),
    ``None`` (no bound) for ``inf``, UNKNOWN for NaN; ``-inf`` is 0."""
    if isinstance(value, float):
        if math.isnan(value):
            return UNKNOWN
        if math.isinf(value):
            return None if value > 0 else 0
        return int(value)
    return value


# -- wait arithmetic (None = unbounded) -----------------------------------------------------------
def add(a: Number, b: Number) -> Number:
    """``a + b``: unknown if either is unknown, else unbounded if either is unbounded."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None or b is None:
        return None
    return a + b


def mul(a: Number, b: Number) -> Number:
    """``a × b``: unknown if either is unknown, else unbounded if either is unbounded."""
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    if a is None or b is None:
        return None
    return a * b


def scaled_power(base: Number, exponent: int) -> Number:
    """``base ** exponent`` as a float for a wait schedule (``base`` unknown or unbounded stays
    so); the exponent is capped at :data:`MAX_SCHEDULE_EXPONENT` and an overflow is ``inf``."""
    if base is UNKNOWN or base is None:
        return base
    try:
        return float(base) ** min(exponent, MAX_SCHEDULE_EXPONENT)
    except OverflowError:
        return float("inf")


def clamp(value: Number, low: Number, high: Number) -> Number:
    """``value`` within ``[low, high]`` (``None`` bounds are absent); an unbounded ``value``
    is ``high``; any unknown part makes the result unknown."""
    if value is UNKNOWN or low is UNKNOWN or high is UNKNOWN:
        return UNKNOWN
    if value is None:
        return high
    if low is not None:
        value = max(value, low)
    if high is not None:
        value = min(value, high)
    return value


def largest(*values: Number) -> Number:
    """The largest of ``values``: unknown if one is unknown, else unbounded if one is unbounded."""
    if any(v is UNKNOWN for v in values):
        return UNKNOWN
    if any(v is None for v in values):
        return None
    return max(values)


def total(values) -> Number:
    """The sum of ``values`` (0.0 for none), with :func:`add`'s rules."""
    result: Number = 0.0
    for value in values:
        result = add(result, value)
    return result


def fibonacci(k: int) -> int:
    """The k-th Fibonacci number, 1, 1, 2, 3, 5, ... (k >= 1)."""
    a, b = 1, 1
    for _ in range(k - 1):
        a, b = b, a + b
    return a


def tighter_cap(a: Number, b: Number) -> Number:
    """The tighter of two caps, for ``stop_a | stop_b`` (None = no cap): a known cap wins."""
    if is_number(a) and is_number(b):
        return min(a, b)
    if is_number(a):
        return a
    if is_number(b):
        return b
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    return None


def looser_cap(a: Number, b: Number) -> Number:
    """The looser of two caps, for ``stop_a & stop_b``: both must hold to stop."""
    if a is None or b is None:
        return None
    if a is UNKNOWN or b is UNKNOWN:
        return UNKNOWN
    return max(a, b)


# -- constant folding of source expressions -------------------------------------------------------
def bounded(value):
    """``value``, with an integer wider than :data:`MAX_INT_BITS` as the nearest float (or ``±inf``)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > MAX_INT_BITS:
        try:
            return float(value)
        except OverflowError:
            return math.copysign(math.inf, value)
    return value


def arithmetic(op, left, right):
    """``left <op> right`` for numbers (+ - * / // **; ``op`` a LibCST operator node), else
    :data:`UNKNOWN` (shared by constant evaluation and the loop analysis). A result beyond the
    float range is ``±inf``, not unknown: ``timeout=10 ** 400`` is still too long."""
    numeric = (int, float)
    if not (isinstance(left, numeric) and isinstance(right, numeric)) or isinstance(left, bool) \
            or isinstance(right, bool):
        return UNKNOWN
    try:
        if isinstance(op, cst.Add):
            return bounded(left + right)
        if isinstance(op, cst.Subtract):
            return bounded(left - right)
        if isinstance(op, cst.Multiply):
            return bounded(left * right)
        if isinstance(op, cst.Divide):
            return left / right
        if isinstance(op, cst.FloorDivide):
            return bounded(left // right)
        if isinstance(op, cst.Power):
            return power(left, right)
    except (ArithmeticError, ValueError):  # 1 / 0, 0 ** -1
        return UNKNOWN
    return UNKNOWN


def power(base, exponent):
    """``base ** exponent`` for constants, without computing a huge integer (``2 ** 10 ** 100``
    would never end): exact while the result fits :data:`MAX_INT_BITS`, else ``±inf``."""
    negative = base < 0 and isinstance(exponent, int) and exponent % 2 == 1
    if isinstance(base, int) and isinstance(exponent, int) and exponent >= 0:
        if abs(base) <= 1 or exponent * math.log2(abs(base)) <= MAX_INT_BITS:
            return base ** exponent
        return -math.inf if negative else math.inf
    try:
        result = float(base) ** exponent
    except OverflowError:
        return -math.inf if negative else math.inf
    return UNKNOWN if isinstance(result, complex) else result
