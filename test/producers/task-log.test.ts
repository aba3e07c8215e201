import {appendFileSync, copyFileSync, existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {afterEach, describe, expect, it} from 'vitest';
import type {TaskLog} from '../../src/core/board/log-view.ts';
import {EventType} from '../../src/core/events.ts';
import {openLedger, type Ledger} from '../../src/ledger/open-ledger.ts';
import {createLogReader} from '../../src/producers/task-log.ts';
import {keepOutput, outputFileOf, prepareOutputDir, pruneOutputFiles} from '../../src/producers/wrapper/output-file.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {onFileChange, waitFor} from '../helpers/wait-for.ts';
import {sandbox} from './helpers.ts';

const open: Ledger[] = [];
const stops: (() => void)[] = [];
afterEach(() => {
	for (const stop of stops.splice(0)) stop();
	for (const ledger of open.splice(0)) ledger.close();
});

function ledgerIn(dir: string): Ledger {
	const ledger = openLedger(join(dir, 'ledger.db'));
	open.push(ledger);
	return ledger;
}

/** Watches a task's log; `latest()` is the last read, `reads` counts them. */
function watchLog(ledger: Ledger, taskId: string) {
	let latest: TaskLog | null = null;
	let reads = 0;
	const listeners = new Set<() => void>();
	stops.push(
		createLogReader(ledger).watch(taskId, log => {
			latest = log;
			reads += 1;
			for (const listener of listeners) listener();
		}),
	);
	const wakeup = (look: () => void) => (listeners.add(look), () => void listeners.delete(look));
	return {latest: () => latest, reads: () => reads, wakeup};
}

describe('the bounded copy of a run’s output', () => {
	it('keeps what the child writes, and past the cap starts a new file, keeping the one before as .1', () => {
		// Given a keeper with a 100-byte cap
		const file = join(scratchDir('cr-out-'), 'w-1.log');
		const problems: string[] = [];
		const keeper = keepOutput(file, problem => problems.push(problem), 100);
		// When 250 bytes arrive in 10 writes
		for (let index = 0; index < 10; index += 1)
			keeper.write(Buffer.from(`line ${String(index).padStart(2, '0')} ${'x'.repeat(15)}\n`));
		keeper.close();
		// Then no file is over the cap, the newest output is in the file and the output before it in .1
		expect(statSync(file).size).toBeLessThanOrEqual(100);
		expect(statSync(`${file}.1`).size).toBeLessThanOrEqual(100);
		expect(readFileSync(file, 'utf8')).toContain('line 09');
		expect(readFileSync(`${file}.1`, 'utf8')).toContain('line 05');
		expect(problems).toEqual([]);
	});

	it('says once that it cannot keep the output, and carries on', () => {
		const file = join(scratchDir('cr-out-'), 'missing-folder', 'w-1.log');
		const problems: string[] = [];
		const keeper = keepOutput(file, problem => problems.push(problem));
		keeper.write(Buffer.from('one\n'));
		keeper.write(Buffer.from('two\n'));
		expect(problems).toHaveLength(1);
		expect(problems[0]).toContain('the run goes on');
	});

	it('removes output files no one has written to for a week', () => {
		const home = scratchDir('cr-out-');
		prepareOutputDir(home);
		const old = outputFileOf(home, 'w-old');
		const fresh = outputFileOf(home, 'w-new');
		const keeper = keepOutput(old, () => undefined);
		keeper.write(Buffer.from('old\n'));
		keeper.close();
		copyFileSync(old, fresh);
		const eightDaysAgo = (Date.now() - 8 * 24 * 3_600_000) / 1000;
		utimesSync(old, eightDaysAgo, eightDaysAgo);
		pruneOutputFiles(home, Date.now());
		expect(existsSync(old)).toBe(false);
		expect(existsSync(fresh)).toBe(true);
	});

	it('is written by `controlroom run` under $CONTROLROOM_HOME/output and named in the registered event', () => {
		const box = sandbox();
		// --ledger names a file in a folder that exists.
		mkdirSync(box.home, {recursive: true});
		const result = runCli(['run', '--ledger', box.ledgerFile, '--', 'sh', '-c', "printf 'out\\n'; printf 'err\\n' >&2"], {
			env: box.env,
		});
		expect(result.stdout).toBe('out\n');
		const ledger = openLedger(box.ledgerFile);
		open.push(ledger);
		const [task] = ledger.reader.tasksForView(null);
		const [registered] = ledger.reader.latestEventsOf(task?.id ?? '', [EventType.registered], 1);
		expect(registered?.data.output).toBe(outputFileOf(box.home, task?.id ?? ''));
		expect(
			readFileSync(registered?.data.output ?? '', 'utf8')
				.split('\n')
				.sort(),
		).toEqual(['', 'err', 'out']);
	});
});

describe("the board's log reader", () => {
	it("reads a wrapped run's output as plain lines and reads again when it grows", async () => {
		// Given a task whose registered event names its output file
		const dir = scratchDir('cr-log-');
		const ledger = ledgerIn(dir);
		prepareOutputDir(dir);
		const file = outputFileOf(dir, 'w-1');
		const keeper = keepOutput(file, () => undefined);
		keeper.write(Buffer.from('\u001B[1mbuilding\u001B[0m\n10%\r100%\n'));
		ledger.writer.append([{taskId: 'w-1', type: EventType.registered, at: 1, source: 'wrapper', data: {output: file}}]);
		// When the log is watched and the run writes more
		const log = watchLog(ledger, 'w-1');
		expect(log.latest()).toMatchObject({source: 'output', lines: ['building', '100%']});
		keeper.write(Buffer.from('done\n'));
		keeper.close();
		// Then the new line is read without being asked
		await waitFor(() => log.latest()?.lines.at(-1) === 'done', {what: 'the new line', on: [log.wakeup]});
	});

	it('joins the rotated file and the current one, and says older output is not shown', () => {
		const dir = scratchDir('cr-log-');
		const ledger = ledgerIn(dir);
		prepareOutputDir(dir);
		const file = outputFileOf(dir, 'w-2');
		const keeper = keepOutput(file, () => undefined, 64);
		for (let index = 0; index < 20; index += 1) keeper.write(Buffer.from(`line ${index}\n`));
		keeper.close();
		ledger.writer.append([{taskId: 'w-2', type: EventType.registered, at: 1, source: 'wrapper', data: {output: file}}]);
		const log = watchLog(ledger, 'w-2').latest();
		expect(log?.lines.at(-1)).toBe('line 19');
		expect(log?.lines.length).toBeGreaterThan(8);
		expect(log?.note).toContain('older output not shown');
	});

	it("shows an agent session's last messages from its transcript, and from its hooks when the transcript is gone", async () => {
		const dir = scratchDir('cr-log-');
		const ledger = ledgerIn(dir);
		// Where Claude keeps it (under projects/ of its config folder), as the token reader took it
		mkdirSync(join(dir, 'claude', 'projects', '-repo'), {recursive: true});
		const transcript = join(dir, 'claude', 'projects', '-repo', 'session.jsonl');
		copyFileSync(new URL('../fixtures/transcripts/session.jsonl', import.meta.url), transcript);
		ledger.writer.append([
			{taskId: 'c-1', type: EventType.registered, at: 1, source: 'claude', data: {sessionId: 's-1'}},
			{
				taskId: 'c-1',
				type: EventType.agentEvent,
				at: 2,
				source: 'claude',
				data: {event: 'UserPromptSubmit', payload: {prompt: 'say hi', transcript_path: transcript}},
			},
		]);
		ledger.writer.saveTranscriptCursor({path: transcript, taskId: 'c-1', offset: 0, lastMessageId: null, at: 2});
		const log = watchLog(ledger, 'c-1');
		expect(log.latest()?.source).toBe('transcript');
		expect(log.latest()?.lines).toContain('claude → Bash echo hi');
		// A new message in the transcript is read without being asked.
		appendFileSync(
			transcript,
			`${JSON.stringify({type: 'assistant', message: {role: 'assistant', content: [{type: 'text', text: 'all done'}]}})}\n`,
		);
		await waitFor(() => log.latest()?.lines.at(-1) === 'claude: all done', {what: 'the new message', on: [log.wakeup]});
		// Without a readable transcript, what the hooks recorded.
		writeFileSync(transcript, '');
		await waitFor(() => log.latest()?.source === 'ledger', {
			what: 'the hooks’ messages',
			on: [log.wakeup, onFileChange(transcript)],
		});
		expect(log.latest()?.lines).toEqual(['you: say hi']);
	});

	it('never reads a path a payload names that the token reader did not take (a secret, a link, a FIFO)', () => {
		const dir = scratchDir('cr-log-');
		const ledger = ledgerIn(dir);
		const secret = join(dir, 'secret.jsonl');
		writeFileSync(secret, `${JSON.stringify({type: 'user', message: {role: 'user', content: 'the secret'}})}\n`);
		ledger.writer.append([
			{taskId: 'c-2', type: EventType.registered, at: 1, source: 'claude', data: {sessionId: 's-2'}},
			{
				taskId: 'c-2',
				type: EventType.agentEvent,
				at: 2,
				source: 'claude',
				data: {event: 'Stop', payload: {transcript_path: secret}},
			},
		]);
		expect(watchLog(ledger, 'c-2').latest()).toMatchObject({source: 'ledger', lines: []});
	});

	it('says why there is no log for a task controlroom did not start, or an interactive Claude Code run', () => {
		const dir = scratchDir('cr-log-');
		const ledger = ledgerIn(dir);
		ledger.writer.append([
			{taskId: 'u-1', type: EventType.discovered, at: 1, source: 'reconciler', data: {pid: 1, command: 'codex'}},
			{taskId: 'w-3', type: EventType.registered, at: 1, source: 'wrapper', data: {agent: 'claude', output: null}},
		]);
		expect(watchLog(ledger, 'u-1').latest()).toMatchObject({source: 'none', origin: expect.stringContaining('did not start')});
		expect(watchLog(ledger, 'w-3').latest()?.origin).toContain('Claude Code ran in its own terminal');
	});
});
