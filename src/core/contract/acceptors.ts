import type {Acceptor} from './model.ts';
import {error, joinPath, type ContractProblem, type Origin} from './problems.ts';

/**
 * How `acceptance.acceptors` is read (docs/contracts.md, "Acceptors"): every form people write
 * becomes name → {duty, lines}. A value that looks like a person's name is the person and its key
 * the role (`engineer: lee` → lee, duty engineer); a value that reads as a sentence is a duty and
 * its key the name (`product_owner: Confirms filtering semantics`).
 */
export type AcceptorsReading = {
	readonly acceptors: Record<string, Acceptor>;
	readonly origins: Origin[];
	readonly problems: ContractProblem[];
};

const isMapping = (value: unknown): value is Record<string, unknown> =>
	value !== null && typeof value === 'object' && !Array.isArray(value);

/** One word (`lee`, `dana.k`, `ana@acme.io`), or two or three capitalised words (`Lee Chen`). */
export function looksLikeName(value: string): boolean {
	const trimmed = value.trim();
	return /^[\p{L}\p{N}][\p{L}\p{N}._@'-]*$/u.test(trimmed) || /^\p{Lu}[\p{L}.'-]*(?: \p{Lu}[\p{L}.'-]*){1,2}$/u.test(trimmed);
}

/** `lines: [1, 3]`, `lines: 2`, `lines: all` (every line): whole numbers from 1, or null for every line. */
function readLines(value: unknown, field: string, problems: ContractProblem[]): number[] | null {
	if (value === undefined || value === null) return null;
	if (typeof value === 'string' && /^(?:all|every(?: line)?)$/i.test(value.trim())) return null;
	const items = Array.isArray(value) ? value : [value];
	const numbers = items.map(item => (typeof item === 'string' && /^\d+$/.test(item.trim()) ? Number(item) : item));
	if (numbers.length === 0 || !numbers.every(item => typeof item === 'number' && Number.isInteger(item) && item >= 1)) {
		problems.push(error(field, 'expected acceptance line numbers from 1 (lines: [1, 3]), or leave lines out to mean every line'));
		return null;
	}
	return [...new Set(numbers as number[])].sort((a, b) => a - b);
}

function add(reading: AcceptorsReading, name: string, entry: Acceptor, written: string): void {
	const key = name.trim();
	const existing = reading.acceptors[key];
	if (existing === undefined) {
		reading.acceptors[key] = entry;
		reading.origins.push([`acceptance.acceptors.${key}`, written]);
		return;
	}
	// The same person under two roles accepts for both: duties joined, lines merged (every line wins).
	const duties = [existing.duty, entry.duty].filter((duty): duty is string => typeof duty === 'string' && duty !== '');
	const lines = existing.lines && entry.lines ? [...new Set([...existing.lines, ...entry.lines])].sort((a, b) => a - b) : null;
	reading.acceptors[key] = {duty: duties.length > 0 ? [...new Set(duties)].join('; ') : null, lines};
}

function fromEntry(reading: AcceptorsReading, key: string, value: unknown, written: string): void {
	if (value === null || value === undefined || value === '') {
		add(reading, key, {duty: null, lines: null}, written);
	} else if (typeof value === 'string') {
		if (looksLikeName(value)) add(reading, value, {duty: key, lines: null}, written);
		else add(reading, key, {duty: value.trim(), lines: null}, written);
	} else if (isMapping(value)) {
		const named = [value['name'], value['person']].find((item): item is string => typeof item === 'string' && item.trim() !== '');
		const duty = typeof value['duty'] === 'string' && value['duty'].trim() !== '' ? value['duty'].trim() : null;
		const lines = readLines(value['lines'], joinPath(written, 'lines'), reading.problems);
		if (named !== undefined) add(reading, named, {duty: duty ?? key, lines}, written);
		else add(reading, key, {duty, lines}, written);
	} else {
		reading.problems.push(error(written, 'expected a name, a duty, or {duty, lines}'));
	}
}

/** Reads `acceptance.acceptors` (or `acceptance` written as role → duty) into name → {duty, lines}. */
export function readAcceptors(value: unknown, written: string): AcceptorsReading {
	const reading: AcceptorsReading = {acceptors: {}, origins: [], problems: []};
	if (value === undefined || value === null) return reading;
	if (typeof value === 'string') {
		for (const name of value.split(/\s*,\s*/).filter(Boolean)) add(reading, name, {duty: null, lines: null}, written);
	} else if (Array.isArray(value)) {
		value.forEach((item, index) => {
			const path = joinPath(written, index);
			if (typeof item === 'string') add(reading, item, {duty: null, lines: null}, path);
			else if (isMapping(item) && (typeof item['name'] === 'string' || typeof item['person'] === 'string'))
				fromEntry(reading, String(item['name'] ?? item['person']), item, path);
			else if (isMapping(item) && Object.keys(item).length === 1) {
				const [key, inner] = Object.entries(item)[0] as [string, unknown];
				fromEntry(reading, key, inner, path);
			} else reading.problems.push(error(path, 'expected a name, or name: duty'));
		});
	} else if (isMapping(value)) {
		for (const [key, inner] of Object.entries(value)) fromEntry(reading, key, inner, joinPath(written, key));
	} else {
		reading.problems.push(error(written, 'expected a mapping of name: duty, or a list of names'));
	}
	return reading;
}
