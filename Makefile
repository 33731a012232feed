# rigkit build, demo and test entry points. `make demo` and `make test` work on a fresh
# Debian machine with Go >= 1.24: they install the apt packages and Go modules they need.

GO        ?= go
BIN       := bin/rig
SAMPLE    ?= assets/samples/biped.glb
DEMO_OUT  ?= out/demo
# Debian packages the build and the tests need: OpenBLAS for the cpu engine (cgo),
# X11/GL headers for the viewer (cgo via go-gl), Xvfb + Mesa for headless GL tests,
# Node.js + npm (when missing) for the Khronos glTF validator.
APT_PKGS  := gcc pkg-config libopenblas-dev libgl1-mesa-dev libx11-dev libxcursor-dev \
             libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth \
             libgl1-mesa-dri
# Debian packages only the tests need: Chromium for the three.js check of animated
# files (tools/browser) and Blender 3.4 with numpy (its glTF importer needs it) for
# the Blender import check (tools/blender). `make demo` does without them.
TEST_APT_PKGS := chromium blender python3-numpy
SUDO      := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FUZZTIME  ?= 10000x

.PHONY: all deps test-deps go-check build rig-binary build-cuda demo test test-go test-viewer fuzz validator browser bench vet clean

all: build

go-check:
	@command -v $(GO) >/dev/null || { echo "rigkit needs Go >= 1.24 (https://go.dev/doc/install); Debian's golang-go is too old" >&2; exit 1; }
	@$(GO) version | awk '{split($$3,v,"."); sub("go","",v[1]); if (v[1]<1 || (v[1]==1 && v[2]<24)) { print "rigkit needs Go >= 1.24, found " $$3 > "/dev/stderr"; exit 1 }}'

# deps installs the missing Debian packages (once; dpkg tells what is there) and the Go modules.
deps: go-check
	@missing=""; for p in $(APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	command -v node >/dev/null || missing="$$missing nodejs"; command -v npm >/dev/null || missing="$$missing npm"; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	$(GO) mod download

# test-deps installs the Debian packages only the tests need (see TEST_APT_PKGS).
test-deps: deps
	@missing=""; for p in $(TEST_APT_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages for the tests:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# browser installs three.js and playwright-core (exact versions, package-lock.json)
# into tools/browser; the check drives Debian's chromium, no browser is downloaded.
browser:
	@if [ -f tools/browser/package.json ] && [ ! -d tools/browser/node_modules ]; then \
	  cd tools/browser && npm ci --no-audit --no-fund --loglevel=error; fi

validator:
	@if [ -f tools/validator/package.json ] && [ ! -d tools/validator/node_modules ]; then \
	  cd tools/validator && npm ci --no-audit --no-fund --loglevel=error; fi

build: deps
	@$(MAKE) --no-print-directory rig-binary

# rig-binary is the Go build of bin/rig alone, without installing anything: `make
# build` runs it after deps, and the Dockerfile runs it with GO_TAGS=noviewer (no
# OpenGL in a headless image) and the release in LDFLAGS (-X main.version=...).
GO_TAGS   ?=
LDFLAGS   ?=
rig-binary:
	$(GO) build -tags '$(GO_TAGS)' -ldflags '$(LDFLAGS)' -o $(BIN) ./cmd/rig

# build-cuda builds bin/rig-cuda, whose --engine cuda runs matrix products on a CUDA
# device (the driver and cuBLAS are opened at run time; no CUDA headers needed).
build-cuda: deps
	$(GO) build -tags cuda -o bin/rig-cuda ./cmd/rig

# demo rigs the bundled sample and writes a rigged .glb plus its JSON report.
demo: build
	@mkdir -p $(DEMO_OUT)
	./$(BIN) inspect $(SAMPLE)
	./$(BIN) auto $(SAMPLE) --out $(DEMO_OUT)
	./$(BIN) animate $(DEMO_OUT)/$(basename $(notdir $(SAMPLE))).glb --clip walk --clip run --clip idle --clip wave \
	  --out $(DEMO_OUT)/$(basename $(notdir $(SAMPLE)))_walk.glb
	@echo "rigged character written to $(DEMO_OUT)/"; ls -l $(DEMO_OUT)

vet: deps
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || { echo "gofmt needed:"; gofmt -l $$(git ls-files '*.go'); exit 1; }
	$(GO) vet ./...
	$(GO) vet -tags purego ./rigmodel/... ./internal/...
	$(GO) build -tags cuda ./...
	$(GO) vet -tags cuda ./rigmodel/... ./internal/...

# test runs every test: vet, the Go tests (viewer under Xvfb with Mesa's software GL;
# animated files in headless Chromium with three.js and in Blender), the glTF
# validator on written files, and a short run of every fuzz target.
# The fuzz budget is a count of executions, not a duration: Go 1.26's coordinator can
# report a spurious "context deadline exceeded" when a -fuzztime duration runs out
# while a worker is mid-call (go.dev/issue/75804, fixed in Go 1.27), which failed CI
# once with no failing input written.
test: deps test-deps validator browser vet test-go fuzz

test-go:
	RIGKIT_REQUIRE_VALIDATOR=1 RIGKIT_REQUIRE_GL=1 RIGKIT_REQUIRE_BROWSER=1 RIGKIT_REQUIRE_BLENDER=1 LIBGL_ALWAYS_SOFTWARE=1 \
	  xvfb-run -a -s "-screen 0 1920x1080x24" $(GO) test -count=1 -timeout 40m ./...
	$(GO) test -count=1 -tags purego ./internal/fastmath

# fuzz runs each fuzz target for FUZZTIME executions (about 1 minute for all on 2 cores).
fuzz:
	$(GO) test ./assets/gltfio -run '^$$' -fuzz '^FuzzLoad$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./tokens -run '^$$' -fuzz '^FuzzStream$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./tokens -run '^$$' -fuzz '^FuzzDecodeSkeleton$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./internal/nn -run '^$$' -fuzz '^FuzzCheckpoint$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./assets -run '^$$' -fuzz '^FuzzDecodeOBJ$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./serve -run '^$$' -fuzz '^FuzzScore$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s
	$(GO) test ./serve -run '^$$' -fuzz '^FuzzRequests$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 1s

bench: deps
	$(GO) test -run '^$$' -bench . -benchtime 2x ./...

clean:
	rm -rf bin out
