"""The evaluation options' command-line values without typer (irwarehouse.options.OPTIONS, their
one declaration): the Enum of each choice option, the table the fast parser of `irw eval`
reads (cli/fast.py), and the EvalSettings of the values given. cli/options.py makes typer's
parameters from the same rows."""

from __future__ import annotations

from enum import Enum

from ..options import OPTIONS, Option, settings_of


def _choices(option: Option) -> type[Enum]:
    return Enum(option.field.capitalize(), [(c, c) for c in option.choices], type=str)


CHOICES = {o.field: _choices(o) for o in OPTIONS if o.kind == "choice"}


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
            choices[option.field] = CHOICES[option.field]
    return switches, values, ints, choices


def take_settings(kwargs: dict, names: dict[str, str] | None = None):
    """The EvalSettings of the evaluation options among a command's keyword arguments, taken
    out of `kwargs` (an option not given is None: the profile, then the default, decides).
    `names`: option field -> the command's parameter (default: every option, by its field)."""
    if names is None:
        names = {o.field: o.field for o in OPTIONS}
    return settings_of(**{field: kwargs.pop(name, None) for field, name in names.items()})
