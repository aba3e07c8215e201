import type Database from 'better-sqlite3';
import {chainHash, GENESIS} from './chain.ts';

/** Rows chained per read, so a large ledger's migration holds one chunk in memory, not every hash. */
const CHUNK = 10_000;

/**
 * Chains the events a ledger held before it had a chain (migration 6), oldest first, and records
 * when that was and from which seq (`chain_since`, `chain_from_seq` in ledger_meta): those events
 * are covered from then on, not before (docs/ledger.md, "The hash chain"). Runs inside the
 * migration's transaction.
 */
export function chainEventsFromStart(db: Database.Database): void {
	const read = db
		.prepare('SELECT seq, task_id, type, at, arrived_at, source, data, dedup_key FROM events WHERE seq > ? ORDER BY seq LIMIT ?')
		.raw();
	const write = db.prepare('UPDATE events SET hash = ? WHERE seq = ?');
	let previous: Buffer = GENESIS;
	let first: number | null = null;
	let after = 0;
	for (;;) {
		// A chunk is read whole before it is written: SQLite may not update a table a running statement reads.
		const rows = read.all(after, CHUNK) as [number, string, string, number, number | null, string, string, string | null][];
		for (const [seq, taskId, type, at, arrivedAt, source, data, dedupKey] of rows) {
			first ??= seq;
			previous = chainHash(previous, {taskId, type, at, arrivedAt, source, data, dedupKey});
			write.run(previous, seq);
			after = seq;
		}
		if (rows.length < CHUNK) break;
	}
	const meta = db.prepare('INSERT OR REPLACE INTO ledger_meta (name, value) VALUES (?, ?)');
	meta.run('chain_from_seq', String(first ?? 1));
	// A ledger with no events yet is chained from its first event as it is written: nothing came before.
	if (first !== null) {
		meta.run('chain_since', String(Date.now()));
		// Seqs up to here may have gaps of their own (an ignored insert used one up before the chain):
		// the chain made now links across them, so only later gaps mean a deleted event.
		const issued = (db.prepare(`SELECT seq FROM sqlite_sequence WHERE name = 'events'`).pluck().get() as number | undefined) ?? 0;
		meta.run('chained_up_to_seq', String(Math.max(after, issued)));
	}
}
