import {
	acceptanceStanding,
	acceptorNamed,
	askedProblems,
	lineList,
	linesOwed,
	waitingLine,
	type AcceptanceStanding,
	type AskedVerdict,
	type Duty,
	type LineVerdict,
	type Verdict,
} from '../core/contract/line-verdicts.ts';
import {EventType, type NewEvent} from '../core/events.ts';
import {namedAcceptorOf} from '../handoff/ready.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {ReviewGateError} from './review/subject.ts';

// The ledger side of acceptance line by line (docs/contracts.md, "Accepting"): what a hand-in's
// acceptors owe, as recorded at the take, and the verdicts given since its latest hand-in.

/** A hand-in's acceptance lines and who owes which of them. */
export type HandInDuties = {
	readonly checks: readonly string[];
	readonly owed: ReadonlyMap<string, readonly number[]>;
	/** When the latest hand-in came: verdicts before it were on an earlier round. */
	readonly handedInAt: number;
};

/** The acceptors recorded at the take (name → duty and lines); else the person named since, who owes every line. */
function acceptorsOfClaim(ledger: Ledger, taskId: string): Record<string, Duty | string> {
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	const terms = taken?.data.acceptorTerms;
	if (terms && typeof terms === 'object' && Object.keys(terms).length > 0) return terms as Record<string, Duty>;
	// A claim recorded before duties had lines: role → name, every line each.
	const roles = taken?.data.acceptors;
	if (roles && Object.keys(roles).length > 0) return Object.fromEntries(Object.values(roles).map(name => [name, {}]));
	const [named] = ledger.reader.latestEventsOf(taskId, [EventType.claimAcceptorNamed], 1);
	const late = named?.data.acceptor ?? (taken?.data.contractKey ? namedAcceptorOf(ledger, taken.data.contractKey)?.name : null);
	return late ? {[late]: {}} : {};
}

export function handInDuties(ledger: Ledger, taskId: string): HandInDuties {
	const [taken] = ledger.reader.latestEventsOf(taskId, [EventType.claimTaken], 1);
	const [handedIn] = ledger.reader.latestEventsOf(taskId, [EventType.claimHandedIn], 1);
	const checks = taken?.data.checks ?? [];
	return {checks, owed: linesOwed(acceptorsOfClaim(ledger, taskId), checks.length), handedInAt: handedIn?.at ?? 0};
}

/** The verdicts given on this round (since the latest hand-in). */
export function verdictsSince(ledger: Ledger, taskId: string, since: number): LineVerdict[] {
	return ledger.reader
		.latestEventsOf(taskId, [EventType.workLineVerdict], 10_000)
		.filter(event => event.at >= since)
		.map(event => ({
			line: event.data.line ?? 0,
			verdict: (event.data.verdict === 'met' ? 'met' : 'unmet') as Verdict,
			reason: event.data.reason ?? null,
			by: event.data.by ?? '',
			at: event.at,
		}));
}

/**
 * The verdicts `by` gives in one command, checked against the contract: every problem is one line
 * (joined), and nothing is recorded unless all are fine. A bare command (no `--line`) is `met` for
 * every line of theirs when `bare` says so, else no verdict at all.
 */
export function checkedVerdicts(
	taskId: string,
	duties: HandInDuties,
	by: string,
	asked: readonly AskedVerdict[],
	bare: 'all-met' | 'none',
): {readonly acceptor: string; readonly verdicts: readonly AskedVerdict[]} {
	const acceptor = acceptorNamed(duties.owed, by);
	if (acceptor === null) {
		const who = [...duties.owed].map(([name, lines]) => `${name}: ${lineList(lines)}`).join('; ');
		throw new ReviewGateError(`${taskId}: ${by} is not an acceptor of this hand-in (${who}): --as names one of them`);
	}
	const problems = askedProblems(asked, duties.checks.length);
	if (problems.length > 0) throw new ReviewGateError(problems.join('; '));
	const own = duties.owed.get(acceptor) ?? [];
	const notTheirs = [...new Set(asked.map(verdict => verdict.line).filter(line => !own.includes(line)))];
	if (notTheirs.length > 0) {
		const owners = notTheirs.map(line => {
			const others = [...duties.owed].filter(([, lines]) => lines.includes(line)).map(([name]) => name);
			return `line ${line}: ${others.join(', ') || 'nobody'}`;
		});
		throw new ReviewGateError(
			`${taskId}: ${lineList(notTheirs)} ${notTheirs.length === 1 ? 'is' : 'are'} not ${acceptor}'s to accept (${owners.join('; ')}); ${acceptor} accepts ${lineList(own)}`,
		);
	}
	if (asked.length > 0) return {acceptor, verdicts: asked};
	return {acceptor, verdicts: bare === 'all-met' ? own.map(line => ({line, verdict: 'met', reason: null})) : []};
}

/** The events for a person's verdicts, each carrying who still owes what once all are in. */
export function verdictEvents(
	taskId: string,
	duties: HandInDuties,
	before: readonly LineVerdict[],
	verdicts: readonly AskedVerdict[],
	person: {
		readonly by: string;
		readonly osUser: string;
		readonly uid: number | null;
		readonly source: string;
		readonly at: number;
	},
): {readonly events: NewEvent[]; readonly standing: AcceptanceStanding} {
	const given: LineVerdict[] = verdicts.map(verdict => ({...verdict, by: person.by, at: person.at}));
	const standing = acceptanceStanding(duties.owed, [...before, ...given]);
	const waiting = waitingLine(standing);
	const events: NewEvent[] = verdicts.map(verdict => ({
		taskId,
		type: EventType.workLineVerdict,
		at: person.at,
		source: person.source,
		data: {
			line: verdict.line,
			verdict: verdict.verdict,
			reason: verdict.reason,
			by: person.by,
			osUser: person.osUser,
			uid: person.uid,
			waiting,
		},
	}));
	return {events, standing};
}
