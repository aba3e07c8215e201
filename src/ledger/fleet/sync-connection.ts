import type {StoredEventRow} from '../../core/events.ts';
import type {Task} from '../../core/task.ts';
import type {HostIdentity} from '../host.ts';
import {connectFleet} from './connection.ts';
import type {PublishedContract} from '../contracts.ts';
import {publishContracts} from './contracts.ts';
import {writeAnchor} from './fleet-chain.ts';
import {describeLockHolder, tryLockHost} from './host-lock.ts';
import {FLEET_CHANNEL, migrateFleet} from './migrations.ts';
import {pendingRequestsFor, type FleetRequest} from './requests.ts';
import {lastFleetEvent, registerHost, resumePoint, writeBatch, type FleetEventCopy, type WrittenBatch} from './ship.ts';

/** What the connection tells its sync between passes. */
export type SyncNotices = {
	/** A request was placed (for this host or another: the pass finds out which). */
	readonly onRequests: () => void;
	/** The server went away: the connection is over, the next pass opens another. */
	readonly onEnd: () => void;
};

/**
 * One host's connection to the fleet ledger, as `sync` uses it: the host's lock, the schema,
 * shipping, the host's requests and the server's notices. Everything here is a PostgreSQL read
 * or write; what to ship and when is src/fleet's.
 */
export type SyncConnection = {
	/** Takes the host's sync lock for this connection's life; null when taken, else who holds it, in words. */
	lockHost(hostId: string): Promise<string | null>;
	/** Brings the fleet schema to this build's version (a first sync creates it). */
	migrate(): Promise<void>;
	/** Adds the host, or renames it when its name changed. */
	registerHost(host: HostIdentity): Promise<void>;
	/** The last seq of this host the fleet holds (0 for a new host): where shipping resumes. */
	resumePoint(hostId: string): Promise<number>;
	/** The fleet's copy of the newest of the host's events it holds, with its seq, if any. */
	lastEvent(hostId: string): Promise<(FleetEventCopy & {seq: number}) | undefined>;
	/** Writes a batch of the host's events and the task rows they touched, in one transaction. */
	writeBatch(host: HostIdentity, rows: readonly StoredEventRow[], tasks: readonly Task[]): Promise<WrittenBatch>;
	/** Publishes contracts written on the host, for any host's pickup (docs/fleet.md, "Contracts"). */
	publishContracts(host: HostIdentity, contracts: readonly PublishedContract[]): Promise<void>;
	/** Writes the host's chain head (an anchor: docs/fleet.md, "The chain and anchors"). */
	writeAnchor(hostId: string, seq: number, hash: string): Promise<void>;
	/** Requests for the host that it has not answered yet, oldest first. */
	pendingRequestsFor(hostId: string): Promise<FleetRequest[]>;
	/** Listens on the fleet's channel (LISTEN) on this connection, and tells `notices` what it hears. */
	listen(notices: SyncNotices): Promise<void>;
	close(): Promise<void>;
};

/** Opens a sync's connection to the fleet ledger at `url`; `role` names it to the server (and in lock messages). */
export async function connectForSync(url: string, role: string): Promise<SyncConnection> {
	const client = await connectFleet(url, role);
	return {
		async lockHost(hostId) {
			return (await tryLockHost(client, hostId)) ? null : await describeLockHolder(client, hostId);
		},
		migrate: () => migrateFleet(client),
		registerHost: host => registerHost(client, host),
		resumePoint: hostId => resumePoint(client, hostId),
		lastEvent: hostId => lastFleetEvent(client, hostId),
		writeBatch: (host, rows, tasks) => writeBatch(client, host, rows, tasks),
		writeAnchor: (hostId, seq, hash) => writeAnchor(client, hostId, seq, hash),
		pendingRequestsFor: hostId => pendingRequestsFor(client, hostId),
		publishContracts: (host, contracts) => publishContracts(client, host, contracts),
		async listen(notices) {
			client.on('notification', message => {
				if (message.payload === 'requests') notices.onRequests();
			});
			client.on('end', notices.onEnd);
			await client.query(`LISTEN ${FLEET_CHANNEL}`);
		},
		close: () => client.end(),
	};
}
