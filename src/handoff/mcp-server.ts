import {McpServer} from '@modelcontextprotocol/sdk/server/mcp.js';
import {NEED_MAX_CHARS} from '../core/text-limits.ts';
import {ASKED_NEED_KINDS} from '../core/stats/need-kinds.ts';
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod';
import type {Ledger} from '../ledger/open-ledger.ts';
import {registerWriteTools} from './intake-tools.ts';
import type {RepositoryMap} from './repository-map.ts';
import type {ReceiverPolicy} from '../core/contract/policy.ts';
import type {TripwireRunner} from './tripwires.ts';
import {contractKeyOfClaim, DEFAULT_PASS_BACK_LIMIT, passBackRefusal} from './pass-back-limit.ts';
import {handIn, HandoffError, listWork, passBack, raiseNeed, recordProgress, takeContract, type Actor} from './claims.ts';

const task = z.string().min(1).describe('the claim task id (or a unique prefix) that take returned');

function ok(text: string, structured: Record<string, unknown>): CallToolResult {
	return {content: [{type: 'text', text}], structuredContent: structured};
}

function noted(template: string, taskId: string): CallToolResult {
	return ok(template.replace('%s', taskId), {taskId});
}

/** A refusal is a tool result the agent can read and act on, never a protocol error. */
function refused(error: unknown): CallToolResult {
	if (!(error instanceof HandoffError)) throw error;
	const lines = [error.message, ...error.problems.map(problem => `${problem.severity} ${problem.field}: ${problem.message}`)];
	return {isError: true, content: [{type: 'text', text: lines.join('\n')}]};
}

function guarded(fn: () => CallToolResult): CallToolResult {
	try {
		return fn();
	} catch (error) {
		return refused(error);
	}
}

/** What the server's host gives it besides the ledger. */
export type HandoffServerOptions = {
	/** Called before each tool call reads or writes the ledger (the ledger file's look, file-watch.ts). */
	readonly beforeCall?: () => void;
	/** The run of the agent that started this server, under `controlroom run`: it may raise needs on it. */
	readonly ownTask?: string | null;
	/** The host's repositories and their checkouts, for the contracts an agent writes (docs/serve.md). */
	readonly repositories?: RepositoryMap;
	/** What this receiver requires of a contract it takes (docs/contracts.md, "The receiver's policy"). */
	readonly policy?: ReceiverPolicy;
	/** Runs a contract's tripwires through the wrapper at take and hand-in. */
	readonly runTripwire?: TripwireRunner;
	/** Passes back a contract may have before it goes to Needs you (docs/config.md, `passBackLimit`). */
	readonly passBackLimit?: number;
	/** How long a holder keeps a claim before it goes to Needs you (docs/config.md, `claimTimeLimit`). */
	readonly timeLimitSeconds?: number;
};

/**
 * The agents' MCP server: the claim verbs as tools, each with a zod input schema, each calling the
 * same functions as the CLI. The server acts as `identity` (`mcp --as NAME`) and only as it: it
 * takes for that name, and progresses, hands in or passes back only claims that name holds; a
 * refusal is a tool error naming the holder. Every event it writes records the identity as `actor`.
 */
