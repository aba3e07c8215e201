import {closeSync} from 'node:fs';
import {basename, dirname, resolve} from 'node:path';
import {citedPaths, type EvidenceFile, type PlanText} from '../core/plan-review/packet.ts';
import {AgentFileError, openAgentFile, readAgentText, readAt} from '../ledger/agent-files.ts';

/** The largest plan read (docs/mediation.md): the agents write their plans, so they are bounded. */
const MAX_PLAN_BYTES = 1024 * 1024;

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
		text = readAgentText(path, MAX_PLAN_BYTES);
	} catch (error) {
		if (error instanceof AgentFileError) throw new PlanFileError(error.message);
		throw error;
	}
	if (text.trim() === '') throw new PlanFileError(`${path}: is empty`);
	if (text.includes('\0')) throw new PlanFileError(`${path}: is not a text file`);
	return {name: basename(path), path, text};
}

/** What a cited file's problem is called in the packet. */
const CITED_PROBLEM: Partial<Record<AgentFileError['problem'], string>> = {
	missing: 'cited but missing',
	folder: 'a folder, not a file',
	link: 'a symbolic link (not followed)',
	fifo: 'a FIFO, not a file',
	device: 'a device, not a file',
	socket: 'a socket, not a file',
};

/**
 * The start of a file a plan cites, opened as every file an agent could have written is
 * (agent-files.ts): a FIFO or device is named, never waited on or read from, a link not followed.
 */
function readEvidence(path: string, budget: number): Pick<EvidenceFile, 'text' | 'problem' | 'isCut'> {
	let file;
	try {
		file = openAgentFile(path, Number.POSITIVE_INFINITY);
	} catch (error) {
		if (!(error instanceof AgentFileError)) throw error;
		return {text: null, problem: CITED_PROBLEM[error.problem] ?? 'cannot be read', isCut: false};
	}
	try {
		if (budget <= 0)
			return {text: null, problem: `left out: the packet's evidence is full (${EVIDENCE_TOTAL} bytes)`, isCut: false};
		const limit = Math.min(EVIDENCE_FILE_LIMIT, budget);
		const text = readAt(file.fd, 0, Math.min(file.size, limit)).toString('utf8');
		if (text.includes('\0')) return {text: null, problem: 'not a text file', isCut: false};
		return {text, problem: null, isCut: file.size > limit};
	} finally {
		closeSync(file.fd);
	}
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
