/** One plan under review, as read from its file. */
export type PlanText = {readonly name: string; readonly text: string};

/** One file a plan cites as evidence, as read (or why it could not be). */
export type EvidenceFile = {
	/** The path as the plan wrote it. */
	readonly cited: string;
	/** Which plans cite it (a file cited by both is given once). */
	readonly citedBy: readonly string[];
	readonly text: string | null;
	/** Why there is no text: missing, a folder, not text. */
	readonly problem: string | null;
	readonly isCut: boolean;
};

export type PlanPacketInput = {
	readonly plans: readonly PlanText[];
	readonly evidence: readonly EvidenceFile[];
	readonly round: number;
	readonly maxRounds: number;
	/** The points the reviewer left open in the round before (none in round 1). */
	readonly openPoints: readonly string[];
};

const LINK = /\]\(([^)\s]+)\)/g;
const EVIDENCE_LINE = /^\s*(?:[-*]\s+)?evidence:\s*(\S+)\s*$/gim;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

/**
 * The files a plan cites as its evidence: the targets of its Markdown links that are local paths
 * (not URLs, not anchors), and `evidence: PATH` lines. In the order first cited, each once.
 */
export function citedPaths(plan: string): string[] {
	const found: {readonly at: number; readonly path: string}[] = [];
	for (const match of plan.matchAll(LINK)) found.push({at: match.index, path: match[1] ?? ''});
	for (const match of plan.matchAll(EVIDENCE_LINE)) found.push({at: match.index, path: match[1] ?? ''});
	const paths = found
		.sort((a, b) => a.at - b.at)
		.map(entry => entry.path.replace(/#.*$/, ''))
		.filter(path => path !== '' && !SCHEME.test(path));
	return [...new Set(paths)];
}

function fence(text: string): string {
	const longest = Math.max(2, ...[...text.matchAll(/`{3,}/g)].map(match => match[0].length));
	const marks = '`'.repeat(longest + 1);
	return `${marks}\n${text.endsWith('\n') ? text : `${text}\n`}${marks}`;
}

/**
 * The packet an independent plan reviewer reads (docs/mediation.md): what to answer, the plans,
 * then the evidence they cite, each file once and the same for every plan, so neither plan's
 * author chooses what the reviewer sees of the other's.
 */
export function planReviewPacket(input: PlanPacketInput): string {
	const names = input.plans.map(plan => plan.name);
	const subject = names.length === 1 ? `the plan ${names[0]}` : `the plans ${names.join(' and ')}`;
	const lines = [
		`# Plan review, round ${input.round} of ${input.maxRounds}`,
		'',
		`You are an independent, read-only reviewer of ${subject}. Change no file. Judge what will happen if the`,
		names.length === 1
			? 'plan is carried out, from the plan and the evidence it cites.'
			: 'plans are carried out, from the plans and the evidence they cite: where they disagree about what will happen, say which is right and why.',
		'',
		'Answer with exactly `APPROVE` if nothing needs to change, or a numbered list of the points that must be',
		'settled (`1. ...`, `2. ...`), and nothing else.',
	];
	if (input.openPoints.length > 0) {
		lines.push(
			'',
			`## Left open in round ${input.round - 1}`,
			'',
			...input.openPoints.map((point, index) => `${index + 1}. ${point}`),
		);
		lines.push('', 'The plans below are as they stand now; answer APPROVE if every point above is settled.');
	}
	for (const plan of input.plans) lines.push('', `## Plan: ${plan.name}`, '', fence(plan.text));
	lines.push('', '## Evidence the plans cite', '');
	if (input.evidence.length === 0) lines.push('(none cited)');
	for (const file of input.evidence) {
		const by = `cited by ${file.citedBy.join(' and ')}`;
		if (file.text === null) {
			lines.push(`### ${file.cited} (${by}): ${file.problem ?? 'not readable'}`, '');
			continue;
		}
		lines.push(`### ${file.cited} (${by}${file.isCut ? ', cut to its start' : ''})`, '', fence(file.text), '');
	}
	return `${lines.join('\n').trimEnd()}\n`;
}
