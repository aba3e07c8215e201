import {spawnSync} from 'node:child_process';
import {readFileSync, statSync} from 'node:fs';
import {afterAll, describe, expect, it} from 'vitest';
import {EventType} from '../../src/core/events.ts';
import {anchorsFile} from '../../src/ledger/anchors.ts';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {runCli, scratchDir} from '../helpers/cli.ts';
import {event, freshLedgerFile} from '../helpers/ledger.ts';

const users: string[] = [];
afterAll(() => {
	for (const user of users) spawnSync('userdel', [user]);
});

const isRoot = process.getuid?.() === 0 && spawnSync('useradd', ['--help']).status === 0;

/** Runs a shell line as another OS user; its stdout and exit code. */
function asUser(user: string, line: string): {status: number | null; out: string} {
	const result = spawnSync('su', [user, '-s', '/bin/sh', '-c', line], {encoding: 'utf8'});
	return {status: result.status, out: `${result.stdout}${result.stderr}`};
}

describe("the anchors in the strong mode (docs/security.md) live with the person's user", () => {
	it.runIf(isRoot)(
		"the reconciler keeps the head in LEDGER.anchors, private to the person; the agent's user can neither read, change nor replace it, and verify --against it holds",
		() => {
			// Given the person's ledger in their private folder, with events, and the reconciler's pass
			const ledgerFile = freshLedgerFile(scratchDir('cr-strong-anchors-'));
			const ledger = openLedger(ledgerFile);
			ledger.writer.append([
				event('w-1', EventType.registered, {title: 'held write'}),
				event('w-1', EventType.started, {pid: 1}),
			]);
			ledger.close();
			expect(runCli(['reconcile', '--once', '--ledger', ledgerFile]).status).toBe(0);
			const file = anchorsFile(ledgerFile);
			const kept = readFileSync(file, 'utf8');
			expect(JSON.parse(kept)).toMatchObject({seq: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/)});
			expect(statSync(file).mode & 0o777).toBe(0o600);
			// A second pass before the interval adds nothing
			expect(runCli(['reconcile', '--once', '--ledger', ledgerFile]).status).toBe(0);
			expect(readFileSync(file, 'utf8')).toBe(kept);
			// When the agent's OS user (the strong mode's --user) tries the anchors and the ledger
			const user = `cranchor${process.pid % 100000}`;
			const created = spawnSync('useradd', ['-M', '-d', '/nonexistent', '-s', '/bin/sh', user], {encoding: 'utf8'});
			expect(created.status, created.stderr).toBe(0);
			users.push(user);
			for (const line of [`cat '${file}'`, `echo forged >> '${file}'`, `rm -f '${file}'`, `echo x >> '${ledgerFile}'`]) {
				expect([line, asUser(user, line).status]).not.toEqual([line, 0]);
			}
			// Then nothing changed, and the person's verify --against the kept anchors holds
			expect(readFileSync(file, 'utf8')).toBe(kept);
			expect(runCli(['verify', '--against', file, '--ledger', ledgerFile])).toMatchObject({status: 0});
		},
		60_000,
	);
});
