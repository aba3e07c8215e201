import {ErrorCode, McpError, type CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import {createHash} from 'node:crypto';
import {dirname, join} from 'node:path';
import {haltingUnknown, planApproval, unknownIds} from '../../core/effects/approval.ts';
import {effectState, type ApproverCheck, type EffectRecord, type OrderRecord} from '../../core/effects/fold.ts';
import {reconcileReport, type ListedEffect} from '../../core/effects/reconcile.ts';
import {resolveReferences} from '../../core/effects/refs.ts';
import type {Door} from '../../core/actor.ts';
import {EventType} from '../../core/events.ts';
import type {Ledger} from '../../ledger/open-ledger.ts';
import {isApproverAlive as processIsAlive, thisApprover} from './liveness.ts';
import {loadOrderFile, OrderFileError, orderFromSource, type LoadedOrder} from './order-file.ts';
import {currentOrder, orderEvent, recordedResult, type EffectSource} from './record.ts';
import {holdLock} from '../../producers/admission.ts';
import {requirePerson, type PersonActor} from '../person-gate.ts';
import {ApprovalError, recordSettled} from './held.ts';
import {connectUpstream, type Upstream} from './upstreams.ts';

/** How long an approved call may take upstream before its outcome is recorded as unknown. */
export const EFFECT_CALL_TIMEOUT_MS = 10 * 60_000;

/** How one approved effect went. */
export type EffectOutcome = {
	readonly id: string;
	readonly outcome: 'finished' | 'failed' | 'outcome unknown' | 'not run';
	readonly detail: string | null;
};

/** What an approval did. */
export type ApprovalResult = {
	readonly orderId: string;
	/** Mismatches or bad ids: when any, nothing ran. */
	readonly problems: readonly string[];
	readonly notes: readonly string[];
	readonly outcomes: readonly EffectOutcome[];
	/** Held effects found past their expiry (recorded as expired). */
	readonly expired: readonly string[];
	/** Effects found started with their approver gone (recorded as outcome unknown). */
	readonly unknown: readonly string[];
	/** True when every effect it meant to run finished without an error. */
	readonly isSuccess: boolean;
};

export type ApproveOptions = {
	/** Effect ids or placeholders; empty approves every held effect of the order. */
	readonly only?: readonly string[];
	/** The worker's report: its listed effects must match the gateway's log. */
	readonly report?: {readonly path: string; readonly listed: readonly ListedEffect[]};
	readonly source: EffectSource;
	/** A fleet board's request carried out by this host's sync; absent: this process's own terminal. */
	readonly door?: Door;
	/** Called once when another approval of the same order holds it: this one waits its turn. */
	readonly onWait?: (line: string) => void;
	/** Called as each effect is about to run and when it ends (the CLI prints progress). */
	readonly onProgress?: (line: string) => void;
	readonly isAlive?: ApproverCheck;
	readonly now?: () => number;
};

/**
 * The order the effects were held under: its text as the first gateway recorded it (what the file
 * says now does not matter), or, in a ledger written before that text was kept, the file unchanged.
 */
function orderFileOf(order: OrderRecord): LoadedOrder {
	if (order.file === null)
		throw new ApprovalError(`order ${order.id}: the ledger does not say which order file its gateway served`);
	let loaded: LoadedOrder;
	try {
		loaded = order.source !== null ? orderFromSource(order.source, order.file) : loadOrderFile(order.file);
	} catch (error) {
		if (error instanceof OrderFileError)
			throw new ApprovalError(`order ${order.id}: ${error.message}; its upstreams cannot be reached`);
		throw error;
	}
	if (order.digest !== null && loaded.digest !== order.digest) {
		throw new ApprovalError(
			`order ${order.id}: ${order.file} changed since its gateway held these effects; approve them under the order they were held under`,
		);
	}
	return loaded;
}

/** Held effects the order (as it was opened) does not allow: each one line; any means nothing runs. */
function outsideOrder(loaded: LoadedOrder, effects: readonly EffectRecord[]): string[] {
	return effects.flatMap(effect => {
		const spec = loaded.order.upstreams.find(upstream => upstream.name === effect.upstream);
		if (!spec) return [`${effect.id}: ${loaded.order.id} has no upstream ${effect.upstream}: refused, nothing runs`];
		if (!spec.allow.includes(effect.tool))
			return [
				`${effect.id}: ${effect.tool} is not in ${loaded.order.id}'s allow list for ${effect.upstream}: refused, nothing runs`,
			];
		return [];
	});
}

/** An upstream call that got no answer (a timeout, the connection gone) may or may not have taken effect. */
function isNoAnswer(error: unknown): boolean {
	return error instanceof McpError && (error.code === ErrorCode.RequestTimeout || error.code === ErrorCode.ConnectionClosed);
}

/** The result a reference reads: this run's answers first, then what the ledger recorded. */
function lookupIn(order: OrderRecord, fresh: ReadonlyMap<string, unknown>) {
	return (id: string): {result: unknown} | {missing: string} => {
		if (fresh.has(id)) return {result: fresh.get(id)};
		const effect = order.effects.find(candidate => candidate.id === id);
		if (!effect || effect.finishedAt === null) return {missing: 'it has not run'};
		if (effect.isError) return {missing: 'it failed'};
		if (
			(effect.result as {truncated?: boolean} | null)?.truncated === true &&
			!('structuredContent' in (effect.result as object))
		) {
			return {missing: 'its result was too large to keep in the ledger'};
		}
		return {result: effect.result};
	};
}

/**
 * Approves held effects of an order (docs/effects.md, "Approving, rejecting"): reconciles the report (any mismatch: nothing
 * runs), then runs each held call once, in order, filling `$ref`s from earlier results. Each is
 * marked started (in the transaction that checks it is still held) before its call and finished
 * after; a failure stops the run, leaving the rest held.
 */
export async function approveEffects(ledger: Ledger, orderId: string, options: ApproveOptions): Promise<ApprovalResult> {
	const person = requirePerson(ledger, {
		verb: 'effects approve',
		target: orderId,
		source: options.source,
		...(options.door ? {door: options.door} : {}),
	});
	// What the person could know when they asked: an effect that turns out unknown while this
	// approval waits for the lock (the approval holding it died in its call) halts the later ones.
	const askedUnknown = unknownIds(
		currentOrder(ledger, orderId) ?? null,
		(options.now ?? Date.now)(),
		options.isAlive ?? processIsAlive,
	);
	// One approval of an order at a time, across processes: effect #2 never starts while #1 is upstream.
	const lock = await holdLock(approvalLockFile(ledger, orderId), () =>
		options.onWait?.(`waiting for another approval of ${orderId} to finish: an order's held effects run one at a time`),
	);
	try {
		return await approveHeld(ledger, orderId, options, person, askedUnknown);
	} finally {
		lock.release();
	}
}

/** The lock file one order's approvals take turns on, beside the ledger. */
function approvalLockFile(ledger: Ledger, orderId: string): string {
	const key = createHash('sha256').update(`${ledger.path}\0${orderId}`).digest('hex').slice(0, 16);
	return join(dirname(ledger.path), 'locks', 'approvals', `${key}.lock`);
}

async function approveHeld(
	ledger: Ledger,
	orderId: string,
	options: ApproveOptions,
	person: PersonActor,
	askedUnknown: ReadonlySet<string>,
): Promise<ApprovalResult> {
	const now = options.now ?? Date.now;
	const isAlive = options.isAlive ?? processIsAlive;
	const progress = options.onProgress ?? (() => undefined);
	const found = currentOrder(ledger, orderId);
	if (!found || found.openedAt === null)
		throw new ApprovalError(`no order ${orderId} in the ledger (a gateway records it when it opens)`);
	const settled = recordSettled(ledger, orderId, options.source, now(), isAlive);
	const order = currentOrder(ledger, orderId) ?? found;
	const planned = planApproval(order, options.only ?? [], now(), isAlive);
	const halt = haltingUnknown(askedUnknown, order, planned.toRun, now(), isAlive);
	const halted = halt === null ? [] : planned.toRun.filter(effect => effect.seq > halt.seq);
	const plan = halt === null ? planned : {...planned, toRun: planned.toRun.filter(effect => effect.seq < halt.seq)};
	const haltedOutcomes: EffectOutcome[] = halted.map(effect => ({
		id: effect.id,
		outcome: 'not run',
		detail: `${halt?.id ?? ''} ended outcome unknown while this approval waited for the order's lock: check what it did, then approve again`,
	}));
	const base = {orderId, notes: plan.notes, expired: settled.expired, unknown: settled.unknown};
	const mismatches = options.report ? reconcileReport(order, options.report.listed, now(), isAlive) : [];
	// The calls to run are checked against the order they were held under, before anything is sent.
	const loaded = plan.toRun.length > 0 ? orderFileOf(order) : null;
	const problems = [...mismatches, ...plan.problems, ...(loaded ? outsideOrder(loaded, plan.toRun) : [])];
	if (problems.length > 0) {
		ledger.writer.append([
			orderEvent(
				EventType.orderApprovalRefused,
				{mismatches: problems, report: options.report?.path ?? null},
				orderId,
				options.source,
			),
		]);
		return {...base, problems, outcomes: [], isSuccess: false};
	}
	if (loaded === null) return {...base, problems: [], outcomes: haltedOutcomes, isSuccess: haltedOutcomes.length === 0};
	ledger.writer.append([
		orderEvent(
			EventType.orderApproved,
			{
				ids: plan.toRun.map(effect => effect.id),
				reconciled: options.report !== undefined,
				report: options.report?.path ?? null,
				by: person.user,
			},
			orderId,
			options.source,
		),
	]);
	const approver = thisApprover();
	const upstreams = new Map<string, Upstream>();
	const fresh = new Map<string, unknown>();
	const outcomes: EffectOutcome[] = [];
	const notRun = (effects: readonly EffectRecord[], detail: string) => {
		for (const effect of effects) outcomes.push({id: effect.id, outcome: 'not run', detail});
	};
	try {
		for (const [index, effect] of plan.toRun.entries()) {
			const rest = plan.toRun.slice(index + 1);
			const latest = currentOrder(ledger, orderId) ?? order;
			const resolution = resolveReferences(effect.args, lookupIn(latest, fresh));
			if (!resolution.isResolved) {
				outcomes.push({id: effect.id, outcome: 'not run', detail: resolution.problem});
				notRun(rest, `stopped before it: ${effect.id} could not be resolved`);
				break;
			}
			const spec = loaded.order.upstreams.find(upstream => upstream.name === effect.upstream);
			let upstream = upstreams.get(effect.upstream);
			if (!spec) {
				outcomes.push({id: effect.id, outcome: 'not run', detail: `the order has no upstream ${effect.upstream}`});
				notRun(rest, `stopped before it: ${effect.id} could not run`);
				break;
			}
			if (!upstream) {
				try {
					upstream = await connectUpstream(spec, loaded.dir, `controlroom-approve/${orderId}`);
				} catch (error) {
					outcomes.push({id: effect.id, outcome: 'not run', detail: (error as Error).message});
					notRun(rest, `stopped before it: upstream ${effect.upstream} did not start`);
					break;
				}
				upstreams.set(effect.upstream, upstream);
			}
			// Check and mark in one transaction: another approval may have taken it meanwhile.
			const isMine = ledger.writer.transaction(() => {
				const current = currentOrder(ledger, orderId)?.effects.find(candidate => candidate.id === effect.id);
				if (!current || effectState(current, now(), isAlive) !== 'held') return false;
				ledger.writer.append([
					orderEvent(
						EventType.effectStarted,
						{id: effect.id, args: resolution.args, approverPid: approver.pid, approverStartTime: approver.startTime},
						orderId,
						options.source,
					),
				]);
				return true;
			});
			if (!isMine) {
				outcomes.push({id: effect.id, outcome: 'not run', detail: 'no longer held (another approval, or sent back)'});
				continue;
			}
			progress(`${effect.id}: started`);
			let result: CallToolResult;
			try {
				result = (await upstream.client.callTool(
					{name: effect.tool, arguments: resolution.args as Record<string, unknown>},
					undefined,
					{
						timeout: EFFECT_CALL_TIMEOUT_MS,
					},
				)) as CallToolResult;
			} catch (error) {
				const message = (error as Error).message;
				if (isNoAnswer(error)) {
					ledger.writer.append([
						orderEvent(EventType.effectOutcomeUnknown, {id: effect.id, reason: message}, orderId, options.source),
					]);
					outcomes.push({id: effect.id, outcome: 'outcome unknown', detail: message});
				} else {
					ledger.writer.append([
						orderEvent(EventType.effectFinished, {id: effect.id, isError: true, error: message}, orderId, options.source),
					]);
					outcomes.push({id: effect.id, outcome: 'failed', detail: message});
				}
				notRun(rest, `stopped after ${effect.id}`);
				break;
			}
			const isError = result.isError === true;
			const errorText = isError
				? result.content
						.map(part => (part.type === 'text' ? part.text : ''))
						.join(' ')
						.trim() || null
				: null;
			ledger.writer.append([
				orderEvent(
					EventType.effectFinished,
					{id: effect.id, isError, result: recordedResult(result), error: errorText},
					orderId,
					options.source,
				),
			]);
			fresh.set(effect.id, result);
			outcomes.push({id: effect.id, outcome: isError ? 'failed' : 'finished', detail: errorText});
			progress(`${effect.id}: ${isError ? `failed: ${errorText ?? ''}` : 'finished'}`);
			if (isError) {
				notRun(rest, `stopped after ${effect.id} failed`);
				break;
			}
		}
	} finally {
		await Promise.all([...upstreams.values()].map(upstream => upstream.close().catch(() => undefined)));
	}
	outcomes.push(...haltedOutcomes);
	return {...base, problems: [], outcomes, isSuccess: outcomes.every(outcome => outcome.outcome === 'finished')};
}
