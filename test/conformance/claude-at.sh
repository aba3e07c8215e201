#!/usr/bin/env bash
# Runs the real Claude Code CLI against a fake Anthropic server that is already listening (the
# conformance suite shares one per test file), as test/fixtures/realclients/claude-offline.sh does
# with a server of its own. usage: claude-at.sh WORKDIR [claude args...]
#   env: FAKE_ANTHROPIC_PORT (required), REALCLIENTS, CLAUDE_TIMEOUT (s, default 120).
#   HOME and CLAUDE_CONFIG_DIR are WORKDIR/home and WORKDIR/home/.claude; claude runs in
#   WORKDIR/project. Exit status: claude's. It execs `timeout --foreground`, which stays in the
#   caller's process group with claude, as a real `claude` run is.
set -u
W=$(cd "$1" && pwd); shift
R=${REALCLIENTS:?REALCLIENTS: the folder install.sh put the CLIs in}
mkdir -p "$W/home/.claude" "$W/project"
cd "$W/project"
if [ -t 0 ]; then
  for CFG in "$W/home/.claude.json" "$W/home/.claude/.claude.json"; do
    [ -e "$CFG" ] || printf '{"hasCompletedOnboarding":true,"theme":"dark","customApiKeyResponses":{"approved":["sk-ant-dummy-offline"],"rejected":[]},"projects":{"%s":{"hasTrustDialogAccepted":true}}}\n' "$W/project" > "$CFG"
  done
fi
export HOME=$W/home CLAUDE_CONFIG_DIR=$W/home/.claude
export ANTHROPIC_BASE_URL=http://127.0.0.1:${FAKE_ANTHROPIC_PORT:?FAKE_ANTHROPIC_PORT: the shared fake server}
export ANTHROPIC_API_KEY=sk-ant-dummy-offline CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1
export DISABLE_AUTOUPDATER=1 DISABLE_ERROR_REPORTING=1 IS_SANDBOX=1 ENABLE_TOOL_SEARCH=false
exec timeout --foreground "${CLAUDE_TIMEOUT:-120}" "$R/node_modules/.bin/claude" "$@"
