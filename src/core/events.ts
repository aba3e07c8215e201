import * as z from 'zod/mini';

/**
 * Event types, dotted and past tense. Each has its data schema in EVENT_DATA below; the names here
 * are what code writes (`EventType.started`), the strings are what the ledger stores.
 */
export const EventType = {
	registered: 'task.registered',
	started: 'task.started',
	heartbeat: 'task.heartbeat',
	pidReported: 'task.pid_reported',
	progressed: 'task.progressed',
	planItem: 'task.plan_item',
	tokensReported: 'task.tokens_reported',
	exited: 'task.exited',
	failed: 'task.failed',
	stopped: 'task.stopped',
	/** `controlroom stop` asked for the task to stop; `task.stopped` follows once its processes are gone. */
	stopRequested: 'task.stop_requested',
	lost: 'task.lost',
	ended: 'task.ended',
	discovered: 'task.discovered',
	agentEvent: 'agent.event',
	needRaised: 'need.raised',
	acknowledged: 'queue.acknowledged',
	claimTaken: 'claim.taken',
	claimProgressed: 'claim.progressed',
	claimHandedIn: 'claim.handed_in',
	claimPassedBack: 'claim.passed_back',
	/** This host's sync took a request made from a fleet board (docs/fleet.md), before carrying it out. */
	fleetRequestReceived: 'fleet.request_received',
	/** This host carried out (or refused) a request made from a fleet board; the outcome travels back by sync. */
	fleetRequestHandled: 'fleet.request_handled',
} as const;

const text = z.optional(z.nullable(z.string()));
const count = z.optional(z.nullable(z.number()));
const anything = z.optional(z.unknown());

/**
 * What each event type carries. Every field is optional (a ledger written by an older build may
 * lack it) and objects are loose (a producer may add fields; they are kept as written).
 */
const EVENT_DATA = {
	'task.registered': z.looseObject({
		title: text,
		/** The task's source, when it is not the event's (a helper registered by its parent's hook). */
		source: text,
		role: text,
		cwd: text,
		parentId: text,
		sessionId: text,
		budget: count,
		steps: count,
		stallSeconds: count,
		command: text,
		agent: text,
		wrapperPid: count,
		wrapperStartTime: count,
		slot: count,
	}),
	'task.started': z.looseObject({pid: count, pgid: count, startTime: count, wrapperPid: count, wrapperStartTime: count}),
	'task.heartbeat': z.looseObject({}),
	'task.pid_reported': z.looseObject({pid: count, startTime: count}),
	'task.progressed': z.looseObject({done: count, total: count, from: text}),
	'task.plan_item': z.looseObject({itemId: text, isDone: z.optional(z.boolean()), subject: text, from: text}),
	'task.tokens_reported': z.looseObject({
		input: count,
		output: count,
		threadId: text,
		cumulative: z.optional(z.nullable(z.looseObject({input: count, output: count}))),
		from: text,
		transcript: text,
	}),
	'task.exited': z.looseObject({exitCode: count, signal: text, reason: text}),
	'task.failed': z.looseObject({error: text, exitCode: count}),
	'task.stopped': z.looseObject({signal: text, reason: text, exitCode: count, wrapperExit: count}),
	'task.stop_requested': z.looseObject({signal: text, graceMs: count, pgid: count}),
	'task.lost': z.looseObject({reason: text, pid: count}),
	'task.ended': z.looseObject({reason: text}),
	'task.discovered': z.looseObject({pid: count, name: text, command: text, cwd: text, startTime: count}),
	'agent.event': z.looseObject({
		/** The agent's own event name (SessionStart, Stop, turn.failed, agent-turn-complete, ...). */
		event: text,
		sessionId: text,
		threadId: text,
		cwd: text,
		pid: count,
		toolName: text,
		titleHint: text,
		parentId: text,
		/** The payload as the agent sent it, long strings cut. */
		payload: anything,
	}),
	/** `actor`: who raised it (an MCP worker, a person), where known. */
	'need.raised': z.looseObject({message: text, kind: text, lane: text, actor: text}),
	'queue.acknowledged': z.looseObject({signalAt: count}),
	'claim.taken': z.looseObject({
		contract: text,
		contractKey: text,
		kind: text,
		holder: text,
		/** Who took it: the worker itself, or a person who took it for the holder. */
		actor: text,
		passedBack: anything,
		checks: z.optional(z.array(z.string())),
		acceptors: z.optional(z.record(z.string(), z.string())),
		operator: text,
	}),
	/** On every claim verb: `holder` who held the claim, `actor` who acted (absent in ledgers written before it was recorded). */
	'claim.progressed': z.looseObject({note: text, holder: text, actor: text}),
	'claim.handed_in': z.looseObject({acceptor: text, evidenceFile: text, evidence: anything, holder: text, actor: text}),
	'claim.passed_back': z.looseObject({reason: text, holder: text, actor: text}),
	'fleet.request_received': z.looseObject({requestId: count, verb: text, requestedBy: text, requestedAt: count}),
	'fleet.request_handled': z.looseObject({
		requestId: count,
		verb: text,
		/** done, refused, failed, or unknown (interrupted while carrying it out; never retried). */
		outcome: text,
		message: text,
		requestedBy: text,
	}),
} as const;

