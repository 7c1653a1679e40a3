# The two set-up commands: `make demo` and `make test`. Both bootstrap first: `make demo`, `make build` and
# `make install` the runtime set (what the library and the CLI need), `make test` the test toolchain too
# (scripts/bootstrap.sh; `make bootstrap-plan` prints what it would install and changes nothing).
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?= -DCMAKE_BUILD_TYPE=RelWithDebInfo
PREFIX ?= /usr/local

.PHONY: all bootstrap bootstrap-test bootstrap-plan build build-tests demo test test-all test-asan test-asan-quick asan-build install wheel clean fuzz format format-check

all: build

bootstrap:
	@bash scripts/bootstrap.sh runtime

bootstrap-test:
	@bash scripts/bootstrap.sh test

bootstrap-plan:
	@bash scripts/bootstrap.sh test --dry-run

$(BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(BUILD) $(CMAKE_FLAGS) -DCMAKE_INSTALL_PREFIX=$(PREFIX)

build: bootstrap $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

demo: build
	@bash scripts/demo.sh $(BUILD)

# The tests are built when cmocka is there (CMakeLists.txt); after the test bootstrap it is, so configure with them.
build-tests: bootstrap-test $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DWGK_BUILD_TESTS=ON >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

# Two tiers (tests/util/tier.py, docs/testing.md): `make test` the quick tier, every test but those labelled
# `slow` (every unit test, each package's fast cases on the machine's adapter, the ONNX conformance data, the
# Python binding), 2 min of ctest on 2 cores (3 min 13 s with the build); `make test-all` every test with WGK_TIER=all, where a skip fails,
# then the sanitizer pass over the cmocka programs: what CI (.ci/run) runs.
test: build-tests
	python3 tests/util/tier.py quick $(BUILD) -j $(JOBS)

test-all: build-tests
	python3 tests/util/tier.py all $(BUILD) -j $(JOBS)
	$(MAKE) test-asan-quick

# ASan + UBSan build of the library and every test. Leak detection is on; tests/lsan.supp names the leaks
# inside Dawn and Mesa (nothing of ours). ctest gives each test these options too (tests/CMakeLists.txt).
SANITIZER_ENV = ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
asan-build: bootstrap-test
	cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DWGK_SANITIZE=ON
	cmake --build $(ASAN_BUILD) -j $(JOBS)

test-asan: asan-build
	cd $(ASAN_BUILD) && $(SANITIZER_ENV) ctest --output-on-failure -j $(JOBS)

# CI's sanitizer pass: every cmocka program (label "unit": the host unit tests and the C GPU tests on
# lavapipe) under ASan + UBSan + LSan.
test-asan-quick: asan-build
	cd $(ASAN_BUILD) && $(SANITIZER_ENV) WGK_TIER=all ctest --output-on-failure -j $(JOBS) -L unit

# PREFIX is honoured on every call, not only at the first configure: the build is re-configured with it (cheap:
# nothing compiled depends on the prefix) and installed there. The install is relocatable (README "Install").
# Then, when PREFIX's Python folder is not on python3's path, the line that puts it there (python/path_hint.py).
install: build
	cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX)
	cmake --install $(BUILD) --prefix $(PREFIX)
	@if command -v python3 >/dev/null; then python3 python/path_hint.py "$(PREFIX)"; fi

# The Python binding as one wheel (pyproject.toml): python/wgk, libwgk.so, Dawn's library and the shipped kernels,
# in dist/. `pip install --user dist/wgk-*.whl` installs it offline beside Debian's python3-numpy.
wheel: build
	python3 python/build_backend/wgk_wheel.py --build $(BUILD) --out dist

# The house style (.clang-format) over every tracked C file; clang-format comes with the test bootstrap. `make format`
# rewrites the files; `make format-check` (CI, .ci/run) changes nothing and fails naming each line that drifts.
C_SOURCES = git ls-files 'src/*.[ch]' 'include/*.h' 'tests/*.[ch]' 'examples/*.c' 'bench/*.[ch]' 'fuzz/*.[ch]' | grep -v corpus
format: bootstrap-test
	$(C_SOURCES) | xargs clang-format -i

format-check: bootstrap-test
	$(C_SOURCES) | xargs clang-format --dry-run --Werror

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
