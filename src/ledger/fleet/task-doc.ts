import {STATUSES} from '../../core/status.ts';
import type {Task} from '../../core/task.ts';
import {taskFromValue} from '../rows.ts';

/**
 * Another host's task row, checked before it is used (docs/fleet.md, "Rows the fleet does not
 * trust"): the fleet is written by every host, so a row may be anything its writer put there.
 * Each field the views read is checked for its type; a row that fails is skipped with the reason,
 * never a crash of the board or the snapshot. Fields a newer build adds pass through.
 *
 * Checked by hand rather than with a zod schema, the one edge that is: a fleet snapshot reads a
 * few hundred thousand rows, and a schema's parse (which copies each row) cost twice the JSON
 * parse itself (52 µs a row beside 24 µs); this reads each field once and copies nothing (9 µs
 * beside 16 µs; both measured on the same 900-byte row, 100,000 times, at a load average of 20).
 */

type Check = (value: unknown) => boolean;

const isRecord = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);
const text: Check = value => typeof value === 'string';
const number: Check = value => typeof value === 'number' && Number.isFinite(value);
const flag: Check = value => typeof value === 'boolean';
const maybe =
	(check: Check): Check =>
	value =>
		value === null || check(value);
const optional =
	(check: Check): Check =>
	value =>
		value === undefined || check(value);
/** Whether every field of `value` named in `fields` passes its check (the list made once, not at each row). */
function allFields(value: Record<string, unknown>, fields: readonly (readonly [string, Check])[]): boolean {
	for (const [name, check] of fields) if (!check(value[name])) return false;
	return true;
}
const shape = (fields: Readonly<Record<string, Check>>): Check => {
	const list = Object.entries(fields);
	return value => isRecord(value) && allFields(value, list);
};
const recordOf =
	(check: Check): Check =>
	value => {
		if (!isRecord(value)) return false;
		for (const key in value) if (!check(value[key])) return false;
		return true;
	};
const listOf =
	(check: Check): Check =>
	value =>
		Array.isArray(value) && value.every(check);

const STATUS_SET: ReadonlySet<unknown> = new Set(STATUSES);
const usage = shape({input: number, cacheWrite5m: number, cacheWrite1h: number, cacheRead: number, output: number});

/** Every field a view reads, and what it must be. */
const TASK_FIELDS: readonly (readonly [string, Check])[] = Object.entries({
	id: text,
	title: maybe(text),
	source: text,
	role: maybe(text),
	status: value => STATUS_SET.has(value),
	pid: maybe(number),
	pgid: optional(maybe(number)),
	exitCode: maybe(number),
	signal: maybe(text),
	error: maybe(text),
	endReason: optional(maybe(text)),
	cwd: maybe(text),
	parentId: maybe(text),
	sessionId: maybe(text),
	progress: maybe(shape({done: number, total: number})),
	stepsDeclared: optional(maybe(number)),
	tokens: shape({input: maybe(number), output: maybe(number), total: maybe(number)}),
	budget: maybe(number),
	createdAt: number,
	startedAt: maybe(number),
	endedAt: maybe(number),
	lastEventAt: number,
	lastSeenAt: optional(number),
	lastSeq: number,
	isTokensPartial: optional(flag),
	stallSeconds: optional(maybe(number)),
	planItems: optional(maybe(recordOf(flag))),
	spend: optional(maybe(recordOf(usage))),
	burn: optional(listOf(shape({minute: number, tokens: number, byModel: maybe(recordOf(usage))}))),
	reportedCost: optional(maybe(shape({amount: number, currency: text, at: number}))),
	telemetry: optional(maybe(shape({requests: number, input: number, output: number, costUsd: maybe(number)}))),
	tmux: optional(maybe(shape({socket: text, pane: text}))),
	seenBy: optional(recordOf(number)),
} satisfies Record<string, Check>);

/** A fleet task row's document as a task, or why it is not one (one line, naming the field). */
export function fleetTaskOf(doc: string, id: string): {readonly task: Task} | {readonly problem: string} {
	let value: unknown;
	try {
		value = JSON.parse(doc);
	} catch {
		return {problem: 'its document is not JSON'};
	}
	if (!isRecord(value)) return {problem: 'its document is not an object'};
	if (!allFields(value, TASK_FIELDS)) {
		const [name] = TASK_FIELDS.find(([field, check]) => !check(value[field])) ?? ['document'];
		return {problem: `its ${name} is not what a task holds there`};
	}
	if (value['id'] !== id) return {problem: "its document is another task's"};
	return {task: taskFromValue(value as Task)};
}