/** Every event type this build understands. */
export type EventTypeName = keyof typeof EVENT_DATA;
/** The data an event of type T carries. */
export type EventDataOf<T extends EventTypeName> = z.infer<(typeof EVENT_DATA)[T]>;

const variant = <T extends EventTypeName>(type: T) => z.object({type: z.literal(type), data: EVENT_DATA[type]});

/** One zod discriminated union of every event type and its data: the ledger's schema (STYLE.md R4). */
export const eventBodySchema = z.discriminatedUnion('type', [
	variant('task.registered'),
	variant('task.started'),
	variant('task.heartbeat'),
	variant('task.pid_reported'),
	variant('task.progressed'),
	variant('task.plan_item'),
	variant('task.tokens_reported'),
	variant('task.exited'),
	variant('task.failed'),
	variant('task.stopped'),
	variant('task.stop_requested'),
	variant('task.lost'),
	variant('task.ended'),
	variant('task.discovered'),
	variant('agent.event'),
	variant('need.raised'),
	variant('queue.acknowledged'),
	variant('claim.taken'),
	variant('claim.progressed'),
	variant('claim.handed_in'),
	variant('claim.passed_back'),
	variant('fleet.request_received'),
	variant('fleet.request_handled'),
]);

/** An event's type and data: what it says. */
export type EventBody = z.infer<typeof eventBodySchema>;

/** The rest of an event: which task, when, and who said it. */
type EventEnvelope = {
	readonly taskId: string;
	/** Milliseconds since the epoch, as the producer saw it. */
	readonly at: number;
	/** Who wrote it: wrapper, claude, codex, reconciler, board, cli, mcp. */
	readonly source: string;
	/** Same key, same event: a second append with it adds nothing. */
	readonly dedupKey?: string | null;
};

/** An event about to be appended: what a producer says, before the ledger numbers it. */
export type NewEvent = EventEnvelope & EventBody;

/** A JSON object as stored in an event's data column. */
export type EventData = Readonly<Record<string, unknown>>;

/** The type name readers see for an event whose type this build does not know. */
export const FOREIGN_EVENT = 'foreign';

/**
 * An event this build cannot read: a type from a newer build, or data that does not match its
 * type's schema. It is kept in the ledger and shown on the timeline, and the projection skips it.
 */
export type ForeignEvent = EventEnvelope & {
	readonly type: typeof FOREIGN_EVENT;
	/** The type as stored. */
	readonly storedType: string;
	readonly data: EventData;
	readonly seq: number;
};

/** An event as stored and read back: numbered by a monotonic sequence readers can tail by. */
export type LedgerEvent = (NewEvent & {readonly seq: number}) | ForeignEvent;

/** A stored event of one known type, as the typed reads return it. */
export type EventOfType<T extends EventTypeName> = NewEvent & {readonly type: T; readonly seq: number};

/** One row as the store hands it over, data still JSON text. */
export type StoredEventRow = {
	readonly seq: number;
	readonly taskId: string;
	readonly type: string;
	readonly at: number;
	readonly source: string;
	readonly data: string;
	readonly dedupKey: string | null;
};

/** Reads a stored row through the schema: a known event, or a foreign one kept as it was. */
export function parseStoredEvent(row: StoredEventRow): LedgerEvent {
	const envelope = {seq: row.seq, taskId: row.taskId, at: row.at, source: row.source, dedupKey: row.dedupKey};
	let data: unknown;
	try {
		data = JSON.parse(row.data);
	} catch {
		data = {};
	}
	const body = eventBodySchema.safeParse({type: row.type, data});
	if (body.success) return {...envelope, ...body.data};
	const kept = data !== null && typeof data === 'object' && !Array.isArray(data) ? (data as EventData) : {};
	return {...envelope, type: FOREIGN_EVENT, storedType: row.type, data: kept};
}

/** The type as stored, for output that names it (`timeline --json`). */
export function storedTypeOf(event: LedgerEvent): string {
	return event.type === FOREIGN_EVENT ? event.storedType : event.type;
}

/** Pairs a type with its data, checked at compile time. */
export function eventBody<T extends EventTypeName>(type: T, data: EventDataOf<T>): EventBody & {readonly type: T} {
	// The pair (type, data) is checked by the signature; TypeScript cannot follow a generic key
	// into the union, hence the one cast.
	return {type, data} as unknown as EventBody & {readonly type: T};
}

/** Builds an event to append, checked against its type's data at compile time. */
export function newEvent<T extends EventTypeName>(
	type: T,
	data: EventDataOf<T>,
	envelope: EventEnvelope,
): NewEvent & {readonly type: T} {
	return {...envelope, ...eventBody(type, data)};
}