export function createHandoffServer(
	ledger: Ledger,
	identity: string,
	version: string,
	options: HandoffServerOptions = {},
): McpServer {
	const server = new McpServer({name: 'controlroom', version});
	const beforeCall = options.beforeCall ?? (() => undefined);
	const ownTask = options.ownTask ?? null;
	const call = (fn: () => CallToolResult): CallToolResult => {
		beforeCall();
		return guarded(fn);
	};
	const actor: Actor = {ledger, source: 'mcp', identity};
	server.registerTool(
		'take',
		{
			description: `Claim a handoff contract file for ${identity} (this server's identity). Exclusive: refused, naming the holder, if someone holds it. Read passedBack first when present.`,
			inputSchema: {
				file: z.string().min(1).describe('path of the contract file (YAML or Markdown)'),
				as: z
					.string()
					.min(1)
					.optional()
					.describe(`who takes it: only ${identity}, this server's identity, is accepted (the default)`),
				lease_minutes: z
					.number()
					.int()
					.positive()
					.optional()
					.describe('silence after which the claim shows as stalled (default 30)'),
			},
		},
		({file, as, lease_minutes: leaseMinutes}) =>
			call(() => {
				const taken = takeContract(actor, file, as ?? null, leaseMinutes === undefined ? undefined : leaseMinutes * 60, {
					policy: options.policy,
					runTripwire: options.runTripwire,
					...(options.passBackLimit === undefined ? {} : {passBackLimit: options.passBackLimit}),
					...(options.timeLimitSeconds === undefined ? {} : {timeLimitSeconds: options.timeLimitSeconds}),
				});
				const first = taken.passedBack ? `passed back by ${taken.passedBack.by}: ${taken.passedBack.reason}\n` : '';
				const warnings = [
					...taken.warnings.map(problem => `\nwarning ${problem.field}: ${problem.message}`),
					...taken.guesses.map(guess => `\ncheck first ${guess.field}: ${guess.text}`),
				].join('');
				return ok(`${first}${taken.holder} took "${taken.title}" as ${taken.taskId}${warnings}`, {...taken});
			}),
	);
	server.registerTool(
		'progress',
		{
			description: `Record a progress note on a claim ${identity} holds; renews its 30-minute lease.`,
			inputSchema: {task, note: z.string().min(1)},
		},
		({task: ref, note}) => call(() => noted(`noted on %s; lease renewed`, recordProgress(actor, ref, note).id)),
	);
	server.registerTool(
		'hand_in',
		{
			description: `Hand in a claim ${identity} holds, with evidence (before, change, after per acceptance line, uncertainty, review): an evidence file, or the same fields as evidence. An after entry is a command (command, exit_code, output), tests: {passed, failed}, a commit, a pull_request, or a screenshot file.`,
			inputSchema: {
				task,
				evidence_file: z.string().min(1).optional().describe('path of the evidence YAML or JSON file'),
				evidence: z
					.record(z.string(), z.unknown())
					.optional()
					.describe('the evidence itself, instead of a file: {before, change, after, uncertainty, review}'),
			},
		},
		({task: ref, evidence_file: file, evidence}) =>
			call(() => {
				if ((file === undefined) === (evidence === undefined))
					throw new HandoffError('hand_in: give evidence_file or evidence (one of them)');
				const result = handIn(actor, ref, file ?? null, {evidence, runTripwire: options.runTripwire});
				const waiting = result.acceptor ?? 'a person to name its acceptor';
				const warnings = result.warnings.map(problem => `\nwarning ${problem.field}: ${problem.message}`).join('');
				return ok(`handed in ${result.taskId}; waiting for ${waiting}${warnings}`, {...result});
			}),
	);
	server.registerTool(
		'pass_back',
		{
			description: `Free a claim ${identity} holds and cannot finish; the reason is the first thing the next taker sees.`,
			inputSchema: {task, reason: z.string().min(1)},
		},
		({task: ref, reason}) =>
			call(() => {
				const {id} = passBack(actor, ref, reason, options.passBackLimit);
				const key = contractKeyOfClaim(actor.ledger, id);
				const capped = key === null ? null : passBackRefusal(actor.ledger, key, options.passBackLimit ?? DEFAULT_PASS_BACK_LIMIT);
				return noted(`passed %s back; ${capped ?? 'the contract is free to take'}`, id);
			}),
	);
	server.registerTool(
		'raise_need',
		{
			description: `Ask a person for something, on a claim ${identity} holds${ownTask ? ` or on its own run ${ownTask}` : ''}: it shows in the human queue under needs, naming ${identity}.`,
			inputSchema: {
				task,
				message: z.string().min(1).max(NEED_MAX_CHARS),
				kind: z
					.enum(ASKED_NEED_KINDS)
					.optional()
					.describe('missing_info: what you were handed lacks something you need to go on (counted, docs/stats.md)'),
			},
		},
		({task: ref, message, kind}) =>
			call(() => noted('raised a need on %s', raiseNeed(actor, ref, message, ownTask, kind ?? null).id)),
	);
	server.registerTool(
		'list_work',
		{
			description:
				'List the latest claim of every contract: held, stalled, handed in, accepted, passed back or rejected (both free to take).',
			inputSchema: {},
		},
		() => {
			beforeCall();
			const items = listWork(ledger, Date.now());
			const text =
				items.length === 0
					? 'no claims yet'
					: items.map(item => `${item.taskId} ${item.state} ${item.holder} ${item.title ?? ''}`).join('\n');
			return ok(text, {items});
		},
	);
	// An agent files the bugs it finds and passes the next piece on: stored as drafts, a person makes them ready.
	registerWriteTools(server, {
		ledger,
		repositories: options.repositories ?? new Map(),
		origin: 'mcp',
		beforeCall,
		writerOf: () => ({
			writer: {client: identity, owner: process.env['USER'] ?? 'unknown', via: 'mcp', grant: null, host: null},
			readyAtOnce: null,
		}),
	});
	return server;
}
