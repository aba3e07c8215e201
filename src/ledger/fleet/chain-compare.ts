import type {ChainBreak} from '../../core/chain-break.ts';
import type {LedgerReader} from '../reader.ts';
import type {FleetClient} from './connection.ts';
import {anchorsOf, hasHost, linksOf} from './fleet-chain.ts';

/** Links compared at a time. */
const CHUNK = 5000;

/** What comparing the local chain with the fleet's copy found. */
export type FleetComparison = {
	/** Whether the fleet knows this ledger's host id at all. */
	readonly isKnown: boolean;
	/** Events whose link was compared. */
	readonly compared: number;
	/** The host's anchors the fleet holds. */
	readonly anchors: number;
	/** The first event that is not as the fleet holds it, or null. */
	readonly found: ChainBreak | null;
};

/**
 * Compares each link of this ledger with the link the fleet got when the event was shipped
 * (docs/fleet.md, "The chain and anchors"), oldest first: the first seq where they differ is the
 * first event written again since it was shipped, even when the ledger's own chain was rewritten
 * consistently. An event the fleet holds that the ledger lacks was deleted (or the tail was cut).
 * Then each anchor the fleet holds must be reached as well.
 */
export async function compareWithFleet(reader: LedgerReader, client: FleetClient): Promise<FleetComparison> {
	const hostId = reader.hostId();
	if (!(await hasHost(client, hostId))) return {isKnown: false, compared: 0, anchors: 0, found: null};
	const lastSeq = reader.lastSeq();
	let compared = 0;
	let after = 0;
	for (;;) {
		const remote = await linksOf(client, hostId, after, CHUNK);
		const last = remote.at(-1);
		if (last === undefined) break;
		const local = new Map(
			reader.chainRows(after, last.seq, Number.MAX_SAFE_INTEGER).map(row => [row.seq, row.hash?.toString('hex') ?? null]),
		);
		for (const link of remote) {
			const mine = local.get(link.seq);
			if (mine === undefined) {
				const isTail = link.seq > lastSeq;
				return {
					isKnown: true,
					compared,
					anchors: 0,
					found: {
						kind: isTail ? 'truncated' : 'deleted',
						seq: link.seq,
						missing: {from: link.seq, to: isTail ? link.seq : link.seq},
						why: isTail
							? `the ledger ends at seq ${lastSeq}, and the fleet holds seq ${link.seq}: the tail was cut`
							: `seq ${link.seq}, which the fleet holds, is missing from the ledger`,
					},
				};
			}
			if (mine !== link.hash) {
				return {
					isKnown: true,
					compared,
					anchors: 0,
					found: {
						kind: 'rewritten',
						seq: link.seq,
						why: `seq ${link.seq} is not the event the fleet got when it was shipped: the ledger was written again from seq ${link.seq} on`,
					},
				};
			}
			compared += 1;
		}
		after = last.seq;
	}
	const anchors = await anchorsOf(client, hostId);
	for (const anchor of anchors) {
		const mine = reader.storedEventAt(anchor.seq)?.hash ?? null;
		if (mine !== anchor.hash) {
			return {
				isKnown: true,
				compared,
				anchors: anchors.length,
				found: {
					kind: mine === null ? 'truncated' : 'rewritten',
					seq: anchor.seq,
					why: `seq ${anchor.seq} does not reach the fleet's anchor of ${new Date(anchor.at).toISOString()}`,
				},
			};
		}
	}
	return {isKnown: true, compared, anchors: anchors.length, found: null};
}
