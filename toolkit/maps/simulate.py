"""Run a netlist through ngspice: PySpice's shared library in a worker process, or `ngspice -b` as a
subprocess. Both give node voltages, source currents and meter values; a hang is killed at the timeout.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import re
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from toolkit.core.errors import InputError
from toolkit.maps.netlist import Netlist

WORKER_DIED = "the ngspice worker died"
SYSDEPS_HINT = "ngspice is not installed; run `make sysdeps` (apt-get install -y ngspice libngspice0-dev)"
DEFAULT_TRAN = "tran 1u 10m uic"
DEFAULT_AC = "ac dec 20 1 1meg"


@dataclass
class SimResult:
    ok: bool
    engine: str
    ms: float
    error: str | None = None
    voltages: dict[str, float] = field(default_factory=dict)
    currents: dict[str, float] = field(default_factory=dict)
    meters: dict[str, float] = field(default_factory=dict)
    traces: dict[str, list[float]] = field(default_factory=dict)


def analysis_card(analysis: str) -> str:
    """`op`, `tran` or `ac` (with default sweep), or a full card such as `tran 1u 5m uic`."""
    words = analysis.split()
    if words[0] == "tran" and len(words) == 1:
        return "." + DEFAULT_TRAN
    if words[0] == "ac" and len(words) == 1:
        return "." + DEFAULT_AC
    return "." + analysis


def deck(net: Netlist, analysis: str = "op") -> str:
    """The netlist as a plain batch deck (no .control block) for the engines."""
    cards = [e.card() for e in net.elements]
    return "\n".join([net.title, *cards, analysis_card(analysis), ".end"]) + "\n"


def _meters(net: Netlist, voltages: dict[str, float], currents: dict[str, float]) -> dict[str, float]:
    out = {}
    for m in net.measures:
        nodes = [n.lower() for n in m.nodes]
        if m.expr.startswith("v("):
            out[m.name] = voltages.get(nodes[0], 0.0) - (voltages.get(nodes[1], 0.0) if len(nodes) > 1 else 0.0)
        else:
            out[m.name] = currents.get(nodes[0], float("nan"))
    return out


def _split(values: dict[str, list[float]]) -> tuple[dict, dict, dict]:
    """Vector name -> values into (node voltages, source currents, time/frequency traces)."""
    volts, amps, traces = {}, {}, {}
    for name, vec in values.items():
        key = name.lower()
        m = re.fullmatch(r"v\((.+)\)", key)
        if m:
            volts[m.group(1)] = vec
            continue
        m = re.fullmatch(r"i\((.+)\)", key) or re.fullmatch(r"(.+)#branch", key)
        if m:
            amps[m.group(1)] = vec
            continue
        if key in ("time", "frequency"):
            traces[key] = vec
        else:
            volts[key] = vec
    return volts, amps, traces


def _result(net: Netlist, engine: str, ms: float, values: dict[str, list[float]], analysis: str) -> SimResult:
    volts, amps, traces = _split(values)
    if analysis.split()[0] == "op":
        v = {k: float(x[0]) for k, x in volts.items()}
        a = {k: float(x[0]) for k, x in amps.items()}
        v["0"] = 0.0
        return SimResult(True, engine, ms, voltages=v, currents=a, meters=_meters(net, v, a))
    traces.update({f"v({k})": list(map(float, x)) for k, x in volts.items()})
    traces.update({f"i({k})": list(map(float, x)) for k, x in amps.items()})
    return SimResult(True, engine, ms, traces=traces)


# ---- ngspice -b subprocess -------------------------------------------------------------------------

def ngspice_binary() -> str:
    path = shutil.which("ngspice")
    if path is None:
        raise InputError(SYSDEPS_HINT)
    return path


def run_subprocess(net: Netlist, analysis: str = "op", timeout: float = 5.0) -> SimResult:
    from spicelib import RawRead

    binary = ngspice_binary()
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="maps-sim-") as tmp:
        cir, raw = os.path.join(tmp, "c.cir"), os.path.join(tmp, "c.raw")
        with open(cir, "w") as fh:
            fh.write(deck(net, analysis))
        try:
            proc = subprocess.run([binary, "-b", "-r", raw, cir], capture_output=True, text=True,
                                  timeout=timeout, cwd=tmp)
        except subprocess.TimeoutExpired:
            return SimResult(False, "ngspice", (time.perf_counter() - start) * 1e3, error=f"timeout after {timeout}s")
        ms = (time.perf_counter() - start) * 1e3
        problem = _ngspice_error(proc.stdout + proc.stderr)
        if problem or not os.path.exists(raw) or os.path.getsize(raw) == 0:
            return SimResult(False, "ngspice", ms, error=problem or "ngspice wrote no results")
        data = RawRead(raw, dialect="ngspice", verbose=False)
        values = {}
        for name in data.get_trace_names():
            wave = data.get_trace(name).get_wave(0)
            values[name] = [abs(x) if isinstance(x, complex) else float(x) for x in wave]
    return _result(net, "ngspice", ms, values, analysis)


def _ngspice_error(text: str) -> str | None:
    """The first line that says the run failed (a singular matrix counts even where ngspice warns)."""
    for line in text.splitlines():
        low = line.lower()
        if "singular matrix" in low or ("error" in low and "warning" not in low) or "no such" in low:
            return " ".join(line.split())[:200]
    return None


# ---- PySpice shared library in a worker process ------------------------------------------------------

def _worker(conn) -> None:
    import logging

    logging.disable(logging.CRITICAL)  # PySpice warns that it does not know ngspice 39
    # when the shared library corrupts its heap, glibc aborts the child with a message on fd 2; the parent
    # answers from `ngspice -b` instead, so the user's terminal should not show it (errors travel through conn)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
    from PySpice.Spice.NgSpice.Shared import NgSpiceShared

    ng = NgSpiceShared.new_instance()
    while True:
        job = conn.recv()
        if job is None:
            return
        text = job
        try:
            ng.destroy()
            ng.clear_output()
            ng.load_circuit(text)
            ng.run()
            plot = ng.plot(None, ng.last_plot)
            problem = _ngspice_error("\n".join(ng._stdout + ng._stderr))
            values = {name: [abs(x) if isinstance(x, complex) else float(x) for x in vec._data]
                      for name, vec in plot.items()}
            if problem or not values or ng.last_plot == "const":
                conn.send(("error", problem or "ngspice produced no results"))
            else:
                conn.send(("ok", values))
        except Exception as exc:  # the engine reports every failure this way; the run goes on
            conn.send(("error", " ".join(str(exc).split())[:200] or type(exc).__name__))


class PySpiceEngine:
    """One NgSpiceShared in a child process; a job past the timeout kills the child (a fresh one follows)."""

    def __init__(self) -> None:
        self.proc = None
        self.conn = None

    def _start(self) -> None:
        ngspice_binary()
        from toolkit.core.extras import require

        require("circuit", "PySpice")
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_worker, args=(child,), daemon=True)
        self.proc.start()

    def run(self, net: Netlist, analysis: str = "op", timeout: float = 5.0) -> SimResult:
        if self.proc is None or not self.proc.is_alive():
            self._start()
        start = time.perf_counter()
        self.conn.send(deck(net, analysis))
        if not self.conn.poll(timeout + (10.0 if self._cold() else 0.0)):
            self.close(kill=True)
            return SimResult(False, "pyspice", (time.perf_counter() - start) * 1e3, error=f"timeout after {timeout}s")
        self._warm = True
        try:
            status, payload = self.conn.recv()
        except (EOFError, OSError):
            self.close(kill=True)
            status, payload = "error", WORKER_DIED
        ms = (time.perf_counter() - start) * 1e3
        if status != "ok":
            return SimResult(False, "pyspice", ms, error=payload)
        return _result(net, "pyspice", ms, payload, analysis)

    def _cold(self) -> bool:
        return not getattr(self, "_warm", False)

    def close(self, kill: bool = False) -> None:
        if self.proc is None:
            return
        if kill:
            self.proc.kill()
        else:
            try:
                self.conn.send(None)
            except OSError:
                pass
            self.proc.join(timeout=2)
            if self.proc.is_alive():
                self.proc.kill()
        self.proc.join(timeout=2)
        self.proc, self.conn, self._warm = None, None, False


class Simulator:
    """`engine` is 'pyspice' or 'ngspice'; use as a context manager so the worker ends with it."""

    def __init__(self, engine: str = "pyspice", timeout: float = 5.0) -> None:
        if engine not in ("pyspice", "ngspice"):
            raise ValueError(f"unknown engine {engine!r}")
        self.engine, self.timeout = engine, timeout
        self._py = PySpiceEngine() if engine == "pyspice" else None

    def run(self, net: Netlist, analysis: str = "op") -> SimResult:
        if self._py is not None:
            result = self._py.run(net, analysis, self.timeout)
            if result.error != WORKER_DIED:
                return result
            # the shared library sometimes corrupts its heap on a deck that `ngspice -b` solves: ask the binary
            fallback = run_subprocess(net, analysis, self.timeout)
            fallback.engine = "pyspice->ngspice"
            return fallback
        return run_subprocess(net, analysis, self.timeout)

    def close(self) -> None:
        if self._py is not None:
            self._py.close()

    def __enter__(self) -> Simulator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
