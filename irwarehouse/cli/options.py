"""The evaluation options of the commands, made from their one declaration
(irwarehouse.options.OPTIONS): `@evaluation_options()` gives a command every option (or
those named) as typer parameters, and hands the body their values as one EvalSettings, the
`settings` argument; the fast parser of `irw eval` (cli/fast.py) reads the same rows."""

from __future__ import annotations

import functools
import inspect
from enum import Enum
from typing import Annotated

import typer

from ..options import BY_FIELD, OPTIONS, Option, settings_of


def _choices(option: Option) -> type[Enum]:
    return Enum(option.field.capitalize(), [(c, c) for c in option.choices], type=str)


_CHOICES = {o.field: _choices(o) for o in OPTIONS if o.kind == "choice"}
_TYPES = {"int": int, "bool": bool, "gains": str, "text": str, "name": str}


def annotation(option: Option, flags: tuple[str, ...] | None = None):
    """The typer parameter of an option (None = not given: the profile, then the default,
    decides)."""
    kind = _CHOICES[option.field] if option.kind == "choice" else _TYPES[option.kind]
    return Annotated[kind | None, typer.Option(*(flags or option.flags), help=option.help,
                                               show_default=False)]


def evaluation_options(*names: str, flags: dict[str, tuple[str, ...]] | None = None):
    """Give a command the evaluation options `names` (default: all of OPTIONS) as typer
    parameters; the command's `settings` parameter receives them as one EvalSettings.
    `flags`: other spellings for an option on this command (none has any today)."""
    chosen = [o for o in OPTIONS if not names or o.field in names]

    def decorate(callback):
        signature = inspect.signature(callback, eval_str=True)
        params = [p for p in signature.parameters.values() if p.name != "settings"]
        # the Python parameter of each option: its field, or field_option where the command has
        # a parameter of that name (irw meta loo's pool --depth beside -M)
        names = {o.field: f"{o.field}_option" if o.field in signature.parameters else o.field
                 for o in chosen}
        added = {names[o.field]: annotation(o, (flags or {}).get(o.field)) for o in chosen}

        @functools.wraps(callback)
        def with_options(*args, **kwargs):
            values = {field: kwargs.pop(name, None) for field, name in names.items()}
            return callback(*args, settings=settings_of(**values), **kwargs)

        params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                     annotation=kind) for name, kind in added.items()]
        with_options.__signature__ = signature.replace(parameters=params)
        with_options.__annotations__ = {k: v for k, v in callback.__annotations__.items()
                                        if k != "settings"} | added
        return with_options
    return decorate


def fast_spec() -> tuple[dict[str, tuple[str, object]], dict[str, str], set[str], dict]:
    """What the fast parser knows of the options: switch flags -> (parameter, value), value
    flags -> parameter, the integer parameters, and the choice parameters -> their Enum."""
    switches, values, ints, choices = {}, {}, set(), {}
    for option in OPTIONS:
        for flag in option.flags:
            if option.kind == "bool":
                on, _, off = flag.partition("/")
                switches[on] = (option.field, True)
                if off:
                    switches[off] = (option.field, False)
            else:
                values[flag] = option.field
        if option.kind == "int":
            ints.add(option.field)
        if option.kind == "choice":
            choices[option.field] = _CHOICES[option.field]
    return switches, values, ints, choices


# --qrels alone, for the commands that take no other evaluation option (pools, LOO, online)
QrelsOpt = annotation(BY_FIELD["qrels"])
