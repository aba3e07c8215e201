// Acceptance line by line, by every acceptor (docs/contracts.md, "Accepting"): each acceptor
// says met or unmet for the lines the contract gives them (their duties); the hand-in is accepted
// only when every acceptor has said met for every line of theirs. Pure: the verdicts come from the
// ledger's `work.line_verdict` events, the duties from the terms recorded at the take.

import {overTextLimit, REASON_MAX_CHARS} from '../text-limits.ts';

export type Verdict = 'met' | 'unmet';

/** One person's verdict on one acceptance line (numbered from 1). */
export type LineVerdict = {
	readonly line: number;
	readonly verdict: Verdict;
	/** Why a line is unmet (required then); null for met. */
	readonly reason: string | null;
	readonly by: string;
	readonly at: number;
};

/** What a person asked for on the command line: `--line N --met` or `--line N --unmet REASON`. */
export type AskedVerdict = {readonly line: number; readonly verdict: Verdict; readonly reason: string | null};

/** An acceptor's duty as recorded at the take: null lines means every line. */
export type Duty = {readonly duty?: string | null; readonly lines?: readonly number[] | null};

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Each acceptor's lines (numbered from 1), in the contract's order of acceptors. */
export function linesOwed(acceptors: Readonly<Record<string, Duty | string>>, lineCount: number): Map<string, number[]> {
	const all = Array.from({length: lineCount}, (_, index) => index + 1);
	const owed = new Map<string, number[]>();
	for (const [name, duty] of Object.entries(acceptors)) {
		const lines = typeof duty === 'object' && duty !== null && Array.isArray(duty.lines) ? duty.lines : null;
		owed.set(name, lines === null ? all : all.filter(line => lines.includes(line)));
	}
	return owed;
}

/** The acceptor `name` is (as the contract spells it), or null. */
export function acceptorNamed(owed: ReadonlyMap<string, readonly number[]>, name: string): string | null {
	return [...owed.keys()].find(acceptor => sameName(acceptor, name)) ?? null;
}

/** The latest verdict of each (person, line), oldest first in, newest wins. */
function latestByPersonAndLine(verdicts: readonly LineVerdict[]): Map<string, LineVerdict> {
	const latest = new Map<string, LineVerdict>();
	for (const verdict of [...verdicts].sort((a, b) => a.at - b.at))
		latest.set(`${verdict.by.trim().toLowerCase()}\u0000${verdict.line}`, verdict);
	return latest;
}

/** Where a hand-in stands: who still owes which lines, and which lines someone said are unmet. */
export type AcceptanceStanding = {
	/** Every acceptor said met for every line of theirs. */
	readonly complete: boolean;
	/** Acceptors with lines they have not said met yet, in the contract's order. */
	readonly waiting: readonly {readonly name: string; readonly lines: readonly number[]}[];
	/** Lines an acceptor said are unmet (their latest word), with who and why, by line. */
	readonly unmet: readonly LineVerdict[];
	/** Lines every acceptor of theirs said met. */
	readonly met: readonly number[];
};

/** Folds the verdicts given since the hand-in against each acceptor's lines. */
export function acceptanceStanding(
	owed: ReadonlyMap<string, readonly number[]>,
	verdicts: readonly LineVerdict[],
): AcceptanceStanding {
	const latest = latestByPersonAndLine(verdicts);
	const said = (name: string, line: number) => latest.get(`${name.trim().toLowerCase()}\u0000${line}`);
	const waiting: {name: string; lines: number[]}[] = [];
	const unmet: LineVerdict[] = [];
	const lines = new Set<number>();
	for (const [name, own] of owed) {
		const open = own.filter(line => said(name, line)?.verdict !== 'met');
		if (open.length > 0) waiting.push({name, lines: open});
		for (const line of own) {
			lines.add(line);
			const verdict = said(name, line);
			if (verdict?.verdict === 'unmet') unmet.push(verdict);
		}
	}
	const stillOpen = new Set(waiting.flatMap(entry => entry.lines));
	return {
		complete: owed.size > 0 && waiting.length === 0,
		waiting,
		unmet: unmet.sort((a, b) => a.line - b.line),
		met: [...lines].filter(line => !stillOpen.has(line)).sort((a, b) => a - b),
	};
}

/** `lines 2, 3` or `line 2`. */
export function lineList(lines: readonly number[]): string {
	return `${lines.length === 1 ? 'line' : 'lines'} ${lines.join(', ')}`;
}

/** `waiting for lee: lines 2, 3; mara: line 1`, or null when nobody owes anything. */
export function waitingLine(standing: AcceptanceStanding): string | null {
	if (standing.waiting.length === 0) return null;
	return `waiting for ${standing.waiting.map(entry => `${entry.name}: ${lineList(entry.lines)}`).join('; ')}`;
}

/**
 * What a send-back carries into the next attempt: the unmet lines, each with its text and every
 * reason given for it, and never a met line. One line per acceptance line.
 */
export function unmetForNextAttempt(unmet: readonly LineVerdict[], checks: readonly string[]): string[] {
	const byLine = new Map<number, LineVerdict[]>();
	for (const verdict of unmet) byLine.set(verdict.line, [...(byLine.get(verdict.line) ?? []), verdict]);
	return [...byLine.entries()]
		.sort(([a], [b]) => a - b)
		.map(([line, verdicts]) => {
			const text = checks[line - 1] ?? '';
			const reasons = verdicts.map(verdict => `${verdict.reason ?? ''} (${verdict.by})`).join('; ');
			return `acceptance line ${line} is not met (${text}): ${reasons}`;
		});
}

/**
 * Problems with the verdicts a person gave in one command, one line each: a line the contract
 * lacks, a line given twice with opposite verdicts, an unmet line without a reason.
 */
export function askedProblems(asked: readonly AskedVerdict[], lineCount: number): string[] {
	const problems: string[] = [];
	const seen = new Map<number, Verdict>();
	for (const {line, verdict, reason} of asked) {
		if (!Number.isInteger(line) || line < 1 || line > lineCount) {
			problems.push(
				`--line ${line}: the contract has ${lineCount === 1 ? 'one acceptance line (1)' : `acceptance lines 1–${lineCount}`}`,
			);
			continue;
		}
		const before = seen.get(line);
		if (before !== undefined && before !== verdict) problems.push(`--line ${line}: given both --met and --unmet; say one`);
		seen.set(line, verdict);
		if (verdict === 'unmet' && (reason === null || reason.trim() === ''))
			problems.push(`--line ${line} --unmet: a reason is required (what is missing?)`);
		const bad = reason === null ? null : reasonProblem(reason);
		if (bad !== null) problems.push(`--line ${line} --unmet: ${bad}`);
	}
	return problems;
}

// Control characters other than whitespace: an escape code pasted into a reason would reach the
// next worker's first turn and every terminal that shows it.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/u;

/** Why a reason cannot be recorded (control characters, too long), or null. */
export function reasonProblem(reason: string): string | null {
	if (CONTROL.test(reason)) return 'the reason holds a control character (an escape code?): write it as plain text';
	const tooLong = overTextLimit('the reason', reason, REASON_MAX_CHARS);
	return tooLong === null ? null : `${tooLong}: say it shortly, and put the detail in a file`;
}
