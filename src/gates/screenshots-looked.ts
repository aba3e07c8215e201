import {EventType} from '../core/events.ts';
import {isKeptIntact} from '../handoff/screenshots.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {requirePerson} from './person-gate.ts';
import {ReviewGateError} from './review/subject.ts';

// A screenshot handed in as evidence counts for a UI acceptance line only once a person has
// looked at it (docs/contracts.md, "Screenshots"): `controlroom looked` records that, by the
// kept copy's content hash, and `accept` waits for it.

/** One screenshot of a hand-in: the line it answers, its hash, where it is kept. */
export type HandedInScreenshot = {readonly line: number; readonly sha256: string; readonly kept: string};

/** The screenshots of a claim's latest hand-in, and when it was handed in. */
export function handedInScreenshots(
	ledger: Ledger,
	taskId: string,
): {readonly at: number | null; readonly shots: HandedInScreenshot[]} {
	const [handedIn] = ledger.reader.latestEventsOf(taskId, [EventType.claimHandedIn], 1);
	const after = (handedIn?.data.evidence as {after?: unknown} | undefined)?.after;
	const shots = (Array.isArray(after) ? after : []).flatMap(entry => {
		const item = entry as {kind?: unknown; check?: unknown; sha256?: unknown; kept?: unknown};
		return item.kind === 'screenshot' &&
			typeof item.sha256 === 'string' &&
			typeof item.kept === 'string' &&
			typeof item.check === 'number'
			? [{line: item.check, sha256: item.sha256, kept: item.kept}]
			: [];
	});
	return {at: handedIn?.at ?? null, shots};
}

/** The hashes a person marked looked at since the hand-in. */
export function lookedSince(ledger: Ledger, taskId: string, since: number): Set<string> {
	return new Set(
		ledger.reader
			.latestEventsOf(taskId, [EventType.evidenceLooked], 1000)
			.filter(event => event.at >= since)
			.map(event => event.data.sha256 ?? ''),
	);
}

/** Every name that did the work of a claim: its operator, its holder, and whoever acted on it. */
export function implementersOf(ledger: Ledger, taskId: string): string[] {
	const names: string[] = [];
	for (const event of ledger.reader.eventsOf(taskId)) {
		if (event.type === EventType.claimTaken)
			names.push(event.data.operator ?? '', event.data.holder ?? '', event.data.actor ?? '');
		if (event.type === EventType.claimProgressed || event.type === EventType.claimHandedIn)
			names.push(event.data.holder ?? '', event.data.actor ?? '');
	}
	return names.filter(name => name.trim() !== '');
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/**
 * `controlroom looked CLAIM [--line N]`: a person marks the hand-in's screenshots (of line N, or
 * all) looked at. Only a person, never whoever did the work; a kept copy that no longer holds what
 * was handed in is refused.
 */
export function markScreenshotsLooked(
	ledger: Ledger,
	request: {readonly ref: string; readonly line: number | null; readonly as: string | null; readonly source: string},
): {readonly taskId: string; readonly by: string; readonly marked: readonly HandedInScreenshot[]} {
	const person = requirePerson(ledger, {verb: 'looked', target: request.ref, source: request.source});
	const task = ledger.reader.resolveTask(request.ref);
	if (!task) throw new ReviewGateError(`no task '${request.ref}' in ${ledger.path}`);
	const {shots} = handedInScreenshots(ledger, task.id);
	const chosen = shots.filter(shot => request.line === null || shot.line === request.line);
	if (chosen.length === 0)
		throw new ReviewGateError(
			`${task.id}: its hand-in has no screenshot${request.line === null ? '' : ` for acceptance line ${request.line}`}`,
		);
	const osUser = person.user ?? 'unknown';
	const by = request.as?.trim() || osUser;
	for (const name of new Set([by, osUser]))
		if (implementersOf(ledger, task.id).some(implementer => sameName(implementer, name)))
			throw new ReviewGateError(`${task.id}: ${name} did this work: whoever does the work cannot judge its screenshots`);
	for (const shot of chosen)
		if (!isKeptIntact(shot.kept, shot.sha256))
			throw new ReviewGateError(
				`${task.id}: the kept screenshot ${shot.kept} no longer holds what was handed in (sha256 ${shot.sha256.slice(0, 12)})`,
			);
	const at = Date.now();
	ledger.writer.append(
		chosen.map(shot => ({
			taskId: task.id,
			type: EventType.evidenceLooked,
			at,
			source: request.source,
			data: {sha256: shot.sha256, line: shot.line, file: shot.kept, by, osUser, uid: person.uid},
		})),
	);
	return {taskId: task.id, by, marked: chosen};
}
