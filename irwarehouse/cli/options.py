"""The evaluation options of the commands, made from their one declaration
(irwarehouse.options.OPTIONS): `@evaluation_options()` gives a command every option (or
those named) as typer parameters, and hands the body their values as one EvalSettings, the
`settings` argument (cli/optionspec.py: their Enums and EvalSettings without typer, which the
fast parser of `irw eval`, cli/fast.py, reads too)."""

from __future__ import annotations

import functools
import inspect
from typing import Annotated

import typer

from ..options import BY_FIELD, OPTIONS, Option
from .optionspec import CHOICES, take_settings

_TYPES = {"int": int, "bool": bool, "gains": str, "text": str, "name": str}


def annotation(option: Option, flags: tuple[str, ...] | None = None):
    """The typer parameter of an option (None = not given: the profile, then the default,
    decides)."""
    kind = CHOICES[option.field] if option.kind == "choice" else _TYPES[option.kind]
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
            return callback(*args, settings=take_settings(kwargs, names), **kwargs)

        params += [inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None,
                                     annotation=kind) for name, kind in added.items()]
        with_options.__signature__ = signature.replace(parameters=params)
        with_options.__annotations__ = {k: v for k, v in callback.__annotations__.items()
                                        if k != "settings"} | added
        return with_options
    return decorate


# --qrels alone, for the commands that take no other evaluation option (pools, LOO, online)
QrelsOpt = annotation(BY_FIELD["qrels"])
