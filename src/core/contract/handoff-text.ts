import type {SessionTimeline, RanCommand} from './handoff-timeline.ts';
import {markdownCode, markdownLine, markdownQuote} from './markdown-data.ts';

/** A commit, as git told it. */
export type HandoffCommit = {readonly revision: string; readonly subject: string};

/** A claim still held in the repository, and why it was passed back before, if it was. */
export type HandoffClaim = {
	readonly id: string;
	readonly title: string;
	readonly holder: string;
	readonly passedBack: string | null;
};

/**
 * What git says of the repository when the handoff is written. `null` is unknown (git could not
 * be asked, or the session's start revision was not recorded), written as unknown.
 */
export type HandoffRepository = {
	readonly root: string;
	readonly head: string | null;
	/** The commit the session started from, when it was recorded (a wrapped run's `baseRevision`). */
	readonly baseRevision: string | null;
	/** How the commits were found: since the start revision, or by time while the session ran. */
	readonly commitsFrom: 'base revision' | 'session time' | null;
	readonly commits: readonly HandoffCommit[] | null;
	readonly filesChanged: readonly string[] | null;
	/** Uncommitted paths as `git status` shows them when the handoff is written. */
	readonly uncommitted: readonly string[] | null;
};

/** Everything a handoff is written from (docs/handoffs.md). */
export type HandoffFacts = {
	readonly task: {
		readonly id: string;
		readonly title: string | null;
		readonly source: string;
		readonly status: string;
		readonly startedAt: number | null;
		readonly endedAt: number | null;
	};
	readonly timeline: SessionTimeline;
	readonly repository: HandoffRepository;
	readonly openClaims: readonly HandoffClaim[];
	/** When it is written (ms). */
	readonly at: number;
};

const UNKNOWN = 'unknown';

/**
 * Whether a session did anything a next session must be told: it ran a command, wrote with a
 * tool, called a tool that is not a read, or committed. A session that only read writes none.
 */
export function didSomething(facts: HandoffFacts): boolean {
	return facts.timeline.actingCalls > 0 || (facts.repository.commits?.length ?? 0) > 0;
}

const iso = (ms: number | null): string => (ms === null ? UNKNOWN : new Date(ms).toISOString());

function exitText(command: RanCommand): string {
	return command.exitCode === null ? 'exit code unknown' : `exit ${command.exitCode}`;
}

function bullets(items: readonly string[], none: string): string[] {
	return items.length === 0 ? [`- ${none}`] : items.map(item => `- ${item}`);
}

function listOrUnknown(
	items: readonly string[] | null,
	format: (item: string) => string,
	none: string,
	unknown: string,
): string[] {
	return items === null ? [`- ${unknown}`] : bullets(items.map(format), none);
}

/** A failed command, and the command run next (whether it replaced the failed one is not recorded). */
function gotchas(commands: readonly RanCommand[]): string[] {
	return commands.flatMap((command, index) => {
		if (command.exitCode === 0 || command.exitCode === null) return [];
		const error = command.error ? `: ${markdownQuote(command.error, 300)}` : '';
		const next = commands.slice(index + 1).find(later => later.exitCode === 0);
		const after = next
			? `; the next command that succeeded was ${markdownCode(next.command)} (exit 0), whether it replaced this one is not recorded`
			: '; no later command succeeded';
		return [`${markdownCode(command.command)} failed (${exitText(command)})${error}${after}`];
	});
}

function front(facts: HandoffFacts): string[] {
	const title = `Handoff: ${facts.task.title ?? facts.task.id}`;
	const revision = facts.repository.head ?? facts.repository.baseRevision;
	return [
		'---',
		'kind: transfer',
		`title: ${JSON.stringify(markdownLine(title).slice(0, 200))}`,
		'context:',
		`  repository: ${JSON.stringify(facts.repository.root)}`,
		...(revision ? [`  base_revision: ${revision}`] : []),
		'environment_specific:',
		"  repository: the path under context is this machine's checkout; elsewhere, use your own",
		'---',
		'',
	];
}

/**
 * A handoff as a transfer contract in Markdown (docs/contracts.md, "The Markdown guide"): the
 * fields a transfer needs (Problem, Solution shape, Decisions, Steps, Verification, Gotchas) and
 * the handoff's own sections (Done, In progress, Blocked, Next step). Every fact comes from the
 * ledger or git; what neither records is written as unknown; the agent's words are quoted as
 * data and marked as its claim.
 */
