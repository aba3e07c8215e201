import {assertNever} from '../assert-never.ts';
import {EventType, type EventOfType} from '../events.ts';

/** The order and effect event types, all folded here. */
export const ORDER_EVENT_TYPES = [
	EventType.orderOpened,
	EventType.orderDerived,
	EventType.orderApproved,
	EventType.orderApprovalRefused,
	EventType.orderSentBack,
	EventType.effectRead,
	EventType.effectHeld,
	EventType.effectRefused,
	EventType.effectStarted,
	EventType.effectFinished,
	EventType.effectOutcomeUnknown,
	EventType.effectExpired,
] as const;
export type OrderEventType = (typeof ORDER_EVENT_TYPES)[number];
export type OrderEvent = EventOfType<OrderEventType>;

/** Who is running an approval: checked against the process table to tell `started` from `outcome unknown`. */
export type Approver = {readonly pid: number; readonly startTime: number | null};

/** One call the gateway accepted: a read (forwarded at once) or a staged call (held). */
export type EffectRecord = {
	readonly id: string;
	readonly seq: number;
	readonly upstream: string;
	readonly tool: string;
	readonly kind: 'read' | 'staged';
	/** Arguments as the worker sent them (references unresolved). */
	readonly args: unknown;
	/** When the gateway recorded the call. */
	readonly calledAt: number;
	readonly expiresAt: number | null;
	readonly startedAt: number | null;
	readonly approver: Approver | null;
	/** Arguments as sent upstream, references filled in. */
	readonly sentArgs: unknown;
	readonly finishedAt: number | null;
	readonly isError: boolean;
	readonly result: unknown;
	readonly error: string | null;
	readonly unknownAt: number | null;
	readonly rejectedAt: number | null;
	readonly rejectReason: string | null;
	readonly expiredAt: number | null;
};

/** An order as its events tell it. */
export type OrderRecord = {
	readonly id: string;
	readonly worker: string | null;
	readonly parent: string | null;
	readonly budgetCalls: number | null;
	readonly expiresMs: number | null;
	readonly file: string | null;
	readonly digest: string | null;
	/** The order's text as its first gateway recorded it (null in ledgers written before it was). */
	readonly source: string | null;
	/** `upstream/tool` of every tool the first gateway held calls of; null when it did not say. */
	readonly stagedTools: readonly string[] | null;
	/** The worker's tasks, where the gateway knew them. */
	readonly workerTasks: readonly string[];
	readonly openedAt: number | null;
	/** Calls in the order of the gateway's sequence. */
	readonly effects: readonly EffectRecord[];
	readonly refusals: number;
	readonly approvals: readonly {readonly at: number; readonly ids: readonly string[]; readonly reconciled: boolean}[];
	readonly sendBacks: readonly {readonly at: number; readonly ids: readonly string[]; readonly reason: string}[];
	readonly approvalRefusals: readonly {readonly at: number; readonly mismatches: readonly string[]}[];
	readonly derived: readonly string[];
	readonly lastAt: number;
	readonly lastSeq: number;
};

function blankOrder(id: string): OrderRecord {
	return {
		id,
		worker: null,
		parent: null,
		budgetCalls: null,
		expiresMs: null,
		file: null,
		digest: null,
		source: null,
		stagedTools: null,
		workerTasks: [],
		openedAt: null,
		effects: [],
		refusals: 0,
		approvals: [],
		sendBacks: [],
		approvalRefusals: [],
		derived: [],
		lastAt: 0,
		lastSeq: 0,
	};
}

function newEffect(event: OrderEvent, kind: EffectRecord['kind'], data: EventOfType<'effect.read' | 'effect.held'>['data']) {
	return {
		id: data.id ?? '',
		seq: data.seq ?? 0,
		upstream: data.upstream ?? '',
		tool: data.tool ?? '',
		kind,
		args: data.args ?? {},
		calledAt: event.at,
		expiresAt: kind === 'staged' ? ((data as {expiresAt?: number | null}).expiresAt ?? null) : null,
		startedAt: null,
		approver: null,
		sentArgs: null,
		finishedAt: null,
		isError: false,
		result: null,
		error: null,
		unknownAt: null,
		rejectedAt: null,
		rejectReason: null,
		expiredAt: null,
	} satisfies EffectRecord;
}

/** `upstream/tool` of each staged tool in an `order.opened` summary; null when it has none. */
function stagedOf(upstreams: unknown): string[] | null {
	if (upstreams === null || typeof upstreams !== 'object') return null;
	const tools: string[] = [];
	for (const [name, summary] of Object.entries(upstreams as Record<string, {staged?: unknown}>)) {
		if (!Array.isArray(summary?.staged)) return null;
		for (const tool of summary.staged) tools.push(`${name}/${String(tool)}`);
	}
	return tools;
}

/** Whether nothing has happened to a staged effect since it was held (by the events alone). */
function isUntouched(effect: EffectRecord): boolean {
	return effect.startedAt === null && effect.rejectedAt === null && effect.expiredAt === null;
}

function updateEffect(
	order: OrderRecord,
	id: string | null | undefined,
	change: (effect: EffectRecord) => EffectRecord,
): OrderRecord {
	if (!id) return order;
	return {...order, effects: order.effects.map(effect => (effect.id === id ? change(effect) : effect))};
}

