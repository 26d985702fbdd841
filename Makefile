# Everything runs from the project's own virtual environment in .venv.
# torch is installed first, from TORCH (a pip spec) and TORCH_INDEX (pip options saying where to find it), so
# the extras never make pip pick a torch build of its own. `torch==2.13.0` is a CPU build only where pip finds a
# CPU wheel first (a find-links folder or index that holds it); from PyPI alone Linux gets a CUDA build.
#   CPU anywhere: make install TORCH_INDEX="--index-url https://download.pytorch.org/whl/cpu"
#   CUDA 12.6:    make install TORCH_INDEX="--index-url https://download.pytorch.org/whl/cu126"
#   other torch:  make install TORCH="torch==2.8.0"   (any torch>=2.4 works)
PYTHON ?= python3
VENV ?= .venv
TORCH ?= torch==2.13.0
TORCH_INDEX ?=
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PYTHONHASHSEED := 0
.PHONY: install test bench lint demo clean sysdeps dist wheel-smoke

# Debian packages some systems need (one line per system; `make sysdeps` installs them as root).
SYSDEPS += ngspice libngspice0-dev
SYSDEPS += chromium chromium-driver
SYSDEPS += tesseract-ocr tesseract-ocr-eng
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH_INDEX) "$(TORCH)"
	$(BIN)/pip install -q -e ".[all,dev]"
	touch $(STAMP)

test: $(STAMP) sysdeps
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

# Release artifacts: the sdist and, built from it, the wheel (which carries assets/ as the reason_assets package).
dist: $(STAMP)
	rm -rf dist
	$(BIN)/python -m build --outdir dist .

# The wheel installed in a fresh virtual environment outside the checkout, without extras and with [all].
wheel-smoke: dist
	TORCH="$(TORCH)" bash .ci/wheel-smoke dist
