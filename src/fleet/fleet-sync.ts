import {retryDelayMs} from '../core/backoff.ts';
import {EventType} from '../core/events.ts';
import type {Launcher} from '../gates/review/rerun.ts';
import {contractsToPublish} from '../ledger/contracts.ts';
import {describeFleetError, isUnreachable} from '../ledger/fleet/connection.ts';
import type {FleetRequest} from '../ledger/fleet/requests.ts';
import {connectForSync, type SyncConnection} from '../ledger/fleet/sync-connection.ts';
import type {HostIdentity} from '../ledger/host.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {carryOut} from './fleet-verbs.ts';
import {checkSameHistory, shipBatch} from './ship.ts';

/** Events per shipped batch: one transaction each, small enough that a kill mid-batch loses little work. */
export const DEFAULT_BATCH = 2000;
/**
 * How often a sync writes the host's chain head to the fleet's anchors (docs/fleet.md, "The chain
 * and anchors"): at the first pass that ships, then at most once a minute while it ships.
 */
export const FLEET_ANCHOR_INTERVAL_MS = 60_000;

/** How a pass ended: shipped (or nothing to ship), the server out of reach, another sync holding this host, or an error to fix. */
export type SyncState = 'synced' | 'unreachable' | 'locked' | 'failed';

/** A fleet request this host carried out, as recorded on its ledger. */
export type HandledRequest = {
	readonly requestId: number;
	readonly verb: string;
	readonly taskId: string;
	readonly outcome: string;
	readonly message: string;
};

/** What one pass did. */
export type SyncPass = {
	readonly state: SyncState;
	/** Events the server did not have before this pass. */
	readonly shipped: number;
	readonly tasks: number;
	readonly batches: number;
	/** The last local seq the server holds after this pass. */
	readonly fleetSeq: number;
	/** Rows that held what PostgreSQL cannot, escaped on the host (each told once as a reject of the ledger). */
	readonly escaped: number;
	/** Rows the server refused all the same, kept in the fleet's rejects (the rest shipped). */
	readonly refused: number;
	/** Requests carried out since the previous pass. */
	readonly handled: readonly HandledRequest[];
	/** Requests taken this pass (carried out in the background; their outcomes come in a later pass). */
	readonly taken: readonly number[];
	/** Why the pass did not sync, in one line. */
	readonly message: string | null;
	readonly elapsedMs: number;
};

export type FleetSyncOptions = {
	readonly url: string;
	readonly ledger: Ledger;
	readonly host: HostIdentity;
	readonly batchSize?: number;
	/** How this host starts controlroom in the background (a send-back's next run). */
	readonly launcher: Launcher;
	/** Called when something asks for a pass soon: a request for this host, a request carried out. */
	readonly onWake?: () => void;
};

/** Keeps one host's connection, lock and place in the fleet across passes. */
export type FleetSyncer = {
	/** Ships what the server lacks, then takes this host's pending requests. Never throws. */
	pass(): Promise<SyncPass>;
	/** How long to wait before the next pass after a failed one (0 after a good one). */
	retryDelayMs(): number;
	/** Waits for requests being carried out, then closes the connection (freeing the host lock). */
	close(): Promise<void>;
};

const receivedKey = (hostId: string, id: number): string => `fleet-request:${hostId}:${id}:received`;
const handledKey = (hostId: string, id: number): string => `fleet-request:${hostId}:${id}:handled`;

