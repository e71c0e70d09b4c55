#!/usr/bin/env bash
# Replays the Dockerfile's stages without a Docker daemon (none runs on our machines), in a
# temporary directory, and checks what the image promises (docs/operations.md "Docker"):
#   build       npm ci, npm run build (bundles and the native addon)
#   prod-deps   npm ci --omit=dev: no esbuild, no test tools
#   runtime     node_modules from prod-deps + dist + the addon + package.json + LICENSE;
#               keys init, the server on a mounted dataset, /readyz
#   checkout    in the build copy after `npm ci --omit=dev`: `npm run keys -- init` and
#               `npm start` with DATASET_DIR set work from the bundles already in dist/
# Usage: scripts/docker-stages.sh DATASET_DIR   (a built dataset to mount; e.g. the tests' or
# data/datasets/sample). Takes a few minutes: better-sqlite3 may compile twice.
set -euo pipefail
dataset=$(realpath "${1:?usage: scripts/docker-stages.sh DATASET_DIR}")
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/landdata-stages-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
say() { printf '\n== %s\n' "$*"; }

say "build: the context without what .dockerignore leaves out"
mkdir -p "$work/build"
(cd "$root" && git ls-files -z | grep -zv -E '^(native/build|bench/\.work)/' | xargs -0 tar -cf - ) | tar -xf - -C "$work/build"
(cd "$work/build" && npm ci --no-audit --no-fund >/dev/null && npm run build >/dev/null)
test -f "$work/build/dist/server.js" && test -f "$work/build/native/build/Release/mmap.node"

say "prod-deps: npm ci --omit=dev"
mkdir -p "$work/prod"
cp "$work/build/package.json" "$work/build/package-lock.json" "$work/prod/"
(cd "$work/prod" && npm ci --omit=dev --no-audit --no-fund >/dev/null)
test ! -e "$work/prod/node_modules/esbuild" || { echo "esbuild in the production install"; exit 1; }
test ! -e "$work/prod/node_modules/vitest" || { echo "vitest in the production install"; exit 1; }

say "runtime: the image's files only"
app="$work/app"
mkdir -p "$app/native/build/Release" "$work/keys"
cp -r "$work/prod/node_modules" "$app/"
cp -r "$work/build/dist" "$app/"
cp "$work/build/native/build/Release/mmap.node" "$app/native/build/Release/"
cp "$work/build/package.json" "$work/build/LICENSE" "$app/"
export DATASET_DIR="$dataset" KEYS_DB="$work/keys/keys.db" HOST=127.0.0.1 NODE_ENV=production
(cd "$app" && node dist/keys.js init)
port=$((20000 + RANDOM % 20000))
(cd "$app" && PORT=$port node dist/server.js >"$work/server.log" 2>&1 &)
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fs "http://127.0.0.1:$port/readyz" | grep -q '"status":"ready"' || { cat "$work/server.log"; exit 1; }
# the map page and MapLibre come from dist/map and the production node_modules
page=$(curl -fs "http://127.0.0.1:$port/map") || { echo "no /map"; exit 1; }
lib=$(printf '%s' "$page" | grep -o '/map/assets/[^"]*/maplibre-gl-csp.js')
curl -fs -o /dev/null "http://127.0.0.1:$port$lib" || { echo "no $lib"; exit 1; }
grep -q '"indexes":"mapped"' "$work/server.log" || { echo "the addon was not loaded"; cat "$work/server.log"; exit 1; }
pkill -f "node dist/server.js" || true

say "checkout: npm ci --omit=dev in the build copy, then the npm scripts"
(cd "$work/build" && npm ci --omit=dev --no-audit --no-fund >/dev/null)
rm -f "$work/keys/keys.db"*
(cd "$work/build" && npm run keys -- init | grep -q created)
port=$((20000 + RANDOM % 20000))
(cd "$work/build" && PORT=$port npm start >"$work/start.log" 2>&1 &)
for _ in $(seq 1 100); do curl -fs "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break; sleep 0.2; done
curl -fs "http://127.0.0.1:$port/readyz" | grep -q '"status":"ready"' || { cat "$work/start.log"; exit 1; }
say "every stage replayed: the image's commands work"
