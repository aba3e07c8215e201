import {existsSync} from 'node:fs';
import {homedir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

/** The harness copied into the repository: offline wrappers and fake model servers. */
export const REALCLIENTS_FIXTURES = fileURLToPath(new URL('../fixtures/realclients/', import.meta.url));

/** Where install.sh put the pinned CLIs (`.ci/run` installs them; CONTROLROOM_REALCLIENTS overrides). */
export const REALCLIENTS_DIR = process.env['CONTROLROOM_REALCLIENTS'] ?? join(homedir(), '.cache', 'controlroom-realclients');

/** A script of the harness: `claude-offline.sh`, `codex-offline.sh`, `fake-anthropic.mjs`, ... */
export function realClientScript(name: string): string {
	return join(REALCLIENTS_FIXTURES, name);
}

/** The installed binaries, for tests that run them directly. */
export const CLAUDE_BIN = join(REALCLIENTS_DIR, 'node_modules', '.bin', 'claude');
export const CODEX_BIN = join(REALCLIENTS_DIR, 'node_modules', '.bin', 'codex');

/**
 * Fails loudly when the real CLIs are missing: a test of the real agents must never pass by
 * skipping them. `.ci/run` installs them with test/fixtures/realclients/install.sh.
 */
export function requireRealClients(): {readonly REALCLIENTS: string} {
	if (!existsSync(CLAUDE_BIN) || !existsSync(CODEX_BIN)) {
		throw new Error(`real agent CLIs not installed in ${REALCLIENTS_DIR}: run test/fixtures/realclients/install.sh`);
	}
	return {REALCLIENTS: REALCLIENTS_DIR};
}
