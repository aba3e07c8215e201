import {spawnSync} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {foldSpool} from '../../src/ledger/spool.ts';
import {runCli} from '../helpers/cli.ts';
import {fixture, homeWithLedger, runHookBin, spoolFiles, withLedger} from '../helpers/hook.ts';

const SPOOL_HOOK = fileURLToPath(new URL('../../dist/producers/spool-hook.sh', import.meta.url));
const SESSION_TASK = sessionTaskId('claude', 'bd6c0ffe-ec1a-4f46-b883-80987579e3e9');
const IN_TMUX = {TMUX: '/tmp/tmux-1000/default,4242,3', TMUX_PANE: '%17'};
const PANE = {socket: '/tmp/tmux-1000/default', serverPid: 4242, session: '$3', pane: '%17'};

function snapshotTmux(home: string, taskId: string): unknown {
	const run = runCli(['snapshot', '--json', '--all'], {env: {...process.env, CONTROLROOM_HOME: home}});
	expect(run.status, run.stderr).toBe(0);
	const tasks = (JSON.parse(run.stdout) as {tasks: {id: string; tmux: unknown}[]}).tasks;
	return tasks.find(task => task.id === taskId)?.tmux;
}

describe('the hooks and the wrapper record the tmux pane an agent runs in', () => {
	it('the Node hook: on the event and the task; the snapshot shows the socket and pane', () => {
		const {home, ledgerFile} = homeWithLedger();
		expect(runHookBin(home, [], fixture('claude/SessionStart.json'), IN_TMUX).status).toBe(0);
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.task(SESSION_TASK)?.tmux).toEqual(PANE);
		});
		expect(snapshotTmux(home, SESSION_TASK)).toEqual({socket: PANE.socket, pane: PANE.pane});
	});

	it('the shell hook: the two variables in its header, read by the fold through the same function', () => {
		const {home, ledgerFile, spool} = homeWithLedger();
		const run = spawnSync('/bin/sh', [SPOOL_HOOK], {
			input: fixture('claude/SessionStart.json'),
			env: {PATH: process.env['PATH'], HOME: home, CONTROLROOM_HOME: home, ...IN_TMUX},
		});
		expect(run.status).toBe(0);
		expect(spoolFiles(spool)).toHaveLength(1);
		withLedger(ledgerFile, ledger => {
			foldSpool(ledger, spool);
			expect(ledger.reader.task(SESSION_TASK)?.tmux).toEqual(PANE);
		});
	});

	it('a later event from another pane moves the task there (a session resumed elsewhere)', () => {
		const {home, ledgerFile} = homeWithLedger();
		runHookBin(home, [], fixture('claude/SessionStart.json'), IN_TMUX);
		runHookBin(home, [], fixture('claude/UserPromptSubmit.json'), {...IN_TMUX, TMUX_PANE: '%20'});
		// and an event from outside tmux (a hook run by hand) does not forget where it is
		runHookBin(home, [], fixture('claude/Stop.json'), {TMUX: '', TMUX_PANE: ''});
		withLedger(ledgerFile, ledger => expect(ledger.reader.task(SESSION_TASK)?.tmux).toEqual({...PANE, pane: '%20'}));
	});

	it.each([
		['outside tmux', {TMUX: '', TMUX_PANE: ''}],
		['hostile values: an escape code in the pane, a relative socket', {TMUX: 'sock,1,0', TMUX_PANE: '%1\u001b]8;;x\u0007'}],
	])('%s: no pane, and the event is still recorded', (_why, env) => {
		const {home, ledgerFile} = homeWithLedger();
		expect(runHookBin(home, [], fixture('claude/SessionStart.json'), env).status).toBe(0);
		withLedger(ledgerFile, ledger => {
			expect(ledger.reader.task(SESSION_TASK)).toMatchObject({sessionId: expect.any(String), tmux: null});
		});
		expect(snapshotTmux(home, SESSION_TASK)).toBeNull();
	});

	it('the wrapper: its registration carries its pane, which its agent shares', () => {
		const {home, ledgerFile} = homeWithLedger();
		const run = runCli(['run', '--ledger', ledgerFile, '--title', 'in tmux', '--', 'true'], {
			env: {...process.env, CONTROLROOM_HOME: home, ...IN_TMUX},
		});
		expect(run.status, run.stderr).toBe(0);
		withLedger(ledgerFile, ledger => {
			const task = ledger.reader.tasksForView(null).find(candidate => candidate.title === 'in tmux');
			expect(task?.tmux).toEqual(PANE);
		});
	});
});
