#!/usr/bin/env bash
# The README's "Run it" on a fresh clone where Electron's binary cannot be downloaded (offline,
# proxies, air-gapped networks): `npm install` must succeed, `npx tagssh --help` answer, `npm start`
# point to `npm run web` in one line (exit code 1, no stack trace), and `npm run web` serve the app.
# npm's own cache (~/.npm) is reused; Electron's download goes to a closed loopback port, with an
# empty cache of its own, so it fails at once whatever this machine's network allows.
set -euo pipefail
src="$(cd "$(dirname "$0")/.." && pwd)"
work="$(mktemp -d)"
web_pid=
cleanup() {
  if [[ -n "$web_pid" ]]; then kill -- "-$web_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

fail() {
  echo "fresh install: $*" >&2
  exit 1
}
step() { echo "fresh install: $* ($((SECONDS - started)) s)"; }
started=$SECONDS

git clone --quiet "$src" "$work/tagssh"
cd "$work/tagssh"
closed_port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
export ELECTRON_MIRROR="http://127.0.0.1:$closed_port/"
export electron_config_cache="$work/electron-cache"
unset ELECTRON_SKIP_BINARY_DOWNLOAD ELECTRON_OVERRIDE_DIST_PATH

step "npm install (Electron's download host unreachable)"
npm install </dev/null >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; fail "npm install failed"; }
grep -F "tagssh: Electron's binary is not installed" "$work/install.log" || { cat "$work/install.log" >&2; fail "npm install did not say that Electron's binary is missing"; }

step "npx tagssh --help"
npx tagssh --help </dev/null >"$work/help.out" || fail "npx tagssh --help exited $?"
grep -q '^Usage: tagssh' "$work/help.out" || { cat "$work/help.out" >&2; fail "npx tagssh --help printed no usage"; }

step "npm start (no Electron binary)"
code=0
npm start </dev/null >"$work/start.out" 2>"$work/start.err" || code=$?
cat "$work/start.err"
[[ $code -eq 1 ]] || fail "npm start exited $code, expected 1"
[[ "$(wc -l <"$work/start.err")" -eq 1 ]] || fail "npm start printed more than one line on stderr"
grep -q 'run `npm run web` for the same app in your browser' "$work/start.err" || fail "npm start did not point to npm run web"

step "npm run web"
setsid npm run web -- --no-open --port 0 </dev/null >"$work/web.out" 2>&1 &
web_pid=$!
url=
for _ in $(seq 1 120); do
  url="$(grep -oE 'http://127\.0\.0\.1:[0-9]+/' "$work/web.out" | head -n1 || true)"
  [[ -n "$url" ]] && break
  kill -0 "$web_pid" 2>/dev/null || { cat "$work/web.out" >&2; fail "npm run web exited before serving"; }
  sleep 0.5
done
[[ -n "$url" ]] || { cat "$work/web.out" >&2; fail "npm run web printed no address within 60 s"; }
node -e 'fetch(process.argv[1]).then(async (r) => { const t = await r.text(); process.exit(r.status === 200 && t.includes("<html") ? 0 : 1); }, () => process.exit(1))' "$url" ||
  fail "browser mode at $url did not serve the app"
step "browser mode served the app at $url; done"
