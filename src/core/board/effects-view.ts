import {effectState, stagedEffects, type Approver, type ApproverCheck, type OrderRecord} from '../effects/fold.ts';
import {trackRecords} from '../effects/track-record.ts';
import {effectLabel, settledAt, summarizeArgs} from '../effects/view.ts';
import {formatCount, formatDuration} from '../format.ts';
import type {Task} from '../task.ts';
import {terminalSafe} from '../terminal-text.ts';
import {layoutTable, type TableColumn, type TableView} from './table-layout.ts';
import type {Tone} from './tone.ts';

/** What the board knows of work orders: the folded orders, and which approvers were gone at the last read. */
export type OrdersSnapshot = {
	readonly records: readonly OrderRecord[];
	/** `pid:startTime` of approvers that were not running when the feed read the orders. */
	readonly deadApprovers: readonly string[];
};

/** The key a liveness answer is kept under. */
export function approverKey(approver: Approver): string {
	return `${approver.pid}:${approver.startTime ?? '?'}`;
}

/** Liveness as the feed saw it. */
export function approverCheck(orders: OrdersSnapshot): ApproverCheck {
	const dead = new Set(orders.deadApprovers);
	return approver => !dead.has(approverKey(approver));
}

/** A held effect the cursor can stand on (and space can mark). */
export type HeldEffectRef = {readonly orderId: string; readonly id: string};

/** The key marks are kept under. */
export function heldKey(ref: HeldEffectRef): string {
	return `${ref.orderId} ${ref.id}`;
}

/** One line of the HELD EFFECTS panel. */
export type HeldEffectsLine =
	| {readonly kind: 'order'; readonly key: string; readonly text: string}
	| {
			readonly kind: 'effect';
			readonly key: string;
			readonly ref: HeldEffectRef;
			readonly text: string;
			readonly isMarked: boolean;
			readonly isSelected: boolean;
	  }
	/** The held call's arguments, on the line under it (cut to the panel's width; whole in the order's timeline). */
	| {readonly kind: 'args'; readonly key: string; readonly text: string}
	| {readonly kind: 'outcome'; readonly key: string; readonly text: string; readonly tone: Tone};

/** The HELD EFFECTS panel, preformatted. */
export type HeldEffectsView = {
	readonly lines: readonly HeldEffectsLine[];
	/** Held effects, in cursor order. */
	readonly held: readonly HeldEffectRef[];
	readonly markedCount: number;
};

/** The panel's argument line never holds more than this (it is cut to the panel's width anyway). */
const ARGS_SUMMARY = 400;

/** Settled effects stay in the panel (as outcomes) this long. */
export const OUTCOME_WINDOW_MS = 3_600_000;

function outcomeTone(label: string): Tone {
	if (label === 'finished') return 'ok';
	if (label === 'failed' || label === 'outcome unknown') return 'error';
	if (label === 'started') return 'info';
	return 'muted';
}

/** A held call's two lines: its id and age (`*` when marked), then its arguments summed up on one line. */
function heldLines(
	effect: {readonly id: string; readonly calledAt: number; readonly args: unknown},
	ref: HeldEffectRef,
	now: number,
	isMarked: boolean,
	isSelected: boolean,
): HeldEffectsLine[] {
	return [
		{
			kind: 'effect',
			key: `e ${heldKey(ref)}`,
			ref,
			text: `${isMarked ? '*' : ' '} ${effect.id}  held ${formatDuration(now - effect.calledAt)}`,
			isMarked,
			isSelected,
		},
		// Ledger text (the agent's arguments): JSON keeps control characters escaped, and the
		// terminal-safe function takes what JSON leaves raw.
		{kind: 'args', key: `a ${heldKey(ref)}`, text: terminalSafe(summarizeArgs(effect.args, ARGS_SUMMARY))},
	];
}

/**
 * The panel: held calls by order (tool, a one-line argument summary, age; marked ones with `*`),
 * then what happened lately (finished, failed, outcome unknown, rejected, expired, running).
 */
