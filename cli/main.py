"""The root `reason` app: global options and one sub-app per system."""

from __future__ import annotations

import importlib
import importlib.util
import json
import sys
import traceback
from typing import Annotated

import click
import typer

from cli.common import State
from toolkit import __version__
from toolkit.core import console
from toolkit.core.errors import ReasonError
from toolkit.core.extras import missing_extra

# (command name, module under cli/, its extras: the first that installs a missing module is the one named)
SYSTEMS = [
    ("failgen", "failgen", ("sim",)),
    ("aha", "aha", ("ml", "sim")),
    ("chase-sql", "chase_sql", ("sql", "ml")),
    ("swe-search", "swe_search", ("swe",)),
    ("microtheory", "microtheory", ("ml",)),
    ("steer", "steer", ("ml",)),
    ("kvcompress", "kvcompress", ("ml",)),
    ("gama", "gama", ("ml",)),
    ("compgen", "compgen", ("ml",)),
    ("view", "view", ()),
    ("matcha", "matcha", ("ml", "graph")),
    ("maps", "maps", ("circuit", "ml")),
    ("metacausal", "metacausal", ("causal",)),
    ("geomrel", "geomrel", ("geo", "ml")),
    ("cogcom", "cogcom", ("vision", "ml")),
    ("sokoban", "sokoban", ("rl", "ml")),
    ("dsg", "dsg", ("dsg", "ml")),
    ("rag", "rag", ("ml",)),
    ("ssm-limits", "ssm_limits", ("logic", "ml")),
    ("selfaware", "selfaware", ("selfaware", "ml")),
]

app = typer.Typer(
    name="reason",
    help="Composable tools for a family of ICLR 2025 reasoning systems. Records are JSON Lines on stdout.\n\n"
         "Example: reason gama bench --players fictitious --no-rounds | jq -c 'select(.type == \"gama.summary\")'",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"reason {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    seed: Annotated[int, typer.Option("--seed", help="Default seed for every subcommand.")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress or tables on stderr.")] = False,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Print the version and exit.")] = False,
) -> None:
    State.debug, State.seed = debug, seed
    console.set_quiet(quiet)


@app.command()
def info(as_json: Annotated[bool, typer.Option("--json", help="Print the facts as one JSON record.")] = False):
    """Show Python, package versions, installed extras, torch device, CUDA and numba threading layer.

    Example: reason info --json | jq .extras
    """
    from cli.info import gather, show

    facts = gather()
    if as_json:
        print(json.dumps({"type": "reason.info", "schema": 1, **facts}))
    else:
        show(facts)


for _name, _module, _extras in SYSTEMS:
    if importlib.util.find_spec(f"cli.{_module}") is not None:
        app.add_typer(importlib.import_module(f"cli.{_module}").app, name=_name)


def _click_classes(name: str) -> tuple[type[BaseException], ...]:
    """`name` from click and, where typer vendors its own copy of click, from that copy too."""
    classes = [getattr(click.exceptions, name)]
    for module in ("typer._click.exceptions", "typer.exceptions"):
        try:
            cls = getattr(importlib.import_module(module), name, None)
        except ImportError:
            cls = None
        if cls is not None and cls not in classes:
            classes.append(cls)
    return tuple(classes)


CLICK_ERRORS = _click_classes("ClickException")
CLICK_EXIT = _click_classes("Exit")
CLICK_ABORT = _click_classes("Abort")


def _error(message: str) -> None:
    """One line on stderr, shown even with --quiet."""
    console.console.quiet = False
    console.console.print(f"error: {message}", style="red", highlight=False, markup=False, soft_wrap=True)


def _usage_error(exc: BaseException) -> None:
    ctx = getattr(exc, "ctx", None)
    if type(exc).__name__ == "NoArgsIsHelpError":
        # The help text is the message; typer's rich help has already printed it while raising.
        if exc.format_message().strip():
            print(exc.format_message(), file=sys.stderr)
        return
    message = " ".join(exc.format_message().split())
    if ctx is not None:
        message = f"{ctx.command_path}: {message} (see {ctx.command_path} --help)"
    _error(message)


def _system_extras(argv: list[str]) -> tuple[str, ...]:
    """The extras of the system named first on the command line (after the root's options)."""
    names = {name: extras for name, _module, extras in SYSTEMS}
    words = iter(argv)
    for word in words:
        if word == "--seed":
            next(words, None)
        elif not word.startswith("-"):
            return names.get(word, ())
    return ()


def main() -> None:
    debug = "--debug" in sys.argv
    try:
        try:
            code = app(prog_name="reason", standalone_mode=False)
        except ModuleNotFoundError as exc:
            # A module of an extra imported before (or without) the command's own `require` check.
            failure = missing_extra(exc, _system_extras(sys.argv[1:]))
            if failure is None:
                raise
            raise failure from exc
    except ReasonError as exc:
        if debug:
            traceback.print_exc()
        _error(str(exc))
        sys.exit(exc.exit_code)
    except CLICK_EXIT as exc:
        sys.exit(exc.exit_code)
    except CLICK_ERRORS as exc:
        _usage_error(exc)
        sys.exit(exc.exit_code)
    except CLICK_ABORT:
        console.console.print("aborted")
        sys.exit(130)
    except KeyboardInterrupt:
        console.console.print("interrupted; results written so far are kept (use --resume)")
        sys.exit(130)
    except BrokenPipeError:
        sys.exit(0)
    # Without standalone mode, typer returns the code of an Exit instead of raising it (Ctrl-C is Exit(130)).
    if isinstance(code, int) and code:
        if code == 130:
            console.console.print("interrupted; results written so far are kept (use --resume)")
        sys.exit(code)
    from toolkit.core.provenance import announce

    announce()  # "pipeline demo, not a model result" when the answers came from a stand-in


if __name__ == "__main__":
    main()
