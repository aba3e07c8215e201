import {randomBytes} from 'node:crypto';
import {homedir} from 'node:os';
import {join} from 'node:path';
import {defers, loadHookTable} from './claude-hooks.ts';
import {ClaudeSession, type ToolCall, type Usage} from './claude-session.ts';

// The demo's stand-in for Claude Code (`controlroom demo --stand-in claude ARGS`, run as `claude`
// by the demo's agents folder): it takes Claude's command line, writes a transcript, runs the
// hooks it finds, sends telemetry when told to, and prints what `claude -p` prints. Which work it
// does is the demo's choice (CONTROLROOM_DEMO_SCENARIO): `budget`, a headless run that crosses its
// budget and is held for a person; `finish`, a headless run that ends; `session`, an interactive
// session with two helpers that then waits at a permission prompt. docs/demo.md.

/** What the stand-in reads of Claude's command line. */
type Args = {
	readonly isHeadless: boolean;
	readonly resume: string | null;
	readonly settings: string | null;
	readonly outputFormat: string;
	readonly prompt: string;
};

function readArgs(argv: readonly string[]): Args {
	let isHeadless = false;
	let resume: string | null = null;
	let settings: string | null = null;
	let outputFormat = 'text';
	let prompt = '';
	for (let index = 0; index < argv.length; index += 1) {
		const word = argv[index] ?? '';
		if (word === '-p' || word === '--print') isHeadless = true;
		else if (word === '--resume') resume = argv[++index] ?? null;
		else if (word === '--settings') settings = argv[++index] ?? null;
		else if (word === '--output-format') outputFormat = argv[++index] ?? 'text';
		else if (!word.startsWith('-')) prompt = word;
	}
	return {isHeadless, resume, settings, outputFormat, prompt};
}

const MODEL = 'claude-opus-5-5';
const HELPER_MODEL = 'claude-haiku-5-5';
/** A turn of a long run: a large cached prompt, as a session some way in has. */
const RUN_TURN: Usage = {
	input_tokens: 2400,
	cache_creation_input_tokens: 3000,
	cache_read_input_tokens: 28_000,
	output_tokens: 900,
};
const SMALL_TURN: Usage = {
	input_tokens: 1800,
	cache_creation_input_tokens: 2500,
	cache_read_input_tokens: 16_000,
	output_tokens: 600,
};
const HELPER_TURN: Usage = {
	input_tokens: 900,
	cache_creation_input_tokens: 4000,
	cache_read_input_tokens: 6000,
	output_tokens: 700,
};

/** The budget run's test shards: the first answer crosses the demo's budget, the second fits in the headroom the board suggests. */
const SHARDS = 2;

const toolUseId = (): string => `toolu_demo${randomBytes(9).toString('hex')}`;
const toolUse = (call: ToolCall) => ({type: 'tool_use', id: call.id, name: call.name, input: call.input});

