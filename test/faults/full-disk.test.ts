import {spawnSync} from 'node:child_process';
import {closeSync, mkdirSync, openSync, readdirSync, unlinkSync, writeSync} from 'node:fs';
import {join} from 'node:path';
import {afterAll, describe, expect, it} from 'vitest';
import {DROPPED_COUNTER} from '../../src/ledger/counters.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {runHookBin} from '../helpers/hook.ts';
import {claudePayload} from '../helpers/payloads.ts';

const SENT = 80;
const mountPoint = scratchDir('cr-full-disk-');
let isMounted = false;
afterAll(() => {
	if (isMounted) spawnSync('sh', ['-c', 'umount "$1"', 'sh', mountPoint]);
});

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
		// Given CONTROLROOM_HOME on a small tmpfs (this needs the right to mount: root, as CI runs)
		const mounted = spawnSync('sh', ['-c', 'mount -t tmpfs -o size=4m tmpfs "$1"', 'sh', mountPoint], {
			encoding: 'utf8',
		});
		expect(mounted.status, `mount -t tmpfs failed: ${mounted.stderr}`).toBe(0);
		isMounted = true;
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
