import {execFileSync, spawnSync} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {beforeEach, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {sessionTaskId} from '../../src/ledger/payload-mapping.ts';
import {BIN, runCli, scratchDir} from '../helpers/cli.ts';
import {homeWithLedger, runHookBin} from '../helpers/hook.ts';
import {expectOneLine} from '../helpers/one-line.ts';
import {claudePayload} from '../helpers/payloads.ts';

// Reactions by rule (docs/reactions.md): a failed CI report sends the log's last lines to the
// owning session once, through the message hook a real Claude Code runs at its Stop; a second
// report within the retry window sends nothing more; the rule file's problems are one line each.

/** A FIFO at `path`, made through sh as the other fault tests make one. */
const mkfifo = (path: string): void => void execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', path]);

const SESSION = '5e55a9e0-0000-4000-8000-0000000000r1';

const RULES = `version: 1
rules:
  - name: ci-log-to-owner
    on: ci-failed
    do: send
    lines: 50
    retries: 2
    retry-window: 10m
    escalate-after: 3
`;

let home: string;
let ledgerFile: string;
let taskId: string;
let rulesFile: string;
beforeEach(() => {
	({home, ledgerFile} = homeWithLedger());
	for (const name of ['SessionStart', 'UserPromptSubmit'])
		expect(runHookBin(home, [], JSON.stringify(claudePayload(name, SESSION))).status).toBe(0);
	taskId = sessionTaskId('claude', SESSION);
	rulesFile = join(home, 'reactions.yaml');
	writeFileSync(rulesFile, RULES);
});

const env = () => ({CONTROLROOM_HOME: home, CONTROLROOM_REACTIONS: rulesFile});

/** The Stop hook as Claude Code runs it, for the session. */
function stopHook(): string {
	const run = spawnSync(process.execPath, [BIN, 'message-hook'], {
		input: JSON.stringify(claudePayload('Stop', SESSION)),
		env: {...process.env, ...env(), CONTROLROOM_TASK_ID: ''},
		encoding: 'utf8',
	});
	expect(run.status).toBe(0);
	return run.stdout;
}

function eventsOfTask(types: readonly string[]): {type: string; data: Record<string, unknown>}[] {
	const ledger = openLedger(ledgerFile, {isReadonly: true});
	try {
		return ledger.reader
			.eventsOf(taskId)
			.filter(event => types.includes(event.type))
			.map(event => ({type: event.type, data: event.data as Record<string, unknown>}));
	} finally {
		ledger.close();
	}
}

function logOf(lines: number, dir = scratchDir()): string {
	const file = join(dir, 'ci.log');
	const text = Array.from({length: lines}, (_, index) => `\u001b[31mline ${index + 1}\u001b[0m of the build`).join('\n');
	writeFileSync(file, `${text}\n`);
	return file;
}

describe('ci report → ci-failed → send', () => {
	it(
		'sends the last 50 lines of a 500-line log once; a second report within the retry window sends nothing more',
		{timeout: 60_000},
		() => {
			const log = logOf(500);
			const first = runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', log], {env: env()});
			expect(first.status, first.stderr).toBe(0);
			expect(first.stdout).toContain(`recorded: ci failed on ${taskId} (log 500 lines, last 500 kept)`);
			expect(first.stdout).toContain(`fired ci-log-to-owner on ci-failed (task ${taskId}): send`);
			expect(first.stdout).toMatch(/attempt 1: queued \(message m-/);

			// The session's next turn boundary: the Stop hook blocks with the lines, escape codes taken out
			const answer = JSON.parse(stopHook()) as {decision: string; reason: string};
			expect(answer.decision).toBe('block');
			const sentLines = answer.reason.split('\n').filter(line => /^line \d+ of the build$/.test(line));
			expect(sentLines).toEqual(Array.from({length: 50}, (_, index) => `line ${451 + index} of the build`));
			expect(answer.reason).toContain('The last 50 of its 500 log lines');
			expect(answer.reason).not.toContain('\u001b');

			// A second report within the window: recorded, the rule skips, nothing is sent or delivered
			const second = runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', log], {env: env()});
			expect(second.status, second.stderr).toBe(0);
			expect(second.stdout).toMatch(
				/fired ci-log-to-owner on ci-failed \(task c-[0-9a-f]+\): skip, sent .* within the retry window of 10m/,
			);
			expect(stopHook()).toBe('');
			// A reconciler pass sees both reports again and fires nothing more
			const pass = runCli(['reactions', 'run'], {env: env()});
			expect(pass.stdout.trim()).toBe('nothing fired');
			expect(eventsOfTask([EventType.messageSent, EventType.messageDelivered]).map(event => event.type)).toEqual([
				EventType.messageSent,
				EventType.messageDelivered,
			]);
			const fired = eventsOfTask([EventType.reactionFired]).map(event => event.data['outcome']);
			expect(fired).toEqual(['send', 'skip']);
			// explain and the timeline show each firing
			const timeline = runCli(['timeline', taskId], {env: env()}).stdout;
			expect(timeline).toContain('reaction ci-log-to-owner on ci-failed: send');
			expect(timeline).toContain('reaction ci-log-to-owner on ci-failed: skip');
			const explained = runCli(['explain', taskId], {env: env()}).stdout;
			expect(explained).toMatch(/^reactions 2 firings {2}\[reported\]$/m);
			expect(explained).toMatch(/reaction\.fired #\d+ by reactions, .* ago: reaction ci-log-to-owner on ci-failed: send/);
		},
	);

	it('--dry-run records nothing and sends nothing', () => {
		const log = logOf(20);
		const dry = runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', log, '--dry-run'], {env: env()});
		expect(dry.status, dry.stderr).toBe(0);
		expect(dry.stdout).toContain(`would fire ci-log-to-owner on ci-failed (task ${taskId}): send`);
		expect(eventsOfTask([EventType.ciReported, EventType.reactionFired, EventType.messageSent])).toEqual([]);
		expect(stopHook()).toBe('');
	});

	it('reads a 10 MB log from its end', {timeout: 30_000}, () => {
		const dir = scratchDir();
		const file = join(dir, 'big.log');
		const line = `${'x'.repeat(99)}\n`;
		writeFileSync(file, line.repeat(100_000).concat('the last line\n'));
		const result = runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', file], {env: env()});
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain('log 100001 lines, last 500 kept');
		const [report] = eventsOfTask([EventType.ciReported]);
		expect((report?.data['logLines'] as string[]).at(-1)).toBe('the last line');
	});

	it('refuses bad input in one line, nothing recorded', {timeout: 60_000}, () => {
		const dir = scratchDir();
		const fifo = join(dir, 'pipe');
		mkfifo(fifo);
		expectOneLine(
			runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', fifo], {env: env()}),
			64,
			/a FIFO, not a file/,
		);
		mkdirSync(join(dir, 'folder'));
		expectOneLine(
			runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', join(dir, 'folder')], {env: env()}),
			64,
			/a folder, not a file/,
		);
		expectOneLine(
			runCli(['ci', 'report', '--task', taskId, '--status', 'failed', '--log', join(dir, 'no\u001b[2Jlog')], {env: env()}),
			64,
			/no\\e\[2Jlog: cannot be read \(no such file\)/,
		);
		expectOneLine(
			runCli(['ci', 'report', '--task', taskId, '--status', 'broken'], {env: env()}),
			64,
			/--status must be failed or passed/,
		);
		expectOneLine(runCli(['ci', 'report', '--status', 'failed'], {env: env()}), 64, /--task TASK is required/);
		expect(eventsOfTask([EventType.ciReported])).toEqual([]);
	});
});

describe('reactions check', () => {
	function check(text: string) {
		writeFileSync(rulesFile, text);
		return runCli(['reactions', 'check', '--rules', rulesFile], {env: env()});
	}

	it('lists a valid file', () => {
		const result = runCli(['reactions', 'check'], {env: env()});
		expect(result.status, result.stderr).toBe(0);
		expect(result.stdout).toContain('version 1, 1 rules, valid');
		expect(result.stdout).toContain(
			'ci-log-to-owner: ci-failed → send (last 50 lines, 2 retries, retry window 10m, escalate after 3 sends)',
		);
	});

	it('refuses a self-triggering rule, naming the cycle', () => {
		const result = check('version: 1\nrules:\n  - {name: echo, on: sent, do: send}\n');
		expectOneLine(result, 78, /rule echo triggers itself: echo \(send\) → sent → echo$/m);
	});

	it('refuses a loop through two rules, naming it', () => {
		const result = check('version: 1\nrules:\n  - {name: a, on: sent, do: notify}\n  - {name: b, on: notified, do: send}\n');
		expectOneLine(result, 78, /rules trigger one another in a loop: a \(notify\) → notified → b \(send\) → sent → a/);
	});

	it('refuses unknown events and actions, one line each', () => {
		const result = check(
			'version: 1\nrules:\n  - {name: a, on: ci-fail, do: send}\n  - {name: b, on: stalled, minutes: 5, do: approve}\n',
		);
		expect(result.status).toBe(78);
		const lines = result.stderr.trimEnd().split('\n');
		expect(lines).toHaveLength(2);
		expect(lines[0]).toMatch(/rule 1 \(a\): unknown event 'ci-fail' \(did you mean ci-failed\?\)/);
		expect(lines[1]).toMatch(/rule 2 \(b\): unknown action 'approve' \(a rule never approves anything\)/);
		expect(result.stderr).not.toContain('    at ');
	});

	it('refuses what is not a rule file: a FIFO, escape codes shown escaped', {timeout: 30_000}, () => {
		const fifo = join(scratchDir(), 'rules\u001b]0;x\u0007');
		mkfifo(fifo);
		expectOneLine(runCli(['reactions', 'check', '--rules', fifo], {env: env()}), 78, /rules\\e\]0;x\\a: a FIFO, not a file/);
		expectOneLine(check('version: 2\nrules: []\n'), 78, /version/);
		expectOneLine(
			check('version: 1\nrules:\n  - {name: a, on: ci-failed, do: send, lins: 5}\n'),
			78,
			/unknown setting 'lins' \(did you mean lines\?\)/,
		);
	});
});
