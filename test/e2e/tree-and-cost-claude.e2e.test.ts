import {spawn} from 'node:child_process';
import {readFileSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {fileURLToPath} from 'node:url';
import {afterAll, describe, expect, it} from 'vitest';
import {Tmux} from '../helpers/tmux.ts';
import {realClientBox, realClientScript, type RealClientBox, installClaudeHooks} from '../helpers/realclients.ts';
import {onExit, onLedgerChange, waitFor} from '../helpers/wait-for.ts';

const CLAUDE = realClientScript('claude-offline.sh');
const CONTROLROOM_BIN = fileURLToPath(new URL('../../bin/controlroom', import.meta.url));
/**
 * Three helpers (docs/tree-and-cost.md): A (Bash, then text: 2 answers), B on haiku (1 answer), C in
 * the background (Bash, then a text kept busy 10 s: 2 answers), so C still works after the
 * parent's Stop; the parent makes 5 answers (three Agent calls, its text, and the turn Claude
 * feeds back when C is done).
 */
const THREE_HELPERS = fileURLToPath(new URL('../fixtures/subagents/three-helpers.json', import.meta.url));
const SLOW = 240_000;
/** The fake server's usage on every answer: 1234 in + 100 cache write + 50 cache read, 42 out. */
const PER_ANSWER = {input: 1234 + 100 + 50, output: 42};

type Cost = {amount: number | null; currency: string; priced: string; asOf: string | null; tableAmount?: number | null};
type Row = {
	id: string;
	parentId: string | null;
	status: string;
	state: string;
	helpersActive: number;
	children: string[];
	tokens: {input: number | null; output: number | null};
	treeTokens: {input: number | null; output: number | null};
	cost: Cost;
	treeCost: Cost;
	endReason: string | null;
};

function rows(box: RealClientBox): Row[] {
	return box.snapshot().tasks as unknown as Row[];
}

/** Runs `controlroom run ...` in the background and reads the snapshot at every ledger commit until it exits. */
async function runWatched(box: RealClientBox, args: readonly string[], env: NodeJS.ProcessEnv) {
	const child = spawn(process.execPath, [CONTROLROOM_BIN, 'run', ...args], {
		env: {...box.env, ...env},
		stdio: ['ignore', 'pipe', 'pipe'],
	});
	let stdout = '';
	let stderr = '';
	child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
	child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	let exitCode: number | null | undefined;
	child.on('exit', code => (exitCode = code));
	const seen: Row[][] = [];
	await waitFor(
		() => {
			const done = exitCode !== undefined;
			seen.push(rows(box));
			return done;
		},
		{
			what: 'the wrapped run to end',
			timeoutMs: SLOW - 30_000,
			on: [onLedgerChange(join(box.dir, 'cr', 'ledger.db')), onExit(child)],
			explain: () => stderr,
		},
	);
	return {exitCode, stdout, stderr, seen};
}

const tmux = new Tmux();
afterAll(() => tmux.kill());

describe('a real Claude Code run with three sub-agents under the wrapper', () => {
	it(
		'is drawn on the board in tmux: the parent active for its one running helper, → shows the three with their states',
		async () => {
			const box = realClientBox({SCENARIO: 'script', SCRIPT_FILE: THREE_HELPERS});
			installClaudeHooks(box);
			const ledger = join(box.dir, 'cr', 'ledger.db');
			// The ledger exists before the board opens it.
			expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
			tmux.start('tree', 160, 45, {CONTROLROOM_HOME: join(box.dir, 'cr'), PATH: process.env['PATH'] ?? ''});
			tmux.type('tree', `node ${CONTROLROOM_BIN} --ledger ${ledger} --reconcile 3600`);
			tmux.send('tree', 'Enter');
			await tmux.waitFor('tree', pane => pane.includes('RUNNING (') && pane.includes('sort: '), 20_000);
			const run = runWatched(
				box,
				['--', CLAUDE, box.dir, '-p', 'start three helpers', '--dangerously-skip-permissions', '--output-format', 'json'],
				{},
			);
			// C works on after the parent's Stop: the parent's one line says so, its helpers folded into it.
			await tmux.waitFor(
				'tree',
				pane => pane.includes('active (1 helper running)') && pane.includes('3 helpers: 1 active, 2 ended'),
				120_000,
			);
			tmux.send('tree', 'Right');
			const open = await tmux.waitFor('tree', pane => pane.split('\n').filter(line => line.includes('└ ')).length === 3, 20_000);
			const helperLines = open.pane.split('\n').filter(line => line.includes('└ '));
			expect(
				helperLines.filter(line => / done /.test(line)),
				open.pane,
			).toHaveLength(2);
			expect(
				helperLines.filter(line => / running\/active /.test(line)),
				open.pane,
			).toHaveLength(1);
			expect((await run).exitCode).toBe(0);
			// C ended: the parent is done, its three helpers done beneath it.
			const ended = await tmux.waitFor(
				'tree',
				pane => pane.split('\n').filter(line => line.includes('└ ') && / done /.test(line)).length === 3,
				30_000,
			);
			expect(ended.pane).not.toContain('active (1 helper running)');
			tmux.send('tree', 'q');
		},
		SLOW,
	);

	it(
		'shows the helpers under the parent, active while one works past its Stop, then done; tree tokens and cost exact',
		async () => {
			const box = realClientBox({SCENARIO: 'script', SCRIPT_FILE: THREE_HELPERS});
			installClaudeHooks(box);
			const run = await runWatched(
				box,
				['--', CLAUDE, box.dir, '-p', 'start three helpers', '--dangerously-skip-permissions', '--output-format', 'json'],
				{},
			);
			expect(run.exitCode, run.stderr).toBe(0);

			// Through the run: never done while a helper ran; at some point one helper ran alone, the parent active for it.
			let sawOneRunning = false;
			for (const snapshot of run.seen) {
				const parent = snapshot.find(task => task.parentId === null);
				if (!parent) continue;
				const helpers = snapshot.filter(task => task.parentId === parent.id);
				const running = helpers.filter(helper => helper.status === 'running');
				if (running.length > 0) {
					expect(parent.status, JSON.stringify(snapshot)).not.toBe('done');
					expect(parent.helpersActive).toBe(running.length);
					expect(parent.state).toBe(`active (${running.length} ${running.length === 1 ? 'helper' : 'helpers'} running)`);
				}
				if (helpers.length === 3 && running.length === 1) sawOneRunning = true;
			}
			expect(sawOneRunning, 'one helper ran alone while the other two had ended').toBe(true);

			const tasks = rows(box);
			expect(tasks).toHaveLength(4);
			const parent = tasks.find(task => task.parentId === null) as Row;
			const helpers = tasks.filter(task => task.parentId === parent.id);
			expect(parent).toMatchObject({status: 'done', state: 'done', helpersActive: 0});
			expect(parent.children.toSorted()).toEqual(helpers.map(helper => helper.id).toSorted());
			expect(helpers.map(helper => helper.status)).toEqual(['done', 'done', 'done']);

			// Tokens: answers × the fake server's fixed usage, own and tree, never counted twice.
			const answers = helpers.map(helper => (helper.tokens.output ?? 0) / PER_ANSWER.output).toSorted();
			expect(answers).toEqual([1, 2, 2]);
			for (const helper of helpers)
				expect(helper.tokens.input).toBe((helper.tokens.output! / PER_ANSWER.output) * PER_ANSWER.input);
			expect(parent.tokens).toMatchObject({input: 5 * PER_ANSWER.input, output: 5 * PER_ANSWER.output});
			expect(parent.treeTokens).toMatchObject({input: 10 * PER_ANSWER.input, output: 10 * PER_ANSWER.output});

			// Money: Claude's own total for the run, kept as reported on the tree; the table's figure for the same usage agrees to the cent.
			const result = JSON.parse(run.stdout) as {total_cost_usd: number};
			expect(parent.treeCost).toMatchObject({priced: 'reported', currency: 'USD'});
			expect(parent.treeCost.amount).toBeCloseTo(result.total_cost_usd, 9);
			expect(Math.round((parent.treeCost.tableAmount ?? Number.NaN) * 100)).toBe(Math.round(result.total_cost_usd * 100));
			// To the micro-dollar, too: the table is the one Claude prices with (9 opus answers, 1 haiku).
			expect(parent.treeCost.tableAmount).toBeCloseTo(result.total_cost_usd, 7);
			expect(parent.cost).toMatchObject({priced: 'table', asOf: '2026-12-01'});
			expect(parent.cost.amount).toBeCloseTo(5 * 0.006286, 9);
			const haiku = helpers.find(helper => helper.tokens.output === PER_ANSWER.output) as Row;
			expect(haiku.cost.amount).toBeCloseTo(0.0001574, 6);

			// The text snapshot shows cost beside tokens, the parent's row carrying the reported figure.
			const text = box.cli(['snapshot', '--all'], {COLUMNS: '200'}).stdout;
			expect(text).toMatch(/TOKENS +COST/);
			expect(text).toContain(`$${result.total_cost_usd.toFixed(3)}*`);
		},
		SLOW,
	);

	it(
		'is stopped over --budget, exit 125, when its helpers push the tree over though the parent alone is under it',
		async () => {
			// The parent's own answers stay under 3 000 tokens until the helpers have spoken; the tree passes it.
			const box = realClientBox({SCENARIO: 'script'});
			const script = join(box.dir, 'turns.json');
			const turns = JSON.parse(readFileSync(THREE_HELPERS, 'utf8')) as {main: unknown[]; sub: Record<string, unknown[]>};
			// The parent's last turn waits a minute: only the budget can end the run in time.
			turns.main[3] = {text: 'parent: launched three helpers', delay_ms: 60_000};
			writeFileSync(script, JSON.stringify(turns));
			installClaudeHooks(box);
			const run = await runWatched(
				box,
				[
					'--budget',
					'5000',
					'--grace',
					'2',
					'--',
					CLAUDE,
					box.dir,
					'-p',
					'start three helpers',
					'--dangerously-skip-permissions',
				],
				{SCRIPT_FILE: script},
			);
			expect(run.exitCode, run.stderr).toBe(125);
			expect(run.stderr).toMatch(/over its budget \(\d+ tokens > budget 5000, its helpers included\)/);
			const tasks = rows(box);
			const parent = tasks.find(task => task.parentId === null) as Row;
			expect(parent.status).toBe('stopped');
			expect(parent.endReason).toMatch(/^over budget: \d+ tokens > budget 5000$/);
			const tree = Number(/over budget: (\d+) tokens/.exec(parent.endReason ?? '')?.[1]);
			expect(tree).toBeGreaterThan(5000);
			// The parent alone is under it: the helpers' tokens crossed it.
			expect((parent.tokens.input ?? 0) + (parent.tokens.output ?? 0)).toBeLessThan(5000);
		},
		SLOW,
	);

	it(
		'prices a model the table lacks as unknown, in JSON and on screen, until a user price file names it',
		async () => {
			const box = realClientBox({SCENARIO: 'bash'});
			installClaudeHooks(box);
			const args = [
				'run',
				'--',
				CLAUDE,
				box.dir,
				'-p',
				'say hi',
				'--model',
				'claude-unpriced-9',
				'--dangerously-skip-permissions',
			];
			const run = box.cli(args);
			expect(run.status, run.stderr).toBe(0);
			const [task] = rows(box);
			expect(task?.tokens).toMatchObject({input: 2 * PER_ANSWER.input, output: 2 * PER_ANSWER.output});
			expect(task?.cost).toMatchObject({amount: null, priced: 'unknown', unpriced: ['claude-unpriced-9']});
			expect(task?.treeCost).toMatchObject({amount: null, priced: 'unknown'});
			expect(box.cli(['snapshot', '--all']).stdout).toMatch(/2\.9k\/40M +unknown/);
			// A user's file adds the model: its row names the file as its source, dated as the file says.
			const prices = join(box.dir, 'prices.json');
			const row = {input: 1, output: 10, cacheWrite5m: 1.25, cacheWrite1h: 2, cacheRead: 0.1};
			writeFileSync(prices, JSON.stringify({asOf: '2026-12-02', models: {'claude-unpriced-9': row}}));
			const priced = JSON.parse(box.cli(['snapshot', '--json', '--all'], {CONTROLROOM_PRICES: prices}).stdout).tasks[0];
			// 2 answers × (1234 × 1 + 100 × 1.25 + 50 × 0.1 + 42 × 10) µ$
			expect(priced.cost).toMatchObject({currency: 'USD', priced: 'table', asOf: '2026-12-02'});
			expect(priced.cost.amount).toBeCloseTo(2 * 0.001784, 9);
			expect(box.cli(['snapshot', '--all'], {CONTROLROOM_PRICES: prices}).stdout).toMatch(/2\.9k\/40M +\$0\.0036 /);
			// The board prices with the same file: its row shows the figure, not unknown.
			const env = {CONTROLROOM_HOME: join(box.dir, 'cr'), PATH: process.env['PATH'] ?? '', CONTROLROOM_PRICES: prices};
			tmux.start('priced', 160, 45, env);
			tmux.type('priced', `node ${CONTROLROOM_BIN} --reconcile 3600`);
			tmux.send('priced', 'Enter');
			const board = await tmux.waitFor('priced', pane => pane.includes('RECENTLY ENDED (1)'), 20_000);
			expect(board.pane).toMatch(/2\.9k\/40M +\$0\.0036 /);
			tmux.send('priced', 'q');
			writeFileSync(prices, JSON.stringify({asOf: '2026-12-02', models: {'claude-unpriced-9': {...row, input: -1}}}));
			const bad = box.cli(['snapshot', '--json'], {CONTROLROOM_PRICES: prices});
			expect(bad.status).toBe(78);
			expect(bad.stderr.trim().split('\n')).toHaveLength(1);
			expect(bad.stderr).toContain('input must be a price');
		},
		SLOW,
	);
});
