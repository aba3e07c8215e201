import {spawn, type ChildProcess} from 'node:child_process';
import {mkdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {SnapshotDecision} from '../../src/core/decisions/view.ts';
import {askDecision} from '../../src/gates/decisions.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {TWELVE_K_TURNS, turnsRun} from '../helpers/budget-turns.ts';
import {realClientBox, realClientScript, type RealClientBox, installClaudeHooks} from '../helpers/realclients.ts';
import {Tmux} from '../helpers/tmux.ts';
import {onExit, onOutput, waitFor} from '../helpers/wait-for.ts';

// The board's Decisions panel in a real terminal (docs/decisions.md, "The board"): hostile
// arguments reach tmux escaped, at 160x45 and 80x24; and a budget question of a wrapped `claude -p`
// (the real Claude Code, offline) answered from the board: `a +20000` resumes the same session,
// `x` stops the run with exit 125.

let tmux: Tmux | undefined;
const started: ChildProcess[] = [];
afterEach(() => {
	for (const child of started.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
	tmux?.kill();
	tmux = undefined;
});

/** An escape code setting the window title, an OSC 8 link, a bell, NUL and an 8-bit CSI. */
const HOSTILE =
	'echo \u001b]0;pwned\u0007 \u001b]8;;https://evil.example/\u001b\\click me\u001b]8;;\u001b\\ \u0000nul \u009b31m red';

async function startBoard(session: string, width: number, height: number, env: Record<string, string>): Promise<void> {
	const terminal = tmux as Tmux;
	terminal.start(session, width, height, env);
	terminal.type(session, `node ${BIN} board`);
	terminal.send(session, 'Enter');
	await terminal.waitFor(session, pane => pane.includes('NEEDS YOU'), 20_000);
	await waitFor(() => terminal.readsKeys(session), {what: 'the board to read keys', timeoutMs: 20_000});
}

describe('the Decisions panel in tmux', () => {
	it.each([
		[160, 45],
		[80, 24],
	])(
		'at %ix%i shows hostile arguments escaped and a 100 KB command cut in the list, whole and scrolling on drill-in',
		async (width, height) => {
			const home = join(scratchDir('cr-decisions-tmux-'), 'cr');
			expect(runCli(['reconcile', '--once', '--agents', 'cr-no-such-agent'], {env: {CONTROLROOM_HOME: home}}).status).toBe(0);
			const ledger = openLedger(join(home, 'ledger.db'));
			const ask = (taskId: string, args: unknown) =>
				askDecision(ledger, {
					taskId,
					kind: 'deferred',
					agent: 'claude',
					tool: 'Bash',
					args,
					cwd: '/srv/project',
					expiresAt: null,
					toolUseId: 'toolu_01',
					session: 'sess-1',
					waiter: null,
					budget: null,
					source: 'wrapper',
				}).decisionId;
			const hostile = ask('w-hostile', {command: HOSTILE});
			const huge = ask('w-huge', {command: `${'x'.repeat(100_000)} END-OF-COMMAND`});
			ledger.close();
			tmux = new Tmux();
			await startBoard('board', width, height, {PATH: String(process.env['PATH']), CONTROLROOM_HOME: home});
			const listed = await tmux.waitFor('board', pane => pane.includes('DECISIONS (2)') && pane.includes(huge));
			const lines = listed.pane.split('\n');
			// The panel's lines (Needs you's Decisions lane names them too, as `claude asks (deferred): …`)
			const row = (id: string) => lines.find(line => line.includes(`${id}  `) && !line.includes(' asks (')) ?? '';
			expect(row(hostile)).toContain('claude (deferred)  Bash command="echo \\u001b]0;pwned');
			expect(row(huge)).toMatch(/Bash command="x+…/);
			expect(listed.pane).not.toContain('END-OF-COMMAND');
			// Nothing acted: the title was not set, no raw control character reached the pane.
			expect(tmux.run(['display-message', '-p', '-t', 'board', '#{pane_title}'])).not.toContain('pwned');
			for (const raw of ['\u0000', '\u0007', '\u001b', '\u009b'])
				expect(listed.pane.includes(raw), JSON.stringify(raw)).toBe(false);
			for (const line of lines) expect([...line].length).toBeLessThanOrEqual(width);

			// Tab to the panel (Needs you, Held effects, Decisions); Enter on the hostile one shows it whole
			for (const shown of ['k acknowledges', 'a approve', 'enter shows it whole']) {
				tmux.send('board', 'Tab');
				await tmux.waitFor('board', pane => pane.includes(shown));
			}
			tmux.send('board', 'Enter');
			const whole = await tmux.waitFor('board', pane => pane.includes(`QUESTION ${hostile}`) && pane.includes('sha-256'));
			const joined = whole.pane
				.split('\n')
				.map(line => line.trim())
				.join('');
			expect(joined).toContain('\\u0000nul \\u009b31m red"');
			expect(joined).toContain('\\u001b]8;;https://evil.example/\\u001b\\\\click me');
			expect(tmux.run(['display-message', '-p', '-t', 'board', '#{pane_title}'])).not.toContain('pwned');
			// The 100 KB one: whole on drill-in, scrolling a page at a time
			tmux.send('board', 'Escape');
			await tmux.waitFor('board', pane => pane.includes('enter shows it whole'));
			tmux.send('board', 'j');
			tmux.send('board', 'Enter');
			await tmux.waitFor('board', pane => pane.includes(`QUESTION ${huge}`) && /lines 1–\d+ of \d{3,}/.test(pane));
			tmux.send('board', 'PgDn');
			await tmux.waitFor('board', pane => /lines (?!1–)\d+–\d+ of \d{3,}/.test(pane));
			tmux.send('board', 'a');
			await tmux.waitFor('board', pane => pane.includes(`ALLOW ${huge}`) && pane.includes('Read it whole first'));
			tmux.send('board', 'n');
			await tmux.waitFor('board', pane => pane.includes(`QUESTION ${huge}`));
		},
		120_000,
	);
});

const CLAUDE = realClientScript('claude-offline.sh');

type Wrapped = {readonly child: ChildProcess; stderr(): string; stdout(): string; readonly done: Promise<number | null>};

/** `controlroom run --agent claude --budget 30000 --on-budget ask -- claude -p ...` in the background. */
function startBudgetRun(box: RealClientBox): Wrapped {
	writeFileSync(join(box.dir, 'turns.json'), JSON.stringify(TWELVE_K_TURNS));
	mkdirSync(join(box.dir, 'project'), {recursive: true});
	rmSync(join(box.dir, 'project', 'turns.txt'), {force: true});
	const child = spawn(
		process.execPath,
		[
			BIN,
			'run',
			'--agent',
			'claude',
			'--budget',
			'30000',
			'--on-budget',
			'ask',
			'--',
			CLAUDE,
			box.dir,
			'-p',
			'take your turns',
			'--output-format',
			'json',
			'--dangerously-skip-permissions',
		],
		{env: {...box.env, SCRIPT_FILE: join(box.dir, 'turns.json')}, stdio: ['ignore', 'pipe', 'pipe']},
	);
	started.push(child);
	let stderr = '';
	let stdout = '';
	child.stderr?.on('data', chunk => (stderr += String(chunk)));
	child.stdout?.on('data', chunk => (stdout += String(chunk)));
	const done = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)));
	return {child, stderr: () => stderr, stdout: () => stdout, done};
}

