import {storedTypeOf, type LedgerEvent} from './events.ts';

/**
 * Who wrote an event, for `audit export` (docs/audit.md): a person (a yes that passed the person
 * gate, docs/security.md), an agent (its own hook, output or telemetry, or a yes the gate refused
 * because an agent asked), controlroom itself (the wrapper's, reconciler's, sync's and board's
 * bookkeeping), or unproven (a command run by whoever holds a shell: no gate stood before it).
 */
export type AuditActor = {
	readonly kind: 'person' | 'agent' | 'controlroom' | 'unproven';
	/** The name recorded with it: the person's (`by`), the OS user, the agent's source, where known. */
	readonly name: string | null;
	/** What shows it: the rule that decided, and what it found. */
	readonly proof: {readonly rule: 'terminal' | 'producer' | 'none'; readonly detail: string};
	/** A passkey's proof of presence, for a yes signed with one; null until such answers exist. */
	readonly passkey: null;
};

/** One line of `audit export --format jsonl`. */
export type AuditRecord = {
	readonly seq: number;
	/** The producer's own time (its clock), ISO. */
	readonly at: string;
	/** When it arrived in the ledger (the writer's clock), ISO; null for events from before arrival was kept. */
	readonly arrivedAt: string | null;
	readonly producer: string;
	readonly type: string;
	readonly task: string;
	readonly actor: AuditActor;
	/** Its link in the hash chain (hex): SHA-256 of the previous event's link and its content. */
	readonly hash: string | null;
	readonly data: unknown;
};

/** The types only a gate function writes after the person gate said yes (src/gates, requirePerson). */
const PERSON_GATED = new Set([
	'order.approved',
	'order.sent_back',
	'decision.answered',
	'work.sent_back',
	'work.accepted',
	'queue.acknowledged',
	'review.started',
]);
/** Sources that are the agents themselves: their hooks, their MCP calls, their telemetry. */
const AGENT_SOURCES = new Set(['claude', 'codex', 'mcp', 'claude-helper', 'otel', 'gateway']);
/** Sources that are controlroom's own processes. */
const CONTROLROOM_SOURCES = new Set(['wrapper', 'reconciler', 'fleet', 'sync', 'board', 'review', 'plan', 'mediation']);

const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null);

/** Who wrote the event, and what shows it. */
export function auditActor(event: LedgerEvent): AuditActor {
	const type = storedTypeOf(event);
	const data = event.data as Record<string, unknown>;
	if (type === 'gate.refused') {
		return {
			kind: 'agent',
			name: text(data['agentName']) ?? text(data['user']),
			proof: {rule: 'terminal', detail: `the person gate refused it: ${text(data['reason']) ?? 'an agent asked'}`},
			passkey: null,
		};
	}
	if (PERSON_GATED.has(type)) {
		return {
			kind: 'person',
			name: text(data['by']) ?? text(data['osUser']),
			proof: {
				rule: 'terminal',
				detail:
					'written only after the person gate found a person at a terminal of its own, with no agent marker or agent process above it',
			},
			passkey: null,
		};
	}
	if (AGENT_SOURCES.has(event.source)) {
		return {
			kind: 'agent',
			name: event.source,
			proof: {rule: 'producer', detail: `recorded from the agent's own ${event.source} events`},
			passkey: null,
		};
	}
	if (CONTROLROOM_SOURCES.has(event.source)) {
		return {
			kind: 'controlroom',
			name: event.source,
			proof: {rule: 'producer', detail: `controlroom's ${event.source}`},
			passkey: null,
		};
	}
	return {
		kind: 'unproven',
		name: text(data['actor']) ?? text(data['by']),
		proof: {rule: 'none', detail: `a ${event.source} command; no gate stands before it`},
		passkey: null,
	};
}

/** One event as an audit record. */
export function auditRecord(event: LedgerEvent, arrivedAt: number | null, hash: string | null): AuditRecord {
	return {
		seq: event.seq,
		at: new Date(event.at).toISOString(),
		arrivedAt: arrivedAt === null ? null : new Date(arrivedAt).toISOString(),
		producer: event.source,
		type: storedTypeOf(event),
		task: event.taskId,
		actor: auditActor(event),
		hash,
		data: event.data,
	};
}
