import type {BoardContract} from '../../core/contract/intake.ts';
import type {OrdersSnapshot} from '../../core/board/effects-view.ts';
import type {PendingAction} from '../../core/board/state.ts';
import {DEFAULT_ENDED_WINDOW_MS} from '../../core/board/selectors.ts';
import type {LedgerEvent} from '../../core/events.ts';
import {taskKey} from '../../core/fleet.ts';
import {SESSION_ANSWERED_SOURCES, type HumanQueue} from '../../core/human-queue.ts';
import {boardRound, type BoardOrderRef} from '../../core/read-port/board-round.ts';
import {coversRecent} from '../../core/read-port/read-port.ts';
import type {VerdictRecord} from '../../core/review/reviews.ts';
import type {BoardFeed, FeedBatch} from '../board-feed.ts';
import {describeFleetError} from './connection.ts';
import type {HostedTask} from './fleet-read-port.ts';
import {openFleetLedger, type FleetLedger} from './open-fleet.ts';
import {retryDelayMs} from '../../core/backoff.ts';

/** The fleet board's feed: the board's synchronous feed, answered from what was fetched, plus its life cycle. */
export type FleetFeed = BoardFeed & {
	/** Reads everything the first frame shows; throws (one line) when the fleet cannot be read. */
	start(now: number): Promise<void>;
	/** The task behind a board key, as last read. */
	taskOf(key: string): HostedTask | undefined;
	/** Asks the task's host to carry out a verb; resolves to the request's id. */
	request(key: string, verb: string, args: Readonly<Record<string, unknown>>): Promise<{task: HostedTask; requestId: number}>;
	/** Asks a work order's host (the order by its board key) to carry out a verb on it. */
	requestForOrder(
		key: string,
		verb: string,
		args: Readonly<Record<string, unknown>>,
	): Promise<{order: FleetOrderRef; requestId: number}>;
	close(): Promise<void>;
};

export type FleetFeedOptions = {
	readonly endedWindowMs?: number;
	/** Who asks, recorded on each request (`board@HOST`). */
	readonly requestedBy: string;
	/**
	 * Who sits at this board, as the actor rule found it here (docs/security.md): sent in every
	 * request's arguments, so the task's host refuses a yes no person asked for.
	 */
	readonly asker?: Readonly<Record<string, unknown>>;
};

/** A work order on a fleet board: its board key is `host/id`, as a task's. */
export type FleetOrderRef = {readonly key: string; readonly id: string; readonly host: string; readonly hostId: string};

/** Events read per round (one page); a burst is read over several rounds, one a frame. */
const PAGE = 5000;

/**
 * A feed over the fleet ledger: the first read before the board starts; then every NOTIFY from the
 * server (a host shipped events, a request was made) starts one asynchronous round that reads the
 * tasks touched since the last fleet_seq, the queue and the pending requests, and tells the board,
 * which then polls the result synchronously. A lost connection is reopened with backoff, and the
 * board is told both that it was lost and that it is back.
 */