async function questionOf(run: Wrapped): Promise<string> {
	return waitFor(() => /controlroom decide (d-[0-9a-f]{12})/.exec(run.stderr())?.[1], {
		what: 'the run to wait for its budget question',
		timeoutMs: 90_000,
		on: [onOutput(run.child.stderr), onExit(run.child)],
		explain: run.stderr,
	});
}

/** Tab from the lanes to the Decisions panel. */
async function focusDecisions(session: string): Promise<void> {
	for (const shown of ['k acknowledges', 'a approve', 'enter shows it whole']) {
		(tmux as Tmux).send(session, 'Tab');
		await (tmux as Tmux).waitFor(session, pane => pane.includes(shown));
	}
}

describe('a budget question answered from the board (real Claude Code, tmux)', () => {
	it('after the crossing turn no tool runs and the panel shows the spend; a +20000 continues the same session; on another run x gives exit 125', async () => {
		const box = realClientBox({SCENARIO: 'script'});
		// The run's tokens come through controlroom's hooks, where claude-offline.sh's Claude reads them.
		installClaudeHooks(box);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		tmux = new Tmux();
		const env: Record<string, string> = {};
		for (const key of ['PATH', 'CONTROLROOM_HOME']) env[key] = String(box.env[key]);
		await startBoard('board', 160, 45, env);
		const decisions = () =>
			(JSON.parse(box.cli(['snapshot', '--json', '--all']).stdout) as {decisions: SnapshotDecision[]}).decisions;

		// The first run: it crosses 30k on its third turn, whose call is held
		const first = startBudgetRun(box);
		const id = await questionOf(first);
		expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2']);
		const listed = await tmux.waitFor('board', pane => pane.includes('DECISIONS (1)') && pane.includes(id), 20_000);
		// The panel's line (not Needs you's `claude asks (budget): …`) shows the spend
		const panelLine = listed.pane.split('\n').find(line => line.includes(`${id}  `) && !line.includes(' asks (')) ?? '';
		const spend = /claude \(budget\) {2}budget: (\d+) spent of 30000, (\d+) a turn; held Bash command="echo turn3/.exec(
			panelLine,
		);
		expect(Number(spend?.[1]), listed.pane).toBeGreaterThan(30_000);
		expect(Number(spend?.[2])).toBeGreaterThan(11_000);
		expect(Number(spend?.[2])).toBeLessThan(13_000);
		await focusDecisions('board');
		tmux.send('board', 'a');
		await tmux.waitFor('board', pane => pane.includes(`allow ${id}`) && pane.includes('tokens to add (enter alone: +'));
		tmux.type('board', '+20000');
		await tmux.waitFor('board', pane => pane.includes('esc cancels): +20000'));
		tmux.send('board', 'Enter');
		await tmux.waitFor('board', pane => pane.includes(`allowed ${id} with +20000 tokens`), 20_000);
		expect(await first.done, first.stderr()).toBe(0);
		expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2', 'turn3']);
		const results = first
			.stdout()
			.split('\n')
			.filter(line => line.startsWith('{'))
			.map(line => JSON.parse(line) as Record<string, unknown>);
		expect(results).toHaveLength(2);
		expect(results[1]).toMatchObject({result: 'all turns done', session_id: results[0]?.['session_id']});
		expect(decisions().find(decision => decision.id === id)).toMatchObject({
			state: 'used',
			answer: {answer: 'allow', headroom: 20_000},
		});

		// Another run: x with a reason stops it, exit 125, the reason in explain, the held call never run
		const second = startBudgetRun(box);
		const denied = await questionOf(second);
		await tmux.waitFor('board', pane => pane.includes('DECISIONS (1)') && pane.includes(denied), 20_000);
		await focusDecisions('board');
		tmux.send('board', 'x');
		await tmux.waitFor('board', pane => pane.includes(`deny ${denied}`));
		tmux.type('board', 'enough for today');
		await tmux.waitFor('board', pane => pane.includes('enough for today'));
		tmux.send('board', 'Enter');
		expect(await second.done, second.stderr()).toBe(125);
		expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2']);
		const task = /task (w-[0-9a-f]+) waits for you/.exec(second.stderr())?.[1] ?? '';
		const explain = box.cli(['explain', task]);
		expect(explain.stdout).toContain('enough for today');
		expect(explain.stdout).toContain('over budget');
	}, 400_000);
});

