"""The package layout (docs/architecture.md): the imports between irwarehouse's packages form no
circle, at module or package level, counting the imports inside functions too; and the lower
layers never reach up to the command line, the reports or the public API."""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter

from tests.helpers.paths import REPO

PACKAGE = REPO / "irwarehouse"
# what each layer may not import (directly or through a function-level import)
FORBIDDEN = {
    "errors": {"*"},
    "failures": {"*"} - {"errors"},
    "sqlfiles": {"*", "parsecache"},
    # what sqlfiles and the measure catalog parse, kept between processes: a leaf
    "parsecache": {"*"},
    # the evaluation options, declared once (issue 29): read by every layer above
    "options": {"formats", "store", "engine", "spark", "stats", "writers", "analyst", "request",
                "meta", "online", "texts", "report", "api", "cli", "failures"},
    "formats": {"measures", "store", "engine", "spark", "writers", "api", "cli", "report",
                "request"},
    "measures": {"store", "engine", "spark", "writers", "api", "cli", "report", "request"},
    "store": {"engine", "spark", "writers", "api", "cli", "report", "request"},
    "engine": {"spark", "writers", "api", "cli", "report", "request"},
    # the Spark engine (issue 18): above the DuckDB engine, below the layouts and commands
    "spark": {"writers", "analyst", "meta", "online", "texts", "api", "cli", "report",
              "request"},
    # "*" with names: everything but errors and those names
    "stats": {"*", "notebook"},
    # the HTML tables of Jupyter (issue 35): a leaf every layer may use to show its results
    "notebook": {"*", "failures"},
    "writers": {"spark", "api", "cli", "report", "request"},
    "analyst": {"meta", "online", "api", "cli", "report", "request"},
    # the one evaluation request (issue 29): over the engine, the online and text measures and
    # the layouts; read by meta-evaluation, the reports, the API and the commands
    "request": {"meta", "api", "cli", "report", "analyst"},
    "meta": {"api", "cli", "report", "analyst"},
    "online": {"api", "cli", "report", "analyst", "meta", "request"},
    "texts": {"api", "cli", "report", "analyst", "meta", "online", "request"},
    "report": {"api", "cli"},
    "api": {"cli"},
    # the live workspace (issue 33): over every layer but the command line
    "serve": {"cli"},
}


def _module_name(path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports() -> dict[str, set[str]]:
    """module -> the irwarehouse modules it imports (`from . import x` counts x)."""
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    out: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
        targets = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                candidates = [f"{target}.{a.name}" for a in node.names] + [target]
            elif isinstance(node, ast.Import):
                candidates = [a.name for a in node.names]
            else:
                continue
            found = next((c for c in candidates if c in modules), None)
            if found is not None and found != name:
                targets.add(found)
        out[name] = targets
    return out


def _layer(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "irwarehouse"


def test_no_import_circle_between_modules():
    graph = {m: {t for t in ts if not m.startswith(t + ".")} for m, ts in _imports().items()}
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        raise AssertionError(f"modules import each other in a circle: {exc.args[1]}") from None


def test_no_import_circle_between_packages():
    graph: dict[str, set[str]] = {}
    for module, targets in _imports().items():
        if module == "irwarehouse":          # the lazy public façade (irwarehouse/__init__.py)
            continue
        graph.setdefault(_layer(module), set()).update(
            _layer(t) for t in targets if _layer(t) not in (_layer(module), "irwarehouse"))
    try:
        tuple(TopologicalSorter(graph).static_order())
    except CycleError as exc:
        raise AssertionError(f"packages import each other in a circle: {exc.args[1]}") from None


def test_lower_layers_do_not_reach_up():
    layers = {_layer(m) for m in _imports()}
    wrong = []
    for module, targets in _imports().items():
        banned = FORBIDDEN.get(_layer(module), set())
        if "*" in banned:
            banned = layers - {"errors", "irwarehouse"} - (banned - {"*"})
        wrong += [f"{module} -> {t}" for t in targets
                  if _layer(t) in banned and _layer(t) != _layer(module)]
    assert not wrong, "\n".join(wrong)


def test_every_package_has_its_layer_rule():
    """A new package gets a line in FORBIDDEN (and in docs/architecture.md)."""
    packages = {p.parent.name for p in PACKAGE.glob("*/__init__.py")}
    assert packages - {"cli"} <= set(FORBIDDEN), packages - {"cli"} - set(FORBIDDEN)


# the modules `irw eval QRELS RUN` runs without typer (cli/fast.py parses it; issue 32 target 1):
# none imports typer at module level, nor a module that declares commands for typer (those
# import it), even inside a function; plain.echo_err asks typer itself only for what it does
# differently (tests/cli/test_fast.py runs the path and checks sys.modules)
TYPER_FREE = ("irwarehouse.cli.plain", "irwarehouse.cli.eval_body", "irwarehouse.cli.optionspec")
TYPER_DECLARATIONS = {"irwarehouse.cli.common", "irwarehouse.cli.eval", "irwarehouse.cli.options",
                      "irwarehouse.cli.commands"}


def test_the_everyday_body_is_typer_free():
    imports = _imports()
    for module in TYPER_FREE:
        assert not imports[module] & TYPER_DECLARATIONS, (module, imports[module])
        tree = ast.parse((REPO / (module.replace(".", "/") + ".py")).read_text(encoding="utf-8"))
        top = {a.name.split(".")[0] for node in tree.body if isinstance(node, ast.Import)
               for a in node.names}
        top |= {(node.module or "").split(".")[0] for node in tree.body
                if isinstance(node, ast.ImportFrom) and not node.level}
        assert not top & {"typer", "click"}, module
    assert not (imports["irwarehouse.cli.fast"] - {"irwarehouse.cli.common"}) & \
        TYPER_DECLARATIONS     # common only for `irw sql`, which typer's declaration runs
