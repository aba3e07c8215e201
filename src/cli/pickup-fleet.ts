import {EventType} from '../core/events.ts';
import {listIntake} from '../handoff/intake.ts';
import {contractsToPublish} from '../ledger/contracts.ts';
import {connectFleet} from '../ledger/fleet/connection.ts';
import {claimContract, endClaim, publishContracts, reopenClaim, takeableContracts} from '../ledger/fleet/contracts.ts';
import {migrateFleet} from '../ledger/fleet/migrations.ts';
import {hostIdentity} from '../ledger/host.ts';
import type {Ledger} from '../ledger/open-ledger.ts';

/** The fleet's shared contracts and claims, as pickup uses them (docs/fleet.md, "Contracts"). */
export type FleetContracts = {
	/** Publishes this host's stored contracts and copies the fleet's takeable ones into this ledger. */
	sync(): Promise<void>;
	/** Claims a contract across the fleet; false when another host holds it. */
	claim(id: string, holder: string): Promise<boolean>;
	/** Ends this host's claim on it, with how it ended. */
	release(id: string, holder: string, outcome: string): Promise<void>;
	close(): Promise<void>;
};

/** Opens the fleet for pickup (its schema brought up to date, as sync does). */
export async function fleetContracts(url: string, ledger: Ledger): Promise<FleetContracts> {
	const client = await connectFleet(url, 'pickup');
	await migrateFleet(client);
	const host = hostIdentity(ledger);
	return {
		async sync() {
			await publishContracts(client, host, contractsToPublish(ledger.reader));
			const local = new Map(listIntake(ledger).map(record => [record.id, record]));
			for (const record of local.values()) if (record.state === 'rejected') await reopenClaim(client, record.id, host.id);
			for (const contract of await takeableContracts(client)) {
				if (local.has(contract.id)) continue;
				const drafted = JSON.parse(contract.drafted) as Record<string, unknown> & {writer?: Record<string, unknown>};
				const at = Date.now();
				ledger.writer.append([
					{
						taskId: contract.id,
						type: EventType.contractDrafted,
						at: contract.writtenAt,
						source: 'fleet',
						dedupKey: `${EventType.contractDrafted}:${contract.id}`,
						data: {...drafted, writer: {...drafted.writer, via: 'fleet', host: contract.hostName}},
					},
					{
						taskId: contract.id,
						type: EventType.contractText,
						at: contract.writtenAt,
						source: 'fleet',
						dedupKey: `${EventType.contractText}:${contract.id}`,
						data: {
							contractId: contract.id,
							text: contract.text,
							digest: typeof drafted['digest'] === 'string' ? drafted['digest'] : null,
						},
					},
					{
						taskId: contract.id,
						type: EventType.contractReadied,
						at,
						source: 'fleet',
						dedupKey: `${EventType.contractReadied}:${contract.id}:fleet`,
						data: {contractId: contract.id, by: contract.readied?.by ?? 'a person', how: 'fleet', osUser: null, uid: null},
					},
				]);
			}
		},
		claim: (id, holder) => claimContract(client, id, host, holder),
		release: (id, _holder, outcome) => endClaim(client, id, host.id, outcome),
		close: () => client.end().catch(() => undefined),
	};
}
