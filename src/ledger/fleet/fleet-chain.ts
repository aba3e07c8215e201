import type {FleetClient} from './connection.ts';

/** A host's chain head at a moment, as the fleet keeps it (docs/fleet.md, "The chain and anchors"). */
export type FleetAnchor = {readonly seq: number; readonly hash: string; readonly at: number};

/** Writes a host's chain head; the same seq twice adds nothing. */
export async function writeAnchor(client: FleetClient, hostId: string, seq: number, hash: string): Promise<void> {
	await client.query('INSERT INTO controlroom.anchors (host_id, seq, hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
		hostId,
		seq,
		hash,
	]);
}

/** A host's anchors, oldest first. */
export async function anchorsOf(client: FleetClient, hostId: string): Promise<FleetAnchor[]> {
	const result = await client.query<{seq: string; hash: string; at: Date}>(
		'SELECT seq, hash, anchored_at AS at FROM controlroom.anchors WHERE host_id = $1 ORDER BY seq',
		[hostId],
	);
	return result.rows.map(row => ({seq: Number(row.seq), hash: row.hash, at: row.at.getTime()}));
}

/** The links of a host's events the fleet holds after `afterSeq`, oldest first, at most `limit` (events shipped without one are left out). */
export async function linksOf(
	client: FleetClient,
	hostId: string,
	afterSeq: number,
	limit: number,
): Promise<{readonly seq: number; readonly hash: string}[]> {
	const result = await client.query<{seq: string; hash: string}>(
		`SELECT seq, hash FROM controlroom.events WHERE host_id = $1 AND seq > $2 AND hash IS NOT NULL ORDER BY seq LIMIT $3`,
		[hostId, afterSeq, limit],
	);
	return result.rows.map(row => ({seq: Number(row.seq), hash: row.hash}));
}

/** Whether the fleet knows the host. */
export async function hasHost(client: FleetClient, hostId: string): Promise<boolean> {
	const result = await client.query('SELECT 1 FROM controlroom.hosts WHERE id = $1', [hostId]);
	return (result.rowCount ?? 0) > 0;
}
