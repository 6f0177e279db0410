"""Throws: casting sticks, a die with a reroll, two dice; each with its exact odds (S1, H1, M3).

Randomness always comes from an injected source with `getrandbits` and `randrange`
(`random.Random(seed)` in tests, `secrets.SystemRandom()` by default), never from a
module-level generator.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from typing import Any, Protocol

from .text import Text


class RandomSource(Protocol):
    """What throws and random play need from a random generator; `random.Random` and `secrets.SystemRandom` fit."""

    def getrandbits(self, k: int, /) -> int: ...

    def randrange(self, stop: int, /) -> int: ...

    def random(self) -> float: ...


def default_random() -> RandomSource:
    """A `secrets`-grade generator, used whenever no source is injected."""
    return secrets.SystemRandom()


@dataclass(frozen=True)
class Throw:
    """One throw: the value the rules count and what the sticks or dice showed."""

    value: int | tuple[int, ...]
    faces: tuple[int, ...]


class ThrowKind:
    """How a rule set throws. Subclasses say which values exist, their odds, and how to throw."""

    name: str = ""

    def values(self) -> tuple[object, ...]:
        """Every value this kind of throw can produce."""
        return tuple(self.odds())

    def odds(self) -> Mapping[Any, Fraction]:  # Any: each kind names its own values (int, dice tuple)
        """Exact probability of each value."""
        raise NotImplementedError

    def throw(self, rng: RandomSource) -> Throw:
        """Throw once with `rng`."""
        raise NotImplementedError

    def value(self, rng: RandomSource) -> object:
        """Throw once and return only the value: the fast path for simulations."""
        return self.throw(rng).value

    def count_table(self) -> tuple[int, tuple[int, ...]] | None:
        """(k, table) when a throw's value is `table[rng.getrandbits(k)]` (what `value` does), so a
        playout can throw without a call; None for kinds thrown otherwise."""
        return None

    def is_valid(self, value: object) -> bool:
        """Whether `value` is a value this kind can produce."""
        return isinstance(value, int) and not isinstance(value, bool) and value in self.odds()

    def describe(self) -> str:
        """One line for error messages and the rules page."""
        return ", ".join(str(v) for v in self.values())


class Sticks(ThrowKind):
    """Four two-sided sticks; the value is how many show the counted side, or `zero` if none does."""

    def __init__(self, counted: str, zero: int) -> None:
        self.counted = counted
        self.zero = zero
        self.name = "sticks"
        # Index = 4 bits, one per stick (1 = counted side up) -> value.
        self.table = tuple(bin(bits).count("1") or zero for bits in range(16))

    def odds(self) -> dict[int, Fraction]:
        """C(4, k)/16 for k counted sides; the all-other-side outcome takes the `zero` value."""
        return {(k or self.zero): Fraction(comb(4, k), 16) for k in sorted(range(5), key=lambda k: k or self.zero)}

    def throw(self, rng: RandomSource) -> Throw:
        bits = rng.getrandbits(4)
        faces = tuple((bits >> i) & 1 for i in range(4))
        return Throw(self.table[bits], faces)

    def value(self, rng: RandomSource) -> int:
        return self.table[rng.getrandbits(4)]

    def count_table(self) -> tuple[int, tuple[int, ...]]:
        return 4, self.table

    def describe(self) -> str:
        values = super().describe()  # whole sentences for each side: its word changes with the sentence (de)
        if self.counted == "white":
            return Text("4 sticks counting white sides (none = {zero}): {values}", zero=self.zero, values=values)
        return Text("4 sticks counting dark sides (none = {zero}): {values}", zero=self.zero, values=values)


class RerolledDie(ThrowKind):
    """A die whose `reroll` face is thrown again until it shows something else (S1 option `d6`)."""

    def __init__(self, sides: int = 6, reroll: int = 5) -> None:
        self.sides = sides
        self.reroll = reroll
        self.name = "d6"

    def odds(self) -> dict[int, Fraction]:
        faces = [v for v in range(1, self.sides + 1) if v != self.reroll]
        return {v: Fraction(1, len(faces)) for v in faces}

    def throw(self, rng: RandomSource) -> Throw:
        while True:
            v = rng.randrange(self.sides) + 1
            if v != self.reroll:
                return Throw(v, (v,))

    def describe(self) -> str:
        return Text(
            "a {sides}-sided die, {reroll} rerolled: {values}",
            sides=self.sides,
            reroll=self.reroll,
            values=super().describe(),
        )


class TwoDice(ThrowKind):
    """Two six-sided dice (M3); the value is the pair as thrown. `one_die` throws a single die."""

    name = "2d6"

    def odds(self) -> dict[tuple[int, int], Fraction]:
        return {(a, b): Fraction(1, 36) for a in range(1, 7) for b in range(1, 7)}

    def sum_odds(self) -> dict[int, Fraction]:
        """Odds of each sum of the two dice."""
        out: dict[int, Fraction] = {}
        for (a, b), p in self.odds().items():
            out[a + b] = out.get(a + b, Fraction(0)) + p
        return out

    def is_valid(self, value: object) -> bool:
        return (
            isinstance(value, tuple)
            and len(value) in (1, 2)
            and all(isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in value)
        )

    def throw(self, rng: RandomSource, dice: int = 2) -> Throw:
        value = tuple(rng.randrange(6) + 1 for _ in range(dice))
        return Throw(value, value)

    def describe(self) -> str:
        return Text("two six-sided dice, e.g. {two} (or one die, {one}, with one piece left)", two="[3, 5]", one="[4]")