export function createFleetFeed(url: string, options: FleetFeedOptions): FleetFeed {
	const windowMs = options.endedWindowMs ?? DEFAULT_ENDED_WINDOW_MS;
	const withAsker = (args: Readonly<Record<string, unknown>>) => (options.asker ? {...args, asker: options.asker} : args);
	let fleet: FleetLedger | null = null;
	let unlisten: (() => Promise<void>) | null = null;
	let fleetSeq = 0;
	let version = 0;
	const tasks = new Map<string, HostedTask>();
	const changedAt = new Map<string, number>();
	let queue: HumanQueue = {lanes: [], total: 0};
	let verdicts: readonly VerdictRecord[] = [];
	let contracts: readonly BoardContract[] = [];
	let orders: OrdersSnapshot = {records: [], deadApprovers: []};
	let orderRefs: ReadonlyMap<string, BoardOrderRef> = new Map();
	let pending: PendingAction[] = [];
	let timeline: {key: string; events: readonly LedgerEvent[]; version: number} | null = null;
	let notice: {text: string; tone: 'error' | 'ok'; version: number} | null = null;
	let announce: () => void = () => undefined;
	let isRunning = false;
	let isAgain = false;
	let isClosed = false;
	let failures = 0;
	let retry: NodeJS.Timeout | undefined;

	const keep = (task: HostedTask, now: number): boolean => task.endedAt === null || task.endedAt >= now - windowMs;

	/**
	 * One board round (src/core/read-port/board-round.ts) over every host's rows: the queue, and each
	 * host's reviews and work orders folded from its own events (as a local board folds them), keyed
	 * by host as its tasks are. Whether an approver on another machine still runs cannot be asked
	 * from here: none is taken for dead.
	 */
	const readRound = async (open: FleetLedger, now: number): Promise<void> => {
		// The tasks the board holds are every task not ended or ended within its window: when that
		// window covers the queue's (two hours), they are the queue's recent tasks, not read again
		// each round (thousands of task documents on a large fleet).
		const held = coversRecent(now - windowMs, now) ? {heldTasks: [...tasks.values()]} : {};
		const hosts = await open.reader.queueRows({now, answeredBySession: SESSION_ANSWERED_SOURCES, ...held});
		const round = boardRound(hosts, {now, windowMs, isFleet: true});
		queue = round.queue;
		verdicts = round.verdicts;
		contracts = round.contracts;
		orders = round.orders;
		orderRefs = round.orderRefs;
	};

	const readPending = async (open: FleetLedger): Promise<void> => {
		const hosts = new Map((await open.reader.hosts()).map(host => [host.id, host.label]));
		pending = (await open.pendingRequests()).map(request => ({
			key: taskKey({id: request.taskId, host: hosts.get(request.hostId) ?? request.hostId}),
			verb: request.verb,
		}));
	};

	const readTimeline = async (open: FleetLedger, key: string): Promise<void> => {
		const task = tasks.get(key);
		if (!task) return;
		const events = await open.reader.eventsOf(task.hostId, task.id);
		version += 1;
		timeline = {key, events, version};
	};

	const connect = async (): Promise<FleetLedger> => {
		if (fleet) return fleet;
		const open = await openFleetLedger(url, 'board');
		fleet = open;
		unlisten = await open.listen(change => {
			// A listener that lost its connection hears nothing more: reconnect on the next round.
			if (change === 'lost' && fleet === open) {
				fleet = null;
				void open.close();
			}
			void round();
		});
		return open;
	};

	/** One read of what changed; rounds never overlap, and a notice during one starts another after it. */
	const round = async (): Promise<void> => {
		if (isClosed) return;
		if (isRunning) {
			isAgain = true;
			return;
		}
		isRunning = true;
		try {
			const wasDown = failures > 0;
			const open = await connect();
			const now = Date.now();
			let hasMore = true;
			const touched = new Set<string>();
			while (hasMore) {
				const changes = await open.reader.changesSince(fleetSeq, PAGE);
				fleetSeq = changes.fleetSeq;
				hasMore = changes.hasMore;
				version += 1;
				for (const task of changes.tasks) {
					const key = taskKey(task);
					touched.add(key);
					if (!keep(task, now) && !tasks.has(key)) continue;
					tasks.set(key, task);
					changedAt.set(key, version);
				}
			}
			await readRound(open, now);
			await readPending(open);
			if (timeline && touched.has(timeline.key)) await readTimeline(open, timeline.key);
			version += 1;
			failures = 0;
			if (wasDown) notice = {text: `fleet: reached ${open.where} again`, tone: 'ok', version};
		} catch (error) {
			failures += 1;
			const closing = fleet;
			fleet = null;
			await unlisten?.().catch(() => undefined);
			unlisten = null;
			await closing?.close().catch(() => undefined);
			const delay = retryDelayMs(failures);
			version += 1;
			notice = {
				text: `fleet: ${describeFleetError(error, url)}; retrying in ${(delay / 1000).toFixed(1)} s`,
				tone: 'error',
				version,
			};
			clearTimeout(retry);
			retry = setTimeout(() => void round(), delay);
		} finally {
			isRunning = false;
		}
		announce();
		if (isAgain) {
			isAgain = false;
			void round();
		}
	};

	const taskOf = (key: string): HostedTask | undefined => tasks.get(key);

	return {
		async start(now) {
			const open = await connect();
			fleetSeq = await open.reader.lastFleetSeq();
			for (const task of await open.reader.tasksForView(now - windowMs)) tasks.set(taskKey(task), task);
			await readRound(open, now);
			await readPending(open);
			// Whatever was shipped between the reads above and the LISTEN is read by the first round.
			void round();
		},
		load() {
			return {tasks: [...tasks.values()], queue, verdicts, contracts, orders, pending, lastSeq: version, isFull: true};
		},
		poll(lastSeq, _now, openTaskId = null): FeedBatch | null {
			if (version <= lastSeq) return null;
			const changed: HostedTask[] = [];
			for (const [key, at] of changedAt) {
				if (at <= lastSeq) continue;
				const task = tasks.get(key);
				if (task) changed.push(task);
			}
			const isTimelineNew = timeline !== null && timeline.key === openTaskId && timeline.version > lastSeq;
			const isNoticeNew = notice !== null && notice.version > lastSeq;
			return {
				tasks: changed,
				queue,
				verdicts,
				contracts,
				orders,
				pending,
				lastSeq: version,
				isFull: false,
				...(isTimelineNew && timeline ? {timelineEvents: timeline.events} : {}),
				...(isNoticeNew && notice ? {notice: {tone: notice.tone, text: notice.text}} : {}),
			};
		},
		// No ledger file to be deleted or replaced under the board: the server is the ledger.
		verify: () => null,
		eventsOf(key) {
			if (timeline?.key === key) return [...timeline.events];
			timeline = {key, events: [], version: 0};
			const open = fleet;
			if (open) void readTimeline(open, key).then(announce, () => undefined);
			return [];
		},
		acknowledge(key, signalAt) {
			const task = taskOf(key);
			if (!task) return `cannot acknowledge ${key}: its task is not on this board`;
			void this.request(key, 'acknowledge', {signalAt}).catch(error => {
				version += 1;
				notice = {text: `acknowledge ${task.id}: ${describeFleetError(error, url)}`, tone: 'error', version};
				announce();
			});
			return `acknowledgement of ${task.id} requested from ${task.host}; pending until its sync carries it out`;
		},
		subscribe(onChange) {
			announce = onChange;
			return () => {
				announce = () => undefined;
			};
		},
		taskOf,
		async request(key, verb, args) {
			const task = taskOf(key);
			if (!task) throw new Error(`no task ${key} on this board`);
			const open = await connect();
			const requestId = await open.request({
				hostId: task.hostId,
				taskId: task.id,
				verb,
				args: withAsker(args),
				requestedBy: options.requestedBy,
			});
			return {task, requestId};
		},
		async requestForOrder(key, verb, args) {
			const ref = orderRefs.get(key);
			if (!ref) throw new Error(`no work order ${key} on this board`);
			const order = {key, id: ref.id, host: ref.host.label ?? ref.host.id, hostId: ref.host.id};
			const open = await connect();
			const requestId = await open.request({
				hostId: order.hostId,
				taskId: order.id,
				verb,
				args: withAsker(args),
				requestedBy: options.requestedBy,
			});
			return {order, requestId};
		},
		async close() {
			isClosed = true;
			clearTimeout(retry);
			await unlisten?.().catch(() => undefined);
			await fleet?.close();
			fleet = null;
		},
	};
}
