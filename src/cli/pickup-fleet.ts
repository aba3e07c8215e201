import type {Ledger} from '../ledger/open-ledger.ts';

/** The fleet's shared contracts and claims, as pickup uses them (docs/fleet.md, "Contracts"). */
export type FleetContracts = {
	/** Publishes this host's stored contracts and copies the fleet's ready ones into this ledger. */
	sync(): Promise<void>;
	/** Claims a contract across the fleet; false when another host holds it. */
	claim(id: string, holder: string): Promise<boolean>;
	/** Ends this host's claim on it, with how it ended. */
	release(id: string, holder: string, outcome: string): Promise<void>;
	close(): Promise<void>;
};

export async function fleetContracts(_url: string, _ledger: Ledger, _host: string): Promise<FleetContracts> {
	throw new Error('not yet');
}
