import {chainHash} from '../../src/ledger/chain.ts';
import {withRawDb} from './raw-db.ts';

type EventRow = {
	seq: number;
	task_id: string;
	type: string;
	at: number;
	arrived_at: number;
	source: string;
	data: string;
	dedup_key: string | null;
};

/**
 * What an agent with the person's user can do to the ledger file: replace the data of event `from`
 * and recompute every link after it, so the chain in the file holds on its own. Only an anchor kept
 * elsewhere (or the fleet's copy) can tell. Assumes the file carries no update trigger guard other
 * than `events_refuse_update`, which it drops as such an agent would.
 */
export function rewriteChainFrom(file: string, from: number, data: string | ((before: string) => string)): void {
	withRawDb(file, db => {
		db.exec('DROP TRIGGER IF EXISTS events_refuse_update');
		let previous = db
			.prepare('SELECT hash FROM events WHERE seq = ?')
			.pluck()
			.get(from - 1) as Buffer;
		const update = db.prepare('UPDATE events SET data = ?, hash = ? WHERE seq = ?');
		for (const row of db.prepare('SELECT * FROM events WHERE seq >= ? ORDER BY seq').all(from) as EventRow[]) {
			const rowData = row.seq !== from ? row.data : typeof data === 'string' ? data : data(row.data);
			previous = chainHash(previous, {
				taskId: row.task_id,
				type: row.type,
				at: row.at,
				arrivedAt: row.arrived_at,
				source: row.source,
				data: rowData,
				dedupKey: row.dedup_key,
			});
			update.run(rowData, previous, row.seq);
		}
	});
}
