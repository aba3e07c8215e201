import {describeFleetError} from '../ledger/fleet/connection.ts';
import type {SkippedRow} from '../ledger/fleet/fleet-reader.ts';
import {openFleetLedger, type FleetLedger} from '../ledger/fleet/open-fleet.ts';
import {terminalSafe} from '../core/terminal-text.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

/**
 * Opens the fleet ledger a command names (`--ledger postgres://...`), runs `use`, and closes it. A
 * server out of reach, a missing or newer schema, or any PostgreSQL error is one line naming the
 * server (never its password), exit 1.
 */
export async function withFleet<T>(url: string, role: string, use: (fleet: FleetLedger) => Promise<T>): Promise<T> {
	let fleet: FleetLedger;
	const skipped = new Map<string, SkippedRow>();
	try {
		fleet = await openFleetLedger(url, role, row => skipped.set(`${row.hostId}\u0000${row.taskId}`, row));
	} catch (error) {
		throw new CliError(describeFleetError(error, url));
	}
	try {
		return await use(fleet);
	} catch (error) {
		if (error instanceof CliError) throw error;
		if (error instanceof AmbiguousTaskError) throw new CliError(error.message, USAGE_EXIT);
		throw new CliError(describeFleetError(error, url));
	} finally {
		await fleet.close();
		if (skipped.size > 0) process.stderr.write(`controlroom: ${role}: ${skippedNotice([...skipped.values()])}\n`);
	}
}

/** One line for the rows of other hosts that are no tasks: how many, the first few named (terminal-safe). */
export function skippedNotice(rows: readonly SkippedRow[]): string {
	const named = rows
		.slice(0, 3)
		.map(row => terminalSafe(`${row.taskId} on ${row.host} (${row.problem})`))
		.join('; ');
	const more = rows.length > 3 ? `; and ${rows.length - 3} more` : '';
	return `skipped ${rows.length} row${rows.length === 1 ? '' : 's'} of the fleet that ${rows.length === 1 ? 'is' : 'are'} not a task: ${named}${more}; the rest is shown (docs/fleet.md)`;
}
