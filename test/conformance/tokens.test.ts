import {randomUUID} from 'node:crypto';
import {existsSync, readFileSync, statSync} from 'node:fs';
import {join} from 'node:path';
import {CLAUDE_BIN} from '../helpers/realclients.ts';
import {describe, expect} from 'vitest';
import {BIN} from '../helpers/cli.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';
import {type Box, CLAUDE_AT, CODEX_AT} from './box.ts';
import {conformanceRig} from './rig.ts';
import {row} from './table.ts';
import {say, tui} from './tui.ts';

// "What has it spent?" against the real Claude Code 2.1.328 and Codex 0.169.0: exact, or marked.

const {fakes, tmux, plainBox, hookedBox} = conformanceRig();

const SLOW = 240_000;

/** The parts of a Claude transcript line the test reads. */
type TranscriptLine = {
	readonly type?: string;
	readonly isSidechain?: boolean;
	readonly timestamp?: string;
	readonly modelUsage?: Record<string, Record<string, number>>;
	readonly message?: {
		readonly id: string;
		readonly usage?: {
			readonly input_tokens: number;
			readonly output_tokens: number;
			readonly cache_creation_input_tokens: number;
			readonly cache_read_input_tokens: number;
		};
	};
};

/**
 * What a Claude transcript says was spent, read by the test on its own: each assistant message
 * once (by id), everything read (input and both caches) and written; the last `cost-state` line
 * (Claude's own count) when there is one; and when the newest answer was written.
 */
function transcriptTotals(path: string) {
	const seen = new Set<string>();
	let input = 0;
	let output = 0;
	let lastAnswerAt = 0;
	let costState: {input: number; output: number} | null = null;
	for (const line of readFileSync(path, 'utf8').split('\n')) {
		if (line.trim() === '') continue;
		const entry = JSON.parse(line) as TranscriptLine;
		if (entry.type === 'cost-state') {
			const models = Object.values(entry.modelUsage ?? {});
			costState = {
				input: models.reduce(
					(sum, model) =>
						sum + (model['inputTokens'] ?? 0) + (model['cacheReadInputTokens'] ?? 0) + (model['cacheCreationInputTokens'] ?? 0),
					0,
				),
				output: models.reduce((sum, model) => sum + (model['outputTokens'] ?? 0), 0),
			};
		}
		const message = entry.message;
		if (entry.type !== 'assistant' || entry.isSidechain === true || !message?.usage || seen.has(message.id)) continue;
		seen.add(message.id);
		const usage = message.usage;
		input += usage.input_tokens + usage.cache_creation_input_tokens + usage.cache_read_input_tokens;
		output += usage.output_tokens;
		lastAnswerAt = Math.max(lastAnswerAt, Date.parse(entry.timestamp ?? ''));
	}
	return {input, output, lastAnswerAt, costState};
}

/** The session's own transcript, as the token reader took it. */
function transcriptOf(box: Box, taskId: string): string | undefined {
	return box
		.ledger()
		.reader.transcriptsOf([taskId])
		.find(cursor => !cursor.path.includes('/subagents/'))?.path;
}

