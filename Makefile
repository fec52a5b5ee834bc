# SPDX-License-Identifier: GPL-2.0-or-later
# The two set-up commands: `make demo` and `make check`. Both install the
# Debian packages that are missing, configure with meson and build.

BUILD ?= build
ASAN_BUILD ?= build-asan
FUZZ_BUILD ?= build-fuzz
QEMU10 ?= $(BUILD)/qemu10
KERNELS ?= $(BUILD)/kernels

.PHONY: all deps build check demo bench clean qemu10 kernels fuzz fuzz-seeds

all: build

deps:
	@scripts/install-deps.sh

$(BUILD)/build.ninja:
	meson setup $(BUILD)

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)

$(ASAN_BUILD)/build.ninja:
	meson setup $(ASAN_BUILD) -Db_sanitize=address,undefined \
		-Db_lundef=false -Dguests=false -De2e=false

# QEMU 10.0 from bookworm-backports, unpacked into the build tree for the
# system-mode test; the system's apt sources are left alone. Outside CI a
# failed fetch (no network) only makes that test skip its 10.0 part.
qemu10:
	@scripts/fetch-qemu10.sh $(QEMU10) || [ "$$CI" != true ]

# Debian's own kernels (linux-image-amd64, linux-image-arm64) and
# busybox-static, unpacked into the build tree with a tiny initramfs for
# the kernel boot tests; nothing is installed. Outside CI a failed fetch
# only makes those tests skip.
kernels:
	@scripts/fetch-kernels.sh $(KERNELS) || [ "$$CI" != true ]

check: build qemu10 kernels $(ASAN_BUILD)/build.ninja
	ninja -C $(ASAN_BUILD)
	scripts/run-tests.sh $(BUILD) $(ASAN_BUILD)

demo: build
	scripts/demo.sh $(BUILD)

# Plain QEMU against each qtrace mode on the same guests; see
# docs/performance.md. ROUNDS=N for more rounds.
bench: build kernels
	python3 bench/bench.py $(BUILD) --rounds $(or $(ROUNDS),3)

# libFuzzer on every parser (tests/fuzz/, docs/testing.md), with clang:
# FUZZ_SECONDS=N per target (default 300), FUZZ_TARGETS="trace kv" for
# some. Corpora and findings stay in $(FUZZ_BUILD).
$(FUZZ_BUILD)/build.ninja:
	CC=clang meson setup $(FUZZ_BUILD) -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false \
		-Dguests=false -De2e=false

fuzz: deps $(FUZZ_BUILD)/build.ninja
	ninja -C $(FUZZ_BUILD) fuzz-targets
	scripts/fuzz.sh $(FUZZ_BUILD) $(FUZZ_TARGETS)

# New seeds from recorded guests, into $(BUILD)/fuzz-seeds (to pick from
# for tests/fuzz/seeds/).
fuzz-seeds: build
	scripts/fuzz-seeds.sh $(BUILD) $(BUILD)/fuzz-seeds

clean:
	rm -rf $(BUILD) $(ASAN_BUILD) $(FUZZ_BUILD)
