import {assertNever} from './assert-never.ts';
import {EventType, FOREIGN_EVENT, type EventDataOf, type LedgerEvent} from './events.ts';

/** A timeline line: one event, or a run of heartbeats folded into one. */
export type TimelineEntry =
	| {readonly kind: 'event'; readonly event: LedgerEvent}
	| {readonly kind: 'heartbeats'; readonly count: number; readonly from: number; readonly to: number};

/** Folds consecutive heartbeats: they prove liveness, not progress. */
export function foldHeartbeats(events: readonly LedgerEvent[]): TimelineEntry[] {
	const entries: TimelineEntry[] = [];
	for (const event of events) {
		const last = entries.at(-1);
		if (event.type !== EventType.heartbeat) {
			entries.push({kind: 'event', event});
		} else if (last?.kind === 'heartbeats') {
			entries[entries.length - 1] = {...last, count: last.count + 1, to: event.at};
		} else {
			entries.push({kind: 'heartbeats', count: 1, from: event.at, to: event.at});
		}
	}
	return entries;
}

const MAX_SUMMARY = 100;

function clip(text: string): string {
	const line = text.replace(/\s+/g, ' ').trim();
	return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

function describeAgentEvent(data: EventDataOf<'agent.event'>): string {
	const name = data.event ?? 'event';
	const tool = data.toolName ?? null;
	const payload = (data.payload ?? {}) as Record<string, unknown>;
	const detail =
		typeof payload['prompt'] === 'string'
			? payload['prompt']
			: typeof payload['message'] === 'string'
				? payload['message']
				: typeof payload['reason'] === 'string'
					? payload['reason']
					: null;
	return clip([name, tool, detail ? `“${detail}”` : null].filter(Boolean).join(' '));
}

const known = (value: number | string | null | undefined, fallback: string): string => (value ?? fallback).toString();

/** One line of text describing an event, for the timeline. */
export function describeEvent(event: LedgerEvent): string {
	switch (event.type) {
		case EventType.registered:
			return clip(`registered ${event.data.title ?? ''} ${event.data.command ?? ''}`);
		case EventType.started: {
			const pid = event.data.pid ?? null;
			return pid === null ? 'started (pid unknown)' : `started pid ${pid}`;
		}
		case EventType.heartbeat:
			return 'heartbeat';
		case EventType.pidReported:
			return `pid ${known(event.data.pid, 'unknown')}`;
		case EventType.progressed:
			return `progress ${known(event.data.done, 'null')}/${known(event.data.total, 'null')}`;
		case EventType.planItem:
			return clip(
				`plan item ${event.data.subject ?? event.data.itemId ?? ''} ${event.data.isDone === true ? 'completed' : 'open'}`,
			);
		case EventType.tokensReported:
			return `tokens +${known(event.data.input, '?')} in, +${known(event.data.output, '?')} out`;
		case EventType.exited: {
			const signal = event.data.signal ?? null;
			return signal ? `exited by ${signal}` : `exited ${known(event.data.exitCode, 'unknown')}`;
		}
		case EventType.failed:
			return clip(`failed: ${event.data.error ?? 'unknown error'}`);
		case EventType.stopped:
			return clip(`stopped ${event.data.signal ?? ''} ${event.data.reason ?? ''}`);
		case EventType.stopRequested:
			return `stop requested (${event.data.signal ?? 'SIGTERM'}, then SIGKILL after ${known(event.data.graceMs, '?')} ms)`;
		case EventType.lost:
			return clip(`lost: ${event.data.reason ?? 'process gone with no exit recorded'}`);
		case EventType.ended:
			return clip(`ended (${event.data.reason ?? 'no reason'}), exit code unknown`);
		case EventType.discovered:
			return clip(`found untracked pid ${known(event.data.pid, '?')} ${event.data.command ?? ''}`);
		case EventType.agentEvent:
			return describeAgentEvent(event.data);
		case EventType.needRaised:
			return clip(`needs you: ${event.data.message ?? ''}`);
		case EventType.acknowledged:
			return 'acknowledged';
		case EventType.claimTaken:
			return clip(`taken by ${event.data.holder ?? 'unknown'}`);
		case EventType.claimProgressed:
			return clip(`progress: ${event.data.note ?? ''}`);
		case EventType.claimHandedIn:
			return clip(`handed in, waiting for ${event.data.acceptor ?? 'its acceptor'}`);
		case EventType.claimPassedBack:
			return clip(`passed back: ${event.data.reason ?? ''}`);
		case EventType.fleetRequestReceived:
			return clip(
				`fleet request #${known(event.data.requestId, '?')}: ${event.data.verb ?? '?'} from ${event.data.requestedBy ?? 'a fleet board'}`,
			);
		case EventType.fleetRequestHandled:
			return clip(
				`fleet request #${known(event.data.requestId, '?')} ${event.data.verb ?? '?'}: ${event.data.outcome ?? 'unknown'}${event.data.message ? ` — ${event.data.message}` : ''}`,
			);
		case FOREIGN_EVENT:
			return clip(`${event.storedType} ${JSON.stringify(event.data)}`);
		default:
			return assertNever(event);
	}
}
