# regosph: the two commands of the README, and a few more.
#   make run    bootstrap, build, run the soil-collapse validation at the paper's resolution
#   make test   bootstrap, build, run every test (C++ unit, MPI, Python), then `make sanitize`
#               (whose build overlaps the tests)
#   make install [PREFIX=/usr/local]  the package and the `regosph` command (docs/install.md)
#   make docs   the documentation site into build/docs/html (open build/docs/html/index.html)
#   make sanitize  ASan+UBSan build in build-asan: the C++ unit tests and two short collapses
#               (part of make test; most of its time is the compilation of a clean build-asan)
# Every script runs with Debian's interpreter: the python3 first on PATH may lack numpy & co.
PYTHON  := /usr/bin/python3
BUILD   := build
JOBS    ?= 2
THREADS ?= 2
REPEAT  ?= 3
RUN_DIR ?= runs/soil_collapse
ENV     := PYTHONPATH=$(CURDIR)/$(BUILD)/python OMP_NUM_THREADS=$(THREADS) \
           OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

.PHONY: all bootstrap configure build build-python run test install docs sanitize sanitize-build sanitize-run bench bench-collapse bench-sampler bench-rings bench-blocks3d bench-machine bench-mpi clean

all: build

bootstrap:
	@scripts/bootstrap.sh

configure: bootstrap
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DPython3_EXECUTABLE=$(PYTHON) > /dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# What `make run` needs: the Python package and its extension, not the C++ unit tests or the
# benchmarks.
build-python: configure
	@cmake --build $(BUILD) -j $(JOBS) --target _core

run: build-python
	$(ENV) $(PYTHON) validation/soil_collapse/run.py --output $(RUN_DIR) --overwrite

# The tests run two at a time (the longest Python files first); meanwhile the sanitizer
# build compiles at the lowest priority, on what CPU time the tests leave idle (its log is shown
# only if it fails), and its tests run after them.
test: build
	@start=$$(date +%s); \
	nice -n 19 $(MAKE) --no-print-directory sanitize-build > $(BUILD)/sanitize-build.log 2>&1 & \
	san=$$!; \
	(cd $(BUILD) && $(ENV) ctest --output-on-failure -j 2); status=$$?; \
	tests=$$(date +%s); \
	if ! wait $$san; then cat $(BUILD)/sanitize-build.log; echo "sanitize: FAILED: the build"; exit 1; fi; \
	echo "make test: the tests took $$((tests - start)) s; the sanitizer's build ended $$(($$(date +%s) - tests)) s after them"; \
	[ $$status -eq 0 ] || exit $$status
	@$(MAKE) --no-print-directory sanitize-run

docs: build-python
	$(ENV) $(PYTHON) -m sphinx -W --keep-going -q -b html -d $(BUILD)/docs/doctrees docs $(BUILD)/docs/html
	@echo "docs: $(BUILD)/docs/html/index.html"

# The package and its extension into PREFIX/lib/python3.X/dist-packages (on Debian's sys.path for
# /usr/local) and the `regosph` command into PREFIX/bin (docs/install.md).
PREFIX ?= /usr/local
install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# AddressSanitizer + UndefinedBehaviorSanitizer (-O0 -g1) in its own build directory: the C++
# unit tests, then two short, coarse soil collapses through the sanitized Python extension (the
# default, and mu(I) under the Riemann solver and SSP-RK3: SAN_RK3). Only the
# two targets the run needs are built. -O0: the sanitizers see the same memory accesses and
# operations as with optimisation, and the build, most of make test's time after its other
# tests, takes ~610 CPU-s against ~800 at -O1 (each pair-loop unit, 80 shapes per dimension:
# 91 CPU-s against 230), for ~40 CPU-s more in its runs. -g1 (line tables only) is what the
# reports' file:line stack traces need; full -g took twice as long to compile
# (src/sph/simulation.cpp: 50 s against 25 s) for variable information a sanitizer report does
# not use. Python is not instrumented, so libasan is preloaded, and leak detection is off for it
# (the interpreter keeps its objects to the end by design). libstdc++ is preloaded too:
# otherwise ASan's __cxa_throw interceptor finds no real __cxa_throw (python3 does not link
# libstdc++) and the first C++ exception thrown into Python aborts with "CHECK failed:
# asan_interceptors.cpp". Each collapse may exit 1 (0.05 s does not match the experiment) but
# must get as far as its report; any other status, a missing report.json (an exception, a
# failed import) or any sanitizer report fails the target. Its output is shown only then: its
# verdict at 0.05 s ("result: FAIL") is not the verdict of make test. The unit tests run as two
# processes side by side, since most of their time is one thread's: the two longest cases (a 1D
# wave through 12 480 particles and the thread-count comparison, about half of the unit tests'
# time under the sanitizers) followed by the collapse, and every other case.
SAN_BUILD := build-asan
SAN_ENV   := OMP_NUM_THREADS=$(THREADS) OMP_WAIT_POLICY=passive \
             UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
             OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
SAN_LONG_CASES := *1D elastic wave*,results do not depend on the thread count
SAN_REPORT := runtime error|AddressSanitizer|LeakSanitizer|ASan runtime
# The second collapse: mu(I) soil under the reconstructed Riemann solver, the limiter's floor,
# the density diffusion and SSP-RK3's three stages (the gradient pre-pass, the combined rates).
SAN_RK3   := --law MuIRheology --dissipation riemann --riemann-reconstruction \
             --riemann-limiter-floor 0.03 --density-diffusion 0.1 --time-scheme ssp_rk3
