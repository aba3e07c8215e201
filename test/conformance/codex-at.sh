#!/usr/bin/env bash
# Runs the real Codex CLI against a fake OpenAI server that is already listening (the conformance
# suite shares one per scenario and test file), as test/fixtures/realclients/codex-offline.sh does
# with a server of its own. usage: codex-at.sh WORKDIR [codex args...]
#   env: FAKE_OPENAI_PORT (required), REALCLIENTS, CODEX_TIMEOUT (s, default 120).
#   CODEX_HOME is WORKDIR/codex-home (its config.toml points at the fake provider; `controlroom
#   hooks install --codex` with the same CODEX_HOME adds the hooks); runs in WORKDIR/project.
set -u
W=$(cd "$1" && pwd); shift
R=${REALCLIENTS:?REALCLIENTS: the folder install.sh put the CLIs in}
PORT=${FAKE_OPENAI_PORT:?FAKE_OPENAI_PORT: the shared fake server}
export CODEX_HOME=$W/codex-home
mkdir -p "$CODEX_HOME" "$W/project"
CFG=$CODEX_HOME/config.toml
touch "$CFG"
if ! grep -q '^\[model_providers.fake\]' "$CFG"; then
  { printf 'model = "gpt-5.5"\nmodel_provider = "fake"\napproval_policy = "never"\nsandbox_mode = "danger-full-access"\n'
    cat "$CFG"
    printf '\n[model_providers.fake]\nname = "fake"\nbase_url = "http://127.0.0.1:%s/v1"\nenv_key = "FAKE_OPENAI_API_KEY"\nwire_api = "responses"\nrequest_max_retries = 0\nstream_max_retries = 0\nstream_idle_timeout_ms = 20000\n' "$PORT"
  } > "$CFG.new" && mv "$CFG.new" "$CFG"
else
  sed -i "s#^base_url = \"http://127.0.0.1:[0-9]*/v1\"#base_url = \"http://127.0.0.1:$PORT/v1\"#" "$CFG"
fi
cd "$W/project"
export FAKE_OPENAI_API_KEY=sk-fake-offline RUST_LOG=${RUST_LOG:-warn}
exec timeout --foreground "${CODEX_TIMEOUT:-120}" "$R/node_modules/.bin/codex" "$@" < /dev/null
