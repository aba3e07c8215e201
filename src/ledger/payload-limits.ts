// The limits every hook payload, spool line and ingested line meets at the edge, before anything
// else reads it. Each check is a loop over the text or a queue of values: nothing here recurses, so
// no input, however deep or large, can exhaust the stack (docs/ledger.md, "Limits").
import {isUtf8} from 'node:buffer';

/** A line (hook stdin, a spool line, an ingested line) larger than this is a reject, not parsed. */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;
/** Nesting deeper than this (objects and arrays) is a reject: real payloads nest fewer than ten levels. */
export const MAX_DEPTH = 64;
/** Strings longer than this in a kept payload are cut, so one tool output cannot bloat the ledger. */
export const MAX_KEPT_STRING = 2000;
/** A kept payload holds at most this much (string characters plus a little per value); the rest is cut with a marker. */
export const MAX_KEPT_PAYLOAD_CHARS = 256 * 1024;

/** Fields that name things: an id, a path, or a short name. Over the limit, or holding control characters, the line is a reject. */
const FIELD_LIMITS: readonly {readonly field: string; readonly max: number; readonly isPath: boolean}[] = [
	{field: 'session_id', max: 256, isPath: false},
	{field: 'thread-id', max: 256, isPath: false},
	{field: 'turn-id', max: 256, isPath: false},
	{field: 'agent_id', max: 256, isPath: false},
	{field: 'hook_event_name', max: 128, isPath: false},
	{field: 'type', max: 128, isPath: false},
	{field: 'tool_name', max: 256, isPath: false},
	{field: 'agent_type', max: 256, isPath: false},
	{field: 'cwd', max: 4096, isPath: true},
	{field: 'transcript_path', max: 4096, isPath: true},
	{field: 'agent_transcript_path', max: 4096, isPath: true},
];

// eslint-disable-next-line no-control-regex -- ids and names must not carry control characters
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Why a top-level field breaks its limit, or null. Only strings are checked; the schema judges types. */
export function fieldLimitProblem(record: Readonly<Record<string, unknown>>): string | null {
	for (const {field, max, isPath} of FIELD_LIMITS) {
		const value = record[field];
		if (typeof value !== 'string') continue;
		if (value.length > max) return `${field}: ${value.length} characters, over the ${max} allowed`;
		// A path may hold odd characters (Linux allows any byte but NUL and /); an id or a name may not.
		if (isPath ? value.includes('\u0000') : CONTROL.test(value)) return `${field}: contains control characters`;
	}
	return null;
}

/** Whether `bytes` could begin a UTF-8 text (an incomplete last character is allowed). */
function isUtf8Prefix(bytes: Uint8Array): boolean {
	try {
		new TextDecoder('utf-8', {fatal: true}).decode(bytes, {stream: true});
		return true;
	} catch {
		return false;
	}
}

/** The offset of the first byte at which `bytes` stops being UTF-8, or -1 when all of it is UTF-8. */
export function invalidUtf8Offset(bytes: Uint8Array): number {
	// isUtf8 validates without building a string (the caller decodes once, after): a bulk import's hot path.
	if (isUtf8(bytes)) return -1;
	// Rare, so a binary search for the message is cheap enough: the longest prefix that decodes.
	if (isUtf8Prefix(bytes)) return bytes.length; // only the end is cut short
	let good = 0;
	let bad = bytes.length;
	while (bad - good > 1) {
		const middle = (good + bad) >>> 1;
		if (isUtf8Prefix(bytes.subarray(0, middle))) good = middle;
		else bad = middle;
	}
	return good;
}

/**
 * Whether JSON text nests deeper than `max` (objects and arrays, counted outside strings). One pass
 * over the characters, before JSON.parse, so a 10,000-deep payload is refused in microseconds.
 */
export function nestsDeeperThan(text: string, max = MAX_DEPTH): boolean {
	// Nesting cannot go deeper than the number of opening brackets: counting them (a native search)
	// settles almost every real line without a loop over its characters.
	if (openingBracketsAtMost(text, max)) return false;
	let depth = 0;
	let isInString = false;
	for (let index = 0; index < text.length; index += 1) {
		const code = text.charCodeAt(index);
		if (isInString) {
			if (code === 0x5c) index += 1;
			else if (code === 0x22) isInString = false;
		} else if (code === 0x22) {
			isInString = true;
		} else if (code === 0x7b || code === 0x5b) {
			depth += 1;
			if (depth > max) return true;
		} else if (code === 0x7d || code === 0x5d) {
			depth -= 1;
		}
	}
	return false;
}

/** Whether `text` holds at most `max` of `{` and `[` together, strings included. */
function openingBracketsAtMost(text: string, max: number): boolean {
	let count = 0;
	for (let at = text.indexOf('{'); at >= 0; at = text.indexOf('{', at + 1)) if (++count > max) return false;
	for (let at = text.indexOf('['); at >= 0; at = text.indexOf('[', at + 1)) if (++count > max) return false;
	return true;
}

