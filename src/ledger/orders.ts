import {foldOrders, ORDER_EVENT_TYPES, type OrderRecord} from '../core/effects/fold.ts';
import type {LedgerReader} from './reader.ts';

/** Every work order the ledger knows, folded from its order and effect events (src/core/effects/fold.ts). */
export function readOrders(reader: LedgerReader): Map<string, OrderRecord> {
	return foldOrders(reader.eventsOfType(ORDER_EVENT_TYPES));
}
