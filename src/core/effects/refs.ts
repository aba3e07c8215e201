import {get, type Json} from '@hyperjump/json-pointer';
import {parseEffectId} from './plan.ts';

/**
 * A reference to an earlier effect's result inside a later call's arguments:
 * `{"$ref": "mem/create_entities#1", "pointer": "/structuredContent/entities/0/name"}` (an RFC 6901
 * JSON Pointer into the recorded result; no pointer means the whole result). Only an object whose
 * keys are exactly `$ref` (an effect id) and optionally `pointer` is a reference: anything else,
 * even with a `$ref` key (a JSON Schema being written to a file), is data.
 */
type Reference = {readonly id: string; readonly pointer: string};

function asReference(value: unknown): Reference | null {
	if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
	const keys = Object.keys(value);
	const record = value as Record<string, unknown>;
	if (!keys.includes('$ref') || keys.some(key => key !== '$ref' && key !== 'pointer')) return null;
	const ref = record['$ref'];
	const pointer = record['pointer'] ?? '';
	if (typeof ref !== 'string' || typeof pointer !== 'string') return null;
	const parsed = parseEffectId(ref);
	return parsed ? {id: parsed.id, pointer} : null;
}

/** Every effect id the arguments refer to, in the order they appear. */
export function referencedIds(args: unknown): string[] {
	const ids: string[] = [];
	const walk = (value: unknown): void => {
		const reference = asReference(value);
		if (reference) {
			if (!ids.includes(reference.id)) ids.push(reference.id);
			return;
		}
		if (Array.isArray(value)) for (const item of value) walk(item);
		else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) walk(item);
	};
	walk(args);
	return ids;
}

/** The result a reference reads, or why there is none. */
export type ResultLookup = (id: string) => {readonly result: unknown} | {readonly missing: string};

/** Arguments with every reference filled in, or the first reason one could not be. */
export type Resolution =
	{readonly isResolved: true; readonly args: unknown} | {readonly isResolved: false; readonly problem: string};

class UnresolvedReference extends Error {}

/** Fills every reference in `args` from earlier results (a new value; `args` is left as it was). */
export function resolveReferences(args: unknown, lookup: ResultLookup): Resolution {
	const fill = (value: unknown): unknown => {
		const reference = asReference(value);
		if (reference) {
			const found = lookup(reference.id);
			if ('missing' in found) throw new UnresolvedReference(`${reference.id}: ${found.missing}`);
			let resolved: unknown;
			try {
				resolved = get(reference.pointer, found.result as Json);
			} catch (error) {
				throw new UnresolvedReference(`pointer ${reference.pointer} into ${reference.id}: ${(error as Error).message}`);
			}
			if (resolved === undefined)
				throw new UnresolvedReference(`pointer ${reference.pointer} finds nothing in ${reference.id}'s result`);
			return resolved;
		}
		if (Array.isArray(value)) return value.map(fill);
		if (value !== null && typeof value === 'object')
			return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, fill(item)]));
		return value;
	};
	try {
		return {isResolved: true, args: fill(args)};
	} catch (error) {
		if (error instanceof UnresolvedReference) return {isResolved: false, problem: error.message};
		throw error;
	}
}
