import {effectState, stagedEffects, type ApproverCheck, type OrderRecord} from './fold.ts';
import {parseEffectId} from './plan.ts';

/** One effect a worker's report lists: its placeholder, and the tool and arguments when it says them. */
export type ListedEffect = {
	readonly text: string;
	readonly tool?: string;
	readonly args?: unknown;
};

/**
 * The effects a report lists under `effects`: placeholders (`pending:fs/write_file#3`) or objects
 * `{effect: pending:..., tool: ..., args: {...}}`. Null when the document has no `effects` list.
 */
export function listedEffects(document: unknown): ListedEffect[] | null {
	if (document === null || typeof document !== 'object') return null;
	const list = (document as Record<string, unknown>)['effects'];
	if (!Array.isArray(list)) return null;
	return list.map((item): ListedEffect => {
		if (typeof item === 'string') return {text: item};
		if (item === null || typeof item !== 'object') return {text: JSON.stringify(item)};
		const record = item as Record<string, unknown>;
		const text = [record['effect'], record['id'], record['placeholder']].find(value => typeof value === 'string');
		return {
			text: typeof text === 'string' ? text : JSON.stringify(item),
			...(typeof record['tool'] === 'string' ? {tool: record['tool']} : {}),
			...('args' in record ? {args: record['args']} : 'arguments' in record ? {args: record['arguments']} : {}),
		};
	});
}

/** Same JSON value, whatever the key order. */
function isSameJson(a: unknown, b: unknown): boolean {
	if (Array.isArray(a) || Array.isArray(b)) {
		return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, index) => isSameJson(item, b[index]));
	}
	if (a !== null && b !== null && typeof a === 'object' && typeof b === 'object') {
		const keys = Object.keys(a);
		const other = b as Record<string, unknown>;
		return (
			keys.length === Object.keys(b).length &&
			keys.every(key => key in other && isSameJson((a as Record<string, unknown>)[key], other[key]))
		);
	}
	return a === b;
}

/**
 * Reconciles a report against the gateway's log (docs/effects.md, "Approving, rejecting"): every listed effect must be one
 * the gateway held for this order, with the same tool and arguments where the report gives them,
 * and every effect still held must be listed. Returns each mismatch; none means the two agree.
 */
export function reconcileReport(
	order: OrderRecord,
	listed: readonly ListedEffect[],
	now: number,
	isApproverAlive?: ApproverCheck,
): string[] {
	const problems: string[] = [];
	const seen = new Set<string>();
	const byId = new Map(order.effects.map(effect => [effect.id, effect]));
	for (const entry of listed) {
		const parsed = parseEffectId(entry.text);
		if (!parsed) {
			problems.push(`${entry.text}: not a placeholder (pending:UPSTREAM/TOOL#N)`);
			continue;
		}
		if (seen.has(parsed.id)) {
			problems.push(`${parsed.id}: listed twice`);
			continue;
		}
		seen.add(parsed.id);
		const logged = byId.get(parsed.id);
		if (!logged) {
			problems.push(`${parsed.id}: the gateway's log for ${order.id} has no such effect`);
		} else if (logged.kind === 'read') {
			problems.push(`${parsed.id}: a read, not an effect`);
		} else if (entry.tool !== undefined && entry.tool !== logged.tool) {
			problems.push(`${parsed.id}: the report says tool ${entry.tool}, the log ${logged.tool}`);
		} else if (entry.args !== undefined && !isSameJson(entry.args, logged.args)) {
			problems.push(`${parsed.id}: the report's arguments differ from the log's`);
		}
	}
	for (const effect of stagedEffects(order)) {
		if (!seen.has(effect.id) && effectState(effect, now, isApproverAlive) === 'held') {
			problems.push(`${effect.id}: held, but the report does not list it`);
		}
	}
	return problems;
}
