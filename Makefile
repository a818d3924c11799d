# Thin wrapper over CMake: the two set-up commands of the README.
#   make run   — install what is missing, build, run config/default.yaml
#   make test  — install what is missing, build (gcc and clang+ASan/UBSan), run CTest
#                (the clang build also runs each libFuzzer target for 20 s)
#   make deb   — the Debian package (docs/deploy.md)
DEBS := cmake gcc clang make pkg-config ocl-icd-opencl-dev opencl-c-headers \
        pocl-opencl-icd libyaml-dev libcmocka-dev clinfo gnuplot-nox
BUILD ?= build
ASAN_BUILD ?= build-asan
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
CONFIG ?= config/default.yaml

.PHONY: all deps build build-asan run test lint clean deb

all: build

deps:
	@missing=""; for p in $(DEBS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "rtmgr: installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing || exit 1; \
	  else \
	    echo "rtmgr: missing Debian packages. Run as root:"; \
	    echo "  apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

build: deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build $(BUILD) -j $(JOBS)

build-asan: deps
	CC=clang cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DRTMGR_SANITIZE=ON -DRTMGR_FUZZ=ON >/dev/null
	cmake --build $(ASAN_BUILD) -j $(JOBS)

# The board profile of the default task set: calibrated (--quick) when this computer's
# devices, drivers or cores are not the ones it describes.
BOARD ?= board/pocl-cpu.yaml
# `make run DURATION=10` stops after 10 s; without it rtmgr runs until Ctrl-C / SIGTERM.
DURATION ?=

run: build
	@./$(BUILD)/rtmgr calibrate --check -b $(BOARD) --quiet 2>/dev/null || \
	  ./$(BUILD)/rtmgr calibrate --quick -o $(BOARD)
	./$(BUILD)/rtmgr run -c $(CONFIG) $(if $(DURATION),--duration $(DURATION))

test: build build-asan
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=0 ctest --output-on-failure -j $(JOBS)

# The Debian package (board/deploy.cmake): build/packages/rtmgr_VERSION_ARCH.deb
deb: build
	cd $(BUILD) && cpack -G DEB
	@ls -1 $(BUILD)/packages/*.deb

# Static analysis: clang-tidy (checks in .clang-tidy) and cppcheck, both must be clean.
lint: build
	clang-tidy -p $(BUILD) --quiet rtmgr/*.c kernels/*.c board/hil/*.c board/cltime/*.c
	cppcheck --quiet --error-exitcode=1 --enable=warning,style,performance,portability \
	  --inline-suppr --suppress=missingIncludeSystem --std=c11 -I . -I rtmgr \
	  -DRTM_VERSION='"0"' -DRTM_SOURCE_KERNEL_DIR='"."' -DRTM_INSTALL_KERNEL_DIR='"."' rtmgr kernels/*.c board/hil/*.c board/cltime/*.c

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)
