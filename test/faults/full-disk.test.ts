import {spawnSync} from 'node:child_process';
import {closeSync, mkdirSync, openSync, readdirSync, readFileSync, unlinkSync, writeSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {createBoardFeed} from '../../src/ledger/board-feed.ts';
import {DROPPED_COUNTER} from '../../src/ledger/counters.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runHookBin} from '../helpers/hook.ts';
import {claudePayload} from '../helpers/payloads.ts';

const SENT = 80;
const mounted: string[] = [];
afterAll(() => {
	for (const point of mounted) spawnSync('sh', ['-c', 'umount "$1"', 'sh', point]);
});

/** A fresh tmpfs of `size` mounted on a scratch folder (this needs the right to mount: root, as CI runs). */
function mountTmpfs(size: string): string {
	const point = scratchDir('cr-full-disk-');
	const result = spawnSync('sh', ['-c', `mount -t tmpfs -o size=${size} tmpfs "$1"`, 'sh', point], {encoding: 'utf8'});
	expect(result.status, `mount -t tmpfs failed: ${result.stderr}`).toBe(0);
	mounted.push(point);
	return point;
}

const session = (index: number): string => `77777777-aaaa-4bbb-8ccc-${String(index).padStart(12, '0')}`;

/** Writes zeros until the file system says it is full. */
function fillDisk(file: string): void {
	const fd = openSync(file, 'w');
	const chunk = Buffer.alloc(64 * 1024);
	try {
		for (;;) writeSync(fd, chunk);
	} catch (error) {
		if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
	} finally {
		closeSync(fd);
	}
}

describe('a full disk under the hook', () => {
	it('loses no event silently: each is in the ledger, in the spool, or counted as dropped, and no temporary file is left', () => {
		// Given CONTROLROOM_HOME on a small tmpfs
		const mountPoint = mountTmpfs('4m');
		const home = join(mountPoint, 'home');
		mkdirSync(home);
		const ledgerFile = join(home, 'ledger.db');
		openLedger(ledgerFile).close();
		const spool = join(home, 'spool');
		mkdirSync(spool);
		// And the disk then filled to the last byte
		const filler = join(mountPoint, 'filler');
		fillDisk(filler);

		// When 80 hook events come
		const outcomes = {ok: 0, failed: 0};
		for (let index = 0; index < SENT; index += 1) {
			const run = runHookBin(home, [], JSON.stringify(claudePayload('Stop', session(index))));
			outcomes[run.status === 0 && run.stdout.length === 0 ? 'ok' : 'failed'] += 1;
		}
		// Then every hook still exited 0 with nothing on stdout, and no temporary file is left behind
		expect(outcomes).toEqual({ok: SENT, failed: 0});
		const left = readdirSync(spool);
		expect(left.filter(name => name.endsWith('.tmp'))).toEqual([]);
		const spooled = left.filter(name => name.endsWith('.jsonl')).length;
		const markers = left.filter(name => name.endsWith('.dropped')).length;

		// When the disk has room again and the reconciler folds the spool
		unlinkSync(filler);
		const pass = runCli(['reconcile', '--once', '--ledger', ledgerFile], {env: {...process.env, CONTROLROOM_HOME: home}});
		expect(pass.status, pass.stderr).toBe(0);

		// Then every event sent is either stored or counted as dropped
		const ledger = openLedger(ledgerFile, {isReadonly: true});
		try {
			const stored = ledger.reader.tasksForView(null).filter(task => task.sessionId?.startsWith('77777777-')).length;
			const dropped = ledger.reader.counter(DROPPED_COUNTER);
			process.stdout.write(
				`full disk: sent ${SENT}; on the full disk ${spooled} spooled, ${markers} drop markers; after the fold ${stored} stored, ${dropped} counted dropped\n`,
			);
			expect(stored + dropped).toBe(SENT);
			expect(dropped).toBe(markers);
			expect(markers).toBeGreaterThan(0);
		} finally {
			ledger.close();
		}
		expect(readdirSync(spool).filter(name => !name.startsWith('rejected'))).toEqual([]);
	}, 300_000);
});

describe('a full disk under the installed spool hook', () => {
	it('50 calls: each exits 0 and silent, and doctor, hooks status and the board count 50 drops', () => {
		// Given the spool hook installed as `hooks install` puts it in Claude Code's settings
		const scratch = scratchDir('cr-full-disk-hook-');
		const mountPoint = mountTmpfs('2m');
		const home = join(mountPoint, 'home');
		const env = {
			...process.env,
			HOME: scratch,
			CLAUDE_CONFIG_DIR: join(scratch, '.claude'),
			CODEX_HOME: join(scratch, '.codex'),
			CONTROLROOM_HOME: home,
		};
		expect(runCli(['hooks', 'install', '--claude'], {env}).status).toBe(0);
		const settings = JSON.parse(readFileSync(join(scratch, '.claude', 'settings.json'), 'utf8')) as {
			hooks: Record<string, {hooks: {command: string}[]}[]>;
		};
		const command = settings.hooks['Stop']?.[0]?.hooks[0]?.command ?? '';
		expect(command).toMatch(/spool-hook\.sh/);
		// And CONTROLROOM_HOME on a tmpfs with a ledger and its spool, then filled to the last byte
		mkdirSync(home);
		const ledgerFile = join(home, 'ledger.db');
		openLedger(ledgerFile).close();
		mkdirSync(join(home, 'spool'));
		fillDisk(join(mountPoint, 'filler'));

		// When the agent calls the installed command 50 times, as Claude Code does (sh -c, payload on stdin)
		const CALLS = 50;
		const outcomes = {silentExit0: 0, other: 0};
		for (let index = 0; index < CALLS; index += 1) {
			const run = spawnSync('/bin/sh', ['-c', command], {
				input: JSON.stringify(claudePayload('Stop', session(500 + index))),
				env,
			});
			outcomes[run.status === 0 && run.stdout.length === 0 && run.stderr.length === 0 ? 'silentExit0' : 'other'] += 1;
		}
		const left = readdirSync(join(home, 'spool'));
		const markers = left.filter(name => name.endsWith('.dropped')).length;

		// Then every call exited 0 with nothing on stdout or stderr, and left a drop marker
		const doctor = runCli(['doctor'], {env});
		const status = runCli(['hooks', 'status'], {env});
		const doctorLine = doctor.stdout.split('\n').find(line => line.includes('dropped hook events')) ?? '';
		process.stdout.write(
			`full disk, installed spool hook: ${CALLS} calls, ${outcomes.silentExit0} silent exit 0; ${markers} drop markers, ` +
				`${left.filter(name => name.endsWith('.spool')).length} spool files, ${left.filter(name => name.endsWith('.tmp')).length} temporary; doctor: ${doctorLine}\n`,
		);
		expect(outcomes).toEqual({silentExit0: CALLS, other: 0});
		expect(markers).toBe(CALLS);
		expect(left.filter(name => !name.endsWith('.dropped'))).toEqual([]);
		// And doctor (exit 1: problems) and hooks status count them, the disk still full
		expect(doctor.status).toBe(1);
		expect(doctorLine).toMatch(/^problem dropped hook events: 50 hook event\(s\) could be written to neither/);
		expect(doctor.stdout).toMatch(/^problem disk: \d+ KiB free on the file system of /m);
		expect(status.stdout).toMatch(/^spool: 50 hook events were dropped/m);

		// When the disk has room again: the board counts them before any fold
		unlinkSync(join(mountPoint, 'filler'));
		const ledger = openLedger(ledgerFile);
		const board = createBoardFeed(ledger).load(Date.now()).dropped;
		ledger.close();
		process.stdout.write(`full disk, installed spool hook: the board counts ${board} dropped\n`);
		expect(board).toBe(CALLS);
		// And after a fold the 50 are counted in the ledger, no marker is left, and doctor still says 50
		expect(runCli(['reconcile', '--once', '--ledger', ledgerFile], {env}).status).toBe(0);
		expect(readdirSync(join(home, 'spool')).filter(name => name.endsWith('.dropped'))).toEqual([]);
		const after = openLedger(ledgerFile, {isReadonly: true});
		expect(after.reader.counter(DROPPED_COUNTER)).toBe(CALLS);
		after.close();
		expect(runCli(['doctor'], {env}).stdout).toMatch(
			/dropped hook events: 50 hook event\(s\).*50 counted in the ledger, 0 drop markers/,
		);
	}, 120_000);
});
