import {approverKey, type OrdersSnapshot} from '../board/effects-view.ts';
import type {BoardContract, IntakeRecord} from '../contract/intake.ts';
import type {DecisionRecord} from '../decisions/fold.ts';
import {isAnswerable} from '../decisions/view.ts';
import type {ApproverCheck, OrderRecord} from '../effects/fold.ts';
import {taskKey} from '../fleet.ts';
import {mergeHumanQueues, type HumanQueue} from '../human-queue.ts';
import {shownReviews, type VerdictRecord} from '../review/reviews.ts';
import {hostGatesOf} from './host-gates.ts';
import {hostQueue} from './host-queue.ts';
import type {HostRows, RowsHost} from './host-rows.ts';
import {mergeOrdered} from './merge.ts';

/** How a board round is made from the rows. */
export type BoardRoundQuery = {
	readonly now: number;
	/** How long ended tasks stay on the board: the Reviews panel shows reviews within it. */
	readonly windowMs: number;
	/** Tells a running approval from a dead one, where the approvers run on this machine (a local board). */
	readonly isApproverAlive?: ApproverCheck | undefined;
	/** A fleet board: every id is a board key (`host/id`, src/core/fleet.ts) and queue entries carry their host. */
	readonly isFleet: boolean;
};

/** A work order on a board, by its board key: which host holds it (a fleet board's requests go there). */
export type BoardOrderRef = {readonly key: string; readonly id: string; readonly host: RowsHost};

/** What a board feed gives the board from one read, besides the tasks: the Needs you, Reviews and Held effects panels. */
export type BoardRound = {
	readonly queue: HumanQueue;
	/** The verdicts of each task's latest review within the window, reviews newest first. */
	readonly verdicts: readonly VerdictRecord[];
	readonly orders: OrdersSnapshot;
	/** Each work order's host, by its board key. */
	readonly orderRefs: ReadonlyMap<string, BoardOrderRef>;
	/** The questions a person can answer now, oldest first: the Decisions panel (docs/decisions.md). */
	readonly decisions: readonly DecisionRecord[];
	/** Stored contracts not accepted, and those accepted within the window: the Contracts panel (docs/serve.md). */
	readonly contracts: readonly BoardContract[];
};

/**
 * The contracts a board lists, each once: a contract copied over the fleet is in the ledger of
 * every host that took it up, and the copy told last (its latest event) is where it stands.
 */
function boardContracts(
	hosts: readonly {host: string; records: Iterable<IntakeRecord>}[],
	since: number,
	isFleet: boolean,
): BoardContract[] {
	const byId = new Map<string, BoardContract>();
	for (const {host, records} of hosts) {
		for (const record of records) {
			if (record.state === 'accepted' && record.updatedAt < since) continue;
			const known = byId.get(record.id);
			if (known === undefined || record.updatedAt > known.updatedAt) byId.set(record.id, isFleet ? {...record, host} : record);
		}
	}
	return [...byId.values()];
}

/** The approvers that were not running at this read, asked once a read rather than at every frame. */
function deadApprovers(orders: Iterable<OrderRecord>, isAlive: ApproverCheck | undefined): string[] {
	const dead = new Set<string>();
	if (!isAlive) return [];
	for (const order of orders) {
		for (const effect of order.effects) {
			if (effect.approver && effect.finishedAt === null && effect.unknownAt === null && !isAlive(effect.approver)) {
				dead.add(approverKey(effect.approver));
			}
		}
	}
	return [...dead];
}

/**
 * One board round from each host's rows: the one function behind the local board's feed and the
 * fleet board's. Each host's queue, reviews and work orders are folded from its own rows; on a
 * fleet, ids become board keys and the queues merge oldest waiting first, the reviews newest first.
 */
export function boardRound(hosts: readonly HostRows[], query: BoardRoundQuery): BoardRound {
	if (!query.isFleet && hosts.length !== 1) throw new Error(`a local board reads one host, not ${hosts.length}`);
	const orderRefs = new Map<string, BoardOrderRef>();
	const records: OrderRecord[] = [];
	const queues: {host: string; queue: HumanQueue}[] = [];
	const reviews: {host: string; newest: number; verdicts: VerdictRecord[]}[][] = [];
	const decisions: DecisionRecord[] = [];
	const contracts: {host: string; records: Iterable<IntakeRecord>}[] = [];
	for (const rows of hosts) {
		const gates = hostGatesOf(rows.gateEvents);
		for (const decision of gates.decisions.values()) {
			if (isAnswerable(decision, query.now, query.isApproverAlive)) decisions.push(decision);
		}
		const host = rows.host.label ?? rows.host.id;
		const key = (id: string): string => (query.isFleet ? taskKey({id, host}) : id);
		contracts.push({host, records: gates.contracts.values()});
		queues.push({host, queue: hostQueue(rows, gates, query.now, {isApproverAlive: query.isApproverAlive})});
		reviews.push(
			shownReviews(gates.reviews, query.now - query.windowMs).map(review => ({
				host,
				newest: review.newest,
				verdicts: review.verdicts.map(entry => (query.isFleet ? {...entry, taskId: key(entry.taskId)} : entry)),
			})),
		);
		for (const order of gates.orders.values()) {
			orderRefs.set(key(order.id), {key: key(order.id), id: order.id, host: rows.host});
			records.push(query.isFleet ? {...order, id: key(order.id), workerTasks: order.workerTasks.map(key)} : order);
		}
	}
	return {
		queue: query.isFleet ? mergeHumanQueues(queues) : (queues[0]?.queue ?? {lanes: [], total: 0}),
		verdicts: mergeOrdered(reviews, (a, b) => b.newest - a.newest || a.host.localeCompare(b.host)).flatMap(
			review => review.verdicts,
		),
		orders: {records, deadApprovers: deadApprovers(records, query.isApproverAlive)},
		orderRefs,
		decisions: decisions.sort((a, b) => a.askedAt - b.askedAt || a.askedSeq - b.askedSeq),
		contracts: boardContracts(contracts, query.now - query.windowMs, query.isFleet),
	};
}