function applyOrderEvent(order: OrderRecord, event: OrderEvent): OrderRecord {
	switch (event.type) {
		case EventType.orderOpened: {
			const task = event.data.workerTask ?? null;
			// The first opening names the order for good: a later gateway with the same id runs only
			// with the same digest, and nothing it records replaces the order held effects run under.
			const isFirst = order.openedAt === null;
			return {
				...order,
				worker: isFirst ? (event.data.worker ?? order.worker) : order.worker,
				parent: isFirst ? (event.data.parent ?? order.parent) : order.parent,
				budgetCalls: isFirst ? (event.data.budgetCalls ?? order.budgetCalls) : order.budgetCalls,
				expiresMs: isFirst ? (event.data.expiresMs ?? order.expiresMs) : order.expiresMs,
				file: order.file ?? event.data.file ?? null,
				digest: order.digest ?? event.data.digest ?? null,
				source: order.source ?? event.data.text ?? null,
				stagedTools: order.stagedTools ?? stagedOf(event.data.upstreams),
				workerTasks: task && !order.workerTasks.includes(task) ? [...order.workerTasks, task] : order.workerTasks,
				openedAt: order.openedAt ?? event.at,
			};
		}
		case EventType.orderDerived:
			return event.data.child ? {...order, derived: [...order.derived, event.data.child]} : order;
		case EventType.orderApproved:
			return {
				...order,
				approvals: [...order.approvals, {at: event.at, ids: event.data.ids ?? [], reconciled: event.data.reconciled === true}],
			};
		case EventType.orderApprovalRefused:
			return {...order, approvalRefusals: [...order.approvalRefusals, {at: event.at, mismatches: event.data.mismatches ?? []}]};
		case EventType.orderSentBack: {
			const ids = new Set(event.data.ids ?? []);
			const reason = event.data.reason ?? '';
			return {
				...order,
				sendBacks: [...order.sendBacks, {at: event.at, ids: [...ids], reason}],
				effects: order.effects.map(effect =>
					ids.has(effect.id) && effect.kind === 'staged' && isUntouched(effect)
						? {...effect, rejectedAt: event.at, rejectReason: reason}
						: effect,
				),
			};
		}
		case EventType.effectRead:
			return {...order, effects: [...order.effects, newEffect(event, 'read', event.data)]};
		case EventType.effectHeld:
			return {...order, effects: [...order.effects, newEffect(event, 'staged', event.data)]};
		case EventType.effectRefused:
			return {...order, refusals: order.refusals + 1};
		case EventType.effectStarted:
			return updateEffect(order, event.data.id, effect =>
				effect.kind === 'staged' && isUntouched(effect)
					? {
							...effect,
							startedAt: event.at,
							sentArgs: event.data.args ?? effect.args,
							approver:
								event.data.approverPid === undefined || event.data.approverPid === null
									? null
									: {pid: event.data.approverPid, startTime: event.data.approverStartTime ?? null},
						}
					: effect,
			);
		case EventType.effectFinished:
			return updateEffect(order, event.data.id, effect =>
				effect.finishedAt !== null
					? effect
					: {
							...effect,
							finishedAt: event.at,
							isError: event.data.isError === true,
							result: event.data.result ?? null,
							error: event.data.error ?? null,
						},
			);
		case EventType.effectOutcomeUnknown:
			return updateEffect(order, event.data.id, effect =>
				effect.startedAt !== null && effect.finishedAt === null ? {...effect, unknownAt: effect.unknownAt ?? event.at} : effect,
			);
		case EventType.effectExpired:
			return updateEffect(order, event.data.id, effect =>
				effect.kind === 'staged' && isUntouched(effect) ? {...effect, expiredAt: event.at} : effect,
			);
		default:
			return assertNever(event);
	}
}

/** Folds order and effect events (any order of tasks, oldest first) into one record per order. */
export function foldOrders(events: readonly OrderEvent[]): Map<string, OrderRecord> {
	const orders = new Map<string, OrderRecord>();
	for (const event of events) {
		const order = orders.get(event.taskId) ?? blankOrder(event.taskId);
		const next = applyOrderEvent(order, event);
		orders.set(event.taskId, {...next, lastAt: Math.max(next.lastAt, event.at), lastSeq: Math.max(next.lastSeq, event.seq)});
	}
	return orders;
}

/** The at-most-once state of a staged effect (a read is `finished` once answered). */
export const EFFECT_STATES = ['held', 'started', 'finished', 'outcome unknown', 'rejected', 'expired'] as const;
export type EffectState = (typeof EFFECT_STATES)[number];

/** Whether the process that started an effect still runs; unknown (no liveness given) counts as running. */
export type ApproverCheck = (approver: Approver) => boolean;

/**
 * An effect's state at `now`. Started and never finished is `outcome unknown` once recorded so,
 * or once its approver is gone; a held effect past its order's expiry is `expired` (derived at
 * read time, like health, and recorded by the next approval or reconciler pass).
 */
export function effectState(effect: EffectRecord, now: number, isApproverAlive: ApproverCheck = () => true): EffectState {
	if (effect.finishedAt !== null) return 'finished';
	if (effect.startedAt !== null) {
		if (effect.unknownAt !== null) return 'outcome unknown';
		return effect.approver !== null && !isApproverAlive(effect.approver) ? 'outcome unknown' : 'started';
	}
	if (effect.kind === 'read') return 'started';
	if (effect.rejectedAt !== null) return 'rejected';
	if (effect.expiredAt !== null || (effect.expiresAt !== null && now >= effect.expiresAt)) return 'expired';
	return 'held';
}

/** The staged effects of an order (the reads are evidence, not effects). */
export function stagedEffects(order: OrderRecord): EffectRecord[] {
	return order.effects.filter(effect => effect.kind === 'staged');
}

/** Calls the order has used of its budget: every accepted call, read or staged. */
export function callsUsed(order: OrderRecord): number {
	return order.effects.length;
}
