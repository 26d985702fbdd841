import json


def test_help_lists_groups(reason):
    out = reason("--help")
    assert out.returncode == 0
    assert "info" in out.stdout


def test_version(reason):
    out = reason("--version")
    assert out.returncode == 0 and out.stdout.startswith("reason 0.")


def test_info_reports_versions(reason):
    out = reason("info", "--json")
    assert out.returncode == 0, out.stderr
    facts = json.loads(out.stdout)
    assert facts["type"] == "reason.info"
    assert facts["packages"]["numpy"]
    assert set(facts["extras"]) >= {"ml", "sim", "sql", "swe", "ray"}
    table = reason("info")
    assert table.returncode == 0 and "numba threading layer" in table.stderr


def test_info_reports_the_ocr_engine_that_runs(reason):
    """The tesseract version shown is the one cogcom's OCR would use in this installation."""
    from toolkit.cogcom import ocr

    facts = json.loads(reason("info", "--json").stdout)
    here = ocr.engine_info()
    assert facts["ocr"] == here and facts["tesseract"] == here["tesseract"]
    if here["engine"] == "tesserocr":
        import tesserocr

        assert here["tesseract"] == tesserocr.tesseract_version().split()[1]
    table = reason("info").stderr
    assert "OCR (cogcom)" in table and ("in-process" in table) == (here["engine"] == "tesserocr")


def _one_error_line(out) -> str:
    lines = [line for line in out.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr
    return lines[0]


def test_usage_errors_are_one_line_exit_2(reason):
    for args, needle in [
        (("gama", "play", "guess", "--bogus"), "No such option: --bogus"),
        (("nosuch",), "No such command 'nosuch'"),
        (("gama", "play"), "Missing argument"),
        (("gama", "play", "guess", "-n", "abc"), "--n-players"),
    ]:
        out = reason(*args)
        assert out.returncode == 2, (args, out.stderr)
        line = _one_error_line(out)
        assert line.startswith("error: reason") and needle in line, line
        assert out.stdout == ""


def test_no_arguments_show_help_without_traceback(reason):
    for args in ((), ("gama",)):
        out = reason(*args)
        assert out.returncode == 2, out.stderr
        assert "Usage: reason" in out.stdout + out.stderr and "Traceback" not in out.stderr


def test_quiet_keeps_error_messages(reason):
    out = reason("--quiet", "gama", "report", "no-such-file.jsonl")
    assert out.returncode == 2
    assert _one_error_line(out) == "error: no-such-file.jsonl: no such file"


def test_interrupt_exits_130_with_message(reason, tmp_path):
    out = reason("gama", "play", "guess", "-P", "llm*2,equilibrium", "-n", "3", "-r", "1",
                 "--llm", "py:tests.support.interrupt_llm:interrupt", "-o", str(tmp_path / "g.jsonl"))
    assert out.returncode == 130, out.stderr
    assert "interrupted" in out.stderr and "Traceback" not in out.stderr


def test_every_command_and_group_help_has_an_example():
    import typer

    import cli.main

    missing = []

    def walk(command, path):
        if "Example:" not in (command.help or ""):
            missing.append(" ".join(path))
        for name, sub in getattr(command, "commands", {}).items():
            walk(sub, [*path, name])

    walk(typer.main.get_command(cli.main.app), ["reason"])
    assert missing == []


def test_skip_bad_report_shows_bracketed_input_literally(reason, tmp_path):
    path = tmp_path / "r.jsonl"
    good = {"type": "gama.result", "schema": 1, "game": "guess", "players": "equilibrium", "score": 50.0,
            "trajectory": {"mean": [1.0]}}
    path.write_text(json.dumps(good) + "\n" + json.dumps({**good, "game": "[/x]"}) + "\n")
    out = reason("gama", "report", str(path), "--skip-bad")
    assert out.returncode == 0, out.stderr
    warning = [line for line in out.stderr.splitlines() if line.startswith("warning: skipped")]
    assert len(warning) == 1 and "skipped 1 bad line(s)" in warning[0] and "unknown game '[/x]'" in warning[0]
