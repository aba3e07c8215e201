import {mkdirSync} from 'node:fs';
import {join} from 'node:path';
import {openLedger} from '../../src/ledger/open-ledger.ts';
import {scratchDir} from '../helpers/cli.ts';
import {query} from '../helpers/pg.ts';
import {startCli, type Started} from '../producers/helpers.ts';

/** One host of a test fleet: its own home and ledger, and the name it reports (CONTROLROOM_HOST). */
export type TestHost = {readonly name: string; readonly ledgerFile: string; readonly env: NodeJS.ProcessEnv};

export function testHost(name: string): TestHost {
	// A --ledger path's folder must exist (the CLI creates no folder it was not asked to)
	const home = join(scratchDir(`cr-host-${name}-`), 'home');
	mkdirSync(home);
	return {name, ledgerFile: join(home, 'ledger.db'), env: {...process.env, CONTROLROOM_HOME: home, CONTROLROOM_HOST: name}};
}

/** Starts `controlroom ARGS` as this host (its home, its name). */
export function startAs(host: TestHost, args: readonly string[]): Started {
	return startCli(args, host.env);
}

/** The host's events as stored locally, each as the fleet keys and holds it. */
export function localEvents(host: TestHost): {seq: number; taskId: string; type: string; at: number; data: string}[] {
	const ledger = openLedger(host.ledgerFile);
	try {
		return ledger.reader.storedEventsSince(0, 1e9).map(({seq, taskId, type, at, data}) => ({seq, taskId, type, at, data}));
	} finally {
		ledger.close();
	}
}

/** The local ledger's host id. */
export function hostIdOf(host: TestHost): string {
	const ledger = openLedger(host.ledgerFile);
	try {
		return ledger.reader.hostId();
	} finally {
		ledger.close();
	}
}

/** The same events as the fleet holds them for that host, in seq order (duplicates would show twice). */
export async function fleetEvents(
	url: string,
	hostId: string,
): Promise<{seq: number; taskId: string; type: string; at: number; data: string}[]> {
	if (!(await hasSchema(url))) return [];
	const rows = await query<{seq: string; task_id: string; type: string; at: string; data: string}>(
		url,
		'SELECT seq, task_id, type, at, data FROM controlroom.events WHERE host_id = $1 ORDER BY seq, fleet_seq',
		[hostId],
	);
	return rows.map(row => ({seq: Number(row.seq), taskId: row.task_id, type: row.type, at: Number(row.at), data: row.data}));
}

/** How many events the fleet holds for a host (0 before the first sync made the schema). */
export async function fleetCount(url: string, hostId: string): Promise<number> {
	if (!(await hasSchema(url))) return 0;
	const [row] = await query<{n: string}>(url, 'SELECT COUNT(*) AS n FROM controlroom.events WHERE host_id = $1', [hostId]);
	return Number(row?.n ?? 0);
}

/** Whether a first sync has made the fleet schema. */
async function hasSchema(url: string): Promise<boolean> {
	const [schema] = await query<{present: boolean}>(url, `SELECT to_regclass('controlroom.events') IS NOT NULL AS present`);
	return schema?.present === true;
}
