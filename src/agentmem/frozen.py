"""``Frozen``: the base of the value classes every command builds at import (the settings, the
repository and its people, memory entries and records, the chat context).

A frozen dataclass is costly to build on Python 3.11 (docs/decisions/0082) (``dataclasses`` writes and compiles
each method), which every command and the SessionStart hook paid for each class on their path
(docs/design/code.md §Hot path). A subclass names its fields in ``_fields`` (in order) and writes its
``__init__`` with :meth:`Frozen._set`; this base gives what ``@dataclass(frozen=True)`` gave:
``==`` between instances of the very same class over the compared fields (``_compared``, default
all), ``hash`` of those values, ``Class(field=value, …)`` as repr over the shown fields
(``_shown``, default all), :class:`dataclasses.FrozenInstanceError` on assignment or deletion, and
:meth:`replace` for ``dataclasses.replace`` (it calls ``__init__`` with the changed fields).
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing is not imported: docs/design/code.md §Hot path
if TYPE_CHECKING:
    from typing import Any, ClassVar, Self


def _frozen_error(message: str) -> AttributeError:
    # lazy: dataclasses pulls inspect; only a bug assigns to a frozen value
    from dataclasses import FrozenInstanceError

    return FrozenInstanceError(message)


class Frozen:
    """An immutable value with dataclass-like equality, hash, repr and ``replace``."""

    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _compared: ClassVar[tuple[str, ...] | None] = None  # None: every field
    _shown: ClassVar[tuple[str, ...] | None] = None  # None: every field

    def _set(self, **values: Any) -> None:
        """Store the fields from ``__init__`` (the only writer)."""
        vars(self).update(values)

    def _key(self) -> tuple[Any, ...]:
        names = self._fields if self._compared is None else self._compared
        return tuple(getattr(self, name) for name in names)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        names = self._fields if self._shown is None else self._shown
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{type(self).__qualname__}({shown})"

    def __setattr__(self, name: str, value: object) -> None:
        raise _frozen_error(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise _frozen_error(f"cannot delete field {name!r}")

    def replace(self, **changes: Any) -> Self:
        """A copy with ``changes`` (as ``dataclasses.replace``: through ``__init__``, an unknown
        name is a ``TypeError``)."""
        values = {name: getattr(self, name) for name in self._fields}
        values.update(changes)
        make: Any = type(self)
        made: Self = make(**values)
        return made
