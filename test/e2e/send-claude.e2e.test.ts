import type {ChildProcess} from 'node:child_process';
import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {paneEnv, startClaudeTui} from '../helpers/claude-tui.ts';
import {endStarted, question, RM_BUILD, startHeld, taskOf} from '../helpers/held-runs.ts';
import {runAsPerson} from '../helpers/person.ts';
import {installClaudeHooks, realClientBox, type RealClientBox} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onExit, onFileChange, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

// A word to a running agent (docs/messages.md), with the real Claude Code offline and `hooks
// install --claude`: a person's `controlroom send` reaches the session at its next turn boundary
// (the Stop hook blocks with the message as its reason) and the model's next request carries it.

const SLOW = 240_000;
let tmux: Tmux | undefined;
const started: ChildProcess[] = [];
afterEach(() => {
	tmux?.kill();
	tmux = undefined;
	endStarted(started);
});

/** The requests the fake model server was sent, as text (one JSON line each). */
function requests(file: string): string[] {
	return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
}

function timelineOf(box: RealClientBox, taskId: string): string {
	const run = box.cli(['timeline', taskId]);
	expect(run.status, run.stderr).toBe(0);
	return run.stdout;
}

describe('send: a word to a running agent (real Claude Code)', () => {
	it(
		"an interactive session's next request to the model carries the message; the timeline shows it delivered",
		async () => {
			// Given a Claude Code TUI whose first turn is still running (its answer takes 20 s)
			const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '200'});
			installClaudeHooks(box);
			const script = join(box.dir, 'turns.json');
			writeFileSync(script, JSON.stringify([{text: 'first turn done', delay_ms: 20_000}, {text: 'read your message'}]));
			tmux = new Tmux();
			const pane = tmux;
			await startClaudeTui(pane, 'claude', paneEnv(box, script), box.dir);
			pane.type('claude', 'do the work');
			pane.send('claude', 'Enter');
			const spool = join(box.dir, 'cr', 'spool');
			mkdirSync(spool, {recursive: true});
			const task = await waitFor(
				() =>
					box
						.snapshot()
						.tasks.find(each => each['source'] === 'claude' && each['status'] === 'running' && each['sessionId'] !== null),
				{what: 'the session running its turn', timeoutMs: 90_000, on: [onFileChange(join(spool, 'any'))]},
			);
			const taskId = String(task['id']);
			const log = join(box.dir, 'fake-anthropic.jsonl');
			expect(requests(log).some(request => request.includes('use the v2'))).toBe(false);

			// When a person sends it a word
			const message = 'use the v2 endpoint, not v1';
			const sent = runAsPerson(['send', taskId, message], {env: box.env});
			expect(sent.status, sent.stderr).toBe(0);
			const messageId = /sent (m-[0-9a-f]+) to /.exec(sent.stdout)?.[1] ?? 'none';
			expect(timelineOf(box, taskId)).toContain(`message ${messageId} from`);

			// Then at the end of its turn the Stop hook gives it the message: its next request carries it
			const carried = await waitFor(() => requests(log).find(request => request.includes(message)), {
				what: 'a request carrying the message',
				timeoutMs: 90_000,
				on: [onFileChange(log)],
				explain: () => pane.capture('claude'),
			});
			expect(carried).toContain('Stop hook feedback');
			expect(carried).toContain(messageId);
			await pane.waitFor('claude', text => text.includes('read your message'), 60_000);
			// And the timeline shows it sent, then delivered
			const timeline = timelineOf(box, taskId);
			expect(timeline).toContain(`message ${messageId} delivered (stop-hook)`);
			// Given once: the next turn boundary gives nothing again
			expect(requests(log).filter(request => request.includes(message))).toHaveLength(1);
		},
		SLOW,
	);

	it(
		'a held headless run gets the message with its resume, at the end of its resumed turn',
		async () => {
			// Given a wrapped claude -p held on a call the policy holds
			const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '200'});
			installClaudeHooks(box);
			const run = startHeld(box, [RM_BUILD, {text: 'cleaned'}, {text: 'read your message'}], started);
			const id = await question(run);
			const taskId = taskOf(run) ?? 'none';

			// When a person sends it a word while it waits, then allows the call
			const message = 'keep build/README';
			const sent = runAsPerson(['send', taskId, message], {env: box.env});
			expect(sent.status, sent.stderr).toBe(0);
			const log = join(box.dir, 'fake-anthropic.jsonl');
			expect(requests(log).some(request => request.includes(message))).toBe(false);
			const said = runAsPerson(['decide', id, 'allow'], {env: box.env});
			expect(said.status, said.stderr).toBe(0);

			// Then the resumed session ends its turn, is given the message, and goes on with it
			const code = await run.done;
			expect(code, run.stderr()).toBe(0);
			const carrying = requests(log).filter(request => request.includes(message));
			expect(carrying).toHaveLength(1);
			expect(carrying[0]).toContain('Stop hook feedback');
			await waitFor(() => timelineOf(box, taskId).includes('delivered (stop-hook)'), {
				what: 'the delivery in the timeline',
				timeoutMs: 30_000,
				on: [onLedgerChange(join(box.dir, 'cr', 'ledger.db')), onExit(run.child)],
			});
		},
		SLOW,
	);
});
