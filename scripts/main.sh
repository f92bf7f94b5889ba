#!/usr/bin/env bash
# The main job: build the engine, both PAPI builds (ours and stock) and the
# tools, then show our papi_avail header and run the overhead benchmark.
# Builds in the source tree; scripts/test.sh uses the same build.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/configure.sh
make -j2
make -s --no-print-directory demo
