#!/usr/bin/env bash
# The main job on the bundled example session, offline (no API key): harvest → review → memory.
# Creates a throw-away memory repository in a temporary folder; touches nothing else.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
demo="$(mktemp -d)/contracts-memory"
export AGENTMEM_PROVIDER=offline
unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN || true

if [ -t 1 ]; then
  step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
else
  step() { printf '\n== %s\n' "$*"; }
fi

step "A new memory repository for Claire, a contract reviewer ($demo)"
mkdir -p "$demo"
git -C "$demo" init -q -b main
git -C "$demo" config user.name "Claire Martin"
git -C "$demo" config user.email "claire@example.com"
agentmem init "$demo"
cd "$demo"

step "Harvest the finished session (offline provider)"
agentmem harvest "$here/contract-review-session.md" --outcomes "$here/contract-review-outcomes.json" --scope contracts/supply

step "The inbox"
agentmem inbox

step "The review, as diffs (dry run)"
agentmem review --dry-run

step "Claire accepts every proposal: her memory entries, then the team rule as a draft"
agentmem review --accept all

step "The resulting memory file"
agentmem memory show

step "Where each entry came from"
agentmem memory blame

step "The audit trailers of the commit that added her first entry"
first="$(git log --format=%H --grep='^memory(claire): add' | tail -n 1)"
git log -1 --format='%s%n%n%(trailers)' "$first"
