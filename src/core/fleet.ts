/** A host as the fleet ledger knows it. */
export type FleetHostRef = {readonly id: string; readonly name: string};

/**
 * The label each host is shown by: its name, or, where two hosts share a name (two ledgers on one
 * machine, or two machines named alike), the name and the first four characters of its id.
 */
export function hostLabels(hosts: readonly FleetHostRef[]): Map<string, string> {
	const named = new Map<string, number>();
	for (const host of hosts) named.set(host.name, (named.get(host.name) ?? 0) + 1);
	return new Map(
		hosts.map(host => [host.id, (named.get(host.name) ?? 0) > 1 ? `${host.name}#${host.id.slice(0, 4)}` : host.name]),
	);
}
