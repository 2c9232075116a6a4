#!/usr/bin/env bash
# Start-up cost of the tq command line next to jq, on the bundled demo data (docs/install.md, "Start-up
# time"). Needs hyperfine and jq (apt-get install -y hyperfine jq) and a build (npm ci or
# npm run build). Usage: bench/startup.sh [TQ] — TQ defaults to this checkout's bin/tq; pass an
# installed one (e.g. /tmp/app/node_modules/.bin/tq) to time it instead.
set -euo pipefail
cd "$(dirname "$0")/.."
TQ=${1:-$PWD/bin/tq}
CALLS=$PWD/fixtures/calls.jsonl
QUERY='{"$expr":{"$contains":{"input":{"$getField":"op_name"},"substr":{"$literal":"chat"}}}}'
JQ_QUERY='[.[] | select(.project_id == "acme/support-bot" and (.op_name | contains("chat")))] | sort_by(.started_at) | reverse | .[:5][]'
TQ_ARGS="calls --project acme/support-bot --query-json '$QUERY' --sort started_at:desc --limit 5"

# The same five calls, or the comparison means nothing.
diff <(eval "$TQ $TQ_ARGS" | jq -r .id) <(jq -r -s "$JQ_QUERY | .id" "$CALLS")

# A checkout can also run its sources through tsx (what every start cost before the build).
FROM_SOURCE=()
[ -d "$(dirname "$TQ")/../src" ] && FROM_SOURCE=(-n 'tq calls from source (tsx)' "env TQ_FROM_SOURCE=1 $TQ $TQ_ARGS")

cd "$(mktemp -d)" # no ./fixtures here: tq loads its bundled demo
hyperfine -N --warmup 3 --runs "${RUNS:-30}" --export-json "${EXPORT:-/dev/null}" \
  -n 'tq --version' "$TQ --version" \
  -n 'jq --version' 'jq --version' \
  -n 'tq --help' "$TQ --help" \
  -n 'tq calls (demo query)' "$TQ $TQ_ARGS" \
  -n 'jq (same query, same file)' "jq -c -s '$JQ_QUERY' $CALLS" \
  "${FROM_SOURCE[@]}"
