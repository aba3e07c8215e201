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
	/** The wrapper kept the end of the worker's stdout: its report, for a review packet. */
	outputKept: 'task.output_kept',
	/** `controlroom review` began: which reviewers, how many rounds at most. */
	reviewStarted: 'review.started',
	/** A round's packet was written (its path, size, and what was trimmed to fit). */
	reviewPacketBuilt: 'review.packet_built',
	/** One reviewer's verdict in one round: APPROVE, FIX, INVALID or STOPPED. */
	reviewVerdict: 'review.verdict',
	/** The fixes went back to the worker, which runs again with them in its brief. */
	reviewFixRound: 'review.fix_round',
	/** The review ended: approved, or it needs a person (or an error stopped it). */
	reviewConcluded: 'review.concluded',
	/** A person sent the work back with a reason: the worker runs again, or the claim is free again. */
	workSentBack: 'work.sent_back',
	/** A person accepted a hand-in that waited for its acceptor. */
	workAccepted: 'work.accepted',
	/** One offer of a mediation (docs/mediation.md), with each other agent's answer: never a weight or floor. */
	mediationOffer: 'mediation.offer',
	/** A mediation ended: the agreement, or a walk-away with what could not be settled and the vetoes. */
	mediationConcluded: 'mediation.concluded',
	/** One round of a plan review: the reviewer's task and verdict. */
	planReviewRound: 'plan.review_round',
	/** A plan review ended: approved, or still open after its rounds (a disagreement about what will happen). */
	planReviewConcluded: 'plan.review_concluded',
	/** A disagreement that needs a person: the queue's disagreements lane (evidence or value). */
	disagreementOpened: 'disagreement.opened',
	/** A gateway started serving a work order (docs/effects.md). Events about an order carry its id as their task id. */
	orderOpened: 'order.opened',
	/** `order derive` wrote an order for a sub-agent from this one. */
	orderDerived: 'order.derived',
	/** A person approved held effects; the runs follow as effect.started / effect.finished. */
	orderApproved: 'order.approved',
	/** An approval found the report and the gateway's log disagree, and ran nothing. */
	orderApprovalRefused: 'order.approval_refused',
	/** A person sent the order's held effects back, with a reason: they are dropped. */
	orderSentBack: 'order.sent_back',
	/** A read passed through the gateway (recorded before it is forwarded). */
	effectRead: 'effect.read',
	/** A staged call, held with its arguments; the worker got a placeholder. */
	effectHeld: 'effect.held',
	/** A call the gateway refused (not in the order, over budget, staged in a derived order). */
	effectRefused: 'effect.refused',
	/** An approved effect is about to be sent upstream: recorded before the call, so it is never sent twice. */
	effectStarted: 'effect.started',
	/** The upstream answered a read or an approved effect. */
	effectFinished: 'effect.finished',
	/** An effect was started and its end never recorded (its approver died): never retried automatically. */
	effectOutcomeUnknown: 'effect.outcome_unknown',
	/** A held effect passed its order's expiry unapproved. */
	effectExpired: 'effect.expired',
} as const;