describe.concurrent('tokens', () => {
	row('T1', 'false', "an idle interactive session: tokens equal the transcript's within 2 s of the answer", SLOW, async () => {
		// Given the real TUI with hooks, and a reconciler running (it follows live transcripts)
		const box = await hookedBox();
		fakes.script('ROW-T1', [{text: 'hello from the idle session'}]);
		const reconciler = box.start(process.execPath, [BIN, 'reconcile']);
		// The promise is about a running reconciler: on a loaded machine its start can take longer than the TUI's answer
		await waitFor(() => reconciler.output().includes('reconciled:'), {
			what: 'the reconciler running (its first pass said)',
			timeoutMs: 60_000,
			on: [onOutput(reconciler.child.stdout!)],
		});
		await tui(tmux, box, 't1', await fakes.anthropic());
		const session = await waitFor(() => box.peek().tasks.find(task => task.source === 'claude'), {
			what: 'the TUI session registered',
			timeoutMs: 60_000,
			on: box.changes(),
		});
		// When it answers one prompt and then sits at its prompt (no hook event comes after the answer is written)
		await say(tmux, 't1', 'ROW-T1 say hi');
		await tmux.waitFor('t1', pane => pane.includes('hello from the idle session'), 60_000);
		// Then the ledger, read as it is (no fold, no read of the transcript by the test), holds the transcript's tokens
		const counted = await waitFor(
			() => {
				const path = transcriptOf(box, session.id);
				const task = box.ledgerTask(session.id);
				if (!path || !task) return undefined;
				const truth = transcriptTotals(path);
				// When the ledger committed it: its WAL's last write (a later commit only makes the lag look longer),
				// not when this busy worker got round to looking
				return truth.input > 0 && task.tokens.input === truth.input && task.tokens.output === truth.output
					? {truth, at: Math.min(Date.now(), statSync(`${box.ledgerFile}-wal`).mtimeMs)}
					: undefined;
			},
			{what: 'the tokens of the answer in the ledger', timeoutMs: 30_000, on: box.changes()},
		);
		const lag = counted.at - counted.truth.lastAnswerAt;
		expect(lag).toBeLessThanOrEqual(2000);
		const task = await box.task(session.id);
		const board = box.board().get(session.id);
		expect(task?.tokens).toMatchObject({input: counted.truth.input, output: counted.truth.output, isPartial: false});
		return {
			board: `tokens ${board?.tokens}`,
			snapshot: `${task?.tokens.input}/${task?.tokens.output}, ${Math.round(lag)} ms after the answer`,
		};
	});

	row('T2', 'false', 'a budget stop comes on the answer that crosses it, on its exact count', SLOW, async () => {
		// Given a wrapped Claude whose second answer passes a budget of 5,000, and whose third would take a minute
		const box = await hookedBox();
		fakes.script('ROW-T2', [
			{tool: 'Bash', input: {command: 'echo one', description: 'one'}},
			{tool: 'Bash', input: {command: 'echo two', description: 'two'}, usage: {input_tokens: 12_000}},
			{text: 'done', delay_ms: 60_000},
		]);
		const port = await fakes.anthropic();
		const run = box.run(
			['--agent', 'claude', '--budget', '5000', '--grace', '2'],
			[CLAUDE_AT, box.dir, '-p', 'ROW-T2 go', '--dangerously-skip-permissions'],
			{
				FAKE_ANTHROPIC_PORT: String(port),
			},
		);
		expect((await box.ended(run)).code).toBe(125);
		const task = (await box.snapshot()).tasks.find(entry => entry.source === 'wrapper');
		const truth = transcriptTotals(transcriptOf(box, task?.id ?? '') ?? '');
		// The two answers it wrote, exactly; stopped within a few seconds of the crossing one, not a minute later
		expect(task?.tokens).toMatchObject({input: 1384 + 12_150, output: 84, total: 13_618});
		expect(task?.tokens.input).toBe(truth.input);
		expect(Date.parse(task?.endedAt ?? '') - truth.lastAnswerAt).toBeLessThanOrEqual(6000);
		const board = box.board().get(task?.id ?? '');
		return {board: `${board?.status} · tokens ${board?.tokens}`, snapshot: `${task?.status}: ${task?.endReason}`};
	});

	row(
		'T3',
		'false',
		"a helper's every answer counts on the helper, and parent plus helpers equal Claude's own count",
		SLOW,
		async () => {
			const box = await hookedBox();
			fakes.script('ROW-T3', [
				{tool: 'Agent', input: {description: 'helper', prompt: 'HELPER-T3 do it', subagent_type: 'general-purpose'}},
				{text: 'main done'},
			]);
			fakes.script('HELPER-T3', [{tool: 'Bash', input: {command: 'echo sub', description: 'sub'}}, {text: 'sub answer'}]);
			const claude = box.claude(await fakes.anthropic(), ['-p', 'ROW-T3 go', '--dangerously-skip-permissions']);
			expect((await box.ended(claude)).code).toBe(0);
			const tasks = (await box.snapshot()).tasks;
			const parent = tasks.find(task => task.source === 'claude');
			const helper = tasks.find(task => task.source === 'claude-helper');
			expect(helper).toMatchObject({parentId: parent?.id, tokens: {input: 2768, output: 84}});
			const own = transcriptTotals(transcriptOf(box, parent?.id ?? '') ?? '');
			expect(own.costState).not.toBeNull();
			expect((parent?.tokens.input ?? 0) + (helper?.tokens.input ?? 0)).toBe(own.costState?.input);
			expect((parent?.tokens.output ?? 0) + (helper?.tokens.output ?? 0)).toBe(own.costState?.output);
			const board = box.board();
			return {
				board: `helper ${board.get(helper?.id ?? '')?.tokens}, parent ${board.get(parent?.id ?? '')?.tokens}`,
				snapshot: `helper ${helper?.tokens.input}/${helper?.tokens.output}; both = cost-state ${own.costState?.input}/${own.costState?.output}`,
			};
		},
	);

	row(
		'T4',
		'false',
		"/compact's model calls are counted: the session's total is Claude's own count (5536/168)",
		SLOW,
		async () => {
			const box = await hookedBox();
			fakes.script('ROW-T4', [{tool: 'Bash', input: {command: 'echo hi', description: 'hi'}}, {text: 'hi'}]);
			const port = await fakes.anthropic();
			expect((await box.ended(box.claude(port, ['-p', 'ROW-T4 hi', '--dangerously-skip-permissions']))).code).toBe(0);
			const first = (await box.snapshot()).tasks.find(task => task.source === 'claude');
			expect(first?.tokens).toMatchObject({input: 2768, output: 84});
			const compact = box.claude(port, ['-p', '/compact', '--resume', first?.sessionId ?? '', '--dangerously-skip-permissions']);
			expect((await box.ended(compact)).code).toBe(0);
			const task = await box.task(first?.id ?? '');
			const claudeSays = transcriptTotals(transcriptOf(box, first?.id ?? '') ?? '').costState;
			expect(claudeSays).toEqual({input: 5536, output: 168});
			expect(task?.tokens).toEqual({input: 5536, output: 168, total: 5704, isPartial: false});
			const board = box.board().get(first?.id ?? '');
			return {board: `tokens ${board?.tokens}`, snapshot: `${task?.tokens.input}/${task?.tokens.output} = cost-state`};
		},
	);

	row(
		'T5',
		'false',
		'an interactive /compact marks the total partial (JSON and screen) until Claude counts it',
		SLOW,
		async () => {
			const box = await hookedBox();
			fakes.script('ROW-T5', [{text: 'first answer'}]);
			box.start(process.execPath, [BIN, 'reconcile']);
			await tui(tmux, box, 't5', await fakes.anthropic());
			const session = await waitFor(() => box.peek().tasks.find(task => task.source === 'claude'), {
				what: 'the TUI session registered',
				timeoutMs: 60_000,
				on: box.changes(),
			});
			await say(tmux, 't5', 'ROW-T5 say hi');
			await tmux.waitFor('t5', pane => pane.includes('first answer'), 60_000);
			await say(tmux, 't5', '/compact');
			const partial = await waitFor(
				() => (box.peek().tasks.find(task => task.id === session.id)?.tokens.isPartial ? true : undefined),
				{
					what: 'the total marked partial after /compact',
					timeoutMs: 60_000,
					on: box.changes(),
				},
			);
			const during = await box.task(session.id);
			const screen = box.board().get(session.id)?.tokens ?? '';
			expect(during?.tokens.isPartial).toBe(partial);
			expect(screen).toMatch(/\+/);
			await say(tmux, 't5', '/exit');
			const settled = await waitFor(
				() => {
					const task = box.peek().tasks.find(entry => entry.id === session.id);
					return task && task.status !== 'running' && !task.tokens.isPartial ? task : undefined;
				},
				{what: "the session ended and Claude's own count read", timeoutMs: 60_000, on: box.changes()},
			);
			const claudeSays = transcriptTotals(transcriptOf(box, session.id) ?? '').costState;
			expect(settled.tokens).toMatchObject({input: claudeSays?.input, output: claudeSays?.output, isPartial: false});
			return {
				board: `${screen} → ${box.board().get(session.id)?.tokens}`,
				snapshot: `partial ${during?.tokens.total}+ → exact ${settled.tokens.total}`,
			};
		},
	);

	row('T6', 'held', 'three agents at once, each with its exact tokens (2768/84)', SLOW, async () => {
		const box = await hookedBox();
		const port = await fakes.anthropic();
		const runs = ['ROW-T6-A', 'ROW-T6-B', 'ROW-T6-C'].map(marker => {
			fakes.script(marker, [{tool: 'Bash', input: {command: 'echo hi', description: 'hi'}}, {text: 'hi'}]);
			return box.claude(port, ['-p', `${marker} hi`, '--dangerously-skip-permissions']);
		});
		for (const run of runs) expect((await box.ended(run)).code).toBe(0);
		const sessions = (await box.snapshot()).tasks.filter(task => task.source === 'claude');
		expect(sessions.map(task => [task.status, task.tokens.input, task.tokens.output])).toEqual([
			['done', 2768, 84],
			['done', 2768, 84],
			['done', 2768, 84],
		]);
		const board = box.board();
		return {board: sessions.map(task => board.get(task.id)?.tokens).join(', '), snapshot: '3 × done 2768/84'};
	});

	row('T7', 'held', 'a Codex run over its --budget is stopped, exit 125, on the exact tokens it reported', SLOW, async () => {
		const box = plainBox();
		const port = await fakes.openai('plan');
		const run = box.run(
			// (codex-at.sh is no `codex` by name: the run is told which agent it runs, as a person with a launcher does)
			['--agent', 'codex', '--budget', '1000', '--grace', '2'],
			[CODEX_AT, box.dir, 'exec', '--json', '--skip-git-repo-check', '-c', 'tools.update_plan.enabled=true', 'ROW-T7 plan it'],
			{FAKE_OPENAI_PORT: String(port)},
		);
		expect((await box.ended(run)).code).toBe(125);
		// What codex exec --json said it used, read from its own output
		const reported = run
			.output()
			.split('\n')
			.filter(line => line.includes('"turn.completed"'))
			.map(line => (JSON.parse(line) as {usage: {input_tokens: number; output_tokens: number}}).usage);
		const task = (await box.snapshot()).tasks[0];
		expect(task).toMatchObject({status: 'stopped', endReason: expect.stringMatching(/^over budget: \d+ tokens > budget 1000$/)});
		expect(task?.tokens).toMatchObject({input: reported.at(-1)?.input_tokens, output: reported.at(-1)?.output_tokens});
		const board = box.board().get(task?.id ?? '');
		return {board: `${board?.status} · tokens ${board?.tokens}`, snapshot: `${task?.status}: ${task?.endReason}`};
	});

	row(
		'T8',
		'false',
		'a resumed claude -p counts only its own turns: --budget 2000, one answer of 1,426 tokens, done with 1,426',
		SLOW,
		async () => {
			// Given a wrapped claude -p that answered once (1,426 tokens) in a session of its own
			const box = await hookedBox();
			fakes.script('ROW-T8', [{text: 'first answer'}, {text: 'second answer'}]);
			const port = await fakes.anthropic();
			const session = randomUUID();
			const claude = [CLAUDE_AT, box.dir, '-p', '--output-format', 'json', '--dangerously-skip-permissions'];
			const first = box.run(['--agent', 'claude'], [...claude, '--session-id', session, 'ROW-T8 first'], {
				FAKE_ANTHROPIC_PORT: String(port),
			});
			expect((await box.ended(first)).code).toBe(0);
			// When a second run resumes that session with a budget of 2,000 and answers once more
			const second = box.run(['--agent', 'claude', '--budget', '2000'], [...claude, '--resume', session, 'ROW-T8 again'], {
				FAKE_ANTHROPIC_PORT: String(port),
			});
			expect((await box.ended(second)).code).toBe(0);
			// Then it ends done with its own answer only: 1,426 tokens, Claude's own cost of that answer, the session beside it
			const resumed = (await box.snapshot()).tasks.find(task => task.budget === 2000);
			const truth = transcriptTotals(transcriptOf(box, resumed?.id ?? '') ?? '').costState;
			expect(truth).toEqual({input: 2768, output: 84});
			expect(resumed).toMatchObject({status: 'done', tokens: {input: 1384, output: 42, total: 1426, isPartial: false}});
			expect(resumed?.treeCost).toMatchObject({amount: 0.006286, priced: 'reported'});
			expect(resumed?.session).toMatchObject({
				before: {input: 1384, output: 42, total: 1426, costUsd: 0.006286},
				tokens: {total: 2852},
				costUsd: 0.012572,
			});
			const board = box.board().get(resumed?.id ?? '');
			return {
				board: `${board?.status} · tokens ${board?.tokens}`,
				snapshot: `${resumed?.status}, ${resumed?.tokens.total} tokens, $${resumed?.treeCost?.amount}; session ${resumed?.session?.tokens.total}`,
			};
		},
	);

	row(
		'T9',
		'false',
		'--budget-covers session counts the resumed session: the same answer after 1,426 earlier tokens is over 2,000',
		SLOW,
		async () => {
			const box = await hookedBox();
			fakes.script('ROW-T9', [
				{text: 'first answer'},
				{tool: 'Bash', input: {command: 'echo two', description: 'two'}},
				{text: 'done'},
			]);
			const port = await fakes.anthropic();
			const session = randomUUID();
			const claude = [CLAUDE_AT, box.dir, '-p', '--dangerously-skip-permissions'];
			const first = box.run(['--agent', 'claude'], [...claude, '--session-id', session, 'ROW-T9 first'], {
				FAKE_ANTHROPIC_PORT: String(port),
			});
			expect((await box.ended(first)).code).toBe(0);
			const second = box.run(
				['--agent', 'claude', '--budget', '2000', '--budget-covers', 'session', '--grace', '2'],
				[...claude, '--resume', session, 'ROW-T9 again'],
				{FAKE_ANTHROPIC_PORT: String(port)},
			);
			expect((await box.ended(second)).code).toBe(125);
			const resumed = (await box.snapshot()).tasks.find(task => task.budget === 2000);
			expect(resumed).toMatchObject({
				status: 'stopped',
				tokens: {total: 1426},
				endReason: 'over budget: 2852 tokens > budget 2000 (the session, its earlier runs included)',
			});
			const board = box.board().get(resumed?.id ?? '');
			return {board: `${board?.status} · tokens ${board?.tokens}`, snapshot: `${resumed?.status}: ${resumed?.endReason}`};
		},
	);

	row(
		'T10',
		'false',
		'a wrapped claude -p with no hooks has its tokens from its own output; a budget it could not count is refused',
		SLOW,
		async () => {
			// Given no hooks installed at all
			const box = plainBox();
			fakes.script('ROW-TEN-JSON', [{text: 'hi'}]);
			fakes.script('ROW-TEN-LAUNCHER', [{text: 'hi'}]);
			fakes.script('ROW-TEN-STREAM', [
				{tool: 'Bash', input: {command: 'echo one', description: 'one'}},
				{tool: 'Bash', input: {command: 'echo two', description: 'two'}, usage: {input_tokens: 12_000}},
				{text: 'done', delay_ms: 60_000},
			]);
			const port = {FAKE_ANTHROPIC_PORT: String(await fakes.anthropic())};
			const claude = [CLAUDE_AT, box.dir, '-p', '--dangerously-skip-permissions'];
			// A budget on text output: refused before anything is registered, with the reason (claude itself, whose settings the run can see)
			const refused = await box.cli(['run', '--budget', '5000', '--', CLAUDE_BIN, '-p', 'ROW-TEN-TEXT hi'], {
				HOME: join(box.dir, 'home'),
				CLAUDE_CONFIG_DIR: join(box.dir, 'home', '.claude'),
			});
			expect(refused.status).toBe(64);
			expect(refused.stderr).toMatch(
				/--budget: this Claude run's tokens cannot be counted: no controlroom hooks .*text output names no tokens/,
			);
			expect(refused.stderr.trim().split('\n')).toHaveLength(1);
			expect(existsSync(box.ledgerFile) ? (await box.snapshot()).tasks : []).toHaveLength(0);
			// Through a launcher with no --agent: it says once that nothing will be held, and runs
			const launched = await box.cli(['run', '--title', 'launcher', '--', ...claude, 'ROW-TEN-LAUNCHER hi'], port);
			expect(launched.status, launched.stderr).toBe(0);
			const heldNotice = launched.stderr.split('\n').filter(line => line.includes('none of its tool calls will be held'));
			expect(heldNotice).toEqual([
				`controlroom: claude-at.sh is not claude and no --agent was given, so the agent is unknown: none of its tool calls will be held (--agent claude holds a headless Claude's; docs/headless-holds.md)`,
			]);
			// --output-format json: the result's usage
			const json = box.run(
				['--agent', 'claude', '--budget', '5000'],
				[...claude, '--output-format', 'json', 'ROW-TEN-JSON hi'],
				port,
			);
			expect((await box.ended(json)).code).toBe(0);
			// stream-json: each answer as it streams, so the budget stops the run on the answer that crosses it
			const stream = box.run(
				['--agent', 'claude', '--budget', '5000', '--grace', '2'],
				[...claude, '--output-format', 'stream-json', '--verbose', 'ROW-TEN-STREAM go'],
				port,
			);
			expect((await box.ended(stream)).code).toBe(125);
			const tasks = (await box.snapshot()).tasks.filter(task => task.title !== 'launcher');
			expect(tasks).toHaveLength(2);
			const done = tasks.find(task => task.status === 'done');
			const stopped = tasks.find(task => task.status === 'stopped');
			expect(done?.tokens).toMatchObject({input: 1384, output: 42});
			expect(done?.treeCost).toMatchObject({amount: 0.006286, priced: 'reported'});
			expect(stopped).toMatchObject({endReason: expect.stringMatching(/^over budget: \d+ tokens > budget 5000$/)});
			expect(stopped?.tokens.input).toBe(1384 + 12_150);
			const board = box.board();
			return {
				board: `json ${board.get(done?.id ?? '')?.tokens}; stream ${board.get(stopped?.id ?? '')?.status}`,
				snapshot: `refused text; json ${done?.tokens.total}; stream ${stopped?.endReason}`,
			};
		},
	);
});
