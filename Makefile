# Front door. Needs only cargo, Python >= 3.11 and pip; everything else goes into .venv.
#   make demo   install, then reproduce CHOKe's Fig. 3 beside the paper's numbers
#   make test   install, then the gates (make lint), the Rust core tests and the Python tests, and build the docs
#   make lint   the gates: formatting, clippy, ruff, mypy, and the stubs against the built module
#   make format format Rust and Python code and apply ruff's safe fixes (what the gates ask for)
#   make docs   build the documentation site into site/ (warnings are errors)
#   make fuzz   the fuzz targets (scenario parser, random scenarios, every discipline), FUZZ_SECS each
#   make long-run  peak memory of runs of 1e6, 1e7 and 1e8 events (it must not grow)

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
VENV_PYTHON := $(VENV)/bin/python
# Written after a successful install; Rust or packaging changes make it stale and trigger a rebuild.
# (Python sources need no reinstall: the install is editable.)
INSTALLED := $(VENV)/.installed
BUILD_INPUTS := pyproject.toml Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: venv install demo test lint format docs bench bench-peers fuzz long-run

venv: $(VENV_PYTHON)

$(VENV_PYTHON):
	@test -n "$(PYTHON)" || { echo "error: no python3.11 or python3 on PATH" >&2; exit 1; }
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' || \
		{ echo "error: $(PYTHON) is older than Python 3.11; run make PYTHON=/path/to/python3.11" >&2; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(VENV_PYTHON) -m pip install --upgrade pip
	$(VENV_PYTHON) -m pip install maturin

install: $(INSTALLED)

# Editable install: maturin builds aqmlab._core with the release profile set in pyproject.toml.
# No build isolation, so the maturin in .venv builds it and rebuilds work offline; maturin's
# build backend runs the `maturin` program it finds on PATH.
$(INSTALLED): $(VENV_PYTHON) $(BUILD_INPUTS)
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" $(VENV_PYTHON) -m pip install --no-build-isolation -e '.[test]'
	@touch $@

# The main job: CHOKe's Fig. 3 rebuilt beside the paper's numbers (5 seeds; reproductions/ holds the files).
demo: install
	$(VENV)/bin/aqmlab reproduce choke-2000-fig3 --out reproductions

test: install lint
	cargo test -p aqmlab-core --release
	$(VENV_PYTHON) -m pytest -q tests
	$(MAKE) --no-print-directory docs

# docs: the site (mkdocs.yml), strict: a broken link, a missing page or a docstring that does not
# render fails the build. The scenario reference and the CLI pages are generated at build time.
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --quiet --site-dir site

# The gates, cheapest first. rustfmt and clippy are rustup components; ruff and mypy come pinned
# with the `test` extra. Clippy checks the binding against the venv's Python (PYO3_PYTHON).
PY_SOURCES := python tests benches docs
RUST_COMPONENTS_HINT := install them with: rustup component add rustfmt clippy

lint: install
	@cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1 || \
		{ echo "error: make lint needs cargo fmt and cargo clippy; $(RUST_COMPONENTS_HINT)" >&2; exit 1; }
	cargo fmt --all --check
	$(VENV)/bin/ruff format --check $(PY_SOURCES)
	$(VENV)/bin/ruff check $(PY_SOURCES)
	PYO3_PYTHON="$(CURDIR)/$(VENV_PYTHON)" cargo clippy --workspace --all-targets -- -D warnings
	$(VENV)/bin/mypy
	$(VENV_PYTHON) -m mypy.stubtest aqmlab._core

format: install
	cargo fmt --all
	$(VENV)/bin/ruff check --fix $(PY_SOURCES)
	$(VENV)/bin/ruff format $(PY_SOURCES)

# fuzz: the #[ignore]d fuzz targets, each for FUZZ_SECS seconds, built with debug assertions and
# overflow checks (the `fuzz` profile); FUZZ_SEED repeats a run (default: the clock, printed).
# Memory is capped so that a runaway allocation fails at once; the case being run is in
# target/fuzz-findings/*.current, failing inputs beside it. Found cases belong in
# tests/fuzz_regressions/ (scenarios) or the REGRESSIONS of src/qdisc/conformance.rs.
FUZZ_SECS ?= 60
FUZZ_SEED ?=
FUZZ_MEMORY_KB ?= 16000000
FUZZ_ENV = AQMLAB_FUZZ_SECS=$(FUZZ_SECS) $(if $(FUZZ_SEED),AQMLAB_FUZZ_SEED=$(FUZZ_SEED))

fuzz:
	ulimit -v $(FUZZ_MEMORY_KB) && $(FUZZ_ENV) cargo test --profile fuzz -p aqmlab-core --lib -- --ignored --nocapture fuzz_
	ulimit -v $(FUZZ_MEMORY_KB) && $(FUZZ_ENV) cargo test --profile fuzz -p aqmlab-core --test core -- --ignored --nocapture fuzz::

# long-run: a run of 1e8+ events (and of 1e6 and 1e7) through the Python API, each in its own
# process; prints the peak resident memory of each, which must not grow with simulated time.
long-run: install
	$(VENV_PYTHON) benches/long_run.py

# bench: aqmlab's own harness, then the side-by-side with ns-3 (benches/peers/) when ns-3 can be
# installed; bench-peers only sets ns-3 up (a PyPI wheel in benches/peers/.venv-ns3 and a C++
# program built against it). BENCH_PEERS_ARGS goes to compare.py, e.g. BENCH_PEERS_ARGS="s1 s2".
BENCH_PEERS_ARGS ?= --max-flows 3000

bench: install
	@test -f benches/run.py || { echo "error: benches/run.py does not exist yet" >&2; exit 1; }
	$(VENV_PYTHON) benches/run.py
	$(VENV_PYTHON) benches/sweep_storage.py
	@if PYTHON="$(PYTHON)" sh benches/peers/setup-ns3.sh >/dev/null; then \
		echo "$(VENV_PYTHON) benches/peers/compare.py $(BENCH_PEERS_ARGS)"; \
		$(VENV_PYTHON) benches/peers/compare.py $(BENCH_PEERS_ARGS); \
	else \
		echo "bench: ns-3 could not be set up (make bench-peers shows why); skipped the comparison with ns-3" >&2; \
	fi

bench-peers:
	PYTHON="$(PYTHON)" sh benches/peers/setup-ns3.sh
