import {effectState, stagedEffects, type ApproverCheck, type EffectRecord, type EffectState, type OrderRecord} from './fold.ts';
import {placeholderOf} from './plan.ts';
import {terminalSafe, terminalSafeJson} from '../terminal-text.ts';

const MAX_SUMMARY = 120;

function short(value: unknown, room: number, isJson = true): string {
	const text = isJson ? terminalSafeJson(value ?? null) : String(value);
	return text.length > room ? `${text.slice(0, Math.max(1, room - 1))}…` : text;
}

/**
 * The arguments of a call on one line: `path="/srv/a.txt" content="hello…"`, at most `max`
 * characters. Keys and values are the agent's words: both come out terminal-safe (an escape code
 * in a key shows as `\e]0;…`, never acts), so every view that prints a summary prints it safely.
 */
export function summarizeArgs(args: unknown, max = MAX_SUMMARY): string {
	if (args === null || typeof args !== 'object' || Array.isArray(args)) return short(args, max);
	const parts = Object.entries(args).map(([key, value]) => `${short(terminalSafe(key), 40, false)}=${short(value, 48)}`);
	const line = parts.join(' ');
	return line.length > max ? `${line.slice(0, max - 1)}…` : line || '(no arguments)';
}

/**
 * The arguments of a call, whole: `path="/srv/a.txt" content="line one\nline two"`, each value as
 * JSON (so newlines and control characters stay escaped on one line), nothing cut. For the
 * drill-down and the order's timeline, where a person reads what an approval would run.
 */
export function describeArgs(args: unknown): string {
	if (args === null || typeof args !== 'object' || Array.isArray(args)) return JSON.stringify(args) ?? 'null';
	const parts = Object.entries(args).map(([key, value]) => `${key}=${JSON.stringify(value) ?? 'null'}`);
	return parts.join(' ') || '(no arguments)';
}

/** The words an effect's state is shown with: a finished effect that failed reads `failed`. */
export function effectLabel(effect: EffectRecord, state: EffectState): string {
	return state === 'finished' && effect.isError ? 'failed' : state;
}

/** One held (or settled) effect in snapshot JSON v1 `effects[]` (docs/snapshot.md). */
export type SnapshotEffect = {
	order: string;
	worker: string | null;
	id: string;
	placeholder: string;
	upstream: string;
	tool: string;
	args: unknown;
	state: EffectState;
	/** The upstream answered with an error (a `finished` effect that failed); null until finished. */
	isError: boolean | null;
	error: string | null;
	heldAt: string;
	expiresAt: string | null;
	startedAt: string | null;
	finishedAt: string | null;
	rejectedReason: string | null;
};

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** When an effect last changed: its settling, else when it was held. */
export function settledAt(effect: EffectRecord, state: EffectState): number | null {
	switch (state) {
		case 'held':
		case 'started':
		case 'outcome unknown':
			return null;
		case 'finished':
			return effect.finishedAt;
		case 'rejected':
			return effect.rejectedAt;
		case 'expired':
			return effect.expiredAt ?? effect.expiresAt;
	}
}

/**
 * The staged effects for the snapshot: every one still open (held, started, outcome unknown) and
 * those settled at or after `settledSince` (all when null); oldest held first.
 */
export function snapshotEffects(
	orders: Iterable<OrderRecord>,
	now: number,
	settledSince: number | null,
	isAlive?: ApproverCheck,
): SnapshotEffect[] {
	const list: SnapshotEffect[] = [];
	for (const order of orders) {
		for (const effect of stagedEffects(order)) {
			const state = effectState(effect, now, isAlive);
			const settled = settledAt(effect, state);
			if (settled !== null && settledSince !== null && settled < settledSince) continue;
			list.push({
				order: order.id,
				worker: order.worker,
				id: effect.id,
				placeholder: placeholderOf(effect.id),
				upstream: effect.upstream,
				tool: effect.tool,
				args: effect.args,
				state,
				isError: effect.finishedAt === null ? null : effect.isError,
				error: effect.error,
				heldAt: new Date(effect.calledAt).toISOString(),
				expiresAt: iso(effect.expiresAt),
				startedAt: iso(effect.startedAt),
				finishedAt: iso(effect.finishedAt),
				rejectedReason: effect.rejectReason,
			});
		}
	}
	return list.sort((a, b) => a.heldAt.localeCompare(b.heldAt) || a.order.localeCompare(b.order) || a.id.localeCompare(b.id));
}
