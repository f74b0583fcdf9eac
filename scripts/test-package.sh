#!/usr/bin/env bash
# The package as a user gets it: packs the tarball, installs it into an empty project (the
# registry is the only network it needs), and runs the command from there.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export SMS_SEND_STATE_DIR="$work/state" NO_COLOR=1
fail() { echo "test:package: $*" >&2; exit 1; }

cd "$root"
tarball="$work/$(npm pack --silent --pack-destination "$work" | tail -n 1)"
files=$(tar -tzf "$tarball")
echo "$files" | grep -qx 'package/dist/cli/main.js' || fail "dist/cli/main.js is not in the tarball"
echo "$files" | grep -qx 'package/samples/campaign.csv' || fail "the sample campaign is not in the tarball"
# Every page the README and the help point to comes with the package.
for page in $(grep -oE '\]\((docs/[^)#]+)' "$root/README.md" | sed 's/^](//' | sort -u); do
  echo "$files" | grep -qx "package/$page" || fail "README links $page, which is not in the tarball"
done
if echo "$files" | grep -E '\.map$|\.report\.|^package/(src|test|bench|scripts)/'; then
  fail "the tarball holds files a user does not need (above)"
fi
echo "tarball: $(basename "$tarball"), $(wc -c < "$tarball") bytes, $(echo "$files" | wc -l) files"

mkdir "$work/app" && cd "$work/app"
npm init -y > /dev/null
npm install --no-audit --no-fund --loglevel=error "$tarball" > /dev/null
run() { echo "\$ $*" >&2; "$@"; }
run npx --no-install sms-send --help | grep -q '^Usage: sms-send' || fail "--help"
cp node_modules/restsms-send/samples/campaign.csv .
run npx --no-install sms-send campaign.csv --simulate || fail "the quick start"
[ -s campaign.report.csv ] || fail "the quick start wrote no report"
run npx --no-install sms-send check --simulate || fail "check --simulate"
echo "$files" | grep -qx 'package/dist/index.d.ts' || fail "the API's type declarations are not in the tarball"
cp "$root/docs/api-example.mjs" .
run node api-example.mjs | grep -Eq '^accepted +12$' || fail "the API example of docs/api.md"
echo "test:package: the installed tarball works"
