import type {FleetClient} from './connection.ts';

/** An action asked for from a fleet board, for one host to carry out (docs/fleet.md). */
export type FleetRequest = {
	readonly id: number;
	readonly hostId: string;
	readonly taskId: string;
	readonly verb: string;
	readonly args: Readonly<Record<string, unknown>>;
	/** Who asked: `board@HOST` or `cli@HOST`, as the requester's process reported it. */
	readonly requestedBy: string;
	/** Milliseconds since the epoch, by the server's clock. */
	readonly requestedAt: number;
};

type RequestRow = {
	id: number;
	host_id: string;
	task_id: string;
	verb: string;
	args: string;
	requested_by: string;
	requested_at: Date;
};

function parseArgs(text: string): Record<string, unknown> {
	try {
		const value: unknown = JSON.parse(text);
		return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
	} catch {
		return {};
	}
}

const fromRow = (row: RequestRow): FleetRequest => ({
	id: row.id,
	hostId: row.host_id,
	taskId: row.task_id,
	verb: row.verb,
	args: parseArgs(row.args),
	requestedBy: row.requested_by,
	requestedAt: row.requested_at.getTime(),
});

/** A request is pending until its host's `fleet.request_handled` event has been shipped. */
const PENDING = `NOT EXISTS (
	SELECT 1 FROM controlroom.events e
	WHERE e.type = 'fleet.request_handled' AND e.host_id = r.host_id AND (e.data::jsonb ->> 'requestId') = r.id::text
)`;

/** Requests for one host that it has not answered yet, oldest first. */
export async function pendingRequestsFor(client: FleetClient, hostId: string): Promise<FleetRequest[]> {
	const result = await client.query<RequestRow>(
		`SELECT r.* FROM controlroom.requests r WHERE r.host_id = $1 AND ${PENDING} ORDER BY r.id`,
		[hostId],
	);
	return result.rows.map(fromRow);
}

/** Every unanswered request in the fleet, oldest first (a board shows them as pending). */
export async function pendingRequests(client: FleetClient): Promise<FleetRequest[]> {
	const result = await client.query<RequestRow>(`SELECT r.* FROM controlroom.requests r WHERE ${PENDING} ORDER BY r.id`);
	return result.rows.map(fromRow);
}

/** What a requester asks for. */
export type NewRequest = Omit<FleetRequest, 'id' | 'requestedAt'>;

/** Writes a request; its host's sync hears of it at once (NOTIFY) and carries it out. Returns its id. */
export async function placeRequest(client: FleetClient, request: NewRequest): Promise<number> {
	const result = await client.query<{id: number}>(
		`INSERT INTO controlroom.requests (host_id, task_id, verb, args, requested_by) VALUES ($1, $2, $3, $4, $5) RETURNING id`,
		[request.hostId, request.taskId, request.verb, JSON.stringify(request.args), request.requestedBy],
	);
	const id = result.rows[0]?.id;
	if (id === undefined) throw new Error('the request was not written');
	return id;
}

/** How a host answered a request, once its `fleet.request_handled` event has been shipped. */
export type RequestOutcome = {readonly outcome: string; readonly message: string};

/** The outcome of one request, or null while it is pending. */
export async function outcomeOf(client: FleetClient, hostId: string, requestId: number): Promise<RequestOutcome | null> {
	const result = await client.query<{data: string}>(
		`SELECT data FROM controlroom.events
		WHERE type = 'fleet.request_handled' AND host_id = $1 AND (data::jsonb ->> 'requestId') = $2 ORDER BY seq LIMIT 1`,
		[hostId, String(requestId)],
	);
	const row = result.rows[0];
	if (!row) return null;
	const data = parseArgs(row.data);
	return {
		outcome: typeof data['outcome'] === 'string' ? data['outcome'] : 'unknown',
		message: typeof data['message'] === 'string' ? data['message'] : '',
	};
}
