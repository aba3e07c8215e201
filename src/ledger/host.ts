import {hostname} from 'node:os';
import type {Ledger} from './open-ledger.ts';

/** Who a ledger belongs to in a fleet: a name people read, and the random id that keys its events. */
export type HostIdentity = {
	/** CONTROLROOM_HOST, else the machine's hostname; read each time, so renaming a host needs no migration. */
	readonly name: string;
	/** Made once per ledger (migration 3) and never changed. */
	readonly id: string;
};

/** The host name this process reports: CONTROLROOM_HOST when set and not blank, else the hostname. */
export function hostName(env: NodeJS.ProcessEnv = process.env): string {
	const named = env['CONTROLROOM_HOST']?.trim();
	return named ? named : hostname();
}

/** The ledger's host identity. */
export function hostIdentity(ledger: Ledger, env: NodeJS.ProcessEnv = process.env): HostIdentity {
	return {name: hostName(env), id: ledger.reader.hostId()};
}
