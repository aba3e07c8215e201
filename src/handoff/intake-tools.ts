import type {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import {GUESS_MARKER} from '../core/contract/contract-text.ts';
import type {ContractWriter, IntakeRecord} from '../core/contract/intake.ts';
import type {Ledger} from '../ledger/open-ledger.ts';
import {HandoffError} from './claims.ts';
import {listIntake, workDetail, WRITE_TOOLS, writeContract} from './intake.ts';
import type {RepositoryMap} from './repository-map.ts';

/** Who a call writes as, told by the server that got it (its token's grant, or the agent's `--as`). */
export type CallWriter = {
	readonly writer: ContractWriter;
	/** The writer's token makes its contracts ready at once: who set that policy. */
	readonly readyAtOnce: {readonly by: string} | null;
};

/** What the intake tools need from the server that offers them. */
export type IntakeToolContext = {
	readonly ledger: Ledger;
	readonly repositories: RepositoryMap;
	/** serve or mcp: where refusals are kept. */
	readonly origin: string;
	/** Who this call writes as; called per call (a server may serve many tokens). */
	writerOf(extra: unknown): CallWriter;
	/** Called before each call reads or writes the ledger. */
	readonly beforeCall?: () => void;
};

const WRITE_DESCRIPTIONS: Readonly<Record<keyof typeof WRITE_TOOLS, string>> = {
	write_task:
		"Write a task contract for an agent on the person's machine: Markdown (front matter, then ## Goal, ## Context, ## Acceptance, ## Acceptors, ...) or YAML, as `controlroom contract check` reads it. It is checked (refused with one line per problem: fix them and call again) and stored as a draft until the person marks it ready.",
	file_bug:
		'File a bug contract: ## Problem, ## Reproduce (never "Steps"), ## Expected, ## What made it hard to see, ## Acceptance, ## Acceptors. Checked and stored as a draft, as write_task.',
	write_transfer:
		'Write a transfer contract (how something was solved, for another place): ## Problem, ## Solution shape, ## Decisions, ## Steps, ## Verification, ## Gotchas, ## Environment specific. Checked and stored as a draft, as write_task.',
};

const contractArgument = z
	.string()
	.describe(
		`the contract's whole text, Markdown or YAML; mark a value you guessed with ${GUESS_MARKER} so the worker checks it first`,
	);
const repositoryArgument = z
	.string()
	.optional()
	.describe("the repository's name or remote URL (e.g. github.com/ana/shop); the person's machine maps it to its checkout");

function refusal(error: unknown): CallToolResult {
	if (!(error instanceof HandoffError)) throw error;
	const lines = [error.message, ...error.problems.map(problem => `${problem.severity} ${problem.field}: ${problem.message}`)];
	return {isError: true, content: [{type: 'text', text: lines.join('\n')}]};
}

function summary(record: IntakeRecord): string {
	const holder = record.claim && record.state === 'taken' ? ` by ${record.claim.holder}` : '';
	return `${record.id} ${record.state}${holder} ${record.kind ?? ''} "${record.title ?? ''}" (written by ${record.writer.client} for ${record.writer.owner})`;
}

/** Registers write_task, file_bug and write_transfer on `server`. */
export function registerWriteTools(server: McpServer, context: IntakeToolContext): void {
	for (const [tool, kind] of Object.entries(WRITE_TOOLS) as [
		keyof typeof WRITE_TOOLS,
		(typeof WRITE_TOOLS)[keyof typeof WRITE_TOOLS],
	][]) {
		server.registerTool(
			tool,
			{description: WRITE_DESCRIPTIONS[tool], inputSchema: {contract: contractArgument, repository: repositoryArgument}},
			({contract, repository}, extra) => {
				context.beforeCall?.();
				try {
					const {writer, readyAtOnce} = context.writerOf(extra);
					const written = writeContract(context.ledger, {
						kind,
						text: contract,
						repository: repository ?? null,
						writer,
						repositories: context.repositories,
						readyAtOnce,
						origin: context.origin,
					});
					const how =
						written.state === 'draft'
							? `as a draft; a person marks it ready with: controlroom contract ready ${written.id}`
							: `; it is ${written.state}`;
					const lines = [
						`${written.isNew ? 'stored' : 'already stored (the same text from the same writer)'} ${written.id} "${written.title}" ${how}`,
						...written.warnings.map(line => `warning ${line}`),
						...(written.guesses.length > 0 ? [`guesses marked: ${written.guesses.join(', ')}`] : []),
					];
					return {content: [{type: 'text', text: lines.join('\n')}], structuredContent: {...written}};
				} catch (error) {
					return refusal(error);
				}
			},
		);
	}
}

/** Registers list_work and get_work (stored contracts) on `server`. */
export function registerReadTools(server: McpServer, context: IntakeToolContext): void {
	server.registerTool(
		'list_work',
		{
			description:
				'List the stored contracts, newest first: draft (waits for the person), ready, taken, handed in (waits for its acceptor), accepted, passed back, rejected; with who wrote each.',
			inputSchema: {state: z.string().optional().describe('only contracts in this state')},
		},
		({state}) => {
			context.beforeCall?.();
			const items = listIntake(context.ledger).filter(record => state === undefined || record.state === state);
			const text = items.length === 0 ? 'no stored contracts' : items.map(summary).join('\n');
			return {content: [{type: 'text', text}], structuredContent: {items}};
		},
	);
	server.registerTool(
		'get_work',
		{
			description:
				'One stored contract: its state, who holds it, its progress notes, its hand-in, and a verdict per acceptance line (not handed in, waiting, accepted, sent back).',
			inputSchema: {id: z.string().describe('the contract id (ct-...) a write returned')},
		},
		({id}) => {
			context.beforeCall?.();
			try {
				const detail = workDetail(context.ledger, id.trim());
				const lines = [
					summary(detail),
					...(detail.passedBack ? [`passed back by ${detail.passedBack.by}: ${detail.passedBack.reason}`] : []),
					...detail.notes.map(note => `note ${note.at} ${note.by}: ${note.note}`),
					...detail.lines.map(
						line =>
							`line ${line.line} ${line.verdict}${line.evidence ? ` (${line.evidence.command ?? '?'} exit ${line.evidence.exitCode ?? '?'})` : ''}: ${line.check}`,
					),
				];
				return {content: [{type: 'text', text: lines.join('\n')}], structuredContent: {...detail}};
			} catch (error) {
				return refusal(error);
			}
		},
	);
}
