"""assets/sokoban/regenerate.sh against the shipped files: run with a stand-in interpreter that records each command
and creates what its -o names, the script must reach its end and write every shipped result and level file (the
chunk-1 figures in results/8x8/chunk1/ were measured before chunk 2 and are kept as they are)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from toolkit.core.assets import asset_path

# writes a line into each -o file (so `[ -s cases ]` holds) and an agent directory for each directory -o
STAND_IN = r"""#!/usr/bin/env bash
echo "$*" >> "$COMMANDS"
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  [ "${args[$i]}" = -o ] || continue
  t="${args[$((i + 1))]}"
  case "$t" in
    *.txt|*.jsonl|*.json|*.safetensors|*.gif) mkdir -p "$(dirname "$t")"; echo '{}' > "$t";;
    *) mkdir -p "$t"; for f in model.safetensors config.json train_log.json; do echo '{}' > "$t/$f"; done;;
  esac
done
"""


def test_regenerate_script_writes_every_shipped_result(tmp_path):
    python = tmp_path / "python"
    python.write_text(STAND_IN)
    python.chmod(0o755)
    out, commands = tmp_path / "out", tmp_path / "commands.log"
    script = asset_path("sokoban/regenerate.sh")
    run = subprocess.run(["bash", str(script), "0.2", "40", "60", str(out), "0.2"], capture_output=True, text=True,
                         env={**os.environ, "PYTHON": str(python), "COMMANDS": str(commands)}, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "done" in run.stderr.splitlines()[-1]
    shipped = asset_path("sokoban")

    def files(root: Path) -> set[str]:
        return {str(p.relative_to(root)) for top in ("results", "levels") for p in (root / top).rglob("*")
                if p.is_file() and "chunk1" not in p.parts}

    missing = files(shipped) - files(out)
    assert not missing, sorted(missing)
    # every agent the README measures is trained by the script: each shipped agent directory is an -o of a train
    trained = {line.split(" -o ")[1].split()[0] for line in commands.read_text().splitlines() if " train " in line}
    agents = {str(p.parent.relative_to(shipped)) for p in shipped.rglob("model.safetensors")}
    assert agents <= {str(Path(t).relative_to(out)) for t in trained}, agents