export function selectHeldEffects(
	orders: OrdersSnapshot,
	now: number,
	marked: ReadonlySet<string>,
	cursor: number,
	isFocused: boolean,
): HeldEffectsView {
	const isAlive = approverCheck(orders);
	const held: HeldEffectRef[] = [];
	const lines: HeldEffectsLine[] = [];
	const outcomes: {at: number; line: HeldEffectsLine}[] = [];
	const sorted = [...orders.records].sort((a, b) => a.id.localeCompare(b.id));
	for (const order of sorted) {
		const heading: HeldEffectsLine = {
			kind: 'order',
			key: `o ${order.id}`,
			text: terminalSafe(
				`${order.id} · ${order.worker ?? 'unknown worker'} · ${order.effects.length}/${order.budgetCalls ?? '?'} calls`,
			),
		};
		let hasHeld = false;
		for (const effect of stagedEffects(order)) {
			const state = effectState(effect, now, isAlive);
			const label = effectLabel(effect, state);
			if (state === 'held') {
				if (!hasHeld) lines.push(heading);
				hasHeld = true;
				const ref = {orderId: order.id, id: effect.id};
				const index = held.length;
				held.push(ref);
				lines.push(...heldLines(effect, ref, now, marked.has(heldKey(ref)), isFocused && index === cursor));
				continue;
			}
			const at = settledAt(effect, state) ?? effect.startedAt ?? effect.calledAt;
			if (state !== 'started' && state !== 'outcome unknown' && now - at > OUTCOME_WINDOW_MS) continue;
			const detail = effect.rejectReason ?? effect.error;
			outcomes.push({
				at,
				line: {
					kind: 'outcome',
					key: `r ${order.id} ${effect.id}`,
					text: terminalSafe(
						`${label}: ${order.id} ${effect.id}${detail ? ` — ${detail}` : ''}  ${formatDuration(now - at)} ago`,
					),
					tone: outcomeTone(label),
				},
			});
		}
	}
	outcomes.sort((a, b) => b.at - a.at);
	lines.push(...outcomes.map(outcome => outcome.line));
	return {lines, held, markedCount: held.filter(ref => marked.has(heldKey(ref))).length};
}

const TRACK_RECORD: readonly TableColumn[] = [
	{heading: 'WORKER', grows: true},
	{heading: 'ORDERS', align: 'right'},
	{heading: 'APPROVED', align: 'right'},
	{heading: 'REWORK', align: 'right'},
	{heading: 'FAILED', align: 'right'},
	{heading: 'EXPIRED', align: 'right'},
	{heading: 'REFUSED', align: 'right'},
	{heading: 'CALLS', align: 'right'},
	{heading: 'TOKENS', align: 'right'},
];

/**
 * The drill-down's track-record table for an order's worker, or for a task an order ran under
 * (docs/effects.md, "Track record"): the same figures `controlroom workers` prints, in columns
 * (APPROVED: approved first time; REWORK: sent back), short enough to fit 80 columns.
 */
export function trackRecordTable(
	orders: OrdersSnapshot,
	openId: string,
	tasks: ReadonlyMap<string, Task>,
	now: number,
	width: number,
): TableView | null {
	const order =
		orders.records.find(record => record.id === openId) ?? orders.records.find(record => record.workerTasks.includes(openId));
	if (!order?.worker) return null;
	const mine = orders.records.filter(record => record.worker === order.worker);
	const [record] = trackRecords(mine, task => tasks.get(task)?.tokens, now, approverCheck(orders));
	if (!record) return null;
	const row = [
		terminalSafe(record.worker),
		String(record.orders),
		String(record.firstTimeApprovals),
		String(record.rework),
		String(record.failures),
		String(record.expiries),
		String(record.refusals),
		`${record.callsUsed}/${record.callsBudget}`,
		record.tokens === null ? 'unknown' : formatCount(record.tokens),
	];
	return layoutTable(TRACK_RECORD, [row], width);
}
