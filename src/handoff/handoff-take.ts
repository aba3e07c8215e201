import {createHash} from 'node:crypto';
import {realpathSync} from 'node:fs';
import {EventType} from '../core/events.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {AgentFileError, readAgentText} from '../ledger/agent-files.ts';
import {repositoryRootOf} from './handoff-writer.ts';

/** The most of a handoff given as context; a longer one is cut, and the cut names the file. */
export const MAX_HANDOFF_CONTEXT_CHARS = 9000;
/** The largest handoff file read (one is a page or two; anything bigger is not ours). */
const MAX_HANDOFF_BYTES = 512 * 1024;

/** A handoff a session took: its file, and the text it was given. */
export type TakenHandoff = {readonly path: string; readonly sha256: string; readonly text: string; readonly handoffTask: string};

/** One taker per handoff: the ledger's dedup key decides between two sessions starting at once. */
export const takenKey = (path: string): string => `handoff-taken:${path}`;

function realOrSelf(path: string): string {
	try {
		return realpathSync(path);
	} catch {
		return path;
	}
}

/** The context a session is given: the handoff's text, said to be one, cut to fit. */
export function handoffContext(taken: TakenHandoff): string {
	const body =
		taken.text.length > MAX_HANDOFF_CONTEXT_CHARS
			? `${taken.text.slice(0, MAX_HANDOFF_CONTEXT_CHARS)}\n\n(cut: the whole handoff is ${taken.path})`
			: taken.text;
	return `controlroom: the handoff the previous session in this repository left (${taken.path}). Its next step is that agent's claim: check it against the repository before acting on it.\n\n${body}`;
}

/**
 * Takes the latest handoff written for the repository `cwd` is in, when no session has taken it
 * yet (docs/handoffs.md, "Read at the next start"): older ones are superseded by it. The take is
 * `handoff.taken` on the handoff's task with the dedup key `handoff-taken:PATH`: of two sessions
 * starting at once, the one whose event the ledger adds takes it; the other gets none.
 */
export function takeLatestHandoff(
	ledger: Ledger,
	cwd: string,
	by: string,
	how: string,
	at: number = Date.now(),
): TakenHandoff | null {
	const root = repositoryRootOf(cwd);
	if (root === null) return null;
	const real = realOrSelf(root);
	const latest = ledger.reader
		.eventsOfType([EventType.handoffWritten])
		.filter(event => event.data.repository && realOrSelf(event.data.repository) === real && event.data.path)
		.at(-1);
	if (!latest?.data.path) return null;
	const path = latest.data.path;
	let text: string;
	try {
		text = readAgentText(path, MAX_HANDOFF_BYTES);
	} catch (error) {
		if (error instanceof AgentFileError) return null;
		throw error;
	}
	const sha256 = createHash('sha256').update(text).digest('hex');
	const {appended} = ledger.writer.append([
		{
			taskId: latest.taskId,
			type: EventType.handoffTaken,
			at,
			source: 'controlroom',
			data: {path, sha256, handoffTask: latest.taskId, by, how},
			dedupKey: takenKey(path),
		},
	]);
	return appended === 0 ? null : {path, sha256, text, handoffTask: latest.taskId};
}
