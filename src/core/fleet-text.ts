// PostgreSQL's text cannot hold U+0000, its jsonb refuses the escape `\u0000`, and a string with
// an unpaired UTF-16 surrogate has no UTF-8 form at all (the driver would turn it into U+FFFD
// without a word, so the fleet's copy would no longer equal the host's). A host's ledger can hold
// any of them (an agent's payload, a JSON pointer typed with a NUL in it). So everything shipped is
// made valid for PostgreSQL on the host, once, the same way every time: each such character is
// written as its escape in plain text (`\u0000`, `\ud83d`), which a person reading the fleet sees
// where the character was (docs/fleet.md, "What PostgreSQL cannot hold").

// eslint-disable-next-line no-control-regex -- finding U+0000 is the point
const UNSAFE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** A cheap look for the JSON escapes of those characters (JSON.stringify writes them so). */
const MAYBE_UNSAFE_JSON = /\\u(?:0000|d[89a-f])/i;

const escapeOf = (char: string): string => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A string PostgreSQL can hold, and whether it had to change. */
export function fleetText(text: string): {readonly text: string; readonly isChanged: boolean} {
	UNSAFE.lastIndex = 0;
	if (!UNSAFE.test(text)) return {text, isChanged: false};
	return {text: text.replace(UNSAFE, escapeOf), isChanged: true};
}

/** A value with every string in it (keys too) made one PostgreSQL can hold; iterative, never recursive. */
function fleetValue(value: unknown): {value: unknown; isChanged: boolean} {
	let isChanged = false;
	const fix = (text: string): string => {
		const fixed = fleetText(text);
		isChanged ||= fixed.isChanged;
		return fixed.text;
	};
	const root: {value: unknown} = {value};
	const queue: {holder: Record<string, unknown> | unknown[]; key: string | number}[] = [{holder: root as never, key: 'value'}];
	while (queue.length > 0) {
		const {holder, key} = queue.pop() as (typeof queue)[number];
		const current = (holder as Record<string | number, unknown>)[key];
		if (typeof current === 'string') {
			(holder as Record<string | number, unknown>)[key] = fix(current);
		} else if (Array.isArray(current)) {
			for (let index = 0; index < current.length; index += 1) queue.push({holder: current, key: index});
		} else if (current !== null && typeof current === 'object') {
			const entries = Object.entries(current as Record<string, unknown>).map(([name, child]) => [fix(name), child] as const);
			const copy: Record<string, unknown> = {};
			for (const [name, child] of entries) copy[name] = child;
			(holder as Record<string | number, unknown>)[key] = copy;
			for (const [name] of entries) queue.push({holder: copy, key: name});
		}
	}
	return {value: root.value, isChanged};
}

/**
 * JSON text (as the ledger stores an event's data) that PostgreSQL can hold, text and jsonb alike,
 * and whether it had to change. Text that needs no change is returned as it is, byte for byte.
 */
export function fleetJson(text: string): {readonly text: string; readonly isChanged: boolean} {
	if (!MAYBE_UNSAFE_JSON.test(text) && !fleetText(text).isChanged) return {text, isChanged: false};
	let value: unknown;
	try {
		value = JSON.parse(text);
	} catch {
		return fleetText(text);
	}
	const fixed = fleetValue(value);
	return fixed.isChanged ? {text: JSON.stringify(fixed.value), isChanged: true} : {text, isChanged: false};
}

/** A task (or any JSON value) PostgreSQL can hold, and whether it had to change. */
export function fleetObject<T>(value: T): {readonly value: T; readonly isChanged: boolean} {
	const text = JSON.stringify(value);
	const fixed = fleetJson(text);
	return fixed.isChanged ? {value: JSON.parse(fixed.text) as T, isChanged: true} : {value, isChanged: false};
}
