# make demo / make test bootstrap a local virtual environment when it is missing,
# install the package with what the target needs, then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
SHARED_DATA := $(abspath ../shared/datasets)
ifeq ($(origin MARGINCLUST_DATA), undefined)
ifneq ($(wildcard $(SHARED_DATA)),)
export MARGINCLUST_DATA := $(SHARED_DATA)
endif
endif
# One BLAS thread per process: pytest runs two workers on two cores.
THREADS := OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1

.PHONY: demo test test-blas test-long lint bench bench-speed docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[plot]"
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[test,plot,bench,qp,docs,dask]"
	touch $@

demo: $(VENV)/.installed-demo
	$(THREADS) $(BIN)/marginclust demo --out demo-output

test: $(VENV)/.installed-test
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/mypy
	$(THREADS) $(BIN)/python -m pytest -n 2 -q
	$(MAKE) --no-print-directory test-blas

# The numerical tests again under a second OpenBLAS core type (other kernels, another
# summation order): a test that holds only for this CPU's rounding fails here, not on a
# user's machine. Sandybridge kernels (no FMA) differ most from today's FMA CPUs; on a
# machine whose own kernels are Sandybridge's, Haswell's are used instead.
NUMERIC_TESTS := tests/estimators tests/solvers tests/objectives tests/feature_maps tests/starts \
	tests/dask tests/properties tests/test_parallel_restarts.py
test-blas: $(VENV)/.installed-test
	@native=$$($(BIN)/python -c "import numpy, threadpoolctl; \
	print(next((i.get('architecture') or '' for i in threadpoolctl.threadpool_info() \
	if i['internal_api'] == 'openblas'), ''))"); \
	second=Sandybridge; [ "$$native" = Sandybridge ] && second=Haswell; \
	echo "numerical tests under OPENBLAS_CORETYPE=$$second (this CPU: $${native:-unknown})"; \
	OPENBLAS_CORETYPE=$$second $(THREADS) $(BIN)/python -m pytest -n 2 -q \
		$(NUMERIC_TESTS)

# The documentation site (Sphinx + numpydoc + sphinx-gallery); warnings are errors.
$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	touch $@

docs: $(VENV)/.installed-docs
	$(THREADS) MPLBACKEND=Agg $(BIN)/python -m sphinx -b html -W --keep-going docs docs/_build/html
	@echo "Open docs/_build/html/index.html"

# Nightly-style property run: many generated problems per property.
test-long: $(VENV)/.installed-test
	$(THREADS) MARGINCLUST_HYPOTHESIS_PROFILE=long $(BIN)/python -m pytest -n 2 -q tests/properties

bench: $(VENV)/.installed-test
	$(THREADS) $(BIN)/marginclust bench --all --quick --out bench-results

# Every speed ratio against its peer (1 and 2 BLAS threads, set by each
# script with threadpoolctl) in one table; 6-8 minutes on a quiet machine, not part
# of make test. Extra arguments: make bench-speed BENCH_SPEED_ARGS="--only fcm pkm".
bench-speed: $(VENV)/.installed-test
	$(BIN)/python benchmarks/bench_speed.py --log-dir bench-results/speed $(BENCH_SPEED_ARGS)

clean:
	rm -rf $(VENV) build dist src/*.egg-info demo-output bench-results \
		docs/_build docs/generated docs/auto_examples docs/api.rst
