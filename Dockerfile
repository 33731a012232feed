# rigkit's `rig` binary in a Debian image, for batch rigging on Kubernetes or Slurm
# (deploy/). Build and run:
#
#   docker build -t rigkit:latest --build-arg VERSION=$(git describe --always --dirty) .
#   docker run --rm -v "$PWD:/data" rigkit:latest auto /data/meshes --out /data/rigged
#
# The Go build is the Makefile's rig-binary target, the one `make build` runs, with
# the viewer left out (-tags noviewer: no OpenGL in a headless image). The module
# download is its own layer, so a rebuild after a code change needs no network.

FROM golang:1.26-bookworm AS build
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libopenblas-dev pkg-config make \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=""
RUN make rig-binary GO_TAGS=noviewer LDFLAGS="-X main.version=${VERSION}" \
 && ./bin/rig --version

FROM debian:bookworm-slim
RUN apt-get update -qq \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libopenblas0-pthread \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /src/bin/rig /usr/local/bin/rig
# Runs as an unprivileged user; mounted folders must be writable by uid 65532.
USER 65532:65532
WORKDIR /data
ENTRYPOINT ["rig"]
CMD ["help"]
