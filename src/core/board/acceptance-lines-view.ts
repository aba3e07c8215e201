import {acceptanceStanding, linesOwed, waitingLine, type Duty, type LineVerdict} from '../contract/line-verdicts.ts';
import {EventType, type LedgerEvent} from '../events.ts';
import {terminalSafe} from '../terminal-text.ts';

// The hand-in view line by line (docs/board.md, "The drill-down"): each acceptance line of the
// latest hand-in with the evidence that answers it and each acceptor's verdict, then who still owes
// what. Built from the claim's own events, so the board, `explain` and a capture agree.

type AfterEntry = Record<string, unknown>;

/** The evidence of one entry, shortly: `make check: exit 0`, `12 passed, 0 failed`, `commit 9a8b7c6`. */
function evidenceOf(entry: AfterEntry): string {
	const kind = entry['kind'];
	if (kind === 'command') return `${String(entry['command'] ?? 'a command')}: exit ${String(entry['exit_code'] ?? '?')}`;
	if (kind === 'tests') {
		const tests = (entry['tests'] ?? {}) as Record<string, unknown>;
		return `${String(tests['passed'] ?? '?')} passed, ${String(tests['failed'] ?? '?')} failed`;
	}
	if (kind === 'commit') return `commit ${String(entry['commit'] ?? '?')}`;
	if (kind === 'pull_request') return `pull request ${String(entry['pull_request'] ?? '?')}`;
	if (kind === 'screenshot') return `screenshot ${String(entry['screenshot'] ?? entry['kept'] ?? '?')}`;
	return 'evidence';
}

/** Each acceptor's word on one line: `met: dana`, `unmet: lee (why)`, `owed: lee`. */
function verdictsOf(line: number, owed: ReadonlyMap<string, readonly number[]>, latest: readonly LineVerdict[]): string {
	const met: string[] = [];
	const unmet: string[] = [];
	const open: string[] = [];
	for (const [name, lines] of owed) {
		if (!lines.includes(line)) continue;
		const said = latest.filter(verdict => verdict.line === line && verdict.by.toLowerCase() === name.toLowerCase()).at(-1);
		if (said?.verdict === 'met') met.push(name);
		else if (said?.verdict === 'unmet') unmet.push(`${name} (${said.reason ?? ''})`);
		else open.push(name);
	}
	return [
		unmet.length > 0 ? `✗ unmet: ${unmet.join(', ')}` : null,
		met.length > 0 ? `✓ met: ${met.join(', ')}` : null,
		open.length > 0 ? `· owed: ${open.join(', ')}` : null,
	]
		.filter(part => part !== null)
		.join(' ');
}

/**
 * The per-line block of a claim's latest hand-in, or [] when it has none: one line per acceptance
 * line (`2 ✗ unmet: lee (why) · make check: exit 0 · the line's text`), after a first line that
 * says who still owes what (or that it is accepted). Text from the ledger: made terminal-safe.
 */
export function acceptanceLinesView(events: readonly LedgerEvent[]): string[] {
	const taken = events.filter(event => event.type === EventType.claimTaken).at(-1);
	const handedIn = events.filter(event => event.type === EventType.claimHandedIn).at(-1);
	if (taken?.type !== EventType.claimTaken || handedIn?.type !== EventType.claimHandedIn) return [];
	const checks = taken.data.checks ?? [];
	const terms = (taken.data.acceptorTerms ?? {}) as Record<string, Duty>;
	const named = events.filter(event => event.type === EventType.claimAcceptorNamed).at(-1);
	const late = named?.type === EventType.claimAcceptorNamed ? named.data.acceptor : handedIn.data.acceptor;
	const acceptors: Record<string, Duty> = Object.keys(terms).length > 0 ? terms : late ? {[late]: {}} : {};
	const owed = linesOwed(acceptors, checks.length);
	const verdicts: LineVerdict[] = events.flatMap(event =>
		event.type === EventType.workLineVerdict && event.at >= handedIn.at
			? [
					{
						line: event.data.line ?? 0,
						verdict: event.data.verdict === 'met' ? ('met' as const) : ('unmet' as const),
						reason: event.data.reason ?? null,
						by: event.data.by ?? '',
						at: event.at,
					},
				]
			: [],
	);
	const after = (handedIn.data.evidence as {after?: unknown} | undefined)?.after;
	const entries = (Array.isArray(after) ? after : []) as AfterEntry[];
	const lines = checks.map((text, index) => {
		const line = index + 1;
		const proof = entries.filter(entry => entry['check'] === line).map(evidenceOf);
		return terminalSafe(
			`${line} ${verdictsOf(line, owed, verdicts)} · ${proof.length > 0 ? proof.join('; ') : 'no evidence'} · ${text}`,
		);
	});
	const accepted = events.some(event => event.type === EventType.workAccepted && event.at >= handedIn.at);
	const standing = acceptanceStanding(owed, verdicts);
	const summary = accepted
		? 'accepted'
		: owed.size === 0
			? 'waiting until a person names its acceptor'
			: (waitingLine(standing) ?? 'every line met');
	return [terminalSafe(summary), ...lines];
}
