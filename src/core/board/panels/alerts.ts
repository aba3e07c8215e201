import {terminalSafe} from '../../terminal-text.ts';
import type {BoardState} from '../state.ts';

const clockOf = (at: number): string => new Date(at).toISOString().slice(11, 19);

/** What the replaced or moved ledger's alert says. */
function ledgerAlertText(alert: NonNullable<BoardState['ledgerAlert']>): string {
	const {kind, at, path, movedTo, nowIn} = alert;
	const when = `at ${clockOf(at)} UTC`;
	if (movedTo === undefined)
		return `ledger ${path} was ${kind} ${when}; now reading and writing the new file there (earlier events are not in it)`;
	return nowIn === movedTo
		? `ledger ${path} was moved to ${movedTo} ${when}, with every event it held; reading it there until a new ledger is made at ${path}`
		: `ledger ${path} was moved to ${movedTo} ${when}, with every event it held; now reading the new ledger at ${path} (what ran before is in ${movedTo}: controlroom --ledger ${movedTo})`;
}

/** The alert lines: what the board must not let anyone miss. */
export function selectAlerts(
	state: Pick<BoardState, 'ledgerAlert' | 'dropped' | 'integrityProblems'> & Partial<Pick<BoardState, 'chainBreak'>>,
): string[] {
	const alerts: string[] = [];
	if (state.ledgerAlert) alerts.push(terminalSafe(ledgerAlertText(state.ledgerAlert)));
	const [problem, ...more] = state.integrityProblems;
	if (problem !== undefined) {
		alerts.push(
			terminalSafe(
				`the ledger failed its integrity check (PRAGMA quick_check): ${problem}${more.length > 0 ? ` (and ${more.length} more)` : ''}; controlroom doctor says more; keep a copy before anything writes to it`,
			),
		);
	}
	if (state.chainBreak) {
		alerts.push(
			terminalSafe(
				`the ledger's hash chain is broken: ${state.chainBreak}; the record was changed after it was written (controlroom verify; keep a copy)`,
			),
		);
	}
	if (state.dropped > 0) {
		alerts.push(
			`${state.dropped} hook event${state.dropped === 1 ? ' was' : 's were'} dropped: neither ledger nor spool could be written (controlroom hooks status says why)`,
		);
	}
	return alerts;
}
