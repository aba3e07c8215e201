import {spawnSync} from 'node:child_process';
import {mkdirSync, readdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {spoolDir} from '../../src/ledger/paths.ts';
import {runCli} from '../helpers/cli.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {sandbox} from '../producers/helpers.ts';

const GOOD = 1000;
const BAD = 10_000;
/** A 5 MB string is costly to write: one bad file in a thousand carries one (ten in all). */
const HUGE_EVERY = 1000;

const session = (index: number): string => `55555555-aaaa-4bbb-8ccc-${String(index).padStart(12, '0')}`;
const good = (index: number): string =>
	`${JSON.stringify({at: new Date(1_000_000 + index).toISOString(), source: 'claude', payload: claudePayload('Stop', session(index))})}\n`;

/** The bad payloads, in turn: each a different way a spool file can be poison. */
function bad(index: number): Buffer {
	const envelope = (payload: unknown): string =>
		JSON.stringify({at: new Date(2_000_000).toISOString(), source: 'claude', payload});
	if (index % HUGE_EVERY === 0)
		return Buffer.from(envelope(claudePayload('Stop', session(90_000 + index), {huge: 'x'.repeat(5_000_000)})));
	switch (index % 5) {
		case 0: {
			// Random bytes (seeded, so a failure can be reproduced), on one line: one payload, one reject
			const bytes = Buffer.alloc(200);
			for (let at = 0; at < bytes.length; at += 1) bytes[at] = (index * 31 + at * 17) % 256;
			for (let at = 0; at < bytes.length; at += 1) if (bytes[at] === 0x0a) bytes[at] = 0x0b;
			return bytes;
		}
		case 1:
			return Buffer.from(good(index).slice(0, 60));
		case 2:
			return Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}\n`);
		case 3:
			return Buffer.concat([
				Buffer.from('{"at":"x","source":"claude","payload":{"s":"'),
				Buffer.from([0xc3, 0x28, 0xff]),
				Buffer.from('"}}\n'),
			]);
		default:
			return Buffer.from(`${good(index).slice(0, 40)}\u0000${good(index).slice(40)}`);
	}
}

describe('a spool of poison among good payloads', () => {
	it('folds the 1,000 good ones, makes each of the 10,000 bad ones a reject, exits 0, and still marks a dead PID lost', () => {
		// Given a ledger with a wrapped task whose wrapper and child are both gone (a dead PID)
		const box = sandbox();
		const deadPid = spawnSync('true').pid;
		const ledger = openLedger(box.ledgerFile);
		const at = Date.now();
		ledger.writer.append([
			{taskId: 'w-deadbeef01', type: EventType.registered, at, source: 'wrapper', data: {title: 'gone', wrapperPid: deadPid}},
			{
				taskId: 'w-deadbeef01',
				type: EventType.started,
				at,
				source: 'wrapper',
				data: {pid: deadPid, pgid: deadPid, startTime: 1, wrapperPid: deadPid, wrapperStartTime: 1},
			},
		]);
		ledger.close();
		// And a spool of 11,000 files: the good ones spread among the bad
		const spool = spoolDir(box.ledgerFile);
		mkdirSync(spool, {recursive: true});
		for (let index = 0; index < BAD; index += 1)
			writeFileSync(join(spool, `1-${String(index).padStart(5, '0')}-bad.jsonl`), bad(index));
		for (let index = 0; index < GOOD; index += 1)
			writeFileSync(join(spool, `1-${String(index * 10 + 5).padStart(5, '0')}-good.jsonl`), good(index));

		// When one reconciler pass runs
		const started = Date.now();
		const result = runCli(['reconcile', '--once', '--json', '--ledger', box.ledgerFile], {env: box.env});
		process.stdout.write(`poison spool: ${GOOD + BAD} files folded in ${Date.now() - started} ms\n`);

		// Then it exits 0, every good payload landed, every bad one is a reject, the dead PID is lost
		expect(result.status, result.stderr).toBe(0);
		const pass = JSON.parse(result.stdout) as {
			spool: {files: number; appended: number; rejected: number};
			lost: {taskId: string}[];
		};
		process.stdout.write(`poison spool: sent ${GOOD} good + ${BAD} bad; pass ${JSON.stringify(pass.spool)}\n`);
		expect(pass.spool).toMatchObject({files: GOOD + BAD, appended: GOOD, rejected: BAD});
		expect(pass.lost.map(entry => entry.taskId)).toEqual(['w-deadbeef01']);
		const after = openLedger(box.ledgerFile, {isReadonly: true});
		try {
			// (agents running on this machine may show up as untracked rows: only the spooled sessions count)
			const sessions = after.reader.tasksForView(null).filter(task => task.sessionId?.startsWith('55555555-'));
			process.stdout.write(
				`poison spool: stored ${sessions.length} session tasks, ${after.reader.rejects(BAD + 1).length} rejects\n`,
			);
			expect(sessions).toHaveLength(GOOD);
			expect(after.reader.rejects(BAD + 1)).toHaveLength(BAD);
			expect(after.reader.task('w-deadbeef01')?.status).toBe('lost');
		} finally {
			after.close();
		}
		// And nothing is left to fold: the bad files are set aside with their reasons
		expect(readdirSync(spool).filter(name => name.endsWith('.jsonl'))).toEqual([]);
		expect(readdirSync(join(spool, 'rejected')).filter(name => name.endsWith('.reason'))).toHaveLength(BAD);
	}, 300_000);
});
