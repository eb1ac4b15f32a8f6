"""Parameter values without pydantic (docs/decisions/0055).

typer 0.29 converts every parameter value, even a plain ``str`` or an option left at ``None``,
through a pydantic ``TypeAdapter`` it builds on first use (``typer._coercion.build_runtime_param``);
importing pydantic for that is paid by every command. The annotations agentmem uses
(``str``, ``int``, ``bool``, ``Path``, an ``Enum``, and lists of those) need no pydantic to be
converted, so :func:`install` gives each such parameter a :class:`LightParam`: it converts the
values it is sure about exactly as typer's adapter would (same result), and hands anything else
— an unusual number, a bad choice, a path that fails a check — to typer's own adapter, which
then imports pydantic and gives typer's own answer or error message. Nothing else of typer is
changed. ``tests/cli/test_params.py`` fails if typer's internals this relies on move (the
``_runtime_param`` slot, ``RuntimeParam``) or if a command loads pydantic again.
"""

from __future__ import annotations

import inspect
import re
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

from typer._click import Command, Context
from typer._click.exceptions import BadParameter
from typer._coercion import RuntimeParam, TypeDescriptor, build_runtime_param
from typer._param_types import coerce_cli_choice, coerce_cli_path
from typer.core import _TyperParameter

_INT = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")
_LEAVES = (str, int, bool, Path)


class _Fallback(Exception):
    """The light conversion is not sure: typer's adapter decides."""


class NotAChoice(BadParameter):
    """A value that is none of an option's choices, refused with the choices whole and without
    the value typed (so the CLI's hiding of typed values has nothing to take out of it)."""


class _NotAChoice(Exception):
    """A value that is none of an ``Enum`` option's choices."""

    def __init__(self, choices: list[str]) -> None:
        super().__init__(choices)
        self.choices = choices


def _leaf(annotation: Any, descriptor: TypeDescriptor, value: Any, ctx: Context) -> Any:
    """One value converted as typer's pydantic adapter converts it, or :class:`_Fallback`."""
    info = descriptor.parameter_info
    if annotation is bool:
        if isinstance(value, bool):
            return value
        raise _Fallback
    if annotation is int and type(value) is int:  # a default such as ``--limit``'s 20
        return _bounded(value, info)
    if not isinstance(value, str):
        raise _Fallback
    try:
        value.encode("utf-8")  # pydantic refuses what is not valid text: let it say so
    except UnicodeEncodeError:
        raise _Fallback from None
    if annotation is str:
        return value
    if annotation is int:
        if not _INT.fullmatch(value):
            raise _Fallback
        return _bounded(int(value), info)
    if annotation is Path:
        try:
            return coerce_cli_path(Path(value), info, path_type=Path, ctx=ctx)
        except Exception:
            raise _Fallback from None
    try:
        return coerce_cli_choice(
            value, choices=list(annotation), case_sensitive=info.case_sensitive, ctx=ctx
        )
    except Exception:
        raise _NotAChoice([str(c.value) for c in annotation]) from None


def _bounded(number: int, info: Any) -> int:
    """``number`` if it is within the option's ``min``/``max``, else :class:`_Fallback`."""
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        raise _Fallback
    return number


class LightParam(RuntimeParam):
    """typer's runtime conversion for one parameter, pydantic only when typer must decide.

    A subclass of typer's frozen dataclass with one attribute more, not a dataclass itself:
    Python 3.11 would build its methods from source at every start for that field."""

    descriptor: TypeDescriptor

    def __init__(self, parameter_info: Any, annotation: Any, descriptor: TypeDescriptor) -> None:
        super().__init__(parameter_info, annotation)
        object.__setattr__(self, "descriptor", descriptor)

    def _coerce_value(self, value: Any, param: _TyperParameter, ctx: Context) -> Any:
        annotation: Any = self.annotation
        try:
            if get_origin(annotation) is list:
                (item,) = get_args(annotation)
                items = value if isinstance(value, (list, tuple)) else [value]
                return [_leaf(item, self.descriptor, v, ctx) for v in items]
            return _leaf(annotation, self.descriptor, value, ctx)
        except _NotAChoice as wrong:
            # typer's adapter would say "Value error, 'X' is not one of …" and the value would
            # be hidden from that message (cli/tree.py), mangling a choice that contains it.
            raise NotAChoice(
                f"expected one of {', '.join(wrong.choices)} (the value typed is not shown)",
                ctx=ctx,
                param=param,
            ) from None
        except _Fallback:
            typer_own = build_runtime_param(self.descriptor)
            return typer_own._coerce_value(value, param=param, ctx=ctx)


def _supported(annotation: Any, descriptor: TypeDescriptor) -> bool:
    info = descriptor.parameter_info
    if info.parser is not None or info.clamp or descriptor.file_annotation is not None:
        return False
    if get_origin(annotation) is list:
        args = get_args(annotation)
        return len(args) == 1 and _supported(args[0], descriptor)
    if annotation is Path:
        return info.path_type is None and not info.resolve_path and not info.allow_dash
    if isinstance(annotation, type) and issubclass(annotation, Enum):
        return True
    return annotation in _LEAVES


def install(command: Command) -> int:
    """Give every parameter under ``command`` whose annotation is supported a
    :class:`LightParam`; the number of parameters given one."""
    count = 0
    # The ``--help`` option is made on first use; make it now (the object typer then keeps) so
    # that it is converted here too.
    helper = command.get_help_option(Context(command))
    for param in [*command.params, *([helper] if helper is not None else [])]:
        descriptor = getattr(param, "type_descriptor", None)
        if not isinstance(param, _TyperParameter) or descriptor is None:
            continue
        if _supported(descriptor.annotation, descriptor):
            param._runtime_param = LightParam(
                parameter_info=descriptor.parameter_info,
                annotation=descriptor.annotation,
                descriptor=descriptor,
            )
            count += 1
    for sub in getattr(command, "commands", {}).values():
        count += install(sub)
    return count


def evaluate_annotations(app: Any) -> int:
    """Turn the annotation strings of every callback under the typer app ``app`` (its commands,
    its callback, its sub-apps) into the objects they name, once; the number of callbacks
    changed (docs/decisions/0076).

    The command modules use ``from __future__ import annotations``, so each parameter's
    ``Annotated[…, typer.Option(…)]`` is a string, which typer evaluates four times per command
    it builds (``inspect.signature(eval_str=True)`` and ``get_type_hints``, each called twice).
    The objects are what ``inspect.signature(eval_str=True)`` gives typer from the strings (the
    same call, in the function's globals), so typer builds the same command from them."""
    callbacks = [info.callback for info in app.registered_commands]
    if app.registered_callback is not None:
        callbacks.append(app.registered_callback.callback)
    count = 0
    for group in app.registered_groups:
        callbacks.append(group.callback)
        if group.typer_instance is not None:
            count += evaluate_annotations(group.typer_instance)
    for callback in callbacks:
        found = getattr(callback, "__annotations__", None)
        if found and any(isinstance(value, str) for value in found.values()):
            callback.__annotations__ = inspect.get_annotations(callback, eval_str=True)
            count += 1
    return count
