# Set-up is automatic: every target creates .venv (if absent) and installs what it needs.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
KERNELS := $(wildcard src/wayfinding/_kernels/*.pyx src/wayfinding/_kernels/*.pxd)

.PHONY: demo test test-all test-pythons dist docs bench lint clean

RECAST_ORACLE := tests/oracles/recast

# Recast itself (the npm WASM build) under node, the voxel navmesh build's live oracle; where
# node is absent its tests skip.
$(RECAST_ORACLE)/node_modules/.installed: $(RECAST_ORACLE)/package-lock.json
	if command -v npm >/dev/null; then cd $(RECAST_ORACLE) && npm ci --silent --no-audit \
		--no-fund && touch node_modules/.installed; \
	else echo "npm not found: the Recast oracle tests will skip"; fi

BROWSER_TESTS := tests/browser

# playwright-core (no browser download) drives Debian's Chromium in the playground's browser
# test; Chromium is installed where it is absent when running as root; without node or
# Chromium the test skips (fails under CI=true).
$(BROWSER_TESTS)/node_modules/.installed: $(BROWSER_TESTS)/package-lock.json
	if command -v npm >/dev/null; then cd $(BROWSER_TESTS) && npm ci --silent --no-audit \
		--no-fund && touch node_modules/.installed; \
	else echo "npm not found: the playground browser test will skip"; fi
	if [ ! -x /usr/bin/chromium ] && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; fi

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml setup.py $(KERNELS) | $(PY)
	$(PY) -m pip install --quiet -e '.[test,viz]'
	$(PY) -m pip install --quiet --no-deps pyrvo   # RVO2, the ORCA test oracle (its deps unused)
	touch $@

$(VENV)/.bench: $(VENV)/.installed
	$(PY) -m pip install --quiet -e '.[bench]'
	$(PY) -m pip install --quiet --no-deps jupedsim   # its declared deps pull a 1 GB viewer
	touch $@

# An extra's tools alone, e.g. .venv/.extra-docs (the package itself stays as installed).
.PRECIOUS: $(VENV)/.extra-%
$(VENV)/.extra-%: $(VENV)/.installed
	$(PY) -c "import subprocess, sys, tomllib; extra = tomllib.load(open('pyproject.toml', 'rb'))\
		['project']['optional-dependencies']['$*']; \
		subprocess.check_call([sys.executable, '-m', 'pip', 'install', '--quiet', *extra])"
	touch $@

demo: $(VENV)/.installed
	$(VENV)/bin/wayfinding demo --out wayfinding-demo

lint: $(VENV)/.installed
	$(VENV)/bin/ruff check src tests benchmarks tools examples docs setup.py
	$(VENV)/bin/mypy

# One worker per core (at most 8, each holds the whole collection); tests keep no shared state.
test: lint
	$(PY) -m pytest -n auto --maxprocesses 8 --dist worksteal

test-all: lint $(RECAST_ORACLE)/node_modules/.installed $(BROWSER_TESTS)/node_modules/.installed docs
	HYPOTHESIS_PROFILE=explore $(PY) -m pytest -m "slow or not slow"
	$(VENV)/bin/sphinx-build -W --keep-going -q -b linkcheck docs docs/_build/linkcheck
	$(MAKE) test-pythons

# The documentation site (Sphinx; warnings are errors) into docs/_build/html.
docs: $(VENV)/.extra-docs
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

# sdist + repaired, stripped wheel; checks; the suite against the installed wheel (tools/dist.py).
dist: $(VENV)/.extra-dist
	$(PY) tools/dist.py --out dist

# The oldest and newest supported Pythons, each through its own wheel and fresh venv, where the
# interpreter is on PATH or under pyenv (the first that runs: a pyenv shim on PATH fails for a
# version that is installed but not selected).
test-pythons: $(VENV)/.extra-dist
	for v in 3.10 3.13; do \
		py=$$(for c in $$(command -v python$$v) $$(ls $${PYENV_ROOT:-$$HOME/.pyenv}/versions/$$v*/bin/python$$v 2>/dev/null | tail -1); do \
			if "$$c" -c "" 2>/dev/null; then echo "$$c"; break; fi; done); \
		if [ -n "$$py" ]; then $(PY) tools/dist.py --python $$py --out dist/py$$v || exit 1; \
		else echo "Python $$v not found (on PATH or under pyenv): not tested"; fi; \
	done

bench: $(VENV)/.bench $(RECAST_ORACLE)/node_modules/.installed
	$(PY) benchmarks/grid_astar.py --out BENCHMARKS.md
	$(PY) benchmarks/fast_search.py --out BENCHMARKS.md
	$(PY) benchmarks/online_jps.py --out BENCHMARKS.md
	$(PY) benchmarks/goal_bounds_build.py --out BENCHMARKS.md
	$(PY) benchmarks/dask_speedup.py --out BENCHMARKS.md
	$(PY) benchmarks/hierarchical.py --out BENCHMARKS.md
	$(PY) benchmarks/tables.py --out BENCHMARKS.md
	$(PY) benchmarks/navmesh.py --out BENCHMARKS.md
	$(PY) benchmarks/navmesh_routes.py --out BENCHMARKS.md
	$(PY) benchmarks/wavefront.py --out BENCHMARKS.md
	$(PY) benchmarks/anyangle.py --out BENCHMARKS.md
	$(PY) benchmarks/hybrid_astar.py --out BENCHMARKS.md
	$(PY) benchmarks/hull_steering.py --out BENCHMARKS.md
	$(PY) benchmarks/dynamic.py --out BENCHMARKS.md
	$(PY) benchmarks/fields.py --out BENCHMARKS.md
	$(PY) benchmarks/crowd.py --out BENCHMARKS.md
	$(PY) benchmarks/crowd_models.py --out BENCHMARKS.md
	$(PY) benchmarks/groups.py --out BENCHMARKS.md
	$(PY) benchmarks/climbing.py --out BENCHMARKS.md
	$(PY) benchmarks/traffic.py --out BENCHMARKS.md
	$(PY) benchmarks/movement_planning.py --out BENCHMARKS.md
	$(PY) benchmarks/locomotion.py --out BENCHMARKS.md
	$(PY) benchmarks/motion_models.py --out BENCHMARKS.md
	$(PY) benchmarks/footsteps.py --out BENCHMARKS.md
	$(PY) benchmarks/multidomain.py --out BENCHMARKS.md
	$(PY) benchmarks/constraints.py --out BENCHMARKS.md
	$(PY) benchmarks/navmesh3d.py --out BENCHMARKS.md
	$(PY) benchmarks/tilecache.py --out BENCHMARKS.md
	$(PY) benchmarks/crowd3d.py --out BENCHMARKS.md
	$(PY) benchmarks/voxel.py --out BENCHMARKS.md
	$(PY) benchmarks/serve_load.py --out BENCHMARKS.md

clean:
	rm -rf build dist $(VENV) src/*.egg-info src/wayfinding/_kernels/*.c src/wayfinding/_kernels/*.so
