import {EventType, numberField, stringField, type LedgerEvent} from './events.ts';

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

function describeAgentEvent(event: LedgerEvent): string {
	const name = stringField(event.data, 'event') ?? 'event';
	const tool = stringField(event.data, 'toolName');
	const payload = (event.data['payload'] ?? {}) as Record<string, unknown>;
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

/** One line of text describing an event, for the timeline. */
export function describeEvent(event: LedgerEvent): string {
	const data = event.data;
	switch (event.type) {
		case EventType.registered:
			return clip(`registered ${stringField(data, 'title') ?? ''} ${stringField(data, 'command') ?? ''}`);
		case EventType.started: {
			const pid = numberField(data, 'pid');
			return pid === null ? 'started (pid unknown)' : `started pid ${pid}`;
		}
		case EventType.pidReported:
			return `pid ${numberField(data, 'pid') ?? 'unknown'}`;
		case EventType.progressed:
			return `progress ${numberField(data, 'done')}/${numberField(data, 'total')}`;
		case EventType.planItem:
			return clip(
				`plan item ${stringField(data, 'subject') ?? stringField(data, 'itemId') ?? ''} ${data['isDone'] === true ? 'completed' : 'open'}`,
			);
		case EventType.tokensReported:
			return `tokens +${numberField(data, 'input') ?? '?'} in, +${numberField(data, 'output') ?? '?'} out`;
		case EventType.exited: {
			const signal = stringField(data, 'signal');
			return signal ? `exited by ${signal}` : `exited ${numberField(data, 'exitCode') ?? 'unknown'}`;
		}
		case EventType.failed:
			return clip(`failed: ${stringField(data, 'error') ?? 'unknown error'}`);
		case EventType.stopped:
			return clip(`stopped ${stringField(data, 'signal') ?? ''} ${stringField(data, 'reason') ?? ''}`);
		case EventType.stopRequested:
			return `stop requested (${stringField(data, 'signal') ?? 'SIGTERM'}, then SIGKILL after ${numberField(data, 'graceMs') ?? '?'} ms)`;
		case EventType.lost:
			return clip(`lost: ${stringField(data, 'reason') ?? 'process gone with no exit recorded'}`);
		case EventType.ended:
			return clip(`ended (${stringField(data, 'reason') ?? 'no reason'}), exit code unknown`);
		case EventType.discovered:
			return clip(`found untracked pid ${numberField(data, 'pid') ?? '?'} ${stringField(data, 'command') ?? ''}`);
		case EventType.agentEvent:
			return describeAgentEvent(event);
		case EventType.needRaised:
			return clip(`needs you: ${stringField(data, 'message') ?? ''}`);
		case EventType.acknowledged:
			return 'acknowledged';
		case EventType.claimTaken:
			return clip(`taken by ${stringField(data, 'holder') ?? 'unknown'}`);
		case EventType.claimProgressed:
			return clip(`progress: ${stringField(data, 'note') ?? ''}`);
		case EventType.claimHandedIn:
			return clip(`handed in, waiting for ${stringField(data, 'acceptor') ?? 'its acceptor'}`);
		case EventType.claimPassedBack:
			return clip(`passed back: ${stringField(data, 'reason') ?? ''}`);
		default:
			return clip(`${event.type} ${JSON.stringify(data)}`);
	}
}
