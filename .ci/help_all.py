"""`reason SYSTEM COMMAND --help` for every subcommand of the installed `reason`, in one process.

Run by .ci/wheel-smoke with the wheel's interpreter: each help must exit 0 and show its usage line.
Prints the number of helps shown; exits 1 naming every command whose help failed.
"""

import contextlib
import io
import sys

import typer.main

import cli.main

command = typer.main.get_command(cli.main.app)
cli.main.app = command  # built once for all the command lines below
lines = [["--help"]]
for system, group in command.commands.items():
    lines.append([system, "--help"])
    lines += [[system, name, "--help"] for name in getattr(group, "commands", {})]
failed = []
for argv in lines:
    sys.argv = ["reason", *argv]
    out, err = io.StringIO(), io.StringIO()
    code = 0
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            cli.main.main()
    except SystemExit as exc:
        code = exc.code or 0
    if code != 0 or "Usage:" not in out.getvalue():
        failed.append(f"reason {' '.join(argv)} (exit {code}): {(err.getvalue() or out.getvalue())[-300:]}")
if failed:
    sys.exit("help failed:\n" + "\n".join(failed))
print(len(lines))
