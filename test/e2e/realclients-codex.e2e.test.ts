import {spawnSync} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {realClientBox, realClientScript, type RealClientBox} from '../helpers/realclients.ts';

const CODEX = realClientScript('codex-offline.sh');
const SLOW = 180_000;
/** Other people's agents on this machine are not this test's: look for no untracked process. */
const NO_UNTRACKED = ['--agents', 'cr-no-such-agent'];
const EXEC = [
	'exec',
	'--json',
	'--skip-git-repo-check',
	'--dangerously-bypass-hook-trust',
	'-c',
	'tools.update_plan.enabled=true',
];

function installCodexHooks(box: RealClientBox): void {
	const install = box.cli(['hooks', 'install', '--codex'], {CODEX_HOME: join(box.dir, 'codex-home')});
	expect(install.status, install.stderr).toBe(0);
	expect(install.stdout).toContain('SessionEnd');
}

/** A reconciler pass: folds what the hooks spooled, ends or loses what vanished. */
function reconcileOnce(box: RealClientBox): void {
	const pass = box.cli(['reconcile', '--once', ...NO_UNTRACKED]);
	expect(pass.status, pass.stderr).toBe(0);
}

describe('real Codex with controlroom hooks', () => {
	it(
		'ends done with progress 2/2 (SessionEnd registered)',
		() => {
			const box = realClientBox({SCENARIO: 'plan'});
			installCodexHooks(box);
			const run = spawnSync(CODEX, [box.dir, ...EXEC, 'say hi and track it in a plan'], {env: box.env, encoding: 'utf8'});
			expect(run.status, run.stderr).toBe(0);
			// Codex caps a SessionEnd hook at 3 s and reports a longer one on every run, as an error item.
			expect(run.stdout).toContain('"type":"turn.completed"');
			expect(`${run.stdout}${run.stderr}`).not.toMatch(/clamping .* hook timeout/);
			reconcileOnce(box);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				source: 'codex',
				status: 'done',
				progress: {done: 2, total: 2},
				sessionId: expect.any(String),
				pid: expect.any(Number),
			});
		},
		SLOW,
	);

	it(
		'under the wrapper is one task',
		() => {
			const box = realClientBox({SCENARIO: 'plan'});
			installCodexHooks(box);
			const run = box.cli(['run', '--', CODEX, box.dir, ...EXEC, 'say hi and track it in a plan']);
			expect(run.status, run.stderr).toBe(0);
			reconcileOnce(box);
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({
				id: expect.stringMatching(/^w-/),
				source: 'wrapper',
				status: 'done',
				sessionId: expect.any(String),
				progress: {done: 2, total: 2},
			});
		},
		SLOW,
	);

	it(
		'an exec that finished its turn and exited, with no SessionEnd hook, ends (exit unknown), not lost',
		() => {
			// Given hooks as an older install left them: no SessionEnd
			const box = realClientBox({SCENARIO: 'plan'});
			installCodexHooks(box);
			const hooksFile = join(box.dir, 'codex-home', 'hooks.json');
			const hooks = JSON.parse(readFileSync(hooksFile, 'utf8'));
			delete hooks.hooks.SessionEnd;
			writeFileSync(hooksFile, JSON.stringify(hooks, null, 2));
			// When codex exec completes its turn and exits, then a reconciler pass runs
			const run = spawnSync(CODEX, [box.dir, ...EXEC, 'say hi and track it in a plan'], {env: box.env, encoding: 'utf8'});
			expect(run.status, run.stderr).toBe(0);
			reconcileOnce(box);
			reconcileOnce(box);
			// Then its session is ended, not lost, its exit code unknown and the reason said
			const {tasks} = box.snapshot();
			expect(tasks).toHaveLength(1);
			expect(tasks[0]).toMatchObject({source: 'codex', status: 'done', exitCode: null, pid: expect.any(Number)});
			expect(String(tasks[0]?.['endReason'])).toMatch(/gone|went away|exit/);
			expect(box.cli(['snapshot', '--fail-on', 'lost']).status).toBe(0);
		},
		SLOW,
	);
});
