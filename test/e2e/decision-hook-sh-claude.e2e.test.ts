import type {ChildProcess} from 'node:child_process';
import {existsSync, linkSync, readFileSync, realpathSync, unlinkSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import {scratchDir} from '../helpers/cli.ts';
import {RM_BUILD, endStarted, startHeld, toolResults} from '../helpers/held-runs.ts';
import {realClientBox} from '../helpers/realclients.ts';

// The hold hook's shell path (docs/decisions.md, "What the hooks cost") as the real Claude Code
// 2.1.328 runs it: the wrapper runs on a Node whose file is removed as soon as it has started, so
// the hook can answer only what needs no Node. The ordinary calls run; the held one, which needs
// Node, is denied with the reason (the safe answer), never run.

const SLOW = 240_000;
const started: ChildProcess[] = [];
afterEach(() => endStarted(started));

describe('the hold hook with no Node to start (real Claude Code)', () => {
	it(
		'lets an ordinary command and a write inside the folder run, and denies rm -rf with the reason',
		async () => {
			const box = realClientBox({SCENARIO: 'script'});
			const node = join(scratchDir('cr-gone-node-'), 'node');
			linkSync(realpathSync(process.execPath), node);
			const written = join(box.dir, 'project', 'notes.txt');
			const turns = [
				{tool: 'Bash', input: {command: 'ls -la', description: 'List files'}},
				{tool: 'Write', input: {file_path: written, content: 'hello\n'}},
				RM_BUILD,
				{text: 'done'},
			];
			// Claude's own permissions let writes in the folder through (acceptEdits): what the hook answers decides.
			const run = startHeld(box, turns, started, {
				node,
				// The run's folder is the agent's: the write lands inside it.
				flags: ['--cwd', join(box.dir, 'project')],
				extra: ['--permission-mode', 'acceptEdits'],
			});
			// Once started, its Node's file is gone: the hook's `exec NODE` cannot happen.
			await new Promise<void>(resolve => run.child.once('spawn', resolve));
			unlinkSync(node);
			expect(await run.done, run.stderr()).toBe(0);
			// Each request to the model repeats the conversation: the tool results are read from all of them.
			const results = toolResults(box.dir).join('\n');
			expect(results).toMatch(/keep\.txt/);
			expect(existsSync(written) ? readFileSync(written, 'utf8') : results).toBe('hello\n');
			expect(results).toMatch(/controlroom could not check this call against its hold policy \(Node is not at .*\); not run/);
			expect(existsSync(join(box.dir, 'project', 'build', 'f'))).toBe(true);
		},
		SLOW,
	);
});