export function handoffMarkdown(facts: HandoffFacts): string {
	const {timeline, repository} = facts;
	const failed = timeline.commands.filter(command => command.exitCode !== 0 && command.exitCode !== null);
	const ran = timeline.commands.map(command => `${markdownCode(command.command)}: ${exitText(command)}`);
	const finalClaim = timeline.finalMessage
		? `The agent's claim, not checked: ${markdownQuote(timeline.finalMessage)}`
		: `${UNKNOWN}: the agent left no final message`;
	const commitsNote =
		repository.commitsFrom === 'session time'
			? ' (its start revision was not recorded: commits made in this repository while it ran, by time)'
			: '';
	const lines = [
		...front(facts),
		`# Handoff: ${markdownLine(facts.task.title ?? facts.task.id)}`,
		'',
		`<!-- Written by controlroom from the ledger and git at ${iso(facts.at)}. Text the agent wrote is quoted as data; what is not recorded is written as unknown. -->`,
		'',
		'## Context',
		'',
		`- task: ${facts.task.id} (${markdownLine(facts.task.source)}, ${markdownLine(facts.task.status)})`,
		`- started: ${iso(facts.task.startedAt)}`,
		`- ended: ${iso(facts.task.endedAt)}`,
		`- exit code: ${timeline.exitCode === null ? `${UNKNOWN} (not recorded for this session)` : timeline.exitCode}`,
		`- revision now: ${repository.head ?? UNKNOWN}`,
		`- start revision: ${repository.baseRevision ?? `${UNKNOWN} (not recorded)`}`,
		'',
		'## Problem',
		'',
		timeline.firstPrompt ? `The session was asked: ${markdownQuote(timeline.firstPrompt)}` : `${UNKNOWN}: no prompt was recorded`,
		'',
		'## Solution shape',
		'',
		`${UNKNOWN}: not recorded; what was done is under Done, and the agent's own account under Next step.`,
		'',
		'## Done',
		'',
		`Commits${commitsNote}:`,
		'',
		...listOrUnknown(
			repository.commits?.map(commit => `${commit.revision.slice(0, 12)} ${markdownLine(commit.subject)}`) ?? null,
			item => item,
			'none',
			`${UNKNOWN}: git could not be asked`,
		),
		'',
		'Files changed by those commits:',
		'',
		...listOrUnknown(repository.filesChanged, file => markdownCode(file), 'none', UNKNOWN),
		'',
		'Commands run, with exit codes as recorded:',
		'',
		...bullets(ran, 'none'),
		...(timeline.filesWritten.length > 0
			? ['', 'Files written by the agent’s tools:', '', ...timeline.filesWritten.map(file => `- ${markdownCode(file)}`)]
			: []),
		'',
		'## In progress',
		'',
		'Open claims in this repository:',
		'',
		...bullets(
			facts.openClaims.map(claim => `${claim.id} ${markdownLine(claim.title)} (held by ${markdownLine(claim.holder)})`),
			'none',
		),
		'',
		'Uncommitted files when this was written:',
		'',
		...listOrUnknown(repository.uncommitted, file => markdownCode(file), 'none', `${UNKNOWN}: git could not be asked`),
		...(timeline.openPlanItems.length > 0
			? ['', 'Plan items not done:', '', ...timeline.openPlanItems.map(item => `- ${markdownLine(item)}`)]
			: []),
		'',
		'## Blocked',
		'',
		'Open questions the session raised:',
		'',
		...bullets(
			timeline.needs.map(need => markdownQuote(need, 500)),
			'none',
		),
		'',
		'Failed commands:',
		'',
		...bullets(
			failed.map(command => `${markdownCode(command.command)}: ${exitText(command)}`),
			'none',
		),
		'',
		'Pass-back reasons:',
		'',
		...bullets(
			facts.openClaims.flatMap(claim => (claim.passedBack ? [`${claim.id}: ${markdownQuote(claim.passedBack, 500)}`] : [])),
			'none',
		),
		'',
		'## Gotchas',
		'',
		...bullets(gotchas(timeline.commands), 'none: no command failed'),
		'',
		'## Next step',
		'',
		finalClaim,
		'',
		'## Decisions',
		'',
		`- ${UNKNOWN}: decisions are not recorded in the ledger`,
		'',
		'## Steps',
		'',
		`- Read Done, In progress and Blocked above; then the next step, which is the agent's claim: check it against the repository first.`,
		'',
		'## Verification',
		'',
		`- The commits under Done are in the repository (\`git log\`), and the uncommitted files are as listed (\`git status\`).`,
		'',
	];
	return lines.join('\n');
}
