import {spawn, type ChildProcess} from 'node:child_process';
import {fileURLToPath} from 'node:url';
import {afterAll, describe, expect, it} from 'vitest';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {BIN} from '../helpers/cli.ts';
import {homeWithLedger, spoolFiles, withLedger} from '../helpers/hook.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onExit, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const SPOOL_HOOK = fileURLToPath(new URL('../../dist/producers/spool-hook.sh', import.meta.url));
const WRITERS = 8;
const CALLS = 2000;

const tmux = new Tmux();
const children: ChildProcess[] = [];
afterAll(() => {
	tmux.kill();
	for (const child of children) if (child.exitCode === null) child.kill();
});

/**
 * One agent's worth of hook calls, as Claude Code makes them: a shell loop (no Node), each call a
 * new `sh spool-hook.sh` with a PostToolUse payload on stdin whose tool_use_id names the call.
 */
function writer(home: string, index: number): ChildProcess {
	const payload = `{"session_id":"load-w${index}","hook_event_name":"PostToolUse","cwd":"/tmp","tool_name":"Bash","tool_input":{"command":"true"},"tool_use_id":"w${index}-%d","tool_response":{"stdout":""}}`;
	const loop = `i=0; while [ "$i" -lt ${CALLS} ]; do printf '${payload}' "$i" | /bin/sh '${SPOOL_HOOK}'; i=$((i + 1)); done`;
	const child = spawn('/bin/sh', ['-c', loop], {env: {...process.env, CONTROLROOM_HOME: home}, stdio: 'ignore'});
	children.push(child);
	return child;
}

describe('spool hook under load', () => {
	it(`${WRITERS} writers x ${CALLS} calls with the board open and a reconciler running: every event once`, async () => {
		// Given the board open on a ledger and a reconciler folding every second
		const {home, ledgerFile, spool} = homeWithLedger();
		tmux.start('load', 160, 45, {
			CONTROLROOM_HOME: home,
			CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent',
			PATH: process.env['PATH'] ?? '',
		});
		tmux.type('load', `node ${BIN} --ledger ${ledgerFile}`);
		tmux.send('load', 'Enter');
		await tmux.waitFor('load', pane => pane.includes('NEEDS YOU'), 20_000);
		const reconciler = spawn(process.execPath, [BIN, 'reconcile', '--interval', '1', '--ledger', ledgerFile], {
			env: {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_AGENT_NAMES: 'cr-no-such-agent'},
			stdio: 'ignore',
		});
		children.push(reconciler);
		// When 8 agents' hooks write at once
		const writers = Array.from({length: WRITERS}, (_, index) => writer(home, index));
		for (const child of writers)
			await waitFor(() => child.exitCode !== null, {what: 'a writer to finish', on: [onExit(child)], timeoutMs: 1_200_000});
		expect(writers.map(child => child.exitCode)).toEqual(Array.from({length: WRITERS}, () => 0));
		// Then the board and the reconciler fold it all
		await waitFor(() => spoolFiles(spool).length === 0, {
			what: 'the spool to be folded',
			on: [onLedgerChange(ledgerFile)],
			timeoutMs: 300_000,
		});
		const seen = withLedger(ledgerFile, ledger =>
			Array.from({length: WRITERS}, (_, index) =>
				ledger.reader
					.eventsOf(sessionTaskId('claude', `load-w${index}`))
					.flatMap(event => JSON.stringify(event.data).match(/w\d+-\d+/g) ?? []),
			).flat(),
		);
		expect(new Set(seen).size).toBe(WRITERS * CALLS);
		expect(seen.length).toBe(WRITERS * CALLS);
		expect(tmux.foreground('load')).toBe('node');
		withLedger(ledgerFile, ledger => expect(ledger.reader.rejectCount()).toBe(0));
		tmux.send('load', 'q');
		reconciler.kill();
	}, 1_800_000);
});
