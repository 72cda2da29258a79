"""The Python API's arguments checked against their annotations, so that a wrongly typed
argument is irwarehouse's own error naming the argument (ArgumentError, a TypeError too),
never DuckDB's, pyarrow's or an AttributeError from deep inside: `@checked` on a function,
`@checked_methods` on a class (its public methods)."""

from __future__ import annotations

import functools
import inspect
import os
import types
import typing
from pathlib import Path

from .errors import IrwError


class ArgumentError(IrwError, TypeError):
    """An argument of the wrong type given to the Python API."""


def _resolve(annotation, namespace: dict):
    """An annotation string evaluated in its module (None when it names something that
    exists only for type checkers)."""
    if not isinstance(annotation, str):
        return annotation
    try:
        return eval(annotation, namespace)      # noqa: S307 - the package's own annotations
    except Exception:                           # noqa: BLE001 - TYPE_CHECKING-only names
        return None


def _accepts(kind, value) -> bool:
    """Whether `value` fits the annotation `kind` (unions, list[...], tuple, dict and
    classes; Path also takes any os.PathLike; float takes an int; anything else passes)."""
    if kind is None or kind is typing.Any or kind is inspect.Parameter.empty:
        return True
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType):
        return any(_accepts(k, value) for k in typing.get_args(kind))
    if kind is type(None):
        return value is None
    if origin in (list, set, frozenset):
        (item,) = typing.get_args(kind) or (None,)
        return isinstance(value, (list, tuple) if origin is list else origin) \
            and all(_accepts(item, v) for v in value)
    if origin is tuple:
        items = typing.get_args(kind)
        if not isinstance(value, (tuple, list)):
            return False
        if len(items) == 2 and items[1] is Ellipsis:
            return all(_accepts(items[0], v) for v in value)
        return len(items) == len(value) and all(_accepts(k, v) for k, v in zip(items, value))
    if origin is dict:
        return isinstance(value, dict)
    if origin is not None:          # Callable[...] and other generics: their class only
        return isinstance(value, origin) if isinstance(origin, type) else True
    if kind is Path:
        return isinstance(value, os.PathLike)
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if isinstance(kind, type):
        return isinstance(value, kind)
    return True


def _shown(kind) -> str:
    return str(kind).replace("typing.", "").replace("pathlib.", "").replace("<class '", "") \
        .replace("'>", "")


def checked(fn):
    """`fn` with its arguments checked against its annotations first. Its signature and
    annotations are read at its first call, not when its module is imported (the API's 28
    checked functions: 1-2 ms in every process, `irw eval QRELS RUN` calls one)."""
    where = fn.__qualname__
    read: list = []

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not read:
            signature = inspect.signature(fn)
            namespace = vars(inspect.getmodule(fn))
            read.append((signature, {name: _resolve(p.annotation, namespace)
                                     for name, p in signature.parameters.items()
                                     if name != "self"}))
        signature, kinds = read[0]
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise ArgumentError(f"{where}: {exc}") from None
        for name, value in bound.arguments.items():
            if name in kinds and not _accepts(kinds[name], value):
                raise ArgumentError(f"{where}: {name} must be {_shown(kinds[name])}, not "
                                    f"{type(value).__name__}")
        return fn(*args, **kwargs)
    return wrapper


def checked_methods(cls):
    """The class with every public method (and __init__) `checked`."""
    for name, member in list(vars(cls).items()):
        if inspect.isfunction(member) and (not name.startswith("_") or name == "__init__"):
            setattr(cls, name, checked(member))
    return cls
