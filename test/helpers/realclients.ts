import {spawnSync} from 'node:child_process';
import {existsSync, mkdtempSync} from 'node:fs';
import {homedir, tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';

/** The harness copied into the repository: offline wrappers and fake model servers. */
export const REALCLIENTS_FIXTURES = fileURLToPath(new URL('../fixtures/realclients/', import.meta.url));

const CONTROLROOM_BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));

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

/** A scratch world for one real-agent test: the agent's WORKDIR, a ledger home, and the env for both. */
export type RealClientBox = {
	readonly dir: string;
	readonly env: NodeJS.ProcessEnv;
	/** `controlroom ARGS` against this box's ledger. */
	cli(args: readonly string[], extraEnv?: NodeJS.ProcessEnv): {status: number | null; stdout: string; stderr: string};
	/** The snapshot's JSON, every task. */
	snapshot(): {tasks: Record<string, unknown>[]; queue: {total: number; lanes: {name: string; items: unknown[]}[]}};
};

export function realClientBox(scenario: NodeJS.ProcessEnv = {}): RealClientBox {
	const dir = mkdtempSync(join(tmpdir(), 'cr-rc-'));
	const env = {...process.env, ...requireRealClients(), CONTROLROOM_HOME: join(dir, 'cr'), ...scenario};
	const cli = (args: readonly string[], extraEnv: NodeJS.ProcessEnv = {}) => {
		const run = spawnSync(process.execPath, [CONTROLROOM_BIN, ...args], {
			env: {...env, ...extraEnv},
			encoding: 'utf8',
			maxBuffer: 64 * 1024 * 1024,
		});
		return {status: run.status, stdout: run.stdout, stderr: run.stderr};
	};
	const snapshot = () => {
		const run = cli(['snapshot', '--json', '--all']);
		if (run.status !== 0) throw new Error(`snapshot failed: ${run.stderr}`);
		return JSON.parse(run.stdout);
	};
	return {dir, env, cli, snapshot};
}

/**
 * `controlroom hooks install --claude` where claude-offline.sh's Claude reads its settings
 * (CLAUDE_CONFIG_DIR), with HOME elsewhere so the folder given is the one written. Throws with
 * install's stderr when it fails; returns what it printed.
 */
export function installClaudeHooks(box: RealClientBox): {stdout: string} {
	const install = box.cli(['hooks', 'install', '--claude'], {
		HOME: join(box.dir, 'another-home'),
		CLAUDE_CONFIG_DIR: join(box.dir, 'home', '.claude'),
	});
	if (install.status !== 0) throw new Error(`hooks install --claude exited ${install.status}: ${install.stderr}`);
	return {stdout: install.stdout};
}
