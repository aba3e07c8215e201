import {spawnSync} from 'node:child_process';
import {chmodSync, chownSync, existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {AGENT_ENV_MARKERS} from '../../src/core/actor.ts';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {freshLedgerFile} from '../helpers/ledger.ts';
import {callTool, connectGateway, writeFsOrder} from '../helpers/effects.ts';
import {runAsPerson} from '../helpers/person.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';

// The ways an agent may try to approve its own held write from inside its run (docs/security.md,
// "What the same-uid mode does not stop"): each is refused, with every agent marker removed from
// the environment, so the process tree and the terminal rule alone decide. A detached tmux is the
// bypass the same-uid mode cannot stop; in the strong mode (`run --user`, a second OS user this
// test creates) it is refused too, and a person's approval then runs the call once.

const tmuxSockets: string[] = [];
const users: string[] = [];
afterAll(() => {
	for (const socket of tmuxSockets) spawnSync('tmux', ['-L', socket, 'kill-server']);
	for (const user of users) spawnSync('userdel', [user]);
});

const quote = (word: string): string => `'${word.replace(/'/g, `'\\''`)}'`;

type Setup = {readonly dir: string; readonly agentDir: string; readonly ledger: string; readonly target: string};

/** A ledger with one held write of `target`, and a folder for the agent's script and its results. */
async function heldWrite(): Promise<Setup> {
	const dir = scratchDir('cr-bypass-');
	const srv = join(dir, 'srv');
	mkdirSync(srv);
	// Where the agent's script and results go: a folder the agent (in the strong mode, its user) can reach
	const agentParent = scratchDir('cr-bypass-agent-');
	chmodSync(agentParent, 0o755);
	const agentDir = join(agentParent, 'agent');
	mkdirSync(agentDir, {mode: 0o755});
	const ledger = freshLedgerFile(dir);
	const order = writeFsOrder(dir, 'o-self', srv);
	const target = join(srv, 'owned.txt');
	const client = await connectGateway(order, ledger);
	try {
		const held = await callTool(client, 'fs__write_file', {path: target, content: 'written by the agent\n'});
		expect(held.content[0]?.text).toBe('pending:fs/write_file#1');
	} finally {
		await client.close();
	}
	return {dir, agentDir, ledger, target};
}

/** The agent's script: each way of asking, its exit status in a file of its own. */
function attempts(setup: Setup, socket: string): string {
	const clean = `env ${AGENT_ENV_MARKERS.map(name => `-u ${name}`).join(' ')}`;
	const approve = `${quote(process.execPath)} ${quote(BIN)} effects approve o-self --ledger ${quote(setup.ledger)}`;
	const at = (name: string): string => quote(join(setup.agentDir, name));
	const script = join(setup.agentDir, 'approve.sh');
	writeFileSync(script, `exec ${approve}\n`);
	const lines = [
		`${clean} ${approve} 2> ${at('env-u.err')}; echo $? > ${at('env-u')}`,
		`${clean} setsid -w ${approve} 2> ${at('setsid.err')}; echo $? > ${at('setsid')}`,
		`${clean} nohup ${approve} > ${at('nohup.err')} 2>&1; echo $? > ${at('nohup')}`,
		`if (exec 3< /dev/tty) 2> /dev/null; then (${clean} ${approve} < /dev/tty) 2> ${at('dev-tty.err')}; echo $?; else echo no-tty; fi > ${at('dev-tty')}`,
		`${clean} sh ${quote(script)} 2> ${at('script.err')}; echo $? > ${at('script')}`,
		// A pty of its own that stays in the run's tree: script(1) not detached
		`${clean} script -qec ${quote(`${approve} 2> ${at('pty.err')}; echo $? > ${at('pty')}`)} /dev/null`,
		// Detached: the tmux server leaves the run's process tree, and its pane is a terminal
		`${clean} tmux -L ${socket} new-session -d ${quote(`${approve} > ${at('tmux.err')} 2>&1; echo $? > ${at('tmux')}`)}`,
	];
	const file = join(setup.agentDir, 'attempts.sh');
	writeFileSync(file, `${lines.join('\n')}\n`);
	chmodSync(file, 0o755);
	return file;
}

const result = (setup: Setup, name: string): string => readFileSync(join(setup.agentDir, name), 'utf8').trim();

async function tmuxResult(setup: Setup): Promise<string> {
	const file = join(setup.agentDir, 'tmux');
	return waitFor(() => (existsSync(file) && readFileSync(file, 'utf8').endsWith('\n') ? result(setup, 'tmux') : null), {
		what: 'the detached tmux attempt to finish',
		on: [onFileChange(file)],
		timeoutMs: 20_000,
	});
}

const isRoot = process.getuid?.() === 0 && spawnSync('useradd', ['--help']).status === 0;

describe('an agent approving its own held write from inside its run', () => {
	it('is refused through env -u of every marker, setsid, nohup, /dev/tty, a script file and a pty of its own; a detached tmux gets through', async () => {
		const setup = await heldWrite();
		const socket = `cr-bypass-${process.pid}-same`;
		tmuxSockets.push(socket);
		// The run is on a person's terminal (script(1)), as an agent started from one would be
		const run = runAsPerson(['run', '--ledger', setup.ledger, '--', 'sh', attempts(setup, socket)]);
		expect(run.status, run.stderr).toBe(0);
		for (const name of ['env-u', 'setsid', 'nohup', 'script', 'pty']) {
			expect([name, result(setup, name)]).toEqual([name, '77']);
			expect(readFileSync(join(setup.agentDir, `${name}.err`), 'utf8')).toMatch(
				/^controlroom: effects approve o-self: refused: only a person at a terminal says yes, and /m,
			);
		}
		// The wrapped run has no controlling terminal of its own (its own session): /dev/tty does not open
		expect(result(setup, 'dev-tty')).toMatch(/^(77|no-tty)$/);
		expect(existsSync(setup.target)).toBe(false);
		// The bypass: the pane is a terminal, and nothing links its process to the run
		expect(await tmuxResult(setup)).toBe('0');
		expect(readFileSync(setup.target, 'utf8')).toBe('written by the agent\n');
	}, 60_000);

	// Detached ptys (docs/security.md): a session of its own, left by its parent so that nothing
	// links it to the run, with a pty as its controlling terminal and itself in the foreground.
	const detached = {
		'setsid script': (command: string) => `setsid -f script -qec ${quote(command)} /dev/null`,
		"Python's pty.spawn": (command: string) =>
			`python3 -c ${quote('import os, pty, sys\nif os.fork(): os._exit(0)\nos.setsid()\npty.spawn(["sh", "-c", sys.argv[1]])')} ${quote(command)} < /dev/null > /dev/null 2>&1`,
	};
	for (const [name, detach] of Object.entries(detached)) {
		it(`a detached pty (${name}) gets through in the same-uid mode: it answers as a person would`, async () => {
			const setup = await heldWrite();
			const clean = `env ${AGENT_ENV_MARKERS.map(marker => `-u ${marker}`).join(' ')}`;
			const status = join(setup.agentDir, 'pty');
			const approve = `${quote(process.execPath)} ${quote(BIN)} effects approve o-self --ledger ${quote(setup.ledger)}`;
			const file = join(setup.agentDir, 'attempt.sh');
			writeFileSync(file, `${clean} ${detach(`${approve} > ${quote(`${status}.err`)} 2>&1; echo $? > ${quote(status)}`)}\n`);
			const run = runAsPerson(['run', '--ledger', setup.ledger, '--', 'sh', file]);
			expect(run.status, run.stderr).toBe(0);
			const answered = await waitFor(
				() => (existsSync(status) && readFileSync(status, 'utf8').endsWith('\n') ? readFileSync(status, 'utf8').trim() : null),
				{what: `the ${name} attempt to finish`, on: [onFileChange(status)], timeoutMs: 20_000},
			);
			expect(answered, readFileSync(`${status}.err`, 'utf8')).toBe('0');
			expect(readFileSync(setup.target, 'utf8')).toBe('written by the agent\n');
		}, 60_000);
	}

	it.runIf(isRoot)(
		'in the strong mode (run --user) is refused every way, the detached tmux too; a person then approves it once',
		async () => {
			const setup = await heldWrite();
			const user = `cragent${process.pid % 100000}`;
			const home = scratchDir('cr-bypass-home-');
			const created = spawnSync('useradd', ['-M', '-d', home, '-s', '/bin/sh', user], {encoding: 'utf8'});
			expect(created.status, created.stderr).toBe(0);
			users.push(user);
			const uid = Number(spawnSync('id', ['-u', user], {encoding: 'utf8'}).stdout.trim());
			chownSync(home, uid, uid);
			chownSync(setup.agentDir, uid, uid);
			const socket = `cr-bypass-${process.pid}-strong`;
			const run = runAsPerson([
				'run',
				'--user',
				user,
				'--cwd',
				setup.agentDir,
				'--ledger',
				setup.ledger,
				'--',
				'sh',
				attempts(setup, socket),
			]);
			expect(run.status, run.stderr).toBe(0);
			const open = openLedger(setup.ledger);
			try {
				// The task says which user the agent ran as
				const [registered] = open.reader.eventsOfType([EventType.registered]);
				expect(registered?.data).toMatchObject({runAsUser: user, runAsUid: uid});
			} finally {
				open.close();
			}
			for (const name of ['env-u', 'setsid', 'nohup', 'script', 'pty'])
				expect([name, result(setup, name)]).not.toEqual([name, '0']);
			expect(result(setup, 'dev-tty')).not.toBe('0');
			const tmuxStatus = await tmuxResult(setup);
			spawnSync('su', [user, '-s', '/bin/sh', '-c', `tmux -L ${socket} kill-server`]);
			expect(tmuxStatus).not.toBe('0');
			// The agent's user cannot even see the ledger in the person's private folder
			expect(readFileSync(join(setup.agentDir, 'tmux.err'), 'utf8')).toBe(
				`controlroom: --ledger: no ledger at ${setup.ledger}\n`,
			);
			expect(existsSync(setup.target)).toBe(false);
			// The person, at a terminal, approves it: it runs once
			const person = runAsPerson(['effects', 'approve', 'o-self', '--ledger', setup.ledger]);
			expect(person.status, person.stderr).toBe(0);
			expect(readFileSync(setup.target, 'utf8')).toBe('written by the agent\n');
		},
		60_000,
	);

	it('refuses run --user naming no OS user, or the user controlroom runs as, and runs nothing', () => {
		const dir = scratchDir('cr-run-user-');
		const ledger = freshLedgerFile(dir);
		const missing = runCli(['run', '--user', 'no-such-user-here', '--ledger', ledger, '--', 'true']);
		expect(missing.status).toBe(64);
		expect(missing.stderr).toBe("controlroom: --user: no OS user named 'no-such-user-here'\n");
		const me = spawnSync('id', ['-un'], {encoding: 'utf8'}).stdout.trim();
		const same = runCli(['run', '--user', me, '--ledger', ledger, '--', 'true']);
		expect(same.status).toBe(64);
		expect(same.stderr).toBe(
			`controlroom: --user: ${me} is the user controlroom runs as: --user names another OS user, for the agent; nothing run\n`,
		);
		expect(JSON.parse(runCli(['snapshot', '--json', '--all', '--ledger', ledger]).stdout)).toMatchObject({tasks: []});
		// Refused before any ledger is opened: a path with none stays without one.
		const none = join(dir, 'none.db');
		expect(runCli(['run', '--user', me, '--ledger', none, '--', 'true']).status).toBe(64);
		expect(existsSync(none)).toBe(false);
	});
});

describe.runIf(isRoot)('run --user refusing a ledger the agent could write', () => {
	it('refuses a ledger in a folder others can write (a sticky one too), and runs nothing', () => {
		const dir = scratchDir('cr-run-user-shared-');
		chmodSync(dir, 0o1777);
		const ledger = freshLedgerFile(dir);
		const run = runCli(['run', '--user', 'nobody', '--ledger', ledger, '--', 'true']);
		expect(run.status).toBe(64);
		expect(run.stderr).toBe(
			`controlroom: --user: the ledger would not hold against nobody: ${dir} is writable by others (mode 1777); nothing run\n`,
		);
	});
});
