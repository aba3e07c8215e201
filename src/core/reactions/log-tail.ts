/**
 * The end of a CI log as plain lines (docs/reactions.md, "ci report"): escape sequences and other
 * control characters taken out, so what an agent is sent and what a terminal shows is the text a
 * person reads in the CI page. Pure: the file is read in src/cli/commands/ci.ts.
 */

/** How many of the log's last lines a report keeps: a rule sends at most this many (rules.ts, MAX_LINES). */
export const KEPT_LINES = 500;
/** A line longer than this is cut (a minified bundle in a log is one line of megabytes). */
export const MAX_LINE_CHARS = 400;

/* eslint-disable no-control-regex -- taking control sequences out is this module's purpose */
const OSC = /\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?/g;
const CSI = /(?:\u001b\[|\u009b)[0-?]*[ -/]*[@-~]/g;
const OTHER_ESCAPE = /\u001b[@-_]?/g;
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]|\p{Cs}/gu;
/* eslint-enable no-control-regex */

/** One line as a person reads it: a carriage return's overwrite kept as the terminal shows it (its last part). */
function plainLine(line: string): string {
	const withoutEscapes = line.replace(OSC, '').replace(CSI, '').replace(OTHER_ESCAPE, '');
	const lastPart =
		withoutEscapes
			.split('\r')
			.filter(part => part !== '')
			.at(-1) ?? '';
	const plain = lastPart.replace(CONTROL, '').replace(/\t/g, '  ').trimEnd();
	return plain.length > MAX_LINE_CHARS ? `${plain.slice(0, MAX_LINE_CHARS - 1)}…` : plain;
}

/**
 * The last `keep` lines of a log's text (its tail, when the log was cut: the first line is then
 * dropped, being a part), made plain. A final newline ends the last line; it does not add an empty one.
 */
export function logTail(text: string, options: {readonly isCut: boolean; readonly keep?: number}): string[] {
	const lines = text.split('\n');
	if (options.isCut) lines.shift();
	if (lines.at(-1) === '') lines.pop();
	return lines.slice(-(options.keep ?? KEPT_LINES)).map(plainLine);
}

/** The longest text a send carries (the message cap of docs/messages.md, "Limits"). */
export const SEND_MAX_CHARS = 16_000;

/**
 * What a ci-failed send says: which rule, where the run is, and the lines; when they do not fit in
 * a message, the oldest of them are left out (and the head says how many were sent).
 */
export function ciFailedMessage(report: {
	readonly rule: string;
	readonly lines: readonly string[];
	readonly total: number;
	readonly url: string | null;
}): string {
	const head = (count: number) =>
		`controlroom: CI failed for this task (reaction rule ${report.rule}${report.url === null ? '' : `, ${report.url}`}). The last ${count} of its ${report.total} log lines:`;
	let lines = [...report.lines];
	let size = lines.reduce((sum, line) => sum + line.length + 1, 0);
	while (lines.length > 0 && size + head(lines.length).length > SEND_MAX_CHARS) {
		size -= (lines[0] ?? '').length + 1;
		lines = lines.slice(1);
	}
	return [head(lines.length), ...lines].join('\n');
}
