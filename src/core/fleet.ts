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

/**
 * The key a task is known by on a board: its id on a local ledger; host and id on a fleet ledger,
 * where two hosts may use the same id (an untracked PID, a claim on the same contract).
 */
export function taskKey(task: {readonly id: string; readonly host?: string | undefined}): string {
	return task.host === undefined ? task.id : `${task.host}/${task.id}`;
}

/** Whether a PostgreSQL URL carries a password: in its user part, or as a `password` parameter (libpq's). */
export function fleetUrlHasPassword(url: string): boolean {
	if (!/^postgres(ql)?:\/\//i.test(url)) return false;
	let parsed: URL;
	try {
		parsed = new URL(url);
	} catch {
		// Unparsable: a `user:...@` before the host is still a password.
		return /^postgres(ql)?:\/\/[^/@]*:[^/@]*@/i.test(url);
	}
	return parsed.password !== '' || parsed.searchParams.has('password');
}