/** Creates the syncer for one ledger; nothing connects until the first pass. */
export function createFleetSyncer(options: FleetSyncOptions): FleetSyncer {
	const {url, ledger} = options;
	let host = options.host;
	const batchSize = options.batchSize ?? DEFAULT_BATCH;
	let client: SyncConnection | null = null;
	let fleetSeq = 0;
	let failures = 0;
	// Contracts published on this connection up to this ledger seq (a new connection publishes all again).
	let contractsSeq = 0;
	let anchoredSeq = 0;
	let anchoredAt = Number.NEGATIVE_INFINITY;
	const inFlight = new Map<number, Promise<void>>();
	const finished: HandledRequest[] = [];

	const drop = async (): Promise<void> => {
		const closing = client;
		client = null;
		await closing?.close().catch(() => undefined);
	};

	/** Connects, takes the host lock, migrates, and finds where to resume; null when locked out. */
	const connect = async (): Promise<string | null> => {
		const fresh = await connectForSync(url, `sync ${host.name}`);
		try {
			const holder = await fresh.lockHost(host.id);
			if (holder !== null) {
				await fresh.close().catch(() => undefined);
				return `another sync of host ${host.name} (id ${host.id}) holds its lock: ${holder}`;
			}
			await fresh.migrate();
			await fresh.registerHost(host);
			fleetSeq = await fresh.resumePoint(host.id);
			await checkSameHistory(fresh, ledger, host, fleetSeq);
			await fresh.listen({
				onRequests: () => options.onWake?.(),
				// A server that goes away ends the connection; the next pass reconnects.
				onEnd: () => {
					if (client === fresh) client = null;
				},
			});
			client = fresh;
			contractsSeq = 0;
			return null;
		} catch (error) {
			await fresh.close().catch(() => undefined);
			throw error;
		}
	};

	const record = (request: FleetRequest, outcome: string, message: string): void => {
		ledger.writer.append([
			{
				taskId: request.taskId,
				type: EventType.fleetRequestHandled,
				at: Date.now(),
				source: 'fleet',
				data: {requestId: request.id, verb: request.verb, outcome, message, requestedBy: request.requestedBy},
				dedupKey: handledKey(host.id, request.id),
			},
		]);
		finished.push({requestId: request.id, verb: request.verb, taskId: request.taskId, outcome, message});
	};

	/**
	 * Takes one request: recorded as received before anything runs, so a sync that dies while
	 * carrying it out leaves a trace, and the next sync records its outcome as unknown instead of
	 * doing it twice (as the effect gate does with an effect whose end was not recorded).
	 */
	const take = (request: FleetRequest): boolean => {
		if (inFlight.has(request.id)) return false;
		const seen = ledger.reader
			.latestEventsOf(request.taskId, [EventType.fleetRequestReceived, EventType.fleetRequestHandled], 100)
			.filter(event => event.data.requestId === request.id);
		if (seen.some(event => event.type === EventType.fleetRequestHandled)) return false;
		if (seen.some(event => event.type === EventType.fleetRequestReceived)) {
			record(request, 'unknown', 'interrupted while it was being carried out (the sync stopped); not retried');
			return false;
		}
		ledger.writer.append([
			{
				taskId: request.taskId,
				type: EventType.fleetRequestReceived,
				at: Date.now(),
				source: 'fleet',
				data: {requestId: request.id, verb: request.verb, requestedBy: request.requestedBy, requestedAt: request.requestedAt},
				dedupKey: receivedKey(host.id, request.id),
			},
		]);
		const running = carryOut(ledger, request, options.launcher).then(result => {
			record(request, result.outcome, result.message);
			inFlight.delete(request.id);
			options.onWake?.();
		});
		inFlight.set(request.id, running);
		return true;
	};

	const pass = async (): Promise<SyncPass> => {
		const started = performance.now();
		let shipped = 0;
		let tasks = 0;
		let batches = 0;
		let escaped = 0;
		let refused = 0;
		const result = (state: SyncState, message: string | null, taken: readonly number[] = []): SyncPass => ({
			state,
			shipped,
			tasks,
			batches,
			fleetSeq,
			escaped,
			refused,
			handled: finished.splice(0),
			taken,
			message,
			elapsedMs: performance.now() - started,
		});
		try {
			// A ledger file deleted or replaced under a long-lived sync is reopened (open-ledger.ts): the
			// new file is another history with its own host id, so shipping starts over under that id
			// (its own lock, its own resume point) instead of appending it to the old one's.
			ledger.verifyFile();
			const id = ledger.reader.hostId();
			if (id !== host.id) {
				await Promise.all(inFlight.values());
				await drop();
				host = {...host, id};
				fleetSeq = 0;
				anchoredSeq = 0;
				anchoredAt = Number.NEGATIVE_INFINITY;
			}
			if (!client) {
				const locked = await connect();
				if (locked !== null) {
					failures += 1;
					return result('locked', locked);
				}
			}
			const active = client as SyncConnection | null;
			if (!active) throw new Error('Connection terminated');
			for (;;) {
				const batch = await shipBatch(active, ledger, host, fleetSeq, batchSize);
				if (batch.lastSeq === fleetSeq) break;
				fleetSeq = batch.lastSeq;
				shipped += batch.shipped;
				tasks += batch.tasks;
				escaped += batch.escaped;
				refused += batch.refused?.length ?? 0;
				batches += 1;
			}
			const publishedUpTo = ledger.reader.lastSeq();
			await active.publishContracts(host, contractsToPublish(ledger.reader, contractsSeq));
			contractsSeq = publishedUpTo;
			if (fleetSeq > anchoredSeq && Date.now() - anchoredAt >= FLEET_ANCHOR_INTERVAL_MS) {
				const head = ledger.reader.storedEventAt(fleetSeq)?.hash;
				if (head) {
					await active.writeAnchor(host.id, fleetSeq, head);
					anchoredSeq = fleetSeq;
					anchoredAt = Date.now();
				}
			}
			const taken = (await active.pendingRequestsFor(host.id)).filter(take).map(request => request.id);
			failures = 0;
			return result('synced', null, taken);
		} catch (error) {
			failures += 1;
			await drop();
			return result(isUnreachable(error) ? 'unreachable' : 'failed', describeFleetError(error, url));
		}
	};

	return {
		pass,
		retryDelayMs: () => retryDelayMs(failures),
		async close() {
			await Promise.all(inFlight.values());
			await drop();
		},
	};
}
