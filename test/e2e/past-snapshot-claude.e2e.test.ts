import type {ChildProcess} from 'node:child_process';
import {afterEach, describe, expect, it} from 'vitest';
import {join} from 'node:path';
import {RM_BUILD, endStarted, question, startHeld} from '../helpers/held-runs.ts';
import {runAsPerson} from '../helpers/person.ts';
import {installClaudeHooks, realClientBox, type RealClientBox} from '../helpers/realclients.ts';
import {onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// The flight recorder's promise (docs/ledger.md, "The ledger at a moment"): `snapshot --json --at T`
// is, field for field, the snapshot taken at T. Recorded with the real Claude Code 2.1.328 offline,
// its hooks installed, in a wrapped `claude -p` the hold policy stops on `rm -rf build` until a
// person answers (docs/headless-holds.md).

const SLOW = 240_000;
const started: ChildProcess[] = [];
afterEach(() => endStarted(started));

/** The snapshot now, as JSON text: its generatedAt is the moment it shows. */
function takeSnapshot(box: RealClientBox): string {
	const run = box.cli(['snapshot', '--json', '--all']);
	expect(run.status, run.stderr).toBe(0);
	return run.stdout;
}

describe('snapshot --at during a recorded run (real Claude Code)', () => {
	it(
		'equals the snapshot taken then, at three moments: running, waiting for a decision, done',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			installClaudeHooks(box);
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}], started);
			const taken: string[] = [];
			// Running: the wrapper registered the task and started claude.
			await waitFor(() => box.snapshot().tasks.some(task => task['status'] === 'running'), {
				what: 'the wrapped claude running',
				timeoutMs: 60_000,
				on: [onLedgerChange(join(box.env['CONTROLROOM_HOME'] as string, 'ledger.db'))],
			});
			taken.push(takeSnapshot(box));
			// Waiting: the held call is a question for a person.
			const id = await question(run);
			taken.push(takeSnapshot(box));
			const said = runAsPerson(['decide', id, 'allow'], {env: box.env});
			expect(said.status, said.stderr).toBe(0);
			expect(await run.done, run.stderr()).toBe(0);
			// Done: the same session resumed with the answer and ended.
			taken.push(takeSnapshot(box));

			const [running, waiting, done] = taken.map(
				text => JSON.parse(text) as {tasks: {status: string}[]; decisions: {state: string}[]},
			);
			expect(running?.tasks[0]?.status).toBe('running');
			expect(waiting?.decisions).toEqual([expect.objectContaining({id, state: 'open'})]);
			expect(done?.tasks[0]?.status).toBe('done');
			for (const text of taken) {
				const live = JSON.parse(text) as {generatedAt: string};
				const past = box.cli(['snapshot', '--json', '--all', '--at', live.generatedAt]);
				expect(past.status, past.stderr).toBe(0);
				expect(JSON.parse(past.stdout)).toEqual(live);
			}
		},
		SLOW,
	);
});
