# regosph: the two commands of the README, and a few more.
#   make run    bootstrap, build, run the soil-collapse validation at the paper's resolution
#   make test   bootstrap, build, run every test (C++ unit, MPI, Python)
# Every script runs with Debian's interpreter: the python3 first on PATH may lack numpy & co.
PYTHON  := /usr/bin/python3
BUILD   := build
JOBS    ?= 2
THREADS ?= 2
RUN_DIR ?= runs/soil_collapse
ENV     := PYTHONPATH=$(CURDIR)/$(BUILD)/python OMP_NUM_THREADS=$(THREADS) \
           OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

.PHONY: all bootstrap build run test bench clean

all: build

bootstrap:
	@scripts/bootstrap.sh

build: bootstrap
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=$(PYTHON) > /dev/null
	@cmake --build $(BUILD) -j $(JOBS)

run: build
	$(ENV) $(PYTHON) validation/soil_collapse/run.py --output $(RUN_DIR) --overwrite

test: build
	cd $(BUILD) && $(ENV) ctest --output-on-failure -j 1

bench: build
	$(ENV) $(PYTHON) bench/collapse_bench.py

clean:
	rm -rf $(BUILD)