/**
 * Interactive turns: three 12k-token turns with a tool call each (the third crosses 30k and is
 * denied), a short text ending the turn; then, at the person's next prompt, a small turn with a
 * tool call (allowed once the person added headroom) and a text.
 */
const INTERACTIVE_TURNS = [
	...TWELVE_K_TURNS.slice(0, 3),
	{text: 'paused for the budget', usage: {input_tokens: 1000}},
	{tool: 'Bash', input: {command: 'echo turn5 >> turns.txt', description: 'turn 5'}, usage: {input_tokens: 1000}},
	{text: 'all done', usage: {input_tokens: 1000}},
];

describe('a budget question of an interactive Claude Code, answered from the board (real TUI, tmux)', () => {
	it('denies every call with the reason once the budget is crossed; a +20000 lets the next call through', async () => {
		const box = realClientBox({SCENARIO: 'script', CLAUDE_TIMEOUT: '280'});
		installClaudeHooks(box);
		expect(box.cli(['reconcile', '--once', '--agents', 'cr-no-such-agent']).status).toBe(0);
		const script = join(box.dir, 'turns.json');
		writeFileSync(script, JSON.stringify(INTERACTIVE_TURNS));
		tmux = new Tmux();
		const env: Record<string, string> = {SCRIPT_FILE: script};
		for (const key of ['PATH', 'REALCLIENTS', 'CONTROLROOM_HOME', 'SCENARIO', 'CLAUDE_TIMEOUT']) env[key] = String(box.env[key]);
		await startBoard('board', 160, 45, env);
		tmux.start('agent', 160, 45, env);
		tmux.type(
			'agent',
			`node ${BIN} run --agent claude --budget 30000 --on-budget ask -- ${CLAUDE} ${box.dir} --dangerously-skip-permissions`,
		);
		tmux.send('agent', 'Enter');
		// Claude asks once whether bypass mode is meant: yes
		await tmux.waitFor('agent', pane => pane.includes('Yes, I accept'), 90_000);
		tmux.send('agent', 'Down');
		await tmux.waitFor('agent', pane => /❯ Yes, I accept/.test(pane));
		tmux.send('agent', 'Enter');
		// The TUI's own prompt box, drawn: keys typed before it are lost
		await tmux.waitFor('agent', pane => pane.includes('Claude Code v') && /^❯\s*$/m.test(pane), 90_000);
		const prompt = async (text: string): Promise<void> => {
			const agent = tmux as Tmux;
			agent.type('agent', text);
			await agent.waitFor('agent', pane => new RegExp(`❯\\s*${text}`).test(pane), 30_000);
			agent.send('agent', 'Enter');
		};
		await prompt('take your turns');
		await tmux.waitFor('agent', pane => pane.includes('paused for the budget'), 90_000);
		// The crossing turn's call was denied with the reason; nothing after it ran
		expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2']);
		const toolResults = readFileSync(join(box.dir, 'fake-anthropic.jsonl'), 'utf8');
		expect(toolResults).toMatch(/token budget 30000 crossed \(\d+ spent\): paused until a person approves more/);
		const listed = await tmux.waitFor(
			'board',
			pane => pane.includes('DECISIONS (1)') && pane.includes('claude (budget)'),
			20_000,
		);
		expect(listed.pane).toMatch(/claude \(budget\) {2}budget: \d{5} spent of 30000/);
		await focusDecisions('board');
		tmux.send('board', 'a');
		await tmux.waitFor('board', pane => pane.includes('tokens to add (enter alone: +'));
		tmux.type('board', '+20000');
		await tmux.waitFor('board', pane => pane.includes('esc cancels): +20000'));
		tmux.send('board', 'Enter');
		await tmux.waitFor('board', pane => /allowed d-[0-9a-f]{12} with \+20000 tokens/.test(pane), 20_000);
		// The next call goes through: the session is the same, the person's next prompt runs it
		await prompt('go on');
		await tmux.waitFor('agent', pane => pane.includes('all done'), 90_000);
		expect(turnsRun(box.dir)).toEqual(['turn1', 'turn2', 'turn5']);
	}, 400_000);
});
