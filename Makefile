# Everything runs from the project's own virtual environment in .venv.
# GPU users: make install TORCH=torch   (or any pip spec of a CUDA build of torch)
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PYTHONHASHSEED := 0
.PHONY: install test bench lint demo clean sysdeps

# Debian packages some systems need (one line per system; `make sysdeps` installs them as root).
SYSDEPS += ngspice libngspice0-dev
SYSDEPS += chromium chromium-driver
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH)
	$(BIN)/pip install -q -e ".[all,dev]"
	touch $(STAMP)

test: $(STAMP)
	OMP_NUM_THREADS=1 $(BIN)/python -m pytest -n 2 --dist loadfile tests

bench: $(STAMP)
	mkdir -p bench-results
	@set -e; for f in tests/bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f; done

lint: $(STAMP)
	$(BIN)/ruff check cli toolkit tests

demo: $(STAMP)
	$(BIN)/reason failgen --task stack --out runs/stack --force

clean:
	rm -rf $(VENV) bench-results .pytest_cache

sysdeps:
	@missing=$$(for p in $(SYSDEPS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -z "$$missing" ]; then echo "system packages present: $(SYSDEPS)"; \
	elif [ "$$(id -u)" = 0 ] || command -v sudo >/dev/null; then echo "installing: $$missing"; \
	  $(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	else echo "missing system packages; as root run: apt-get install -y $$missing"; fi
