import {closeSync, openSync, readFileSync, readSync, statSync} from 'node:fs';
import {basename, dirname, resolve} from 'node:path';
import {citedPaths, type EvidenceFile, type PlanText} from '../core/plan-review/packet.ts';

/** Each cited file is given up to this much, and all of them together up to EVIDENCE_TOTAL. */
const EVIDENCE_FILE_LIMIT = 32 * 1024;
const EVIDENCE_TOTAL = 256 * 1024;

/** A plan file that cannot be used: one line, naming it. */
export class PlanFileError extends Error {}

/** A plan as read from its file, and where it lives (its citations are relative to it). */
export type PlanFile = PlanText & {readonly path: string};

export function readPlan(path: string): PlanFile {
	let text: string;
	try {
		text = readFileSync(path, 'utf8');
	} catch (error) {
		const code = (error as NodeJS.ErrnoException).code;
		throw new PlanFileError(
			`${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'is a folder' : 'cannot be read'}`,
		);
	}
	if (text.trim() === '') throw new PlanFileError(`${path}: is empty`);
	if (text.includes('\0')) throw new PlanFileError(`${path}: is not a text file`);
	return {name: basename(path), path, text};
}

function readStart(path: string, limit: number): {readonly text: string; readonly isCut: boolean} {
	const size = statSync(path).size;
	const fd = openSync(path, 'r');
	try {
		const buffer = Buffer.alloc(Math.min(size, limit));
		const read = readSync(fd, buffer, 0, buffer.length, 0);
		return {text: buffer.subarray(0, read).toString('utf8'), isCut: size > limit};
	} finally {
		closeSync(fd);
	}
}

function readEvidence(path: string, budget: number): Pick<EvidenceFile, 'text' | 'problem' | 'isCut'> {
	let stat;
	try {
		stat = statSync(path);
	} catch {
		return {text: null, problem: 'cited but missing', isCut: false};
	}
	if (stat.isDirectory()) return {text: null, problem: 'a folder, not a file', isCut: false};
	if (budget <= 0)
		return {text: null, problem: `left out: the packet's evidence is full (${EVIDENCE_TOTAL} bytes)`, isCut: false};
	const {text, isCut} = readStart(path, Math.min(EVIDENCE_FILE_LIMIT, budget));
	if (text.includes('\0')) return {text: null, problem: 'not a text file', isCut: false};
	return {text, problem: null, isCut};
}

/**
 * The evidence every plan cites, each file once (resolved against the plan's folder), in the order
 * the plans cite it: the same evidence for both sides.
 */
export function gatherEvidence(plans: readonly PlanFile[]): EvidenceFile[] {
	const byPath = new Map<string, {cited: string; citedBy: string[]}>();
	for (const plan of plans) {
		for (const cited of citedPaths(plan.text)) {
			const absolute = resolve(dirname(plan.path), cited);
			const entry = byPath.get(absolute) ?? {cited, citedBy: []};
			if (!entry.citedBy.includes(plan.name)) entry.citedBy.push(plan.name);
			byPath.set(absolute, entry);
		}
	}
	let budget = EVIDENCE_TOTAL;
	return [...byPath.entries()].map(([absolute, entry]) => {
		const read = readEvidence(absolute, budget);
		budget -= Buffer.byteLength(read.text ?? '');
		return {...entry, ...read};
	});
}
