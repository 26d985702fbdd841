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