const text = z.optional(z.nullable(z.string()));
const count = z.optional(z.nullable(z.number()));
const anything = z.optional(z.unknown());
const vetoSchema = z.looseObject({agent: z.string(), item: z.string(), option: z.string(), offer: count});

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
		/** The command as given, before a contract was put into it: what a re-run starts again. */
		argv: z.optional(z.nullable(z.array(z.string()))),
		/** The contract file a run was given (absolute path). */
		contract: text,
		/** The brief file a re-run was given (the original brief plus the fixes). */
		brief: text,
		/** `git rev-parse HEAD` in the task's folder when it started: where its diff begins. */
		baseRevision: text,
		/** The task this run does again (a fix round or a send-back). */
		rerunOf: text,
		agent: text,
		wrapperPid: count,
		wrapperStartTime: count,
		slot: count,
		/** Where the wrapper keeps the run's output (bounded), for the board's log view. */
		output: text,
	}),
	'task.started': z.looseObject({
		pid: count,
		pgid: count,
		startTime: count,
		wrapperPid: count,
		wrapperStartTime: count,
		/** How a hook found the PID: `CLAUDE_PID`, or `parent process` (the agent among the hook's parents). */
		pidFrom: text,
	}),
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
	'task.exited': z.looseObject({
		exitCode: count,
		signal: text,
		reason: text,
		/** Processes of the child's group still alive when it exited (the first 20), and how many in all. */
		leftRunning: z.optional(z.array(z.looseObject({pid: count, name: text}))),
		leftRunningCount: count,
	}),
	'task.failed': z.looseObject({error: text, exitCode: count}),
	'task.stopped': z.looseObject({
		signal: text,
		reason: text,
		exitCode: count,
		wrapperExit: count,
		escalated: z.optional(z.boolean()),
	}),
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
		/** The agent's PID, its start time and how the hook found it (see task.started). */
		pid: count,
		startTime: count,
		pidFrom: text,
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
	'task.output_kept': z.looseObject({
		/** The last lines of stdout, at most OUTPUT_KEPT_BYTES. */
		text: text,
		/** Every byte the child wrote to stdout. */
		bytes: count,
		isCut: z.optional(z.boolean()),
	}),
	'review.started': z.looseObject({
		reviewId: text,
		reviewers: z.optional(z.array(z.string())),
		maxRounds: count,
		baseRevision: text,
	}),
	'review.packet_built': z.looseObject({
		reviewId: text,
		round: count,
		path: text,
		bytes: count,
		/** The trimming steps applied, in order (docs/review.md). */
		trimmed: z.optional(z.array(z.string())),
		/** Paths left out of the packet's diff, for the reviewer to open. */
		listed: z.optional(z.array(z.string())),
		reportFrom: text,
		testsFrom: text,
		workerTaskId: text,
	}),
	'review.verdict': z.looseObject({
		reviewId: text,
		round: count,
		/** 1-based, in the order the reviewers were given. */
		reviewer: count,
		command: text,
		reviewerTaskId: text,
		verdict: text,
		fixes: z.optional(z.array(z.string())),
		reason: text,
		signal: text,
		exitCode: count,
	}),
	'review.fix_round': z.looseObject({
		reviewId: text,
		/** The round whose fixes go back. */
		round: count,
		fixes: z.optional(z.array(z.string())),
		workerTaskId: text,
		briefPath: text,
		workerStatus: text,
		workerExit: count,
	}),
	'review.concluded': z.looseObject({
		reviewId: text,
		outcome: text,
		rounds: count,
		cause: text,
		reason: text,
		isDisagreement: z.optional(z.boolean()),
		exitCode: count,
	}),
	'work.sent_back': z.looseObject({
		reason: text,
		by: text,
		/** Where it was sent back from: reviews, failed or waiting. */
		from: text,
		rerunTaskId: text,
		briefPath: text,
		logPath: text,
		claimReturned: z.optional(z.boolean()),
	}),
	'work.accepted': z.looseObject({by: text, note: text}),
	'mediation.offer': z.looseObject({
		n: count,
		round: count,
		by: text,
		offer: z.optional(z.record(z.string(), z.string())),
		answers: z.optional(
			z.array(
				z.looseObject({
					agent: z.string(),
					answer: z.string(),
					options: z.optional(z.array(z.looseObject({item: z.string(), option: z.string()}))),
				}),
			),
		),
	}),
	'mediation.concluded': z.looseObject({
		outcome: text,
		agreement: z.optional(z.nullable(z.record(z.string(), z.string()))),
		agents: z.optional(z.array(z.string())),
		offers: count,
		rounds: count,
		unsettled: z.optional(z.array(z.string())),
		vetoes: z.optional(z.array(vetoSchema)),
	}),
	'plan.review_round': z.looseObject({
		round: count,
		reviewerTaskId: text,
		command: text,
		verdict: text,
		fixes: z.optional(z.array(z.string())),
		reason: text,
		packetPath: text,
	}),
	'plan.review_concluded': z.looseObject({outcome: text, rounds: count, reason: text}),
	'disagreement.opened': z.looseObject({
		/** evidence: they disagree about what will happen (plan review); value: about what to want (mediation). */
		kind: text,
		/** What could not be settled: the items of a mediation, the open points of a plan review. */
		items: z.optional(z.array(z.string())),
		vetoes: z.optional(z.array(vetoSchema)),
		agents: z.optional(z.array(z.string())),
		summary: text,
	}),
	'order.opened': z.looseObject({
		worker: text,
		/** The order this one was derived from (a sub-agent's order), else null. */
		parent: text,
		budgetCalls: count,
		expiresMs: count,
		/** The order file, absolute, and the sha256 of its bytes: an approval runs under the same order. */
		file: text,
		digest: text,
		/** Per upstream: its command, the tools offered, which of them are staged. */
		upstreams: anything,
		/** The worker's task (CONTROLROOM_TASK_ID in the gateway's environment), when known. */
		workerTask: text,
		gatewayPid: count,
	}),
	'order.derived': z.looseObject({child: text, worker: text, file: text, staged: z.optional(z.array(z.string()))}),
	'order.approved': z.looseObject({ids: z.optional(z.array(z.string())), reconciled: z.optional(z.boolean()), report: text}),
	'order.approval_refused': z.looseObject({mismatches: z.optional(z.array(z.string())), report: text}),
	'order.sent_back': z.looseObject({ids: z.optional(z.array(z.string())), reason: text}),
	'effect.read': z.looseObject({id: text, seq: count, upstream: text, tool: text, args: anything}),
	'effect.held': z.looseObject({id: text, seq: count, upstream: text, tool: text, args: anything, expiresAt: count}),
	'effect.refused': z.looseObject({tool: text, upstream: text, reason: text, args: anything}),
	'effect.started': z.looseObject({id: text, args: anything, approverPid: count, approverStartTime: count}),
	'effect.finished': z.looseObject({id: text, isError: z.optional(z.boolean()), result: anything, error: text}),
	'effect.outcome_unknown': z.looseObject({id: text, reason: text}),
	'effect.expired': z.looseObject({id: text}),
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
	variant('task.output_kept'),
	variant('review.started'),
	variant('review.packet_built'),
	variant('review.verdict'),
	variant('review.fix_round'),
	variant('review.concluded'),
	variant('work.sent_back'),
	variant('work.accepted'),
	variant('mediation.offer'),
	variant('mediation.concluded'),
	variant('plan.review_round'),
	variant('plan.review_concluded'),
	variant('disagreement.opened'),
	variant('order.opened'),
	variant('order.derived'),
	variant('order.approved'),
	variant('order.approval_refused'),
	variant('order.sent_back'),
	variant('effect.read'),
	variant('effect.held'),
	variant('effect.refused'),
	variant('effect.started'),
	variant('effect.finished'),
	variant('effect.outcome_unknown'),
	variant('effect.expired'),
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
	// One literal of one shape (no spreads): the mapping builds one of these per event of a bulk import.
	const event = {
		taskId: envelope.taskId,
		at: envelope.at,
		source: envelope.source,
		dedupKey: envelope.dedupKey ?? null,
		type,
		data,
	};
	return event as unknown as NewEvent & {readonly type: T};
}
