// Text a person types into controlroom has a documented limit (docs/ledger.md, "Text limits"): a
// title or a need is a line to read, not a file, and a 100,000-character one is a mistake. Text an
// agent sends is never refused for its length (its payload is kept whole, within the payload
// limits), but every one-line place that shows it cuts it with … (`cutForLine`).

/** The longest task title `run --title` takes. */
export const TITLE_MAX_CHARS = 500;

/** The longest need `need` and the MCP `raise_need` take. */
export const NEED_MAX_CHARS = 4000;

/** The longest reason or note a person types: `--reason` (pass-back, send-back, effects reject), `accept --note`, `progress NOTE`. */
export const REASON_MAX_CHARS = 4000;

/** The most of one text a one-line listing (snapshot's queue) shows before cutting it with …. */
export const SHOWN_LINE_MAX_CHARS = 200;

/** Why `text` is too long for `what`, or null when it fits. Counted in code points, as a person counts characters. */
export function overTextLimit(what: string, text: string, max: number): string | null {
	const chars = [...text].length;
	return chars <= max ? null : `${what}: ${chars} characters, over the limit of ${max}`;
}

/**
 * `text` at most `max` characters, cut with … when longer (never inside a surrogate pair). Line
 * breaks are left to the terminal-safe function, which shows them escaped on the one line.
 */
export function cutForLine(text: string, max = SHOWN_LINE_MAX_CHARS): string {
	const chars = [...text];
	return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
}
