import {rmSync} from 'node:fs';
import {afterAll, describe, expect, it} from 'vitest';
import {runCli} from '../helpers/cli.ts';
import {every, freshDatabase, onFleetNotice, stopOwnPgServer, waitForQuery} from '../helpers/pg.ts';
import {onOutput, waitFor} from '../helpers/wait-for.ts';
import {killQuietly, type Started} from '../producers/helpers.ts';
import {fleetEvents, hostIdOf, localEvents, startAs, testHost, type TestHost} from './helpers.ts';

// `reconcile --sync-to URL` is long-lived: when the ledger file is deleted and a new one made at its
// path, the reconciler reopens the path (src/ledger/open-ledger.ts verifyFile), and its sync must
// go on shipping the new file, under the new file's own host id, not stop or mix the two.

const background: Started[] = [];

afterAll(async () => {
	for (const started of background) killQuietly(started.child.pid, 'SIGTERM');
	await stopOwnPgServer();
});

function runToEnd(host: TestHost, title: string): void {
	const result = runCli(['run', '--ledger', host.ledgerFile, '--title', title, '--', process.execPath, '-e', '0'], {
		env: host.env,
	});
	expect(result.status, result.stderr).toBe(0);
}

async function fleetHoldsAll(url: string, host: TestHost, what: string): Promise<void> {
	const notices = await onFleetNotice(url);
	try {
		await waitForQuery(
			async () => {
				const local = localEvents(host);
				const fleet = await fleetEvents(url, hostIdOf(host));
				return local.length > 0 && fleet.length === local.length && JSON.stringify(fleet) === JSON.stringify(local);
			},
			{what, timeoutMs: 60_000, on: [notices.wakeup, every(500)]},
		);
	} finally {
		await notices.close();
	}
}

describe('reconcile --sync-to over a ledger file deleted and made again', () => {
	it('keeps shipping: the new file under its own host id, the old one left as it was', async () => {
		const url = await freshDatabase();
		const host = testHost('epsilon');
		runToEnd(host, 'before the delete');
		const reconcile = startAs(host, ['reconcile', '--sync-to', url, '--interval', '1', '--ledger', host.ledgerFile]);
		background.push(reconcile);
		await fleetHoldsAll(url, host, 'the first file shipped');
		const oldId = hostIdOf(host);
		const oldEvents = await fleetEvents(url, oldId);

		// When the ledger file is deleted and a new one is made at its path by the next wrapped run
		for (const suffix of ['', '-wal', '-shm']) rmSync(`${host.ledgerFile}${suffix}`, {force: true});
		runToEnd(host, 'after the delete');
		const newId = hostIdOf(host);
		expect(newId).not.toBe(oldId);

		// Then the reconciler says it reopened the path, and its sync ships the new file
		await waitFor(() => reconcile.stderr().includes('reconciling the new file there from now on'), {
			what: 'the reconciler to reopen the ledger',
			on: [onOutput(reconcile.child.stderr)],
			timeoutMs: 30_000,
		});
		await fleetHoldsAll(url, host, 'the new file shipped');
		expect((await fleetEvents(url, newId)).some(event => event.data.includes('after the delete'))).toBe(true);
		// And the first file's history stays as the fleet had it
		expect(await fleetEvents(url, oldId)).toEqual(oldEvents);
		expect(reconcile.child.exitCode).toBeNull();
		// And it keeps shipping what comes next
		runToEnd(host, 'later');
		await fleetHoldsAll(url, host, 'a later run shipped');
	}, 120_000);
});
