import {connectFleet, redactUrl, type FleetClient} from './connection.ts';
import {createFleetReader, type FleetReader, type SkippedRow} from './fleet-reader.ts';
import {checkFleetSchema, FLEET_CHANNEL} from './migrations.ts';
import {outcomeOf, pendingRequests, placeRequest, type FleetRequest, type NewRequest, type RequestOutcome} from './requests.ts';

/** What a fleet ledger announces: new events (a host shipped), a new request, or that the listening connection was lost. */
export type FleetChange = 'events' | 'requests' | 'lost';

/**
 * An open fleet ledger, for the reading commands and the fleet board: async reads, requests for
 * hosts to carry out, and change notices. Only `controlroom sync` writes events and tasks.
 */
export type FleetLedger = {
	/** The server, password left out, for messages. */
	readonly where: string;
	readonly reader: FleetReader;
	/** Requests no host has answered yet, oldest first. */
	pendingRequests(): Promise<FleetRequest[]>;
	/** Asks a task's host to carry out a verb; returns the request's id. */
	request(request: NewRequest): Promise<number>;
	/** How the host answered a request, or null while it is pending. */
	outcomeOf(hostId: string, requestId: number): Promise<RequestOutcome | null>;
	/** Calls `onChange` on every change the server announces, over a connection of its own; returns how to stop. */
	listen(onChange: (change: FleetChange) => void): Promise<() => Promise<void>>;
	close(): Promise<void>;
};

/**
 * Opens the fleet ledger at `url` for reading (it must exist and be this build's version). A task
 * row of a host that is not a task is skipped and handed to `onSkipped`.
 */
export async function openFleetLedger(url: string, role: string, onSkipped?: (row: SkippedRow) => void): Promise<FleetLedger> {
	const client = await connectFleet(url, role);
	try {
		await checkFleetSchema(client, url);
	} catch (error) {
		await client.end().catch(() => undefined);
		throw error;
	}
	const listeners: FleetClient[] = [];
	return {
		where: redactUrl(url),
		reader: createFleetReader(client, onSkipped),
		pendingRequests: () => pendingRequests(client),
		request: request => placeRequest(client, request),
		outcomeOf: (hostId, requestId) => outcomeOf(client, hostId, requestId),
		async listen(onChange) {
			const listener = await connectFleet(url, `${role} listener`);
			listeners.push(listener);
			listener.on('notification', message => {
				if (message.payload === 'events' || message.payload === 'requests') onChange(message.payload);
			});
			listener.on('end', () => onChange('lost'));
			await listener.query(`LISTEN ${FLEET_CHANNEL}`);
			return async () => {
				await listener.end().catch(() => undefined);
			};
		},
		async close() {
			await Promise.all([client, ...listeners].map(each => each.end().catch(() => undefined)));
		},
	};
}
