import {EventType, type EventBody, type EventDataOf} from '../core/events.ts';
import {parseProgressLine} from '../core/progress.ts';

/** How the wrapper reads a child's output. */
export const AGENT_KINDS = ['codex', 'claude', 'generic'] as const;
export type AgentKind = (typeof AGENT_KINDS)[number];

/** Something the output said, for the wrapper to record. */
export type OutputFinding =
	| {readonly kind: 'event'; readonly event: EventBody}
	| {readonly kind: 'tokens'; readonly input: number; readonly output: number; readonly data: EventDataOf<'task.tokens_reported'>}
	| {readonly kind: 'reject'; readonly reason: string; readonly raw: string};

/** Reads one line for a `PROGRESS n/total` claim, the only thing read from a generic agent. */
export function readProgressLine(line: string): OutputFinding[] {
	const progress = parseProgressLine(line);
	return progress ? [{kind: 'event', event: {type: EventType.progressed, data: {...progress, from: 'PROGRESS'}}}] : [];
}

/** Guesses how to read the output from the command's name: `codex ...`, `claude ...`, else generic. */
export function guessAgent(command: string): AgentKind {
	const name = command.slice(command.lastIndexOf('/') + 1);
	if (name === 'codex') return 'codex';
	if (name === 'claude') return 'claude';
	return 'generic';
}
