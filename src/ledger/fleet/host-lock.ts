import type {FleetClient} from './connection.ts';
import {HOST_LOCK_CLASS} from './migrations.ts';

/** The second lock key: 28 bits of the host id (random hex), positive so pg_locks shows it as is. */
function hostKey(hostId: string): number {
	return Number.parseInt(hostId.slice(0, 7), 16) || 0;
}

/**
 * Takes the host's sync lock for this connection's life (a session advisory lock: the server frees
 * it when the connection ends, however the process died). False when another connection holds it.
 */
export async function tryLockHost(client: FleetClient, hostId: string): Promise<boolean> {
	const result = await client.query<{ok: boolean}>('SELECT pg_try_advisory_lock($1, $2) AS ok', [
		HOST_LOCK_CLASS,
		hostKey(hostId),
	]);
	return result.rows[0]?.ok === true;
}

/** Who holds the host's sync lock, in words: its application name, address and since when. */
export async function describeLockHolder(client: FleetClient, hostId: string): Promise<string> {
	const result = await client.query<{application_name: string; client_addr: string | null; backend_start: Date}>(
		`SELECT a.application_name, host(a.client_addr) AS client_addr, a.backend_start
		FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid AND l.objsubid = 2`,
		[HOST_LOCK_CLASS, hostKey(hostId)],
	);
	const holder = result.rows[0];
	if (!holder) return 'another sync (it has just finished)';
	const from = holder.client_addr ? ` from ${holder.client_addr}` : '';
	return `${holder.application_name || 'another client'}${from}, since ${holder.backend_start.toISOString()}`;
}
