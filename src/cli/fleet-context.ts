import {describeFleetError} from '../ledger/fleet/connection.ts';
import {openFleetLedger, type FleetLedger} from '../ledger/fleet/open-fleet.ts';
import {AmbiguousTaskError} from '../ledger/reader.ts';
import {CliError, USAGE_EXIT} from './errors.ts';

/**
 * Opens the fleet ledger a command names (`--ledger postgres://...`), runs `use`, and closes it. A
 * server out of reach, a missing or newer schema, or any PostgreSQL error is one line naming the
 * server (never its password), exit 1.
 */
export async function withFleet<T>(url: string, role: string, use: (fleet: FleetLedger) => Promise<T>): Promise<T> {
	let fleet: FleetLedger;
	try {
		fleet = await openFleetLedger(url, role);
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
	}
}
