import {spawnSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {realClientBox, realClientScript, type RealClientBox} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');
const DOCS = new URL('../../docs/tmux.md', import.meta.url);

let inner: Tmux | undefined;
let outer: Tmux | undefined;
afterEach(() => {
	outer?.kill();
	inner?.kill();
});

/** The return binding exactly as docs/tmux.md gives it. */
function documentedBinding(): string {
	const block = /```tmux\n([\s\S]*?)```/.exec(readFileSync(DOCS, 'utf8'))?.[1];
	if (!block?.includes('bind-key B')) throw new Error('docs/tmux.md has no ```tmux block with bind-key B');
	return block;
}

/** A shell command line that runs `command` with `env` (and not the test runner's NODE_ENV). */
function withEnv(env: Record<string, string>, command: string): string {
	const exports = Object.entries(env).map(([key, value]) => `${key}=${JSON.stringify(value)}`);
	return `env -u NODE_ENV -u VITEST ${exports.join(' ')} ${command}`;
}

/** A Claude workdir with controlroom's hooks installed in its own HOME. */
function claudeDir(box: RealClientBox, name: string): string {
	const dir = join(box.dir, name);
	const install = box.cli(['hooks', 'install', '--claude'], {
		HOME: join(dir, 'home'),
		CLAUDE_CONFIG_DIR: join(dir, 'home', '.claude'),
	});
	expect(install.status, install.stderr).toBe(0);
	return dir;
}

type Row = Record<string, unknown> & {tmux?: {socket: string; pane: string} | null};

describe('t on the board takes the tmux client to the agent pane, prefix B comes back (real Claude Code)', () => {
	it('two real Claude sessions in two windows, the board in a third; a session outside tmux is refused', async () => {
		// Given two real Claude Code TUIs with hooks, one in a second window of the board's session and
		// one in a session of its own, and the board in the first window
		const box = realClientBox({SCENARIO: 'text', CLAUDE_TIMEOUT: '280'});
		const ledgerFile = join(box.dir, 'cr', 'ledger.db');
		const [dirA, dirB, dirC] = ['a', 'b', 'c'].map(name => claudeDir(box, name)) as [string, string, string];
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const env: Record<string, string> = {
			PATH: String(box.env['PATH']),
			REALCLIENTS: String(box.env['REALCLIENTS']),
			CONTROLROOM_HOME: String(box.env['CONTROLROOM_HOME']),
			// Other people's agents on this machine are not this test's.
			CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent',
			SCENARIO: 'text',
			CLAUDE_TIMEOUT: '280',
		};
		inner = new Tmux();
		const tmuxOf = inner;
		tmuxOf.start('board', 160, 40, env);
		tmuxOf.type('board', `node ${BIN} --reconcile 3600`);
		tmuxOf.send('board', 'Enter');
		tmuxOf.run(['new-window', '-d', '-t', 'board:1', withEnv(env, `${CLAUDE} ${dirA}`)]);
		tmuxOf.run(['new-session', '-d', '-s', 'agents', '-x', '160', '-y', '40', withEnv(env, `${CLAUDE} ${dirB}`)]);
		const paneOf = (target: string) => tmuxOf.run(['display-message', '-p', '-t', target, '#{pane_id}']).trim();
		const [boardPane, paneA, paneB] = [paneOf('board:0'), paneOf('board:1'), paneOf('agents:0')];
		const socket = tmuxOf.run(['display-message', '-p', '#{socket_path}']).trim();
		tmuxOf.run(['source-file', writeBinding(box.dir)]);

		// and a person's terminal: a real tmux client on the board's session, in a pane of another server
		outer = new Tmux();
		const person = outer;
		person.start('person', 160, 42, {PATH: String(box.env['PATH'])});
		person.type('person', `env -u TMUX -u TMUX_PANE tmux -L ${tmuxOf.socket} attach -t board`);
		person.send('person', 'Enter');
		await person.waitFor('person', pane => pane.includes('RUNNING'), 60_000);
		await waitFor(() => tmuxOf.readsKeys('board:0'), {what: 'the board to read keys', timeoutMs: 30_000});
		const client = tmuxOf
			.run(['list-clients', '-F', '#{client_name} #{client_readonly}'])
			.trim()
			.split('\n')
			.map(line => line.split(' '))
			.find(([, readOnly]) => readOnly === '0')?.[0];
		expect(client).toBeTruthy();
		const where = () => tmuxOf.run(['display-message', '-p', '-c', String(client), '#{session_name} #{pane_id}']).trim();

		// When both sessions have reported (their SessionStart hooks, folded by the board)
		const sessions = () => box.snapshot().tasks.filter((row): row is Row => row['source'] === 'claude');
		const byPane = (pane: string) => sessions().find(row => row.tmux?.pane === pane);
		await waitFor(() => byPane(paneA) && byPane(paneB), {
			what: 'both Claude sessions recorded with their panes',
			timeoutMs: 180_000,
			on: [onLedgerChange(ledgerFile)],
			explain: () => JSON.stringify(sessions().map(row => [row['id'], row.tmux])),
		});
		const idA = String(byPane(paneA)?.['id']);
		const idB = String(byPane(paneB)?.['id']);
		// Then the snapshot names each one's server and pane
		expect(byPane(paneA)?.tmux).toEqual({socket, pane: paneA});
		expect(byPane(paneB)?.tmux).toEqual({socket, pane: paneB});

		const select = async (id: string) => {
			person.send('person', 'Escape');
			await person.waitFor('person', pane => !pane.includes('(esc clears)'), 20_000);
			person.type('person', '/');
			await person.waitFor('person', pane => pane.includes('enter keep'), 20_000);
			person.type('person', id);
			await person.waitFor('person', pane => pane.includes(`/${id}`), 20_000);
			person.send('person', 'Enter');
			await person.waitFor('person', pane => pane.includes(`/${id} (esc clears)`) && pane.includes(`› ${id}`), 20_000);
		};
		const jumpAndBack = async (id: string, session: string, pane: string) => {
			await select(id);
			// t selects the agent's pane (switching the client's session when it is another)
			person.type('person', 't');
			await person.waitFor('person', () => where() === `${session} ${pane}`, 20_000);
			// and prefix B, as docs/tmux.md binds it, comes back to the board
			person.send('person', 'C-b', 'B');
			await person.waitFor('person', () => where() === `board ${boardPane}`, 20_000);
		};
		// The window in the board's own session, then the pane in another session
		await jumpAndBack(idA, 'board', paneA);
		await jumpAndBack(idB, 'agents', paneB);

		// A moved pane is followed: A's pane broken out into a window of the other session
		tmuxOf.run(['break-pane', '-d', '-s', paneA, '-t', 'agents:']);
		await jumpAndBack(idA, 'agents', paneA);

		// A session that did not run in tmux: refused with one line, by the key and by the command
		const headless = spawnSync(CLAUDE, [dirC, '-p', 'say hi', '--dangerously-skip-permissions'], {
			env: {...withoutTmux(box.env), SCENARIO: 'text'},
			encoding: 'utf8',
			timeout: 240_000,
		});
		expect(headless.status, headless.stderr).toBe(0);
		const idC = String(sessions().find(row => row['cwd'] === join(dirC, 'project'))?.['id']);
		expect(sessions().find(row => row['id'] === idC)?.tmux).toBeNull();
		await select(idC);
		person.type('person', 't');
		const refusal = `t: ${idC} does not run in tmux: its hooks and wrapper saw no TMUX`;
		await person.waitFor('person', pane => pane.includes(refusal), 20_000);
		expect(where()).toBe(`board ${boardPane}`);
		const fromShell = box.cli(['jump', idC], {TMUX: `${socket},1,0`, TMUX_PANE: boardPane});
		expect(fromShell.status).toBe(1);
		expect(fromShell.stderr).toBe(`controlroom: jump: ${idC} does not run in tmux: its hooks and wrapper saw no TMUX\n`);
	}, 600_000);
});

function writeBinding(dir: string): string {
	const file = join(dir, 'controlroom.tmux.conf');
	writeFileSync(file, documentedBinding());
	return file;
}

function withoutTmux(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
	const copy = {...env};
	delete copy['TMUX'];
	delete copy['TMUX_PANE'];
	return copy;
}