# The sanitized build targets AVX2 (x86-64-v3), not this CPU, where the CPU has AVX2: the main
# build takes the pair loop's AVX-512 branches on an AVX-512 machine, this one its AVX2
# branches, so that make test runs both. -Wno-psabi: GCC warns that the pair loop's 8-lane
# vectors are returned differently without AVX-512; every unit of this build has the same flags.
SAN_ARCH  := $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && echo -march=x86-64-v3)

sanitize: sanitize-build
	@$(MAKE) --no-print-directory sanitize-run

sanitize-build: bootstrap
	@cmake -S . -B $(SAN_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1" -DREGOSPH_SANITIZE=ON \
	  -DREGOSPH_NATIVE=$(if $(SAN_ARCH),OFF,ON) -DCMAKE_CXX_FLAGS="$(SAN_ARCH) -Wno-psabi" \
	  -DPython3_EXECUTABLE=$(PYTHON) > /dev/null
	@cmake --build $(SAN_BUILD) -j $(JOBS) --target unit_tests _core

sanitize-run:
	@echo "sanitize: C++ unit tests under ASan+UBSan, and two short soil collapses (spacing 1.0328e-2 m, 0.05 s: the default, and SAN_RK3's) with the sanitized extension"
	@tmp=$$(mktemp -d); \
	( $(SAN_ENV) ASAN_OPTIONS=detect_leaks=1 $(SAN_BUILD)/unit_tests --test-case="$(SAN_LONG_CASES)" \
	    > $$tmp/unit_long 2>&1; echo $$? > $$tmp/unit_long.status; \
	  $(SAN_ENV) ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libstdc++.so.6)" \
	    PYTHONPATH=$(CURDIR)/$(SAN_BUILD)/python $(PYTHON) validation/soil_collapse/run.py \
	    --spacing 1.0328e-2 --end-time 0.05 --output $$tmp/run --overwrite \
	    > $$tmp/stdout 2> $$tmp/stderr; echo $$? > $$tmp/collapse.status; \
	  $(SAN_ENV) ASAN_OPTIONS=detect_leaks=0 LD_PRELOAD="$$(g++ -print-file-name=libasan.so) $$(g++ -print-file-name=libstdc++.so.6)" \
	    PYTHONPATH=$(CURDIR)/$(SAN_BUILD)/python $(PYTHON) validation/soil_collapse/run.py \
	    --spacing 1.0328e-2 --end-time 0.05 --output $$tmp/run_rk3 --overwrite $(SAN_RK3) \
	    > $$tmp/stdout_rk3 2> $$tmp/stderr_rk3; echo $$? > $$tmp/collapse_rk3.status ) & \
	$(SAN_ENV) ASAN_OPTIONS=detect_leaks=1 $(SAN_BUILD)/unit_tests --test-case-exclude="$(SAN_LONG_CASES)" \
	  > $$tmp/unit_rest 2>&1; echo $$? > $$tmp/unit_rest.status; \
	wait; \
	for part in unit_rest unit_long; do \
	  status=$$(cat $$tmp/$$part.status); cat $$tmp/$$part; \
	  if [ $$status -ne 0 ] || grep -qE "$(SAN_REPORT)" $$tmp/$$part; then rm -rf $$tmp; \
	    echo "sanitize: FAILED: unit tests ($$part: status $$status or a sanitizer report)"; exit 1; fi; \
	done; \
	for run in "" _rk3; do \
	  status=$$(cat $$tmp/collapse$$run.status); \
	  if [ $$status -gt 1 ] || [ ! -f $$tmp/run$$run/report.json ] || grep -qE "$(SAN_REPORT)" $$tmp/stderr$$run; then \
	    tail -n 20 $$tmp/stdout$$run; cat $$tmp/stderr$$run; rm -rf $$tmp; \
	    echo "sanitize: FAILED: collapse$$run (status $$status, no report, or a sanitizer report)"; exit 1; fi; \
	done; \
	rm -rf $$tmp; echo "sanitize: ok (both collapses reached their reports, exit status 0 or 1 accepted)"

# bench: one table of every speed case on 1 and $(THREADS) threads, the medians of $(REPEAT)
# rounds (bench/bench_table.py, load average and machine_probe included; `make bench REPEAT=1`
# for a quick look);
# bench-collapse / bench-sampler / bench-rings / bench-blocks3d / bench-mpi run one benchmark
# with its full output. No OMP_WAIT_POLICY here: the package sets its
# hybrid waiting itself (python/regosph/__init__.py).
bench: build-python
	@cmake --build $(BUILD) -j $(JOBS) --target machine_probe
	$(ENV) $(PYTHON) bench/bench_table.py --threads $(THREADS) --repeat $(REPEAT)

bench-collapse: build-python
	$(ENV) $(PYTHON) bench/collapse_bench.py

bench-sampler: build-python
	$(ENV) $(PYTHON) bench/sampler_bench.py

# Colliding rubber rings, regosph next to PySPH (python3-pysph) on the same $(THREADS) threads.
bench-rings: build-python
	$(ENV) $(PYTHON) bench/rings_bench.py

# Colliding elastic cubes in 3D next to PySPH (../shared/peers/pysph_blocks3d.py).
bench-blocks3d: build-python
	$(ENV) $(PYTHON) bench/blocks3d_bench.py

# What one and two threads of this machine deliver, and what passing data between its cores
# costs (bench/machine_probe.cpp; the waiting policy is the one the Python package sets).
bench-machine: build-python
	@cmake --build $(BUILD) -j $(JOBS) --target machine_probe
	$(ENV) $(PYTHON) bench/bench_table.py --probe-only --probe $(BUILD)/machine_probe

# MPI strong scaling (1 rank, 2 ranks, 1 rank x 2 threads) and halo traffic (bench/README.md).
bench-mpi: build
	$(ENV) $(PYTHON) bench/mpi_scaling.py

clean:
	rm -rf $(BUILD) $(SAN_BUILD)
