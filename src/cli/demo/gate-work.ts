import {spawn, type ChildProcess} from 'node:child_process';
import {mkdirSync, writeFileSync} from 'node:fs';
import {join} from 'node:path';

// The demo's work for the gates, through the real binary: a write held by the effect gate (`a`
// approves it) and a review that needs a person (`x` sends it back). docs/demo.md.

/** The work order whose write the demo holds. */
export const DEMO_ORDER = 'o-changelog';
/** The reviewed worker's task id. */
export const REVIEWED_TASK = 'w-notes';

const CHANGELOG = `## 0.2.0

- The board and the snapshot text measure widths as terminals draw them.
- Column headings over the lanes.
- \`controlroom completion bash|zsh|fish\`.
`;

/** Single-quotes `text` for a POSIX shell command line. */
function shellQuote(text: string): string {
	return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * Writes the work order (one upstream: the demo's own file server on `files`), then acts as its
 * worker: connects to `controlroom gateway`, reads a file (passes through) and writes one (held).
 * The gateway ends when the worker closes it; the held write waits for a person.
 */
export async function holdDemoWrite(bin: string, home: string, ledgerPath: string, env: NodeJS.ProcessEnv): Promise<void> {
	const files = join(home, 'work', 'release');
	mkdirSync(files, {recursive: true});
	writeFileSync(join(files, 'CHANGELOG.md'), '## 0.1.0\n\n- First release.\n');
	const orderFile = join(home, 'orders', `${DEMO_ORDER}.yaml`);
	mkdirSync(join(home, 'orders'), {recursive: true});
	// JSON is YAML: every value quoted, whatever the paths hold.
	const order = {
		order: DEMO_ORDER,
		worker: 'demo-writer',
		budget: {calls: 10},
		expires: '2h',
		upstreams: {
			fs: {command: process.execPath, args: [bin, 'demo', '--files-upstream', files], allow: ['read_file', 'write_file']},
		},
	};
	writeFileSync(orderFile, `${JSON.stringify(order, null, 2)}\n`);
	const [{Client}, {StdioClientTransport}] = await Promise.all([
		import('@modelcontextprotocol/sdk/client/index.js'),
		import('@modelcontextprotocol/sdk/client/stdio.js'),
	]);
	const transport = new StdioClientTransport({
		command: process.execPath,
		args: [bin, 'gateway', '--order', orderFile, '--ledger', ledgerPath],
		env: Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
		stderr: 'ignore',
	});
	const client = new Client({name: 'controlroom-demo-writer', version: '0'});
	await client.connect(transport);
	try {
		await client.callTool({name: 'fs__read_file', arguments: {path: 'CHANGELOG.md'}});
		await client.callTool({name: 'fs__write_file', arguments: {path: 'CHANGELOG.md', content: CHANGELOG}});
	} finally {
		await client.close();
	}
}

/** The reviewer's answer, both rounds: one fix, so the review ends needing a person after its fix round. */
const REVIEWER_SCRIPT = `console.log('1. say which Node versions the release supports')`;

/**
 * Once the reviewed worker has ended, reviews it with a reviewer that asks for the same fix twice:
 * round 1 sends the fix back (the worker runs again), round 2 leaves it to a person, in the queue's
 * reviews lane. Returns the review's process, for the demo to end with the rest.
 */
export function reviewWhenDone(
	bin: string,
	ledgerPath: string,
	env: NodeJS.ProcessEnv,
	worker: ChildProcess,
	started: (child: ChildProcess) => void,
): void {
	worker.once('exit', () => {
		const reviewer = `${shellQuote(process.execPath)} -e ${shellQuote(REVIEWER_SCRIPT)}`;
		// A review is a person's yes/no gate (docs/security.md, "Who is asking"): the demo starts it
		// for the person who started the demo, on that person's terminal and in its foreground group
		// (stdin inherited, not detached), as if typed there. It never reads the terminal.
		const review = spawn(process.execPath, [bin, 'review', REVIEWED_TASK, '--ledger', ledgerPath, '--reviewer', reviewer], {
			env,
			stdio: ['inherit', 'ignore', 'ignore'],
		});
		review.on('error', () => {});
		started(review);
	});
}