const CUT_MARKER = '…';

/** What one kept value costs against the payload's allowance: its kept characters, or a little for any other value. */
function costOf(value: unknown): number {
	return typeof value === 'string' ? Math.min(value.length, MAX_KEPT_STRING) + 2 : 8;
}

function keepString(value: string): string {
	return value.length <= MAX_KEPT_STRING ? value : `${value.slice(0, MAX_KEPT_STRING)}${CUT_MARKER} [${value.length} chars]`;
}

type Slot = {
	readonly source: unknown;
	readonly into: Record<string, unknown> | unknown[];
	readonly key: string | number;
	readonly depth: number;
};

/** Values still to look at in isKeptWhole, and their depths: reused, so a look allocates nothing. */
const pendingValues: unknown[] = [];
const pendingDepths: number[] = [];

/** A plain JSON object or array (what JSON.parse makes); anything else is left to the copy. */
function isPlainContainer(value: object): boolean {
	const prototype = Object.getPrototypeOf(value) as unknown;
	return Array.isArray(value) ? prototype === Array.prototype : prototype === Object.prototype || prototype === null;
}

/**
 * Whether keptPayload would keep `value` unchanged: no string over MAX_KEPT_STRING, no object or
 * array at MAX_DEPTH, and a total cost (counted as keptPayload counts it) under the allowance, so
 * nothing is left out. When in doubt (another kind of object), false: the copy decides.
 */
function isKeptWhole(value: unknown): boolean {
	let cost = 0;
	let isWhole = true;
	pendingValues.length = 0;
	pendingDepths.length = 0;
	pendingValues.push(value);
	pendingDepths.push(0);
	while (isWhole && pendingValues.length > 0) {
		const item = pendingValues.pop();
		const depth = pendingDepths.pop() as number;
		if (typeof item === 'string') {
			cost += item.length + 2;
			isWhole = item.length <= MAX_KEPT_STRING;
		} else if (item === null || typeof item !== 'object') {
			cost += 8;
		} else if (depth >= MAX_DEPTH || !isPlainContainer(item)) {
			isWhole = false;
		} else {
			cost += 8;
			if (Array.isArray(item)) {
				for (const element of item as unknown[]) {
					pendingValues.push(element);
					pendingDepths.push(depth + 1);
				}
			} else {
				for (const name in item) {
					cost += name.length;
					pendingValues.push((item as Record<string, unknown>)[name]);
					pendingDepths.push(depth + 1);
				}
			}
		}
		if (cost >= MAX_KEPT_PAYLOAD_CHARS) isWhole = false;
	}
	pendingValues.length = 0;
	pendingDepths.length = 0;
	return isWhole;
}

/**
 * The payload as kept on the timeline: strings over MAX_KEPT_STRING cut with a marker, nesting
 * deeper than MAX_DEPTH replaced by a marker, and values past MAX_KEPT_PAYLOAD_CHARS left out with
 * one marker saying how many. Built breadth first from a queue (no recursion), so the top-level
 * fields (the prompt, the message) are kept before anything nested deep inside a tool's output.
 */
export function keptPayload(value: unknown): unknown {
	// Almost every payload is kept whole: then it is kept as it is, without a copy of every value.
	if (isKeptWhole(value)) return value;
	let left = MAX_KEPT_PAYLOAD_CHARS - costOf(value);
	const root: unknown[] = [null];
	const queue: Slot[] = [{source: value, into: root, key: 0, depth: 0}];
	for (let head = 0; head < queue.length; head += 1) {
		const {source, into, key, depth} = queue[head] as Slot;
		const put = (kept: unknown): void => {
			(into as Record<string | number, unknown>)[key] = kept;
		};
		if (source === null || typeof source !== 'object') {
			put(typeof source === 'string' ? keepString(source) : source);
		} else if (depth >= MAX_DEPTH) {
			put(`${CUT_MARKER} [cut: nested deeper than ${MAX_DEPTH}]`);
		} else if (Array.isArray(source)) {
			const copy: unknown[] = [];
			put(copy);
			let index = 0;
			for (; index < source.length && left > 0; index += 1) {
				left -= costOf(source[index]);
				copy.push(null);
				queue.push({source: source[index], into: copy, key: index, depth: depth + 1});
			}
			if (index < source.length) copy.push(`${CUT_MARKER} [${source.length - index} more items cut]`);
		} else {
			const copy: Record<string, unknown> = {};
			put(copy);
			const entries = Object.entries(source);
			let index = 0;
			for (; index < entries.length && left > 0; index += 1) {
				const [name, item] = entries[index] as [string, unknown];
				left -= costOf(item) + name.length;
				copy[name] = null;
				queue.push({source: item, into: copy, key: name, depth: depth + 1});
			}
			if (index < entries.length) copy[CUT_MARKER] = `${entries.length - index} more fields cut`;
		}
	}
	return root[0];
}
