import {randomUUID} from 'node:crypto';

// The demo's stand-in for Codex (`controlroom demo --stand-in codex exec --json PROMPT`, run as
// `codex` by the demo's agents folder): one turn of `codex exec --json` as Codex 0.169 prints it
// (../shared/formats/FORMATS.md): the thread, a plan that advances (`todo_list`), two commands, and
// `turn.completed` with the thread's usage, which the wrapper reads for tokens (no model is named
// there, so its cost stays unknown, as a real Codex run's does). docs/demo.md.

const sleep = (ms: number): Promise<void> => new Promise(resolve => setTimeout(resolve, ms));
const print = (event: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(event)}\n`);

/** `controlroom demo --stand-in codex ARGS`. */
export async function runCodexStandIn(argv: readonly string[]): Promise<number> {
	if (argv[0] !== 'exec' || !argv.includes('--json')) {
		process.stderr.write('the demo stand-in for codex runs only `exec --json PROMPT`\n');
		return 2;
	}
	const steps = ['find where the CSV is written', 'quote fields with commas', 'run the export tests'];
	const plan = (done: number) => ({
		id: 'item_plan',
		type: 'todo_list',
		items: steps.map((text, index) => ({text, completed: index < done})),
	});
	print({type: 'thread.started', thread_id: randomUUID()});
	print({type: 'turn.started'});
	print({type: 'item.started', item: plan(0)});
	const commands = ['rg -n "toCsv" src', 'npm test -- export'];
	for (const [index, command] of commands.entries()) {
		await sleep(900);
		const item = {
			id: `item_${index}`,
			type: 'command_execution',
			command,
			aggregated_output: 'ok\n',
			exit_code: 0,
			status: 'completed',
		};
		print({type: 'item.completed', item});
		print({type: 'item.updated', item: plan(index + 1)});
	}
	await sleep(600);
	print({type: 'item.completed', item: plan(steps.length)});
	print({
		type: 'item.completed',
		item: {id: 'item_reply', type: 'agent_message', text: 'The export quotes fields with commas now.'},
	});
	print({
		type: 'turn.completed',
		usage: {
			input_tokens: 48_210,
			cached_input_tokens: 31_000,
			cache_write_input_tokens: 0,
			output_tokens: 2140,
			reasoning_output_tokens: 820,
		},
	});
	return 0;
}