/** Prints a `-p` result as the output format asks (stream-json: one line among others; json: the object). */
function printResult(args: Args, session: ClaudeSession, turns: number, extra: Record<string, unknown>): void {
	if (!args.isHeadless) return;
	const result = {
		type: 'result',
		subtype: 'success',
		is_error: false,
		num_turns: turns,
		session_id: session.id,
		total_cost_usd: Number(session.cost.toFixed(6)),
		modelUsage: {[MODEL]: {costUSD: Number(session.cost.toFixed(6))}},
		...extra,
	};
	process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Runs a tool call through its hooks: PreToolUse (which may defer it), the result, PostToolUse. */
async function callTool(session: ClaudeSession, call: ToolCall, result: string): Promise<'ran' | 'deferred'> {
	const fields = {tool_name: call.name, tool_input: call.input, tool_use_id: call.id};
	if (defers(session.hook('PreToolUse', fields))) return 'deferred';
	await ClaudeSession.think(150);
	session.user([{tool_use_id: call.id, type: 'tool_result', content: result, is_error: false}]);
	session.hook('PostToolUse', {...fields, tool_response: {stdout: result, stderr: '', interrupted: false}});
	return 'ran';
}

/** Ends a headless run: its last answer, Stop, SessionEnd, the result line. */
async function finishRun(args: Args, session: ClaudeSession, turns: number, text: string): Promise<number> {
	await session.answer([{type: 'text', text}], SMALL_TURN);
	session.hook('Stop', {stop_hook_active: false, last_assistant_message: text});
	session.hook('SessionEnd', {reason: 'other'});
	printResult(args, session, turns, {result: text, stop_reason: 'end_turn'});
	return 0;
}

/** `budget`: two test shards, a turn each; the hold hook asks a person once the budget is crossed (at the first). */
async function budgetRun(args: Args, session: ClaudeSession): Promise<number> {
	let pending = args.resume === null ? null : session.pendingCall();
	session.hook('SessionStart', {source: args.resume === null ? 'startup' : 'resume'});
	if (args.resume === null) {
		session.hook('UserPromptSubmit', {prompt: args.prompt});
		session.user(args.prompt);
	}
	const first = pending === null ? 1 : Number(/shard=(\d)/.exec(JSON.stringify(pending.input))?.[1] ?? 1);
	for (let shard = first; shard <= SHARDS; shard += 1) {
		const call = pending ?? {
			id: toolUseId(),
			name: 'Bash',
			input: {command: `npm test -- --shard=${shard}/${SHARDS}`, description: `Run test shard ${shard} of ${SHARDS}`},
		};
		if (pending === null) {
			await ClaudeSession.think(300);
			await session.answer([{type: 'text', text: `Running shard ${shard} of ${SHARDS}.`}, toolUse(call)], RUN_TURN);
		}
		pending = null;
		if ((await callTool(session, call, `shard ${shard}/${SHARDS}: 212 passed`)) === 'deferred') {
			// `defer`: the process ends at once, the tool not run (FORMATS.md); the wrapper waits for the answer.
			printResult(args, session, shard, {
				result: '',
				stop_reason: 'tool_deferred',
				terminal_reason: 'tool_deferred',
				deferred_tool_use: {id: call.id, name: call.name, input: call.input},
			});
			return 0;
		}
	}
	return finishRun(args, session, SHARDS, 'Both shards pass.');
}

/** `finish`: a short headless run that ends by itself. */
async function shortRun(args: Args, session: ClaudeSession): Promise<number> {
	session.hook('SessionStart', {source: 'startup'});
	session.hook('UserPromptSubmit', {prompt: args.prompt});
	session.user(args.prompt);
	const steps = ['npm outdated', 'npm install -E vitest@4.1.12', 'npm test'];
	for (const [index, command] of steps.entries()) {
		await ClaudeSession.think(500);
		const call = {id: toolUseId(), name: 'Bash', input: {command, description: `Step ${index + 1}`}};
		await session.answer([toolUse(call)], SMALL_TURN);
		await callTool(session, call, 'ok');
	}
	return finishRun(args, session, steps.length + 1, 'Dependencies bumped; the tests pass.');
}

/** `session`: a prompt, two helpers that read the code (one ends sooner), then a command that needs a person's yes. */
async function interactiveSession(args: Args, session: ClaudeSession): Promise<number> {
	const prompt = args.prompt || 'add a retry to the flaky upload test';
	session.hook('SessionStart', {source: 'startup'});
	session.hook('UserPromptSubmit', {prompt});
	session.user(prompt);
	await ClaudeSession.think(300);
	const helpers = ['upload client', 'test fixtures'].map(topic => ({
		topic,
		agentId: randomBytes(8).toString('hex'),
		call: {id: toolUseId(), name: 'Agent', input: {description: `Read the ${topic}`, subagent_type: 'Explore'}},
	}));
	await session.answer(
		[{type: 'text', text: 'Two helpers will read the code first.'}, ...helpers.map(helper => toolUse(helper.call))],
		RUN_TURN,
	);
	for (const helper of helpers) {
		session.hook('PreToolUse', {tool_name: 'Agent', tool_input: helper.call.input, tool_use_id: helper.call.id});
		session.hook('SubagentStart', {agent_id: helper.agentId, agent_type: 'Explore'});
	}
	// Each helper answers in its own transcript; the first ends after two answers, the second after four.
	for (let round = 1; round <= 4; round += 1) {
		for (const [index, helper] of helpers.entries()) {
			if (round > (index + 1) * 2) continue;
			await session.answer([{type: 'text', text: `Reading the ${helper.topic} (${round}).`}], HELPER_TURN, {
				model: HELPER_MODEL,
				helper: helper.agentId,
			});
			if (round === (index + 1) * 2) {
				session.hook('SubagentStop', {
					agent_id: helper.agentId,
					agent_type: 'Explore',
					agent_transcript_path: session.helperTranscript(helper.agentId),
					stop_hook_active: false,
				});
				session.user([{tool_use_id: helper.call.id, type: 'tool_result', content: `the ${helper.topic}, read`}]);
			}
		}
		await ClaudeSession.think(700);
	}
	const call = {id: toolUseId(), name: 'Bash', input: {command: 'npm test -- upload', description: 'Run the upload tests'}};
	await session.answer([{type: 'text', text: 'Adding the retry, then the tests.'}, toolUse(call)], SMALL_TURN);
	session.hook('PreToolUse', {tool_name: call.name, tool_input: call.input, tool_use_id: call.id});
	session.hook('Notification', {message: 'Claude needs your permission to use Bash', notification_type: 'permission_prompt'});
	// At its permission prompt, as a person's session waits: until the demo ends it.
	await new Promise<void>(resolve => {
		const idle = setInterval(() => undefined, 1 << 30);
		process.once('SIGTERM', () => {
			clearInterval(idle);
			resolve();
		});
	});
	return 0;
}

/** `controlroom demo --stand-in claude ARGS`. */
export async function runClaudeStandIn(argv: readonly string[]): Promise<number> {
	const args = readArgs(argv);
	const configDir = process.env['CLAUDE_CONFIG_DIR'] || join(homedir(), '.claude');
	const session = new ClaudeSession(loadHookTable(configDir, args.settings), {
		configDir,
		cwd: process.cwd(),
		isHeadless: args.isHeadless,
		model: MODEL,
		...(args.resume === null ? {} : {sessionId: args.resume}),
	});
	if (args.isHeadless && args.outputFormat === 'stream-json')
		process.stdout.write(`${JSON.stringify({type: 'system', subtype: 'init', session_id: session.id, model: MODEL})}\n`);
	const scenario = process.env['CONTROLROOM_DEMO_SCENARIO'];
	if (scenario === 'budget') return budgetRun(args, session);
	if (scenario === 'session') return interactiveSession(args, session);
	return shortRun(args, session);
}
