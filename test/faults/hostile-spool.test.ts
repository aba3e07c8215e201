import {execFileSync} from 'node:child_process';
import {linkSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';
import {describe, expect, it} from 'vitest';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {spoolDir} from '../../src/ledger/paths.ts';
import {runCli} from '../helpers/cli.ts';
import {claudePayload} from '../helpers/payloads.ts';
import {sandbox} from '../producers/helpers.ts';

const GOOD = 20;
const SECRET = 'sk-hostile-spool-secret-value';
const session = (index: number): string => `66666666-aaaa-4bbb-8ccc-${String(index).padStart(12, '0')}`;
const envelope = (index: number): string =>
	`${JSON.stringify({at: new Date(1_000_000 + index).toISOString(), source: 'claude', payload: claudePayload('Stop', session(index))})}\n`;
const mkfifo = (path: string): void => void execFileSync('sh', ['-c', 'mkfifo "$1"', 'sh', path]);

describe('a spool an agent has planted things in', () => {
	it('folds every good file within 5 s past FIFOs, device links and links to secrets, copies no secret, writes nothing outside the spool', () => {
		// Given a ledger, a secret and a victim file outside the spool
		const box = sandbox();
		openLedger(box.ledgerFile).close();
		const spool = spoolDir(box.ledgerFile);
		mkdirSync(join(spool, 'rejected'), {recursive: true});
		const secret = join(box.dir, 'secret.txt');
		writeFileSync(secret, `{"session_id":"${SECRET}","hook_event_name":"Stop"}\n`);
		const victim = join(box.dir, 'victim.txt');
		writeFileSync(victim, 'untouched\n');
		// And good files among the planted ones, under both spool suffixes
		for (let index = 0; index < GOOD; index += 1)
			writeFileSync(join(spool, `2-${String(index).padStart(3, '0')}-good.jsonl`), envelope(index));
		const planted: Record<string, () => void> = {
			'1-fifo.spool': () => mkfifo(join(spool, '1-fifo.spool')),
			'1-fifo.jsonl': () => mkfifo(join(spool, '1-fifo.jsonl')),
			'1-zero.jsonl': () => symlinkSync('/dev/zero', join(spool, '1-zero.jsonl')),
			'1-zero.spool': () => symlinkSync('/dev/zero', join(spool, '1-zero.spool')),
			'1-secret.jsonl': () => symlinkSync(secret, join(spool, '1-secret.jsonl')),
			'1-hard-secret.jsonl': () => linkSync(secret, join(spool, '1-hard-secret.jsonl')),
			'1-bad.jsonl': () => {
				// Bad input whose `.reason` (which the fold writes) is planted as a link to the victim
				writeFileSync(join(spool, '1-bad.jsonl'), 'not json\n');
				symlinkSync(victim, join(spool, 'rejected', '1-bad.jsonl.reason'));
			},
		};
		for (const plant of Object.values(planted)) plant();

		// When a reconciler pass folds the spool, then a reading command reads
		const started = Date.now();
		const pass = runCli(['reconcile', '--once', '--json', '--ledger', box.ledgerFile], {env: box.env});
		const foldMs = Date.now() - started;
		const snapshot = runCli(['snapshot', '--json', '--all', '--ledger', box.ledgerFile], {env: box.env});
		const totalMs = Date.now() - started;

		// Then both finished within 5 s with every good file folded
		expect(pass.status, pass.stderr).toBe(0);
		expect(snapshot.status, snapshot.stderr).toBe(0);
		const folded = (JSON.parse(pass.stdout) as {spool: {files: number; appended: number; rejected: number; setAside: number}})
			.spool;
		const sessions = (JSON.parse(snapshot.stdout) as {tasks: {sessionId: string | null}[]}).tasks.filter(task =>
			task.sessionId?.startsWith('66666666-'),
		).length;
		const ledger = openLedger(box.ledgerFile, {isReadonly: true});
		const rejects = ledger.reader.rejects(100);
		ledger.close();
		const planted_ = Object.keys(planted).length;
		process.stdout.write(
			`hostile spool: ${GOOD} good + ${planted_} planted in; fold ${foldMs} ms, fold and snapshot ${totalMs} ms; ` +
				`${folded.files} files, ${folded.appended} appended, ${folded.rejected} rejected, ${folded.setAside} set aside; ` +
				`${sessions} good sessions stored, ${rejects.length} rejects\n`,
		);
		expect(totalMs).toBeLessThan(5000);
		expect(sessions).toBe(GOOD);
		expect(folded).toMatchObject({files: GOOD + planted_, appended: GOOD, rejected: planted_, setAside: planted_});
		expect(rejects).toHaveLength(planted_);
		// And each planted file is a reject naming what it is, never its content
		const reasons = Object.fromEntries(rejects.map(reject => [reject.origin.replace('spool:', ''), reject.reason]));
		expect(reasons).toMatchObject({
			'1-fifo.spool': expect.stringMatching(/FIFO/),
			'1-fifo.jsonl': expect.stringMatching(/FIFO/),
			'1-zero.jsonl': expect.stringMatching(/symbolic link/),
			'1-zero.spool': expect.stringMatching(/symbolic link/),
			'1-secret.jsonl': expect.stringMatching(/symbolic link/),
			'1-hard-secret.jsonl': expect.stringMatching(/hard link/),
			'1-bad.jsonl': expect.stringMatching(/JSON/),
		});
		// And no secret was copied into the ledger, nothing outside the spool was written
		expect(readFileSync(box.ledgerFile).includes(SECRET)).toBe(false);
		expect(JSON.stringify(rejects)).not.toContain(SECRET);
		expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
		expect(readFileSync(secret, 'utf8')).toContain(SECRET);
		expect(readFileSync(join(spool, 'rejected', '1-bad.jsonl.reason'), 'utf8')).toMatch(/JSON/);
		// And nothing is left to fold
		expect(readdirSync(spool).filter(name => name.endsWith('.jsonl') || name.endsWith('.spool'))).toEqual([]);
	}, 60_000);
});
