import type {PublishedContract} from '../contracts.ts';
import type {HostIdentity} from '../host.ts';
import type {FleetClient} from './connection.ts';

// The fleet's shared contracts and claims (docs/fleet.md, "Contracts"): a contract written on one
// host is published here with its drafted record and its text; any host's pickup copies the ready
// ones into its own ledger and claims one here first, so of two hosts exactly one works it.

/** A contract of the fleet that a host may take now, and the host it was written on. */
export type FleetContract = PublishedContract & {readonly hostName: string};

/**
 * Publishes contracts written on `host` (a repeat adds nothing; readiness only moves forward: a
 * contract made ready stays ready).
 */
export async function publishContracts(
	client: FleetClient,
	host: HostIdentity,
	contracts: readonly PublishedContract[],
): Promise<void> {
	await client.query('INSERT INTO controlroom.hosts (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
		host.id,
		host.name,
	]);
	for (const contract of contracts) {
		await client.query(
			`INSERT INTO controlroom.contracts (id, host_id, drafted, text, written_at, readied_by, readied_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7)
				ON CONFLICT (id) DO UPDATE SET
					readied_by = COALESCE(controlroom.contracts.readied_by, excluded.readied_by),
					readied_at = COALESCE(controlroom.contracts.readied_at, excluded.readied_at)`,
			[
				contract.id,
				host.id,
				contract.drafted,
				contract.text,
				contract.writtenAt,
				contract.readied?.by ?? null,
				contract.readied?.at ?? null,
			],
		);
	}
}

/**
 * Contracts any host may take now: ready, no claim held, and not handed in or accepted by their
 * latest claim; oldest written first.
 */
export async function takeableContracts(client: FleetClient): Promise<FleetContract[]> {
	const result = await client.query<{
		id: string;
		drafted: string;
		text: string;
		written_at: number;
		readied_by: string;
		readied_at: number;
		host_name: string;
	}>(
		`SELECT c.id, c.drafted, c.text, c.written_at, c.readied_by, c.readied_at, h.name AS host_name
			FROM controlroom.contracts c JOIN controlroom.hosts h ON h.id = c.host_id
			WHERE c.readied_at IS NOT NULL
				AND NOT EXISTS (
					SELECT 1 FROM controlroom.contract_claims k WHERE k.contract_id = c.id
						AND (k.ended_at IS NULL OR k.outcome IN ('handed in', 'accepted'))
				)
			ORDER BY c.written_at, c.id`,
	);
	return result.rows.map(row => ({
		id: row.id,
		drafted: row.drafted,
		text: row.text,
		writtenAt: row.written_at,
		readied: {by: row.readied_by, at: row.readied_at},
		hostName: row.host_name,
	}));
}

/**
 * Claims a contract for `holder` on `hostId`: true when this host now holds it, false when another
 * claim is held (the unique index decides between two hosts at once) or it is not takeable.
 */
export async function claimContract(client: FleetClient, id: string, host: HostIdentity, holder: string): Promise<boolean> {
	await client.query('INSERT INTO controlroom.hosts (id, name) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING', [
		host.id,
		host.name,
	]);
	const result = await client.query(
		`INSERT INTO controlroom.contract_claims (contract_id, host_id, holder)
			SELECT $1, $2, $3 WHERE EXISTS (
				SELECT 1 FROM controlroom.contracts WHERE id = $1 AND readied_at IS NOT NULL
			) AND NOT EXISTS (
				SELECT 1 FROM controlroom.contract_claims WHERE contract_id = $1 AND outcome IN ('handed in', 'accepted')
			)
			ON CONFLICT (contract_id) WHERE ended_at IS NULL DO NOTHING
			RETURNING id`,
		[id, host.id, holder],
	);
	return (result.rowCount ?? 0) > 0;
}

/** Ends this host's held claim on a contract with how it ended (passed back frees it for any host). */
export async function endClaim(client: FleetClient, id: string, hostId: string, outcome: string): Promise<void> {
	await client.query(
		`UPDATE controlroom.contract_claims SET ended_at = now(), outcome = $3
			WHERE contract_id = $1 AND host_id = $2 AND ended_at IS NULL`,
		[id, hostId, outcome],
	);
}

/** A hand-in sent back on its host frees the contract for every host again. */
export async function reopenClaim(client: FleetClient, id: string, hostId: string): Promise<void> {
	await client.query(
		`UPDATE controlroom.contract_claims SET outcome = 'sent back'
			WHERE contract_id = $1 AND host_id = $2 AND outcome = 'handed in'`,
		[id, hostId],
	);
}
